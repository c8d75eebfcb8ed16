// circular_pad: N-d circular padding, `padding` in PyTorch order (last dimension first, a
// (before, after) pair per dimension). The op from Torch-TensorRT's plugin-generation RFC.
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include <algorithm>

#include "../common/circular_pad_shape.h"
#include "../common/kernel_utils.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

struct PadGeometry {
  int rank;
  std::int64_t in_extent[ap::kMaxRank];
  std::int64_t out_extent[ap::kMaxRank];
  std::int64_t pad_before[ap::kMaxRank];
};

constexpr int kUnroll = 8;  // loads in flight per lane before their stores (8 measured best)

// Padding wraps at most once (the shape function requires it), so a conditional add or
// subtract replaces the modulo.
template <typename Index>
__device__ inline Index wrap(Index i, Index extent) {
  return i < 0 ? i + extent : (i >= extent ? i - extent : i);
}

// One warp per output row (all dimensions but the last): the row's source is computed once,
// then the lanes copy the row, a wrapped contiguous run of the input row, with coalesced loads
// and stores and several loads in flight per lane. Index is 32-bit whenever the tensors allow:
// the index math, not the memory, would otherwise bound the kernel.
template <typename T, typename Index>
__global__ void circular_pad_rows(const T* __restrict__ x, T* __restrict__ y, PadGeometry g,
                                  Index rows) {
  const Index lane = static_cast<Index>(threadIdx.x % kWarp);
  const Index warps = static_cast<Index>(gridDim.x * (blockDim.x / kWarp));
  const int last = g.rank - 1;
  const auto w_in = static_cast<Index>(g.in_extent[last]);
  const auto w_out = static_cast<Index>(g.out_extent[last]);
  const auto before = static_cast<Index>(g.pad_before[last]);
  for (Index row = static_cast<Index>(blockIdx.x * (blockDim.x / kWarp) + threadIdx.x / kWarp);
       row < rows; row += warps) {
    Index rest = row;
    Index source_row = 0;
    Index stride = 1;
    for (int d = last - 1; d >= 0; --d) {
      const auto out_extent = static_cast<Index>(g.out_extent[d]);
      const auto in_extent = static_cast<Index>(g.in_extent[d]);
      // The outermost index needs no modulo.
      const Index o = d == 0 ? rest : rest % out_extent;
      rest /= out_extent;
      source_row += wrap<Index>(o - static_cast<Index>(g.pad_before[d]), in_extent) * stride;
      stride *= in_extent;
    }
    const T* source = x + static_cast<std::int64_t>(source_row) * w_in;
    T* target = y + static_cast<std::int64_t>(row) * w_out;
    for (Index base = lane; base < w_out; base += kWarp * kUnroll) {
      T values[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const Index j = base + u * kWarp;
        if (j < w_out) values[u] = source[wrap<Index>(j - before, w_in)];
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const Index j = base + u * kWarp;
        if (j < w_out) target[j] = values[u];
      }
    }
  }
}

// Merges the leading dimensions that have no padding into one: fewer divisions per row.
PadGeometry merge_unpadded_leading_dims(const PadGeometry& g) {
  int first_padded = 0;
  while (first_padded < g.rank - 1 && g.pad_before[first_padded] == 0 &&
         g.in_extent[first_padded] == g.out_extent[first_padded]) {
    ++first_padded;
  }
  if (first_padded <= 1) return g;
  PadGeometry merged{};
  merged.rank = g.rank - first_padded + 1;
  merged.in_extent[0] = merged.out_extent[0] = 1;
  for (int d = 0; d < first_padded; ++d) {
    merged.in_extent[0] *= g.in_extent[d];
    merged.out_extent[0] *= g.out_extent[d];
  }
  for (int d = first_padded; d < g.rank; ++d) {
    merged.in_extent[d - first_padded + 1] = g.in_extent[d];
    merged.out_extent[d - first_padded + 1] = g.out_extent[d];
    merged.pad_before[d - first_padded + 1] = g.pad_before[d];
  }
  return merged;
}

}  // namespace

template <typename T>
cudaError_t circular_pad(ap::In<T> x, ap::Out<T> y, std::span<const std::int64_t> padding,
                         cudaStream_t stream) {
  const std::int64_t total = y.numel();
  if (total == 0) return cudaSuccess;
  if (x.rank() == 0) {
    return cudaMemcpyAsync(y.data(), x.data(), sizeof(T), cudaMemcpyDeviceToDevice, stream);
  }
  PadGeometry g{};
  g.rank = x.rank();
  for (int d = 0; d < g.rank; ++d) {
    g.in_extent[d] = x.size(d);
    g.out_extent[d] = y.size(d);
  }
  for (std::size_t i = 0; i < padding.size() / 2; ++i) {
    g.pad_before[g.rank - 1 - static_cast<int>(i)] = padding[2 * i];
  }
  g = merge_unpadded_leading_dims(g);
  const std::int64_t rows = total / y.size(-1);
  const unsigned int blocks = blocks_for(rows * kWarp);
  // 32-bit indices when no index, nor a row number advanced by the grid's warps, can overflow.
  const std::int64_t warps = static_cast<std::int64_t>(blocks) * (kThreadsPerBlock / kWarp);
  const bool small = std::max(total, x.numel()) + warps + kWarp * kUnroll < INT32_MAX;
  if (small) {
    circular_pad_rows<T, std::int32_t><<<blocks, kThreadsPerBlock, 0, stream>>>(
        x.data(), y.data(), g, static_cast<std::int32_t>(rows));
  } else {
    circular_pad_rows<T, std::int64_t>
        <<<blocks, kThreadsPerBlock, 0, stream>>>(x.data(), y.data(), g, rows);
  }
  return cudaGetLastError();
}

AUTOPLUGIN_OP("torchtrt_ex::circular_pad(Tensor x, int[] padding) -> Tensor", circular_pad_shape,
              circular_pad<float>, circular_pad<__half>, circular_pad<__nv_bfloat16>)
    .example(ap::Example().rank("x", 4).attr("padding", ap::IntList{1, 1, 2, 2}));
