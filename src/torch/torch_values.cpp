#include "torch_values.h"

#include <autoplugin/backend/attr_types.h>
#include <autoplugin/error.h>

#include <array>
#include <utility>

namespace autoplugin::torch_adapter {
namespace {

constexpr std::array<std::pair<DType, c10::ScalarType>, 7> kScalarTypes = {{
    {DType::Float32, c10::ScalarType::Float},
    {DType::Float16, c10::ScalarType::Half},
    {DType::BFloat16, c10::ScalarType::BFloat16},
    {DType::Int8, c10::ScalarType::Char},
    {DType::Int32, c10::ScalarType::Int},
    {DType::Int64, c10::ScalarType::Long},
    {DType::Float8E4M3, c10::ScalarType::Float8_e4m3fn},
}};

std::string who(const Op& op, const Argument& argument) {
  return "op '" + op.qualified_name() + "': argument '" + argument.name + "': ";
}

[[noreturn]] void throw_expected(const Op& op, const Argument& argument, const c10::IValue& value) {
  const AttributeTypeInfo* info = attribute_type_info(argument.type);
  const std::string expected = info != nullptr ? std::string(info->python_type) : "a SymInt";
  throw Error(who(op, argument) + "expected " + expected +
              (argument.type.optional ? " or None" : "") + " (schema type " +
              argument.type.to_string() + "), got " + value.tagKind());
}

}  // namespace

std::optional<DType> from_scalar_type(c10::ScalarType type) noexcept {
  for (const auto& [dtype, scalar] : kScalarTypes) {
    if (scalar == type) return dtype;
  }
  return std::nullopt;
}

c10::ScalarType to_scalar_type(DType dtype) {
  for (const auto& [ours, scalar] : kScalarTypes) {
    if (ours == dtype) return scalar;
  }
  throw Error("dtype " + std::string(dtype_name(dtype)) + " has no PyTorch tensor type");
}

AttrValue attribute_value(const Op& op, const Argument& argument, const c10::IValue& value) {
  const Type& type = argument.type;
  if (value.isNone()) {
    if (!type.optional) throw_expected(op, argument, value);
    return std::monostate{};
  }
  AttrValue result;
  switch (type.base) {
    case BaseType::Int:
      if (type.is_list ? !value.isIntList() : !value.isInt()) throw_expected(op, argument, value);
      result = type.is_list ? AttrValue(value.toIntVector()) : AttrValue(value.toInt());
      break;
    case BaseType::Float:
      if (type.is_list) {
        if (!value.isDoubleList()) throw_expected(op, argument, value);
        result = value.toDoubleVector();
      } else if (value.isDouble()) {
        result = value.toDouble();
      } else if (value.isInt()) {
        result = static_cast<double>(value.toInt());
      } else {
        throw_expected(op, argument, value);
      }
      break;
    case BaseType::Bool:
      if (type.is_list) {
        if (!value.isBoolList()) throw_expected(op, argument, value);
        const c10::List<bool> flags = value.toBoolList();
        std::vector<char> bytes(flags.begin(), flags.end());
        std::unique_ptr<bool[]> copy(new bool[bytes.size()]);
        for (std::size_t i = 0; i < bytes.size(); ++i) copy[i] = bytes[i] != 0;
        result = BoolList(std::span<const bool>(copy.get(), bytes.size()));
      } else {
        if (!value.isBool()) throw_expected(op, argument, value);
        result = value.toBool();
      }
      break;
    case BaseType::Str:
      if (!value.isString()) throw_expected(op, argument, value);
      result = value.toStringRef();
      break;
    case BaseType::ScalarType: {
      if (!value.isInt()) throw_expected(op, argument, value);
      const std::optional<DType> dtype = dtype_from_scalar_type_code(value.toInt());
      if (!dtype) {
        throw Error(who(op, argument) + "dtype " +
                    c10::toString(static_cast<c10::ScalarType>(value.toInt())) +
                    " has no autoplugin equivalent");
      }
      result = *dtype;
      break;
    }
    default:
      throw_expected(op, argument, value);
  }
  return coerce_attribute(op.schema(), argument, std::move(result));
}

Shape shape_input_values(const Op& op, const Argument& argument, const c10::IValue& value) {
  Shape shape;
  if (!argument.type.is_list) {
    if (!value.isInt() && !value.isSymInt()) throw_expected(op, argument, value);
    shape.push_back(value.isInt() ? value.toInt() : value.toSymInt().expect_int());
    return shape;
  }
  if (value.isIntList()) {
    for (std::int64_t v : value.toIntVector()) shape.push_back(v);
  } else if (value.isList()) {
    for (const c10::SymInt& v : value.toSymIntVector()) shape.push_back(v.expect_int());
  } else {
    throw_expected(op, argument, value);
  }
  return shape;
}

}  // namespace autoplugin::torch_adapter
