// Lowering: the expression graph onto a DimSink (TensorRT's IExprBuilder, or the printed
// operation program), each distinct subexpression once.
#include <deque>
#include <stdexcept>
#include <unordered_map>

#include "dim_internal.h"

namespace autoplugin {

using namespace detail;

namespace {

// The sink behind operation_program: one line per builder call.
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
  const DimNode* node = node_of(dim);
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

}  // namespace autoplugin
