// An IExprBuilder that needs no libnvinfer: it records every call, folds constants as TensorRT
// does, evaluates expressions on concrete values, and notices use after the expressions expired.
// Used to drive plugins through the build phase on a CPU (tests and `autoplugin check`).
#pragma once

#include <NvInferRuntime.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace autoplugin::trt {

class RecordingExprBuilder {
 public:
  RecordingExprBuilder();
  ~RecordingExprBuilder();
  RecordingExprBuilder(const RecordingExprBuilder&) = delete;
  RecordingExprBuilder& operator=(const RecordingExprBuilder&) = delete;

  nvinfer1::IExprBuilder& builder() noexcept;

  // An extent TensorRT does not know at build time, named `label` (e.g. "x[0]").
  const nvinfer1::IDimensionExpr* symbol(std::string label);
  const nvinfer1::IDimensionExpr* constant(std::int64_t value);
  // A DimsExprs of constants (value >= 0) and symbols "<name>[i]" (value < 0).
  nvinfer1::DimsExprs dims(std::string_view name, std::span<const std::int64_t> extents);

  struct SizeTensor {
    std::int32_t output;
    const nvinfer1::IDimensionExpr* opt;
    const nvinfer1::IDimensionExpr* upper;
    const nvinfer1::IDimensionExpr* size;
  };
  const std::vector<SizeTensor>& size_tensors() const noexcept { return size_tensors_; }
  // Calls of IExprBuilder::operation (each is work for TensorRT's shape analysis).
  int operation_calls() const noexcept { return operation_calls_; }

  std::string to_string(const nvinfer1::IDimensionExpr* expr) const;
  // Values for symbols by label, and for size tensors by output index. Throws std::out_of_range
  // naming a symbol without a value.
  std::int64_t evaluate(const nvinfer1::IDimensionExpr* expr,
                        const std::map<std::string, std::int64_t>& symbols,
                        const std::map<std::int32_t, std::int64_t>& size_tensors = {}) const;

  // Marks every expression made so far as expired (TensorRT frees them when getOutputShapes
  // returns); any later call through them is recorded in violations().
  void expire() noexcept;
  const std::vector<std::string>& violations() const noexcept { return violations_; }

 private:
  class Expr;
  class Builder;
  friend class Expr;
  friend class Builder;
  const Expr& checked(const nvinfer1::IDimensionExpr& expr, const char* use);
  std::deque<Expr> exprs_;
  std::unique_ptr<Builder> builder_;
  std::vector<SizeTensor> size_tensors_;
  int operation_calls_ = 0;
  std::size_t live_from_ = 0;
  std::vector<std::string> violations_;
};

}  // namespace autoplugin::trt
