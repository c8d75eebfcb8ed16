// circular_pad: N-d circular padding, `padding` in PyTorch order (last dimension first, a
// (before, after) pair per dimension). The op from Torch-TensorRT's plugin-generation RFC.
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include <algorithm>

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
  FastDivisor out_divisor[ap::kMaxRank];  // by out_extent, for the output coordinates
};

// Output vectors per lane per step: all loaded before any is stored, 64 bytes in flight per
// lane (and the second halves of misaligned sources, mostly L1 hits).
constexpr int kVectorsPerLane = 4;

// The input row (all dimensions but the last) that output row `row` copies from.
template <typename Index>
__device__ inline Index source_row(Index row, const PadGeometry& g) {
  Index source = 0;
  Index rest = row;
  Index stride = 1;
  for (int d = g.rank - 2; d >= 0; --d) {
    // The outermost index needs no division.
    const Index outer = d == 0 ? 0 : g.out_divisor[d].divide(rest);
    const Index o = rest - outer * static_cast<Index>(g.out_extent[d]);
    source +=
        wrap<Index>(o - static_cast<Index>(g.pad_before[d]), static_cast<Index>(g.in_extent[d])) *
        stride;
    stride *= static_cast<Index>(g.in_extent[d]);
    rest = outer;
  }
  return source;
}

// The output is cut into 16-byte vectors aligned in memory (4 floats, 8 halves: what makes
// 16-bit types as fast as float32, which moved one 2-byte element per lane before); lane l of a
// warp takes vectors base + 32 u + l, u < kVectorsPerLane, so that every store instruction
// writes 512 contiguous bytes. Most vectors copy 16 contiguous input bytes at some offset: two
// aligned 16-byte loads and a funnel shift (byte_window) make them, without any scalar load. A
// vector that straddles a row end or a wrap point, or one at either end of a tensor, is gathered
// element by element (rows are at least a vector wide: it spans at most two rows). Index is
// 32-bit whenever the tensors allow: the index math (two multiply-high divisions per vector for
// 4-d inputs), not the memory, would otherwise bound it.
// With 32-bit indices, 64 registers: 4 blocks (1024 threads) per SM.
template <typename T, typename Index>
__global__ void __launch_bounds__(kThreadsPerBlock, sizeof(Index) == 4 ? 4 : 2)
    circular_pad_vectors(const T* __restrict__ x, T* __restrict__ y, PadGeometry g, Index in_count,
                         Index out_count, Index head, Index vectors) {
  using Vector = Vec16<T>;
  constexpr int E = Vector::kCount;
  const int last = g.rank - 1;
  const auto w_in = static_cast<Index>(g.in_extent[last]);
  const auto w_out = static_cast<Index>(g.out_extent[last]);
  const auto before = static_cast<Index>(g.pad_before[last]);
  const auto x_begin = reinterpret_cast<std::uintptr_t>(x);
  const auto x_end = reinterpret_cast<std::uintptr_t>(x + in_count);
  // Vector k holds output elements [k E - head, (k + 1) E - head); y_aligned + k is its address.
  auto* y_aligned = reinterpret_cast<uint4*>(y - head);
  const Index lane = static_cast<Index>(threadIdx.x % kWarp);
  const Index warp = static_cast<Index>((blockIdx.x * blockDim.x + threadIdx.x) / kWarp);
  const Index warps = static_cast<Index>(gridDim.x * blockDim.x / kWarp);
  constexpr Index kPerWarp = kWarp * kVectorsPerLane;
  for (Index base = warp * kPerWarp + lane; base < vectors; base += warps * kPerWarp) {
    // Pass 1: addresses. A vector is contiguous when it lies in one row and its first and last
    // elements come from positions E - 1 apart in one input row.
    const uint4* source[kVectorsPerLane];
    std::uint32_t offset[kVectorsPerLane];
    bool contiguous[kVectorsPerLane];
    Index row[kVectorsPerLane];     // of the vector's first element in the output
    Index column[kVectorsPerLane];  // (or of element 0 for the tensor's first vector)
#pragma unroll
    for (int u = 0; u < kVectorsPerLane; ++u) {
      const Index j0 = (base + u * kWarp) * E - head;
      const Index first_element = j0 < 0 ? 0 : j0;
      row[u] = g.out_divisor[last].divide(first_element);
      column[u] = first_element - row[u] * w_out;
      const Index first = wrap<Index>(column[u] - before, w_in);
      contiguous[u] = base + u * kWarp < vectors && j0 >= 0 && j0 + E <= out_count &&
                      column[u] + E <= w_out &&
                      wrap<Index>(column[u] + E - 1 - before, w_in) == first + E - 1;
      const auto address =
          reinterpret_cast<std::uintptr_t>(x + source_row(row[u], g) * w_in + first);
      offset[u] = static_cast<std::uint32_t>(address % sizeof(uint4));
      const std::uintptr_t aligned = address - offset[u];
      // Both aligned loads must stay inside x.
      const std::uintptr_t loaded_end = aligned + (offset[u] == 0 ? 16 : 32);
      contiguous[u] = contiguous[u] && aligned >= x_begin && loaded_end <= x_end;
      source[u] = reinterpret_cast<const uint4*>(aligned);
    }
    // Pass 2: every load of the step, gathered elements included, before any of them is used:
    // a lane with a straddling vector then costs one memory latency per step, not one per
    // vector.
    Vector value[kVectorsPerLane];
    uint4 high[kVectorsPerLane];
#pragma unroll
    for (int u = 0; u < kVectorsPerLane; ++u) {
      high[u] = uint4{0, 0, 0, 0};
      const Index j0 = (base + u * kWarp) * E - head;
      if (contiguous[u]) {
        value[u].raw = __ldg(source[u]);
        if (offset[u] != 0) high[u] = __ldg(source[u] + 1);
      } else if (base + u * kWarp < vectors) {
        const Index this_row = source_row(row[u], g) * w_in;
        const Index next_row = column[u] + E > w_out ? source_row(row[u] + 1, g) * w_in : 0;
        const Index first_element = j0 < 0 ? 0 : j0;
#pragma unroll
        for (int e = 0; e < E; ++e) {
          const Index j = j0 + e;
          const Index c = column[u] + (j - first_element);
          const bool next = c >= w_out;
          const Index source_column = wrap<Index>((next ? c - w_out : c) - before, w_in);
          if (j >= 0 && j < out_count) {
            value[u].element[e] = x[(next ? next_row : this_row) + source_column];
          }
        }
      }
    }
    // Pass 3: realign; store.
#pragma unroll
    for (int u = 0; u < kVectorsPerLane; ++u) {
      const Index k = base + u * kWarp;
      if (k >= vectors) continue;
      const Index j0 = k * E - head;
      if (contiguous[u] && offset[u] != 0) {
        const uint4 low = value[u].raw;
        const std::uint32_t words[8] = {low.x,     low.y,     low.z,     low.w,
                                        high[u].x, high[u].y, high[u].z, high[u].w};
        std::uint32_t window[4];
        byte_window(words, offset[u], window);
        value[u].raw = uint4{window[0], window[1], window[2], window[3]};
      }
      if (j0 >= 0 && j0 + E <= out_count) {
        y_aligned[k] = value[u].raw;
      } else {
#pragma unroll
        for (int e = 0; e < E; ++e) {
          const Index j = j0 + e;
          if (j >= 0 && j < out_count) y[j] = value[u].element[e];
        }
      }
    }
  }
}

// Rows narrower than a vector: an element per thread (such tensors are small or index-bound).
template <typename T, typename Index>
__global__ void circular_pad_elements(const T* __restrict__ x, T* __restrict__ y, PadGeometry g,
                                      Index out_count) {
  const int last = g.rank - 1;
  const auto w_out = static_cast<Index>(g.out_extent[last]);
  const auto w_in = static_cast<Index>(g.in_extent[last]);
  for (Index j = static_cast<Index>(global_thread_index()); j < out_count;
       j += static_cast<Index>(grid_stride())) {
    const Index row = g.out_divisor[last].divide(j);
    const Index column = j - row * w_out;
    y[j] = x[source_row(row, g) * w_in +
             wrap<Index>(column - static_cast<Index>(g.pad_before[last]), w_in)];
  }
}

// Merges the leading dimensions that have no padding into one: fewer divisions per vector.
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

}  // namespace

template <typename T>
cudaError_t circular_pad(ap::In<T> x, ap::Out<T> y, std::span<const std::int64_t> padding,
                         cudaStream_t stream) {
  const std::int64_t total = y.numel();
  if (total == 0) return cudaSuccess;
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
  g = merge_unpadded_leading_dims(g);
  for (int d = 0; d < g.rank; ++d)
    g.out_divisor[d] = FastDivisor(std::max<std::int64_t>(1, g.out_extent[d]));
  constexpr int E = Vec16<T>::kCount;
  const std::int64_t head = (E - elements_to_alignment(y.data(), E)) % E;
  const std::int64_t vectors = (head + total + E - 1) / E;
  const bool narrow = g.out_extent[g.rank - 1] < E;
  constexpr std::int64_t kPerBlock = kThreadsPerBlock * kVectorsPerLane;
  const unsigned int blocks =
      narrow ? blocks_for(total) : capped_blocks((vectors + kPerBlock - 1) / kPerBlock);
  // 32-bit indices when no element index, nor a vector or element number advanced by the whole
  // grid, can overflow.
  const std::int64_t step = static_cast<std::int64_t>(blocks) * kPerBlock;
  const bool small = std::max(total, x.numel()) + (vectors + step) * E < INT32_MAX;
  if (narrow && small) {
    circular_pad_elements<T, std::int32_t><<<blocks, kThreadsPerBlock, 0, stream>>>(
        x.data(), y.data(), g, static_cast<std::int32_t>(total));
  } else if (narrow) {
    circular_pad_elements<T, std::int64_t>
        <<<blocks, kThreadsPerBlock, 0, stream>>>(x.data(), y.data(), g, total);
  } else if (small) {
    circular_pad_vectors<T, std::int32_t><<<blocks, kThreadsPerBlock, 0, stream>>>(
        x.data(), y.data(), g, static_cast<std::int32_t>(x.numel()),
        static_cast<std::int32_t>(total), static_cast<std::int32_t>(head),
        static_cast<std::int32_t>(vectors));
  } else {
    circular_pad_vectors<T, std::int64_t><<<blocks, kThreadsPerBlock, 0, stream>>>(
        x.data(), y.data(), g, x.numel(), total, head, vectors);
  }
  return cudaGetLastError();
}

AUTOPLUGIN_OP("torchtrt_ex::circular_pad(Tensor x, int[] padding) -> Tensor", circular_pad_shape,
              circular_pad<float>, circular_pad<__half>, circular_pad<__nv_bfloat16>)
    .example(ap::Example().rank("x", 4).attr("padding", ap::IntList{1, 1, 2, 2}));
