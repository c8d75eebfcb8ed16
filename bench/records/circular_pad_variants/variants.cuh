// The candidate circular_pad kernels and their launchers (see variants.cu). Device code and
// launchers only, so that host_check.cpp can run them on the CPU (one thread after another: no
// kernel here synchronizes or exchanges data between threads).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#ifndef PAD_LAUNCH
#define PAD_LAUNCH(kernel, blocks, threads, stream, ...) \
  kernel<<<blocks, threads, 0, stream>>>(__VA_ARGS__)
#endif

// The examples' division by a launch-time constant and circular wrap, as the op uses them.
#include "../../examples/common/index_math.h"

namespace pad_variants {

using autoplugin_examples::FastDivisor;
using autoplugin_examples::wrap;

constexpr int kMaxRank = 8;
constexpr int kThreads = 256;
constexpr int kWarp = 32;

// ---------------------------------------------------------------------------------------------
// Geometry

struct Geometry {  // 64-bit, as the op's launcher builds it
  int rank = 0;
  std::int64_t in[kMaxRank] = {};
  std::int64_t out[kMaxRank] = {};
  std::int64_t before[kMaxRank] = {};
};

struct Geometry32 {  // the new variants: 32-bit indices (every shape here fits)
  int rank;
  int in[kMaxRank];
  int out[kMaxRank];
  int before[kMaxRank];
  FastDivisor out_div[kMaxRank];
};

Geometry make_geometry(const std::vector<std::int64_t>& shape,
                       const std::vector<std::int64_t>& padding) {
  Geometry g;
  g.rank = static_cast<int>(shape.size());
  for (int d = 0; d < g.rank; ++d) g.in[d] = g.out[d] = shape[d];
  for (std::size_t i = 0; i < padding.size() / 2; ++i) {
    const int d = g.rank - 1 - static_cast<int>(i);
    g.before[d] = padding[2 * i];
    g.out[d] += padding[2 * i] + padding[2 * i + 1];
  }
  return g;
}

// As the op: leading dimensions without padding merge into one.
Geometry merge_unpadded_leading_dims(const Geometry& g) {
  int first_padded = 0;
  while (first_padded < g.rank - 1 && g.before[first_padded] == 0 &&
         g.in[first_padded] == g.out[first_padded]) {
    ++first_padded;
  }
  if (first_padded <= 1) return g;
  Geometry merged;
  merged.rank = g.rank - first_padded + 1;
  merged.in[0] = merged.out[0] = 1;
  for (int d = 0; d < first_padded; ++d) {
    merged.in[0] *= g.in[d];
    merged.out[0] *= g.out[d];
  }
  for (int d = first_padded; d < g.rank; ++d) {
    merged.in[d - first_padded + 1] = g.in[d];
    merged.out[d - first_padded + 1] = g.out[d];
    merged.before[d - first_padded + 1] = g.before[d];
  }
  return merged;
}

Geometry32 to32(const Geometry& g) {
  Geometry32 r{};
  r.rank = g.rank;
  for (int d = 0; d < g.rank; ++d) {
    r.in[d] = static_cast<int>(g.in[d]);
    r.out[d] = static_cast<int>(g.out[d]);
    r.before[d] = static_cast<int>(g.before[d]);
    r.out_div[d] = FastDivisor(g.out[d]);
  }
  return r;
}

// The input row (all dimensions but the last, flattened) that output row `row` copies.
__device__ inline int source_row(int row, const Geometry32& g) {
  int source = 0;
  int stride = 1;
  int rest = row;
  for (int d = g.rank - 2; d >= 0; --d) {
    const int outer = d == 0 ? 0 : g.out_div[d].divide32(rest);
    const int o = rest - outer * g.out[d];
    source += wrap(o - g.before[d], g.in[d]) * stride;
    stride *= g.in[d];
    rest = outer;
  }
  return source;
}

template <typename T>
union Vec16 {
  static constexpr int kCount = static_cast<int>(sizeof(uint4) / sizeof(T));
  uint4 raw;
  T element[kCount];
  __device__ Vec16() : raw{0, 0, 0, 0} {}
};

// ---------------------------------------------------------------------------------------------
// V1 rows_warp<U>: the example's current kernel (U = 8). One warp per output row; lanes copy the
// row with U element loads in flight per lane, one element (2 or 4 bytes) per load.

template <typename T, int U>
__global__ void rows_warp(const T* __restrict__ x, T* __restrict__ y, Geometry g, int rows) {
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  const int warps = static_cast<int>(gridDim.x * (blockDim.x / kWarp));
  const int last = g.rank - 1;
  const auto w_in = static_cast<int>(g.in[last]);
  const auto w_out = static_cast<int>(g.out[last]);
  const auto before = static_cast<int>(g.before[last]);
  for (int row = static_cast<int>(blockIdx.x * (blockDim.x / kWarp) + threadIdx.x / kWarp);
       row < rows; row += warps) {
    int rest = row;
    int src = 0;
    int stride = 1;
    for (int d = last - 1; d >= 0; --d) {
      const auto out_extent = static_cast<int>(g.out[d]);
      const auto in_extent = static_cast<int>(g.in[d]);
      const int o = d == 0 ? rest : rest % out_extent;
      rest /= out_extent;
      src += wrap<int>(o - static_cast<int>(g.before[d]), in_extent) * stride;
      stride *= in_extent;
    }
    const T* source = x + static_cast<std::int64_t>(src) * w_in;
    T* target = y + static_cast<std::int64_t>(row) * w_out;
    for (int base = lane; base < w_out; base += kWarp * U) {
      T values[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int j = base + u * kWarp;
        if (j < w_out) values[u] = source[wrap<int>(j - before, w_in)];
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int j = base + u * kWarp;
        if (j < w_out) target[j] = values[u];
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// V2 flat_gather<U>: the output cut into 16-byte aligned chunks; a thread gathers a chunk's
// elements with independent element loads (U chunks, U*E loads in flight) and stores it with one
// 16-byte store. No divergent path: every chunk runs the same per-element code (a chunk spans at
// most two rows: needs w_out >= E). One fast division per chunk for the row, one per padded
// outer dimension for its source.

template <typename T, int U>
__global__ void __launch_bounds__(kThreads)
    flat_gather(const T* __restrict__ x, T* __restrict__ y, Geometry32 g, int total, int head,
                int chunks) {
  using V = Vec16<T>;
  constexpr int E = V::kCount;
  const int last = g.rank - 1;
  const int w_in = g.in[last];
  const int w_out = g.out[last];
  const int before = g.before[last];
  auto* y_aligned = reinterpret_cast<uint4*>(y - head);
  for (int base = blockIdx.x * kThreads * U + threadIdx.x; base < chunks;
       base += gridDim.x * kThreads * U) {
    V value[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int c = base + u * kThreads;
      if (c >= chunks) continue;
      const int p0 = c * E - head;
      const int first = p0 < 0 ? 0 : p0;
      const int row = g.out_div[last].divide32(first);
      const int col = first - row * w_out;
      const int this_src = source_row(row, g) * w_in;
      const int next_src = col + E > w_out ? source_row(row + 1, g) * w_in : this_src;
#pragma unroll
      for (int e = 0; e < E; ++e) {
        const int p = p0 + e;
        int ce = col + (p - first);
        const bool next = ce >= w_out;
        ce -= next ? w_out : 0;
        if (p >= 0 && p < total) {
          value[u].element[e] = x[(next ? next_src : this_src) + wrap(ce - before, w_in)];
        }
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int c = base + u * kThreads;
      if (c >= chunks) continue;
      const int p0 = c * E - head;
      if (p0 >= 0 && p0 + E <= total) {
        y_aligned[c] = value[u].raw;
      } else {
#pragma unroll
        for (int e = 0; e < E; ++e) {
          if (p0 + e >= 0 && p0 + e < total) y[p0 + e] = value[u].element[e];
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// V3 tile_window<U>: rows' interiors and borders apart, so that no warp runs a gather path.
// Interior of a row: output columns [lo, hi), a contiguous copy of the source row at a constant
// offset. Work item = (row, k-th 16-byte aligned output chunk overlapping the row's interior); a
// block takes 256*U consecutive items (about 256*U*16 bytes), and each thread loads its U chunks'
// sources as two aligned 16-byte loads each (the 16 source bytes at any offset, realigned with
// funnel shifts: no scalar loads), then stores 16 bytes (or, at the interior's two ends, the
// interior's elements of the chunk). The block then copies the borders (columns outside
// [lo, hi), wrapped) of the rows whose first interior chunk it took, one element per thread, its
// loads issued before the interior's stores.

__device__ inline std::uint32_t pick(const std::uint32_t (&w)[8], int i) {
  // w[i] for i in [0, 8) without local memory: i is q + k with k constant.
  std::uint32_t r = w[0];
#pragma unroll
  for (int j = 1; j < 8; ++j) r = i == j ? w[j] : r;
  return r;
}

__device__ inline uint4 realign(uint4 low, uint4 high, std::uint32_t offset) {
  const std::uint32_t w[8] = {low.x, low.y, low.z, low.w, high.x, high.y, high.z, high.w};
  const int q = static_cast<int>(offset >> 2);
  const std::uint32_t bits = (offset & 3u) * 8u;
  std::uint32_t o[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) o[k] = __funnelshift_r(pick(w, q + k), pick(w, q + k + 1), bits);
  return uint4{o[0], o[1], o[2], o[3]};
}

struct TileParams {
  int rows;
  int head;     // y - head is 16-byte aligned
  int lo, hi;   // interior columns
  int per_row;  // interior chunks per row (at most)
  FastDivisor per_row_div;
  int borders;   // border columns per row: lo + (w_out - hi)
  int items;     // rows * per_row
  int in_count;  // x's elements
};

template <typename T, int U>
__global__ void __launch_bounds__(kThreads)
    tile_window(const T* __restrict__ x, T* __restrict__ y, Geometry32 g, TileParams t) {
  using V = Vec16<T>;
  constexpr int E = V::kCount;
  const int last = g.rank - 1;
  const int w_in = g.in[last];
  const int w_out = g.out[last];
  const int before = g.before[last];
  const auto x_begin = reinterpret_cast<std::uintptr_t>(x);
  const auto x_end = reinterpret_cast<std::uintptr_t>(x + t.in_count);
  auto* y_aligned = reinterpret_cast<uint4*>(y - t.head);
  const int i0 = blockIdx.x * kThreads * U;
  const int i1 = min(i0 + kThreads * U, t.items);

  uint4 low[U];
  uint4 high[U];
  std::uint32_t offset[U];
  int chunk[U];
  int row_start[U];
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const int i = i0 + u * kThreads + static_cast<int>(threadIdx.x);
    low[u] = high[u] = uint4{0, 0, 0, 0};
    offset[u] = 0;
    chunk[u] = -1;
    if (i >= i1) continue;
    const int row = t.per_row_div.divide32(i);
    const int k = i - row * t.per_row;
    row_start[u] = row * w_out;
    const int c = (row_start[u] + t.lo + t.head) / E + k;
    const int p0 = c * E - t.head;
    if (p0 >= row_start[u] + t.hi) continue;
    chunk[u] = c;
    const int src = source_row(row, g) * w_in - row_start[u] - before;  // + p: p's source
    const std::uintptr_t address =
        x_begin + static_cast<std::intptr_t>(src + p0) * static_cast<std::intptr_t>(sizeof(T));
    const std::uint32_t off = static_cast<std::uint32_t>(address & 15u);
    const std::uintptr_t aligned = address - off;
    if (src + p0 >= 0 && aligned >= x_begin && aligned + (off ? 32u : 16u) <= x_end) {
      low[u] = __ldg(reinterpret_cast<const uint4*>(aligned));
      if (off) high[u] = __ldg(reinterpret_cast<const uint4*>(aligned) + 1);
      offset[u] = off;
    } else {  // at the tensor's ends: the interior elements one by one
      V v;
#pragma unroll
      for (int e = 0; e < E; ++e) {
        const int p = p0 + e;
        if (p >= row_start[u] + t.lo && p < row_start[u] + t.hi) v.element[e] = x[src + p];
      }
      low[u] = v.raw;
    }
  }

  // Borders of the rows whose first item is in this block; first element's load now.
  const int r_lo = t.per_row_div.divide32(i0 + t.per_row - 1);
  const int r_hi = min(t.rows, t.per_row_div.divide32(i1 + t.per_row - 1));
  const int border_count = (r_hi - r_lo) * t.borders;
  auto border_source = [&](int j, int& target) {
    const int r = r_lo + j / t.borders;
    const int b = j - (j / t.borders) * t.borders;
    const int col = b < t.lo ? b : t.hi + (b - t.lo);
    target = r * w_out + col;
    return source_row(r, g) * w_in + wrap(col - before, w_in);
  };
  int j = static_cast<int>(threadIdx.x);
  int border_target = 0;
  T border_value{};
  if (j < border_count) border_value = x[border_source(j, border_target)];

#pragma unroll
  for (int u = 0; u < U; ++u) {
    if (chunk[u] < 0) continue;
    V v;
    v.raw = offset[u] ? realign(low[u], high[u], offset[u]) : low[u];
    const int p0 = chunk[u] * E - t.head;
    const int a = row_start[u] + t.lo;
    const int b = row_start[u] + t.hi;
    if (p0 >= a && p0 + E <= b) {
      y_aligned[chunk[u]] = v.raw;
    } else {
#pragma unroll
      for (int e = 0; e < E; ++e) {
        if (p0 + e >= a && p0 + e < b) y[p0 + e] = v.element[e];
      }
    }
  }
  if (j < border_count) y[border_target] = border_value;
  for (j += kThreads; j < border_count; j += kThreads) {
    const int source = border_source(j, border_target);
    y[border_target] = x[source];
  }
}

unsigned int grid_for(std::int64_t threads) {
  return static_cast<unsigned int>(
      std::clamp<std::int64_t>((threads + kThreads - 1) / kThreads, 1, 65535 * 8));
}

struct Problem {
  Geometry g;  // merged
  Geometry32 g32;
  std::int64_t in_count, out_count, rows;
};

template <typename T>
using Launch = bool (*)(const T* x, T* y, const Problem& p, cudaStream_t s);  // false: n/a

template <typename T, int U>
bool launch_rows_warp(const T* x, T* y, const Problem& p, cudaStream_t s) {
  const unsigned int blocks = grid_for(p.rows * kWarp);
  PAD_LAUNCH((rows_warp<T, U>), blocks, kThreads, s, x, y, p.g, static_cast<int>(p.rows));
  return true;
}

template <typename T>
int head_of(const T* y) {
  constexpr int E = 16 / sizeof(T);
  const int misaligned = static_cast<int>(reinterpret_cast<std::uintptr_t>(y) % 16 / sizeof(T));
  (void)E;
  return misaligned;
}

template <typename T, int U>
bool launch_flat_gather(const T* x, T* y, const Problem& p, cudaStream_t s) {
  constexpr int E = 16 / sizeof(T);
  if (p.g.out[p.g.rank - 1] < E) return false;
  const int head = head_of(y);
  const std::int64_t chunks = (p.out_count + head + E - 1) / E;
  const std::int64_t blocks =
      std::min<std::int64_t>((chunks + kThreads * U - 1) / (kThreads * U), 65535 * 8);
  PAD_LAUNCH((flat_gather<T, U>), static_cast<unsigned int>(blocks), kThreads, s, x, y, p.g32,
             static_cast<int>(p.out_count), head, static_cast<int>(chunks));
  return true;
}

template <typename T, int U>
bool launch_tile_window(const T* x, T* y, const Problem& p, cudaStream_t s) {
  constexpr int E = 16 / sizeof(T);
  const int last = p.g.rank - 1;
  const std::int64_t w_in = p.g.in[last], w_out = p.g.out[last], before = p.g.before[last];
  TileParams t{};
  t.rows = static_cast<int>(p.rows);
  t.head = head_of(y);
  t.lo = static_cast<int>(std::max<std::int64_t>(before, 0));
  t.hi = static_cast<int>(std::min<std::int64_t>(before + w_in, w_out));
  if (t.hi <= t.lo) return false;
  const int interior = t.hi - t.lo;
  t.per_row = (interior + 2 * E - 2) / E;
  t.per_row_div = FastDivisor(t.per_row);
  t.borders = static_cast<int>(w_out) - interior;
  t.items = static_cast<int>(p.rows * t.per_row);
  t.in_count = static_cast<int>(p.in_count);
  const unsigned int blocks = (t.items + kThreads * U - 1) / (kThreads * U);
  PAD_LAUNCH((tile_window<T, U>), blocks, kThreads, s, x, y, p.g32, t);
  return true;
}

// The same op on wider words: where the last dimension's extents and padding are multiples of
// k elements (and x, y are aligned to k elements), k consecutive elements never split, so the
// pad is the same on words of k elements: float16 with even widths and padding moves 4-byte words,
// float32 8-byte words, ... (the widest of 16, 8, 4 bytes that fits).
template <typename W, typename T>
Problem as_words(const Problem& p) {
  constexpr int k = sizeof(W) / sizeof(T);
  Problem w = p;
  const int last = p.g.rank - 1;
  w.g.in[last] /= k;
  w.g.out[last] /= k;
  w.g.before[last] /= k;
  w.g32 = to32(w.g);
  w.in_count /= k;
  w.out_count /= k;
  return w;
}

template <typename W, typename T>
bool words_fit(const T* x, const T* y, const Problem& p) {
  if (sizeof(W) < sizeof(T)) return false;
  constexpr std::int64_t k = sizeof(W) / sizeof(T);
  const int last = p.g.rank - 1;
  return p.g.in[last] % k == 0 && p.g.out[last] % k == 0 && p.g.before[last] % k == 0 &&
         reinterpret_cast<std::uintptr_t>(x) % sizeof(W) == 0 &&
         reinterpret_cast<std::uintptr_t>(y) % sizeof(W) == 0;
}

template <typename T, typename K>
bool launch_words(const T* x, T* y, const Problem& p, cudaStream_t s) {
  if (words_fit<uint4>(x, y, p)) {
    return K::run(reinterpret_cast<const uint4*>(x), reinterpret_cast<uint4*>(y),
                  as_words<uint4, T>(p), s);
  }
  if (words_fit<uint2>(x, y, p)) {
    return K::run(reinterpret_cast<const uint2*>(x), reinterpret_cast<uint2*>(y),
                  as_words<uint2, T>(p), s);
  }
  if (words_fit<std::uint32_t>(x, y, p)) {
    return K::run(reinterpret_cast<const std::uint32_t*>(x), reinterpret_cast<std::uint32_t*>(y),
                  as_words<std::uint32_t, T>(p), s);
  }
  return K::run(x, y, p, s);
}

template <int U>
struct RowsWarp {
  template <typename W>
  static bool run(const W* x, W* y, const Problem& p, cudaStream_t s) {
    return launch_rows_warp<W, U>(x, y, p, s);
  }
};
template <int U>
struct FlatGather {
  template <typename W>
  static bool run(const W* x, W* y, const Problem& p, cudaStream_t s) {
    return launch_flat_gather<W, U>(x, y, p, s);
  }
};
template <int U>
struct TileWindow {
  template <typename W>
  static bool run(const W* x, W* y, const Problem& p, cudaStream_t s) {
    return launch_tile_window<W, U>(x, y, p, s);
  }
};

// The op's own kernel (examples/circular_pad/circular_pad.cu), extracted by
// extract_op_kernel.py into op_kernel.inc (run.sh puts it on the include path).
namespace op_kernel {
namespace ap {
constexpr int kMaxRank = 8;
}
constexpr int kThreadsPerBlock = 256;
inline unsigned int capped_blocks(std::int64_t blocks) {  // as examples/common/kernel_utils.cuh
  return static_cast<unsigned int>(std::clamp<std::int64_t>(blocks, 1, 65535 * 8));
}
#include "op_kernel.inc"
}  // namespace op_kernel

// As the op's launcher: the widest words the padding allows, then the chunk kernel.
template <typename T>
bool launch_op_kernel(const T* x, T* y, const Problem& p, cudaStream_t s) {
  using namespace op_kernel;
  Words w{x, y, PadGeometry{}, p.in_count, p.out_count};
  w.g.rank = p.g.rank;
  for (int d = 0; d < p.g.rank; ++d) {
    w.g.in_extent[d] = p.g.in[d];
    w.g.out_extent[d] = p.g.out[d];
    w.g.pad_before[d] = p.g.before[d];
  }
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
    if (word == 16) return launch_words<uint4>(view, s) == cudaSuccess;
    if (word == 8) return launch_words<uint2>(view, s) == cudaSuccess;
    return launch_words<std::uint32_t>(view, s) == cudaSuccess;
  }
  return launch_words<T>(with_divisors(w), s) == cudaSuccess;
}

template <typename T>
struct Variant {
  const char* name;
  Launch<T> launch;
};

template <typename T>
std::vector<Variant<T>> variants() {
  return {
      {"rows_warp_u8 (current)", launch_rows_warp<T, 8>},
      {"rows_warp_u16", launch_rows_warp<T, 16>},
      {"flat_gather_u2", launch_flat_gather<T, 2>},
      {"flat_gather_u4", launch_flat_gather<T, 4>},
      {"tile_window_u2", launch_tile_window<T, 2>},
      {"tile_window_u4", launch_tile_window<T, 4>},
      {"words+rows_warp_u8", launch_words<T, RowsWarp<8>>},
      {"words+flat_gather_u4", launch_words<T, FlatGather<4>>},
      {"words+tile_window_u2", launch_words<T, TileWindow<2>>},
      {"words+tile_window_u4", launch_words<T, TileWindow<4>>},
      {"words+tile_window_u8", launch_words<T, TileWindow<8>>},
      {"words+rows_warp_u16", launch_words<T, RowsWarp<16>>},
      {"op kernel (words+chunks)", launch_op_kernel<T>},
  };
}

Problem make_problem(const std::vector<std::int64_t>& shape,
                     const std::vector<std::int64_t>& padding) {
  Problem p;
  const Geometry full = make_geometry(shape, padding);
  p.in_count = p.out_count = 1;
  for (int d = 0; d < full.rank; ++d) {
    p.in_count *= full.in[d];
    p.out_count *= full.out[d];
  }
  p.g = merge_unpadded_leading_dims(full);
  p.g32 = to32(p.g);
  p.rows = p.out_count / p.g.out[p.g.rank - 1];
  return p;
}

}  // namespace pad_variants
