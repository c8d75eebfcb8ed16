// Element types and memory formats of plugin tensors, independent of TensorRT's enums.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#if __has_include(<cuda_fp16.h>) && __has_include(<cuda_bf16.h>)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define AUTOPLUGIN_HAS_CUDA_TYPES 1
#endif
#if defined(AUTOPLUGIN_HAS_CUDA_TYPES) && __has_include(<cuda_fp8.h>)
#include <cuda_fp8.h>
#define AUTOPLUGIN_HAS_CUDA_FP8 1
#endif

namespace autoplugin {

// The element types a TensorRT plugin tensor can have (BOOL/UINT8 only as attribute values).
enum class DType : std::uint8_t {
  Float32,
  Float16,
  BFloat16,
  Int8,
  Int32,
  Int64,
  UInt8,
  Bool,
  Float8E4M3,
};

inline constexpr int kDTypeCount = 9;

// Canonical PyTorch-style name: "float32", "float16", "bfloat16", "int8", ...
std::string_view dtype_name(DType dtype) noexcept;
std::size_t dtype_size(DType dtype) noexcept;
// Accepts canonical names and common aliases ("float", "half", "fp16", "bf16", "long", ...).
std::optional<DType> dtype_from_name(std::string_view name) noexcept;
// PyTorch's c10::ScalarType codes (Float=6, Half=5, BFloat16=15, ...), used when a ScalarType
// attribute arrives as an integer (e.g. from an ONNX INT attribute).
std::optional<DType> dtype_from_scalar_type_code(std::int64_t code) noexcept;

// IEEE half and bfloat16 bit patterns <-> float (round to nearest even, NaN and inf kept).
float half_to_float(std::uint16_t bits) noexcept;
float bfloat16_to_float(std::uint16_t bits) noexcept;
std::uint16_t float_to_half(float value) noexcept;
std::uint16_t float_to_bfloat16(float value) noexcept;
// float8 e4m3fn (PyTorch's float8_e4m3fn, TensorRT's kFP8): no infinities, 0x7F/0xFF are NaN;
// a float past its largest finite value (448) saturates to it, as PyTorch's conversion does not
// (it gives NaN): so random inputs stay finite.
float float8_e4m3_to_float(std::uint8_t bits) noexcept;
std::uint8_t float_to_float8_e4m3(float value) noexcept;

// Memory layouts. Linear is the default; others must be declared by the op.
enum class Format : std::uint8_t { Linear, HWC, CHW4, CHW32, HWC8 };
std::string_view format_name(Format format) noexcept;

// 16-bit storage types for host code that has no CUDA headers.
struct half_storage {
  std::uint16_t bits;
};
struct bfloat16_storage {
  std::uint16_t bits;
};
struct float8_e4m3_storage {
  std::uint8_t bits;
};

template <typename T>
struct dtype_of;  // undefined: the element type has no plugin dtype

template <>
struct dtype_of<float> {
  static constexpr DType value = DType::Float32;
};
template <>
struct dtype_of<half_storage> {
  static constexpr DType value = DType::Float16;
};
template <>
struct dtype_of<bfloat16_storage> {
  static constexpr DType value = DType::BFloat16;
};
template <>
struct dtype_of<float8_e4m3_storage> {
  static constexpr DType value = DType::Float8E4M3;
};
template <>
struct dtype_of<std::int8_t> {
  static constexpr DType value = DType::Int8;
};
template <>
struct dtype_of<std::int32_t> {
  static constexpr DType value = DType::Int32;
};
template <>
struct dtype_of<std::int64_t> {
  static constexpr DType value = DType::Int64;
};
template <>
struct dtype_of<std::uint8_t> {
  static constexpr DType value = DType::UInt8;
};
template <>
struct dtype_of<bool> {
  static constexpr DType value = DType::Bool;
};
#ifdef AUTOPLUGIN_HAS_CUDA_TYPES
template <>
struct dtype_of<__half> {
  static constexpr DType value = DType::Float16;
};
template <>
struct dtype_of<__nv_bfloat16> {
  static constexpr DType value = DType::BFloat16;
};
#endif
#ifdef AUTOPLUGIN_HAS_CUDA_FP8
template <>
struct dtype_of<__nv_fp8_e4m3> {
  static constexpr DType value = DType::Float8E4M3;
};
#endif

template <typename T>
concept Element = requires {
  dtype_of<T>::value;
};

template <Element T>
inline constexpr DType dtype_v = dtype_of<T>::value;

}  // namespace autoplugin
