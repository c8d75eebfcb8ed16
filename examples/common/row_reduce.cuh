// Reductions over the last dimension, shared by row_sum and row_max: a warp per row (rows up to
// kWarpRowBytes) or a block per row (longer rows). What makes them fast: each row is read with
// 16-byte loads (the elements before the row's first 16-byte boundary and after its last full
// vector one per thread), kVectorsInFlight loads issued per thread before any is reduced, and a
// shuffle tree at the end. Accumulation is in float.
#pragma once

#include <cstdint>

#include "kernel_utils.cuh"

namespace autoplugin_examples {

inline constexpr int kVectorsInFlight = 4;  // 64 bytes per thread in flight
// Rows up to this many bytes take a warp each (a lane then reads at most 4 steps of vectors);
// longer rows take a block of kThreadsPerBlock threads.
inline constexpr std::int64_t kWarpRowBytes = 8192;

// Sum of float values.
struct SumOp {
  using Acc = float;
  __device__ static Acc identity() { return 0.0f; }
  __device__ static Acc add(Acc acc, float value, std::int64_t) { return acc + value; }
  __device__ static Acc combine(Acc a, Acc b) { return a + b; }
  __device__ static Acc shuffle_down(Acc a, int offset) {
    return __shfl_down_sync(0xffffffffu, a, offset);
  }
};

// The maximum and its first index, NaN counting as the maximum (as in PyTorch): a total order
// (NaN above every number, equal values by index), so any visiting order gives the same result.
struct ArgMaxOp {
  struct Acc {
    float value;
    std::int64_t index;
  };
  __device__ static Acc identity() { return {-INFINITY, INT64_MAX}; }
  __device__ static bool before(const Acc& a, const Acc& b) {
    const bool a_nan = isnan(a.value);
    const bool b_nan = isnan(b.value);
    if (a_nan || b_nan) return a_nan && (!b_nan || a.index < b.index);
    return a.value > b.value || (a.value == b.value && a.index < b.index);
  }
  __device__ static Acc add(Acc acc, float value, std::int64_t index) {
    const Acc candidate{value, index};
    return before(candidate, acc) ? candidate : acc;
  }
  __device__ static Acc combine(Acc a, Acc b) { return before(b, a) ? b : a; }
  __device__ static Acc shuffle_down(Acc a, int offset) {
    return {__shfl_down_sync(0xffffffffu, a.value, offset),
            __shfl_down_sync(0xffffffffu, a.index, offset)};
  }
};

// Folds the elements of `row` that thread `t` of `threads` owns into `acc`.
template <typename Op, typename T>
__device__ inline typename Op::Acc reduce_row_part(const T* __restrict__ row, std::int64_t columns,
                                                   int t, int threads, typename Op::Acc acc) {
  using Vector = Vec16<T>;
  constexpr int E = Vector::kCount;
  const std::int64_t head = elements_to_alignment(row, columns);
  for (std::int64_t c = t; c < head; c += threads) acc = Op::add(acc, to_float(row[c]), c);
  const std::int64_t vectors = (columns - head) / E;
  const auto* body = reinterpret_cast<const uint4*>(row + head);
  for (std::int64_t base = t; base < vectors; base += std::int64_t{threads} * kVectorsInFlight) {
    Vector values[kVectorsInFlight];
#pragma unroll
    for (int u = 0; u < kVectorsInFlight; ++u) {
      const std::int64_t v = base + std::int64_t{u} * threads;
      if (v < vectors) values[u].raw = __ldg(body + v);
    }
#pragma unroll
    for (int u = 0; u < kVectorsInFlight; ++u) {
      const std::int64_t v = base + std::int64_t{u} * threads;
      if (v >= vectors) continue;
#pragma unroll
      for (int k = 0; k < E; ++k) {
        acc = Op::add(acc, to_float(values[u].element[k]), head + v * E + k);
      }
    }
  }
  for (std::int64_t c = head + vectors * E + t; c < columns; c += threads) {
    acc = Op::add(acc, to_float(row[c]), c);
  }
  return acc;
}

// The combination of `acc` over the lanes of a warp, in lane 0.
template <typename Op>
__device__ inline typename Op::Acc warp_reduce(typename Op::Acc acc) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    acc = Op::combine(acc, Op::shuffle_down(acc, offset));
  }
  return acc;
}

// A warp per row; `store(row, acc)` writes a row's result.
template <typename Op, typename T, typename Store>
__global__ void reduce_rows_by_warp(const T* __restrict__ x, std::int64_t rows,
                                    std::int64_t columns, Store store) {
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * blockDim.x / kWarp;
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  for (std::int64_t row = global_thread_index() / kWarp; row < rows; row += warps) {
    auto acc = reduce_row_part<Op>(x + row * columns, columns, lane, kWarp, Op::identity());
    acc = warp_reduce<Op>(acc);
    if (lane == 0) store(row, acc);
  }
}

// A block of kThreadsPerBlock threads per row.
template <typename Op, typename T, typename Store>
__global__ void __launch_bounds__(kThreadsPerBlock)
    reduce_rows_by_block(const T* __restrict__ x, std::int64_t rows, std::int64_t columns,
                         Store store) {
  __shared__ typename Op::Acc partial[kThreadsPerBlock / kWarp];
  const int t = static_cast<int>(threadIdx.x);
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    auto acc = reduce_row_part<Op>(x + row * columns, columns, t, kThreadsPerBlock, Op::identity());
    acc = warp_reduce<Op>(acc);
    if (t % kWarp == 0) partial[t / kWarp] = acc;
    __syncthreads();
    if (t < kWarp) {
      acc = t < kThreadsPerBlock / kWarp ? partial[t] : Op::identity();
      acc = warp_reduce<Op>(acc);
      if (t == 0) store(row, acc);
    }
    __syncthreads();
  }
}

// Launches the warp-per-row kernel.
template <typename Op, typename T, typename Store>
void launch_reduce_rows_by_warp(const T* x, std::int64_t rows, std::int64_t columns, Store store,
                                cudaStream_t stream) {
  reduce_rows_by_warp<Op>
      <<<blocks_for(rows * kWarp), kThreadsPerBlock, 0, stream>>>(x, rows, columns, store);
}

// Launches the block-per-row kernel.
template <typename Op, typename T, typename Store>
void launch_reduce_rows_by_block(const T* x, std::int64_t rows, std::int64_t columns, Store store,
                                 cudaStream_t stream) {
  reduce_rows_by_block<Op>
      <<<capped_blocks(rows), kThreadsPerBlock, 0, stream>>>(x, rows, columns, store);
}

}  // namespace autoplugin_examples
