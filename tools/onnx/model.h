// The parts of an ONNX model that TensorRT's ONNX parser reads to make plugins: the main graph's
// nodes with their attributes, read from protobuf's wire format (no protobuf library needed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace autoplugin::onnx {

// AttributeProto.AttributeType and TensorProto.DataType values (onnx.proto).
enum class AttributeType : int {
  Undefined = 0,
  Float = 1,
  Int = 2,
  String = 3,
  Tensor = 4,
  Graph = 5,
  Floats = 6,
  Ints = 7,
  Strings = 8,
  Tensors = 9,
  Graphs = 10,
  SparseTensor = 11,
  SparseTensors = 12,
  TypeProto = 13,
  TypeProtos = 14,
};
std::string attribute_type_name(AttributeType type);
std::string tensor_type_name(std::int32_t data_type);

struct Tensor {
  std::int32_t data_type = 0;
  std::vector<std::int64_t> dims;
  std::string raw_data;
  std::vector<float> float_data;
  std::vector<std::int32_t> int32_data;
  std::vector<std::int64_t> int64_data;
  std::vector<double> double_data;
  bool external = false;  // data_location EXTERNAL: the values are in another file
};

struct Attribute {
  std::string name;
  AttributeType type = AttributeType::Undefined;
  float f = 0;
  std::int64_t i = 0;
  std::string s;
  std::optional<Tensor> t;
  std::vector<float> floats;
  std::vector<std::int64_t> ints;
  std::vector<std::string> strings;
};

struct Node {
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::string name;
  std::string op_type;
  std::string domain;
  std::vector<Attribute> attributes;
  // Where a node of a subgraph is: "node 'loop' attribute 'body'", nested with " / "; empty in
  // the main graph.
  std::string graph;
  const Attribute* attribute(std::string_view attribute_name) const;
};

struct Function {
  std::string domain;
  std::string name;
};

struct Model {
  // The main graph's nodes in file order, each followed by the nodes of its subgraphs (the
  // bodies of If, Loop and Scan, which the parser imports too).
  std::vector<Node> nodes;
  std::vector<Function> functions;  // model-local functions: nodes calling them are not plugins
};

// Throws autoplugin::Error naming the file and the byte where a truncated or malformed model
// stops making sense.
Model parse_model(std::string_view bytes, const std::string& path);
Model read_model(const std::string& path);

}  // namespace autoplugin::onnx
