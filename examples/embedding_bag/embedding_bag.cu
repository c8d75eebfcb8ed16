// embedding_bag: per bag, the sum, mean or max of the embedding rows its indices select; bag b
// holds indices[offsets[b] : offsets[b + 1]] (the last bag runs to the end), as in PyTorch's
// F.embedding_bag. An empty bag gives zeros. The single-op graph break the RFC pulls into the
// engine. Out-of-range indices and offsets select nothing (PyTorch raises; a kernel cannot).
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include <string_view>

#include "../common/kernel_utils.cuh"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

enum class Mode { Sum, Mean, Max };

// One block per bag (grid-stride over bags), threads over the embedding dimension, so that each
// selected row is read with coalesced loads.
template <typename T, typename I>
__global__ void embedding_bag_kernel(const T* __restrict__ weight, const I* __restrict__ indices,
                                     const I* __restrict__ offsets, T* __restrict__ out,
                                     std::int64_t rows, std::int64_t dim, std::int64_t count,
                                     std::int64_t bags, Mode mode) {
  for (std::int64_t bag = blockIdx.x; bag < bags; bag += gridDim.x) {
    // Offsets are data: clamp them, so that bad ones select nothing rather than fault.
    const auto clamp = [count](std::int64_t v) { return v < 0 ? 0 : (v > count ? count : v); };
    const std::int64_t begin = clamp(offsets[bag]);
    const std::int64_t end =
        clamp(bag + 1 < bags ? static_cast<std::int64_t>(offsets[bag + 1]) : count);
    for (std::int64_t c = threadIdx.x; c < dim; c += blockDim.x) {
      float acc = mode == Mode::Max ? -INFINITY : 0.0f;
      std::int64_t taken = 0;
      for (std::int64_t k = begin; k < end; ++k) {
        const std::int64_t row = indices[k];
        if (row < 0 || row >= rows) continue;  // out-of-range indices select nothing
        const float v = to_float(weight[row * dim + c]);
        acc = mode == Mode::Max ? fmaxf(acc, v) : acc + v;
        ++taken;
      }
      if (taken == 0) acc = 0.0f;
      if (mode == Mode::Mean && taken > 0) acc /= static_cast<float>(taken);
      out[bag * dim + c] = from_float<T>(acc);
    }
  }
}

Mode parse_mode(std::string_view name) {
  return name == "mean" ? Mode::Mean : name == "max" ? Mode::Max : Mode::Sum;
}

}  // namespace

template <typename T, typename I>
cudaError_t embedding_bag(ap::In<T> weight, ap::In<I> indices, ap::In<I> offsets, ap::Out<T> out,
                          std::string_view mode, cudaStream_t stream) {
  const std::int64_t bags = offsets.size(0);
  if (bags == 0 || weight.size(1) == 0) return cudaSuccess;
  embedding_bag_kernel<<<capped_blocks(bags), 128, 0, stream>>>(
      weight.data(), indices.data(), offsets.data(), out.data(), weight.size(0), weight.size(1),
      indices.size(0), bags, parse_mode(mode));
  return cudaGetLastError();
}

ap::Shape embedding_bag_shape(ap::Shape weight, ap::Shape indices, ap::Shape offsets,
                              std::string_view mode) {
  ap::require(mode == "sum" || mode == "mean" || mode == "max", "mode is sum, mean or max");
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
    .example(ap::Example().rank("weight", 2).rank("indices", 1).rank("offsets", 1));
