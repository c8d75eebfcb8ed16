#include "planted_kernels.h"

namespace {

constexpr int kBlock = 256;

__global__ void out_of_bounds_read(const float* in, float* out, std::int64_t n) {
  const std::int64_t i = blockIdx.x * std::int64_t(kBlock) + threadIdx.x;
  if (i >= n) return;
  const float past_the_end = i == n - 1 ? in[n] : 0.0f;
  out[i] = past_the_end == 12345.0f ? 1.0f : 0.0f;
}

__global__ void shared_memory_race(const float* in, float* out, std::int64_t n) {
  __shared__ float values[kBlock];
  const std::int64_t i = blockIdx.x * std::int64_t(kBlock) + threadIdx.x;
  values[threadIdx.x] = i < n ? in[i] : 0.0f;
  // No __syncthreads(): the neighbour (in another warp at the block's warp boundaries) may not
  // have written its value yet.
  const float neighbour = values[(threadIdx.x + 1) % kBlock];
  if (i < n) out[i] = neighbour == 12345.0f ? 1.0f : 0.0f;
}

// synccheck on sm_70 and later does not see a __syncthreads() that part of a block skips
// (independent thread scheduling makes that legal there); it does see invalid barrier
// arguments: a __syncwarp whose mask leaves out the calling thread. The mask is read from `n`
// so that the compiler cannot fold it.
__global__ void invalid_warp_barrier(float* out, std::int64_t n) {
  const std::int64_t i = blockIdx.x * std::int64_t(kBlock) + threadIdx.x;
  const unsigned others = n < 0 ? 0xffffffffu : ~(1u << (threadIdx.x % 32));
  __syncwarp(others);
  if (i < n) out[i] = 0.0f;
}

__global__ void uninitialized_read(const float* workspace, float* out, std::int64_t n) {
  const std::int64_t i = blockIdx.x * std::int64_t(kBlock) + threadIdx.x;
  if (i < n) out[i] = workspace[i] == 12345.0f ? 1.0f : 0.0f;
}

}  // namespace

cudaError_t launch_planted_kernel(PlantedKernel kernel, const float* in, float* out,
                                  float* workspace, std::int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const auto blocks = static_cast<unsigned>((n + kBlock - 1) / kBlock);
  switch (kernel) {
    case PlantedKernel::OutOfBoundsRead:
      out_of_bounds_read<<<blocks, kBlock, 0, stream>>>(in, out, n);
      break;
    case PlantedKernel::SharedMemoryRace:
      shared_memory_race<<<blocks, kBlock, 0, stream>>>(in, out, n);
      break;
    case PlantedKernel::InvalidWarpBarrier:
      invalid_warp_barrier<<<blocks, kBlock, 0, stream>>>(out, n);
      break;
    case PlantedKernel::UninitializedRead:
      uninitialized_read<<<blocks, kBlock, 0, stream>>>(workspace, out, n);
      break;
  }
  return cudaGetLastError();
}
