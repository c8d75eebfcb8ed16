#!/usr/bin/env bash
# On a GPU machine (CUDA, PyTorch, Triton; TensorRT headers in .deps/tensorrt/v11.1 or
# $TensorRT_ROOT), from the repository root: builds the example plugins and the benchmark, checks
# every example against PyTorch (scripts/check-examples), runs compute-sanitizer on the examples'
# cases (scripts/sanitize-examples; memcheck, or the tools SANITIZE_TOOLS lists, e.g. "all"),
# then the benchmarks (bench/run_benchmarks.py). Everything goes to $OUT (default ./gpu-out); the
# summary table is printed at the end. About 6 minutes on an H200. The step `scatter` (in `all`
# too) does what concerns examples/scatter_reduce alone: its cases against PyTorch, memcheck on
# them, the aten converters' test (the replaced graph against eager PyTorch), every example case
# in eager PyTorch with opcheck, and bench/scatter_reduce_bench.py. The step `sort` (in `all` too)
# does the same for examples/sort: its cases, memcheck, tests/torch/test_aten_sort.py,
# tests/torch/test_torch_gpu.py and bench/sort_bench.py.
#   bench/gpu_run.sh [build|check|sanitize|bench|scatter|sort|all]...
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-out}
build=${AUTOPLUGIN_BUILD_DIR:-$root/build-gpu}
mkdir -p "$out"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(all)
want() { [[ " ${steps[*]} " == *" $1 "* || " ${steps[*]} " == *" all "* ]]; }
start=$(date +%s)
elapsed() { echo "$(( $(date +%s) - start )) s"; }
{ nvidia-smi -L; nvcc --version | tail -2
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"
status=0

if want build || want all; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DAUTOPLUGIN_BUILD_TESTS=OFF -DAUTOPLUGIN_WARNINGS_AS_ERRORS=OFF \
    -DTensorRT_ROOT="${TensorRT_ROOT:-$root/.deps/tensorrt/v11.1}" > "$out/configure.log" 2>&1 ||
    { tail -30 "$out/configure.log"; exit 1; }
  targets=(autoplugin autoplugin_examples_plugins autoplugin_bench)
  python3 -c "import torch" 2>/dev/null && targets+=(autoplugin_examples_torch)
  cmake --build "$build" -j 16 --target "${targets[@]}" \
    > "$out/build.log" 2>&1 || { grep -E "error" -A5 "$out/build.log" | head -60; exit 1; }
  echo "build: $(elapsed), $(grep -c "warning:" "$out/build.log") compiler warnings"
fi

# Correctness of every example against PyTorch on the GPU, in the background while the
# sanitizers run (neither is timed; the benchmarks below run alone).
check_pid=
if want check; then
  AUTOPLUGIN_BUILD_DIR=$build timeout 240 "$root/scripts/check-examples" \
    > "$out/check-examples.log" 2>&1 &
  check_pid=$!
fi

# compute-sanitizer on every case of every example (no reference: check-examples compares the
# outputs). The tools' controls are built with the tests (scripts/sanitize-examples says so).
if want sanitize; then
  tools=()
  for tool in ${SANITIZE_TOOLS:-memcheck}; do tools+=(--tool "$tool"); done
  AUTOPLUGIN_BUILD_DIR=$build OUT=$out "$root/scripts/sanitize-examples" "${tools[@]}" \
    --timeout "${SANITIZE_TIMEOUT:-120}" > "$out/sanitize.log" 2>&1 || status=1
  cat "$out/sanitize/sanitize-summary.txt"
  echo "sanitize: $(elapsed)"
fi

if [ -n "$check_pid" ]; then
  wait "$check_pid" || status=1
  echo "check-examples ($(elapsed)):"
  grep -E "passed|failed|FAIL" "$out/check-examples.log" | tail -20
fi

if want bench; then
  timeout "${BENCH_TIMEOUT:-270}" python3 "$root/bench/run_benchmarks.py" "$build" --json "$out/summary.json" \
    > "$out/benchmarks.txt" 2>&1 || status=1
  sed -n '/^Summary/,$p' "$out/benchmarks.txt"
  grep -E "failed:|Error|Traceback" "$out/benchmarks.txt" | head -10
fi
if want scatter; then
  library=$build/examples/libautoplugin_examples_plugins.so
  # Against PyTorch through one reference server (a Python start per case would take minutes).
  AUTOPLUGIN_BUILD_DIR=$build "$root/scripts/check-examples" --example scatter_reduce \
    > "$out/scatter-check.log" 2>&1 || status=1
  grep -E "FAIL|passed|failed" "$out/scatter-check.log" | tail -8
  "$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)" \
    --tool memcheck --error-exitcode 1 --target-processes all \
    "$build/tools/autoplugin" check "$library" --case "$root/examples/scatter_reduce/cases.json" \
    > "$out/scatter-memcheck.log" 2>&1 || status=1
  grep -E "ERROR SUMMARY|passed|failed" "$out/scatter-memcheck.log" | tail -3
  export AUTOPLUGIN_TORCH_LIBRARY=$build/examples/libautoplugin_examples_torch.so
  export AUTOPLUGIN_SOURCE_DIR=$root
  for test in test_aten_scatter test_torch_gpu; do
    timeout 300 python3 "$root/tests/python/run.py" "$root/tests/torch/$test.py" \
      > "$out/$test.log" 2>&1 || status=1
    grep -E "exported|validator|eager:|opcheck torchtrt_ex::scatter|^Ran |^OK|FAIL|Error|SKIPPED" \
      "$out/$test.log" | head -40
  done
  timeout 300 python3 "$root/bench/scatter_reduce_bench.py" "$build" \
    > "$out/scatter-bench.txt" 2>&1 || status=1
  cat "$out/scatter-bench.txt"
fi
if want sort; then
  library=$build/examples/libautoplugin_examples_plugins.so
  # Against PyTorch through one reference server (a Python start per case would take minutes).
  AUTOPLUGIN_BUILD_DIR=$build "$root/scripts/check-examples" --example sort \
    > "$out/sort-check.log" 2>&1 || status=1
  grep -E "FAIL|passed|failed" "$out/sort-check.log" | tail -8
  "$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)" \
    --tool memcheck --error-exitcode 1 --target-processes all \
    "$build/tools/autoplugin" check "$library" --case "$root/examples/sort/cases.json" \
    > "$out/sort-memcheck.log" 2>&1 || status=1
  grep -E "ERROR SUMMARY|passed|failed" "$out/sort-memcheck.log" | tail -3
  export AUTOPLUGIN_TORCH_LIBRARY=$build/examples/libautoplugin_examples_torch.so
  export AUTOPLUGIN_SOURCE_DIR=$root
  for test in test_aten_sort test_torch_gpu; do
    timeout 300 python3 "$root/tests/python/run.py" "$root/tests/torch/$test.py" \
      > "$out/sort-$test.log" 2>&1 || status=1
    grep -E "exported|validator|eager:|opcheck torchtrt_ex::sort|^Ran |^OK|FAIL|Error|SKIPPED" \
      "$out/sort-$test.log" | head -40
  done
  timeout 300 python3 "$root/bench/sort_bench.py" "$build" > "$out/sort-bench.txt" 2>&1 || status=1
  cat "$out/sort-bench.txt"
fi
# The PyTorch ops' eager cost beside PyTorch's own (bench/torch_bench.py), where built.
if want bench && [ -f "$build/examples/libautoplugin_examples_torch.so" ]; then
  timeout 60 python3 "$root/bench/torch_bench.py" "$build" > "$out/torch_bench.txt" 2>&1 || status=1
  cat "$out/torch_bench.txt"
fi
echo "total: $(elapsed), status $status"
exit $status
