// The evaluator: a Dim's value for concrete symbol values, with TensorRT's semantics; and
// requirements on shape-input values folded into output shapes.
#include <unordered_map>

#include "autoplugin/error.h"
#include "dim_internal.h"

namespace autoplugin {

using namespace detail;

namespace {

class Evaluator {
 public:
  Evaluator(const DimBindings& bindings, bool memoize) : bindings_(bindings), memoize_(memoize) {}

  std::int64_t operator()(const Dim& dim) {
    const DimNode* node = node_of(dim);
    if (!node) return *dim.constant();
    switch (node->kind) {
      case DimKind::InputExtent:
        return lookup(bindings_.input_extents, *node, "input", "axis");
      case DimKind::ShapeValue:
        return lookup(bindings_.shape_values, *node, "shape input", "index");
      case DimKind::SizeTensor: {
        const auto index = static_cast<std::size_t>(node->index0);
        if (index >= bindings_.size_tensor_values.size()) {
          throw ShapeError("'" + node->label +
                           "' has no value: a data-dependent extent is known only after the "
                           "kernel runs");
        }
        return bindings_.size_tensor_values[index];
      }
      case DimKind::Operation:
        break;
    }
    if (memoize_) {
      if (auto found = memo_.find(node); found != memo_.end()) return found->second;
    }
    const std::int64_t a = (*this)(node->lhs);
    const std::int64_t b = (*this)(node->rhs);
    // The error path alone pays for printing the expression.
    const auto value = checked(node->op, a, b);
    const std::int64_t result = value ? *value : fold(node->op, a, b, to_string(dim));
    if (memoize_) memo_.emplace(node, result);
    return result;
  }

 private:
  static std::int64_t lookup(std::span<const std::vector<std::int64_t>> table, const DimNode& node,
                             const char* outer_name, const char* inner_name) {
    const auto outer = static_cast<std::size_t>(node.index0);
    const auto inner = static_cast<std::size_t>(node.index1);
    if (outer >= table.size() || inner >= table[outer].size()) {
      throw ShapeError("no value bound for '" + node.label + "' (" + outer_name + " " +
                       std::to_string(node.index0) + ", " + inner_name + " " +
                       std::to_string(node.index1) + ")");
    }
    return table[outer][inner];
  }

  const DimBindings& bindings_;
  bool memoize_;
  std::unordered_map<const DimNode*, std::int64_t> memo_;
};

// Trees beyond this size are evaluated with a memo, so that heavily shared DAGs stay linear.
constexpr std::uint64_t kMemoizeAbove = 64;

}  // namespace

std::int64_t evaluate(const Dim& dim, const DimBindings& bindings) {
  return Evaluator(bindings, size_of(dim) > kMemoizeAbove)(dim);
}

std::vector<std::int64_t> evaluate(const Shape& shape, const DimBindings& bindings) {
  std::vector<std::int64_t> values;
  values.reserve(shape.rank());
  for (const Dim& dim : shape) values.push_back(evaluate(dim, bindings));
  return values;
}

std::vector<Requirement> fold_shape_value_requirements(std::span<Shape> shapes,
                                                       std::span<const Requirement> requirements) {
  std::vector<Requirement> folded;
  Bool all_hold(true);
  for (const Requirement& requirement : requirements) {
    if (!has_shape_value(requirement.condition.as_dim())) continue;
    folded.push_back(requirement);
    all_hold = all_hold && requirement.condition;
  }
  if (folded.empty()) return folded;
  for (Shape& shape : shapes) {
    for (Dim& extent : shape) {
      if (!has_size_tensor(extent)) extent = select(all_hold, extent, -1);
    }
  }
  return folded;
}

void check_requirements(std::span<const Requirement> requirements, const DimBindings& bindings) {
  for (const Requirement& requirement : requirements) {
    if (evaluate(requirement.condition.as_dim(), bindings) == 0) {
      throw ShapeError(requirement.message +
                       " (failed requirement: " + to_string(requirement.condition.as_dim()) + ")");
    }
  }
}

}  // namespace autoplugin
