// scale_shift: y = round(relu(scale * x + shift)), with attributes of four types (float, int,
// bool, str), each optional with a default.
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include <string_view>

#include "../common/kernel_utils.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

enum class Rounding { None, Floor, Nearest };

template <typename T>
__global__ void scale_shift_kernel(const T* __restrict__ x, T* __restrict__ y, std::int64_t n,
                                   float scale, float shift, bool relu, Rounding rounding) {
  for (std::int64_t i = global_thread_index(); i < n; i += grid_stride()) {
    float v = to_float(x[i]) * scale + shift;
    if (relu) v = fmaxf(v, 0.0f);
    if (rounding == Rounding::Floor) v = floorf(v);
    if (rounding == Rounding::Nearest) v = rintf(v);  // half to even, like torch.round
    y[i] = from_float<T>(v);
  }
}

Rounding parse_rounding(std::string_view name) {
  return name == "floor" ? Rounding::Floor : name == "nearest" ? Rounding::Nearest : Rounding::None;
}

}  // namespace

template <typename T>
cudaError_t scale_shift(ap::In<T> x, ap::Out<T> y, float scale, std::int32_t shift, bool relu,
                        std::string_view rounding, cudaStream_t stream) {
  const std::int64_t n = x.numel();
  if (n == 0) return cudaSuccess;
  scale_shift_kernel<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(
      x.data(), y.data(), n, scale, static_cast<float>(shift), relu, parse_rounding(rounding));
  return cudaGetLastError();
}

ap::Shape scale_shift_shape(ap::Shape x, double, std::int64_t, bool, std::string_view rounding) {
  ap::require(rounding == "none" || rounding == "floor" || rounding == "nearest",
              "rounding is \"none\", \"floor\" or \"nearest\"");
  return x;
}

AUTOPLUGIN_OP(
    "torchtrt_ex::scale_shift(Tensor x, float scale=1.0, int shift=0, bool relu=False, "
    "str rounding=\"none\") -> Tensor",
    scale_shift_shape, scale_shift<float>, scale_shift<__half>, scale_shift<__nv_bfloat16>)
    .example(ap::Example().rank("x", 2));
