// The backend's view of an op: a declaration (autoplugin/op.h) validated into everything an engine
// adapter needs (positions, dtype table, output dtype rules, the format/dtype predicate, tactics),
// and the registry of every op a program declared. Adapters and tools include it; op authors do
// not.
#pragma once

#include <autoplugin/backend/field_codec.h>
#include <autoplugin/backend/schema.h>
#include <autoplugin/backend/shapes.h>
#include <autoplugin/binding.h>
#include <autoplugin/dim.h>
#include <autoplugin/dtype.h>
#include <autoplugin/op.h>
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

// The op named `name`, by its qualified name ("ns::name.overload") or its plugin name
// ("name.overload"; the first declared wins when two namespaces share one), or null.
const Op* find_op(std::string_view name);

}  // namespace autoplugin
