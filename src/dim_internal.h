// What the Dim sources share, and tests may reach: the expression graph's nodes, their
// construction and structural comparison, and TensorRT's integer semantics. Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "autoplugin/dim.h"

namespace autoplugin::detail {

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

// Structural hash: equal structures (and equal constants) hash equally.
std::size_t hash_of(const Dim& dim);
// Tree size (shared subtrees counted each time), capped far below overflow.
std::uint64_t size_of(const Dim& dim);
bool may_fail(const Dim& dim);
bool has_size_tensor(const Dim& dim);
bool is_constant(const Dim& dim, std::int64_t value);
// The operation node `op(lhs, rhs)`, or nullptr when `dim` is not one.
const DimNode* operation(const Dim& dim, DimOp op);

// New nodes, without simplification.
Dim make_operation(DimOp op, const Dim& lhs, const Dim& rhs);
Dim make_symbol(DimKind kind, int index0, int index1, std::string label);
Dim make_size_tensor(int index, const Dim& opt, const Dim& upper);

// Structural comparison. `proven` remembers pairs of operation nodes already found equal, so that
// comparing two separately built DAGs with shared subtrees stays linear in their size.
using ProvenPairs = std::set<std::pair<const DimNode*, const DimNode*>>;
bool same(const Dim& a, const Dim& b, ProvenPairs& proven);

// Exact integer semantics of TensorRT's operations; nullopt on int64 overflow or division by zero.
std::optional<std::int64_t> checked(DimOp op, std::int64_t a, std::int64_t b);
// Folds a constant operation; `context` (an expression, may be empty) is added to errors.
std::int64_t fold(DimOp op, std::int64_t a, std::int64_t b, const std::string& context = {});

}  // namespace autoplugin::detail
