// The attribute-type table: for each schema type that becomes a plugin field, everything the
// binding, the field codec, `describe` and the engine adapters say about it, in one place.
#pragma once

#include <autoplugin/backend/field_codec.h>
#include <autoplugin/backend/schema.h>

#include <span>
#include <string_view>

namespace autoplugin {

struct AttributeTypeInfo {
  BaseType base;
  bool is_list;
  std::string_view schema_name;     // as a schema spells it: "int[]"
  std::string_view cpp_parameters;  // what a launcher or shape function may take for it
  FieldType serialized;             // our field type (encode_attributes)
  FieldType parser_field;           // what TensorRT's ONNX parser sends; getFieldNames lists it
  std::string_view onnx_attribute;  // the ONNX attribute type the parser converts from
  std::string_view field_contents;  // what a field for it must hold, for messages
  std::string_view python_type;     // the value's Python type (PyTorch IValue) in messages
};

// Every attribute type, lists after their element type.
std::span<const AttributeTypeInfo> attribute_types() noexcept;

// The row for `type` (optional and fixed-size variants share their base row), or null for
// tensors and shape inputs, which are not fields.
const AttributeTypeInfo* attribute_type_info(const Type& type) noexcept;

}  // namespace autoplugin
