// circular_pad: N-d circular padding, `padding` in PyTorch order (last dimension first, a
// (before, after) pair per dimension). The op from Torch-TensorRT's plugin-generation RFC.
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>

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

template <typename T>
__global__ void circular_pad_kernel(const T* __restrict__ x, T* __restrict__ y, PadGeometry g,
                                    std::int64_t total) {
  for (std::int64_t out = global_thread_index(); out < total; out += grid_stride()) {
    std::int64_t rest = out;
    std::int64_t source = 0;
    std::int64_t in_stride = 1;
    for (int d = g.rank - 1; d >= 0; --d) {
      const std::int64_t o = rest % g.out_extent[d];
      rest /= g.out_extent[d];
      std::int64_t i = (o - g.pad_before[d]) % g.in_extent[d];
      if (i < 0) i += g.in_extent[d];
      source += i * in_stride;
      in_stride *= g.in_extent[d];
    }
    y[out] = x[source];
  }
}

}  // namespace

template <typename T>
cudaError_t circular_pad(ap::In<T> x, ap::Out<T> y, std::span<const std::int64_t> padding,
                         cudaStream_t stream) {
  PadGeometry g{};
  g.rank = x.rank();
  for (int d = 0; d < g.rank; ++d) {
    g.in_extent[d] = x.size(d);
    g.out_extent[d] = y.size(d);
  }
  for (std::size_t i = 0; i < padding.size() / 2; ++i) {
    g.pad_before[g.rank - 1 - static_cast<int>(i)] = padding[2 * i];
  }
  const std::int64_t total = y.numel();
  if (total == 0) return cudaSuccess;
  circular_pad_kernel<<<blocks_for(total), kThreadsPerBlock, 0, stream>>>(x.data(), y.data(), g,
                                                                          total);
  return cudaGetLastError();
}

// The "fake implementation", written once over symbolic dimensions.
ap::Shape circular_pad_shape(ap::Shape x, std::span<const std::int64_t> padding) {
  ap::require(padding.size() % 2 == 0, "padding holds a (before, after) pair per dimension");
  ap::require(padding.size() / 2 <= x.rank(), "padding covers at most every dimension of x");
  for (std::size_t i = 0; i < padding.size() / 2; ++i) {
    ap::Dim& extent = x[x.rank() - 1 - i];
    const std::int64_t before = padding[2 * i];
    const std::int64_t after = padding[2 * i + 1];
    // As in PyTorch: padding wraps at most once, and negative padding crops at most the extent.
    // The attributes are known values, so only the checks that can fail are recorded.
    const std::int64_t largest = std::max(std::abs(before), std::abs(after));
    if (largest > 0) {
      ap::require(largest <= extent, "circular padding wraps around at most once");
    }
    extent += before + after;
    if (before + after < 0) ap::require(extent >= 0, "padding leaves a non-negative extent");
  }
  return x;
}

AUTOPLUGIN_OP("torchtrt_ex::circular_pad(Tensor x, int[] padding) -> Tensor", circular_pad_shape,
              circular_pad<float>, circular_pad<__half>, circular_pad<__nv_bfloat16>)
    .example(ap::Example().rank("x", 4).attr("padding", ap::IntList{1, 1, 2, 2}));
