// broadcast_to: expands x to `size`, a SymInt[] argument. `size` is a TensorRT shape input: its
// values are only known when the engine runs, and the output shape is built from them.
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include "../common/kernel_utils.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

struct BroadcastGeometry {
  int rank;
  std::int64_t out_extent[ap::kMaxRank];
  std::int64_t in_stride[ap::kMaxRank];  // 0 along broadcast dimensions
};

template <typename T>
__global__ void broadcast_kernel(const T* __restrict__ x, T* __restrict__ y, BroadcastGeometry g,
                                 std::int64_t total) {
  for (std::int64_t out = global_thread_index(); out < total; out += grid_stride()) {
    std::int64_t rest = out;
    std::int64_t source = 0;
    for (int d = g.rank - 1; d >= 0; --d) {
      source += (rest % g.out_extent[d]) * g.in_stride[d];
      rest /= g.out_extent[d];
    }
    y[out] = x[source];
  }
}

}  // namespace

template <typename T>
cudaError_t broadcast_to(ap::In<T> x, ap::Out<T> y, cudaStream_t stream) {
  BroadcastGeometry g{};
  g.rank = y.rank();
  const int offset = y.rank() - x.rank();
  for (int d = 0; d < g.rank; ++d) {
    g.out_extent[d] = y.size(d);
    const int in_axis = d - offset;
    g.in_stride[d] = in_axis < 0 || x.size(in_axis) == 1 ? 0 : x.stride(in_axis);
  }
  const std::int64_t total = y.numel();
  if (total == 0) return cudaSuccess;
  broadcast_kernel<<<blocks_for(total), kThreadsPerBlock, 0, stream>>>(x.data(), y.data(), g,
                                                                       total);
  return cudaGetLastError();
}

ap::Shape broadcast_to_shape(ap::Shape x, ap::Shape size) {
  ap::require(x.rank() <= size.rank(), "size has at least as many dimensions as x");
  for (const ap::Dim& extent : size) ap::require(extent >= 0, "sizes are non-negative");
  const std::size_t offset = size.rank() - x.rank();
  for (std::size_t i = 0; i < x.rank(); ++i) {
    ap::require(x[i] == 1 || x[i] == size[offset + i],
                "each dimension of x is 1 or equals the requested size");
  }
  return size;
}

AUTOPLUGIN_OP("torchtrt_ex::broadcast_to(Tensor x, SymInt[] size) -> Tensor", broadcast_to_shape,
              broadcast_to<float>, broadcast_to<__half>, broadcast_to<__nv_bfloat16>,
              broadcast_to<std::int32_t>, broadcast_to<std::int64_t>)
    .example(ap::Example().rank("x", 2).length("size", 3));
