// Ops for the Python package's tests: every attribute type, and a shape function using every
// kind of operation. CPU launchers: these ops are described and decoded, never launched.
#include <autoplugin/autoplugin.h>

#include <optional>
#include <span>
#include <string_view>

namespace ap = autoplugin;

namespace {

void every_attribute(ap::In<float>, ap::Out<float>, std::int64_t, std::span<const std::int64_t>,
                     double, std::span<const double>, bool, std::span<const bool>, std::string_view,
                     ap::DType, std::optional<std::int64_t>,
                     std::optional<std::span<const std::int64_t>>, std::span<const std::int64_t>,
                     std::optional<std::string_view>, ap::Stream) {}
ap::Shape every_attribute_shape(ap::Shape x, std::int64_t, std::span<const std::int64_t>, double,
                                std::span<const double>, bool, std::span<const bool>,
                                std::string_view, ap::DType, std::optional<std::int64_t>,
                                std::optional<std::span<const std::int64_t>>,
                                std::span<const std::int64_t>, std::optional<std::string_view>) {
  return x;
}

template <typename T>
void arithmetic(ap::In<T>, ap::In<float>, ap::Out<T>, ap::Out<std::int64_t>, std::int64_t,
                ap::Stream) {}
std::pair<ap::Shape, ap::Shape> arithmetic_shape(ap::Shape x, ap::Shape y, std::int64_t k) {
  ap::require(x[0] >= 1, "x has a row");
  ap::Shape a{ap::ceil_div(x[0], 3) + k, x[1] % 4 + ap::max(x[0], y[0]) - ap::min(x[1], y[1])};
  ap::Shape b{ap::select(x[0] < y[0], x[0], y[0]) * 2, ap::floor_div(x[1], 2)};
  return {a, b};
}

std::int32_t count(ap::In<float>, ap::Out<std::int64_t>, ap::SizeOut, ap::Stream) { return 0; }
ap::Shape count_shape(ap::Shape x) { return {ap::size_tensor(x.numel() / 2, x.numel()), 1}; }

// Tensor? inputs: the output's extents say which were present (a null-free shape program).
void optional_inputs(ap::In<float>, ap::OptIn<float>, ap::OptIn<float>, ap::Out<float>,
                     ap::Stream) {}
ap::Shape optional_inputs_shape(ap::Shape x, std::optional<ap::Shape> w,
                                std::optional<ap::Shape> b) {
  return {x[0], w ? (*w)[0] : ap::Dim(1), b ? (*b)[0] + 10 : ap::Dim(2)};
}

}  // namespace

AUTOPLUGIN_OP(
    "pytest::every_attribute(Tensor x, int i, int[] il, float f, float[2] fl, bool b, bool[] bl, "
    "str s, ScalarType t, int? oi=None, int[]? oil=None, int[] dl=[1, 2], str? os=\"hi\") -> "
    "Tensor",
    every_attribute_shape, every_attribute);
AUTOPLUGIN_OP("pytest::arithmetic(Tensor x, Tensor y, int k=0) -> (Tensor a, Tensor b)",
              arithmetic_shape, arithmetic<float>, arithmetic<std::int32_t>)
    .output_dtype("b", ap::fixed_dtype(ap::DType::Int64));
AUTOPLUGIN_OP("pytest::count(Tensor x) -> Tensor", count_shape, count);
AUTOPLUGIN_OP("pytest::optional_inputs(Tensor x, Tensor? w=None, Tensor? b=None) -> Tensor",
              optional_inputs_shape, optional_inputs);
