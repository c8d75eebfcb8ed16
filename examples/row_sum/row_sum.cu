// row_sum: the sum of each row (last dimension), by two kernels for the same dtypes, which
// TensorRT times as tactics: a warp per row (short rows) and a block per row (long rows).
// Both accumulate in float.
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include "../common/kernel_utils.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

template <typename T>
__global__ void row_sum_warp_kernel(const T* __restrict__ x, T* __restrict__ y, std::int64_t rows,
                                    std::int64_t columns) {
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * blockDim.x / kWarp;
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  for (std::int64_t row = global_thread_index() / kWarp; row < rows; row += warps) {
    float sum = 0.0f;
    for (std::int64_t c = lane; c < columns; c += kWarp) sum += to_float(x[row * columns + c]);
    sum = warp_sum(sum);
    if (lane == 0) y[row] = from_float<T>(sum);
  }
}

template <typename T>
__global__ void row_sum_block_kernel(const T* __restrict__ x, T* __restrict__ y, std::int64_t rows,
                                     std::int64_t columns) {
  __shared__ float partial[kThreadsPerBlock / kWarp];
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    float sum = 0.0f;
    for (std::int64_t c = threadIdx.x; c < columns; c += blockDim.x) {
      sum += to_float(x[row * columns + c]);
    }
    sum = warp_sum(sum);
    if (threadIdx.x % kWarp == 0) partial[threadIdx.x / kWarp] = sum;
    __syncthreads();
    if (threadIdx.x < kWarp) {
      sum = threadIdx.x < blockDim.x / kWarp ? partial[threadIdx.x] : 0.0f;
      sum = warp_sum(sum);
      if (threadIdx.x == 0) y[row] = from_float<T>(sum);
    }
    __syncthreads();
  }
}

// Rows are the product of the leading extents (not numel / columns: there may be no columns).
template <typename T>
std::int64_t rows_of(const ap::In<T>& x) {
  std::int64_t rows = 1;
  for (int d = 0; d + 1 < x.rank(); ++d) rows *= x.size(d);
  return rows;
}

}  // namespace

template <typename T>
cudaError_t row_sum_warp(ap::In<T> x, ap::Out<T> y, cudaStream_t stream) {
  const std::int64_t rows = rows_of(x);
  if (rows == 0) return cudaSuccess;
  if (x.size(-1) == 0) return cudaMemsetAsync(y.data(), 0, rows * sizeof(T), stream);  // empty sums
  row_sum_warp_kernel<<<blocks_for(rows * kWarp), kThreadsPerBlock, 0, stream>>>(x.data(), y.data(),
                                                                                 rows, x.size(-1));
  return cudaGetLastError();
}

template <typename T>
cudaError_t row_sum_block(ap::In<T> x, ap::Out<T> y, cudaStream_t stream) {
  const std::int64_t rows = rows_of(x);
  if (rows == 0) return cudaSuccess;
  if (x.size(-1) == 0) return cudaMemsetAsync(y.data(), 0, rows * sizeof(T), stream);
  row_sum_block_kernel<<<capped_blocks(rows), kThreadsPerBlock, 0, stream>>>(x.data(), y.data(),
                                                                             rows, x.size(-1));
  return cudaGetLastError();
}

ap::Shape row_sum_shape(ap::Shape x) {
  ap::require(x.rank() >= 1, "x has at least one dimension");
  x.erase(x.rank() - 1);
  return x;
}

AUTOPLUGIN_OP("torchtrt_ex::row_sum(Tensor x) -> Tensor", row_sum_shape, row_sum_warp<float>,
              row_sum_block<float>, row_sum_warp<__half>, row_sum_block<__half>)
    .example(ap::Example().rank("x", 3));
