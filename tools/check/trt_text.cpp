#include "trt_text.h"

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

std::string format_text(TensorFormat format) {
  const auto mapped = trt::from_trt(format);
  return mapped ? std::string(format_name(*mapped))
                : "format " + std::to_string(static_cast<int>(format));
}

}  // namespace autoplugin::check
