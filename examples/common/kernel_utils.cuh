// Small helpers shared by the example kernels: float conversion for 16-bit types and launch sizes.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

namespace autoplugin_examples {

__device__ inline float to_float(float v) { return v; }
__device__ inline float to_float(__half v) { return __half2float(v); }
__device__ inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ inline float to_float(std::int32_t v) { return static_cast<float>(v); }
__device__ inline float to_float(std::int64_t v) { return static_cast<float>(v); }

template <typename T>
__device__ inline T from_float(float v);
template <>
__device__ inline float from_float<float>(float v) {
  return v;
}
template <>
__device__ inline __half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

inline constexpr int kThreadsPerBlock = 256;

// Blocks for a grid-stride loop over `count` elements; the cap keeps the grid within limits and
// lets each thread handle several elements on very large tensors.
inline unsigned int blocks_for(std::int64_t count) {
  const std::int64_t blocks = (count + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return static_cast<unsigned int>(std::clamp<std::int64_t>(blocks, 1, 65535 * 8));
}

__device__ inline std::int64_t global_thread_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline std::int64_t grid_stride() {
  return static_cast<std::int64_t>(gridDim.x) * blockDim.x;
}

}  // namespace autoplugin_examples
