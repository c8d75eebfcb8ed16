#include "expr_builder.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>

namespace autoplugin::trt {

using nvinfer1::DimensionOperation;

namespace {

// TensorRT's semantics of one operation on values; nullopt where it is undefined (a division by
// zero, a result outside int64). Kept apart from the core's folding on purpose: this builder
// plays TensorRT in the tests that check the core's expressions against it.
std::optional<std::int64_t> compute(DimensionOperation op, std::int64_t x, std::int64_t y) {
  std::int64_t result = 0;
  switch (op) {
    case DimensionOperation::kSUM:
      if (__builtin_add_overflow(x, y, &result)) return std::nullopt;
      return result;
    case DimensionOperation::kPROD:
      if (__builtin_mul_overflow(x, y, &result)) return std::nullopt;
      return result;
    case DimensionOperation::kMAX:
      return std::max(x, y);
    case DimensionOperation::kMIN:
      return std::min(x, y);
    case DimensionOperation::kSUB:
      if (__builtin_sub_overflow(x, y, &result)) return std::nullopt;
      return result;
    case DimensionOperation::kEQUAL:
      return x == y ? 1 : 0;
    case DimensionOperation::kLESS:
      return x < y ? 1 : 0;
    case DimensionOperation::kFLOOR_DIV:
    case DimensionOperation::kCEIL_DIV: {
      if (y == 0 || (x == std::numeric_limits<std::int64_t>::min() && y == -1)) {
        return std::nullopt;
      }
      const bool inexact = x % y != 0;
      const bool negative = (x < 0) != (y < 0);
      if (op == DimensionOperation::kFLOOR_DIV) return x / y - (inexact && negative ? 1 : 0);
      return x / y + (inexact && !negative ? 1 : 0);
    }
  }
  return std::nullopt;
}

}  // namespace

class RecordingExprBuilder::Expr final : public nvinfer1::IDimensionExpr {
 public:
  enum class Kind { Constant, Symbol, Operation, SizeTensor };

  Expr(RecordingExprBuilder& owner, std::size_t index, Kind kind)
      : owner_(&owner), index_(index), kind_(kind), impl_(*this) {
    mImpl = &impl_;
  }
  ~Expr() noexcept override = default;

  RecordingExprBuilder* owner_;
  std::size_t index_;
  Kind kind_;
  std::int64_t value_ = 0;
  std::string label_;
  DimensionOperation op_ = DimensionOperation::kSUM;
  const Expr* lhs_ = nullptr;
  const Expr* rhs_ = nullptr;
  std::int32_t output_ = -1;

 private:
  // TensorRT's IDimensionExpr forwards to this implementation object.
  class Impl final : public nvinfer1::apiv::VDimensionExpr {
   public:
    explicit Impl(Expr& expr) : expr_(expr) {}
    bool isConstant() const override {
      expr_.owner_->checked(expr_, "isConstant");
      return expr_.kind_ == Kind::Constant;
    }
    int64_t getConstantValue() const override {
      expr_.owner_->checked(expr_, "getConstantValue");
      return expr_.kind_ == Kind::Constant ? expr_.value_ : std::numeric_limits<int64_t>::min();
    }
    bool isSizeTensor() const override {
      expr_.owner_->checked(expr_, "isSizeTensor");
      return expr_.kind_ == Kind::SizeTensor;
    }

   private:
    Expr& expr_;
  };
  Impl impl_;
};

class RecordingExprBuilder::Builder final : public nvinfer1::IExprBuilder {
 public:
  explicit Builder(RecordingExprBuilder& owner) : impl_(owner) { mImpl = &impl_; }
  ~Builder() noexcept override = default;

 private:
  class Impl final : public nvinfer1::apiv::VExprBuilder {
   public:
    explicit Impl(RecordingExprBuilder& owner) : owner_(owner) {}
    const nvinfer1::IDimensionExpr* constant(int64_t value) override {
      return owner_.constant(value);
    }
    const nvinfer1::IDimensionExpr* operation(DimensionOperation op,
                                              const nvinfer1::IDimensionExpr& first,
                                              const nvinfer1::IDimensionExpr& second) override {
      ++owner_.operation_calls_;
      const Expr& a = owner_.checked(first, "operation");
      const Expr& b = owner_.checked(second, "operation");
      // Like TensorRT, fold constant operands (division by zero stays symbolic).
      if (a.kind_ == Expr::Kind::Constant && b.kind_ == Expr::Kind::Constant) {
        if (auto value = compute(op, a.value_, b.value_)) return owner_.constant(*value);
      }
      Expr& e = owner_.exprs_.emplace_back(owner_, owner_.exprs_.size(), Expr::Kind::Operation);
      e.op_ = op;
      e.lhs_ = &a;
      e.rhs_ = &b;
      return &e;
    }
    const nvinfer1::IDimensionExpr* declareSizeTensor(
        int32_t output, const nvinfer1::IDimensionExpr& opt,
        const nvinfer1::IDimensionExpr& upper) override {
      const Expr& o = owner_.checked(opt, "declareSizeTensor");
      const Expr& u = owner_.checked(upper, "declareSizeTensor");
      Expr& e = owner_.exprs_.emplace_back(owner_, owner_.exprs_.size(), Expr::Kind::SizeTensor);
      e.output_ = output;
      e.lhs_ = &o;
      e.rhs_ = &u;
      owner_.size_tensors_.push_back({output, &o, &u, &e});
      return &e;
    }

   private:
    RecordingExprBuilder& owner_;
  };
  Impl impl_;
};

RecordingExprBuilder::RecordingExprBuilder() : builder_(std::make_unique<Builder>(*this)) {}
RecordingExprBuilder::~RecordingExprBuilder() = default;

nvinfer1::IExprBuilder& RecordingExprBuilder::builder() noexcept { return *builder_; }

const nvinfer1::IDimensionExpr* RecordingExprBuilder::symbol(std::string label) {
  Expr& e = exprs_.emplace_back(*this, exprs_.size(), Expr::Kind::Symbol);
  e.label_ = std::move(label);
  return &e;
}

const nvinfer1::IDimensionExpr* RecordingExprBuilder::constant(std::int64_t value) {
  Expr& e = exprs_.emplace_back(*this, exprs_.size(), Expr::Kind::Constant);
  e.value_ = value;
  return &e;
}

nvinfer1::DimsExprs RecordingExprBuilder::dims(std::string_view name,
                                               std::span<const std::int64_t> extents) {
  nvinfer1::DimsExprs result{};
  if (extents.size() > static_cast<std::size_t>(nvinfer1::Dims::MAX_DIMS)) {
    throw std::length_error(std::string(name) + " has more than " +
                            std::to_string(nvinfer1::Dims::MAX_DIMS) + " extents");
  }
  result.nbDims = static_cast<std::int32_t>(extents.size());
  for (std::size_t i = 0; i < extents.size(); ++i) {
    result.d[i] = extents[i] >= 0 ? constant(extents[i])
                                  : symbol(std::string(name) + "[" + std::to_string(i) + "]");
  }
  return result;
}

void RecordingExprBuilder::expire() noexcept { live_from_ = exprs_.size(); }

const RecordingExprBuilder::Expr& RecordingExprBuilder::checked(
    const nvinfer1::IDimensionExpr& expr, const char* use) {
  const auto& e = static_cast<const Expr&>(expr);
  if (e.owner_ != this) {
    violations_.push_back(std::string(use) + " on an expression from another builder");
  } else if (e.index_ < live_from_) {
    violations_.push_back(std::string(use) + " on an expired expression (" + to_string(&e) +
                          ") after getOutputShapes returned");
  }
  return e;
}

std::string RecordingExprBuilder::to_string(const nvinfer1::IDimensionExpr* expr) const {
  const auto* e = static_cast<const Expr*>(expr);
  switch (e->kind_) {
    case Expr::Kind::Constant:
      return std::to_string(e->value_);
    case Expr::Kind::Symbol:
      return e->label_;
    case Expr::Kind::SizeTensor:
      return "size_tensor(output " + std::to_string(e->output_) + ")";
    case Expr::Kind::Operation:
      break;
  }
  static constexpr const char* kNames[] = {"SUM",   "PROD", "MAX",       "MIN",     "SUB",
                                           "EQUAL", "LESS", "FLOOR_DIV", "CEIL_DIV"};
  return std::string(kNames[static_cast<int>(e->op_)]) + "(" + to_string(e->lhs_) + ", " +
         to_string(e->rhs_) + ")";
}

std::int64_t RecordingExprBuilder::evaluate(
    const nvinfer1::IDimensionExpr* expr, const std::map<std::string, std::int64_t>& symbols,
    const std::map<std::int32_t, std::int64_t>& size_tensors) const {
  const auto* e = static_cast<const Expr*>(expr);
  switch (e->kind_) {
    case Expr::Kind::Constant:
      return e->value_;
    case Expr::Kind::Symbol: {
      auto it = symbols.find(e->label_);
      if (it == symbols.end()) throw std::out_of_range("no value for symbol " + e->label_);
      return it->second;
    }
    case Expr::Kind::SizeTensor: {
      auto it = size_tensors.find(e->output_);
      if (it == size_tensors.end()) {
        throw std::out_of_range("no value for the size tensor of output " +
                                std::to_string(e->output_));
      }
      return it->second;
    }
    case Expr::Kind::Operation:
      break;
  }
  const auto value = compute(e->op_, evaluate(e->lhs_, symbols, size_tensors),
                             evaluate(e->rhs_, symbols, size_tensors));
  if (!value) throw std::domain_error("division by zero or int64 overflow in " + to_string(e));
  return *value;
}

}  // namespace autoplugin::trt
