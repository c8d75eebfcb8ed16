#include "model.h"

#include <autoplugin/error.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace autoplugin::onnx {

namespace {

enum class Wire : std::uint32_t { Varint = 0, Fixed64 = 1, Bytes = 2, Fixed32 = 5 };

// One message of the wire format. Every read is checked against the end of its message, so a
// truncated or hostile file gives an error, never a read out of bounds.
class Reader {
 public:
  Reader(std::string_view bytes, std::size_t offset, const std::string& path)
      : bytes_(bytes), offset_(offset), path_(&path) {}

  bool done() const { return position_ >= bytes_.size(); }

  // The next field's number and wire type.
  std::pair<std::uint32_t, Wire> tag() {
    const std::uint64_t key = varint("a field tag");
    const auto field = static_cast<std::uint32_t>(key >> 3);
    const auto wire = static_cast<std::uint32_t>(key & 7);
    if (field == 0 || key >> 32 != 0 || (wire != 0 && wire != 1 && wire != 2 && wire != 5)) {
      fail("a field tag (" + std::to_string(key) + ") that protobuf does not produce");
    }
    return {field, static_cast<Wire>(wire)};
  }

  std::uint64_t varint(const char* what) {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (done()) fail(std::string("the end of the data in the middle of ") + what);
      const auto byte = static_cast<std::uint8_t>(bytes_[position_++]);
      value |= std::uint64_t(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    fail(std::string("a varint longer than 10 bytes in ") + what);
  }

  // A length-delimited field: its bytes and their offset in the file.
  Reader message(const char* what) {
    const std::string_view data = length_delimited(what);
    return Reader(data, offset_ + position_ - data.size(), *path_);
  }
  std::string_view length_delimited(const char* what) {
    const std::uint64_t length = varint(what);
    if (length > bytes_.size() - position_) {
      fail(std::string(what) + " of " + std::to_string(length) + " bytes, where only " +
           std::to_string(bytes_.size() - position_) + " remain");
    }
    const std::string_view data = bytes_.substr(position_, length);
    position_ += length;
    return data;
  }
  std::string string(const char* what) { return std::string(length_delimited(what)); }

  template <typename T>
  T fixed(const char* what) {
    if (bytes_.size() - position_ < sizeof(T)) {
      fail(std::string("the end of the data in the middle of ") + what);
    }
    T value;
    std::memcpy(&value, bytes_.data() + position_, sizeof(T));  // little-endian, as x86 and arm
    position_ += sizeof(T);
    return value;
  }

  // A repeated scalar, packed (one length-delimited run) or not (one element per tag).
  template <typename T>
  void repeated(Wire wire, Wire element_wire, std::vector<T>& out, const char* what) {
    auto one = [&](Reader& r) {
      if constexpr (std::is_floating_point_v<T>) {
        out.push_back(r.fixed<T>(what));
      } else {
        out.push_back(static_cast<T>(r.varint(what)));
      }
    };
    if (wire == Wire::Bytes) {
      Reader packed = message(what);
      while (!packed.done()) one(packed);
    } else if (wire == element_wire) {
      one(*this);
    } else {
      fail(std::string(what) + " with an unexpected wire type");
    }
  }

  void expect(Wire wire, Wire expected, const char* what) {
    if (wire != expected) fail(std::string(what) + " with an unexpected wire type");
  }

  void skip(Wire wire) {
    switch (wire) {
      case Wire::Varint:
        varint("a skipped field");
        break;
      case Wire::Fixed64:
        fixed<std::uint64_t>("a skipped field");
        break;
      case Wire::Fixed32:
        fixed<std::uint32_t>("a skipped field");
        break;
      case Wire::Bytes:
        length_delimited("a skipped field");
        break;
    }
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(*path_ + " is not a valid ONNX model: at byte " +
                std::to_string(offset_ + position_) + ", " + what);
  }

 private:
  std::string_view bytes_;
  std::size_t offset_;  // of bytes_ in the file, for messages
  const std::string* path_;
  std::size_t position_ = 0;
};

Tensor read_tensor(Reader r) {
  Tensor t;
  while (!r.done()) {
    const auto [field, wire] = r.tag();
    switch (field) {
      case 1:
        r.repeated(wire, Wire::Varint, t.dims, "TensorProto.dims");
        break;
      case 2:
        r.expect(wire, Wire::Varint, "TensorProto.data_type");
        t.data_type = static_cast<std::int32_t>(r.varint("TensorProto.data_type"));
        break;
      case 4:
        r.repeated(wire, Wire::Fixed32, t.float_data, "TensorProto.float_data");
        break;
      case 5:
        r.repeated(wire, Wire::Varint, t.int32_data, "TensorProto.int32_data");
        break;
      case 7:
        r.repeated(wire, Wire::Varint, t.int64_data, "TensorProto.int64_data");
        break;
      case 9:
        r.expect(wire, Wire::Bytes, "TensorProto.raw_data");
        t.raw_data = r.string("TensorProto.raw_data");
        break;
      case 10:
        r.repeated(wire, Wire::Fixed64, t.double_data, "TensorProto.double_data");
        break;
      case 14:
        r.expect(wire, Wire::Varint, "TensorProto.data_location");
        t.external = r.varint("TensorProto.data_location") == 1;
        break;
      default:
        r.skip(wire);
    }
  }
  return t;
}

// Models older than IR version 3 have no `type`: it is the field that holds a value.
AttributeType type_of_field(std::uint32_t field) {
  switch (field) {
    case 2:
      return AttributeType::Float;
    case 3:
      return AttributeType::Int;
    case 4:
      return AttributeType::String;
    case 5:
      return AttributeType::Tensor;
    case 6:
      return AttributeType::Graph;
    case 7:
      return AttributeType::Floats;
    case 8:
      return AttributeType::Ints;
    case 9:
      return AttributeType::Strings;
    case 10:
      return AttributeType::Tensors;
    case 11:
      return AttributeType::Graphs;
    default:
      return AttributeType::Undefined;
  }
}

// Deeper nesting is refused rather than risking the stack on a hostile file.
constexpr int kMaxGraphDepth = 32;

void read_graph(Reader r, const std::string& where, int depth, std::vector<Node>& nodes);

// `subgraph_nodes` receives the nodes of GRAPH and GRAPHS attributes, `where` naming them.
Attribute read_attribute(Reader r, const std::string& where, int depth,
                         std::vector<Node>& subgraph_nodes) {
  Attribute a;
  std::vector<Reader> graphs;  // read once the attribute's name is known
  AttributeType holding = AttributeType::Undefined;
  while (!r.done()) {
    const auto [field, wire] = r.tag();
    if (const AttributeType t = type_of_field(field); t != AttributeType::Undefined) holding = t;
    switch (field) {
      case 1:
        r.expect(wire, Wire::Bytes, "AttributeProto.name");
        a.name = r.string("AttributeProto.name");
        break;
      case 2:
        r.expect(wire, Wire::Fixed32, "AttributeProto.f");
        a.f = r.fixed<float>("AttributeProto.f");
        break;
      case 3:
        r.expect(wire, Wire::Varint, "AttributeProto.i");
        a.i = static_cast<std::int64_t>(r.varint("AttributeProto.i"));
        break;
      case 4:
        r.expect(wire, Wire::Bytes, "AttributeProto.s");
        a.s = r.string("AttributeProto.s");
        break;
      case 5:
        r.expect(wire, Wire::Bytes, "AttributeProto.t");
        a.t = read_tensor(r.message("AttributeProto.t"));
        break;
      case 7:
        r.repeated(wire, Wire::Fixed32, a.floats, "AttributeProto.floats");
        break;
      case 8:
        r.repeated(wire, Wire::Varint, a.ints, "AttributeProto.ints");
        break;
      case 9:
        r.expect(wire, Wire::Bytes, "AttributeProto.strings");
        a.strings.push_back(r.string("AttributeProto.strings"));
        break;
      case 6:
      case 11:
        r.expect(wire, Wire::Bytes, "AttributeProto.g");
        graphs.push_back(r.message("AttributeProto.g"));
        break;
      case 20:
        r.expect(wire, Wire::Varint, "AttributeProto.type");
        a.type = static_cast<AttributeType>(r.varint("AttributeProto.type") & 0xff);
        break;
      default:
        r.skip(wire);
    }
  }
  if (a.type == AttributeType::Undefined) a.type = holding;
  for (std::size_t k = 0; k < graphs.size(); ++k) {
    std::string path = where + " attribute '" + a.name + "'";
    if (graphs.size() > 1) path += "[" + std::to_string(k) + "]";
    if (depth >= kMaxGraphDepth) {
      graphs[k].fail("subgraphs nested more than " + std::to_string(kMaxGraphDepth) + " deep");
    }
    read_graph(graphs[k], path, depth + 1, subgraph_nodes);
  }
  return a;
}

void read_node(Reader r, const std::string& graph, int depth, std::vector<Node>& nodes) {
  Node n;
  n.graph = graph;
  std::vector<Reader> attributes;  // read once the node's name is known
  while (!r.done()) {
    const auto [field, wire] = r.tag();
    switch (field) {
      case 1:
        r.expect(wire, Wire::Bytes, "NodeProto.input");
        n.inputs.push_back(r.string("NodeProto.input"));
        break;
      case 2:
        r.expect(wire, Wire::Bytes, "NodeProto.output");
        n.outputs.push_back(r.string("NodeProto.output"));
        break;
      case 3:
        r.expect(wire, Wire::Bytes, "NodeProto.name");
        n.name = r.string("NodeProto.name");
        break;
      case 4:
        r.expect(wire, Wire::Bytes, "NodeProto.op_type");
        n.op_type = r.string("NodeProto.op_type");
        break;
      case 5:
        r.expect(wire, Wire::Bytes, "NodeProto.attribute");
        attributes.push_back(r.message("NodeProto.attribute"));
        break;
      case 7:
        r.expect(wire, Wire::Bytes, "NodeProto.domain");
        n.domain = r.string("NodeProto.domain");
        break;
      default:
        r.skip(wire);
    }
  }
  std::vector<Node> subgraph_nodes;
  const std::string where = (graph.empty() ? "" : graph + " / ") + "node '" + n.name + "'";
  for (Reader& a : attributes) {
    n.attributes.push_back(read_attribute(a, where, depth, subgraph_nodes));
  }
  nodes.push_back(std::move(n));
  for (Node& s : subgraph_nodes) nodes.push_back(std::move(s));
}

void read_graph(Reader r, const std::string& where, int depth, std::vector<Node>& nodes) {
  while (!r.done()) {
    const auto [field, wire] = r.tag();
    if (field != 1) {
      r.skip(wire);
      continue;
    }
    r.expect(wire, Wire::Bytes, "GraphProto.node");
    read_node(r.message("GraphProto.node"), where, depth, nodes);
  }
}

Function read_function(Reader r) {
  Function f;
  while (!r.done()) {
    const auto [field, wire] = r.tag();
    if (field == 1 || field == 10) {
      r.expect(wire, Wire::Bytes, "FunctionProto.name");
      (field == 1 ? f.name : f.domain) = r.string("FunctionProto.name");
    } else {
      r.skip(wire);
    }
  }
  return f;
}

}  // namespace

const Attribute* Node::attribute(std::string_view attribute_name) const {
  for (const Attribute& a : attributes) {
    if (a.name == attribute_name) return &a;
  }
  return nullptr;
}

Model parse_model(std::string_view bytes, const std::string& path) {
  Model model;
  bool has_graph = false;
  Reader r(bytes, 0, path);
  while (!r.done()) {
    const auto [field, wire] = r.tag();
    if (field == 7) {
      r.expect(wire, Wire::Bytes, "ModelProto.graph");
      has_graph = true;
      read_graph(r.message("ModelProto.graph"), "", 0, model.nodes);
    } else if (field == 25) {
      r.expect(wire, Wire::Bytes, "ModelProto.functions");
      model.functions.push_back(read_function(r.message("ModelProto.functions")));
    } else {
      r.skip(wire);
    }
  }
  if (!has_graph) {
    throw Error(path + " is not an ONNX model: it has no graph (ModelProto field 7)");
  }
  return model;
}

Model read_model(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream contents;
  contents << file.rdbuf();
  if (!file && !file.eof()) throw Error("cannot read " + path);
  return parse_model(contents.str(), path);
}

std::string attribute_type_name(AttributeType type) {
  static constexpr const char* kNames[] = {
      "UNDEFINED",      "FLOAT",      "INT",        "STRING",  "TENSOR", "GRAPH",
      "FLOATS",         "INTS",       "STRINGS",    "TENSORS", "GRAPHS", "SPARSE_TENSOR",
      "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS"};
  const auto index = static_cast<std::size_t>(type);
  return index < std::size(kNames) ? kNames[index] : "type " + std::to_string(index);
}

std::string tensor_type_name(std::int32_t data_type) {
  static constexpr const char* kNames[] = {
      "UNDEFINED",      "FLOAT",      "UINT8",          "INT8",       "UINT16",   "INT16",
      "INT32",          "INT64",      "STRING",         "BOOL",       "FLOAT16",  "DOUBLE",
      "UINT32",         "UINT64",     "COMPLEX64",      "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN",
      "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4",      "INT4",     "FLOAT4E2M1"};
  const auto index = static_cast<std::size_t>(data_type);
  return data_type >= 0 && index < std::size(kNames) ? kNames[index]
                                                     : "data type " + std::to_string(data_type);
}

}  // namespace autoplugin::onnx
