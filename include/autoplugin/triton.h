// Triton kernels compiled ahead of time, launched from C++ without Python.
//
// autoplugin_add_triton_kernel() (CMake) compiles a @triton.jit function for one signature into a
// cubin + PTX + metadata artefact and generates a header with a typed `launch` for it; that
// header calls launch() below. A family of variants (constexpr values, autotune configs) gives
// one image per variant, selected by value or by index at launch. This file also gives the pieces a
// launcher needs around it: the grid (checked against CUDA's limits) and the scratch memory some
// kernels need.
#pragma once

#include <autoplugin/dim.h>
#include <autoplugin/dtype.h>
#include <autoplugin/tensor.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace autoplugin::triton {

// The types a compiled Triton kernel's run-time parameters can have (Triton's names in comments).
enum class ParamType : std::uint8_t {
  Pointer,  // *fp32, *i64, ... (any element type)
  I1,       // i1 (passed as one byte)
  I8,
  I16,
  I32,
  I64,
  U1,
  U8,
  U16,
  U32,
  U64,
  FP16,  // passed as its 16-bit pattern
  BF16,  // passed as its 16-bit pattern
  FP32,  // passed as a 4-byte float (not as a double)
  FP64,
};

// A parameter type's size in the kernel's parameters.
std::size_t param_type_size(ParamType type) noexcept;

// One run-time parameter of the compiled kernel, in the kernel's order (constexprs removed).
struct Parameter {
  const char* name;         // the Python parameter name
  const char* triton_type;  // as in the signature, e.g. "*fp32" or "i32"
  ParamType type;
  // 16 when the signature promised Triton that the value (an address, for pointers) is a
  // multiple of 16 (":16"); 1 otherwise. The kernel was optimized assuming it, so it is checked.
  std::uint32_t divisibility;
  // In a build compiled for one value of this parameter (a constexpr the generic build takes at
  // run time, as Triton's JIT compiles one kernel per value it sees): the kernel has no such
  // parameter; launch() takes this build only where the argument is that value (its bits as
  // Argument holds them).
  bool compiled_value = false;
  std::uint64_t value_bits = 0;
};

// A constexpr argument the kernel was specialized for (not passed at launch).
struct Constant {
  const char* name;
  const char* value;  // as written in the signature
};

// Everything needed to load and launch one compiled kernel; generated from the artefact. A
// loaded kernel is known by its code's address: the cubin (or, without one, the PTX) must stay
// valid and unchanged for the life of the process, as the generated static arrays do.
struct KernelImage {
  const char* name;      // the artefact's name, used in every error message
  const char* function;  // the kernel's symbol in the module
  const char* signature;
  int arch;  // compute capability the cubin was built for, e.g. 90
  std::span<const unsigned char> cubin;
  // NUL-terminated; JIT-compiled where the cubin does not load (which helps only when its target
  // is not architecture-specific: Triton's Hopper PTX targets sm_90a).
  std::span<const char> ptx;
  std::span<const Parameter> parameters;
  std::span<const Constant> constants;
  int num_warps;               // as compiled (launched with 32 * num_warps threads)
  std::uint32_t shared_bytes;  // dynamic shared memory per program
  // Triton 3.x kernels take two trailing pointers beyond the signature (global scratch and
  // profile scratch); older ones fewer. How many this kernel takes, and what each needs per
  // program (0 bytes: the pointer is passed as null).
  int scratch_parameters;
  std::uint32_t global_scratch_bytes;
  std::uint32_t global_scratch_align;
  std::uint32_t profile_scratch_bytes;
  std::uint32_t profile_scratch_align;
  // The same kernel compiled with more promises (addresses and integers multiples of 16, as
  // Triton's JIT specializes them; parameters compiled for one value), most promised first:
  // launch() takes the first whose promises the arguments keep, else this image. Empty unless
  // compiled with SPECIALIZE or SPECIALIZE_VALUES.
  std::span<const KernelImage* const> specializations = {};
};

// The launch grid, in programs (Triton's program_id axes 0..2).
struct Grid {
  std::uint32_t x = 1;
  std::uint32_t y = 1;
  std::uint32_t z = 1;
  std::uint64_t programs() const noexcept { return std::uint64_t(x) * y * z; }
};

// A grid from extents computed in 64 bits; throws autoplugin::Error naming the axis when one is
// negative or above CUDA's limit (2^31-1 for x, 65535 for y and z).
Grid make_grid(std::int64_t x, std::int64_t y = 1, std::int64_t z = 1);
// ceil(numerator / denominator) for a non-negative numerator and a positive denominator.
constexpr std::int64_t cdiv(std::int64_t numerator, std::int64_t denominator) {
  return (numerator + denominator - 1) / denominator;
}

// triton.next_power_of_2: the smallest power of two at least `value` (1 for values below 2), as
// host code computes a block size that holds a row; a launcher selects a family's variant by it.
constexpr std::int64_t next_power_of_2(std::int64_t value) {
  std::int64_t power = 1;
  while (power < value) power *= 2;
  return power;
}

// Device memory for the kernel's scratch buffers: scratch_bytes(image, grid) bytes, aligned to
// the kernel's global_scratch_align (checked at launch). Declare it as the op's workspace.
std::size_t scratch_bytes(const KernelImage& image, Grid grid);
// The same as an expression of the shapes, for an op's workspace function: `programs` is the
// grid's size in the same terms, e.g. ceil_div(x[0], BLOCK_M) * ceil_div(x[1], BLOCK_N).
Dim scratch_bytes(const KernelImage& image, const Dim& programs);

// A pointer argument that accepts element pointers of one dtype (`T*` or `const T*` of any host
// or CUDA type of that dtype), or of any type when the kernel's pointee has no plugin dtype.
template <typename Element = void>
class PointerArg {
 public:
  template <typename T>
  requires(std::is_void_v<Element> || std::is_same_v<std::remove_const_t<T>, Element> ||
           dtype_of<std::remove_const_t<T>>::value == dtype_v<Element>) PointerArg(T* address)
  noexcept : address_(address) {}
  PointerArg(std::nullptr_t) noexcept {}
  const void* get() const noexcept { return address_; }

 private:
  const void* address_ = nullptr;
};

// An fp16 (D = Float16) or bf16 (D = BFloat16) scalar argument: from a float (rounded to nearest
// even), or from any 16-bit host or CUDA type of that dtype (half_storage, __half, ...).
template <DType D>
class Float16BitsArg {
 public:
  Float16BitsArg(float value) noexcept
      : bits_(D == DType::Float16 ? float_to_half(value) : float_to_bfloat16(value)) {}
  template <Element T>
  requires(dtype_v<T> == D && sizeof(T) == 2) Float16BitsArg(T value)
  noexcept : bits_(std::bit_cast<std::uint16_t>(value)) {}
  std::uint16_t bits() const noexcept { return bits_; }

 private:
  std::uint16_t bits_;
};
using Float16Arg = Float16BitsArg<DType::Float16>;
using BFloat16Arg = Float16BitsArg<DType::BFloat16>;

// One argument value with its C++ type, checked against the parameter it is packed into.
class Argument {
 public:
  template <typename Element>
  Argument(PointerArg<Element> pointer) noexcept
      : type_(ParamType::Pointer), bits_(reinterpret_cast<std::uintptr_t>(pointer.get())) {}
  Argument(const void* pointer) noexcept
      : type_(ParamType::Pointer), bits_(reinterpret_cast<std::uintptr_t>(pointer)) {}
  Argument(bool value) noexcept : type_(ParamType::I1), bits_(value ? 1 : 0) {}
  Argument(std::int8_t value) noexcept : Argument(ParamType::I8, value) {}
  Argument(std::int16_t value) noexcept : Argument(ParamType::I16, value) {}
  Argument(std::int32_t value) noexcept : Argument(ParamType::I32, value) {}
  Argument(std::int64_t value) noexcept : Argument(ParamType::I64, value) {}
  Argument(std::uint8_t value) noexcept : type_(ParamType::U8), bits_(value) {}
  Argument(std::uint16_t value) noexcept : type_(ParamType::U16), bits_(value) {}
  Argument(std::uint32_t value) noexcept : type_(ParamType::U32), bits_(value) {}
  Argument(std::uint64_t value) noexcept : type_(ParamType::U64), bits_(value) {}
  template <DType D>
  Argument(Float16BitsArg<D> value) noexcept
      : type_(D == DType::Float16 ? ParamType::FP16 : ParamType::BF16), bits_(value.bits()) {}
  template <Element T>
  requires((dtype_v<T> == DType::Float16 || dtype_v<T> == DType::BFloat16) && sizeof(T) == 2)
      Argument(T value)
  noexcept : Argument(Float16BitsArg<dtype_v<T>>(value)) {}
  Argument(float value) noexcept
      : type_(ParamType::FP32), bits_(std::bit_cast<std::uint32_t>(value)) {}
  Argument(double value) noexcept
      : type_(ParamType::FP64), bits_(std::bit_cast<std::uint64_t>(value)) {}

  ParamType type() const noexcept { return type_; }
  // The value's bit pattern, zero-extended (sign-extended for signed integers).
  std::uint64_t bits() const noexcept { return bits_; }

 private:
  Argument(ParamType type, std::int64_t value) noexcept
      : type_(type), bits_(static_cast<std::uint64_t>(value)) {}
  ParamType type_;
  std::uint64_t bits_;
};

inline constexpr std::size_t kMaxParameters = 64;

// The kernel-parameter array cuLaunchKernel takes, built from checked arguments.
class PackedArguments {
 public:
  // Throws autoplugin::Error naming the kernel and the parameter when the count, a type, or a
  // divisibility promise does not hold; and when the scratch memory is too small for `grid`.
  PackedArguments(const KernelImage& image, std::initializer_list<Argument> arguments, Grid grid,
                  Workspace scratch);
  PackedArguments(const PackedArguments&) = delete;
  PackedArguments& operator=(const PackedArguments&) = delete;

  // What cuLaunchKernel reads: one pointer per kernel parameter, to that parameter's bytes.
  void** kernel_params() noexcept { return pointers_.data(); }
  std::size_t count() const noexcept { return count_; }
  // The bytes of parameter `index` as the kernel receives them (little-endian).
  std::span<const std::byte> bytes(std::size_t index) const noexcept;

 private:
  std::array<std::uint64_t, kMaxParameters> values_{};
  std::array<void*, kMaxParameters> pointers_{};
  std::array<std::uint8_t, kMaxParameters> sizes_{};
  std::size_t count_ = 0;
};

// For the generated select() and image() of a family of variants: throws autoplugin::Error saying
// that family `family` has no variant for `asked` and listing the variants `compiled` has.
[[noreturn]] void throw_no_variant(std::string_view family, const std::string& asked,
                                   std::string_view compiled);

// The image launch() runs for these arguments: the first of image.specializations whose
// promises (divisibility, compiled values) they keep and whose scratch memory fits `scratch`,
// else `image` (launch()
// also takes `image` where the specialization does not fit the device).
const KernelImage& specialization_for(const KernelImage& image,
                                      std::initializer_list<Argument> arguments, Grid grid,
                                      Workspace scratch) noexcept;

// Whether a program of the kernel fits the launch stream's device: its shared memory at most the
// device's opt-in limit per block. An autotune config may not (Triton's autotuner prunes it): its
// launcher returns Launch::NotApplicable, and the op runs another config. Throws like launch()
// when the driver cannot tell.
bool fits_device(const KernelImage& image, Stream stream);

// Loads the kernel into the stream's CUDA context (the current one for the default stream; once
// per context; cubin, else PTX) and launches it. A grid without programs launches nothing. Throws
// autoplugin::Error naming the kernel on any failure: no CUDA driver, a module that does not load
// on this GPU, bad arguments, a failed launch. Never exits the process.
void launch(const KernelImage& image, Grid grid, Stream stream,
            std::initializer_list<Argument> arguments, Workspace scratch = {});

}  // namespace autoplugin::triton
