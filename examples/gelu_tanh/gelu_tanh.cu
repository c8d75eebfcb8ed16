// gelu_tanh: y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), elementwise, computed in float.
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include "../common/kernel_utils.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

template <typename T>
__global__ void gelu_tanh_kernel(const T* __restrict__ x, T* __restrict__ y, std::int64_t n) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  for (std::int64_t i = global_thread_index(); i < n; i += grid_stride()) {
    const float v = to_float(x[i]);
    const float inner = kSqrt2OverPi * (v + 0.044715f * v * v * v);
    y[i] = from_float<T>(0.5f * v * (1.0f + tanhf(inner)));
  }
}

}  // namespace

template <typename T>
cudaError_t gelu_tanh(ap::In<T> x, ap::Out<T> y, cudaStream_t stream) {
  const std::int64_t n = x.numel();
  if (n == 0) return cudaSuccess;
  gelu_tanh_kernel<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(x.data(), y.data(), n);
  return cudaGetLastError();
}

ap::Shape same_shape(ap::Shape x) { return x; }

AUTOPLUGIN_OP("torchtrt_ex::gelu_tanh(Tensor x) -> Tensor", same_shape, gelu_tanh<float>,
              gelu_tanh<__half>, gelu_tanh<__nv_bfloat16>);
