#include <autoplugin/backend/attr_types.h>
#include <autoplugin/backend/field_codec.h>
#include <autoplugin/backend/text.h>
#include <autoplugin/error.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "text.h"

namespace autoplugin {
namespace {

constexpr std::int32_t kMaxLength = std::numeric_limits<std::int32_t>::max();

using detail::quoted;

std::string op_prefix(const Schema& schema) {
  return "op " + quoted(schema.qualified_name()) + ": ";
}

bool is_integer(FieldType type) {
  return type == FieldType::Int8 || type == FieldType::Int16 || type == FieldType::Int32 ||
         type == FieldType::Int64;
}

bool is_floating(FieldType type) {
  return type == FieldType::Float16 || type == FieldType::BFloat16 || type == FieldType::Float32 ||
         type == FieldType::Float64;
}

// Field data need not be aligned, so every element is read through memcpy.
template <typename T>
T load(const void* data, std::size_t index) {
  T value;
  std::memcpy(&value, static_cast<const std::byte*>(data) + index * sizeof(T), sizeof(T));
  return value;
}

std::int64_t integer_at(const FieldView& field, std::size_t index) {
  switch (field.type) {
    case FieldType::Int8:
      return load<std::int8_t>(field.data, index);
    case FieldType::Int16:
      return load<std::int16_t>(field.data, index);
    case FieldType::Int32:
      return load<std::int32_t>(field.data, index);
    default:
      return load<std::int64_t>(field.data, index);
  }
}

double floating_at(const FieldView& field, std::size_t index) {
  switch (field.type) {
    case FieldType::Float16:
      return half_to_float(load<std::uint16_t>(field.data, index));
    case FieldType::BFloat16:
      return bfloat16_to_float(load<std::uint16_t>(field.data, index));
    case FieldType::Float32:
      return load<float>(field.data, index);
    case FieldType::Float64:
      return load<double>(field.data, index);
    default:
      return static_cast<double>(integer_at(field, index));
  }
}

// The alternative's name as a schema would spell it, for messages.
std::string_view value_type_name(const AttrValue& value) {
  constexpr std::array<std::string_view, std::variant_size_v<AttrValue>> kNames = {
      "None", "int", "float", "bool", "str", "int[]", "float[]", "bool[]", "ScalarType"};
  return kNames[value.index()];
}

std::string describe_value(const AttrValue& value) {
  return std::string(value_type_name(value)) +
         (std::holds_alternative<std::monostate>(value) ? "" : " " + to_string(value));
}

// What a field for `type` must hold, e.g. "int[2] (2 integers, or 1 to broadcast)".
std::string expectation(const Type& type) {
  const AttributeTypeInfo* info = attribute_type_info(type);
  std::string what = info != nullptr ? std::string(info->field_contents) : "a tensor, not a field";
  if (type.fixed_size) {
    what = std::to_string(*type.fixed_size) + " " + what + ", or 1 to broadcast";
  }
  return type.to_string() + " (" + what + ")";
}

std::string describe_field(const FieldView& field) {
  return std::string(field_type_name(field.type)) + " x" + std::to_string(field.length);
}

// One field's problem; caught per field so that every problem of a call is reported together.
struct Problem {
  std::string message;
};

// Collects "field 'x': ..." lines and throws them as one FieldError.
class Problems {
 public:
  explicit Problems(const Schema& schema) : schema_(schema) {}
  void add(std::string_view field, const std::string& message) {
    lines_.push_back("field " + quoted(field) + ": " + message);
  }
  void throw_if_any() const {
    if (lines_.empty()) return;
    std::string message = op_prefix(schema_);
    if (lines_.size() == 1) throw FieldError(message + lines_.front());
    message += std::to_string(lines_.size()) + " problems with plugin fields:";
    for (const std::string& line : lines_) message += "\n  " + line;
    throw FieldError(message);
  }

 private:
  const Schema& schema_;
  std::vector<std::string> lines_;
};

// Element count of a list field, repeating a single value for a fixed-size list; nullopt is None.
std::optional<std::size_t> list_length(const Type& type, const FieldView& field,
                                       const std::string& mismatch) {
  const auto length = static_cast<std::size_t>(field.length);
  if (!type.fixed_size) return length;
  if (length == *type.fixed_size || length == 1) return *type.fixed_size;
  if (length == 0 && type.optional) return std::nullopt;
  throw Problem{mismatch};
}

bool bool_at(const FieldView& field, std::size_t index, const std::string& expectation_text) {
  const std::int64_t value = integer_at(field, index);
  if (value != 0 && value != 1) {
    throw Problem{"expected " + expectation_text + ", got " +
                  std::string(field_type_name(field.type)) + " value " + std::to_string(value) +
                  (field.length > 1 ? " at index " + std::to_string(index) : "")};
  }
  return value == 1;
}

// The reserved field decodes as an int[].
const Type& absent_inputs_type() {
  static const Type type{BaseType::Int, true, std::nullopt, false};
  return type;
}

AttrValue decode_field(const Type& type, const FieldView& field) {
  if (field.length < 0) throw Problem{"negative length " + std::to_string(field.length)};
  if (field.length > 0 && field.data == nullptr) {
    throw Problem{"data is null but length is " + std::to_string(field.length)};
  }
  // How encode_attributes writes None where a length-0 field of the type would mean [].
  if (field.type == FieldType::Unknown && field.length == 0 && type.optional) {
    return std::monostate{};
  }
  const std::string expected = expectation(type);
  const std::string mismatch = "expected " + expected + ", got " + describe_field(field);
  const auto length = static_cast<std::size_t>(field.length);
  const bool integer = is_integer(field.type);
  const bool numeric = integer || is_floating(field.type);

  switch (type.base) {
    case BaseType::Str:
      if (field.type != FieldType::Char) throw Problem{mismatch};
      if (length == 0) return type.optional ? AttrValue() : AttrValue(std::string());
      {
        std::string text(static_cast<const char*>(field.data), length);
        if (text.back() == '\0') text.pop_back();
        return text;
      }
    case BaseType::ScalarType: {
      if (length == 0 && type.optional && (integer || field.type == FieldType::Char)) {
        return std::monostate{};
      }
      if (field.type == FieldType::Char && length > 0) {
        std::string name(static_cast<const char*>(field.data), length);
        if (!name.empty() && name.back() == '\0') name.pop_back();
        if (const auto dtype = dtype_from_name(name)) return *dtype;
        throw Problem{"expected " + expected + ", got unknown dtype name " + quoted(name)};
      }
      if (!integer || length != 1) throw Problem{mismatch};
      const std::int64_t code = integer_at(field, 0);
      if (const auto dtype = dtype_from_scalar_type_code(code)) return *dtype;
      throw Problem{"expected " + expected + ", got unknown ScalarType code " +
                    std::to_string(code)};
    }
    case BaseType::Int:
    case BaseType::Float:
    case BaseType::Bool:
      break;
    default:
      throw Problem{mismatch};
  }

  // Ints and bools need integer fields; floats take any number (an ONNX exporter writes an INT
  // attribute for a float argument given as a Python int).
  if (type.base == BaseType::Float ? !numeric : !integer) throw Problem{mismatch};
  if (!type.is_list) {
    if (length == 0 && type.optional) return std::monostate{};
    if (length != 1) throw Problem{mismatch};
    switch (type.base) {
      case BaseType::Int:
        return integer_at(field, 0);
      case BaseType::Float:
        return floating_at(field, 0);
      default:
        return bool_at(field, 0, expected);
    }
  }
  const auto count = list_length(type, field, mismatch);
  if (!count) return std::monostate{};
  const auto source = [length](std::size_t i) { return length == 1 ? 0 : i; };
  switch (type.base) {
    case BaseType::Int: {
      IntList values(*count);
      for (std::size_t i = 0; i < *count; ++i) values[i] = integer_at(field, source(i));
      return values;
    }
    case BaseType::Float: {
      FloatList values(*count);
      for (std::size_t i = 0; i < *count; ++i) values[i] = floating_at(field, source(i));
      return values;
    }
    default: {
      auto values = std::make_unique<bool[]>(*count);
      for (std::size_t i = 0; i < *count; ++i) values[i] = bool_at(field, source(i), expected);
      return BoolList(std::span<const bool>(values.get(), *count));
    }
  }
}

std::string unknown_field_warning(const Schema& schema,
                                  const std::vector<const Argument*>& attributes,
                                  std::string_view name) {
  std::string names;
  std::vector<std::string> candidates;
  for (const Argument* argument : attributes) {
    names += (names.empty() ? "" : ", ") + argument->name;
    candidates.push_back(argument->name);
  }
  std::string message = op_prefix(schema) + "ignoring unknown field " + quoted(name) + " (";
  if (const auto closest = closest_name(name, candidates)) {
    message += "did you mean " + quoted(*closest) + "? ";
  }
  return message + (names.empty() ? "the op has no fields)" : "fields: " + names + ")");
}

template <typename T>
void add_elements(FieldList& fields, const std::string& name, FieldType type,
                  const std::vector<T>& values) {
  if (values.size() > static_cast<std::size_t>(kMaxLength)) {
    throw Problem{"too many elements (" + std::to_string(values.size()) + ") for a field"};
  }
  fields.add(name, type, values.data(), static_cast<std::int32_t>(values.size()));
}

void add_text(FieldList& fields, const std::string& name, std::string_view text) {
  // The trailing NUL is counted, as the ONNX parser does for STRING attributes.
  std::vector<char> chars(text.begin(), text.end());
  chars.push_back('\0');
  add_elements(fields, name, FieldType::Char, chars);
}

void encode_field(FieldList& fields, const Argument& argument, const AttrValue& value) {
  const Type& type = argument.type;
  const std::string& name = argument.name;
  const AttributeTypeInfo* info = attribute_type_info(type);
  const FieldType serialized = info != nullptr ? info->serialized : FieldType::Unknown;
  const auto mismatch = [&] {
    return Problem{"expected " + type.to_string() + ", got " + describe_value(value)};
  };
  if (std::holds_alternative<std::monostate>(value)) {
    if (!type.optional) throw mismatch();
    // A length-0 variable list is the empty list, so its None needs another type.
    const bool variable_list = type.is_list && !type.fixed_size;
    fields.add(name, variable_list ? FieldType::Unknown : serialized, nullptr, 0);
    return;
  }
  const auto check_size = [&](std::size_t size) {
    if (type.fixed_size && size != *type.fixed_size) throw mismatch();
  };
  switch (type.base) {
    case BaseType::Int:
      if (type.is_list) {
        const auto* list = std::get_if<IntList>(&value);
        if (list == nullptr) throw mismatch();
        check_size(list->size());
        add_elements(fields, name, serialized, *list);
      } else {
        const auto* number = std::get_if<std::int64_t>(&value);
        if (number == nullptr) throw mismatch();
        fields.add(name, serialized, number, 1);
      }
      return;
    case BaseType::Float:
      if (type.is_list) {
        const auto* list = std::get_if<FloatList>(&value);
        if (list == nullptr) throw mismatch();
        check_size(list->size());
        add_elements(fields, name, serialized, *list);
      } else {
        const auto* number = std::get_if<double>(&value);
        if (number == nullptr) throw mismatch();
        fields.add(name, serialized, number, 1);
      }
      return;
    case BaseType::Bool:
      if (type.is_list) {
        const auto* list = std::get_if<BoolList>(&value);
        if (list == nullptr) throw mismatch();
        check_size(list->size());
        add_elements(fields, name, serialized,
                     std::vector<std::int8_t>(list->span().begin(), list->span().end()));
      } else {
        const auto* flag = std::get_if<bool>(&value);
        if (flag == nullptr) throw mismatch();
        const std::int8_t byte = *flag ? 1 : 0;
        fields.add(name, serialized, &byte, 1);
      }
      return;
    case BaseType::Str: {
      const auto* text = std::get_if<std::string>(&value);
      if (text == nullptr) throw mismatch();
      add_text(fields, name, *text);
      return;
    }
    case BaseType::ScalarType: {
      const auto* dtype = std::get_if<DType>(&value);
      if (dtype == nullptr) throw mismatch();
      add_text(fields, name, dtype_name(*dtype));
      return;
    }
    default:
      throw mismatch();
  }
}

}  // namespace

std::size_t field_byte_size(FieldType type, std::size_t count) noexcept {
  switch (type) {
    case FieldType::Float16:
    case FieldType::BFloat16:
    case FieldType::Int16:
      return 2 * count;
    case FieldType::Float32:
    case FieldType::Int32:
      return 4 * count;
    case FieldType::Float64:
    case FieldType::Int64:
      return 8 * count;
    case FieldType::Dims:
      return 72 * count;  // nvinfer1::Dims64: int32 nbDims + int64 d[8]
    case FieldType::Int4:
    case FieldType::FP4:
      return (count + 1) / 2;  // two elements per byte
    case FieldType::Int8:
    case FieldType::Char:
    case FieldType::Unknown:
    case FieldType::FP8:
      return count;
  }
  return count;
}

std::string_view field_type_name(FieldType type) noexcept {
  constexpr std::array<std::string_view, 14> kNames = {
      "FLOAT16", "FLOAT32", "FLOAT64", "INT8",  "INT16", "INT32", "CHAR",
      "DIMS",    "UNKNOWN", "BF16",    "INT64", "FP8",   "INT4",  "FP4"};
  const auto index = static_cast<std::size_t>(type);
  return index < kNames.size() ? kNames[index] : "INVALID";
}

std::vector<const Argument*> attribute_arguments(const Schema& schema) {
  std::vector<const Argument*> attributes;
  for (const Argument& argument : schema.arguments) {
    if (argument.type.is_attribute()) attributes.push_back(&argument);
  }
  return attributes;
}

bool has_optional_tensor(const Schema& schema) {
  return std::any_of(schema.arguments.begin(), schema.arguments.end(),
                     [](const Argument& a) { return a.type.is_tensor() && a.type.optional; });
}

std::vector<FieldSpec> field_specs(const Schema& schema) {
  std::vector<FieldSpec> specs;
  for (const Argument* argument : attribute_arguments(schema)) {
    const Type& type = argument->type;
    const FieldType parser_field = attribute_type_info(type)->parser_field;
    std::int32_t length = 0;  // variable: chars, and lists of no fixed size
    if (parser_field != FieldType::Char) {
      length = type.is_list ? static_cast<std::int32_t>(type.fixed_size.value_or(0)) : 1;
    }
    specs.push_back({argument->name, parser_field, length});
  }
  if (has_optional_tensor(schema))
    specs.push_back({std::string(kAbsentInputsField), FieldType::Int32, 0});
  return specs;
}

FieldList::FieldList(const FieldList& other) : stored_(other.stored_) { rebuild_views(); }

FieldList& FieldList::operator=(const FieldList& other) {
  if (this != &other) {
    stored_ = other.stored_;
    rebuild_views();
  }
  return *this;
}

void FieldList::add(std::string name, FieldType type, const void* bytes, std::int32_t count) {
  if (count < 0) throw FieldError("field " + quoted(name) + ": negative length");
  if (count > 0 && bytes == nullptr) throw FieldError("field " + quoted(name) + ": null data");
  const std::size_t size = field_byte_size(type, static_cast<std::size_t>(count));
  const auto* first = static_cast<const std::byte*>(bytes);
  stored_.push_back({std::move(name), type, std::vector<std::byte>(first, first + size), count});
  // Growing stored_ may move the names (short-string storage), so every view is rebuilt.
  rebuild_views();
}

void FieldList::rebuild_views() {
  views_.clear();
  for (const Stored& field : stored_) {
    views_.push_back(
        {field.name, field.type, field.bytes.empty() ? nullptr : field.bytes.data(), field.count});
  }
}

FieldList encode_attributes(const Schema& schema, std::span<const AttrValue> values,
                            std::span<const std::int64_t> absent_inputs) {
  const auto attributes = attribute_arguments(schema);
  if (values.size() != attributes.size()) {
    std::string names;
    for (const Argument* argument : attributes)
      names += (names.empty() ? "" : ", ") + argument->name;
    throw FieldError(op_prefix(schema) + "expected " + std::to_string(attributes.size()) +
                     " attribute values (" + names + "), got " + std::to_string(values.size()));
  }
  Problems problems(schema);
  FieldList fields;
  for (std::size_t i = 0; i < attributes.size(); ++i) {
    try {
      encode_field(fields, *attributes[i], values[i]);
    } catch (const Problem& problem) {
      problems.add(attributes[i]->name, problem.message);
    }
  }
  problems.throw_if_any();
  if (!absent_inputs.empty()) {
    fields.add(std::string(kAbsentInputsField), FieldType::Int64, absent_inputs.data(),
               static_cast<std::int32_t>(absent_inputs.size()));
  }
  return fields;
}

DecodedAttributes decode_attributes(const Schema& schema, std::span<const FieldView> fields) {
  const auto attributes = attribute_arguments(schema);
  Problems problems(schema);
  DecodedAttributes decoded;
  std::vector<const FieldView*> given(attributes.size(), nullptr);
  bool absent_given = false;
  for (const FieldView& field : fields) {
    if (field.name == kAbsentInputsField) {
      if (absent_given) {
        problems.add(field.name, "given more than once");
      } else if (!has_optional_tensor(schema)) {
        problems.add(field.name, "the op has no Tensor? argument that could be absent");
      } else {
        try {
          decoded.absent_inputs = std::get<IntList>(decode_field(absent_inputs_type(), field));
        } catch (const Problem& problem) {
          problems.add(field.name, problem.message);
        }
      }
      absent_given = true;
      continue;
    }
    const auto found = std::find_if(attributes.begin(), attributes.end(),
                                    [&](const Argument* a) { return a->name == field.name; });
    if (found == attributes.end()) {
      decoded.warnings.push_back(unknown_field_warning(schema, attributes, field.name));
      continue;
    }
    const auto index = static_cast<std::size_t>(found - attributes.begin());
    if (given[index] != nullptr) {
      problems.add(field.name, "given more than once");
      continue;
    }
    given[index] = &field;
  }

  for (std::size_t i = 0; i < attributes.size(); ++i) {
    const Argument& argument = *attributes[i];
    AttrValue value;
    if (given[i] != nullptr) {
      try {
        value = decode_field(argument.type, *given[i]);
      } catch (const Problem& problem) {
        problems.add(argument.name, problem.message);
      }
    } else if (auto absent = value_when_absent(argument)) {
      value = std::move(*absent);
    } else {
      problems.add(argument.name,
                   "missing required field (expected " + expectation(argument.type) + ")");
    }
    decoded.values.push_back(std::move(value));
  }
  problems.throw_if_any();
  return decoded;
}

std::optional<AttrValue> value_when_absent(const Argument& argument) {
  if (argument.default_value) return *argument.default_value;
  if (argument.type.optional) return AttrValue{std::monostate{}};
  return std::nullopt;
}

AttrValue coerce_attribute(const Schema& schema, const Argument& argument, AttrValue value) {
  const Type& type = argument.type;
  const auto fail = [&](const std::string& what) {
    return FieldError(op_prefix(schema) + "field " + quoted(argument.name) + ": " + what);
  };
  if (!type.is_attribute()) {
    throw fail("argument of type " + type.to_string() + " is not an attribute");
  }
  const auto mismatch = [&] {
    return fail("expected " + type.to_string() + ", got " + describe_value(value));
  };
  if (std::holds_alternative<std::monostate>(value)) {
    if (!type.optional) throw mismatch();
    return value;
  }
  // A scalar for a fixed-size list repeats; other lists must have the declared size.
  const auto finish_list = [&]<typename List>(List list) -> AttrValue {
    if (type.fixed_size && list.size() != *type.fixed_size) throw mismatch();
    return list;
  };

  switch (type.base) {
    case BaseType::Int:
      if (!type.is_list) {
        if (std::holds_alternative<std::int64_t>(value)) return value;
      } else if (const auto* list = std::get_if<IntList>(&value)) {
        return finish_list(*list);
      } else if (const auto* number = std::get_if<std::int64_t>(&value);
                 number && type.fixed_size) {
        return IntList(*type.fixed_size, *number);
      }
      break;
    case BaseType::Float: {
      const auto* integer = std::get_if<std::int64_t>(&value);
      const auto* number = std::get_if<double>(&value);
      const std::optional<double> scalar = number    ? std::optional(*number)
                                           : integer ? std::optional(static_cast<double>(*integer))
                                                     : std::nullopt;
      if (!type.is_list) {
        if (scalar) return *scalar;
      } else if (const auto* list = std::get_if<FloatList>(&value)) {
        return finish_list(*list);
      } else if (const auto* integers = std::get_if<IntList>(&value)) {
        FloatList converted;
        for (std::int64_t x : *integers) converted.push_back(static_cast<double>(x));
        return finish_list(std::move(converted));
      } else if (scalar && type.fixed_size) {
        return FloatList(*type.fixed_size, *scalar);
      }
      break;
    }
    case BaseType::Bool:
      if (!type.is_list) {
        if (std::holds_alternative<bool>(value)) return value;
      } else if (const auto* list = std::get_if<BoolList>(&value)) {
        if (type.fixed_size && list->size() != *type.fixed_size) throw mismatch();
        return value;
      } else if (const auto* flag = std::get_if<bool>(&value); flag && type.fixed_size) {
        auto flags = std::make_unique<bool[]>(*type.fixed_size);
        std::fill_n(flags.get(), *type.fixed_size, *flag);
        return BoolList(std::span<const bool>(flags.get(), *type.fixed_size));
      }
      break;
    case BaseType::Str:
      if (std::holds_alternative<std::string>(value)) return value;
      break;
    case BaseType::ScalarType:
      if (std::holds_alternative<DType>(value)) return value;
      if (const auto* name = std::get_if<std::string>(&value)) {
        if (const auto dtype = dtype_from_name(*name)) return *dtype;
        throw fail("expected ScalarType, got unknown dtype name " + quoted(*name));
      }
      if (const auto* code = std::get_if<std::int64_t>(&value)) {
        if (const auto dtype = dtype_from_scalar_type_code(*code)) return *dtype;
        throw fail("expected ScalarType, got unknown ScalarType code " + std::to_string(*code));
      }
      break;
    default:
      break;
  }
  throw mismatch();
}

}  // namespace autoplugin
