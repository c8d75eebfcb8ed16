#include <autoplugin/dtype.h>

#include <array>
#include <utility>

namespace autoplugin {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  std::size_t size;
  std::int64_t scalar_type_code;  // c10::ScalarType
};

constexpr std::array<DTypeInfo, kDTypeCount> kDTypes = {{
    {DType::Float32, "float32", 4, 6},
    {DType::Float16, "float16", 2, 5},
    {DType::BFloat16, "bfloat16", 2, 15},
    {DType::Int8, "int8", 1, 1},
    {DType::Int32, "int32", 4, 3},
    {DType::Int64, "int64", 8, 4},
    {DType::UInt8, "uint8", 1, 0},
    {DType::Bool, "bool", 1, 11},
    {DType::Float8E4M3, "float8_e4m3fn", 1, 24},
}};

constexpr std::array<std::pair<std::string_view, DType>, 14> kAliases = {{
    {"float", DType::Float32},
    {"fp32", DType::Float32},
    {"f32", DType::Float32},
    {"half", DType::Float16},
    {"fp16", DType::Float16},
    {"f16", DType::Float16},
    {"bf16", DType::BFloat16},
    {"int", DType::Int32},
    {"i32", DType::Int32},
    {"long", DType::Int64},
    {"i64", DType::Int64},
    {"i8", DType::Int8},
    {"u8", DType::UInt8},
    {"fp8", DType::Float8E4M3},
}};

const DTypeInfo& info(DType dtype) noexcept { return kDTypes[static_cast<std::size_t>(dtype)]; }

}  // namespace

std::string_view dtype_name(DType dtype) noexcept { return info(dtype).name; }

std::size_t dtype_size(DType dtype) noexcept { return info(dtype).size; }

std::optional<DType> dtype_from_name(std::string_view name) noexcept {
  if (name.starts_with("torch.")) name.remove_prefix(6);
  for (const auto& entry : kDTypes) {
    if (entry.name == name) return entry.dtype;
  }
  for (const auto& [alias, dtype] : kAliases) {
    if (alias == name) return dtype;
  }
  return std::nullopt;
}

std::optional<DType> dtype_from_scalar_type_code(std::int64_t code) noexcept {
  for (const auto& entry : kDTypes) {
    if (entry.scalar_type_code == code) return entry.dtype;
  }
  return std::nullopt;
}

std::int64_t scalar_type_code(DType dtype) noexcept { return info(dtype).scalar_type_code; }

std::string_view format_name(Format format) noexcept {
  switch (format) {
    case Format::Linear:
      return "LINEAR";
    case Format::HWC:
      return "HWC";
    case Format::CHW4:
      return "CHW4";
    case Format::CHW32:
      return "CHW32";
    case Format::HWC8:
      return "HWC8";
  }
  return "?";
}

}  // namespace autoplugin
