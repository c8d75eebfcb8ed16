#include <autoplugin/dtype.h>

#include <array>
#include <bit>
#include <cmath>
#include <limits>
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

float half_to_float(std::uint16_t half) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000u) << 16;
  std::uint32_t exponent = (half >> 10) & 0x1Fu;
  std::uint32_t mantissa = half & 0x3FFu;
  std::uint32_t bits = sign;
  if (exponent == 0x1F) {
    bits |= 0x7F800000u | (mantissa << 13);  // inf, nan (payload kept)
  } else if (exponent != 0) {
    bits |= ((exponent + 127 - 15) << 23) | (mantissa << 13);
  } else if (mantissa != 0) {
    // Subnormal half: shift until the implicit bit appears; every half is a normal float.
    exponent = 127 - 15 + 1;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --exponent;
    }
    bits |= (exponent << 23) | ((mantissa & 0x3FFu) << 13);
  }
  return std::bit_cast<float>(bits);
}

float bfloat16_to_float(std::uint16_t bfloat16) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bfloat16) << 16);
}

namespace {

// Rounds the low `drop` bits of `bits` to nearest, ties to even.
std::uint32_t round_bits(std::uint32_t bits, int drop) {
  const std::uint32_t half = 1u << (drop - 1);
  const std::uint32_t rest = bits & ((1u << drop) - 1);
  bits >>= drop;
  if (rest > half || (rest == half && (bits & 1u) != 0)) ++bits;
  return bits;
}

}  // namespace

std::uint16_t float_to_bfloat16(float value) noexcept {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
  return static_cast<std::uint16_t>(round_bits(bits, 16));
}

std::uint16_t float_to_half(float value) noexcept {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7E00u);   // NaN
  if (magnitude >= 0x477FF000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // overflow
  if (magnitude < 0x38800000u) {
    // Subnormal or zero: shift the mantissa (with its implicit bit) into place, then round.
    if (magnitude < 0x33000000u) return sign;
    const int exponent = static_cast<int>(magnitude >> 23);
    const std::uint32_t mantissa = (magnitude & 0x7FFFFFu) | 0x800000u;
    return static_cast<std::uint16_t>(sign | round_bits(mantissa, 126 - exponent));
  }
  // Normal: rebias the exponent; a rounding carry correctly bumps the exponent.
  return static_cast<std::uint16_t>(sign | round_bits(magnitude - 0x38000000u, 13));
}

float float8_e4m3_to_float(std::uint8_t bits) noexcept {
  const float sign = (bits & 0x80u) != 0 ? -1.0f : 1.0f;
  const int exponent = (bits >> 3) & 0xF;
  const int mantissa = bits & 0x7;
  if (exponent == 0xF && mantissa == 0x7) return std::numeric_limits<float>::quiet_NaN();
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -9);  // subnormal
  return sign * std::ldexp(1.0f + static_cast<float>(mantissa) / 8.0f, exponent - 7);
}

std::uint8_t float_to_float8_e4m3(float value) noexcept {
  constexpr std::uint8_t kLargest = 0x7E;  // 448
  if (std::isnan(value)) return 0x7F;
  const std::uint8_t sign = std::signbit(value) ? 0x80u : 0x00u;
  const float magnitude = std::fabs(value);
  if (magnitude < std::ldexp(1.0f, -6)) {
    // Subnormal: units of 2^-9, rounded to nearest even; 8 of them is the smallest normal's bits.
    return static_cast<std::uint8_t>(
        sign | static_cast<std::uint8_t>(std::nearbyint(std::ldexp(magnitude, 9))));
  }
  int exponent = 0;
  const float fraction = std::frexp(magnitude, &exponent);  // magnitude = fraction * 2^exponent
  int mantissa = static_cast<int>(std::nearbyint((2.0f * fraction - 1.0f) * 8.0f));
  int biased = exponent - 1 + 7;
  if (mantissa == 8) {
    mantissa = 0;
    ++biased;
  }
  if (biased > 0xF || (biased == 0xF && mantissa == 0x7)) return sign | kLargest;
  return static_cast<std::uint8_t>(sign | (biased << 3) | mantissa);
}

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
