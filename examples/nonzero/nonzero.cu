// nonzero: the coordinates of the non-zero elements of x, in row-major order, as an
// [count, rank] int64 tensor. The count is data-dependent: a size tensor the kernel writes.
// Three passes over a small workspace: flags and a count per block (the one full read of x), the
// blocks' first output rows, then the coordinates from the flags.
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include <type_traits>

#include "../common/index_math.h"
#include "../common/kernel_utils.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / kWarp;
constexpr int kMaxBlocks = 1024;      // one count per block lives in the workspace
constexpr int kWordsInFlight = 8;     // flag words (32 elements each) a warp loads per step
constexpr int kTileWords = kThreads;  // pass 3 takes a word per thread per tile

// The workspace: the blocks' counts, then one bit per element of x.
struct Workspace {
  std::int64_t* counts;
  std::uint32_t* flags;
};
__host__ __device__ inline std::int64_t flag_words(std::int64_t n) { return (n + 31) / 32; }

template <typename T>
__device__ inline bool is_nonzero(T v) {
  if constexpr (std::is_integral_v<T>) {
    return v != 0;
  } else {
    return to_float(v) != 0.0f;  // NaN counts as non-zero, as in PyTorch
  }
}

// Pass 1: lane l of a warp reads element 32 w + l of flag word w (coalesced, 8 words in flight
// per lane); a ballot makes the word. Each block counts the set flags of its chunk of words.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    flag_kernel(const T* __restrict__ x, std::int64_t n, std::int64_t chunk_words,
                Workspace workspace) {
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  const int warp = static_cast<int>(threadIdx.x / kWarp);
  const std::int64_t words = flag_words(n);
  const std::int64_t first = blockIdx.x * chunk_words;
  const std::int64_t end = first + chunk_words < words ? first + chunk_words : words;
  int mine = 0;
  for (std::int64_t word = first + warp * kWordsInFlight; word < end;
       word += kWarps * kWordsInFlight) {
    bool flag[kWordsInFlight];
#pragma unroll
    for (int u = 0; u < kWordsInFlight; ++u) {
      const std::int64_t i = (word + u) * kWarp + lane;
      flag[u] = word + u < end && i < n && is_nonzero(x[i]);
    }
    std::uint32_t ballot_of_lane = 0;
#pragma unroll
    for (int u = 0; u < kWordsInFlight; ++u) {
      const std::uint32_t ballot = __ballot_sync(0xffffffffu, flag[u]);
      mine += __popc(ballot);
      if (lane == u) ballot_of_lane = ballot;
    }
    if (lane < kWordsInFlight && word + lane < end) workspace.flags[word + lane] = ballot_of_lane;
  }
  // Every lane counted its warp's flags: lane 0 holds the warp's total.
  __shared__ int warp_counts[kWarps];
  if (lane == 0) warp_counts[warp] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    std::int64_t sum = 0;
    for (int w = 0; w < kWarps; ++w) sum += warp_counts[w];
    workspace.counts[blockIdx.x] = sum;
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

// The exclusive prefix sum of `value` over the block, and the block's total.
__device__ inline int block_exclusive_sum(int value, int& total) {
  __shared__ int warp_totals[kWarps];
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  const int warp = static_cast<int>(threadIdx.x / kWarp);
  int inclusive = value;
  for (int offset = 1; offset < kWarp; offset *= 2) {
    const int up = __shfl_up_sync(0xffffffffu, inclusive, offset);
    if (lane >= offset) inclusive += up;
  }
  if (lane == kWarp - 1) warp_totals[warp] = inclusive;
  __syncthreads();
  int before = 0;
  total = 0;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    before += w < warp ? warp_totals[w] : 0;
    total += warp_totals[w];
  }
  __syncthreads();  // warp_totals is reused by the next call
  return before + inclusive - value;
}

// Coordinates from a flat index: the divisions by the strides and extents, multiply-high each.
struct Coordinates {
  int rank;
  FastDivisor by_stride[ap::kMaxRank];  // elements per step of each dimension
  FastDivisor by_extent[ap::kMaxRank];
  FastDivisor by_rank;
};

// Pass 3: per tile of kTileWords flag words, a block scan places each selected element, whose
// flat index goes to shared memory; then the block writes the tile's [count, rank] coordinates
// as one contiguous run, consecutive threads on consecutive int64s (coalesced stores: the output,
// up to rank x 8 bytes per element, is most of the traffic). x itself is not read again.
__global__ void __launch_bounds__(kThreads)
    write_kernel(Workspace workspace, std::int64_t n, std::int64_t chunk_words, Coordinates c,
                 std::int64_t* __restrict__ indices) {
  __shared__ std::int32_t selected[kTileWords * 32];
  __shared__ Coordinates shared_c;  // indexed by dimension: shared, not the parameter space
  if (threadIdx.x == 0) shared_c = c;
  const std::int64_t words = flag_words(n);
  const std::int64_t first = blockIdx.x * chunk_words;
  const std::int64_t end = first + chunk_words < words ? first + chunk_words : words;
  std::int64_t written = workspace.counts[blockIdx.x];
  __syncthreads();
  const int rank = shared_c.rank;
  for (std::int64_t tile = first; tile < end; tile += kTileWords) {
    const std::int64_t word = tile + threadIdx.x;
    std::uint32_t bits = word < end ? workspace.flags[word] : 0u;
    int total = 0;
    int slot = block_exclusive_sum(__popc(bits), total);
    while (bits != 0) {
      const int bit = __ffs(static_cast<int>(bits)) - 1;
      selected[slot++] = static_cast<std::int32_t>(word * 32 + bit);
      bits &= bits - 1;
    }
    __syncthreads();
    std::int64_t* out = indices + written * rank;
    for (std::int32_t p = static_cast<std::int32_t>(threadIdx.x); p < total * rank; p += kThreads) {
      const std::int32_t e = shared_c.by_rank.divide32(p);
      const int d = p - e * rank;
      const std::int32_t along = shared_c.by_stride[d].divide32(selected[e]);
      out[p] = along - shared_c.by_extent[d].divide32(along) *
                           static_cast<std::int32_t>(shared_c.by_extent[d].divisor);
    }
    written += total;
    __syncthreads();  // `selected` is refilled by the next tile
  }
}

// Blocks of write_kernel that the current GPU runs at once, at most kMaxBlocks (kMaxBlocks when
// the GPU cannot say).
int resident_blocks() {
  static const int per_sm = [] {
    int blocks = 0;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, write_kernel, kThreads, 0) ==
                       cudaSuccess &&
                   blocks > 0
               ? blocks
               : 0;
  }();
  int device = 0;
  int sms = 0;
  if (per_sm == 0 || cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      sms <= 0) {
    cudaGetLastError();  // clear the error, if any
    return kMaxBlocks;
  }
  return std::min(kMaxBlocks, per_sm * sms);
}

}  // namespace

template <typename T>
cudaError_t nonzero(ap::In<T> x, ap::Out<std::int64_t> indices, ap::SizeOut count,
                    ap::Workspace scratch, cudaStream_t stream) {
  const std::int64_t n = x.numel();
  if (n == 0) return cudaMemsetAsync(count.data(), 0, sizeof(std::int32_t), stream);
  const std::int64_t words = flag_words(n);
  // Chunks of whole tiles, at most one per block that fits on the GPU at once: the write pass
  // runs in one wave (a second, partial wave of equal chunks would cost a whole chunk's time).
  const std::int64_t tiles = (words + kTileWords - 1) / kTileWords;
  const std::int64_t chunk_words = (tiles + resident_blocks() - 1) / resident_blocks() * kTileWords;
  const int blocks = static_cast<int>((words + chunk_words - 1) / chunk_words);
  const std::size_t needed = sizeof(std::int64_t) * kMaxBlocks + sizeof(std::uint32_t) * words;
  if (scratch.size < needed) return cudaErrorInvalidValue;
  const Workspace workspace{static_cast<std::int64_t*>(scratch.data),
                            reinterpret_cast<std::uint32_t*>(static_cast<char*>(scratch.data) +
                                                             sizeof(std::int64_t) * kMaxBlocks)};
  Coordinates c{};
  c.rank = x.rank();
  c.by_rank = FastDivisor(std::max(1, c.rank));
  std::int64_t stride = 1;
  for (int d = c.rank - 1; d >= 0; --d) {
    c.by_stride[d] = FastDivisor(stride);
    c.by_extent[d] = FastDivisor(x.size(d));
    stride *= x.size(d);
  }
  flag_kernel<<<blocks, kThreads, 0, stream>>>(x.data(), n, chunk_words, workspace);
  offsets_kernel<<<1, kMaxBlocks, 0, stream>>>(workspace.counts, blocks, count.data());
  write_kernel<<<blocks, kThreads, 0, stream>>>(workspace, n, chunk_words, c, indices.data());
  return cudaGetLastError();
}

// The blocks' counts and a flag bit per element (32-bit words).
ap::Dim nonzero_workspace(ap::Shape x) {
  return ap::Dim(sizeof(std::int64_t) * kMaxBlocks) + ap::ceil_div(x.numel(), 32) * 4;
}

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
