// row_sum: the sum of each row (last dimension), by two kernels for the same dtypes, which
// TensorRT times as tactics: a warp per row (short rows) and a block per row (long rows). Both
// read rows with 16-byte loads, several in flight per thread (common/row_reduce.cuh), and
// accumulate in float.
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include "../common/row_reduce.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

template <typename T>
struct StoreSum {
  T* y;
  __device__ void operator()(std::int64_t row, float sum) const { y[row] = from_float<T>(sum); }
};

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
  launch_reduce_rows_by_warp<SumOp>(x.data(), rows, x.size(-1), StoreSum<T>{y.data()}, stream);
  return cudaGetLastError();
}

template <typename T>
cudaError_t row_sum_block(ap::In<T> x, ap::Out<T> y, cudaStream_t stream) {
  const std::int64_t rows = rows_of(x);
  if (rows == 0) return cudaSuccess;
  if (x.size(-1) == 0) return cudaMemsetAsync(y.data(), 0, rows * sizeof(T), stream);
  launch_reduce_rows_by_block<SumOp>(x.data(), rows, x.size(-1), StoreSum<T>{y.data()}, stream);
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
