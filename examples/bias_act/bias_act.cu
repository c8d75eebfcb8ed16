// bias_act: y = relu?(x * weight + bias), with per-channel `weight` and `bias` (x's dimension 1)
// that may each be None. Through TensorRT an absent trailing input is left out of the layer's
// inputs; an absent one before a present one is declared in the plugin's reserved field
// autoplugin_absent_inputs. The launcher sees OptIn::present() == false either way.
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include <optional>
#include <stdexcept>

#include "../common/kernel_utils.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

// `weight`/`bias` null when absent. `inner`: elements per channel and batch (x's extents after
// dimension 1).
template <typename T>
__global__ void bias_act_kernel(const T* __restrict__ x, const T* __restrict__ weight,
                                const T* __restrict__ bias, T* __restrict__ y, std::int64_t n,
                                std::int64_t channels, std::int64_t inner, bool relu) {
  for (std::int64_t i = global_thread_index(); i < n; i += grid_stride()) {
    const std::int64_t c = (i / inner) % channels;
    float v = to_float(x[i]);
    if (weight != nullptr) v *= to_float(weight[c]);
    if (bias != nullptr) v += to_float(bias[c]);
    if (relu) v = fmaxf(v, 0.0f);
    y[i] = from_float<T>(v);
  }
}

}  // namespace

template <typename T>
cudaError_t bias_act(ap::In<T> x, ap::OptIn<T> weight, ap::OptIn<T> bias, ap::Out<T> y, bool relu,
                     cudaStream_t stream) {
  const std::int64_t n = x.numel();
  if (n == 0) return cudaSuccess;  // also covers a present weight or bias without elements
  const std::int64_t channels = x.size(1);
  const std::int64_t inner = n / (x.size(0) * channels);
  bias_act_kernel<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(
      x.data(), weight.present() ? weight.data() : nullptr, bias.present() ? bias.data() : nullptr,
      y.data(), n, channels, inner, relu);
  return cudaGetLastError();
}

// A present weight or bias has one value per channel; an absent one is std::nullopt.
ap::Shape bias_act_shape(ap::Shape x, std::optional<ap::Shape> weight,
                         std::optional<ap::Shape> bias, bool) {
  if (x.rank() < 2) throw std::invalid_argument("x has a batch and a channel dimension");
  for (const auto* per_channel : {&weight, &bias}) {
    if (!per_channel->has_value()) continue;
    const ap::Shape& shape = **per_channel;
    if (shape.rank() != 1) throw std::invalid_argument("weight and bias are 1-D");
    ap::require(shape[0] == x[1], "weight and bias have one value per channel (x's dimension 1)");
  }
  return x;
}

AUTOPLUGIN_OP(
    "torchtrt_ex::bias_act(Tensor x, Tensor? weight=None, Tensor? bias=None, bool relu=False) "
    "-> Tensor",
    bias_act_shape, bias_act<float>, bias_act<__half>, bias_act<__nv_bfloat16>)
    .example(ap::Example().rank("x", 4).rank("weight", 1).rank("bias", 1));
