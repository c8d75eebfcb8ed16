#!/usr/bin/env bash
# from-torch on a GPU machine (CUDA, PyTorch, Triton; TensorRT's headers, no TensorRT runtime):
# generate the three examples' plugin projects (the circular pad from the RFC's module as
# published) and those of two focused test modules, build them against this checkout's installed
# autoplugin, run `autoplugin check` on each against PyTorch (the circular pad bitwise against
# F.pad(mode="circular")), and run bench/from_torch_bench.py. Everything lands in $OUT.
#
#   OUT=/tmp/results TensorRT_ROOT=.deps/tensorrt/v11.1 examples/from_torch/run_gpu.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mkdir -p "${OUT:-$root/out}/from_torch" && cd "${OUT:-$root/out}/from_torch" && pwd)
work=${WORK:-/tmp/from_torch_work}
jobs=${JOBS:-16}
trt=${TensorRT_ROOT:-$root/.deps/tensorrt/v11.1}
[ -d "$trt/include" ] || { echo "set TensorRT_ROOT to a folder with TensorRT's include/" >&2; exit 1; }
trt=$(cd "$trt" && pwd)
exec > >(tee "$out/run_gpu.log") 2>&1
nvidia-smi -L || true
python3 -c "import torch, triton; print('PyTorch', torch.__version__, 'Triton', triton.__version__)"

echo "== autoplugin, built and installed"
cmake -S "$root" -B "$work/autoplugin" -G Ninja -DTensorRT_ROOT="$trt" -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DAUTOPLUGIN_BUILD_TESTS=OFF -DAUTOPLUGIN_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$work/autoplugin" -j"$jobs" >/dev/null
cmake --install "$work/autoplugin" --prefix "$work/prefix" >/dev/null
autoplugin=$work/prefix/bin/autoplugin

echo "== generate (python3 -m autoplugin.from_torch)"
export PYTHONPATH=$root/python${PYTHONPATH:+:$PYTHONPATH}
generated=$out/generated
rm -rf "$generated"
cd "$root"
python3 -m autoplugin.from_torch examples/from_torch/circular_pad_rfc.py --dtypes float32,float16 \
  --example 'torchtrt_ex::triton_circular_pad(x=[2, 3, 8, 8], padding=[1, 1, 2, 2])' \
  --example 'torchtrt_ex::triton_circular_pad(x=[2, 3, 8, 8], padding=[1, 2, 1, 1, 2, 2])' \
  --out "$generated"
python3 -m autoplugin.from_torch examples/from_torch/scaled_leaky_relu.py --dtypes float32,float16 \
  --out "$generated"
python3 -m autoplugin.from_torch examples/from_torch/row_window_max.py --dtypes float32,float16 \
  --out "$generated"
# Host code as users write it (tests/python): an optional bias, an in-place op, scratch buffers
# (the workspace) and a second output of another dtype.
for module in optional_inplace scratch; do
  python3 -m autoplugin.from_torch "tests/python/from_torch_$module.py" --dtypes float32,float16 \
    --out "$generated"
done

# More cases than the generated ones: larger and odd shapes, dynamic batch, the circular pad
# compared bitwise (atol = rtol = 0).
python3 - "$generated" <<'PY'
import json, sys
folder = sys.argv[1]
extra = {
    "triton_circular_pad": [
        {"name": "f32_large", "inputs": [{"dtype": "float32", "shape": [8, 16, 64, 72]}],
         "attributes": {"padding": [2, 3, 4, 1]}},
        {"name": "f16_large", "inputs": [{"dtype": "float16", "shape": [4, 7, 33, 65]}],
         "attributes": {"padding": [3, 1, 2, 5]}},
        {"name": "f16_dynamic", "inputs": [{"dtype": "float16", "min": [1, 3, 17, 19],
         "opt": [5, 3, 17, 19], "max": [9, 3, 17, 19]}], "attributes": {"padding": [0, 5, 7, 0, 1, 1]}},
        {"name": "f32_wrap_whole", "inputs": [{"dtype": "float32", "shape": [1, 2, 3, 4]}],
         "attributes": {"padding": [4, 4, 3, 3]}}],
    "scaled_leaky_relu": [
        {"name": "f32_odd", "inputs": [{"dtype": "float32", "shape": [3, 1031, 7]}],
         "attributes": {"negative_slope": 0.25, "scale": -1.5}},
        {"name": "f16_dynamic", "inputs": [{"dtype": "float16", "min": [1, 1, 5], "opt": [7, 300, 5],
         "max": [64, 600, 5]}], "attributes": {"negative_slope": 0.01, "scale": 3.0}}],
    "row_window_max": [
        {"name": "f32_window_longer_than_row", "inputs": [{"dtype": "float32", "shape": [5, 6]}],
         "attributes": {"window": 9}},
        {"name": "f16_long_rows", "inputs": [{"dtype": "float16", "shape": [33, 1000]}],
         "attributes": {"window": 17}},
        {"name": "f32_dynamic", "inputs": [{"dtype": "float32", "min": [1, 300], "opt": [40, 300],
         "max": [100, 300]}], "attributes": {"window": 300}}],
}
for name, cases in extra.items():
    path = f"{folder}/{name}/cases.json"
    with open(path) as f:
        data = json.load(f)
    data["cases"] += cases
    if name == "triton_circular_pad":
        for case in data["cases"]:
            case["atol"] = 0
            case["rtol"] = 0
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
PY

status=0
for op in triton_circular_pad scaled_leaky_relu row_window_max scale_bias axpy_ rms_norm \
    rms_norm_stats; do
  echo "== build and check $op"
  cmake -S "$generated/$op" -B "$generated/$op/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DTensorRT_ROOT="$trt" >/dev/null
  cmake --build "$generated/$op/build" -j"$jobs" >/dev/null
  "$autoplugin" check "$generated/$op/build/lib${op}_plugin.so" --case "$generated/$op/cases.json" \
    --reference "python3 $root/examples/from_torch/reference.py" > "$out/check_$op.txt" 2>&1 || status=1
  tail -n 1 "$out/check_$op.txt"
done

echo "== benchmark (bench/from_torch_bench.py)"
cmake -S "$root/examples/from_torch/bench_harness" -B "$work/harness" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DTensorRT_ROOT="$trt" >/dev/null
cmake --build "$work/harness" >/dev/null
python3 "$root/bench/from_torch_bench.py" --generated "$generated" --harness "$work/harness/enqueue_bench" \
  --json "$out/bench.json" | tee "$out/bench.txt" || status=1
exit $status
