// TensorRT's enums and field collections to and from the core's, checked against the headers.
#include <autoplugin/backend/trt/convert.h>

#include <iterator>
#include <utility>

namespace autoplugin::trt {

using nvinfer1::DataType;
using nvinfer1::DimensionOperation;
using nvinfer1::PluginFieldType;
using nvinfer1::TensorFormat;

// The core mirrors TensorRT's numbering for these; a changed header would break the mapping.
static_assert(int(DimensionOperation::kSUM) == int(DimOp::Sum) &&
              int(DimensionOperation::kPROD) == int(DimOp::Prod) &&
              int(DimensionOperation::kMAX) == int(DimOp::Max) &&
              int(DimensionOperation::kMIN) == int(DimOp::Min) &&
              int(DimensionOperation::kSUB) == int(DimOp::Sub) &&
              int(DimensionOperation::kEQUAL) == int(DimOp::Equal) &&
              int(DimensionOperation::kLESS) == int(DimOp::Less) &&
              int(DimensionOperation::kFLOOR_DIV) == int(DimOp::FloorDiv) &&
              int(DimensionOperation::kCEIL_DIV) == int(DimOp::CeilDiv));
static_assert(int(PluginFieldType::kFLOAT16) == int(FieldType::Float16) &&
              int(PluginFieldType::kFLOAT32) == int(FieldType::Float32) &&
              int(PluginFieldType::kFLOAT64) == int(FieldType::Float64) &&
              int(PluginFieldType::kINT8) == int(FieldType::Int8) &&
              int(PluginFieldType::kINT16) == int(FieldType::Int16) &&
              int(PluginFieldType::kINT32) == int(FieldType::Int32) &&
              int(PluginFieldType::kCHAR) == int(FieldType::Char) &&
              int(PluginFieldType::kDIMS) == int(FieldType::Dims) &&
              int(PluginFieldType::kUNKNOWN) == int(FieldType::Unknown) &&
              int(PluginFieldType::kBF16) == int(FieldType::BFloat16) &&
              int(PluginFieldType::kINT64) == int(FieldType::Int64) &&
              int(PluginFieldType::kFP8) == int(FieldType::FP8) &&
              int(PluginFieldType::kINT4) == int(FieldType::Int4) &&
              int(PluginFieldType::kFP4) == int(FieldType::FP4));

// The core's dtypes and formats and TensorRT's, pair by pair: one table for both directions.
constexpr std::pair<DType, DataType> kDataTypes[] = {
    {DType::Float32, DataType::kFLOAT}, {DType::Float16, DataType::kHALF},
    {DType::BFloat16, DataType::kBF16}, {DType::Int8, DataType::kINT8},
    {DType::Int32, DataType::kINT32},   {DType::Int64, DataType::kINT64},
    {DType::UInt8, DataType::kUINT8},   {DType::Bool, DataType::kBOOL},
    {DType::Float8E4M3, DataType::kFP8}};
static_assert(std::size(kDataTypes) == kDTypeCount, "every DType has a TensorRT DataType");
constexpr std::pair<Format, TensorFormat> kFormats[] = {{Format::Linear, TensorFormat::kLINEAR},
                                                        {Format::HWC, TensorFormat::kHWC},
                                                        {Format::CHW4, TensorFormat::kCHW4},
                                                        {Format::CHW32, TensorFormat::kCHW32},
                                                        {Format::HWC8, TensorFormat::kHWC8}};

std::optional<DType> from_trt(DataType type) noexcept {
  for (const auto& [ours, theirs] : kDataTypes) {
    if (theirs == type) return ours;
  }
  return std::nullopt;
}

std::optional<DataType> to_trt(DType dtype) noexcept {
  for (const auto& [ours, theirs] : kDataTypes) {
    if (ours == dtype) return theirs;
  }
  return std::nullopt;
}

std::optional<Format> from_trt(TensorFormat format) noexcept {
  for (const auto& [ours, theirs] : kFormats) {
    if (theirs == format) return ours;
  }
  return std::nullopt;
}

TensorFormat to_trt(Format format) noexcept {
  for (const auto& [ours, theirs] : kFormats) {
    if (ours == format) return theirs;
  }
  return TensorFormat::kLINEAR;
}

DimensionOperation to_trt(DimOp op) noexcept { return static_cast<DimensionOperation>(op); }

PluginFieldType to_trt(FieldType type) noexcept { return static_cast<PluginFieldType>(type); }

nvinfer1::PluginFieldCollection to_trt(const FieldList& fields,
                                       std::vector<nvinfer1::PluginField>& storage) {
  storage.clear();
  for (const FieldView& f : fields.views()) {
    storage.emplace_back(f.name.data(), f.data, to_trt(f.type), f.length);
  }
  return {static_cast<std::int32_t>(storage.size()), storage.data()};
}

std::optional<FieldType> from_trt(PluginFieldType type) noexcept {
  const auto value = static_cast<int>(type);
  if (value < int(FieldType::Float16) || value > int(FieldType::FP4)) return std::nullopt;
  return static_cast<FieldType>(value);
}

}  // namespace autoplugin::trt
