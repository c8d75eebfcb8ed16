#include "trt_text.h"

#include <autoplugin/backend/trt/convert.h>
#include <autoplugin/trt/plugin.h>

namespace autoplugin::check {

using nvinfer1::DataType;
using nvinfer1::PluginFieldType;
using nvinfer1::TensorFormat;

std::string field_type_text(PluginFieldType type) {
  const auto mapped = trt::from_trt(type);
  return mapped ? std::string(field_type_name(*mapped))
                : "type " + std::to_string(static_cast<int>(type));
}

std::string dtype_text(DataType type) {
  const auto mapped = trt::from_trt(type);
  return mapped ? std::string(dtype_name(*mapped))
                : "data type " + std::to_string(static_cast<int>(type));
}

// Every TensorRT format, also those the core does not declare (the format search offers all).
std::string format_text(TensorFormat format) {
  switch (format) {
    case TensorFormat::kLINEAR:
      return "LINEAR";
    case TensorFormat::kCHW2:
      return "CHW2";
    case TensorFormat::kHWC8:
      return "HWC8";
    case TensorFormat::kCHW4:
      return "CHW4";
    case TensorFormat::kCHW16:
      return "CHW16";
    case TensorFormat::kCHW32:
      return "CHW32";
    case TensorFormat::kDHWC8:
      return "DHWC8";
    case TensorFormat::kCDHW32:
      return "CDHW32";
    case TensorFormat::kHWC:
      return "HWC";
    case TensorFormat::kDLA_LINEAR:
      return "DLA_LINEAR";
    case TensorFormat::kDLA_HWC4:
      return "DLA_HWC4";
    case TensorFormat::kHWC16:
      return "HWC16";
    case TensorFormat::kDHWC:
      return "DHWC";
  }
  return "format " + std::to_string(static_cast<int>(format));
}

}  // namespace autoplugin::check
