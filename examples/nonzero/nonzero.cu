// nonzero: the coordinates of the non-zero elements of x, in row-major order, as an
// [count, rank] int64 tensor. The count is data-dependent: a size tensor the kernel writes.
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include "../common/kernel_utils.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

constexpr int kScanThreads = 1024;

struct Extents {
  int rank;
  std::int64_t extent[ap::kMaxRank];
};

// One block walks the tensor in chunks, ranks each chunk's non-zeros with a block-wide scan and
// writes their coordinates; a single block keeps the output in row-major order.
template <typename T>
__global__ void nonzero_kernel(const T* __restrict__ x, std::int64_t n, Extents e,
                               std::int64_t* __restrict__ indices,
                               std::int64_t* __restrict__ count) {
  __shared__ std::int64_t scan[kScanThreads];
  std::int64_t written = 0;
  for (std::int64_t start = 0; start < n; start += kScanThreads) {
    const std::int64_t i = start + threadIdx.x;
    const bool flag = i < n && to_float(x[i]) != 0.0f;
    scan[threadIdx.x] = flag ? 1 : 0;
    __syncthreads();
    for (int offset = 1; offset < kScanThreads; offset <<= 1) {
      const std::int64_t add = threadIdx.x >= offset ? scan[threadIdx.x - offset] : 0;
      __syncthreads();
      scan[threadIdx.x] += add;
      __syncthreads();
    }
    if (flag) {
      std::int64_t* row = indices + (written + scan[threadIdx.x] - 1) * e.rank;
      std::int64_t rest = i;
      for (int d = e.rank - 1; d >= 0; --d) {
        row[d] = rest % e.extent[d];
        rest /= e.extent[d];
      }
    }
    written += scan[kScanThreads - 1];
    __syncthreads();
  }
  if (threadIdx.x == 0) *count = written;
}

}  // namespace

template <typename T>
cudaError_t nonzero(ap::In<T> x, ap::Out<std::int64_t> indices, ap::SizeOut count,
                    cudaStream_t stream) {
  Extents e{};
  e.rank = x.rank();
  for (int d = 0; d < e.rank; ++d) e.extent[d] = x.size(d);
  nonzero_kernel<<<1, kScanThreads, 0, stream>>>(x.data(), x.numel(), e, indices.data(),
                                                 count.data());
  return cudaGetLastError();
}

// The number of rows is known only after the kernel runs: at most every element, and half of
// them is the value TensorRT optimizes for.
ap::Shape nonzero_shape(ap::Shape x) {
  const ap::Dim elements = x.numel();
  return {ap::size_tensor(ap::floor_div(elements, 2), elements), x.rank()};
}

AUTOPLUGIN_OP("torchtrt_ex::nonzero(Tensor x) -> Tensor", nonzero_shape, nonzero<float>,
              nonzero<__half>, nonzero<__nv_bfloat16>, nonzero<std::int32_t>, nonzero<std::int64_t>)
    .example(ap::Example().rank("x", 2));
