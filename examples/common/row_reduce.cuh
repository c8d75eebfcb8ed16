// Reductions over the last dimension, shared by row_sum and row_max: a warp per row (rows up to
// kWarpRowBytes) or a block per row (longer rows). What makes them fast: each row is read with
// 16-byte loads (the elements before the row's first 16-byte boundary and after its last full
// vector one per thread), kVectorsInFlight loads issued per thread before any is reduced, few
// instructions per element (an op folds a step's loads at once: see ArgMaxOp), and a shuffle
// tree at the end. Accumulation is in float.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernel_utils.cuh"

namespace autoplugin_examples {

inline constexpr int kVectorsInFlight = 4;  // 64 bytes per thread in flight
// Rows up to this many bytes take a warp each (a lane then reads at most 4 steps of vectors);
// longer rows take a block of kThreadsPerBlock threads.
inline constexpr std::int64_t kWarpRowBytes = 8192;

// Two adjacent 16-bit elements as one packed value, for the paired instructions.
template <typename T>
struct PairOf;
template <>
struct PairOf<__half> {
  using type = __half2;
};
template <>
struct PairOf<__nv_bfloat16> {
  using type = __nv_bfloat162;
};

// Elements 2j and 2j + 1 of a vector of 16-bit elements.
template <typename T>
__device__ inline typename PairOf<T>::type pair_of(const Vec16<T>& vector, int j) {
  typename PairOf<T>::type pair;
  std::memcpy(&pair, &vector.element[2 * j], sizeof(pair));
  return pair;
}

// An op folds single elements (`add`) and the vectors one step of a thread loaded (`fold_step`:
// values[0, count) hold elements first + u * stride + [0, kCount)).

// Sum of float values.
struct SumOp {
  using Acc = float;
  __device__ static Acc identity() { return 0.0f; }
  __device__ static Acc add(Acc acc, float value, std::int64_t) { return acc + value; }
  template <typename Vector>
  __device__ static Acc fold_step(Acc acc, const Vector (&values)[kVectorsInFlight], int count,
                                  std::int64_t, std::int64_t) {
#pragma unroll
    for (int u = 0; u < kVectorsInFlight; ++u) {
      if (u >= count) break;
#pragma unroll
      for (int k = 0; k < Vector::kCount; ++k) acc += to_float(values[u].element[k]);
    }
    return acc;
  }
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
  // A step's first maximum is found with a compare and two selects per element (its position
  // within the step is a constant of the unrolled loop), 16-bit elements two at a time, then
  // compared in full (value, then index: `add`) once. (Comparing every element in full kept
  // 16-bit rows at half of the read bandwidth: NaN tests and 64-bit index arithmetic per
  // element, not memory, were the limit.)
  template <typename Vector>
  __device__ static Acc fold_step(Acc acc, const Vector (&values)[kVectorsInFlight], int count,
                                  std::int64_t first, std::int64_t stride) {
    constexpr int E = Vector::kCount;
    StepMaximum step;
    if constexpr (sizeof(typename Vector::Element) == 2) {
      step = first_maximum_of_pairs(values, count);
    } else {
      step = first_maximum(values, count);
    }
    return add(acc, step.value, first + step.position / E * stride + step.position % E);
  }

  // The step's maximum (NaN above all) and the position u * kCount + k of its first element.
  struct StepMaximum {
    float value;
    int position;
  };

  template <typename Vector>
  __device__ static StepMaximum first_maximum(const Vector (&values)[kVectorsInFlight], int count) {
    constexpr int E = Vector::kCount;
    float best = -INFINITY;
    int position = 0;  // stays 0 when every element is -inf
    bool nan = false;
#pragma unroll
    for (int u = 0; u < kVectorsInFlight; ++u) {
      if (u >= count) break;
#pragma unroll
      for (int k = 0; k < E; ++k) {
        const float value = to_float(values[u].element[k]);
        const bool greater = value > best;
        best = greater ? value : best;
        position = greater ? u * E + k : position;
        nan |= value != value;
      }
    }
    if (nan) {  // rare: a second pass finds the first NaN
      best = NAN;
#pragma unroll
      for (int u = kVectorsInFlight - 1; u >= 0; --u) {
        if (u >= count) continue;
#pragma unroll
        for (int k = E - 1; k >= 0; --k) {
          const float value = to_float(values[u].element[k]);
          position = value != value ? u * E + k : position;
        }
      }
    }
    return {best, position};
  }

  // For 16-bit elements: the maximum by NaN-propagating paired max (one instruction per two
  // elements), then, scanning backwards, the first pair holding it (a paired compare and two
  // selects per two elements).
  template <typename Vector>
  __device__ static StepMaximum first_maximum_of_pairs(const Vector (&values)[kVectorsInFlight],
                                                       int count) {
    using Pair = typename PairOf<typename Vector::Element>::type;
    constexpr int kPairs = Vector::kCount / 2;
    Pair top = pair_of(values[0], 0);  // a step holds at least one vector
#pragma unroll
    for (int u = 0; u < kVectorsInFlight; ++u) {
      if (u >= count) break;
#pragma unroll
      for (int j = 0; j < kPairs; ++j) top = __hmax2_nan(top, pair_of(values[u], j));
    }
    Pair target;
    target.x = target.y = __hmax_nan(top.x, top.y);
    int pair = 0;
    unsigned mask = 0;  // the pair's compare result: 0xffff in each half that matched
    auto scan = [&](auto matches) {
#pragma unroll
      for (int u = kVectorsInFlight - 1; u >= 0; --u) {
        if (u >= count) continue;
#pragma unroll
        for (int j = kPairs - 1; j >= 0; --j) {
          const unsigned m = matches(pair_of(values[u], j));
          pair = m != 0 ? u * kPairs + j : pair;
          mask = m != 0 ? m : mask;
        }
      }
    };
    if (__hisnan(target.x)) {
      scan([](Pair p) { return __hneu2_mask(p, p); });
    } else {
      scan([&](Pair p) { return __heq2_mask(p, target); });
    }
    return {to_float(target.x), 2 * pair + ((mask & 0xffffu) != 0 ? 0 : 1)};
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
  const std::int64_t stride = std::int64_t{threads} * E;  // elements between a step's vectors
  for (std::int64_t base = t; base < vectors; base += std::int64_t{threads} * kVectorsInFlight) {
    Vector values[kVectorsInFlight];
    int count = 0;  // the step's vectors inside the row: values[0, count)
#pragma unroll
    for (int u = 0; u < kVectorsInFlight; ++u) {
      const std::int64_t v = base + std::int64_t{u} * threads;
      if (v < vectors) {
        values[u].raw = __ldg(body + v);
        count = u + 1;
      }
    }
    acc = Op::fold_step(acc, values, count, head + base * E, stride);
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
