// What an op author writes: the declaration AUTOPLUGIN_OP records and the options that chain on
// it. Validation into an Op, and everything engines use, is the backend's (backend/op.h).
#pragma once

#include <autoplugin/binding.h>
#include <autoplugin/dtype.h>
#include <autoplugin/value.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace autoplugin {

// How an output's dtype follows from the inputs and attributes.
struct DTypeRule {
  enum class Kind : std::uint8_t { SameAsInput, Fixed, FromAttribute };
  Kind kind = Kind::SameAsInput;
  std::string argument;  // SameAsInput: input name; FromAttribute: ScalarType attribute name
  DType dtype = DType::Float32;  // Fixed
};
DTypeRule same_dtype_as(std::string input);
DTypeRule fixed_dtype(DType dtype);
DTypeRule dtype_from_attribute(std::string attribute);

// Values `describe` uses to show output shapes when a required attribute has no default, or a
// tensor's rank or a SymInt[] argument's length matters.
class Example {
 public:
  Example& rank(std::string tensor, std::size_t rank);
  Example& length(std::string shape_argument, std::size_t length);
  Example& attr(std::string attribute, AttrValue value);

  std::optional<std::size_t> rank_of(std::string_view name) const;
  const AttrValue* attr_of(std::string_view name) const;

 private:
  std::vector<std::pair<std::string, std::size_t>> ranks_;
  std::vector<std::pair<std::string, AttrValue>> attributes_;
};

// What AUTOPLUGIN_OP records; options chain on it. Validated into an Op after static
// initialization (when an engine first asks for the ops), so option order does not matter.
class OpDeclaration {
 public:
  // `launcher_names` is the launcher list as AUTOPLUGIN_OP wrote it; it names the launchers.
  OpDeclaration(std::string schema, ShapeFunctionDescriptor shape_function,
                std::vector<LauncherDescriptor> launchers, std::string_view launcher_names,
                std::string location);

  OpDeclaration& version(std::string version);
  OpDeclaration& output_dtype(std::string output, DTypeRule rule);
  // Formats `tensor` (an input or output name) may take; LINEAR only when not declared.
  OpDeclaration& formats(std::string tensor, std::vector<Format> formats);
  OpDeclaration& example(Example example);
  // Scratch memory for launchers that take autoplugin::Workspace: a function of the shape
  // function's parameters returning bytes (autoplugin::Dim or an integer). TensorRT sizes the
  // workspace with the profile's largest shapes; the launcher sees the size for the current ones.
  template <typename F>
  OpDeclaration& workspace(F bytes) {
    workspace_function_ = detail::make_workspace_function(std::move(bytes));
    return *this;
  }

  // Checks attribute values when a plugin is created, before any shape or launch: `check` takes
  // the op's attributes (the arguments that are neither tensors nor SymInts) in schema order,
  // typed as for a launcher, and returns void, refusing by throwing, or a std::string: empty
  // when the values are acceptable, else what is wrong. createPlugin then fails with that
  // message, naming the op.
  template <typename F>
  OpDeclaration& validate(F check) {
    attribute_check_ = detail::make_attribute_check(std::move(check));
    return *this;
  }

  const std::string& location() const noexcept { return location_; }
  const std::string& schema_text() const noexcept { return schema_text_; }

 private:
  friend class Op;
  std::string schema_text_;
  ShapeFunctionDescriptor shape_function_;
  std::vector<LauncherDescriptor> launchers_;
  std::string location_;
  std::string version_ = "1";
  std::vector<std::pair<std::string, DTypeRule>> dtype_rules_;
  std::vector<std::pair<std::string, std::vector<Format>>> formats_;
  Example example_;
  std::optional<ShapeFunctionDescriptor> workspace_function_;
  std::optional<AttributeCheckDescriptor> attribute_check_;
};

namespace detail {

// Binds a shape function and launchers to a schema, without registering.
template <typename ShapeFn, typename... Launchers>
OpDeclaration make_declaration(std::string schema, std::string_view launcher_names,
                               std::string location, ShapeFn shape_function,
                               Launchers... launchers) {
  static_assert(sizeof...(Launchers) > 0, "autoplugin: an op needs at least one launcher");
  std::vector<LauncherDescriptor> descriptors;
  (descriptors.push_back(make_launcher(launchers, std::string())), ...);
  return OpDeclaration(std::move(schema), make_shape_function(std::move(shape_function)),
                       std::move(descriptors), launcher_names, std::move(location));
}

// Adds a declaration to this program's registry; the reference stays valid for the program's life.
OpDeclaration& register_declaration(OpDeclaration declaration);

// What AUTOPLUGIN_OP calls: binds and registers.
template <typename ShapeFn, typename... Launchers>
OpDeclaration& declare_op(std::string schema, std::string_view launcher_names, std::string location,
                          ShapeFn shape_function, Launchers... launchers) {
  return register_declaration(make_declaration(std::move(schema), launcher_names,
                                               std::move(location), std::move(shape_function),
                                               std::move(launchers)...));
}

}  // namespace detail
}  // namespace autoplugin

#define AUTOPLUGIN_CONCAT_IMPL(a, b) a##b
#define AUTOPLUGIN_CONCAT(a, b) AUTOPLUGIN_CONCAT_IMPL(a, b)
#define AUTOPLUGIN_STRINGIFY_IMPL(x) #x
#define AUTOPLUGIN_STRINGIFY(x) AUTOPLUGIN_STRINGIFY_IMPL(x)

// One declaration per op: AUTOPLUGIN_OP(schema, shape_function, launcher, launcher...).
// Options chain after it: AUTOPLUGIN_OP(...).version("2").output_dtype("y", ...);
#define AUTOPLUGIN_OP(schema, shape_function, ...)                                       \
  [[maybe_unused]] static ::autoplugin::OpDeclaration& AUTOPLUGIN_CONCAT(autoplugin_op_, \
                                                                         __COUNTER__) =  \
      ::autoplugin::detail::declare_op(schema, #__VA_ARGS__,                             \
                                       __FILE__ ":" AUTOPLUGIN_STRINGIFY(__LINE__),      \
                                       shape_function, __VA_ARGS__)
