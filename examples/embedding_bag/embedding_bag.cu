// embedding_bag: per bag, the sum, mean or max of the embedding rows its indices select; bag b
// holds indices[offsets[b] : offsets[b + 1]] (the last bag runs to the end), as in PyTorch's
// F.embedding_bag. An empty bag gives zeros. The single-op graph break the RFC pulls into the
// engine. Out-of-range indices and offsets select nothing (PyTorch raises; a kernel cannot).
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include <string_view>
#include <type_traits>

#include "../common/kernel_utils.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

enum class Mode { Sum, Mean, Max };

// `Bytes` bytes of T as one load: 16 (uint4), 8 (uint2) or one element.
template <typename T, int Bytes>
union Chunk {
  static constexpr int kCount = Bytes / static_cast<int>(sizeof(T));
  using Raw = std::conditional_t<
      Bytes == 16, uint4,
      std::conditional_t<Bytes == 8, uint2,
                         std::conditional_t<Bytes == 4, std::uint32_t, std::uint16_t>>>;
  Raw raw;
  T element[kCount];
  __device__ Chunk() : raw{} {}
};

constexpr int kRowsInFlight = 4;  // rows each lane group loads before accumulating

// A warp per bag. The G lanes of a group cover a row's chunks (G = the row's chunks rounded up
// to a power of two, at most 32); the 32 / G groups take different indices of the bag, so that a
// warp has 32 / G x kRowsInFlight rows in flight (64 bytes per lane for 16-byte chunks), and
// combine with shuffles at the end. The bag's indices are read once, coalesced, and passed
// around by shuffles.
template <typename T, typename I, int Bytes, Mode M>
__global__ void embedding_bag_kernel(const T* __restrict__ weight, const I* __restrict__ indices,
                                     const I* __restrict__ offsets, T* __restrict__ out,
                                     std::int64_t rows, std::int64_t dim, std::int64_t count,
                                     std::int64_t bags, int group_lanes) {
  using C = Chunk<T, Bytes>;
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  const int groups = kWarp / group_lanes;
  const int group = lane / group_lanes;
  const int group_lane = lane % group_lanes;
  const std::int64_t chunks = dim / C::kCount;  // per row
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * blockDim.x / kWarp;
  const auto clamp = [count](std::int64_t v) { return v < 0 ? 0 : (v > count ? count : v); };
  for (std::int64_t bag = global_thread_index() / kWarp; bag < bags; bag += warps) {
    // Offsets are data: clamp them, so that bad ones select nothing rather than fault.
    const std::int64_t begin = clamp(offsets[bag]);
    const std::int64_t end =
        clamp(bag + 1 < bags ? static_cast<std::int64_t>(offsets[bag + 1]) : count);
    for (std::int64_t column = group_lane; column - group_lane < chunks; column += group_lanes) {
      const bool active = column < chunks;
      float acc[C::kCount];
#pragma unroll
      for (int k = 0; k < C::kCount; ++k) acc[k] = M == Mode::Max ? -INFINITY : 0.0f;
      int taken = 0;
      for (std::int64_t first = begin; first < end; first += kWarp) {
        std::int64_t mine = -1;  // lane l holds index first + l
        if (first + lane < end) mine = static_cast<std::int64_t>(indices[first + lane]);
        if (mine >= rows) mine = -1;  // out-of-range indices select nothing
        const int here = static_cast<int>(end - first < kWarp ? end - first : kWarp);
        for (int j = 0; j < here; j += groups * kRowsInFlight) {
          C values[kRowsInFlight];
          bool valid[kRowsInFlight];
#pragma unroll
          for (int u = 0; u < kRowsInFlight; ++u) {
            const int source = j + u * groups + group;
            const std::int64_t row = __shfl_sync(0xffffffffu, mine, source < kWarp ? source : 0);
            valid[u] = source < here && row >= 0;
            if (valid[u] && active) {
              values[u].raw = reinterpret_cast<const typename C::Raw*>(weight + row * dim)[column];
            }
          }
#pragma unroll
          for (int u = 0; u < kRowsInFlight; ++u) {
            if (!valid[u]) continue;
            ++taken;
#pragma unroll
            for (int k = 0; k < C::kCount; ++k) {
              const float v = to_float(values[u].element[k]);
              acc[k] = M == Mode::Max ? fmaxf(acc[k], v) : acc[k] + v;
            }
          }
        }
      }
      // Combine the groups: lanes group_lane, group_lane + G, ... hold the same columns.
      for (int offset = group_lanes; offset < kWarp; offset *= 2) {
#pragma unroll
        for (int k = 0; k < C::kCount; ++k) {
          const float other = __shfl_xor_sync(0xffffffffu, acc[k], offset);
          acc[k] = M == Mode::Max ? fmaxf(acc[k], other) : acc[k] + other;
        }
        taken += __shfl_xor_sync(0xffffffffu, taken, offset);
      }
      if (group == 0 && active) {
        C result;
#pragma unroll
        for (int k = 0; k < C::kCount; ++k) {
          float v = taken == 0 ? 0.0f : acc[k];
          if (M == Mode::Mean && taken > 0) v /= static_cast<float>(taken);
          result.element[k] = from_float<T>(v);
        }
        reinterpret_cast<typename C::Raw*>(out + bag * dim)[column] = result.raw;
      }
    }
  }
}

Mode parse_mode(std::string_view name) {
  return name == "mean" ? Mode::Mean : name == "max" ? Mode::Max : Mode::Sum;
}

template <typename T, typename I, int Bytes>
void launch(const T* weight, const I* indices, const I* offsets, T* out, std::int64_t rows,
            std::int64_t dim, std::int64_t count, std::int64_t bags, Mode mode,
            cudaStream_t stream) {
  const std::int64_t chunks = dim / Chunk<T, Bytes>::kCount;
  int group_lanes = 1;
  while (group_lanes < kWarp && group_lanes < chunks) group_lanes *= 2;
  const unsigned int blocks = blocks_for(bags * kWarp);
  switch (mode) {
    case Mode::Sum:
      embedding_bag_kernel<T, I, Bytes, Mode::Sum><<<blocks, kThreadsPerBlock, 0, stream>>>(
          weight, indices, offsets, out, rows, dim, count, bags, group_lanes);
      break;
    case Mode::Mean:
      embedding_bag_kernel<T, I, Bytes, Mode::Mean><<<blocks, kThreadsPerBlock, 0, stream>>>(
          weight, indices, offsets, out, rows, dim, count, bags, group_lanes);
      break;
    case Mode::Max:
      embedding_bag_kernel<T, I, Bytes, Mode::Max><<<blocks, kThreadsPerBlock, 0, stream>>>(
          weight, indices, offsets, out, rows, dim, count, bags, group_lanes);
      break;
  }
}

// Whether rows of `dim` elements, from `weight` and to `out`, split into aligned `bytes` chunks.
template <typename T>
bool chunks_fit(const T* weight, const T* out, std::int64_t dim, std::size_t bytes) {
  return dim * sizeof(T) % bytes == 0 && reinterpret_cast<std::uintptr_t>(weight) % bytes == 0 &&
         reinterpret_cast<std::uintptr_t>(out) % bytes == 0;
}

}  // namespace

template <typename T, typename I>
cudaError_t embedding_bag(ap::In<T> weight, ap::In<I> indices, ap::In<I> offsets, ap::Out<T> out,
                          std::string_view mode, cudaStream_t stream) {
  const std::int64_t bags = offsets.size(0);
  const std::int64_t dim = weight.size(1);
  if (bags == 0 || dim == 0) return cudaSuccess;
  // The widest chunk that every row start allows: 16 bytes when a row is a multiple of 16 bytes.
  const auto go = [&]<int Bytes>() {
    launch<T, I, Bytes>(weight.data(), indices.data(), offsets.data(), out.data(), weight.size(0),
                        dim, indices.size(0), bags, parse_mode(mode), stream);
  };
  if (chunks_fit(weight.data(), out.data(), dim, 16)) {
    go.template operator()<16>();
  } else if (chunks_fit(weight.data(), out.data(), dim, 8)) {
    go.template operator()<8>();
  } else {
    go.template operator()<static_cast<int>(sizeof(T))>();
  }
  return cudaGetLastError();
}

ap::Shape embedding_bag_shape(ap::Shape weight, ap::Shape indices, ap::Shape offsets,
                              std::string_view /*mode: checked by .validate*/) {
  ap::require(weight.rank() == 2 && indices.rank() == 1 && offsets.rank() == 1,
              "weight is 2-D, indices and offsets are 1-D");
  return {offsets[0], weight[1]};
}

AUTOPLUGIN_OP(
    "torchtrt_ex::embedding_bag(Tensor weight, Tensor indices, Tensor offsets, "
    "str mode=\"sum\") -> Tensor",
    embedding_bag_shape, (embedding_bag<float, std::int64_t>),
    (embedding_bag<__half, std::int64_t>), (embedding_bag<__nv_bfloat16, std::int64_t>),
    (embedding_bag<float, std::int32_t>), (embedding_bag<__half, std::int32_t>),
    (embedding_bag<__nv_bfloat16, std::int32_t>))
    .example(ap::Example().rank("weight", 2).rank("indices", 1).rank("offsets", 1))
    .validate([](std::string_view mode) {
      if (mode != "sum" && mode != "mean" && mode != "max") {
        throw std::invalid_argument("mode is \"sum\", \"mean\" or \"max\", not \"" +
                                    std::string(mode) + "\"");
      }
    });
