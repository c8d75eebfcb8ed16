// row_max: the maximum of each row (last dimension) and its first index; two outputs of
// different dtypes. NaN counts as the maximum, as in PyTorch.
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include <utility>

#include "../common/kernel_utils.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

template <typename T>
__global__ void row_max_kernel(const T* __restrict__ x, T* __restrict__ values,
                               std::int64_t* __restrict__ indices, std::int64_t rows,
                               std::int64_t columns) {
  for (std::int64_t row = global_thread_index(); row < rows; row += grid_stride()) {
    const T* r = x + row * columns;
    float best = to_float(r[0]);
    std::int64_t best_index = 0;
    for (std::int64_t c = 1; c < columns; ++c) {
      const float v = to_float(r[c]);
      if (!isnan(best) && (v > best || isnan(v))) {
        best = v;
        best_index = c;
      }
    }
    values[row] = r[best_index];
    indices[row] = best_index;
  }
}

}  // namespace

template <typename T>
cudaError_t row_max(ap::In<T> x, ap::Out<T> values, ap::Out<std::int64_t> indices,
                    cudaStream_t stream) {
  const std::int64_t columns = x.size(-1);
  const std::int64_t rows = columns == 0 ? 0 : x.numel() / columns;
  if (rows == 0) return cudaSuccess;
  row_max_kernel<<<blocks_for(rows), kThreadsPerBlock, 0, stream>>>(x.data(), values.data(),
                                                                    indices.data(), rows, columns);
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
