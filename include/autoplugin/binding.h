// Compile-time part of binding: reads a launcher's or shape function's parameter types and turns
// the callable into a type-erased descriptor. All checking against the schema happens in compiled
// code (op_build.cpp). This file holds what an op author meets (AttrBinding, Launch, the
// descriptors); the parameter traits that read the types, with the static_asserts that name what
// to change, are in detail/binding.h, included at its end.
#pragma once

#include <autoplugin/dim.h>
#include <autoplugin/tensor.h>
#include <autoplugin/value.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace autoplugin {

// What a parameter is for, read from its C++ type.
enum class Role : std::uint8_t {
  Input,          // In<T>: a `Tensor` argument
  OptionalInput,  // OptIn<T>: a `Tensor?` argument
  Output,         // Out<T>: a return
  SizeOutput,     // SizeOut: a data-dependent extent's count
  CudaStream,     // cudaStream_t
  ScratchSpace,   // Workspace: TensorRT-provided scratch memory
  Attribute,      // a value type: an attribute argument
  Shape,          // shape function: Shape, for a `Tensor` or `SymInt[]` argument
  OptionalShape,  // shape function: std::optional<Shape>, for a `Tensor?` argument
  DimValue,       // shape function: Dim, for a `SymInt` argument
};

// A user-bound attribute's C++ value (see AttrBinding), decoded once when a plugin is created.
// `binder` is the function that decoded it, which identifies the C++ type.
struct BoundValue {
  using Binder = std::shared_ptr<const void> (*)(const AttrValue&);
  Binder binder = nullptr;
  std::shared_ptr<const void> value;
};
using BoundValues = std::vector<BoundValue>;  // one attribute's values, one per bound C++ type

struct ParamDescriptor {
  Role role = Role::Attribute;
  DType dtype = DType::Float32;      // tensors only
  BaseType base = BaseType::Tensor;  // attributes: the schema type it binds to
  bool is_list = false;
  bool is_optional = false;  // attributes: std::optional<...>, which can hold None
  std::string_view cpp_type;
  // Attributes whose C++ type is narrower than the schema type (int32_t, float): false when the
  // value does not fit. Null when every value of the schema type fits.
  bool (*fits)(const AttrValue&) = nullptr;
  // Attributes of a user-bound type: decodes the attribute value into it (may throw).
  BoundValue::Binder binder = nullptr;
};

// Everything a launcher call needs, in the op's positions.
struct LaunchArgs {
  std::span<const TensorRef> inputs;        // one per tensor argument; absent: present false
  std::span<const TensorRef> outputs;       // one per return
  std::span<const TensorRef> size_outputs;  // one per size tensor (0-d int32)
  std::span<const AttrValue> attributes;    // one per attribute argument
  Stream stream = nullptr;
  Workspace workspace;
  std::span<const BoundValues> bound;  // one per attribute argument (see Op::bind_attributes)
};

// The value `binder` decoded for attribute `attribute`; throws Error when there is none (the
// launch arguments were made without Op::bind_attributes).
const void* find_bound_value(std::span<const BoundValues> bound, std::size_t attribute,
                             BoundValue::Binder binder);

// Binds a C++ type of your own to a schema attribute type; specialize it for the type:
//
//   enum class Mode { Scale, Shift };
//   template <> struct autoplugin::AttrBinding<Mode> {
//     using schema_type = std::string_view;               // binds to `str`
//     static Mode decode(std::string_view text);          // may throw: the message is reported
//   };
//
// `schema_type` is any attribute parameter type (int64_t, double, bool, std::string_view,
// std::span<const int64_t>, DType, ...), which decides the schema type it binds to. Launchers
// receive the decoded value, made once when the plugin is created (a plugin with a value that
// does not decode is not created); shape and workspace functions decode it per call.
// `std::optional<T>` binds to the optional schema type. An optional `static constexpr
// std::string_view name` names the type in messages (default: the compiler's name for it).
template <typename T>
struct AttrBinding;

// What a launcher that handles only some shapes or attribute values returns: Launched, or
// NotApplicable, before launching anything, for those it does not handle (e.g. a kernel
// compiled for rows of at most 1024 elements). The op then runs the next launcher for the same
// dtypes, in tactic order, that applies; when none does, the launch fails with an error naming
// the op and the shapes. Several launchers for the same dtypes are tactics that TensorRT times:
// one that does not apply at the shapes it is timed at is timed as the launcher that runs instead.
enum class Launch : std::uint8_t { Launched, NotApplicable };

// The status a launcher thunk returns for Launch::NotApplicable.
inline constexpr std::int64_t kNotApplicable = std::numeric_limits<std::int64_t>::min();

// Returns the launcher's status: 0, the non-zero value a launcher returned (e.g. cudaError_t), or
// kNotApplicable.
using LaunchThunk = std::int64_t (*)(const void* callable, const LaunchArgs& args);

struct LauncherDescriptor {
  std::string name;  // as written in the declaration, e.g. "circular_pad<float>"
  std::vector<ParamDescriptor> params;
  std::shared_ptr<const void> callable;
  LaunchThunk thunk = nullptr;
  // A launcher that returns a status (e.g. cudaGetLastError()) reports its own launch errors;
  // after a void (or autoplugin::Launch) launcher the backend checks for a pending CUDA error.
  bool returns_status = false;
};

// One value per schema argument for a shape function call.
struct ShapeArg {
  const Shape* shape = nullptr;      // Tensor, Tensor? (null when absent), SymInt, SymInt[]
  const AttrValue* value = nullptr;  // attributes
};

using ShapeThunk = std::vector<Shape> (*)(const void* callable, std::span<const ShapeArg> args);

struct ShapeFunctionDescriptor {
  std::vector<ParamDescriptor> params;
  int num_results = -1;  // -1: decided at run time (std::vector<Shape>)
  std::shared_ptr<const void> callable;
  ShapeThunk thunk = nullptr;
};

// An op's check of its attribute values, run when a plugin is created (OpDeclaration::validate).
// Its arguments are ShapeArg values, one per attribute in schema order.
using AttributeCheckThunk = std::string (*)(const void* callable, std::span<const ShapeArg> args);

struct AttributeCheckDescriptor {
  std::vector<ParamDescriptor> params;
  std::shared_ptr<const void> callable;
  AttributeCheckThunk thunk = nullptr;
};

}  // namespace autoplugin

#include <autoplugin/detail/binding.h>
