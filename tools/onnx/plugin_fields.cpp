#include "plugin_fields.h"

#include <autoplugin/error.h>

#include <cstring>
#include <limits>
#include <set>

#include "check/trt_text.h"

namespace autoplugin::onnx {

using nvinfer1::PluginFieldType;

bool is_parser_attribute(const std::string& name) {
  return name == "plugin_version" || name == "plugin_namespace" ||
         name == "tensorrt_plugin_shape_input_indices";
}

namespace {

template <typename T>
void append(std::vector<std::byte>& bytes, const T& value) {
  const auto* p = reinterpret_cast<const std::byte*>(&value);
  bytes.insert(bytes.end(), p, p + sizeof(T));
}

// INT and INTS arrive as INT32; a value that does not fit wraps around, as a static_cast does.
std::int32_t narrowed(std::int64_t value, const std::string& name,
                      std::vector<std::string>& problems) {
  if (value < std::numeric_limits<std::int32_t>::min() ||
      value > std::numeric_limits<std::int32_t>::max()) {
    const auto wrapped = static_cast<std::int32_t>(value);
    problems.push_back("attribute '" + name + "': " + std::to_string(value) +
                       " does not fit the INT32 field TensorRT's ONNX parser makes of an INT; "
                       "the plugin receives " +
                       std::to_string(wrapped));
    return wrapped;
  }
  return static_cast<std::int32_t>(value);
}

struct TensorField {
  PluginFieldType type;
  std::size_t element_size;
};

// The plugin field type of a TENSOR attribute's element type; the parser passes no others.
std::optional<TensorField> tensor_field(std::int32_t data_type) {
  switch (data_type) {
    case 1:
      return TensorField{PluginFieldType::kFLOAT32, 4};
    case 3:
      return TensorField{PluginFieldType::kINT8, 1};
    case 5:
      return TensorField{PluginFieldType::kINT16, 2};
    case 6:
      return TensorField{PluginFieldType::kINT32, 4};
    case 10:
      return TensorField{PluginFieldType::kFLOAT16, 2};
    case 11:
      return TensorField{PluginFieldType::kFLOAT64, 8};
    case 16:
      return TensorField{PluginFieldType::kBF16, 2};
    default:
      return std::nullopt;
  }
}

// A TENSOR attribute's elements as bytes of its field type, from raw_data or the typed lists.
std::vector<std::byte> tensor_bytes(const Tensor& t, const TensorField& field, std::size_t count) {
  std::vector<std::byte> bytes;
  if (!t.raw_data.empty()) {
    if (t.raw_data.size() != count * field.element_size) {
      throw Error("raw_data holds " + std::to_string(t.raw_data.size()) + " bytes for " +
                  std::to_string(count) + " elements of " + std::to_string(field.element_size) +
                  " bytes");
    }
    const auto* p = reinterpret_cast<const std::byte*>(t.raw_data.data());
    return {p, p + t.raw_data.size()};
  }
  auto check_count = [&](std::size_t have) {
    if (have != count) {
      throw Error("the tensor has " + std::to_string(have) + " values for " +
                  std::to_string(count) + " elements");
    }
  };
  switch (field.type) {
    case PluginFieldType::kFLOAT32:
      check_count(t.float_data.size());
      for (float v : t.float_data) append(bytes, v);
      break;
    case PluginFieldType::kFLOAT64:
      check_count(t.double_data.size());
      for (double v : t.double_data) append(bytes, v);
      break;
    default:  // int8, int16, int32 and the 16-bit floats' bits are stored in int32_data
      check_count(t.int32_data.size());
      for (std::int32_t v : t.int32_data) {
        if (field.element_size == 1) append(bytes, static_cast<std::int8_t>(v));
        if (field.element_size == 2) append(bytes, static_cast<std::int16_t>(v));
        if (field.element_size == 4) append(bytes, v);
      }
  }
  return bytes;
}

void add_tensor(const Attribute& a, PluginFieldType& type, std::vector<std::byte>& bytes,
                std::int32_t& length) {
  const Tensor& t = *a.t;
  const auto field = tensor_field(t.data_type);
  if (!field) {
    throw Error("a TENSOR of " + tensor_type_name(t.data_type) +
                ", which TensorRT's ONNX parser does not pass to plugins (FLOAT, FLOAT16, "
                "BFLOAT16, DOUBLE, INT8, INT16 and INT32 it does)");
  }
  if (t.external) throw Error("a TENSOR stored outside the model (external data)");
  std::size_t count = 1;
  for (std::int64_t d : t.dims) {
    if (d < 0 || (d > 0 && count > (std::size_t(1) << 31) / std::size_t(d))) {
      throw Error("a TENSOR with dimensions too large for a plugin field");
    }
    count *= std::size_t(d);
  }
  type = field->type;
  bytes = tensor_bytes(t, *field, count);
  length = static_cast<std::int32_t>(count);
}

}  // namespace

Conversion convert_attributes(const Node& node, const nvinfer1::PluginFieldCollection* listed) {
  Conversion out;
  std::set<std::string> listed_names;
  const int count = listed != nullptr && listed->fields != nullptr ? listed->nbFields : 0;
  for (int index = 0; index < count; ++index) {
    const char* listed_name = listed->fields[index].name;
    if (listed_name == nullptr) continue;
    const std::string name = listed_name;
    listed_names.insert(name);
    const Attribute* a = node.attribute(name);
    if (a == nullptr) {
      out.not_set.push_back(name);
      continue;
    }
    PluginFieldType type = PluginFieldType::kUNKNOWN;
    std::vector<std::byte> bytes;
    std::int32_t length = 0;
    try {
      switch (a->type) {
        case AttributeType::Float:
          type = PluginFieldType::kFLOAT32;
          append(bytes, a->f);
          length = 1;
          break;
        case AttributeType::Floats:
          type = PluginFieldType::kFLOAT32;
          for (float v : a->floats) append(bytes, v);
          length = static_cast<std::int32_t>(a->floats.size());
          break;
        case AttributeType::Int:
          type = PluginFieldType::kINT32;
          append(bytes, narrowed(a->i, name, out.problems));
          length = 1;
          break;
        case AttributeType::Ints:
          type = PluginFieldType::kINT32;
          for (std::int64_t v : a->ints) append(bytes, narrowed(v, name, out.problems));
          length = static_cast<std::int32_t>(a->ints.size());
          break;
        case AttributeType::String:
          type = PluginFieldType::kCHAR;
          for (char c : a->s) bytes.push_back(static_cast<std::byte>(c));
          bytes.push_back(std::byte{0});  // counted in the length, as the parser counts it
          length = static_cast<std::int32_t>(bytes.size());
          break;
        case AttributeType::Strings:
          type = PluginFieldType::kCHAR;
          for (const std::string& s : a->strings) {
            for (char c : s) bytes.push_back(static_cast<std::byte>(c));
            bytes.push_back(std::byte{0});
          }
          length = static_cast<std::int32_t>(bytes.size());
          break;
        case AttributeType::Tensor:
          add_tensor(*a, type, bytes, length);
          break;
        default:
          throw Error("a " + attribute_type_name(a->type) +
                      " attribute, which TensorRT's ONNX parser cannot pass to a plugin");
      }
    } catch (const Error& e) {
      out.problems.push_back("attribute '" + name + "': " + e.what());
      continue;
    }
    out.fields.add(name, type, std::move(bytes), length);
    out.sent.push_back({{"name", name},
                        {"attribute_type", attribute_type_name(a->type)},
                        {"field_type", check::field_type_text(type)},
                        {"length", length}});
  }
  const nlohmann::json values = out.fields.values({});
  for (auto& field : out.sent) {
    const std::string name = field["name"];
    if (values.contains(name)) field["value"] = values[name];
  }
  for (const Attribute& a : node.attributes) {
    if (!listed_names.contains(a.name) && !is_parser_attribute(a.name)) {
      out.dropped.push_back(a.name);
    }
  }
  return out;
}

}  // namespace autoplugin::onnx
