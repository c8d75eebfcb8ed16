// Small helpers shared by the example kernels: float conversion for 16-bit types, 16-byte
// vectors, launch sizes and warp reductions.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

namespace autoplugin_examples {

__device__ inline float to_float(float v) { return v; }
__device__ inline float to_float(__half v) { return __half2float(v); }
__device__ inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

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

// 16 bytes of T, the widest load and store a thread can issue (one 128-byte line per 8 lanes):
// 4 floats or 8 halves. The union reads the loaded bits as elements.
template <typename T>
union Vec16 {
  using Element = T;
  static constexpr int kCount = static_cast<int>(sizeof(uint4) / sizeof(T));
  uint4 raw;
  T element[kCount];
  __device__ Vec16() : raw{0, 0, 0, 0} {}
};

// How many elements of T come before the first 16-byte boundary at or after `data`, at most
// `count` (elements are aligned to their size).
template <typename T>
__host__ __device__ inline std::int64_t elements_to_alignment(const T* data, std::int64_t count) {
  const auto misalignment = reinterpret_cast<std::uintptr_t>(data) % sizeof(uint4);
  const auto head =
      static_cast<std::int64_t>((sizeof(uint4) - misalignment) % sizeof(uint4) / sizeof(T));
  return head < count ? head : count;
}

inline constexpr int kThreadsPerBlock = 256;
inline constexpr int kWarp = 32;

// A grid of `blocks` blocks for a grid-stride loop, capped: the cap keeps the grid within limits
// and lets each thread handle several items on very large tensors.
inline unsigned int capped_blocks(std::int64_t blocks) {
  return static_cast<unsigned int>(std::clamp<std::int64_t>(blocks, 1, 65535 * 8));
}
// Blocks of kThreadsPerBlock threads for a grid-stride loop over `count` elements.
inline unsigned int blocks_for(std::int64_t count) {
  return capped_blocks((count + kThreadsPerBlock - 1) / kThreadsPerBlock);
}

// The sum of `v` over the lanes of a warp, in lane 0 (all lanes take part).
template <typename T>
__device__ inline T warp_sum(T v) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__device__ inline std::int64_t global_thread_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline std::int64_t grid_stride() {
  return static_cast<std::int64_t>(gridDim.x) * blockDim.x;
}

}  // namespace autoplugin_examples
