// What a backend does with a shape function's results: collects its requirements and size tensors
// (ShapeScope), lowers its expressions onto an engine's builder (DimSink, Lowering), and evaluates
// them with concrete values. The TensorRT and PyTorch adapters use it; the PyTorch adapter is
// compiled in the user's project, so this header is installed.
#pragma once

#include <autoplugin/dim.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace autoplugin {

// Collects the requirements and size tensors of one shape-function evaluation on this thread.
class ShapeScope {
 public:
  ShapeScope();
  ~ShapeScope();
  ShapeScope(const ShapeScope&) = delete;
  ShapeScope& operator=(const ShapeScope&) = delete;

  const std::vector<Requirement>& requirements() const noexcept { return requirements_; }
  const std::vector<SizeTensorDecl>& size_tensors() const noexcept { return size_tensors_; }

 private:
  friend void require(const Bool&, std::string_view);
  friend Dim size_tensor(const Dim&, const Dim&);
  ShapeScope* previous_;
  std::vector<Requirement> requirements_;
  std::vector<SizeTensorDecl> size_tensors_;
};

// Receives the expression graph as a sequence of operations, e.g. to emit IExprBuilder calls or
// to print them. Handles are opaque to the core; each distinct subexpression is emitted once.
class DimSink {
 public:
  using Handle = const void*;
  virtual ~DimSink() = default;
  virtual Handle constant(std::int64_t value) = 0;
  // `label` is how the extent or value is named for people, e.g. "x[0]".
  virtual Handle input_extent(int input, int axis, std::string_view label) = 0;
  virtual Handle shape_value(int shape_input, int index, std::string_view label) = 0;
  virtual Handle size_tensor(int index, Handle opt, Handle upper) = 0;
  virtual Handle operation(DimOp op, Handle a, Handle b) = 0;
};

// Lowers dims onto a sink, sharing common subexpressions across all calls on one Lowering.
class Lowering {
 public:
  explicit Lowering(DimSink& sink);
  ~Lowering();
  Lowering(const Lowering&) = delete;
  Lowering& operator=(const Lowering&) = delete;
  DimSink::Handle lower(const Dim& dim);

 private:
  struct Memo;
  DimSink& sink_;
  std::unique_ptr<Memo> memo_;
};

// The TensorRT-operation program of some shapes, one line per builder call, e.g.
//   t0 = SUM(x[2], 4)
//   out[2] = t0
std::string operation_program(std::span<const Shape> shapes, std::span<const std::string> names);

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
