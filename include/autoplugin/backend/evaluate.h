// Shape expressions evaluated with concrete values, as an engine adapter needs them. The TensorRT
// and PyTorch adapters use it; the PyTorch adapter is compiled in the user's project, so this
// header is installed.
#pragma once

#include <autoplugin/dim.h>

#include <cstdint>
#include <span>
#include <vector>

namespace autoplugin {

// Concrete values for the symbols of an expression.
struct DimBindings {
  std::span<const std::vector<std::int64_t>> input_extents;  // [input][axis]
  std::span<const std::vector<std::int64_t>> shape_values;   // [shape input][index]
  std::span<const std::int64_t> size_tensor_values;          // [size tensor]; may be empty
};

// Evaluates with TensorRT's semantics. Throws ShapeError on division by zero, int64 overflow,
// a symbol without a binding, or an unbound size tensor.
std::int64_t evaluate(const Dim& dim, const DimBindings& bindings);
std::vector<std::int64_t> evaluate(const Shape& shape, const DimBindings& bindings);
// Throws ShapeError with the requirement's message when one evaluates to false.
void check_requirements(std::span<const Requirement> requirements, const DimBindings& bindings);

// Requirements on shape-input values, which TensorRT shows a plugin only as symbols (in
// getOutputShapes) and never at run time: folded into `shapes`, so that every extent not given by
// a size tensor becomes -1 when one of them fails, and the engine refuses those values when it
// infers shapes, before any kernel runs. Returns the requirements folded; the others, on input
// extents alone, are left to the backend, which checks them with concrete extents.
std::vector<Requirement> fold_shape_value_requirements(std::span<Shape> shapes,
                                                       std::span<const Requirement> requirements);

}  // namespace autoplugin
