#!/usr/bin/env bash
# from-torch's kernel variants on a GPU machine (CUDA, PyTorch, Triton; TensorRT's headers): the
# constexpr family (softmax rows, string and bool constexprs), a set of head sizes, the heuristics
# and the autotuned test modules are generated, built against an installed autoplugin and checked with
# `autoplugin check` against the module's own op run eagerly (every tactic of the autotuned op).
#
#   PREFIX=<installed autoplugin> TensorRT_ROOT=.deps/tensorrt/v11.1 tests/python/run_variants_gpu.sh
# (MODULES="from_torch_set_of_sizes ..." for some of them)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
prefix=${PREFIX:?set PREFIX to an installed autoplugin (cmake --install <build> --prefix PREFIX)}
trt=$(cd "${TensorRT_ROOT:?set TensorRT_ROOT to a folder with TensorRT include/}" && pwd)
work=${WORK:-/tmp/from_torch_variants}
rm -rf "$work"
export PYTHONPATH=$root/python${PYTHONPATH:+:$PYTHONPATH}
status=0
for module in ${MODULES:-from_torch_constexpr_family from_torch_set_of_sizes \
  from_torch_heuristics from_torch_autotuned}; do
  echo "== $module"
  python3 -m autoplugin.from_torch "$root/tests/python/$module.py" --dtypes float32,float16 \
    --max-block 4096 --out "$work/$module" > "$work.folder" 2> "$work.log" || { cat "$work.log"; exit 1; }
  while read -r folder; do  # a project per op of the module
    op=$(basename "$folder")
    cmake -S "$folder" -B "$folder/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
      -DTensorRT_ROOT="$trt" > /dev/null
    cmake --build "$folder/build" > /dev/null
    "$prefix/bin/autoplugin" check "$folder/build/lib${op}_plugin.so" --case "$folder/cases.json" \
      --reference "python3 $root/tests/python/eager_reference.py $root/tests/python/$module.py" \
      > "$work/check_$op.txt" 2>&1 || status=1
    echo "-- $op"
    grep -E "tactic|failed" "$work/check_$op.txt" | tail -n 4
  done < <(grep -v '^$' "$work.folder")
done
exit $status
