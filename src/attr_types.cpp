#include <autoplugin/backend/attr_types.h>

#include <array>

namespace autoplugin {
namespace {

constexpr std::array<AttributeTypeInfo, 8> kAttributeTypes = {{
    {BaseType::Int, false, "int", "int64_t or int32_t", FieldType::Int64, FieldType::Int32, "INT",
     "one integer", "int"},
    {BaseType::Int, true, "int[]", "std::span<const int64_t> or std::vector<int64_t>",
     FieldType::Int64, FieldType::Int32, "INTS", "integers", "list of int"},
    {BaseType::Float, false, "float", "double or float", FieldType::Float64, FieldType::Float32,
     "FLOAT", "one float", "float"},
    {BaseType::Float, true, "float[]", "std::span<const double> or std::vector<double>",
     FieldType::Float64, FieldType::Float32, "FLOATS", "floats", "list of float"},
    {BaseType::Bool, false, "bool", "bool", FieldType::Int8, FieldType::Int32, "INT",
     "one integer 0 or 1", "bool"},
    {BaseType::Bool, true, "bool[]", "std::span<const bool>", FieldType::Int8, FieldType::Int32,
     "INTS", "integers 0 or 1", "list of bool"},
    {BaseType::Str, false, "str", "std::string_view or const std::string&", FieldType::Char,
     FieldType::Char, "STRING", "chars", "str"},
    {BaseType::ScalarType, false, "ScalarType", "autoplugin::DType", FieldType::Char,
     FieldType::Char, "STRING", "a dtype name as chars, or one integer ScalarType code",
     "torch.dtype"},
}};

}  // namespace

std::span<const AttributeTypeInfo> attribute_types() noexcept { return kAttributeTypes; }

const AttributeTypeInfo* attribute_type_info(const Type& type) noexcept {
  if (!type.is_attribute()) return nullptr;
  for (const AttributeTypeInfo& info : kAttributeTypes) {
    if (info.base == type.base && info.is_list == type.is_list) return &info;
  }
  return nullptr;
}

}  // namespace autoplugin
