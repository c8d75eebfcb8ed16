// Ops with the bundled examples' schemas, attribute types and workspace, in plain C++ with host
// launchers that do nothing: the examples' own declarations are CUDA sources, which a clang
// sanitizer or fuzzing build does not compile. Their creators, fields and plugins are the same
// adapter code paths; only the kernels differ. Used by the fuzzers and the concurrency test.
#include "example_like_ops.h"

#include <autoplugin/autoplugin.h>

#include <optional>
#include <stdexcept>
#include <string>

namespace ap = autoplugin;

namespace example_like {
enum class Rounding { None, Floor, Nearest };
}  // namespace example_like

// As in examples/scale_shift: a string attribute decoded into an enum, refused when unknown.
template <>
struct autoplugin::AttrBinding<example_like::Rounding> {
  using schema_type = std::string_view;
  static constexpr std::string_view name = "Rounding";
  static example_like::Rounding decode(std::string_view text) {
    if (text == "none") return example_like::Rounding::None;
    if (text == "floor") return example_like::Rounding::Floor;
    if (text == "nearest") return example_like::Rounding::Nearest;
    throw std::invalid_argument("rounding is \"none\", \"floor\" or \"nearest\", not \"" +
                                std::string(text) + "\"");
  }
};

namespace example_like {
namespace {

ap::Shape same_shape(ap::Shape x) { return x; }

template <typename T>
int gelu_tanh(ap::In<T>, ap::Out<T>, ap::Stream) {
  return 0;
}
AUTOPLUGIN_OP("example_like::gelu_tanh(Tensor x) -> Tensor", same_shape, gelu_tanh<float>,
              gelu_tanh<std::int32_t>);

template <typename T>
int scale_shift(ap::In<T>, ap::Out<T>, float, std::int32_t, bool, Rounding, ap::Stream) {
  return 0;
}
ap::Shape scale_shift_shape(ap::Shape x, double, std::int64_t, bool, Rounding) { return x; }
AUTOPLUGIN_OP(
    "example_like::scale_shift(Tensor x, float scale=1.0, int shift=0, bool relu=False, "
    "str rounding=\"none\") -> Tensor",
    scale_shift_shape, scale_shift<float>, scale_shift<std::int32_t>);

template <typename T>
int circular_pad(ap::In<T>, ap::Out<T>, std::span<const std::int64_t>, ap::Stream) {
  return 0;
}
ap::Shape circular_pad_shape(ap::Shape x, std::span<const std::int64_t> padding) {
  ap::require(padding.size() % 2 == 0 && padding.size() / 2 <= x.rank(),
              "padding has a (before, after) pair per padded dimension");
  for (std::size_t i = 0; i < padding.size() / 2; ++i) {
    ap::Dim& extent = x[x.rank() - 1 - i];
    ap::require(padding[2 * i] <= extent && padding[2 * i + 1] <= extent,
                "padding wraps at most once");
    extent += padding[2 * i] + padding[2 * i + 1];
  }
  return x;
}
AUTOPLUGIN_OP("example_like::circular_pad(Tensor x, int[] padding) -> Tensor", circular_pad_shape,
              circular_pad<float>, circular_pad<std::int32_t>)
    .example(ap::Example().rank("x", 4).attr("padding", ap::IntList{1, 1, 2, 2}));

template <typename T, typename Index>
int embedding_bag(ap::In<T>, ap::In<Index>, ap::OptIn<Index>, ap::OptIn<T>, ap::Out<T>,
                  std::string_view, bool, std::optional<std::int64_t>, ap::Stream) {
  return 0;
}
ap::Shape embedding_bag_shape(ap::Shape weight, ap::Shape indices, std::optional<ap::Shape> offsets,
                              std::string_view /*mode: checked by .validate*/,
                              std::optional<ap::Shape> /*per_sample_weights*/,
                              bool include_last_offset, std::optional<std::int64_t>) {
  ap::require(weight.rank() == 2, "weight is 2-D");
  if (!offsets) {
    ap::require(indices.rank() == 2, "without offsets, indices are 2-D (each row a bag)");
    return {indices[0], weight[1]};
  }
  ap::require(indices.rank() == 1 && offsets->rank() == 1,
              "with offsets, indices and offsets are 1-D");
  return {include_last_offset ? (*offsets)[0] - 1 : (*offsets)[0], weight[1]};
}
AUTOPLUGIN_OP(
    "example_like::embedding_bag(Tensor weight, Tensor indices, Tensor? offsets=None, "
    "str mode=\"sum\", Tensor? per_sample_weights=None, bool include_last_offset=False, "
    "int? padding_idx=None) -> Tensor",
    embedding_bag_shape, (embedding_bag<float, std::int64_t>), (embedding_bag<float, std::int32_t>))
    .validate([](std::string_view mode, bool, std::optional<std::int64_t>) {
      if (mode != "sum" && mode != "mean" && mode != "max") {
        throw std::invalid_argument("mode is \"sum\", \"mean\" or \"max\", not \"" +
                                    std::string(mode) + "\"");
      }
    });

template <typename T>
int nonzero(ap::In<T>, ap::Out<std::int64_t>, ap::SizeOut, ap::Workspace, ap::Stream) {
  return 0;
}
ap::Dim nonzero_workspace(ap::Shape) { return 1024 * sizeof(std::int64_t); }
ap::Shape nonzero_shape(ap::Shape x) {
  const ap::Dim elements = x.numel();
  return {ap::size_tensor(ap::floor_div(elements, 2), elements),
          static_cast<std::int64_t>(x.rank())};
}
AUTOPLUGIN_OP("example_like::nonzero(Tensor x) -> Tensor", nonzero_shape, nonzero<float>,
              nonzero<std::int32_t>)
    .workspace(nonzero_workspace);

template <typename T>
int broadcast_to(ap::In<T>, ap::Out<T>, ap::Stream) {
  return 0;
}
ap::Shape broadcast_to_shape(ap::Shape x, ap::Shape size) {
  ap::require(x.rank() <= size.rank(), "size has at least as many dimensions as x");
  return size;
}
AUTOPLUGIN_OP("example_like::broadcast_to(Tensor x, SymInt[] size) -> Tensor", broadcast_to_shape,
              broadcast_to<float>, broadcast_to<std::int32_t>)
    .example(ap::Example().rank("x", 2).length("size", 3));

template <typename T>
int row_max(ap::In<T>, ap::Out<T>, ap::Out<std::int64_t>, ap::Stream) {
  return 0;
}
ap::Shape row_max_one(ap::Shape x) {
  x[x.rank() - 1] = 1;
  return x;
}
std::tuple<ap::Shape, ap::Shape> row_max_shape(ap::Shape x) {
  return {row_max_one(x), row_max_one(x)};
}
AUTOPLUGIN_OP("example_like::row_max(Tensor x) -> (Tensor values, Tensor indices)", row_max_shape,
              row_max<float>);

template <typename T>
int row_sum_warp(ap::In<T>, ap::Out<T>, ap::Stream) {
  return 0;
}
template <typename T>
int row_sum_block(ap::In<T>, ap::Out<T>, ap::Stream) {
  return 0;
}
AUTOPLUGIN_OP("example_like::row_sum(Tensor x) -> Tensor", row_max_one, row_sum_warp<float>,
              row_sum_block<float>);

}  // namespace
}  // namespace example_like
