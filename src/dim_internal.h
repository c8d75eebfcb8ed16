// What the Dim sources share, and tests may reach: the expression graph's nodes, their
// construction and structural comparison, TensorRT's integer semantics, and evaluation with
// concrete values. Not installed: none of it is the user's API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <autoplugin/backend/shapes.h>
#include "autoplugin/dim.h"

namespace autoplugin::detail {

enum class DimKind : std::uint8_t { InputExtent, ShapeValue, SizeTensor, Operation };

// The select(condition, if_true, if_false) call an operation node was lowered from.
struct SelectCall {
  Dim condition;
  Dim if_true;
  Dim if_false;
};

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
  bool has_shape_value = false;
  // Set on the node select() returns, so that it prints as written. Not part of the structure:
  // identity, hashing, evaluation and lowering see only the arithmetic.
  std::shared_ptr<const SelectCall> written_as;
};

struct DimAccess {
  static Dim wrap(std::shared_ptr<const DimNode> node) {
    Dim dim;
    dim.node_ = std::move(node);
    return dim;
  }
  static const DimNode* node(const Dim& dim) noexcept { return dim.node_.get(); }
};

// The node of a symbolic dim; null for a constant.
inline const DimNode* node_of(const Dim& dim) noexcept { return DimAccess::node(dim); }

// Structural hash: equal structures (and equal constants) hash equally.
std::size_t hash_of(const Dim& dim);
// Tree size (shared subtrees counted each time), capped far below overflow.
std::uint64_t size_of(const Dim& dim);
bool may_fail(const Dim& dim);
bool has_size_tensor(const Dim& dim);
bool has_shape_value(const Dim& dim);
bool is_constant(const Dim& dim, std::int64_t value);
// The operation node `op(lhs, rhs)`, or nullptr when `dim` is not one.
const DimNode* operation(const Dim& dim, DimOp op);

// New nodes, without simplification.
Dim make_operation(DimOp op, const Dim& lhs, const Dim& rhs);
Dim make_symbol(DimKind kind, int index0, int index1, std::string label);
Dim make_size_tensor(int index, const Dim& opt, const Dim& upper);
// `lowered`, marked as the select() call it came from (unchanged when it is not an operation).
Dim mark_as_select(const Dim& lowered, SelectCall call);

// Structural comparison. `proven` remembers pairs of operation nodes already found equal, so that
// comparing two separately built DAGs with shared subtrees stays linear in their size.
using ProvenPairs = std::set<std::pair<const DimNode*, const DimNode*>>;
bool same(const Dim& a, const Dim& b, ProvenPairs& proven);

// Exact integer semantics of TensorRT's operations; nullopt on int64 overflow or division by zero.
std::optional<std::int64_t> checked(DimOp op, std::int64_t a, std::int64_t b);
// Folds a constant operation; `context` (an expression, may be empty) is added to errors.
std::int64_t fold(DimOp op, std::int64_t a, std::int64_t b, const std::string& context = {});

// Builds the operation node without simplification or folding (for tests that compare the
// simplifier against the raw expression).
Dim apply_unsimplified(DimOp op, const Dim& a, const Dim& b);

}  // namespace autoplugin::detail

namespace autoplugin {

inline constexpr int kDimOpCount = 9;  // the DimOp values, 0 to 8

// Structural identity of two expressions (not value equality).
bool identical(const Dim& a, const Dim& b) noexcept;

}  // namespace autoplugin
