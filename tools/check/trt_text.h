// Printed names of TensorRT's enums in check reports, in the core's spelling where it has one.
#pragma once

#include <NvInferRuntime.h>

#include <string>

namespace autoplugin::check {

std::string field_type_text(nvinfer1::PluginFieldType type);
std::string dtype_text(nvinfer1::DataType type);
std::string format_text(nvinfer1::TensorFormat format);

}  // namespace autoplugin::check
