// A node's attributes as TensorRT's ONNX parser hands them to a plugin creator: only the fields
// the creator lists, in its order, with the parser's types (INT narrowed to INT32, strings with
// their NUL counted).
#pragma once

#include <NvInferRuntime.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "check/fields.h"
#include "model.h"

namespace autoplugin::onnx {

// Attributes the parser reads itself, never passed on unless a creator lists them.
bool is_parser_attribute(const std::string& name);

struct Conversion {
  check::Fields fields;
  nlohmann::json sent = nlohmann::json::array();  // {name, type, length, value} per field
  std::vector<std::string> dropped;               // attributes the creator does not list
  std::vector<std::string> not_set;               // listed fields the node leaves at default
  std::vector<std::string> problems;              // values the parser would change or refuse
};

Conversion convert_attributes(const Node& node, const nvinfer1::PluginFieldCollection* listed);

}  // namespace autoplugin::onnx
