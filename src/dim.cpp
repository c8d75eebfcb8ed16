// The expression store: Dim values, the graph's nodes (hashed, sized, shared), structural
// identity and TensorRT's integer semantics, which folding and evaluation share.
#include <algorithm>
#include <limits>
#include <stdexcept>

#include "autoplugin/error.h"
#include "dim_internal.h"

namespace autoplugin {
namespace detail {

namespace {

constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

std::size_t mix(std::size_t seed, std::uint64_t value) {
  // splitmix64 finalizer over the combination: cheap and well distributed.
  std::uint64_t z = seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<std::size_t>(z ^ (z >> 31));
}

// Operator-call form used in error messages, e.g. "SUM(9223372036854775807, 1)".
std::string call_text(DimOp op, std::int64_t a, std::int64_t b) {
  return std::string(dim_op_name(op)) + "(" + std::to_string(a) + ", " + std::to_string(b) + ")";
}

// The size of a new node over `a` and `b`, capped: only "large or not" matters.
std::uint64_t tree_size(const Dim& a, const Dim& b) {
  return std::min<std::uint64_t>(1 + size_of(a) + size_of(b), std::uint64_t{1} << 62);
}

}  // namespace

std::size_t hash_of(const Dim& dim) {
  if (const DimNode* node = node_of(dim)) return node->hash;
  return mix(0x5eed, static_cast<std::uint64_t>(*dim.constant()));
}

std::uint64_t size_of(const Dim& dim) { return node_of(dim) ? node_of(dim)->tree_size : 1; }

bool may_fail(const Dim& dim) { return node_of(dim) && node_of(dim)->may_fail; }
bool has_size_tensor(const Dim& dim) { return node_of(dim) && node_of(dim)->has_size_tensor; }
bool has_shape_value(const Dim& dim) { return node_of(dim) && node_of(dim)->has_shape_value; }

bool is_constant(const Dim& dim, std::int64_t value) {
  return dim.is_constant() && *dim.constant() == value;
}

const DimNode* operation(const Dim& dim, DimOp op) {
  const DimNode* node = node_of(dim);
  return node && node->kind == DimKind::Operation && node->op == op ? node : nullptr;
}

Dim make_operation(DimOp op, const Dim& lhs, const Dim& rhs) {
  auto node = std::make_shared<DimNode>();
  node->kind = DimKind::Operation;
  node->op = op;
  node->lhs = lhs;
  node->rhs = rhs;
  node->hash = mix(mix(mix(0x0b, static_cast<std::uint64_t>(op)), hash_of(lhs)), hash_of(rhs));
  node->tree_size = tree_size(lhs, rhs);
  const bool divides = op == DimOp::FloorDiv || op == DimOp::CeilDiv;
  node->may_fail =
      may_fail(lhs) || may_fail(rhs) || (divides && (!rhs.is_constant() || is_constant(rhs, 0)));
  node->has_size_tensor = has_size_tensor(lhs) || has_size_tensor(rhs);
  node->has_shape_value = has_shape_value(lhs) || has_shape_value(rhs);
  return DimAccess::wrap(std::move(node));
}

Dim make_symbol(DimKind kind, int index0, int index1, std::string label) {
  if (index0 < 0 || index1 < 0) {
    throw std::invalid_argument("autoplugin: negative index for the symbol '" + label + "'");
  }
  auto node = std::make_shared<DimNode>();
  node->kind = kind;
  node->index0 = index0;
  node->index1 = index1;
  node->label = std::move(label);
  node->has_shape_value = kind == DimKind::ShapeValue;
  node->hash =
      mix(mix(mix(0x51, static_cast<std::uint64_t>(kind)), static_cast<std::uint64_t>(index0)),
          static_cast<std::uint64_t>(index1));
  return DimAccess::wrap(std::move(node));
}

Dim make_size_tensor(int index, const Dim& opt, const Dim& upper) {
  auto node = std::make_shared<DimNode>();
  node->kind = DimKind::SizeTensor;
  node->index0 = index;
  node->label = "size_tensor" + std::to_string(index);
  node->lhs = opt;
  node->rhs = upper;
  node->hash = mix(mix(mix(0x57, static_cast<std::uint64_t>(index)), hash_of(opt)), hash_of(upper));
  node->tree_size = tree_size(opt, upper);
  node->may_fail = may_fail(opt) || may_fail(upper);
  node->has_size_tensor = true;
  node->has_shape_value = has_shape_value(opt) || has_shape_value(upper);
  return DimAccess::wrap(std::move(node));
}

Dim mark_as_select(const Dim& lowered, SelectCall call) {
  const DimNode* node = node_of(lowered);
  if (!node || node->kind != DimKind::Operation) return lowered;
  auto marked = std::make_shared<DimNode>(*node);
  marked->written_as = std::make_shared<const SelectCall>(std::move(call));
  return DimAccess::wrap(std::move(marked));
}

bool same(const Dim& a, const Dim& b, ProvenPairs& proven) {
  const DimNode* x = node_of(a);
  const DimNode* y = node_of(b);
  if (!x || !y) return !x && !y && *a.constant() == *b.constant();
  if (x == y) return true;
  if (x->hash != y->hash || x->kind != y->kind || x->op != y->op || x->index0 != y->index0 ||
      x->index1 != y->index1) {
    return false;
  }
  if (x->kind == DimKind::InputExtent || x->kind == DimKind::ShapeValue) return true;
  if (proven.contains({x, y})) return true;
  if (!same(x->lhs, y->lhs, proven) || !same(x->rhs, y->rhs, proven)) return false;
  proven.insert({x, y});
  return true;
}

// Exact integer semantics of TensorRT's operations; nullopt on int64 overflow or division by zero.
std::optional<std::int64_t> checked(DimOp op, std::int64_t a, std::int64_t b) {
  std::int64_t result = 0;
  switch (op) {
    case DimOp::Sum:
      if (__builtin_add_overflow(a, b, &result)) return std::nullopt;
      return result;
    case DimOp::Sub:
      if (__builtin_sub_overflow(a, b, &result)) return std::nullopt;
      return result;
    case DimOp::Prod:
      if (__builtin_mul_overflow(a, b, &result)) return std::nullopt;
      return result;
    case DimOp::Max:
      return std::max(a, b);
    case DimOp::Min:
      return std::min(a, b);
    case DimOp::Equal:
      return a == b ? 1 : 0;
    case DimOp::Less:
      return a < b ? 1 : 0;
    case DimOp::FloorDiv:
    case DimOp::CeilDiv: {
      if (b == 0 || (a == kInt64Min && b == -1)) return std::nullopt;
      // C++ truncates toward zero; step away from zero when the exact quotient was not integral.
      const std::int64_t quotient = a / b;
      if (a % b == 0) return quotient;
      const bool negative = (a < 0) != (b < 0);
      if (op == DimOp::FloorDiv) return negative ? quotient - 1 : quotient;
      return negative ? quotient : quotient + 1;
    }
  }
  return std::nullopt;
}

// Folds a constant operation; `context` (an expression, may be empty) is added to errors.
std::int64_t fold(DimOp op, std::int64_t a, std::int64_t b, const std::string& context) {
  const std::string where = context.empty() ? "" : " while evaluating '" + context + "'";
  if ((op == DimOp::FloorDiv || op == DimOp::CeilDiv) && b == 0) {
    throw ShapeError("division by zero in " + call_text(op, a, b) + where);
  }
  if (auto result = checked(op, a, b)) return *result;
  throw ShapeError("int64 overflow in " + call_text(op, a, b) + where);
}

}  // namespace detail

using namespace detail;

std::string_view dim_op_name(DimOp op) noexcept {
  switch (op) {
    case DimOp::Sum:
      return "SUM";
    case DimOp::Prod:
      return "PROD";
    case DimOp::Max:
      return "MAX";
    case DimOp::Min:
      return "MIN";
    case DimOp::Sub:
      return "SUB";
    case DimOp::Equal:
      return "EQUAL";
    case DimOp::Less:
      return "LESS";
    case DimOp::FloorDiv:
      return "FLOOR_DIV";
    case DimOp::CeilDiv:
      return "CEIL_DIV";
  }
  return "UNKNOWN";
}

Dim Dim::input_extent(int input, int axis, std::string label) {
  if (label.empty()) label = "in" + std::to_string(input) + "[" + std::to_string(axis) + "]";
  return make_symbol(DimKind::InputExtent, input, axis, std::move(label));
}

Dim Dim::shape_value(int shape_input, int index, std::string label) {
  if (label.empty())
    label = "shape" + std::to_string(shape_input) + "[" + std::to_string(index) + "]";
  return make_symbol(DimKind::ShapeValue, shape_input, index, std::move(label));
}

std::optional<std::int64_t> Dim::constant() const noexcept {
  if (node_) return std::nullopt;
  return value_;
}

std::int64_t Dim::value() const {
  if (node_) {
    throw ShapeError("the dimension '" + to_string(*this) +
                     "' is symbolic; its value is known only for concrete input extents");
  }
  return value_;
}

Dim& Dim::operator+=(const Dim& other) { return *this = *this + other; }
Dim& Dim::operator-=(const Dim& other) { return *this = *this - other; }
Dim& Dim::operator*=(const Dim& other) { return *this = *this * other; }
Dim& Dim::operator/=(const Dim& other) { return *this = *this / other; }

void Dim::throw_out_of_range(std::uint64_t value) {
  throw ShapeError("the dimension " + std::to_string(value) + " does not fit in int64");
}

Bool::operator bool() const {
  if (auto value = dim_.constant()) return *value != 0;
  throw ShapeError("shape function branches on a symbolic condition '" + to_string(dim_) +
                   "'; use autoplugin::select(condition, a, b) or "
                   "autoplugin::require(condition, message)");
}

bool identical(const Dim& a, const Dim& b) noexcept {
  // std::set may throw bad_alloc when recording a proven pair; treat that as "not identical",
  // which is always safe for the simplifier and the lowering.
  try {
    ProvenPairs proven;
    return same(a, b, proven);
  } catch (...) {
    return false;
  }
}

namespace detail {
Dim apply_unsimplified(DimOp op, const Dim& a, const Dim& b) { return make_operation(op, a, b); }
}  // namespace detail

}  // namespace autoplugin
