// An op: a schema bound to launchers and a shape function, validated into everything a plugin
// backend needs (positions, dtype table, output dtype rules, the format/dtype predicate, tactics).
#pragma once

#include <autoplugin/attr.h>
#include <autoplugin/binding.h>
#include <autoplugin/dim.h>
#include <autoplugin/dtype.h>
#include <autoplugin/schema.h>
#include <autoplugin/value.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
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
// initialization (see OpRegistry::ops), so option order does not matter.
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

// A set of an op's inputs, by input index: those absent (`Tensor?` given None). Inputs past
// index 63 cannot be absent (Op::absent_inputs refuses them). Empty: every input is present.
class AbsentInputs {
 public:
  static constexpr int kMaxIndex = 63;
  bool contains(int input) const noexcept {
    return input >= 0 && input <= kMaxIndex && ((bits_ >> input) & 1U) != 0;
  }
  void add(int input);  // throws std::out_of_range past kMaxIndex
  bool empty() const noexcept { return bits_ == 0; }
  std::vector<int> indices() const;
  bool operator==(const AbsentInputs&) const = default;

 private:
  std::uint64_t bits_ = 0;
};

// The dtype and format of one input or output position, as a backend proposes them.
struct PortDesc {
  DType dtype = DType::Float32;
  Format format = Format::Linear;
};

// A launcher with the dtypes it handles, at plugin positions (inputs, outputs, size tensors).
struct LauncherEntry {
  const LauncherDescriptor* launcher = nullptr;
  std::vector<DType> dtypes;  // inputs then outputs; size tensors are always Int32
  std::int32_t tactic = 0;    // 1-based among launchers with the same dtypes; 0 when alone
};

class Op {
 public:
  // Validates a declaration; throws BindingError listing every problem, each naming the op.
  static Op build(const OpDeclaration& declaration);
  // Move-only: launcher entries point into the op's own descriptors.
  Op(Op&&) noexcept = default;
  Op& operator=(Op&&) noexcept = default;
  Op(const Op&) = delete;
  Op& operator=(const Op&) = delete;

  const Schema& schema() const noexcept { return *schema_; }
  const std::string& name() const noexcept { return schema_->name; }
  const std::string& qualified_name() const noexcept { return qualified_name_; }
  const std::string& plugin_name() const noexcept { return plugin_name_; }
  const std::string& plugin_namespace() const noexcept { return schema_->ns; }
  const std::string& version() const noexcept { return version_; }
  const std::string& location() const noexcept { return location_; }

  // Plugin positions: inputs are the tensor arguments; outputs are the returns followed by one
  // 0-d Int32 size tensor per data-dependent extent. Shape inputs (SymInt, SymInt[]) are separate.
  int num_inputs() const noexcept { return static_cast<int>(input_arguments_.size()); }
  int num_returns() const noexcept { return static_cast<int>(schema_->returns.size()); }
  int num_size_tensors() const noexcept { return num_size_tensors_; }
  int num_outputs() const noexcept { return num_returns() + num_size_tensors_; }
  int num_shape_inputs() const noexcept { return static_cast<int>(shape_input_arguments_.size()); }
  const Argument& input(int i) const { return schema_->arguments[input_arguments_.at(i)]; }
  const Argument& shape_input(int i) const {
    return schema_->arguments[shape_input_arguments_.at(i)];
  }
  const std::string& output_name(int output) const;  // return name, or "<first return>_size<k>"
  const std::vector<const Argument*>& attributes() const noexcept { return attributes_; }

  // Absent inputs: the `absent` arguments below say which inputs a call leaves out; their entries
  // in dtype, shape and tensor lists keep their positions and are not read (a launcher matches
  // whatever dtype it takes there).
  //
  // The inputs absent for an instance whose reserved field declared `declared` when an engine
  // passes `passed` tensors: the declared ones, and the trailing ones the count leaves out.
  // Throws Error naming the op and the argument when a required input would be absent, or when
  // more tensors are passed than the op has inputs not declared absent.
  AbsentInputs absent_inputs(const AbsentInputs& declared, int passed) const;
  // The op input index of each tensor an engine passes (the present inputs, in order).
  std::vector<int> present_inputs(const AbsentInputs& absent) const;
  // Of these absent inputs, those a plugin must be told about through the reserved field: all
  // but the trailing run, which an engine leaves out by passing fewer tensors.
  AbsentInputs absent_to_declare(const AbsentInputs& absent) const;
  // Whether any input is a `Tensor?` (and the creator lists the reserved field).
  bool has_optional_inputs() const noexcept;

  const std::vector<LauncherEntry>& launchers() const noexcept { return launchers_; }
  // Number of tactics for an input/output dtype combination (1 when there is a single launcher).
  int tactic_count(std::span<const DType> dtypes, const AbsentInputs& absent = {}) const noexcept;
  // The launcher for these input+output dtypes and tactic (0 = the first), or null.
  const LauncherEntry* find_launcher(std::span<const DType> dtypes, std::int32_t tactic,
                                     const AbsentInputs& absent = {}) const noexcept;
  // The same, for a backend about to launch: when there is none, throws Error naming the dtypes
  // asked for and those the launchers take, and saying to add a launcher.
  const LauncherEntry& launcher_for(std::span<const DType> dtypes, std::int32_t tactic,
                                    const AbsentInputs& absent = {}) const;

  const DTypeRule& output_dtype_rule(int output) const { return dtype_rules_.at(output); }
  // The dtype of `output` for these input dtypes and attribute values; Int32 for size tensors.
  // An output whose dtype follows an absent input is an Error naming both.
  DType output_dtype(int output, std::span<const DType> input_dtypes,
                     std::span<const AttrValue> attributes, const AbsentInputs& absent = {}) const;

  // TensorRT's supportsFormatCombination: decides `pos` from ports[0..pos] only, so the answer
  // never depends on later positions. `ports` may be longer than pos + 1. Positions are the op's
  // (inputs, then outputs), absent inputs included; `pos` must not be an absent input.
  bool supports(int pos, std::span<const PortDesc> ports, std::span<const AttrValue> attributes,
                const AbsentInputs& absent = {}) const noexcept;

  // In-place ops: the input an output aliases ("Tensor(a!)" on both), or -1.
  int aliased_input(int output) const noexcept;

  // Decodes plugin fields (TensorRT's or ours) and checks them against the launchers' parameter
  // types. Throws FieldError naming the op and every bad field. The reserved field (see
  // kAbsentInputsField) is decoded into DecodedAttributes::absent_inputs.
  DecodedAttributes decode_fields(std::span<const FieldView> fields) const;
  // Our serialized form; with the reserved field when `absent` is not empty.
  FieldList encode_fields(std::span<const AttrValue> attributes,
                          const AbsentInputs& absent = {}) const;
  // The reserved field's value, checked: each index an input of type `Tensor?`. Throws
  // FieldError naming the op, the field and the argument.
  AbsentInputs declared_absent(std::span<const std::int64_t> indices) const;
  // Decodes the attributes that launchers, the shape function or the workspace function take as
  // a type of their own (AttrBinding), once; the result is LaunchArgs::bound. Then runs the
  // declaration's attribute check (OpDeclaration::validate). Throws FieldError naming the op and
  // every attribute that does not decode with its binding's message, or the check's message.
  std::vector<BoundValues> bind_attributes(std::span<const AttrValue> attributes) const;
  bool has_attribute_check() const noexcept { return attribute_check_.has_value(); }

  // Runs the shape function. `inputs` has one shape per input (an absent one's is ignored: the
  // function gets std::nullopt), `shape_inputs` one per SymInt/SymInt[] argument (a SymInt is a
  // rank-1 shape).
  // Returns one shape per return. Size tensors are recorded in `scope`, which must hold none
  // yet. In-place outputs must keep their input's shape (a requirement like any other). Every
  // failure, including an exception thrown by the user's function, becomes a ShapeError naming the
  // op.
  std::vector<Shape> output_shapes(std::span<const Shape> inputs,
                                   std::span<const Shape> shape_inputs,
                                   std::span<const AttrValue> attributes, ShapeScope& scope,
                                   const AbsentInputs& absent = {}) const;

  // Calls a launcher; returns its status (0 = success). User exceptions propagate. When it
  // returns Launch::NotApplicable, calls the next launcher for the same dtypes, in tactic order,
  // that applies; throws Error naming the op, the launchers and the input shapes when none does.
  // `ran`, when given, is set to the launcher that ran.
  std::int64_t launch(const LauncherEntry& entry, const LaunchArgs& args,
                      const LauncherEntry** ran = nullptr) const {
    if (ran != nullptr) *ran = &entry;
    const std::int64_t status = entry.launcher->thunk(entry.launcher->callable.get(), args);
    return status == kNotApplicable ? launch_another(entry, args, ran) : status;
  }

  bool has_workspace() const noexcept { return workspace_function_.has_value(); }
  // The workspace function's result (0 when the op declares none), symbolic for symbolic shapes.
  Dim workspace_bytes(std::span<const Shape> inputs, std::span<const Shape> shape_inputs,
                      std::span<const AttrValue> attributes, const AbsentInputs& absent = {}) const;
  // Bytes of workspace for these (concrete) shapes; 0 when the op declares none. Throws
  // ShapeError naming the op when the size is not a known non-negative number.
  std::size_t workspace_size(std::span<const Shape> inputs, std::span<const Shape> shape_inputs,
                             std::span<const AttrValue> attributes,
                             const AbsentInputs& absent = {}) const;

  const Example& example() const noexcept { return example_; }

 private:
  Op() = default;
  std::shared_ptr<const Schema> schema_;
  std::string qualified_name_;
  std::string plugin_name_;
  std::string version_;
  std::string location_;
  std::vector<std::size_t> input_arguments_;        // schema argument index per input
  std::vector<std::size_t> shape_input_arguments_;  // schema argument index per shape input
  std::vector<const Argument*> attributes_;
  int num_size_tensors_ = 0;
  std::vector<std::string> output_names_;  // returns, then size tensors
  std::vector<LauncherDescriptor> launcher_descriptors_;
  std::vector<LauncherEntry> launchers_;
  std::vector<DTypeRule> dtype_rules_;        // per output position
  std::vector<std::vector<Format>> formats_;  // per input/output position
  std::vector<int> aliases_;                  // per output position
  ShapeFunctionDescriptor shape_function_;
  std::optional<ShapeFunctionDescriptor> workspace_function_;
  std::optional<AttributeCheckDescriptor> attribute_check_;
  Example example_;

  void check_attributes(std::span<const AttrValue> attributes) const;
  std::int64_t launch_another(const LauncherEntry& declined, const LaunchArgs& args,
                              const LauncherEntry** ran) const;
  std::vector<ShapeArg> shape_args(std::span<const Shape> inputs,
                                   std::span<const Shape> shape_inputs,
                                   std::span<const AttrValue> attributes,
                                   const AbsentInputs& absent) const;
};

// The ops validated at one moment, in declaration order: iterating it is safe while another
// thread declares more (a library loading). Ops never move, so references into it stay valid.
class OpList {
 public:
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Op;
    using difference_type = std::ptrdiff_t;
    using pointer = const Op*;
    using reference = const Op&;
    iterator() = default;
    explicit iterator(std::vector<const Op*>::const_iterator at) : at_(at) {}
    const Op& operator*() const { return **at_; }
    const Op* operator->() const { return *at_; }
    iterator& operator++() {
      ++at_;
      return *this;
    }
    iterator operator++(int) { return iterator(at_++); }
    bool operator==(const iterator& other) const = default;

   private:
    std::vector<const Op*>::const_iterator at_;
  };
  explicit OpList(std::vector<const Op*> ops) : ops_(std::move(ops)) {}
  iterator begin() const { return iterator(ops_.begin()); }
  iterator end() const { return iterator(ops_.end()); }
  std::size_t size() const noexcept { return ops_.size(); }
  bool empty() const noexcept { return ops_.empty(); }
  const Op& operator[](std::size_t i) const { return *ops_.at(i); }

 private:
  std::vector<const Op*> ops_;
};

// All ops declared in this program (and the libraries it loaded).
class OpRegistry {
 public:
  OpDeclaration& add(OpDeclaration declaration);
  // Validates declarations added since the last call. Invalid ones are left out of ops() and
  // reported by errors(). Both are snapshots, taken under the registry's lock.
  OpList ops();
  std::vector<std::string> errors();
  // Calls `listener` with the schema of every declaration so far, then of each later one, as it
  // is declared: a backend that registers ops when its library loads sees them all, whatever the
  // order of static initialization. (Options chained after a declaration come later: read them
  // from the validated Op.)
  void on_declare(std::function<void(const std::string& schema)> listener);

 private:
  void validate_pending();  // with mutex_ held
  std::mutex mutex_;        // declarations come from static initializers; lookups from any thread
  std::vector<std::unique_ptr<OpDeclaration>> declarations_;
  std::size_t validated_ = 0;
  std::deque<Op> ops_;  // a deque: ops never move, so plugins and creators keep pointers to them
  std::vector<std::string> errors_;
  std::vector<std::function<void(const std::string& schema)>> listeners_;
};

OpRegistry& registry();

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

// What AUTOPLUGIN_OP calls: binds and registers.
template <typename ShapeFn, typename... Launchers>
OpDeclaration& declare_op(std::string schema, std::string_view launcher_names, std::string location,
                          ShapeFn shape_function, Launchers... launchers) {
  return registry().add(make_declaration(std::move(schema), launcher_names, std::move(location),
                                         std::move(shape_function), std::move(launchers)...));
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
