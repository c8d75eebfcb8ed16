// Argument packing, grid and scratch rules for Triton kernels: everything but the CUDA driver.
#include <autoplugin/error.h>
#include <autoplugin/triton.h>

#include <algorithm>
#include <string>

namespace autoplugin::triton {
namespace {

// The C++ type that carries each parameter type, for messages.
std::string_view cpp_type_name(ParamType type) noexcept {
  switch (type) {
    case ParamType::Pointer:
      return "pointer";
    case ParamType::I1:
      return "bool";
    case ParamType::I8:
      return "std::int8_t";
    case ParamType::I16:
      return "std::int16_t";
    case ParamType::I32:
      return "std::int32_t";
    case ParamType::I64:
      return "std::int64_t";
    case ParamType::U1:
      return "bool";
    case ParamType::U8:
      return "std::uint8_t";
    case ParamType::U16:
      return "std::uint16_t";
    case ParamType::U32:
      return "std::uint32_t";
    case ParamType::U64:
      return "std::uint64_t";
    case ParamType::FP16:
      return "__half";
    case ParamType::BF16:
      return "__nv_bfloat16";
    case ParamType::FP32:
      return "float";
    case ParamType::FP64:
      return "double";
  }
  return "?";
}

bool accepts(ParamType parameter, ParamType argument) noexcept {
  return parameter == argument || (parameter == ParamType::U1 && argument == ParamType::I1);
}

bool is_signed(ParamType type) noexcept {
  return type == ParamType::I8 || type == ParamType::I16 || type == ParamType::I32 ||
         type == ParamType::I64;
}

std::string kernel_label(const KernelImage& image) {
  return "Triton kernel '" + std::string(image.name) + "'";
}

// The parameter's type as the signature wrote it, e.g. "*fp32:16".
std::string signature_type(const Parameter& parameter) {
  std::string type = parameter.triton_type;
  if (parameter.divisibility > 1) type += ":" + std::to_string(parameter.divisibility);
  return type;
}

std::string parameter_list(const KernelImage& image) {
  std::string list;
  for (const Parameter& parameter : image.parameters) {
    if (!list.empty()) list += ", ";
    list += std::string(parameter.name) + ": " + signature_type(parameter);
  }
  return list;
}

std::string hex(std::uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  do {
    text.insert(text.begin(), kDigits[value % 16]);
    value /= 16;
  } while (value != 0);
  return "0x" + text;
}

std::uint64_t align_up(std::uint64_t value, std::uint64_t alignment) {
  return alignment <= 1 ? value : (value + alignment - 1) / alignment * alignment;
}

struct ScratchLayout {
  std::uint64_t global_bytes = 0;
  std::uint64_t profile_offset = 0;
  std::uint64_t profile_bytes = 0;
  std::uint64_t total = 0;
  std::uint64_t alignment = 1;
};

std::uint64_t checked_multiply(const KernelImage& image, std::uint64_t a, std::uint64_t b) {
  std::uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) {
    throw Error(kernel_label(image) + ": scratch memory for the grid overflows 64 bits");
  }
  return product;
}

ScratchLayout scratch_layout(const KernelImage& image, Grid grid) {
  ScratchLayout layout;
  const std::uint64_t programs = grid.programs();
  if (image.scratch_parameters >= 1) {
    layout.global_bytes = checked_multiply(image, image.global_scratch_bytes, programs);
  }
  if (image.scratch_parameters >= 2) {
    layout.profile_bytes = checked_multiply(image, image.profile_scratch_bytes, programs);
  }
  // Rounding up and adding can wrap too.
  layout.profile_offset = align_up(layout.global_bytes, image.profile_scratch_align);
  if (layout.profile_offset < layout.global_bytes ||
      layout.profile_offset + layout.profile_bytes < layout.profile_offset) {
    throw Error(kernel_label(image) + ": scratch memory for the grid overflows 64 bits");
  }
  layout.total =
      layout.profile_bytes > 0 ? layout.profile_offset + layout.profile_bytes : layout.global_bytes;
  if (layout.global_bytes > 0) layout.alignment = std::max(1u, image.global_scratch_align);
  if (layout.profile_bytes > 0 && image.profile_scratch_align > layout.alignment) {
    layout.alignment = image.profile_scratch_align;
  }
  return layout;
}

bool keeps_value(const Parameter& parameter, const Argument& argument) noexcept {
  return !parameter.compiled_value || argument.bits() == parameter.value_bits;
}

bool divisible(const Parameter& parameter, const Argument& argument) noexcept {
  if (parameter.divisibility <= 1) return true;
  return is_signed(parameter.type)
             ? static_cast<std::int64_t>(argument.bits()) % parameter.divisibility == 0
             : argument.bits() % parameter.divisibility == 0;
}

}  // namespace

const KernelImage& specialization_for(const KernelImage& image,
                                      std::initializer_list<Argument> arguments, Grid grid,
                                      Workspace scratch) noexcept {
  for (const KernelImage* specialized : image.specializations) {
    if (specialized->parameters.size() != arguments.size()) continue;
    bool keeps = true;
    std::size_t index = 0;
    for (const Argument& argument : arguments) {
      const Parameter& parameter = specialized->parameters[index++];
      keeps = keeps && divisible(parameter, argument) && keeps_value(parameter, argument);
    }
    if (!keeps) continue;
    try {
      if (scratch_layout(*specialized, grid).total > scratch.size) continue;
    } catch (const Error&) {
      continue;  // the generic image reports the overflow
    }
    return *specialized;
  }
  return image;
}

std::size_t param_type_size(ParamType type) noexcept {
  switch (type) {
    case ParamType::I1:
    case ParamType::I8:
    case ParamType::U1:
    case ParamType::U8:
      return 1;
    case ParamType::I16:
    case ParamType::U16:
    case ParamType::FP16:
    case ParamType::BF16:
      return 2;
    case ParamType::I32:
    case ParamType::U32:
    case ParamType::FP32:
      return 4;
    case ParamType::Pointer:
    case ParamType::I64:
    case ParamType::U64:
    case ParamType::FP64:
      return 8;
  }
  return 0;
}

Grid make_grid(std::int64_t x, std::int64_t y, std::int64_t z) {
  static constexpr std::int64_t kLimits[] = {2147483647, 65535, 65535};
  const std::int64_t extents[] = {x, y, z};
  for (int axis = 0; axis < 3; ++axis) {
    if (extents[axis] < 0) {
      throw Error("Triton launch grid: axis " + std::to_string(axis) + " has " +
                  std::to_string(extents[axis]) + " programs; it cannot be negative");
    }
    if (extents[axis] > kLimits[axis]) {
      throw Error("Triton launch grid: axis " + std::to_string(axis) + " has " +
                  std::to_string(extents[axis]) + " programs; CUDA allows 0.." +
                  std::to_string(kLimits[axis]) +
                  " (give more work to each program: a larger block constexpr)");
    }
  }
  return Grid{static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y),
              static_cast<std::uint32_t>(z)};
}

std::size_t scratch_bytes(const KernelImage& image, Grid grid) {
  return static_cast<std::size_t>(scratch_layout(image, grid).total);
}

// scratch_layout's total, as an expression.
Dim scratch_bytes(const KernelImage& image, const Dim& programs) {
  const Dim global = image.scratch_parameters >= 1 ? image.global_scratch_bytes * programs : Dim();
  if (image.scratch_parameters < 2 || image.profile_scratch_bytes == 0) return global;
  const Dim align = image.profile_scratch_align;
  return ceil_div(global, align) * align + image.profile_scratch_bytes * programs;
}

PackedArguments::PackedArguments(const KernelImage& image,
                                 std::initializer_list<Argument> arguments, Grid grid,
                                 Workspace scratch) {
  const std::size_t parameters = image.parameters.size();
  if (parameters + static_cast<std::size_t>(image.scratch_parameters) > kMaxParameters) {
    throw Error(kernel_label(image) + " has more than " + std::to_string(kMaxParameters) +
                " parameters");
  }
  if (arguments.size() != parameters) {
    throw Error(kernel_label(image) + " takes " + std::to_string(parameters) + " arguments (" +
                parameter_list(image) + "); the launch passed " + std::to_string(arguments.size()));
  }
  std::size_t index = 0;
  std::size_t packed = 0;  // parameters compiled for a value are not passed
  for (const Argument& argument : arguments) {
    const Parameter& parameter = image.parameters[index];
    // Messages are built only on failure: this runs in every enqueue.
    auto where = [&] {
      return kernel_label(image) + ": argument " + std::to_string(index) + " ('" + parameter.name +
             "', " + signature_type(parameter) + ")";
    };
    if (!accepts(parameter.type, argument.type())) {
      std::string message = where() + " was given a " +
                            std::string(cpp_type_name(argument.type())) + "; it takes a " +
                            std::string(cpp_type_name(parameter.type));
      if (parameter.type == ParamType::FP32 && argument.type() == ParamType::FP64) {
        message += " (the kernel reads 4 bytes: a double's bits would be read as garbage)";
      }
      throw Error(message);
    }
    if (!divisible(parameter, argument)) {
      const std::string value =
          parameter.type == ParamType::Pointer ? "address " + hex(argument.bits())
          : is_signed(parameter.type) ? std::to_string(static_cast<std::int64_t>(argument.bits()))
                                      : std::to_string(argument.bits());
      throw Error(where() + " is " + value + ", not a multiple of " +
                  std::to_string(parameter.divisibility) +
                  ": the kernel was compiled assuming it is (':" +
                  std::to_string(parameter.divisibility) + "' in the signature)");
    }
    if (parameter.compiled_value) {
      if (!keeps_value(parameter, argument)) {
        throw Error(where() + " has the bits " + hex(argument.bits()) +
                    "; this build of the kernel was compiled for the value whose bits are " +
                    hex(parameter.value_bits));
      }
      ++index;
      continue;
    }
    values_[packed] = argument.bits();
    sizes_[packed] = static_cast<std::uint8_t>(param_type_size(parameter.type));
    ++index;
    ++packed;
  }

  const ScratchLayout layout = scratch_layout(image, grid);
  if (layout.total > scratch.size) {
    throw Error(kernel_label(image) + " needs " + std::to_string(layout.total) +
                " bytes of scratch memory for " + std::to_string(grid.programs()) +
                " programs; the launch passed " + std::to_string(scratch.size) +
                " (declare the op's workspace as autoplugin::triton::scratch_bytes(image, grid))");
  }
  const auto base = reinterpret_cast<std::uintptr_t>(scratch.data);
  if (layout.total > 0 && scratch.data == nullptr) {
    throw Error(kernel_label(image) + " needs scratch memory; the launch passed a null address");
  }
  if (layout.total > 0 && base % layout.alignment != 0) {
    throw Error(kernel_label(image) + ": scratch memory at " + hex(base) +
                " is not aligned to the " + std::to_string(layout.alignment) +
                " bytes the kernel needs");
  }
  const std::uint64_t scratch_addresses[] = {
      layout.global_bytes > 0 ? base : 0,
      layout.profile_bytes > 0 ? base + layout.profile_offset : 0};
  for (int k = 0; k < image.scratch_parameters && k < 2; ++k) {
    values_[packed] = scratch_addresses[k];
    sizes_[packed] = sizeof(void*);
    ++packed;
  }
  count_ = packed;
  for (std::size_t i = 0; i < count_; ++i) pointers_[i] = &values_[i];
}

void throw_no_variant(std::string_view family, const std::string& asked,
                      std::string_view compiled) {
  throw Error("Triton kernel family '" + std::string(family) + "' has no variant for " + asked +
              " (its variants: " + std::string(compiled) +
              "); compile one more: VARIANTS of autoplugin_add_triton_kernel(" +
              std::string(family) + ")");
}

std::span<const std::byte> PackedArguments::bytes(std::size_t index) const noexcept {
  if (index >= count_) return {};
  return {reinterpret_cast<const std::byte*>(&values_[index]), sizes_[index]};
}

}  // namespace autoplugin::triton
