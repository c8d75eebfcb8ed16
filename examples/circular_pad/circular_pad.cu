// circular_pad: N-d circular padding, `padding` in PyTorch order (last dimension first, a
// (before, after) pair per dimension). The op from Torch-TensorRT's plugin-generation RFC.
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "../common/circular_pad_shape.h"
#include "../common/index_math.h"
#include "../common/kernel_utils.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

struct PadGeometry {
  int rank;
  std::int64_t in_extent[ap::kMaxRank];
  std::int64_t out_extent[ap::kMaxRank];
  std::int64_t pad_before[ap::kMaxRank];
  FastDivisor out_divisor[ap::kMaxRank];  // by out_extent: output coordinates without divisions
};

// The unsigned type of `bytes` bytes (a vector for 8 and 16): one load or store instruction.
template <std::size_t bytes>
struct Raw;
template <>
struct Raw<2> {
  using type = std::uint16_t;
};
template <>
struct Raw<4> {
  using type = std::uint32_t;
};
template <>
struct Raw<8> {
  using type = uint2;
};
template <>
struct Raw<16> {
  using type = uint4;
};

// E words, stored as one vector (16 bytes where E * sizeof(Word) == 16).
template <typename Word, int E>
union Chunk {
  using Vector = typename Raw<sizeof(Word) * E>::type;
  Vector raw;
  Word word[E];
  __device__ Chunk() : raw{} {}
};

// Chunks per thread, all loaded before any is stored (4 measured best for 4- and 8-byte words:
// 16 loads in flight per thread).
constexpr int kChunksPerThread = 4;

// The input row (all dimensions but the last, flattened) that output row `row` copies, and the
// row's index in the innermost of those dimensions.
template <typename Index>
__device__ inline Index source_row(Index row, const PadGeometry& g, Index& inner) {
  Index source = 0;
  Index stride = 1;
  Index rest = row;
  inner = row;
  for (int d = g.rank - 2; d >= 0; --d) {
    // The outermost index needs no division.
    const Index outer = d == 0 ? 0 : g.out_divisor[d].divide(rest);
    const Index o = rest - outer * static_cast<Index>(g.out_extent[d]);
    if (d == g.rank - 2) inner = o;
    source +=
        wrap<Index>(o - static_cast<Index>(g.pad_before[d]), static_cast<Index>(g.in_extent[d])) *
        stride;
    stride *= static_cast<Index>(g.in_extent[d]);
    rest = outer;
  }
  return source;
}

// The source row of output row `row + 1`, from row's: one step in the innermost row dimension
// unless it leaves that dimension's extent (then the full computation, once per plane).
template <typename Index>
__device__ inline Index next_source_row(Index row, Index source, Index inner,
                                        const PadGeometry& g) {
  const int d = g.rank - 2;
  if (d < 0) return source;  // one row only
  const auto extent = static_cast<Index>(g.in_extent[d]);
  const auto before = static_cast<Index>(g.pad_before[d]);
  if (inner + 1 < static_cast<Index>(g.out_extent[d])) {
    return source - wrap<Index>(inner - before, extent) + wrap<Index>(inner + 1 - before, extent);
  }
  Index unused;
  return source_row<Index>(row + 1, g, unused);
}

// The output is cut into chunks of E words aligned to E words in memory (chunk c holds output
// words [c E - head, (c + 1) E - head)); a thread gathers each of its chunks' words with
// independent word loads and writes the chunk with one aligned vector store (16 bytes: 4
// four-byte words, 8 halves). A chunk spans at most two output rows (rows are at least E words
// wide), so one row computation and one per-word select cover every chunk: no branch for the
// wrapped borders, which in rows of a few hundred bytes would put a gather path in every warp.
// What bounds it: loads of narrow words (2-byte elements: 8 per 16 bytes; the launcher moves
// 4-, 8- or 16-byte words whenever the last dimension allows) and, per chunk, the row
// arithmetic (fast divisions with 32-bit indices), most felt with narrow rows.
template <typename Word, int E, typename Index>
__global__ void __launch_bounds__(kThreadsPerBlock)
    circular_pad_chunks(const Word* __restrict__ x, Word* __restrict__ y, PadGeometry g,
                        Index out_count, Index head, Index chunks) {
  const int last = g.rank - 1;
  const auto w_in = static_cast<Index>(g.in_extent[last]);
  const auto w_out = static_cast<Index>(g.out_extent[last]);
  const auto before = static_cast<Index>(g.pad_before[last]);
  auto* y_chunks = reinterpret_cast<typename Chunk<Word, E>::Vector*>(y - head);
  const Index step = static_cast<Index>(gridDim.x) * kThreadsPerBlock * kChunksPerThread;
  for (Index base = static_cast<Index>(blockIdx.x) * kThreadsPerBlock * kChunksPerThread +
                    static_cast<Index>(threadIdx.x);
       base < chunks; base += step) {
    Chunk<Word, E> value[kChunksPerThread];
#pragma unroll
    for (int u = 0; u < kChunksPerThread; ++u) {
      const Index c = base + u * kThreadsPerBlock;
      if (c >= chunks) continue;
      const Index p0 = c * E - head;  // output word of the chunk's first word (< 0: before y)
      const Index first = p0 < 0 ? 0 : p0;
      const Index row = g.out_divisor[last].divide(first);
      const Index column = first - row * w_out;
      Index inner;
      const Index source = source_row<Index>(row, g, inner);
      const Index this_row = source * w_in;
      const Index next_row =
          column + E > w_out ? next_source_row<Index>(row, source, inner, g) * w_in : this_row;
#pragma unroll
      for (int e = 0; e < E; ++e) {
        const Index p = p0 + e;
        Index c_e = column + (p - first);
        const bool next = c_e >= w_out;
        c_e -= next ? w_out : 0;
        if (p >= 0 && p < out_count) {
          value[u].word[e] = x[(next ? next_row : this_row) + wrap<Index>(c_e - before, w_in)];
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kChunksPerThread; ++u) {
      const Index c = base + u * kThreadsPerBlock;
      if (c >= chunks) continue;
      const Index p0 = c * E - head;
      if (p0 >= 0 && p0 + E <= out_count) {
        y_chunks[c] = value[u].raw;
      } else {  // the chunks at either end of y
#pragma unroll
        for (int e = 0; e < E; ++e) {
          if (p0 + e >= 0 && p0 + e < out_count) y[p0 + e] = value[u].word[e];
        }
      }
    }
  }
}

// Merges the leading dimensions that have no padding into one: fewer divisions per chunk.
PadGeometry merge_unpadded_leading_dims(const PadGeometry& g) {
  int first_padded = 0;
  while (first_padded < g.rank - 1 && g.pad_before[first_padded] == 0 &&
         g.in_extent[first_padded] == g.out_extent[first_padded]) {
    ++first_padded;
  }
  if (first_padded <= 1) return g;
  PadGeometry merged{};
  merged.rank = g.rank - first_padded + 1;
  merged.in_extent[0] = merged.out_extent[0] = 1;
  for (int d = 0; d < first_padded; ++d) {
    merged.in_extent[0] *= g.in_extent[d];
    merged.out_extent[0] *= g.out_extent[d];
  }
  for (int d = first_padded; d < g.rank; ++d) {
    merged.in_extent[d - first_padded + 1] = g.in_extent[d];
    merged.out_extent[d - first_padded + 1] = g.out_extent[d];
    merged.pad_before[d - first_padded + 1] = g.pad_before[d];
  }
  return merged;
}

// A tensor of `count` elements, seen as words of `k` elements.
struct Words {
  const void* x;
  void* y;
  PadGeometry g;
  std::int64_t in_count;
  std::int64_t out_count;
};

// Chunks of E words, or of one word where rows are narrower than E words.
template <typename Word>
cudaError_t launch_words(const Words& w, cudaStream_t stream) {
  constexpr int kWide = static_cast<int>(16 / sizeof(Word));
  const auto* x = static_cast<const Word*>(w.x);
  auto* y = static_cast<Word*>(w.y);
  auto launch = [&](auto chunk_words) -> cudaError_t {
    constexpr int E = decltype(chunk_words)::value;
    const auto head = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(y) %
                                                (sizeof(Word) * E) / sizeof(Word));
    const std::int64_t chunks = (w.out_count + head + E - 1) / E;
    const unsigned int blocks = capped_blocks((chunks + kThreadsPerBlock * kChunksPerThread - 1) /
                                              (kThreadsPerBlock * kChunksPerThread));
    // 32-bit indices when no word index, nor a chunk index advanced by the grid, can overflow.
    const std::int64_t step = std::int64_t{blocks} * kThreadsPerBlock * kChunksPerThread;
    if ((chunks + step) * E < INT32_MAX && w.in_count < INT32_MAX) {
      circular_pad_chunks<Word, E, std::int32_t><<<blocks, kThreadsPerBlock, 0, stream>>>(
          x, y, w.g, static_cast<std::int32_t>(w.out_count), static_cast<std::int32_t>(head),
          static_cast<std::int32_t>(chunks));
    } else {
      circular_pad_chunks<Word, E, std::int64_t>
          <<<blocks, kThreadsPerBlock, 0, stream>>>(x, y, w.g, w.out_count, head, chunks);
    }
    return cudaGetLastError();
  };
  if (w.g.out_extent[w.g.rank - 1] >= kWide) {
    return launch(std::integral_constant<int, kWide>{});
  }
  return launch(std::integral_constant<int, 1>{});
}

// The same padding on words of k elements, where the last dimension's extents and padding are
// multiples of k and both tensors are aligned to k elements: k adjacent elements never split.
bool view_as_words(Words& w, std::size_t element, std::size_t word) {
  const auto k = static_cast<std::int64_t>(word / element);
  const int last = w.g.rank - 1;
  if (w.g.in_extent[last] % k != 0 || w.g.out_extent[last] % k != 0 ||
      w.g.pad_before[last] % k != 0 || reinterpret_cast<std::uintptr_t>(w.x) % word != 0 ||
      reinterpret_cast<std::uintptr_t>(w.y) % word != 0) {
    return false;
  }
  w.g.in_extent[last] /= k;
  w.g.out_extent[last] /= k;
  w.g.pad_before[last] /= k;
  w.in_count /= k;
  w.out_count /= k;
  return true;
}

}  // namespace

// Moves the widest words the padding allows (16, 8 or 4 bytes, else the element): float32 padded
// by 2 moves 8-byte words, float16 padded by 2 moves 4-byte words.
template <typename T>
cudaError_t circular_pad(ap::In<T> x, ap::Out<T> y, std::span<const std::int64_t> padding,
                         cudaStream_t stream) {
  if (y.numel() == 0) return cudaSuccess;
  if (x.rank() == 0) {
    return cudaMemcpyAsync(y.data(), x.data(), sizeof(T), cudaMemcpyDeviceToDevice, stream);
  }
  PadGeometry g{};
  g.rank = x.rank();
  for (int d = 0; d < g.rank; ++d) {
    g.in_extent[d] = x.size(d);
    g.out_extent[d] = y.size(d);
  }
  for (std::size_t i = 0; i < padding.size() / 2; ++i) {
    g.pad_before[g.rank - 1 - static_cast<int>(i)] = padding[2 * i];
  }
  Words w{x.data(), y.data(), merge_unpadded_leading_dims(g), x.numel(), y.numel()};
  auto with_divisors = [](Words words) {
    for (int d = 0; d < words.g.rank; ++d) {
      words.g.out_divisor[d] = FastDivisor(words.g.out_extent[d]);
    }
    return words;
  };
  for (const std::size_t word : {std::size_t{16}, std::size_t{8}, std::size_t{4}}) {
    if (word <= sizeof(T)) break;
    Words view = w;
    if (!view_as_words(view, sizeof(T), word)) continue;
    view = with_divisors(view);
    if (word == 16) return launch_words<uint4>(view, stream);
    if (word == 8) return launch_words<uint2>(view, stream);
    return launch_words<std::uint32_t>(view, stream);
  }
  return launch_words<T>(with_divisors(w), stream);
}

AUTOPLUGIN_OP("torchtrt_ex::circular_pad(Tensor x, int[] padding) -> Tensor", circular_pad_shape,
              circular_pad<float>, circular_pad<__half>, circular_pad<__nv_bfloat16>)
    .example(ap::Example().rank("x", 4).attr("padding", ap::IntList{1, 1, 2, 2}));
