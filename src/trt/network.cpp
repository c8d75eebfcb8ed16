#include <autoplugin/backend/field_codec.h>
#include <autoplugin/backend/op.h>
#include <autoplugin/backend/trt/convert.h>
#include <autoplugin/error.h>
#include <autoplugin/trt/network.h>
#include <autoplugin/trt/plugin.h>

#include <algorithm>
#include <memory>

#include "layer_inputs.h"

namespace autoplugin::trt {
namespace {

// The op add_op adds, or an error listing the known ones.
const Op& op_named(std::string_view name) {
  if (const Op* op = find_op(name)) return *op;
  std::string known;
  for (const Op& op : registry().ops()) known += (known.empty() ? "" : ", ") + op.qualified_name();
  throw Error("no op named '" + std::string(name) +
              "' (known: " + (known.empty() ? "none" : known) + ")");
}

}  // namespace

LayerInputs layer_inputs(const Op& op, std::span<nvinfer1::ITensor* const> inputs) {
  const std::string who = "op '" + op.qualified_name() + "': ";
  if (inputs.size() != std::size_t(op.num_inputs())) {
    throw Error(who + "expected " + std::to_string(op.num_inputs()) +
                " input tensors (nullptr for an absent Tensor?), got " +
                std::to_string(inputs.size()));
  }
  AbsentInputs absent;
  for (int k = 0; k < op.num_inputs(); ++k) {
    if (inputs[std::size_t(k)] != nullptr) continue;
    const Argument& a = op.input(k);
    if (!a.type.optional) {
      throw Error(who + "argument '" + a.name + "' (" + a.type.to_string() +
                  ") is required, but its tensor is nullptr; only a Tensor? argument may be "
                  "absent");
    }
    if (k > AbsentInputs::kMaxIndex) {
      throw Error(who + "argument '" + a.name + "': inputs past index " +
                  std::to_string(AbsentInputs::kMaxIndex) + " cannot be absent");
    }
    absent.add(k);
  }
  LayerInputs result;
  for (int k : op.present_inputs(absent)) result.tensors.push_back(inputs[std::size_t(k)]);
  for (int k : op.absent_to_declare(absent).indices()) result.declared_absent.push_back(k);
  return result;
}

std::vector<nvinfer1::ITensor*> add_op(nvinfer1::INetworkDefinition& network, std::string_view name,
                                       std::span<nvinfer1::ITensor* const> inputs,
                                       const Attributes& attributes,
                                       std::span<nvinfer1::ITensor* const> shape_inputs,
                                       std::string_view layer_name) {
  const Op& op = op_named(name);
  const std::string who = "op '" + op.qualified_name() + "': ";
  if (inputs.size() != std::size_t(op.num_inputs()) ||
      shape_inputs.size() != std::size_t(op.num_shape_inputs())) {
    throw Error(who + "expected " + std::to_string(op.num_inputs()) + " input tensors and " +
                std::to_string(op.num_shape_inputs()) + " shape inputs, got " +
                std::to_string(inputs.size()) + " and " + std::to_string(shape_inputs.size()));
  }
  const LayerInputs passed = layer_inputs(op, inputs);
  // Not a structured binding: clang 14 cannot capture one in a lambda.
  for (const auto& given : attributes) {
    const std::string& attribute = given.first;
    const bool known = std::any_of(op.attributes().begin(), op.attributes().end(),
                                   [&](const Argument* a) { return a->name == attribute; });
    if (!known) throw FieldError(who + "no attribute named '" + attribute + "'");
  }
  // Typed values go through the same field codec as the ONNX parser's, so defaults, coercions
  // and checks are one code path.
  std::vector<AttrValue> values;
  for (const Argument* a : op.attributes()) {
    auto given = std::find_if(attributes.begin(), attributes.end(),
                              [&](const auto& entry) { return entry.first == a->name; });
    if (given != attributes.end()) {
      values.push_back(coerce_attribute(op.schema(), *a, given->second));
    } else if (auto absent = value_when_absent(*a)) {
      values.push_back(std::move(*absent));
    } else {
      throw FieldError(who + "attribute '" + a->name + "' (" + a->type.to_string() +
                       ") is required");
    }
  }
  const FieldList fields = encode_attributes(op.schema(), values, passed.declared_absent);
  std::vector<nvinfer1::PluginField> plugin_fields;
  const nvinfer1::PluginFieldCollection collection = to_trt(fields, plugin_fields);
  nvinfer1::IPluginCreatorV3One* creator = creator_for(op.qualified_name());
  if (creator == nullptr) throw Error(who + "has no plugin creator");
  const std::string layer(layer_name.empty() ? op.plugin_name() : layer_name);
  // The network keeps its own copy of the plugin.
  std::unique_ptr<nvinfer1::IPluginV3> plugin(
      creator->createPlugin(layer.c_str(), &collection, nvinfer1::TensorRTPhase::kBUILD));
  if (!plugin) throw Error(who + "could not create the plugin (see the log)");
  nvinfer1::IPluginV3Layer* added = network.addPluginV3(
      passed.tensors.data(), static_cast<std::int32_t>(passed.tensors.size()), shape_inputs.data(),
      static_cast<std::int32_t>(shape_inputs.size()), *plugin);
  if (added == nullptr) throw Error(who + "TensorRT did not add the plugin layer");
  added->setName(layer.c_str());
  std::vector<nvinfer1::ITensor*> outputs;
  for (std::int32_t j = 0; j < added->getNbOutputs(); ++j) outputs.push_back(added->getOutput(j));
  return outputs;
}

}  // namespace autoplugin::trt
