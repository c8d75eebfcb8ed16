// The printer: a Dim as the infix expression a user would write, with comparisons, logical
// operators and select() shown as written rather than as the arithmetic they lower to.
#include <optional>

#include "dim_internal.h"

namespace autoplugin {

using namespace detail;

namespace {

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
  const DimNode* node = node_of(dim);
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
    const DimNode& negated = *node_of(node.rhs);
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
  const DimNode* node = node_of(dim);
  if (!node) {
    const std::int64_t value = *dim.constant();
    return {std::to_string(value), value < 0 ? kUnary : kAtom};
  }
  if (node->kind != DimKind::Operation) return {node->label, kAtom};
  if (const SelectCall* call = node->written_as.get()) {
    return {"select(" + print(call->condition).text + ", " + print(call->if_true).text + ", " +
                print(call->if_false).text + ")",
            kAtom};
  }
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

}  // namespace

std::string to_string(const Dim& dim) { return print(dim).text; }

}  // namespace autoplugin
