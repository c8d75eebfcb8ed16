#!/usr/bin/env bash
# On a GPU machine (CUDA, PyTorch, Triton), from anywhere: builds and runs the circular_pad
# kernel variants (variants.cu, CUDA; triton_variants.py, Triton), each checked bit for bit
# against a reference and timed against a device copy of the same bytes. Output:
# $OUT/variants.txt (default ./variants-out). About 2 minutes on an H200.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/variants-out}
mkdir -p "$out"
exec > >(tee "$out/variants.txt") 2>&1
status=0
nvidia-smi -L
nvcc --version | tail -1
# The op's kernel, as examples/circular_pad/circular_pad.cu has it now.
python3 "$here/extract_op_kernel.py" "$out/op_kernel.inc" || status=1
echo "== the CUDA variants' index logic on the CPU (host_check.cpp)"
g++ -O2 -std=c++17 -w -I "$out" "$here/host_check.cpp" -o "$out/host_check" &&
  "$out/host_check" | tail -5 || status=1
echo "== CUDA variants (variants.cu)"
nvcc -O3 -arch=sm_90 -std=c++17 -I "$out" "$here/variants.cu" -o "$out/variants" &&
  timeout 120 "$out/variants" || status=1
echo
echo "== Triton variants (triton_variants.py)"
timeout 150 python3 "$here/triton_variants.py" || status=1
echo "status $status"
exit $status
