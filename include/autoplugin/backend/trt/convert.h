// Conversions between TensorRT's enums and field collections and the core's. Used by the adapter,
// autoplugin check, the benchmarks and tests; not part of the API an op author uses.
#pragma once

#include <autoplugin/backend/field_codec.h>
#include <autoplugin/dim.h>
#include <autoplugin/dtype.h>

#include <NvInferRuntime.h>

#include <optional>
#include <vector>

namespace autoplugin::trt {

std::optional<DType> from_trt(nvinfer1::DataType type) noexcept;
std::optional<nvinfer1::DataType> to_trt(DType dtype) noexcept;
std::optional<Format> from_trt(nvinfer1::TensorFormat format) noexcept;
nvinfer1::TensorFormat to_trt(Format format) noexcept;
nvinfer1::DimensionOperation to_trt(DimOp op) noexcept;
nvinfer1::PluginFieldType to_trt(FieldType type) noexcept;
// TensorRT's view of encoded fields: the PluginField array is kept in `storage`; the collection
// is valid while `fields` and `storage` live.
nvinfer1::PluginFieldCollection to_trt(const FieldList& fields,
                                       std::vector<nvinfer1::PluginField>& storage);
std::optional<FieldType> from_trt(nvinfer1::PluginFieldType type) noexcept;

}  // namespace autoplugin::trt
