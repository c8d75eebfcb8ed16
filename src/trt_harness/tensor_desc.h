// TensorRT's description of a linear (row-major) tensor with known extents, as the builder hands
// it to a plugin; for the code that plays TensorRT's part (tests, autoplugin check, benchmarks).
#pragma once

#include <NvInferRuntime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace autoplugin::trt {

inline nvinfer1::Dims dims_of(const std::vector<std::int64_t>& extents) {
  if (extents.size() > static_cast<std::size_t>(nvinfer1::Dims::MAX_DIMS)) {
    throw std::invalid_argument("rank " + std::to_string(extents.size()) + " exceeds TensorRT's " +
                                std::to_string(nvinfer1::Dims::MAX_DIMS));
  }
  nvinfer1::Dims dims{};
  dims.nbDims = static_cast<std::int32_t>(extents.size());
  std::copy(extents.begin(), extents.end(), dims.d);
  return dims;
}

inline nvinfer1::PluginTensorDesc linear_desc(nvinfer1::DataType type,
                                              const std::vector<std::int64_t>& extents) {
  nvinfer1::PluginTensorDesc desc{};
  desc.type = type;
  desc.format = nvinfer1::TensorFormat::kLINEAR;
  desc.scale = 1.0f;
  desc.dims = dims_of(extents);
  return desc;
}

}  // namespace autoplugin::trt
