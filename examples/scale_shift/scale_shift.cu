// scale_shift: y = round(relu(scale * x + shift)), with attributes of four types (float, int,
// bool, str), each optional with a default. The `str` attribute binds to an enum of our own
// (AttrBinding), decoded once when the plugin is created.
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
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

}  // namespace

// `rounding` arrives as a Rounding: a name other than these fails the plugin's creation.
template <>
struct autoplugin::AttrBinding<Rounding> {
  using schema_type = std::string_view;
  static constexpr std::string_view name = "Rounding";
  static Rounding decode(std::string_view text) {
    if (text == "none") return Rounding::None;
    if (text == "floor") return Rounding::Floor;
    if (text == "nearest") return Rounding::Nearest;
    throw std::invalid_argument("rounding is \"none\", \"floor\" or \"nearest\", not \"" +
                                std::string(text) + "\"");
  }
};

template <typename T>
cudaError_t scale_shift(ap::In<T> x, ap::Out<T> y, float scale, std::int32_t shift, bool relu,
                        Rounding rounding, cudaStream_t stream) {
  const std::int64_t n = x.numel();
  if (n == 0) return cudaSuccess;
  scale_shift_kernel<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(
      x.data(), y.data(), n, scale, static_cast<float>(shift), relu, rounding);
  return cudaGetLastError();
}

ap::Shape scale_shift_shape(ap::Shape x, double, std::int64_t, bool, Rounding) { return x; }

AUTOPLUGIN_OP(
    "torchtrt_ex::scale_shift(Tensor x, float scale=1.0, int shift=0, bool relu=False, "
    "str rounding=\"none\") -> Tensor",
    scale_shift_shape, scale_shift<float>, scale_shift<__half>, scale_shift<__nv_bfloat16>)
    .example(ap::Example().rank("x", 2));
