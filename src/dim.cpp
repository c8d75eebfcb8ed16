// The Dim algebra: constant folding, the simplifier, the printer, the evaluator and lowering.
//
// Simplification never changes a defined value. It may drop a subexpression only when that
// subexpression cannot fail by division by zero, so that a symbolic evaluation fails exactly where
// the plain-integer run of the same shape function fails. The one permitted difference is that
// merging constants can avoid an intermediate int64 overflow that the unsimplified form would hit.
#include "autoplugin/dim.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "autoplugin/error.h"

namespace autoplugin {
namespace detail {

enum class DimKind : std::uint8_t { InputExtent, ShapeValue, SizeTensor, Operation };

struct DimNode {
  DimKind kind = DimKind::Operation;
  DimOp op = DimOp::Sum;  // Operation only
  int index0 = 0;         // input, shape input or size tensor index
  int index1 = 0;         // axis or shape-value index
  std::string label;      // how a symbol or size tensor prints
  Dim lhs;                // Operation: left operand; SizeTensor: opt
  Dim rhs;                // Operation: right operand; SizeTensor: upper
  std::size_t hash = 0;   // structural: equal structures hash equally
  // Tree size (shared subtrees counted each time), capped; large trees evaluate with a memo.
  std::uint64_t tree_size = 1;
  // Contains a division whose divisor is not a nonzero constant, so evaluation may fail.
  bool may_fail = false;
  bool has_size_tensor = false;
};

struct DimAccess {
  static Dim wrap(std::shared_ptr<const DimNode> node) {
    Dim dim;
    dim.node_ = std::move(node);
    return dim;
  }
};

}  // namespace detail

namespace {

using detail::DimAccess;
using detail::DimKind;
using detail::DimNode;

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

std::size_t mix(std::size_t seed, std::uint64_t value) {
  // splitmix64 finalizer over the combination: cheap and well distributed.
  std::uint64_t z = seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<std::size_t>(z ^ (z >> 31));
}

std::size_t hash_of(const Dim& dim) {
  if (const DimNode* node = dim.node()) return node->hash;
  return mix(0x5eed, static_cast<std::uint64_t>(*dim.constant()));
}

std::uint64_t size_of(const Dim& dim) { return dim.node() ? dim.node()->tree_size : 1; }
// Capped far below overflow: only "large or not" matters.
std::uint64_t tree_size(const Dim& a, const Dim& b) {
  return std::min<std::uint64_t>(1 + size_of(a) + size_of(b), std::uint64_t{1} << 62);
}
bool may_fail(const Dim& dim) { return dim.node() && dim.node()->may_fail; }
bool has_size_tensor(const Dim& dim) { return dim.node() && dim.node()->has_size_tensor; }

bool is_constant(const Dim& dim, std::int64_t value) {
  return dim.is_constant() && *dim.constant() == value;
}

// The operation node `op(lhs, rhs)`, or nullptr when `dim` is not one.
const DimNode* operation(const Dim& dim, DimOp op) {
  const DimNode* node = dim.node();
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
  node->hash =
      mix(mix(mix(0x51, static_cast<std::uint64_t>(kind)), static_cast<std::uint64_t>(index0)),
          static_cast<std::uint64_t>(index1));
  return DimAccess::wrap(std::move(node));
}

bool commutative(DimOp op) {
  return op == DimOp::Sum || op == DimOp::Prod || op == DimOp::Max || op == DimOp::Min ||
         op == DimOp::Equal;
}

// Operator-call form used in error messages, e.g. "SUM(9223372036854775807, 1)".
std::string call_text(DimOp op, std::int64_t a, std::int64_t b) {
  return std::string(dim_op_name(op)) + "(" + std::to_string(a) + ", " + std::to_string(b) + ")";
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
std::int64_t fold(DimOp op, std::int64_t a, std::int64_t b, const std::string& context = {}) {
  const std::string where = context.empty() ? "" : " while evaluating '" + context + "'";
  if ((op == DimOp::FloorDiv || op == DimOp::CeilDiv) && b == 0) {
    throw ShapeError("division by zero in " + call_text(op, a, b) + where);
  }
  if (auto result = checked(op, a, b)) return *result;
  throw ShapeError("int64 overflow in " + call_text(op, a, b) + where);
}

// Structural comparison. `proven` remembers pairs of operation nodes already found equal, so that
// comparing two separately built DAGs with shared subtrees stays linear in their size.
using ProvenPairs = std::set<std::pair<const DimNode*, const DimNode*>>;

bool same(const Dim& a, const Dim& b, ProvenPairs& proven) {
  const DimNode* x = a.node();
  const DimNode* y = b.node();
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

std::optional<std::int64_t> constant_operand(const DimNode* node, bool right) {
  return right ? node->rhs.constant() : node->lhs.constant();
}

// The simplifier proper; `a` and `b` are not both constant, and a divisor is not constant 0.
Dim simplify(DimOp op, const Dim& a, const Dim& b) {
  const auto ca = a.constant();
  const auto cb = b.constant();
  switch (op) {
    case DimOp::Sum: {
      if (cb == 0) return a;
      if (cb) {
        if (const DimNode* n = operation(a, DimOp::Sum); n && n->rhs.is_constant()) {
          if (auto c = checked(DimOp::Sum, *n->rhs.constant(), *cb)) {
            return apply(DimOp::Sum, n->lhs, *c);
          }
        }
        if (const DimNode* n = operation(a, DimOp::Sub)) {
          if (auto c1 = constant_operand(n, true)) {  // (x - c1) + c2 = x + (c2 - c1)
            if (auto c = checked(DimOp::Sub, *cb, *c1)) return apply(DimOp::Sum, n->lhs, *c);
          } else if (auto c0 = constant_operand(n, false)) {  // (c1 - x) + c2 = (c1 + c2) - x
            if (auto c = checked(DimOp::Sum, *c0, *cb)) return apply(DimOp::Sub, *c, n->rhs);
          }
        }
        if (*cb < 0 && *cb != kInt64Min) return make_operation(DimOp::Sub, a, -*cb);
      }
      if (const DimNode* n = operation(b, DimOp::Sub); n && is_constant(n->lhs, 0)) {
        return apply(DimOp::Sub, a, n->rhs);  // a + (-x) = a - x
      }
      break;
    }
    case DimOp::Sub: {
      if (cb == 0) return a;
      if (!may_fail(a) && identical(a, b)) return 0;
      if (cb) {
        if (const DimNode* n = operation(a, DimOp::Sum); n && n->rhs.is_constant()) {
          if (auto c = checked(DimOp::Sub, *n->rhs.constant(), *cb)) {
            return apply(DimOp::Sum, n->lhs, *c);
          }
        }
        if (const DimNode* n = operation(a, DimOp::Sub)) {
          if (auto c1 = constant_operand(n, true)) {  // (x - c1) - c2 = x - (c1 + c2)
            if (auto c = checked(DimOp::Sum, *c1, *cb)) return apply(DimOp::Sub, n->lhs, *c);
          } else if (auto c0 = constant_operand(n, false)) {  // (c1 - x) - c2 = (c1 - c2) - x
            if (auto c = checked(DimOp::Sub, *c0, *cb)) return apply(DimOp::Sub, *c, n->rhs);
          }
        }
        if (*cb < 0 && *cb != kInt64Min) return make_operation(DimOp::Sum, a, -*cb);
      }
      if (ca) {
        if (const DimNode* n = operation(b, DimOp::Sum); n && n->rhs.is_constant()) {
          // c1 - (x + c2) = (c1 - c2) - x
          if (auto c = checked(DimOp::Sub, *ca, *n->rhs.constant())) {
            return apply(DimOp::Sub, *c, n->lhs);
          }
        }
        if (const DimNode* n = operation(b, DimOp::Sub)) {
          if (auto c2 = constant_operand(n, true)) {  // c1 - (x - c2) = (c1 + c2) - x
            if (auto c = checked(DimOp::Sum, *ca, *c2)) return apply(DimOp::Sub, *c, n->lhs);
          } else if (auto c0 = constant_operand(n, false)) {  // c1 - (c2 - x) = x + (c1 - c2)
            if (auto c = checked(DimOp::Sub, *ca, *c0)) return apply(DimOp::Sum, n->rhs, *c);
          }
        }
      } else if (const DimNode* n = operation(b, DimOp::Sub); n && is_constant(n->lhs, 0)) {
        return apply(DimOp::Sum, a, n->rhs);  // a - (-x) = a + x
      }
      break;
    }
    case DimOp::Prod: {
      if (cb == 1) return a;
      if (cb == 0 && !may_fail(a)) return 0;
      if (cb) {
        if (const DimNode* n = operation(a, DimOp::Prod); n && n->rhs.is_constant()) {
          if (auto c = checked(DimOp::Prod, *n->rhs.constant(), *cb)) {
            return apply(DimOp::Prod, n->lhs, *c);
          }
        }
      }
      break;
    }
    case DimOp::Max:
    case DimOp::Min: {
      if (identical(a, b)) return a;
      if (cb) {  // max(max(x, c1), c2) = max(x, max(c1, c2))
        if (const DimNode* n = operation(a, op); n && n->rhs.is_constant()) {
          return make_operation(op, n->lhs, fold(op, *n->rhs.constant(), *cb));
        }
      }
      break;
    }
    case DimOp::Equal:
    case DimOp::Less: {
      if (!may_fail(a) && identical(a, b)) return op == DimOp::Equal ? 1 : 0;
      break;
    }
    case DimOp::FloorDiv:
    case DimOp::CeilDiv: {
      if (cb == 1) return a;
      if (cb) {
        // floor_div(x * c, c) = x for c != 0.
        if (const DimNode* n = operation(a, DimOp::Prod); n && n->rhs.constant() == cb) {
          return n->lhs;
        }
        // floor(floor(x / c1) / c2) = floor(x / (c1 * c2)) for c2 > 0 (likewise ceil).
        if (const DimNode* n = operation(a, op); n && *cb > 0 && n->rhs.is_constant()) {
          if (auto c = checked(DimOp::Prod, *n->rhs.constant(), *cb); c && *c != 0) {
            return apply(op, n->lhs, *c);
          }
        }
      }
      break;
    }
  }
  return make_operation(op, a, b);
}

thread_local ShapeScope* t_active_scope = nullptr;

// ----- printing -----

enum Precedence : int { kOr, kAnd, kCompare, kAdditive, kMultiplicative, kUnary, kAtom };

struct Printed {
  std::string text;
  int precedence;
};

std::string parenthesized(Printed printed, bool wrap) {
  return wrap ? "(" + printed.text + ")" : std::move(printed.text);
}

Printed print(const Dim& dim);

// A 0/1 expression built by a comparison or the logical operators on comparisons.
bool is_condition(const Dim& dim) {
  const DimNode* node = dim.node();
  if (!node || node->kind != DimKind::Operation) return false;
  switch (node->op) {
    case DimOp::Equal:
    case DimOp::Less:
      return true;
    case DimOp::Sub:
      return is_constant(node->lhs, 1) && is_condition(node->rhs);
    case DimOp::Prod:
    case DimOp::Max:
      return is_condition(node->lhs) && is_condition(node->rhs);
    default:
      return false;
  }
}

// Left-associative; comparisons do not chain. A right operand starting with '-' is wrapped so
// that "x - -3" never appears.
Printed print_binary(const Dim& a, const char* symbol, const Dim& b, int precedence) {
  Printed left = print(a);
  Printed right = print(b);
  const bool wrap_left =
      left.precedence < precedence || (precedence == kCompare && left.precedence == kCompare);
  const bool wrap_right = right.precedence <= precedence || right.precedence == kUnary;
  return {parenthesized(std::move(left), wrap_left) + symbol +
              parenthesized(std::move(right), wrap_right),
          precedence};
}

// Conditions print as the comparisons and logical operators they were written with, not as the
// arithmetic they lower to: "x[0] >= 2 && x[1] != 3" rather than "(1 - (x[0] < 2)) * ...".
std::optional<Printed> print_condition(const DimNode& node) {
  if (node.op == DimOp::Sub && is_constant(node.lhs, 1) && is_condition(node.rhs)) {
    const DimNode& negated = *node.rhs.node();
    if (negated.op == DimOp::Less) {
      // Keep the symbol on the left: "x[0] <= 3" rather than "3 >= x[0]".
      return negated.lhs.is_constant() && !negated.rhs.is_constant()
                 ? print_binary(negated.rhs, " <= ", negated.lhs, kCompare)
                 : print_binary(negated.lhs, " >= ", negated.rhs, kCompare);
    }
    if (negated.op == DimOp::Equal) return print_binary(negated.lhs, " != ", negated.rhs, kCompare);
    return Printed{"!(" + print(node.rhs).text + ")", kUnary};
  }
  if (node.op == DimOp::Less && node.lhs.is_constant() && !node.rhs.is_constant()) {
    return print_binary(node.rhs, " > ", node.lhs, kCompare);
  }
  if ((node.op == DimOp::Prod || node.op == DimOp::Max) && is_condition(node.lhs) &&
      is_condition(node.rhs)) {
    return node.op == DimOp::Prod ? print_binary(node.lhs, " && ", node.rhs, kAnd)
                                  : print_binary(node.lhs, " || ", node.rhs, kOr);
  }
  return std::nullopt;
}

Printed print(const Dim& dim) {
  const DimNode* node = dim.node();
  if (!node) {
    const std::int64_t value = *dim.constant();
    return {std::to_string(value), value < 0 ? kUnary : kAtom};
  }
  if (node->kind != DimKind::Operation) return {node->label, kAtom};
  if (auto condition = print_condition(*node)) return *std::move(condition);

  const DimOp op = node->op;
  if (op == DimOp::Max || op == DimOp::Min || op == DimOp::FloorDiv || op == DimOp::CeilDiv) {
    std::string name = op == DimOp::Max        ? "max"
                       : op == DimOp::Min      ? "min"
                       : op == DimOp::FloorDiv ? "floor_div"
                                               : "ceil_div";
    return {name + "(" + print(node->lhs).text + ", " + print(node->rhs).text + ")", kAtom};
  }
  if (op == DimOp::Sub && is_constant(node->lhs, 0)) {
    Printed operand = print(node->rhs);
    const bool wrap = operand.precedence <= kUnary;
    return {"-" + parenthesized(std::move(operand), wrap), kUnary};
  }
  const int precedence = op == DimOp::Sum || op == DimOp::Sub ? kAdditive
                         : op == DimOp::Prod                  ? kMultiplicative
                                                              : kCompare;
  const char* symbol = op == DimOp::Sum     ? " + "
                       : op == DimOp::Sub   ? " - "
                       : op == DimOp::Prod  ? " * "
                       : op == DimOp::Equal ? " == "
                                            : " < ";
  return print_binary(node->lhs, symbol, node->rhs, precedence);
}

// ----- evaluation -----

class Evaluator {
 public:
  Evaluator(const DimBindings& bindings, bool memoize) : bindings_(bindings), memoize_(memoize) {}

  std::int64_t operator()(const Dim& dim) {
    const DimNode* node = dim.node();
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

// ----- the printing sink of operation_program -----

class ProgramPrinter final : public DimSink {
 public:
  Handle constant(std::int64_t value) override { return intern(std::to_string(value)); }
  Handle input_extent(int, int, std::string_view label) override {
    return intern(std::string(label));
  }
  Handle shape_value(int, int, std::string_view label) override {
    return intern(std::string(label));
  }
  Handle size_tensor(int index, Handle opt, Handle upper) override {
    std::string name = "s" + std::to_string(index);
    program_ += name + " = SIZE_TENSOR(opt=" + text(opt) + ", upper=" + text(upper) + ")\n";
    return intern(std::move(name));
  }
  Handle operation(DimOp op, Handle a, Handle b) override {
    std::string name = "t" + std::to_string(operations_++);
    program_ +=
        name + " = " + std::string(dim_op_name(op)) + "(" + text(a) + ", " + text(b) + ")\n";
    return intern(std::move(name));
  }

  static const std::string& text(Handle handle) { return *static_cast<const std::string*>(handle); }
  std::string& program() { return program_; }

 private:
  Handle intern(std::string text) {
    texts_.push_back(std::move(text));  // a deque keeps earlier handles valid
    return &texts_.back();
  }

  std::deque<std::string> texts_;
  std::string program_;
  int operations_ = 0;
};

}  // namespace

// ----- Dim -----

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

// ----- the operations -----

Dim apply(DimOp op, const Dim& a, const Dim& b) {
  const auto ca = a.constant();
  const auto cb = b.constant();
  if (ca && cb) return fold(op, *ca, *cb);
  if ((op == DimOp::FloorDiv || op == DimOp::CeilDiv) && cb == 0) {
    throw ShapeError("division by zero in " + to_string(make_operation(op, a, b)));
  }
  if (commutative(op) && ca) return simplify(op, b, a);
  return simplify(op, a, b);
}

Dim operator+(const Dim& a, const Dim& b) { return apply(DimOp::Sum, a, b); }
Dim operator-(const Dim& a, const Dim& b) { return apply(DimOp::Sub, a, b); }
Dim operator-(const Dim& a) { return apply(DimOp::Sub, 0, a); }
Dim operator*(const Dim& a, const Dim& b) { return apply(DimOp::Prod, a, b); }
Dim floor_div(const Dim& a, const Dim& b) { return apply(DimOp::FloorDiv, a, b); }
Dim ceil_div(const Dim& a, const Dim& b) { return apply(DimOp::CeilDiv, a, b); }
Dim operator/(const Dim& a, const Dim& b) { return apply(DimOp::FloorDiv, a, b); }
Dim max(const Dim& a, const Dim& b) { return apply(DimOp::Max, a, b); }
Dim min(const Dim& a, const Dim& b) { return apply(DimOp::Min, a, b); }
Bool operator==(const Dim& a, const Dim& b) { return Bool(apply(DimOp::Equal, a, b)); }
Bool operator<(const Dim& a, const Dim& b) { return Bool(apply(DimOp::Less, a, b)); }

Dim operator%(const Dim& a, const Dim& b) { return a - floor_div(a, b) * b; }
Bool operator!=(const Dim& a, const Dim& b) { return !(a == b); }
Bool operator<=(const Dim& a, const Dim& b) { return !(b < a); }
Bool operator>(const Dim& a, const Dim& b) { return b < a; }
Bool operator>=(const Dim& a, const Dim& b) { return !(a < b); }
Bool operator!(const Bool& a) { return Bool(1 - a.as_dim()); }
Bool operator&&(const Bool& a, const Bool& b) {
  // c * c == c for a 0/1 condition: requiring the same thing twice costs no builder call.
  if (identical(a.as_dim(), b.as_dim())) return a;
  return Bool(a.as_dim() * b.as_dim());
}
Bool operator||(const Bool& a, const Bool& b) { return Bool(max(a.as_dim(), b.as_dim())); }

Dim select(const Bool& condition, const Dim& if_true, const Dim& if_false) {
  const Dim& c = condition.as_dim();
  // With a constant condition the general form folds to one branch (the other is dropped unless
  // it may fail, see the top of this file).
  if (!may_fail(c) && identical(if_true, if_false)) return if_true;
  return c * if_true + (1 - c) * if_false;
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

std::string to_string(const Dim& dim) { return print(dim).text; }

// ----- Shape -----

namespace {
void check_rank(std::size_t rank) {
  if (rank > Shape::kMaxRank) {
    throw ShapeError("a shape of rank " + std::to_string(rank) +
                     " exceeds TensorRT's maximum rank " + std::to_string(Shape::kMaxRank));
  }
}

[[noreturn]] void throw_axis(std::int64_t axis, std::size_t rank) {
  throw ShapeError("axis " + std::to_string(axis) + " is out of range for a shape of rank " +
                   std::to_string(rank));
}

std::size_t python_axis(std::int64_t axis, std::size_t rank) {
  const std::int64_t resolved = axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
  if (resolved < 0 || resolved >= static_cast<std::int64_t>(rank)) throw_axis(axis, rank);
  return static_cast<std::size_t>(resolved);
}
}  // namespace

Shape::Shape(std::initializer_list<Dim> dims) : dims_(dims) { check_rank(dims_.size()); }

Shape::Shape(std::vector<Dim> dims) : dims_(std::move(dims)) { check_rank(dims_.size()); }

Shape Shape::symbolic_input(int input, std::size_t rank, std::string_view name) {
  check_rank(rank);
  std::vector<Dim> dims;
  dims.reserve(rank);
  for (std::size_t axis = 0; axis < rank; ++axis) {
    dims.push_back(Dim::input_extent(input, static_cast<int>(axis),
                                     std::string(name) + "[" + std::to_string(axis) + "]"));
  }
  return Shape(std::move(dims));
}

Shape Shape::concrete(std::span<const std::int64_t> extents) {
  check_rank(extents.size());
  return Shape(std::vector<Dim>(extents.begin(), extents.end()));
}

Dim& Shape::operator[](std::size_t axis) {
  if (axis >= dims_.size()) throw_axis(static_cast<std::int64_t>(axis), dims_.size());
  return dims_[axis];
}

const Dim& Shape::operator[](std::size_t axis) const {
  if (axis >= dims_.size()) throw_axis(static_cast<std::int64_t>(axis), dims_.size());
  return dims_[axis];
}

Dim& Shape::at(std::int64_t axis) { return dims_[python_axis(axis, dims_.size())]; }
const Dim& Shape::at(std::int64_t axis) const { return dims_[python_axis(axis, dims_.size())]; }

void Shape::push_back(Dim dim) {
  check_rank(dims_.size() + 1);
  dims_.push_back(std::move(dim));
}

void Shape::insert(std::size_t axis, Dim dim) {
  if (axis > dims_.size()) throw_axis(static_cast<std::int64_t>(axis), dims_.size());
  check_rank(dims_.size() + 1);
  dims_.insert(dims_.begin() + static_cast<std::ptrdiff_t>(axis), std::move(dim));
}

void Shape::erase(std::size_t axis) {
  if (axis >= dims_.size()) throw_axis(static_cast<std::int64_t>(axis), dims_.size());
  dims_.erase(dims_.begin() + static_cast<std::ptrdiff_t>(axis));
}

Dim Shape::numel() const {
  Dim product = 1;
  for (const Dim& dim : dims_) product *= dim;
  return product;
}

bool Shape::is_constant() const noexcept {
  return std::all_of(dims_.begin(), dims_.end(), [](const Dim& dim) { return dim.is_constant(); });
}

std::vector<std::int64_t> Shape::values() const {
  std::vector<std::int64_t> values;
  values.reserve(dims_.size());
  for (std::size_t axis = 0; axis < dims_.size(); ++axis) {
    if (!dims_[axis].is_constant()) {
      throw ShapeError("the shape " + to_string(*this) + " is symbolic at axis " +
                       std::to_string(axis) + " ('" + to_string(dims_[axis]) + "')");
    }
    values.push_back(*dims_[axis].constant());
  }
  return values;
}

std::string to_string(const Shape& shape) {
  std::string text = "[";
  for (const Dim& dim : shape) {
    if (text.size() > 1) text += ", ";
    text += to_string(dim);
  }
  return text + "]";
}

// ----- requirements and size tensors -----

ShapeScope::ShapeScope() : previous_(t_active_scope) { t_active_scope = this; }
ShapeScope::~ShapeScope() { t_active_scope = previous_; }

void require(const Bool& condition, std::string_view message) {
  if (auto value = condition.as_dim().constant()) {
    if (*value == 0) throw ShapeError(std::string(message));
    return;
  }
  if (!t_active_scope) {
    throw std::logic_error("autoplugin::require on the symbolic condition '" +
                           to_string(condition.as_dim()) + "' outside a ShapeScope");
  }
  t_active_scope->requirements_.push_back({condition, std::string(message)});
}

Dim size_tensor(const Dim& opt, const Dim& upper) {
  if (!t_active_scope) throw std::logic_error("autoplugin::size_tensor outside a ShapeScope");
  for (const auto& [name, dim] : {std::pair{"opt", &opt}, std::pair{"upper", &upper}}) {
    if (has_size_tensor(*dim)) {
      throw ShapeError(std::string("the ") + name + " value '" + to_string(*dim) +
                       "' of a size tensor depends on another size tensor");
    }
  }
  auto& declarations = t_active_scope->size_tensors_;
  const int index = static_cast<int>(declarations.size());
  declarations.push_back({opt, upper});

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
  return DimAccess::wrap(std::move(node));
}

// ----- evaluation -----

std::int64_t evaluate(const Dim& dim, const DimBindings& bindings) {
  return Evaluator(bindings, size_of(dim) > kMemoizeAbove)(dim);
}

std::vector<std::int64_t> evaluate(const Shape& shape, const DimBindings& bindings) {
  std::vector<std::int64_t> values;
  values.reserve(shape.rank());
  for (const Dim& dim : shape) values.push_back(evaluate(dim, bindings));
  return values;
}

void check_requirements(std::span<const Requirement> requirements, const DimBindings& bindings) {
  for (const Requirement& requirement : requirements) {
    if (evaluate(requirement.condition.as_dim(), bindings) == 0) {
      throw ShapeError(requirement.message +
                       " (failed requirement: " + to_string(requirement.condition.as_dim()) + ")");
    }
  }
}

// ----- lowering -----

struct Lowering::Memo {
  std::unordered_map<std::int64_t, DimSink::Handle> constants;
  std::unordered_map<const DimNode*, DimSink::Handle> nodes;
  // Lowered nodes by structural hash; holding the Dims keeps every key above alive, so a freed
  // node's address can never be mistaken for a new node.
  std::unordered_multimap<std::size_t, std::pair<Dim, DimSink::Handle>> structures;
};

Lowering::Lowering(DimSink& sink) : sink_(sink), memo_(std::make_unique<Memo>()) {}
Lowering::~Lowering() = default;

DimSink::Handle Lowering::lower(const Dim& dim) {
  const DimNode* node = dim.node();
  if (!node) {
    const std::int64_t value = *dim.constant();
    auto [it, inserted] = memo_->constants.try_emplace(value, nullptr);
    if (inserted) it->second = sink_.constant(value);
    return it->second;
  }
  if (auto found = memo_->nodes.find(node); found != memo_->nodes.end()) return found->second;
  auto [first, last] = memo_->structures.equal_range(node->hash);
  ProvenPairs proven;
  for (auto it = first; it != last; ++it) {
    if (same(it->second.first, dim, proven)) {
      memo_->nodes.emplace(node, it->second.second);
      memo_->structures.emplace(node->hash, std::pair{dim, it->second.second});
      return it->second.second;
    }
  }

  DimSink::Handle handle = nullptr;
  switch (node->kind) {
    case DimKind::InputExtent:
      handle = sink_.input_extent(node->index0, node->index1, node->label);
      break;
    case DimKind::ShapeValue:
      handle = sink_.shape_value(node->index0, node->index1, node->label);
      break;
    case DimKind::SizeTensor: {
      DimSink::Handle opt = lower(node->lhs);
      handle = sink_.size_tensor(node->index0, opt, lower(node->rhs));
      break;
    }
    case DimKind::Operation: {
      DimSink::Handle a = lower(node->lhs);
      handle = sink_.operation(node->op, a, lower(node->rhs));
      break;
    }
  }
  memo_->nodes.emplace(node, handle);
  memo_->structures.emplace(node->hash, std::pair{dim, handle});
  return handle;
}

std::string operation_program(std::span<const Shape> shapes, std::span<const std::string> names) {
  if (!names.empty() && names.size() != shapes.size()) {
    throw std::invalid_argument("operation_program: " + std::to_string(names.size()) +
                                " names for " + std::to_string(shapes.size()) + " shapes");
  }
  ProgramPrinter printer;
  Lowering lowering(printer);
  std::string outputs;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const std::string name = !names.empty()       ? names[i]
                             : shapes.size() == 1 ? std::string("out")
                                                  : "out" + std::to_string(i);
    for (std::size_t axis = 0; axis < shapes[i].rank(); ++axis) {
      outputs += name + "[" + std::to_string(axis) +
                 "] = " + ProgramPrinter::text(lowering.lower(shapes[i][axis])) + "\n";
    }
  }
  return std::move(printer.program()) + outputs;
}

namespace detail {
Dim apply_unsimplified(DimOp op, const Dim& a, const Dim& b) { return make_operation(op, a, b); }
}  // namespace detail

}  // namespace autoplugin
