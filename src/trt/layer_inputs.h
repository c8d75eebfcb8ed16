// How add_op passes its inputs to the layer: separate from network.cpp so that the tests check it
// without a TensorRT network. Not installed.
#pragma once

#include <autoplugin/backend/op.h>

#include <NvInfer.h>

#include <cstdint>
#include <span>
#include <vector>

namespace autoplugin::trt {

// How add_op passes `inputs` (one per tensor argument, nullptr where absent): the tensors the
// layer gets, and the absent inputs the plugin's reserved field declares. Throws Error naming
// the op and the argument for a nullptr given for a required input.
struct LayerInputs {
  std::vector<nvinfer1::ITensor*> tensors;
  std::vector<std::int64_t> declared_absent;
};
LayerInputs layer_inputs(const Op& op, std::span<nvinfer1::ITensor* const> inputs);

}  // namespace autoplugin::trt
