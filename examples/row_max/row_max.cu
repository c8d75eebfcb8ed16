// row_max: the maximum of each row (last dimension) and its first index; two outputs of
// different dtypes. NaN counts as the maximum, as in PyTorch. A warp per row for rows up to 8 KB,
// a block per row for longer ones; 16-byte loads, several in flight per thread
// (common/row_reduce.cuh).
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include <utility>

#include "../common/row_reduce.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

template <typename T>
struct StoreMax {
  T* values;
  std::int64_t* indices;
  __device__ void operator()(std::int64_t row, ArgMaxOp::Acc best) const {
    values[row] = from_float<T>(best.value);
    indices[row] = best.index;
  }
};

}  // namespace

template <typename T>
cudaError_t row_max(ap::In<T> x, ap::Out<T> values, ap::Out<std::int64_t> indices,
                    cudaStream_t stream) {
  const std::int64_t columns = x.size(-1);
  const std::int64_t rows = columns == 0 ? 0 : x.numel() / columns;
  if (rows == 0) return cudaSuccess;
  const StoreMax<T> store{values.data(), indices.data()};
  if (columns * static_cast<std::int64_t>(sizeof(T)) <= kWarpRowBytes) {
    launch_reduce_rows_by_warp<ArgMaxOp>(x.data(), rows, columns, store, stream);
  } else {
    launch_reduce_rows_by_block<ArgMaxOp>(x.data(), rows, columns, store, stream);
  }
  return cudaGetLastError();
}

std::pair<ap::Shape, ap::Shape> row_max_shape(ap::Shape x) {
  ap::require(x.rank() >= 1, "x has at least one dimension");
  ap::require(x.at(-1) > 0, "rows are not empty");
  x.erase(x.rank() - 1);
  return {x, x};
}

AUTOPLUGIN_OP("torchtrt_ex::row_max(Tensor x) -> (Tensor values, Tensor indices)", row_max_shape,
              row_max<float>, row_max<__half>, row_max<__nv_bfloat16>)
    .example(ap::Example().rank("x", 3));
