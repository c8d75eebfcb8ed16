// The nine operations and those derived from them: constant folding and the simplifier.
//
// Simplification never changes a defined value. It may drop a subexpression only when that
// subexpression cannot fail by division by zero, so that a symbolic evaluation fails exactly where
// the plain-integer run of the same shape function fails. The one permitted difference is that
// merging constants can avoid an intermediate int64 overflow that the unsimplified form would hit.
#include <limits>

#include "autoplugin/error.h"
#include "dim_internal.h"

namespace autoplugin {

using namespace detail;

namespace {

constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

bool commutative(DimOp op) {
  return op == DimOp::Sum || op == DimOp::Prod || op == DimOp::Max || op == DimOp::Min ||
         op == DimOp::Equal;
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

}  // namespace

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
Bool operator||(const Bool& a, const Bool& b) {
  // Either side known true makes the whole true (the other side is kept when it may fail).
  if (is_constant(a.as_dim(), 1) && !may_fail(b.as_dim())) return a;
  if (is_constant(b.as_dim(), 1) && !may_fail(a.as_dim())) return b;
  if (identical(a.as_dim(), b.as_dim())) return a;
  return Bool(max(a.as_dim(), b.as_dim()));
}

Dim select(const Bool& condition, const Dim& if_true, const Dim& if_false) {
  const Dim& c = condition.as_dim();
  // With a constant condition the general form folds to one branch (the other is dropped unless
  // it may fail, see the top of this file).
  if (!may_fail(c) && identical(if_true, if_false)) return if_true;
  const Dim lowered = c * if_true + (1 - c) * if_false;
  // A choice still open prints as the select() it was written as, not as its arithmetic.
  if (c.is_constant()) return lowered;
  return mark_as_select(lowered, {c, if_true, if_false});
}

}  // namespace autoplugin
