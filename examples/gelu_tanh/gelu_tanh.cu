// gelu_tanh: y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), elementwise, computed in float.
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "../common/kernel_utils.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

template <typename T>
__device__ inline T gelu(T value) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  const float v = to_float(value);
  const float inner = kSqrt2OverPi * (v + 0.044715f * v * v * v);
  return from_float<T>(0.5f * v * (1.0f + tanhf(inner)));
}

template <typename T>
__global__ void gelu_tanh_kernel(const T* __restrict__ x, T* __restrict__ y, std::int64_t n) {
  for (std::int64_t i = global_thread_index(); i < n; i += grid_stride()) y[i] = gelu(x[i]);
}

// 16-byte loads and stores (4 floats, 8 halves), then a scalar tail.
template <typename T>
__global__ void gelu_tanh_vectorized(const T* __restrict__ x, T* __restrict__ y, std::int64_t n) {
  constexpr int kPerVector = sizeof(uint4) / sizeof(T);
  const std::int64_t vectors = n / kPerVector;
  for (std::int64_t v = global_thread_index(); v < vectors; v += grid_stride()) {
    union {
      uint4 vector;
      T elements[kPerVector];
    } in, out;
    in.vector = reinterpret_cast<const uint4*>(x)[v];
#pragma unroll
    for (int k = 0; k < kPerVector; ++k) out.elements[k] = gelu(in.elements[k]);
    reinterpret_cast<uint4*>(y)[v] = out.vector;
  }
  for (std::int64_t i = vectors * kPerVector + global_thread_index(); i < n; i += grid_stride()) {
    y[i] = gelu(x[i]);
  }
}

}  // namespace

template <typename T>
cudaError_t gelu_tanh(ap::In<T> x, ap::Out<T> y, cudaStream_t stream) {
  const std::int64_t n = x.numel();
  if (n == 0) return cudaSuccess;
  const bool aligned = reinterpret_cast<std::uintptr_t>(x.data()) % sizeof(uint4) == 0 &&
                       reinterpret_cast<std::uintptr_t>(y.data()) % sizeof(uint4) == 0;
  if (aligned) {
    const std::int64_t vectors = n / static_cast<std::int64_t>(sizeof(uint4) / sizeof(T));
    gelu_tanh_vectorized<<<blocks_for(std::max<std::int64_t>(vectors, 1)), kThreadsPerBlock, 0,
                           stream>>>(x.data(), y.data(), n);
  } else {
    gelu_tanh_kernel<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(x.data(), y.data(), n);
  }
  return cudaGetLastError();
}

ap::Shape same_shape(ap::Shape x) { return x; }

AUTOPLUGIN_OP("torchtrt_ex::gelu_tanh(Tensor x) -> Tensor", same_shape, gelu_tanh<float>,
              gelu_tanh<__half>, gelu_tanh<__nv_bfloat16>);
