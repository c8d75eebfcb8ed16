// What the adapter tests give the adapter in place of TensorRT's logger and a fixed profile.
#pragma once

#include <NvInferRuntime.h>

#include <autoplugin/trt/plugin.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "tensor_desc.h"

namespace autoplugin::trt::testing {

class CapturingLogger final : public nvinfer1::ILogger {
 public:
  void log(Severity, const char* message) noexcept override { lines.emplace_back(message); }
  std::string all() const {
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    return text;
  }
  std::vector<std::string> lines;
};

class CapturingFinder final : public nvinfer1::ILoggerFinder {
 public:
  nvinfer1::ILogger* findLogger() override { return &logger; }
  CapturingLogger logger;
};

// A tensor of a profile fixed at one shape (min = opt = max), as configurePlugin sees it.
inline nvinfer1::DynamicPluginTensorDesc fixed_profile(nvinfer1::DataType type,
                                                       std::initializer_list<std::int64_t> dims) {
  nvinfer1::DynamicPluginTensorDesc d{};
  d.desc = linear_desc(type, dims);
  d.min = d.opt = d.max = d.desc.dims;
  return d;
}

}  // namespace autoplugin::trt::testing
