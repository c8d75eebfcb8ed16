// The C++ converter: adds a declared op to a TensorRT network by name, with typed attributes.
#pragma once

#include <autoplugin/value.h>

#include <NvInfer.h>

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace autoplugin::trt {

// Attribute values by name; each is checked against and converted to the schema's type
// (e.g. an integer for a float attribute). Omitted attributes take the schema's defaults.
using Attributes = std::vector<std::pair<std::string, AttrValue>>;

// Adds `op` ("ns::name", or the plugin name alone) with these tensor inputs and SymInt/SymInt[]
// shape inputs (1-D int64 shape tensors), returning the layer's outputs: the schema's returns,
// then one 0-d size tensor per data-dependent extent. An input given as nullptr is absent (a
// `Tensor?` passed None): trailing ones are left out of the layer's inputs, others are declared
// in the plugin's reserved field autoplugin_absent_inputs. Throws autoplugin::Error naming the op
// and the problem (unknown op, wrong input count, nullptr for a required input, bad attribute,
// TensorRT refusing the layer).
std::vector<nvinfer1::ITensor*> add_op(nvinfer1::INetworkDefinition& network, std::string_view op,
                                       std::span<nvinfer1::ITensor* const> inputs,
                                       const Attributes& attributes = {},
                                       std::span<nvinfer1::ITensor* const> shape_inputs = {},
                                       std::string_view layer_name = {});

}  // namespace autoplugin::trt
