// embedding_bag: PyTorch's F.embedding_bag (aten::embedding_bag) for inference. Per bag, the
// sum, mean or max of the embedding rows its indices select. With offsets, bag b holds
// indices[offsets[b] : offsets[b + 1]] (the last bag runs to the end of indices, or with
// include_last_offset to offsets' last element, which is then no bag's start); without them,
// indices are 2-D and each row is a bag. per_sample_weights (mode "sum" only) scales each row;
// indices equal to padding_idx (negative: counted from the end, as in PyTorch) are skipped, and
// mean divides by the indices not skipped. An empty bag gives zeros. The schema is aten's minus
// its training-only arguments (scale_grad_by_freq, sparse), with mode a name, so that a
// converter maps each aten argument to one of ours. Out-of-range indices and offsets select
// nothing (PyTorch raises; a kernel cannot).
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include <optional>
#include <string_view>
#include <type_traits>

#include "../common/kernel_utils.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

enum class Mode { Sum, WeightedSum, Mean, Max };

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

// Where each bag's indices are: from offsets (`offset_count` of them; bag b ends where offset
// b + 1 starts, the last one at `count`), or, without offsets, `fixed` per bag.
template <typename I>
struct BagLayout {
  const I* offsets;  // null: bags of `fixed` indices
  std::int64_t offset_count;
  std::int64_t fixed;
};

// A warp per bag. The G lanes of a group cover a row's chunks (G = the row's chunks rounded up
// to a power of two, at most 32); the 32 / G groups take different indices of the bag, so that a
// warp has 32 / G x kRowsInFlight rows in flight (64 bytes per lane for 16-byte chunks), and
// combine with shuffles at the end. The bag's indices (and per-sample weights) are read once,
// coalesced, and passed around by shuffles. `padding` is a row index to skip, or -1.
template <typename T, typename I, int Bytes, Mode M>
__global__ void embedding_bag_kernel(const T* __restrict__ weight, const I* __restrict__ indices,
                                     BagLayout<I> layout, const T* __restrict__ per_sample_weights,
                                     T* __restrict__ out, std::int64_t rows, std::int64_t dim,
                                     std::int64_t count, std::int64_t bags, std::int64_t padding,
                                     int group_lanes) {
  using C = Chunk<T, Bytes>;
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  const int groups = kWarp / group_lanes;
  const int group = lane / group_lanes;
  const int group_lane = lane % group_lanes;
  const std::int64_t chunks = dim / C::kCount;  // per row
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * blockDim.x / kWarp;
  const auto clamp = [count](std::int64_t v) { return v < 0 ? 0 : (v > count ? count : v); };
  for (std::int64_t bag = global_thread_index() / kWarp; bag < bags; bag += warps) {
    std::int64_t begin = bag * layout.fixed;
    std::int64_t end = begin + layout.fixed;
    if (layout.offsets != nullptr) {
      // Offsets are data: clamp them, so that bad ones select nothing rather than fault.
      begin = clamp(layout.offsets[bag]);
      end = clamp(bag + 1 < layout.offset_count ? static_cast<std::int64_t>(layout.offsets[bag + 1])
                                                : count);
    }
    for (std::int64_t column = group_lane; column - group_lane < chunks; column += group_lanes) {
      const bool active = column < chunks;
      float acc[C::kCount];
#pragma unroll
      for (int k = 0; k < C::kCount; ++k) acc[k] = M == Mode::Max ? -INFINITY : 0.0f;
      int taken = 0;
      for (std::int64_t first = begin; first < end; first += kWarp) {
        std::int64_t mine = -1;  // lane l holds index first + l (and its weight)
        float mine_scale = 1.0f;
        if (first + lane < end) {
          mine = static_cast<std::int64_t>(indices[first + lane]);
          if constexpr (M == Mode::WeightedSum) {
            mine_scale = to_float(per_sample_weights[first + lane]);
          }
        }
        if (mine >= rows || mine == padding) mine = -1;  // skipped: padding and out of range
        const int here = static_cast<int>(end - first < kWarp ? end - first : kWarp);
        for (int j = 0; j < here; j += groups * kRowsInFlight) {
          C values[kRowsInFlight];
          bool valid[kRowsInFlight];
          float scale[kRowsInFlight];
#pragma unroll
          for (int u = 0; u < kRowsInFlight; ++u) {
            const int source = j + u * groups + group;
            const int from = source < kWarp ? source : 0;
            const std::int64_t row = __shfl_sync(0xffffffffu, mine, from);
            scale[u] = 1.0f;
            if constexpr (M == Mode::WeightedSum)
              scale[u] = __shfl_sync(0xffffffffu, mine_scale, from);
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
              if constexpr (M == Mode::Max) {
                acc[k] = fmaxf(acc[k], v);
              } else if constexpr (M == Mode::WeightedSum) {
                acc[k] = fmaf(scale[u], v, acc[k]);
              } else {
                acc[k] += v;
              }
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

Mode parse_mode(std::string_view name, bool weighted) {
  if (name == "mean") return Mode::Mean;
  if (name == "max") return Mode::Max;
  return weighted ? Mode::WeightedSum : Mode::Sum;
}

template <typename T, typename I, int Bytes>
void launch(const T* weight, const I* indices, BagLayout<I> layout, const T* per_sample_weights,
            T* out, std::int64_t rows, std::int64_t dim, std::int64_t count, std::int64_t bags,
            std::int64_t padding, Mode mode, cudaStream_t stream) {
  const std::int64_t chunks = dim / Chunk<T, Bytes>::kCount;
  int group_lanes = 1;
  while (group_lanes < kWarp && group_lanes < chunks) group_lanes *= 2;
  const unsigned int blocks = blocks_for(bags * kWarp);
  const auto go = [&]<Mode M>() {
    embedding_bag_kernel<T, I, Bytes, M>
        <<<blocks, kThreadsPerBlock, 0, stream>>>(weight, indices, layout, per_sample_weights, out,
                                                  rows, dim, count, bags, padding, group_lanes);
  };
  switch (mode) {
    case Mode::Sum:
      go.template operator()<Mode::Sum>();
      break;
    case Mode::WeightedSum:
      go.template operator()<Mode::WeightedSum>();
      break;
    case Mode::Mean:
      go.template operator()<Mode::Mean>();
      break;
    case Mode::Max:
      go.template operator()<Mode::Max>();
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
cudaError_t embedding_bag(ap::In<T> weight, ap::In<I> indices, ap::OptIn<I> offsets,
                          ap::OptIn<T> per_sample_weights, ap::Out<T> out, std::string_view mode,
                          bool /*include_last_offset: in out's extent*/,
                          std::optional<std::int64_t> padding_idx, cudaStream_t stream) {
  const std::int64_t bags = out.size(0);
  const std::int64_t rows = weight.size(0);
  const std::int64_t dim = weight.size(1);
  if (bags == 0 || dim == 0) return cudaSuccess;
  const BagLayout<I> layout = offsets.present() ? BagLayout<I>{offsets.data(), offsets.size(0), 0}
                                                : BagLayout<I>{nullptr, 0, indices.size(1)};
  // The shape function requires -rows <= padding_idx < rows; negative ones count from the end.
  const std::int64_t padding =
      padding_idx ? (*padding_idx < 0 ? *padding_idx + rows : *padding_idx) : -1;
  const Mode m = parse_mode(mode, per_sample_weights.present());
  // The widest chunk that every row start allows: 16 bytes when a row is a multiple of 16 bytes.
  const auto go = [&]<int Bytes>() {
    launch<T, I, Bytes>(weight.data(), indices.data(), layout, per_sample_weights.data(),
                        out.data(), rows, dim, indices.numel(), bags, padding, m, stream);
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

ap::Shape embedding_bag_shape(ap::Shape weight, ap::Shape indices, std::optional<ap::Shape> offsets,
                              std::string_view mode /*its name: checked by .validate*/,
                              std::optional<ap::Shape> per_sample_weights, bool include_last_offset,
                              std::optional<std::int64_t> padding_idx) {
  ap::require(weight.rank() == 2, "weight is 2-D");
  ap::Dim bags = 0;
  if (offsets) {
    ap::require(indices.rank() == 1 && offsets->rank() == 1,
                "with offsets, indices and offsets are 1-D");
    bags = (*offsets)[0];
    if (include_last_offset) {
      ap::require((*offsets)[0] >= 1,
                  "with include_last_offset, offsets holds at least the end of the last bag");
      bags = bags - 1;
    }
  } else {
    // As F.embedding_bag: each row a bag, include_last_offset does not apply.
    ap::require(indices.rank() == 2, "without offsets, indices are 2-D (each row a bag)");
    bags = indices[0];
  }
  if (per_sample_weights) {
    ap::require(mode == "sum", "per_sample_weights is only supported with mode \"sum\"");
    ap::require(per_sample_weights->rank() == indices.rank(),
                "per_sample_weights has the shape of indices");
    for (std::size_t k = 0; k < indices.rank() && k < per_sample_weights->rank(); ++k) {
      ap::require((*per_sample_weights)[k] == indices[k],
                  "per_sample_weights has the shape of indices");
    }
  }
  if (padding_idx) {
    ap::require(ap::Dim(0) - weight[0] <= *padding_idx && ap::Dim(*padding_idx) < weight[0],
                "padding_idx is within [-rows, rows) of weight");
  }
  return {bags, weight[1]};
}

AUTOPLUGIN_OP(
    "torchtrt_ex::embedding_bag(Tensor weight, Tensor indices, Tensor? offsets=None, "
    "str mode=\"sum\", Tensor? per_sample_weights=None, bool include_last_offset=False, "
    "int? padding_idx=None) -> Tensor",
    embedding_bag_shape, (embedding_bag<float, std::int64_t>),
    (embedding_bag<__half, std::int64_t>), (embedding_bag<__nv_bfloat16, std::int64_t>),
    (embedding_bag<float, std::int32_t>), (embedding_bag<__half, std::int32_t>),
    (embedding_bag<__nv_bfloat16, std::int32_t>))
    .example(ap::Example().rank("weight", 2).rank("indices", 1).rank("offsets", 1))
    .validate([](std::string_view mode, bool /*include_last_offset*/,
                 std::optional<std::int64_t> /*padding_idx: checked against weight's rows*/) {
      if (mode != "sum" && mode != "mean" && mode != "max") {
        throw std::invalid_argument("mode is \"sum\", \"mean\" or \"max\", not \"" +
                                    std::string(mode) + "\"");
      }
    });
