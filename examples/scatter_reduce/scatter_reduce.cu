// scatter_reduce: PyTorch's Tensor.scatter_reduce (and scatter_add, which is reduce "sum" with
// include_self): out = self, then every element of src is combined into out at its own
// coordinates, except along `dim`, where index gives the position. reduce is "sum", "prod",
// "mean", "amax" or "amin"; with include_self false, the positions that receive values ignore
// self (the others keep it); "mean" divides by the number of values received, plus one with
// include_self, flooring for integer dtypes. NaN propagates through amax and amin. Shapes follow
// PyTorch's rule: index.size(d) <= src.size(d) for every d, index.size(d) <= self.size(d) for
// d != dim. Out-of-range index values (negative or >= self.size(dim)) are skipped: PyTorch
// raises; a kernel cannot. The aten ops aten.scatter_reduce.two and aten.scatter_add.default
// come here through the Torch-TensorRT converter in python/autoplugin/aten_scatter.py.
//
// Each index element is combined with a native atomic: atomicAdd for sum and mean (16-bit types
// included), atomicMax/atomicMin for amax and amin of 32- and 64-bit integers and of float32 (on
// its bits: non-negative floats order as signed integers, negative ones in reverse as unsigned
// ones; NaN as the pattern that wins, self's NaNs made so as self is copied), and a
// compare-and-swap loop for prod and the other amax and amin that skips the atomic when the value
// would not change. Float sums therefore depend on the order the atomics land in, as PyTorch's
// do: they are not bitwise reproducible from run to run.
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <limits>
#include <string_view>
#include <type_traits>

#include "../common/index_math.h"
#include "../common/kernel_utils.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

// Assign is the pass that writes the reduction's identity at every position that receives a
// value (include_self false), before the values are combined.
enum class Reduce { Sum, Prod, Mean, Amax, Amin, Assign };

template <>
struct autoplugin::AttrBinding<Reduce> {
  using schema_type = std::string_view;
  static constexpr std::string_view name = "Reduce";
  static Reduce decode(std::string_view text) {
    if (text == "sum") return Reduce::Sum;
    if (text == "prod") return Reduce::Prod;
    if (text == "mean") return Reduce::Mean;
    if (text == "amax") return Reduce::Amax;
    if (text == "amin") return Reduce::Amin;
    throw std::invalid_argument(
        "reduce is \"sum\", \"prod\", \"mean\", \"amax\" or \"amin\", not \"" + std::string(text) +
        "\"");
  }
};

namespace {

constexpr int kMaxRank = 8;
constexpr int kVector = 4;  // elements per thread on the fast path

// The unsigned integer of T's size, for compare-and-swap.
template <typename T>
using BitsOf =
    std::conditional_t<sizeof(T) == 2, unsigned short,
                       std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>>;

template <typename T>
__device__ inline BitsOf<T> to_bits(T v) {
  BitsOf<T> bits;
  memcpy(&bits, &v, sizeof(T));
  return bits;
}
template <typename T>
__device__ inline T from_bits(BitsOf<T> bits) {
  T v;
  memcpy(&v, &bits, sizeof(T));
  return v;
}

template <typename T>
__device__ inline bool is_nan(T v) {
  if constexpr (std::is_integral_v<T>) {
    return false;
  } else {
    return isnan(to_float(v));
  }
}

template <typename T>
__device__ inline T multiply(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;  // wraps as PyTorch's integer product does, without UB
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else if constexpr (std::is_same_v<T, float>) {
    return a * b;
  } else {
    return from_float<T>(to_float(a) * to_float(b));
  }
}

template <typename T>
__device__ inline bool less(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return a < b;
  } else {
    return to_float(a) < to_float(b);
  }
}

// current combined with v for prod, amax and amin; a NaN on either side wins.
template <typename T>
__device__ inline T combine(Reduce reduce, T current, T v) {
  if (reduce == Reduce::Prod) return multiply(current, v);
  if (is_nan(current)) return current;
  if (is_nan(v)) return v;
  if (reduce == Reduce::Amax) return less(current, v) ? v : current;
  return less(v, current) ? v : current;
}

template <typename T>
__device__ inline void atomic_add(T* target, T v) {
  if constexpr (std::is_same_v<T, std::int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(target), static_cast<unsigned long long>(v));
  } else {
    atomicAdd(target, v);
  }
}

// A compare-and-swap loop, from a read that bypasses L1 (amax and amin only move one way, so a
// value that would not change the stored one needs no atomic at all).
template <typename T>
__device__ inline void atomic_combine(Reduce reduce, T* target, T v) {
  using Bits = BitsOf<T>;
  Bits* word = reinterpret_cast<Bits*>(target);
  Bits seen = *reinterpret_cast<volatile Bits*>(word);
  while (true) {
    const Bits next = to_bits(combine(reduce, from_bits<T>(seen), v));
    if (next == seen) return;
    const Bits before = atomicCAS(word, seen, next);
    if (before == seen) return;
    seen = before;
  }
}

// amax and amin without a read or a compare-and-swap, where the GPU has the atomic: integers
// directly, float32 on its bits. For amax a non-negative float (sign bit clear) is larger the
// larger its bits as a signed integer, a negative one the smaller its bits as an unsigned one;
// mixed signs order the same way (a negative float's bits are a negative signed integer and a
// larger unsigned one). NaN becomes 0x7fffffff (the largest signed pattern) for amax and
// 0xffffffff (the largest unsigned one) for amin, so that it wins whatever else lands.
template <typename T>
constexpr bool kNativeMinMax = std::is_same_v<T, float> || std::is_same_v<T, int> ||
                               std::is_same_v<T, long long> || std::is_same_v<T, long>;

constexpr unsigned int kAmaxNan = 0x7fffffffu;
constexpr unsigned int kAminNan = 0xffffffffu;

template <typename T>
__device__ inline void atomic_min_max(Reduce reduce, T* target, T v) {
  if constexpr (std::is_same_v<T, float>) {
    const unsigned int bits = __float_as_uint(v);
    const bool negative = (bits >> 31) != 0;
    if (reduce == Reduce::Amax) {
      if (v != v) {
        atomicMax(reinterpret_cast<int*>(target), static_cast<int>(kAmaxNan));
      } else if (!negative) {
        atomicMax(reinterpret_cast<int*>(target), static_cast<int>(bits));
      } else {
        atomicMin(reinterpret_cast<unsigned int*>(target), bits);
      }
    } else {
      if (v != v) {
        atomicMax(reinterpret_cast<unsigned int*>(target), kAminNan);
      } else if (!negative) {
        atomicMin(reinterpret_cast<int*>(target), static_cast<int>(bits));
      } else {
        atomicMax(reinterpret_cast<unsigned int*>(target), bits);
      }
    }
  } else if constexpr (sizeof(T) == 8) {
    auto* word = reinterpret_cast<long long*>(target);
    const auto value = static_cast<long long>(v);
    reduce == Reduce::Amax ? atomicMax(word, value) : atomicMin(word, value);
  } else {
    reduce == Reduce::Amax ? atomicMax(target, v) : atomicMin(target, v);
  }
}

// Combines v into out[at] (mean also counts it in counts[at]).
template <typename T, typename Index>
__device__ inline void apply(Reduce reduce, T* out, Index at, T v, int* counts) {
  switch (reduce) {
    case Reduce::Assign:
      out[at] = v;  // the identity; every writer writes the same value
      break;
    case Reduce::Mean:
      atomicAdd(counts + at, 1);
      atomic_add(out + at, v);
      break;
    case Reduce::Sum:
      atomic_add(out + at, v);
      break;
    case Reduce::Amax:
    case Reduce::Amin:
      if constexpr (kNativeMinMax<T>) {
        atomic_min_max(reduce, out + at, v);
      } else {
        atomic_combine(reduce, out + at, v);
      }
      break;
    default:
      atomic_combine(reduce, out + at, v);
  }
}

// Sum of four values that land in four consecutive positions: one vector atomic where the GPU
// has one (Hopper: float4; pairs of 16-bit values since Volta/Ampere).
template <typename T>
__device__ inline void atomic_add4(T* target, const T (&v)[kVector]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (std::is_same_v<T, float>) {
    atomicAdd(reinterpret_cast<float4*>(target), make_float4(v[0], v[1], v[2], v[3]));
    return;
  }
#endif
  if constexpr (std::is_same_v<T, __half>) {
    atomicAdd(reinterpret_cast<__half2*>(target), __halves2half2(v[0], v[1]));
    atomicAdd(reinterpret_cast<__half2*>(target) + 1, __halves2half2(v[2], v[3]));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    atomicAdd(reinterpret_cast<__nv_bfloat162*>(target), __halves2bfloat162(v[0], v[1]));
    atomicAdd(reinterpret_cast<__nv_bfloat162*>(target) + 1, __halves2bfloat162(v[2], v[3]));
  } else {
#pragma unroll
    for (int k = 0; k < kVector; ++k) atomic_add(target + k, v[k]);
  }
}

// The vector type of four T (16 or 8 bytes), where there is one. Loads and stores go through it
// by value: a memcpy to or from global memory compiles to byte accesses (the cast does not tell
// the compiler the alignment).
template <typename T>
using Vector4 = std::conditional_t<sizeof(T) * kVector == 16, uint4,
                                   std::conditional_t<sizeof(T) * kVector == 8, uint2, void>>;

// Four consecutive values loaded at once (from aligned to four elements).
template <typename T>
__device__ inline void load4(const T* from, T (&v)[kVector]) {
  if constexpr (std::is_void_v<Vector4<T>>) {
#pragma unroll
    for (int k = 0; k < kVector; ++k) v[k] = from[k];
  } else {
    const Vector4<T> raw = *reinterpret_cast<const Vector4<T>*>(from);
    memcpy(v, &raw, sizeof(v));
  }
}

// Four consecutive values stored at once (target aligned to four elements).
template <typename T>
__device__ inline void store4(T* target, const T (&v)[kVector]) {
  if constexpr (std::is_void_v<Vector4<T>>) {
#pragma unroll
    for (int k = 0; k < kVector; ++k) target[k] = v[k];
  } else {
    Vector4<T> raw;
    memcpy(&raw, v, sizeof(v));
    *reinterpret_cast<Vector4<T>*>(target) = raw;
  }
}

// Four consecutive counts (aligned to four) each raised by one, in two 64-bit atomics: a count is
// a non-negative int, below 2^31, so the low count's add never carries into the high one.
__device__ inline void count4(int* counts) {
  constexpr unsigned long long kOneEach = 0x0000000100000001ull;
  auto* pairs = reinterpret_cast<unsigned long long*>(counts);
  atomicAdd(pairs, kOneEach);
  atomicAdd(pairs + 1, kOneEach);
}

// What each pass needs: the reduce (or Assign with the identity as `fill`), and mean's counts.
template <typename T>
struct Pass {
  Reduce reduce;
  T fill;
  int* counts;
};

// The common layout: every dimension but `dim` has the same extent in self, index and src, so
// the tensors are (outer, extent along dim, inner) blocks: index (O, Ni, C), src (O, Ns, C),
// out (O, M, C). kVector consecutive elements of a row per thread when C allows it.
template <typename Index>
struct Blocks {
  Index total;      // index elements
  Index index_dim;  // Ni
  Index src_dim;    // Ns
  Index out_dim;    // M
  Index inner;      // C
  FastDivisor by_inner, by_index_dim;
};

template <typename Index>
__device__ inline void locate(const Blocks<Index>& b, Index e, Index& src_base, Index& out_base) {
  const Index row = b.by_inner.divide(e);
  const Index c = e - row * b.inner;
  const Index outer = b.by_index_dim.divide(row);
  const Index i = row - outer * b.index_dim;
  src_base = (outer * b.src_dim + i) * b.inner + c;
  out_base = outer * b.out_dim * b.inner + c;
}

template <typename T, typename I, typename Index>
__global__ void blocks_kernel(const I* __restrict__ index, const T* __restrict__ src,
                              T* __restrict__ out, Blocks<Index> b, Pass<T> pass) {
  for (Index e = static_cast<Index>(global_thread_index()); e < b.total;
       e += static_cast<Index>(grid_stride())) {
    Index src_at, out_at;
    locate(b, e, src_at, out_at);
    const auto position = static_cast<std::int64_t>(index[e]);
    if (position < 0 || position >= b.out_dim) continue;  // out of range: skipped
    const Index target = out_at + static_cast<Index>(position) * b.inner;
    apply(pass.reduce, out, target, pass.reduce == Reduce::Assign ? pass.fill : src[src_at],
          pass.counts);
  }
}

// kVector elements per thread; C, and the tensors' starts, are multiples of kVector elements.
template <typename T, typename I, typename Index>
__global__ void blocks_vector_kernel(const I* __restrict__ index, const T* __restrict__ src,
                                     T* __restrict__ out, Blocks<Index> b, Pass<T> pass) {
  const Index vectors = b.total / kVector;
  for (Index v = static_cast<Index>(global_thread_index()); v < vectors;
       v += static_cast<Index>(grid_stride())) {
    const Index e = v * kVector;
    Index src_at, out_at;
    locate(b, e, src_at, out_at);
    std::int64_t position[kVector];
    if constexpr (sizeof(I) == 8) {
      const longlong2 low = reinterpret_cast<const longlong2*>(index)[2 * v];
      const longlong2 high = reinterpret_cast<const longlong2*>(index)[2 * v + 1];
      position[0] = low.x, position[1] = low.y, position[2] = high.x, position[3] = high.y;
    } else {
      const int4 p = reinterpret_cast<const int4*>(index)[v];
      position[0] = p.x, position[1] = p.y, position[2] = p.z, position[3] = p.w;
    }
    T values[kVector];
    if (pass.reduce == Reduce::Assign) {
#pragma unroll
      for (int k = 0; k < kVector; ++k) values[k] = pass.fill;
    } else {
      load4(src + src_at, values);
    }
    const bool together = position[0] == position[1] && position[0] == position[2] &&
                          position[0] == position[3] && position[0] >= 0 && position[0] < b.out_dim;
    if (together) {
      // The expanded 1-D index of GNN aggregation and MoE combine: one vector store or atomic.
      const Index target = out_at + static_cast<Index>(position[0]) * b.inner;
      if (pass.reduce == Reduce::Assign) {
        store4(out + target, values);
        continue;
      }
      atomic_add4(out + target, values);
      if (pass.reduce == Reduce::Mean) count4(pass.counts + target);
      continue;
    }
#pragma unroll
    for (int k = 0; k < kVector; ++k) {
      if (position[k] < 0 || position[k] >= b.out_dim) continue;
      const Index target = out_at + static_cast<Index>(position[k]) * b.inner + k;
      apply(pass.reduce, out, target, values[k], pass.counts);
    }
  }
}

// Two values that land in consecutive positions of one row, combined with one compare-and-swap
// of twice their width (the lower address in the low bits): half the atomics of one element per
// thread, while a warp's atomics still cover consecutive bytes.
template <typename T>
using PairBits = std::conditional_t<sizeof(T) == 2, unsigned int, unsigned long long>;

template <typename T>
__device__ inline void atomic_combine_pair(Reduce reduce, T* target, T low, T high) {
  using Bits = PairBits<T>;
  constexpr int kShift = 8 * sizeof(T);
  Bits* word = reinterpret_cast<Bits*>(target);
  Bits seen = *reinterpret_cast<volatile Bits*>(word);
  while (true) {
    const T seen_low = from_bits<T>(static_cast<BitsOf<T>>(seen));
    const T seen_high = from_bits<T>(static_cast<BitsOf<T>>(seen >> kShift));
    const Bits next = static_cast<Bits>(to_bits(combine(reduce, seen_low, low))) |
                      (static_cast<Bits>(to_bits(combine(reduce, seen_high, high))) << kShift);
    if (next == seen) return;
    const Bits before = atomicCAS(word, seen, next);
    if (before == seen) return;
    seen = before;
  }
}

// Two consecutive values loaded at once (from aligned to two elements; T of 2 or 4 bytes).
template <typename T>
__device__ inline void load2(const T* from, T (&v)[2]) {
  using Raw = std::conditional_t<sizeof(T) == 2, unsigned int, uint2>;
  const Raw raw = *reinterpret_cast<const Raw*>(from);
  memcpy(v, &raw, sizeof(v));
}

// Two elements per thread for the compare-and-swap reductions; C, and the tensors' starts, are
// multiples of two elements.
template <typename T, typename I, typename Index>
__global__ void blocks_pair_kernel(const I* __restrict__ index, const T* __restrict__ src,
                                   T* __restrict__ out, Blocks<Index> b, Pass<T> pass) {
  const Index pairs = b.total / 2;
  for (Index p = static_cast<Index>(global_thread_index()); p < pairs;
       p += static_cast<Index>(grid_stride())) {
    const Index e = p * 2;
    Index src_at, out_at;
    locate(b, e, src_at, out_at);
    std::int64_t position[2];
    if constexpr (sizeof(I) == 8) {
      const longlong2 q = reinterpret_cast<const longlong2*>(index)[p];
      position[0] = q.x, position[1] = q.y;
    } else {
      const int2 q = reinterpret_cast<const int2*>(index)[p];
      position[0] = q.x, position[1] = q.y;
    }
    T values[2];
    load2(src + src_at, values);
    if (position[0] == position[1] && position[0] >= 0 && position[0] < b.out_dim) {
      const Index target = out_at + static_cast<Index>(position[0]) * b.inner;
      atomic_combine_pair(pass.reduce, out + target, values[0], values[1]);
      continue;
    }
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      if (position[k] < 0 || position[k] >= b.out_dim) continue;
      const Index target = out_at + static_cast<Index>(position[k]) * b.inner + k;
      apply(pass.reduce, out, target, values[k], pass.counts);
    }
  }
}

// Any layout: each index element's coordinates, decoded from the index's extents.
struct Strides {
  int rank;
  int dim;
  std::int64_t total;
  std::int64_t out_dim;
  std::int64_t index_extent[kMaxRank];
  std::int64_t src_stride[kMaxRank];
  std::int64_t out_stride[kMaxRank];
};

template <typename T, typename I>
__global__ void strided_kernel(const I* __restrict__ index, const T* __restrict__ src,
                               T* __restrict__ out, Strides s, Pass<T> pass) {
  for (std::int64_t e = global_thread_index(); e < s.total; e += grid_stride()) {
    const auto position = static_cast<std::int64_t>(index[e]);
    if (position < 0 || position >= s.out_dim) continue;
    std::int64_t rest = e, src_at = 0, out_at = 0;
    for (int d = s.rank - 1; d >= 0; --d) {
      const std::int64_t coordinate = rest % s.index_extent[d];
      rest /= s.index_extent[d];
      src_at += coordinate * s.src_stride[d];
      out_at += (d == s.dim ? position : coordinate) * s.out_stride[d];
    }
    apply(pass.reduce, out, out_at, pass.reduce == Reduce::Assign ? pass.fill : src[src_at],
          pass.counts);
  }
}

template <typename T>
__device__ inline T divide(T sum, int count) {
  if constexpr (std::is_integral_v<T>) {
    T q = sum / count;
    if ((sum % count != 0) && (sum < 0)) --q;  // floor, as PyTorch's integer mean
    return q;
  } else if constexpr (std::is_same_v<T, float>) {
    return sum / static_cast<float>(count);
  } else {
    return from_float<T>(to_float(sum) / static_cast<float>(count));
  }
}

// self copied into out for float32 amax or amin: its NaNs as the pattern that wins (kAmaxNan,
// kAminNan), which the native atomics would otherwise replace.
__global__ void copy_nan_winning(const float* __restrict__ self, float* __restrict__ out,
                                 std::int64_t n, unsigned int nan_bits) {
  for (std::int64_t p = global_thread_index(); p < n; p += grid_stride()) {
    const float v = self[p];
    out[p] = v != v ? __uint_as_float(nan_bits) : v;
  }
}

// mean: positions that received values divide by their count (plus self's, with include_self).
template <typename T>
__global__ void mean_kernel(T* __restrict__ out, const int* __restrict__ counts, std::int64_t n,
                            int self_counts) {
  for (std::int64_t p = global_thread_index(); p < n; p += grid_stride()) {
    const int count = counts[p];
    if (count > 0) out[p] = divide(out[p], count + self_counts);
  }
}

template <typename T>
T identity(Reduce reduce) {
  using Limits = std::numeric_limits<std::conditional_t<std::is_integral_v<T>, T, float>>;
  float value = 0.0f;
  if (reduce == Reduce::Prod) value = 1.0f;
  if constexpr (std::is_integral_v<T>) {
    if (reduce == Reduce::Amax) return Limits::lowest();
    if (reduce == Reduce::Amin) return Limits::max();
    return static_cast<T>(value);
  } else {
    if (reduce == Reduce::Amax) value = -Limits::infinity();
    if (reduce == Reduce::Amin) value = Limits::infinity();
    if constexpr (std::is_same_v<T, float>) {
      return value;
    } else if constexpr (std::is_same_v<T, __half>) {
      return __float2half_rn(value);
    } else {
      return __float2bfloat16_rn(value);
    }
  }
}

bool aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// Four elements per thread pay off where four that land together take one vector store or
// atomic (the identity's stores, sum and mean). The compare-and-swap reductions (prod; amax and
// amin of 16-bit types) take two per thread, two that land together in one compare-and-swap of
// twice the width: with four, each warp's atomics would land 16 bytes apart, four times the L2
// requests of one element per thread (measured: 0.65x PyTorch for amax, 0.52x for prod).
template <typename T, typename I, typename Index>
void launch_blocks(const I* index, const T* src, T* out, const Blocks<Index>& b, Pass<T> pass,
                   cudaStream_t stream) {
  const bool vector_reduce =
      pass.reduce == Reduce::Assign || pass.reduce == Reduce::Sum || pass.reduce == Reduce::Mean;
  const bool vector = vector_reduce && b.inner % kVector == 0 && aligned(index) && aligned(src) &&
                      aligned(out) && (pass.counts == nullptr || aligned(pass.counts));
  if (vector) {
    blocks_vector_kernel<T, I, Index>
        <<<blocks_for(b.total / kVector), kThreadsPerBlock, 0, stream>>>(index, src, out, b, pass);
    return;
  }
  if constexpr (sizeof(T) <= 4) {
    const bool pair_reduce =
        pass.reduce == Reduce::Prod ||
        (!kNativeMinMax<T> && (pass.reduce == Reduce::Amax || pass.reduce == Reduce::Amin));
    if (pair_reduce && b.inner % 2 == 0 && aligned(index) && aligned(src) && aligned(out)) {
      blocks_pair_kernel<T, I, Index>
          <<<blocks_for(b.total / 2), kThreadsPerBlock, 0, stream>>>(index, src, out, b, pass);
      return;
    }
  }
  blocks_kernel<T, I, Index>
      <<<blocks_for(b.total), kThreadsPerBlock, 0, stream>>>(index, src, out, b, pass);
}

// One pass over the index elements, on the blocks layout when the extents allow it.
template <typename T, typename I>
void launch_pass(const ap::In<T>& self, const ap::In<I>& index, const ap::In<T>& src, T* out,
                 int dim, Pass<T> pass, cudaStream_t stream) {
  const int rank = std::max(1, self.rank());
  const auto extent = [](const auto& t, int d) { return t.rank() == 0 ? 1 : t.size(d); };
  bool blocks = true;
  std::int64_t outer = 1, inner = 1;
  for (int d = 0; d < rank; ++d) {
    if (d == dim) continue;
    blocks = blocks && extent(index, d) == extent(self, d) && extent(src, d) == extent(self, d);
    (d < dim ? outer : inner) *= extent(self, d);
  }
  const std::int64_t total = index.numel();
  const std::int64_t largest = std::max({total, src.numel(), self.numel()});
  if (blocks && largest < (std::int64_t{1} << 31)) {
    Blocks<std::int32_t> b{static_cast<std::int32_t>(total),
                           static_cast<std::int32_t>(extent(index, dim)),
                           static_cast<std::int32_t>(extent(src, dim)),
                           static_cast<std::int32_t>(extent(self, dim)),
                           static_cast<std::int32_t>(inner),
                           FastDivisor(inner),
                           FastDivisor(extent(index, dim))};
    launch_blocks(index.data(), src.data(), out, b, pass, stream);
  } else if (blocks) {
    Blocks<std::int64_t> b{total,
                           extent(index, dim),
                           extent(src, dim),
                           extent(self, dim),
                           inner,
                           FastDivisor(inner),
                           FastDivisor(extent(index, dim))};
    launch_blocks(index.data(), src.data(), out, b, pass, stream);
  } else {
    Strides s{};
    s.rank = rank;
    s.dim = dim;
    s.total = total;
    s.out_dim = extent(self, dim);
    std::int64_t src_stride = 1, out_stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      s.index_extent[d] = extent(index, d);
      s.src_stride[d] = src_stride;
      s.out_stride[d] = out_stride;
      src_stride *= extent(src, d);
      out_stride *= extent(self, d);
    }
    strided_kernel<T, I><<<blocks_for(total), kThreadsPerBlock, 0, stream>>>(
        index.data(), src.data(), out, s, pass);
  }
}

}  // namespace

template <typename T, typename I>
cudaError_t scatter_reduce(ap::In<T> self, ap::In<I> index, ap::In<T> src, ap::Out<T> out,
                           std::int64_t dim, Reduce reduce, bool include_self,
                           ap::Workspace scratch, cudaStream_t stream) {
  const std::int64_t n = self.numel();
  if (n == 0) return cudaSuccess;
  cudaError_t status = cudaSuccess;
  if (std::is_same_v<T, float> && (reduce == Reduce::Amax || reduce == Reduce::Amin)) {
    copy_nan_winning<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(
        reinterpret_cast<const float*>(self.data()), reinterpret_cast<float*>(out.data()), n,
        reduce == Reduce::Amax ? kAmaxNan : kAminNan);
    status = cudaGetLastError();
  } else {
    status =
        cudaMemcpyAsync(out.data(), self.data(), n * sizeof(T), cudaMemcpyDeviceToDevice, stream);
  }
  if (status != cudaSuccess || index.numel() == 0) return status;
  const int rank = std::max(1, self.rank());
  const int axis = static_cast<int>(dim < 0 ? dim + rank : dim);
  int* counts = nullptr;
  if (reduce == Reduce::Mean) {
    if (scratch.size < n * sizeof(int)) return cudaErrorInvalidValue;
    counts = static_cast<int*>(scratch.data);
    status = cudaMemsetAsync(counts, 0, n * sizeof(int), stream);
    if (status != cudaSuccess) return status;
  }
  if (!include_self) {
    launch_pass(self, index, src, out.data(), axis,
                Pass<T>{Reduce::Assign, identity<T>(reduce), counts}, stream);
  }
  launch_pass(self, index, src, out.data(), axis, Pass<T>{reduce, T{}, counts}, stream);
  if (reduce == Reduce::Mean) {
    mean_kernel<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(out.data(), counts, n,
                                                                include_self ? 1 : 0);
  }
  return cudaGetLastError();
}

ap::Shape scatter_reduce_shape(ap::Shape self, std::int64_t dim, ap::Shape index, ap::Shape src,
                               Reduce /*reduce*/, bool /*include_self*/) {
  ap::require(index.rank() == self.rank() && src.rank() == self.rank(),
              "self, index and src have the same number of dimensions");
  ap::require(self.rank() <= kMaxRank, "self has at most 8 dimensions");
  const auto rank = static_cast<std::int64_t>(std::max<std::size_t>(1, self.rank()));
  ap::require(dim >= -rank && dim < rank, "dim is in [-rank, rank) (rank 1 for a 0-d self)");
  const std::int64_t axis = dim < 0 ? dim + rank : dim;
  for (std::size_t d = 0; d < self.rank(); ++d) {
    ap::require(index[d] <= src[d], "index.size(d) <= src.size(d) for every d");
    if (static_cast<std::int64_t>(d) != axis) {
      ap::require(index[d] <= self[d], "index.size(d) <= self.size(d) for every d != dim");
    }
  }
  return self;
}

// mean counts the values each position receives.
ap::Dim scatter_reduce_workspace(ap::Shape self, std::int64_t /*dim*/, ap::Shape /*index*/,
                                 ap::Shape /*src*/, Reduce reduce, bool /*include_self*/) {
  return reduce == Reduce::Mean ? self.numel() * static_cast<std::int64_t>(sizeof(int))
                                : ap::Dim(0);
}

AUTOPLUGIN_OP(
    "torchtrt_ex::scatter_reduce(Tensor self, int dim, Tensor index, Tensor src, str reduce, "
    "bool include_self=True) -> Tensor",
    scatter_reduce_shape, (scatter_reduce<float, std::int64_t>),
    (scatter_reduce<__half, std::int64_t>), (scatter_reduce<__nv_bfloat16, std::int64_t>),
    (scatter_reduce<std::int32_t, std::int64_t>), (scatter_reduce<std::int64_t, std::int64_t>),
    (scatter_reduce<float, std::int32_t>), (scatter_reduce<__half, std::int32_t>),
    (scatter_reduce<__nv_bfloat16, std::int32_t>), (scatter_reduce<std::int32_t, std::int32_t>),
    (scatter_reduce<std::int64_t, std::int32_t>))
    .workspace(scatter_reduce_workspace)
    .example(ap::Example()
                 .rank("self", 2)
                 .rank("index", 2)
                 .rank("src", 2)
                 .attr("dim", std::int64_t{0})
                 .attr("reduce", std::string("sum")));
