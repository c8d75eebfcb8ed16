// nonzero: the coordinates of the non-zero elements of x, in row-major order, as an
// [count, rank] int64 tensor. The count is data-dependent: a size tensor the kernel writes.
// Three passes (count per block, offsets, write) over a small workspace.
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include <type_traits>

#include "../common/kernel_utils.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

constexpr int kThreads = 1024;
constexpr int kMaxBlocks = 1024;  // one partial count per block lives in the workspace

struct Extents {
  int rank;
  std::int64_t extent[ap::kMaxRank];
};

template <typename T>
__device__ inline bool is_nonzero(T v) {
  if constexpr (std::is_integral_v<T>) {
    return v != 0;
  } else {
    return to_float(v) != 0.0f;  // NaN counts as non-zero, as in PyTorch
  }
}

// The exclusive prefix of `flag` over the block, and the block's total, from warp ballots.
__device__ inline int block_prefix(bool flag, int& total) {
  __shared__ int warp_totals[kThreads / kWarp];
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  const int warp = static_cast<int>(threadIdx.x / kWarp);
  const unsigned ballot = __ballot_sync(0xffffffffu, flag);
  const int in_warp = __popc(ballot & ((1u << lane) - 1u));
  if (lane == 0) warp_totals[warp] = __popc(ballot);
  __syncthreads();
  if (warp == 0) {
    int v = warp_totals[lane];
    for (int offset = 1; offset < kWarp; offset *= 2) {
      const int up = __shfl_up_sync(0xffffffffu, v, offset);
      if (lane >= offset) v += up;
    }
    warp_totals[lane] = v;  // inclusive prefix of the warp totals
  }
  __syncthreads();
  total = warp_totals[kThreads / kWarp - 1];
  const int before = warp == 0 ? 0 : warp_totals[warp - 1];
  __syncthreads();  // warp_totals is reused by the next call
  return before + in_warp;
}

// Pass 1: each block counts the non-zeros of its contiguous chunk.
template <typename T>
__global__ void count_kernel(const T* __restrict__ x, std::int64_t n, std::int64_t chunk,
                             std::int64_t* __restrict__ counts) {
  const std::int64_t start = blockIdx.x * chunk;
  const std::int64_t end = start + chunk < n ? start + chunk : n;
  std::int64_t mine = 0;
  for (std::int64_t i = start + threadIdx.x; i < end; i += blockDim.x) mine += is_nonzero(x[i]);
  mine = warp_sum(mine);
  __shared__ std::int64_t warp_sums[kThreads / kWarp];
  if (threadIdx.x % kWarp == 0) warp_sums[threadIdx.x / kWarp] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    std::int64_t sum = 0;
    for (int w = 0; w < kThreads / kWarp; ++w) sum += warp_sums[w];
    counts[blockIdx.x] = sum;
  }
}

// Pass 2 (one block): the counts become each block's first output row; the total is the size
// tensor.
__global__ void offsets_kernel(std::int64_t* __restrict__ counts, int blocks,
                               std::int32_t* __restrict__ total) {
  __shared__ std::int64_t scan[kMaxBlocks];
  const int t = static_cast<int>(threadIdx.x);
  scan[t] = t < blocks ? counts[t] : 0;
  __syncthreads();
  for (int offset = 1; offset < kMaxBlocks; offset *= 2) {
    const std::int64_t add = t >= offset ? scan[t - offset] : 0;
    __syncthreads();
    scan[t] += add;
    __syncthreads();
  }
  if (t < blocks) counts[t] = t == 0 ? 0 : scan[t - 1];
  if (t == 0) *total = static_cast<std::int32_t>(scan[kMaxBlocks - 1]);
}

// Pass 3: each block writes its chunk's coordinates from its first row on, in row-major order.
template <typename T>
__global__ void write_kernel(const T* __restrict__ x, std::int64_t n, std::int64_t chunk,
                             const std::int64_t* __restrict__ first_rows, Extents e,
                             std::int64_t* __restrict__ indices) {
  const std::int64_t start = blockIdx.x * chunk;
  const std::int64_t end = start + chunk < n ? start + chunk : n;
  std::int64_t written = first_rows[blockIdx.x];
  for (std::int64_t tile = start; tile < end; tile += kThreads) {
    const std::int64_t i = tile + threadIdx.x;
    const bool flag = i < end && is_nonzero(x[i]);
    int total = 0;
    const int prefix = block_prefix(flag, total);
    if (flag) {
      std::int64_t* row = indices + (written + prefix) * e.rank;
      std::int64_t rest = i;
      for (int d = e.rank - 1; d >= 0; --d) {
        row[d] = rest % e.extent[d];
        rest /= e.extent[d];
      }
    }
    written += total;
  }
}

}  // namespace

template <typename T>
cudaError_t nonzero(ap::In<T> x, ap::Out<std::int64_t> indices, ap::SizeOut count,
                    ap::Workspace scratch, cudaStream_t stream) {
  const std::int64_t n = x.numel();
  if (n == 0) return cudaMemsetAsync(count.data(), 0, sizeof(std::int32_t), stream);
  const std::int64_t tiles = (n + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(tiles < kMaxBlocks ? tiles : kMaxBlocks);
  const std::int64_t chunk = (tiles + blocks - 1) / blocks * kThreads;
  if (scratch.size < sizeof(std::int64_t) * static_cast<std::size_t>(blocks)) {
    return cudaErrorInvalidValue;
  }
  auto* counts = static_cast<std::int64_t*>(scratch.data);
  Extents e{};
  e.rank = x.rank();
  for (int d = 0; d < e.rank; ++d) e.extent[d] = x.size(d);
  count_kernel<<<blocks, kThreads, 0, stream>>>(x.data(), n, chunk, counts);
  offsets_kernel<<<1, kMaxBlocks, 0, stream>>>(counts, blocks, count.data());
  write_kernel<<<blocks, kThreads, 0, stream>>>(x.data(), n, chunk, counts, e, indices.data());
  return cudaGetLastError();
}

// One partial count per block.
ap::Dim nonzero_workspace(ap::Shape) { return kMaxBlocks * sizeof(std::int64_t); }

// The number of rows is known only after the kernel runs: at most every element, and half of
// them is the value TensorRT optimizes for.
ap::Shape nonzero_shape(ap::Shape x) {
  const ap::Dim elements = x.numel();
  ap::require(elements <= INT32_MAX, "x has at most 2^31 - 1 elements (size tensors are int32)");
  return {ap::size_tensor(ap::floor_div(elements, 2), elements), x.rank()};
}

AUTOPLUGIN_OP("torchtrt_ex::nonzero(Tensor x) -> Tensor", nonzero_shape, nonzero<float>,
              nonzero<__half>, nonzero<__nv_bfloat16>, nonzero<std::int32_t>, nonzero<std::int64_t>)
    .workspace(nonzero_workspace)
    .example(ap::Example().rank("x", 2));
