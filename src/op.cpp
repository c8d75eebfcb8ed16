#include <autoplugin/error.h>
#include <autoplugin/op.h>

#include <algorithm>
#include <exception>
#include <sstream>
#include <stdexcept>

namespace autoplugin {

DTypeRule same_dtype_as(std::string input) {
  return {DTypeRule::Kind::SameAsInput, std::move(input), DType::Float32};
}
DTypeRule fixed_dtype(DType dtype) { return {DTypeRule::Kind::Fixed, "", dtype}; }
DTypeRule dtype_from_attribute(std::string attribute) {
  return {DTypeRule::Kind::FromAttribute, std::move(attribute), DType::Float32};
}

Example& Example::rank(std::string tensor, std::size_t rank) {
  ranks_.emplace_back(std::move(tensor), rank);
  return *this;
}
Example& Example::length(std::string shape_argument, std::size_t length) {
  return rank(std::move(shape_argument), length);
}
Example& Example::attr(std::string attribute, AttrValue value) {
  attributes_.emplace_back(std::move(attribute), std::move(value));
  return *this;
}
std::optional<std::size_t> Example::rank_of(std::string_view name) const {
  for (const auto& [tensor, rank] : ranks_) {
    if (tensor == name) return rank;
  }
  return std::nullopt;
}
const AttrValue* Example::attr_of(std::string_view name) const {
  for (const auto& [attribute, value] : attributes_) {
    if (attribute == name) return &value;
  }
  return nullptr;
}

OpDeclaration::OpDeclaration(std::string schema, ShapeFunctionDescriptor shape_function,
                             std::vector<LauncherDescriptor> launchers, std::string location)
    : schema_text_(std::move(schema)),
      shape_function_(std::move(shape_function)),
      launchers_(std::move(launchers)),
      location_(std::move(location)) {}

OpDeclaration& OpDeclaration::version(std::string version) {
  version_ = std::move(version);
  return *this;
}
OpDeclaration& OpDeclaration::output_dtype(std::string output, DTypeRule rule) {
  dtype_rules_.emplace_back(std::move(output), std::move(rule));
  return *this;
}
OpDeclaration& OpDeclaration::formats(std::string tensor, std::vector<Format> formats) {
  formats_.emplace_back(std::move(tensor), std::move(formats));
  return *this;
}
OpDeclaration& OpDeclaration::example(Example example) {
  example_ = std::move(example);
  return *this;
}

namespace {

// The C++ parameter types that bind to a schema type, for messages.
std::string expected_cpp_types(BaseType base, bool is_list, bool optional) {
  std::string types;
  if (is_list) {
    switch (base) {
      case BaseType::Int:
        types = "std::span<const int64_t> or std::vector<int64_t>";
        break;
      case BaseType::Float:
        types = "std::span<const double> or std::vector<double>";
        break;
      case BaseType::Bool:
        types = "std::span<const bool>";
        break;
      default:
        types = "a list type";
        break;
    }
  } else {
    switch (base) {
      case BaseType::Int:
        types = "int64_t or int32_t";
        break;
      case BaseType::Float:
        types = "double or float";
        break;
      case BaseType::Bool:
        types = "bool";
        break;
      case BaseType::Str:
        types = "std::string_view or const std::string&";
        break;
      case BaseType::ScalarType:
        types = "autoplugin::DType";
        break;
      default:
        types = "?";
        break;
    }
  }
  return optional ? "std::optional of " + types : types;
}

std::string param_type_text(const ParamDescriptor& p) {
  switch (p.role) {
    case Role::Input:
    case Role::OptionalInput:
    case Role::Output:
      return std::string(p.cpp_type) + "<" + std::string(dtype_name(p.dtype)) + ">";
    default:
      return std::string(p.cpp_type);
  }
}

bool attribute_matches(const ParamDescriptor& p, const Type& type) {
  if (p.role != Role::Attribute || p.base != type.base || p.is_list != type.is_list) return false;
  return p.is_optional || !type.optional;  // a None value needs a std::optional parameter
}

std::string names_of(const std::vector<const Argument*>& arguments) {
  std::string text;
  for (const Argument* a : arguments) text += (text.empty() ? "" : ", ") + a->name;
  return text.empty() ? "none" : text;
}

std::string plural(std::size_t n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

class Problems {
 public:
  void add(std::string problem) {
    if (std::find(list_.begin(), list_.end(), problem) == list_.end()) list_.push_back(problem);
  }
  bool empty() const { return list_.empty(); }
  std::string join() const {
    std::string text;
    for (const auto& p : list_) text += "\n  - " + p;
    return text;
  }

 private:
  std::vector<std::string> list_;
};

void check_launcher(const Schema& schema, const std::vector<const Argument*>& inputs,
                    const std::vector<const Argument*>& attributes, const LauncherDescriptor& l,
                    Problems& problems) {
  const std::string who = "launcher '" + l.name + "'";
  std::vector<const ParamDescriptor*> tensor_inputs, outputs, attrs;
  int streams = 0;
  for (const auto& p : l.params) {
    const bool tensor =
        p.role == Role::Input || p.role == Role::OptionalInput || p.role == Role::Output;
    if (tensor && (p.dtype == DType::Bool || p.dtype == DType::UInt8)) {
      problems.add(who + " takes " + param_type_text(p) +
                   ", but TensorRT plugins cannot have bool or uint8 tensors");
    }
    switch (p.role) {
      case Role::Input:
      case Role::OptionalInput:
        tensor_inputs.push_back(&p);
        break;
      case Role::Output:
        outputs.push_back(&p);
        break;
      case Role::Attribute:
        attrs.push_back(&p);
        break;
      case Role::CudaStream:
        ++streams;
        break;
      default:
        break;
    }
  }
  if (tensor_inputs.size() != inputs.size()) {
    problems.add(who + " takes " + plural(tensor_inputs.size(), "input tensor") +
                 " (In<T>/OptIn<T>) but the schema declares " + std::to_string(inputs.size()) +
                 " (" + names_of(inputs) + ")");
  } else {
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const bool optional = inputs[k]->type.optional;
      if (optional != (tensor_inputs[k]->role == Role::OptionalInput)) {
        problems.add("argument '" + inputs[k]->name + "': schema type " +
                     inputs[k]->type.to_string() + ", " + who + " takes " +
                     param_type_text(*tensor_inputs[k]) + " (expected " +
                     (optional ? "OptIn<T>" : "In<T>") + ")");
      }
    }
  }
  if (outputs.size() != schema.returns.size()) {
    std::string names;
    for (const auto& r : schema.returns) names += (names.empty() ? "" : ", ") + r.name;
    problems.add(who + " takes " + plural(outputs.size(), "output tensor") +
                 " (Out<T>) but the schema returns " + std::to_string(schema.returns.size()) +
                 " (" + (names.empty() ? "none" : names) + ")");
  }
  if (streams != 1) {
    problems.add(who + (streams == 0 ? " takes no cudaStream_t; it must launch on the stream "
                                       "TensorRT passes"
                                     : " takes more than one cudaStream_t"));
  }
  if (attrs.size() != attributes.size()) {
    problems.add(who + " takes " + plural(attrs.size(), "attribute") + " but the schema declares " +
                 std::to_string(attributes.size()) + " (" + names_of(attributes) +
                 "); a launcher takes every attribute, in schema order");
  } else {
    for (std::size_t k = 0; k < attributes.size(); ++k) {
      const Type& type = attributes[k]->type;
      if (!attribute_matches(*attrs[k], type)) {
        problems.add("argument '" + attributes[k]->name + "': schema type " + type.to_string() +
                     ", " + who + " takes " + param_type_text(*attrs[k]) + " (expected " +
                     expected_cpp_types(type.base, type.is_list, type.optional) + ")");
      }
    }
  }
}

void check_shape_function(const Schema& schema, const ShapeFunctionDescriptor& f,
                          std::string_view what, Problems& problems) {
  const std::string who(what);
  if (f.params.size() != schema.arguments.size()) {
    problems.add(who + " takes " + plural(f.params.size(), "parameter") +
                 " but the schema declares " + plural(schema.arguments.size(), "argument") +
                 "; it takes every schema argument, in order");
  } else {
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      const Argument& a = schema.arguments[i];
      const ParamDescriptor& p = f.params[i];
      std::string expected;
      if (a.type.is_tensor()) {
        if (p.role != (a.type.optional ? Role::OptionalShape : Role::Shape)) {
          expected = a.type.optional ? "std::optional<autoplugin::Shape>" : "autoplugin::Shape";
        }
      } else if (a.type.is_shape_input()) {
        if (p.role != (a.type.is_list ? Role::Shape : Role::DimValue)) {
          expected = a.type.is_list ? "autoplugin::Shape" : "autoplugin::Dim";
        }
      } else if (!attribute_matches(p, a.type)) {
        expected = expected_cpp_types(a.type.base, a.type.is_list, a.type.optional);
      }
      if (!expected.empty()) {
        problems.add("argument '" + a.name + "': schema type " + a.type.to_string() + ", " + who +
                     " parameter " + std::to_string(i + 1) + " has type " +
                     std::string(p.cpp_type) + " (expected " + expected + ")");
      }
    }
  }
}

std::vector<DType> launcher_dtypes(const LauncherDescriptor& l) {
  std::vector<DType> inputs, outputs;
  for (const auto& p : l.params) {
    if (p.role == Role::Input || p.role == Role::OptionalInput) inputs.push_back(p.dtype);
    if (p.role == Role::Output) outputs.push_back(p.dtype);
  }
  inputs.insert(inputs.end(), outputs.begin(), outputs.end());
  return inputs;
}

int count_params(const LauncherDescriptor& l, Role role) {
  return static_cast<int>(std::count_if(l.params.begin(), l.params.end(),
                                        [&](const auto& p) { return p.role == role; }));
}

// The schema's tensors by plugin position, which the passes look names up in.
struct Positions {
  Positions(const Schema& parsed, const std::vector<const Argument*>& schema_attributes)
      : schema(parsed), attributes(schema_attributes) {
    for (const Argument& a : parsed.arguments) {
      if (a.type.is_tensor()) inputs.push_back(&a);
    }
  }
  int num_inputs() const { return static_cast<int>(inputs.size()); }
  // The input named `name`, or -1.
  int input_index(std::string_view name) const {
    for (int k = 0; k < num_inputs(); ++k) {
      if (inputs[std::size_t(k)]->name == name) return k;
    }
    return -1;
  }
  // The input or return named `name` (returns follow the inputs), or -1.
  int position_of(std::string_view name) const {
    const int k = input_index(name);
    if (k >= 0) return k;
    for (std::size_t j = 0; j < schema.returns.size(); ++j) {
      if (schema.returns[j].name == name) return num_inputs() + static_cast<int>(j);
    }
    return -1;
  }

  const Schema& schema;
  std::vector<const Argument*> inputs;  // the tensor arguments, in order
  const std::vector<const Argument*>& attributes;
};

// ---- the passes of Op::build ------------------------------------------------------------------
// Each pass checks one part of the declaration and adds what does not fit to `problems`; every
// pass runs, so one message lists every mismatch. A pass that derives part of the op returns it.

// Launcher signatures: tensors, stream and attributes against the schema.
void check_launchers(const Positions& positions, const std::vector<LauncherDescriptor>& launchers,
                     Problems& problems) {
  if (launchers.empty()) problems.add("no launcher");
  for (const auto& l : launchers) {
    check_launcher(positions.schema, positions.inputs, positions.attributes, l, problems);
  }
}

// The shape function's parameters against the schema's arguments, its results against the returns.
void check_shape_function_declaration(const Schema& schema, const ShapeFunctionDescriptor& f,
                                      Problems& problems) {
  check_shape_function(schema, f, "shape function", problems);
  if (f.num_results >= 0 && static_cast<std::size_t>(f.num_results) != schema.returns.size()) {
    problems.add("shape function returns " + plural(std::size_t(f.num_results), "shape") +
                 " but the schema returns " + std::to_string(schema.returns.size()));
  }
}

// Workspace: launchers that take one need a declared size, and a declared size needs a taker.
void check_workspace(const Schema& schema, const std::vector<LauncherDescriptor>& launchers,
                     const std::optional<ShapeFunctionDescriptor>& workspace_function,
                     Problems& problems) {
  const auto takes_workspace = [](const LauncherDescriptor& l) {
    return count_params(l, Role::ScratchSpace);
  };
  for (const auto& l : launchers) {
    if (takes_workspace(l) > 1) {
      problems.add("launcher '" + l.name + "' takes more than one autoplugin::Workspace");
    } else if (takes_workspace(l) == 1 && !workspace_function) {
      problems.add("launcher '" + l.name +
                   "' takes an autoplugin::Workspace but the op declares no workspace size; "
                   "chain .workspace(bytes_function) after the declaration");
    }
  }
  if (workspace_function) {
    check_shape_function(schema, *workspace_function, "workspace function", problems);
    if (std::none_of(launchers.begin(), launchers.end(), takes_workspace)) {
      problems.add("the op declares a workspace size but no launcher takes autoplugin::Workspace");
    }
  }
}

// One entry per launcher, pointing into `launchers`; launchers with the same dtypes become tactics.
std::vector<LauncherEntry> launcher_entries(const std::vector<LauncherDescriptor>& launchers) {
  std::vector<LauncherEntry> entries;
  for (const auto& l : launchers) {
    LauncherEntry entry{&l, launcher_dtypes(l), 0};
    for (auto& other : entries) {
      if (other.dtypes != entry.dtypes) continue;
      if (other.tactic == 0) other.tactic = 1;
      entry.tactic = std::max(entry.tactic, other.tactic + 1);
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

// The number of size tensors: every launcher takes the same number of SizeOut parameters.
int size_tensor_count(const std::vector<LauncherDescriptor>& launchers, Problems& problems) {
  const int size_tensors =
      launchers.empty() ? 0 : count_params(launchers.front(), Role::SizeOutput);
  for (const auto& l : launchers) {
    if (count_params(l, Role::SizeOutput) != size_tensors) {
      problems.add("launchers disagree on the number of SizeOut parameters ('" +
                   launchers.front().name + "' takes " + std::to_string(size_tensors) + ", '" +
                   l.name + "' takes " + std::to_string(count_params(l, Role::SizeOutput)) + ")");
    }
  }
  return size_tensors;
}

// Returns keep their schema names; size tensors are "<first return>_size<k>".
std::vector<std::string> output_names(const Schema& schema, int size_tensors) {
  std::vector<std::string> names;
  for (const auto& r : schema.returns) names.push_back(r.name);
  const std::string base = schema.returns.empty() ? "" : schema.returns.front().name + "_";
  for (int s = 0; s < size_tensors; ++s) names.push_back(base + "size" + std::to_string(s));
  return names;
}

// Output dtype rules, one per output position: declared, else implied by the launchers' dtypes.
// `launchers_fit` says whether the launchers' signatures matched the schema; only then do their
// dtypes say anything about the outputs.
std::vector<DTypeRule> output_dtype_rules(
    const Positions& positions,
    const std::vector<std::pair<std::string, DTypeRule>>& declared_rules,
    const std::vector<LauncherEntry>& launchers, bool launchers_fit, int size_tensors,
    Problems& problems) {
  const Schema& schema = positions.schema;
  const int n_in = positions.num_inputs();
  std::vector<DTypeRule> rules;
  for (std::size_t j = 0; j < schema.returns.size(); ++j) {
    const std::string& out_name = schema.returns[j].name;
    const std::size_t out_pos = std::size_t(n_in) + j;
    auto declared = std::find_if(declared_rules.begin(), declared_rules.end(),
                                 [&](const auto& r) { return r.first == out_name; });
    if (declared != declared_rules.end()) {
      const DTypeRule& rule = declared->second;
      if (rule.kind == DTypeRule::Kind::SameAsInput && positions.input_index(rule.argument) < 0) {
        problems.add("output '" + out_name + "': dtype rule names '" + rule.argument +
                     "', which is not a tensor input");
      }
      if (rule.kind == DTypeRule::Kind::FromAttribute) {
        const auto& attributes = positions.attributes;
        auto it = std::find_if(attributes.begin(), attributes.end(),
                               [&](const Argument* a) { return a->name == rule.argument; });
        if (it == attributes.end() || (*it)->type.base != BaseType::ScalarType ||
            (*it)->type.is_list) {
          problems.add("output '" + out_name + "': dtype rule names '" + rule.argument +
                       "', which is not a ScalarType attribute");
        }
      }
      if (launchers_fit && rule.kind != DTypeRule::Kind::FromAttribute) {
        const int source = positions.input_index(rule.argument);
        for (const auto& e : launchers) {
          const bool fixed = rule.kind == DTypeRule::Kind::Fixed;
          if (!fixed && source < 0) break;
          const DType expected = fixed ? rule.dtype : e.dtypes[std::size_t(source)];
          if (e.dtypes[out_pos] != expected) {
            problems.add("output '" + out_name + "': declared dtype " +
                         (fixed ? std::string(dtype_name(rule.dtype)) : "of " + rule.argument) +
                         ", but launcher '" + e.launcher->name + "' writes " +
                         std::string(dtype_name(e.dtypes[out_pos])));
          }
        }
      }
      rules.push_back(rule);
      continue;
    }
    if (!launchers_fit) {
      rules.push_back(fixed_dtype(DType::Float32));
      continue;
    }
    std::optional<DTypeRule> inferred;
    for (int k = 0; k < n_in && !inferred; ++k) {
      const bool same = std::all_of(launchers.begin(), launchers.end(), [&](const auto& e) {
        return e.dtypes[out_pos] == e.dtypes[std::size_t(k)];
      });
      if (same) inferred = same_dtype_as(positions.inputs[std::size_t(k)]->name);
    }
    if (!inferred) {
      const DType first = launchers.front().dtypes[out_pos];
      const bool fixed = std::all_of(launchers.begin(), launchers.end(),
                                     [&](const auto& e) { return e.dtypes[out_pos] == first; });
      if (fixed) inferred = fixed_dtype(first);
    }
    if (!inferred) {
      std::string seen;
      for (const auto& e : launchers) {
        seen += (seen.empty() ? "" : ", ") + std::string(dtype_name(e.dtypes[out_pos])) +
                " from '" + e.launcher->name + "'";
      }
      problems.add("output '" + out_name + "': the launchers give dtypes (" + seen +
                   ") that neither one input nor one fixed dtype explains; declare "
                   ".output_dtype(\"" +
                   out_name + "\", ...)");
      inferred = fixed_dtype(DType::Float32);
    }
    rules.push_back(*inferred);
  }
  for (const auto& [name, rule] : declared_rules) {
    if (positions.position_of(name) < n_in) {
      problems.add("output_dtype names '" + name + "', which is not an output");
    }
  }
  // TensorRT: "The data type for any size tensor outputs must be DataType::kINT32."
  for (int s = 0; s < size_tensors; ++s) rules.push_back(fixed_dtype(DType::Int32));
  return rules;
}

// The formats each input and output position accepts: declared, else LINEAR.
std::vector<std::vector<Format>> tensor_formats(
    const Positions& positions,
    const std::vector<std::pair<std::string, std::vector<Format>>>& declared, int num_positions,
    Problems& problems) {
  std::vector<std::vector<Format>> formats(std::size_t(num_positions), {Format::Linear});
  for (const auto& [name, accepted] : declared) {
    const int pos = positions.position_of(name);
    if (pos < 0) {
      problems.add("formats names '" + name + "', which is not an input or output tensor");
    } else if (accepted.empty()) {
      problems.add("formats for '" + name + "' is empty");
    } else {
      formats[std::size_t(pos)] = accepted;
    }
  }
  return formats;
}

// In-place outputs: the input each output aliases (-1 for none). An alias pair is written on both
// sides and has one dtype; a written input needs an output that aliases it.
std::vector<int> output_aliases(const Positions& positions,
                                const std::vector<LauncherEntry>& launchers, bool launchers_fit,
                                int num_outputs, Problems& problems) {
  const Schema& schema = positions.schema;
  const auto& inputs = positions.inputs;
  const int n_in = positions.num_inputs();
  std::vector<int> aliases(std::size_t(num_outputs), -1);
  for (std::size_t j = 0; j < schema.returns.size(); ++j) {
    const auto& alias = schema.returns[j].alias;
    if (!alias) continue;
    int found = -1;
    for (int k = 0; k < n_in; ++k) {
      const auto& in_alias = inputs[std::size_t(k)]->alias;
      if (in_alias && in_alias->set == alias->set) found = k;
    }
    if (found < 0) {
      problems.add("output '" + schema.returns[j].name + "' aliases set '" + alias->set +
                   "', which no input has");
    } else if (!alias->is_write || !inputs[std::size_t(found)]->alias->is_write) {
      problems.add("output '" + schema.returns[j].name + "' and input '" +
                   inputs[std::size_t(found)]->name +
                   "' share an alias set but are not both marked written ('(" + alias->set +
                   "!)'); in-place ops write their input");
    } else {
      aliases[j] = found;
      for (const auto& e : launchers) {
        if (launchers_fit && e.dtypes[std::size_t(n_in) + j] != e.dtypes[std::size_t(found)]) {
          problems.add("launcher '" + e.launcher->name + "': in-place output '" +
                       schema.returns[j].name + "' must have the dtype of input '" +
                       inputs[std::size_t(found)]->name + "'");
        }
      }
    }
  }
  for (int k = 0; k < n_in; ++k) {
    const auto& alias = inputs[std::size_t(k)]->alias;
    if (alias && alias->is_write && std::find(aliases.begin(), aliases.end(), k) == aliases.end()) {
      problems.add("input '" + inputs[std::size_t(k)]->name + "' is written ('(" + alias->set +
                   "!)') but no output aliases it; declare the output as Tensor(" + alias->set +
                   "!)");
    }
  }
  return aliases;
}

}  // namespace

Op Op::build(const OpDeclaration& d) {
  Op op;
  op.location_ = d.location_;
  op.version_ = d.version_;
  try {
    op.schema_ = std::make_shared<const Schema>(parse_schema(d.schema_text_));
  } catch (const SchemaError& e) {
    throw BindingError("op declared at " + d.location_ + ": " + e.what());
  }
  const Schema& schema = *op.schema_;
  op.qualified_name_ = schema.qualified_name();
  op.plugin_name_ = schema.plugin_name();
  for (std::size_t i = 0; i < schema.arguments.size(); ++i) {
    if (schema.arguments[i].type.is_tensor()) op.input_arguments_.push_back(i);
    if (schema.arguments[i].type.is_shape_input()) op.shape_input_arguments_.push_back(i);
  }
  op.attributes_ = attribute_arguments(schema);
  const Positions positions(schema, op.attributes_);

  Problems problems;
  check_launchers(positions, d.launchers_, problems);
  check_shape_function_declaration(schema, d.shape_function_, problems);
  check_workspace(schema, d.launchers_, d.workspace_function_, problems);
  op.launcher_descriptors_ = d.launchers_;
  op.launchers_ = launcher_entries(op.launcher_descriptors_);
  op.num_size_tensors_ = size_tensor_count(d.launchers_, problems);
  op.output_names_ = output_names(schema, op.num_size_tensors_);
  // The launchers' dtypes say something about the outputs only when their signatures fit.
  const bool launchers_fit = problems.empty();
  op.dtype_rules_ = output_dtype_rules(positions, d.dtype_rules_, op.launchers_, launchers_fit,
                                       op.num_size_tensors_, problems);
  op.formats_ = tensor_formats(positions, d.formats_, op.num_inputs() + op.num_outputs(), problems);
  op.aliases_ = output_aliases(positions, op.launchers_, launchers_fit, op.num_outputs(), problems);

  op.example_ = d.example_;
  op.shape_function_ = d.shape_function_;
  op.workspace_function_ = d.workspace_function_;
  if (!problems.empty()) {
    throw BindingError("op '" + schema.qualified_name() + "' (declared at " + d.location_ +
                       ") does not match its schema \"" + schema.text + "\":" + problems.join());
  }
  return op;
}

const std::string& Op::output_name(int output) const {
  return output_names_.at(std::size_t(output));
}

int Op::tactic_count(std::span<const DType> dtypes) const noexcept {
  return static_cast<int>(std::count_if(launchers_.begin(), launchers_.end(), [&](const auto& e) {
    return std::ranges::equal(e.dtypes, dtypes);
  }));
}

const LauncherEntry* Op::find_launcher(std::span<const DType> dtypes,
                                       std::int32_t tactic) const noexcept {
  for (const auto& e : launchers_) {
    if (std::ranges::equal(e.dtypes, dtypes) && (tactic == 0 || e.tactic == tactic)) return &e;
  }
  return nullptr;
}

DType Op::output_dtype(int output, std::span<const DType> input_dtypes,
                       std::span<const AttrValue> attributes) const {
  const DTypeRule& rule = dtype_rules_.at(std::size_t(output));
  if (input_dtypes.size() != std::size_t(num_inputs()) || attributes.size() != attributes_.size()) {
    throw BindingError("op '" + qualified_name() + "': output dtype asked with " +
                       plural(input_dtypes.size(), "input dtype") + " and " +
                       plural(attributes.size(), "attribute"));
  }
  switch (rule.kind) {
    case DTypeRule::Kind::Fixed:
      return rule.dtype;
    case DTypeRule::Kind::SameAsInput:
      for (int k = 0; k < num_inputs(); ++k) {
        if (input(k).name == rule.argument) return input_dtypes[std::size_t(k)];
      }
      break;
    case DTypeRule::Kind::FromAttribute:
      for (std::size_t a = 0; a < attributes_.size(); ++a) {
        if (attributes_[a]->name != rule.argument) continue;
        if (const auto* dtype = std::get_if<DType>(&attributes[a])) return *dtype;
        // ScalarType? dtype=None keeps the first input's dtype, as in PyTorch.
        if (!input_dtypes.empty()) return input_dtypes.front();
      }
      break;
  }
  throw BindingError("op '" + qualified_name() + "': cannot decide the dtype of output '" +
                     output_name(output) + "'");
}

bool Op::supports(int pos, std::span<const PortDesc> ports,
                  std::span<const AttrValue> attributes) const noexcept {
  const int n_in = num_inputs();
  if (pos < 0 || pos >= n_in + num_outputs() || ports.size() <= std::size_t(pos) ||
      attributes.size() != attributes_.size()) {
    return false;
  }
  const auto& allowed = formats_[std::size_t(pos)];
  if (std::find(allowed.begin(), allowed.end(), ports[std::size_t(pos)].format) == allowed.end()) {
    return false;
  }
  if (pos >= n_in + num_returns()) return ports[std::size_t(pos)].dtype == DType::Int32;
  if (pos >= n_in) {
    const int output = pos - n_in;
    if (aliases_[std::size_t(output)] >= 0) {
      const PortDesc& source = ports[std::size_t(aliases_[std::size_t(output)])];
      if (source.format != ports[std::size_t(pos)].format) return false;
    }
    std::vector<DType> input_dtypes;
    for (int k = 0; k < n_in; ++k) input_dtypes.push_back(ports[std::size_t(k)].dtype);
    try {
      if (output_dtype(output, input_dtypes, attributes) != ports[std::size_t(pos)].dtype) {
        return false;
      }
    } catch (const std::exception&) {
      return false;
    }
  }
  // Some launcher handles the dtypes proposed so far; later positions are not looked at.
  return std::any_of(launchers_.begin(), launchers_.end(), [&](const LauncherEntry& e) {
    for (int p = 0; p <= pos; ++p) {
      if (e.dtypes[std::size_t(p)] != ports[std::size_t(p)].dtype) return false;
    }
    return true;
  });
}

int Op::aliased_input(int output) const noexcept {
  return output >= 0 && output < num_outputs() ? aliases_[std::size_t(output)] : -1;
}

DecodedAttributes Op::decode_fields(std::span<const FieldView> fields) const {
  DecodedAttributes decoded = decode_attributes(*schema_, fields);
  Problems problems;
  // Attributes reach launchers in attribute order and the shape and workspace functions in
  // schema order; a narrow C++ type (int32_t, float) anywhere must hold the value.
  auto check = [&](const ParamDescriptor& p, std::size_t index, const std::string& who) {
    if (p.fits != nullptr && !p.fits(decoded.values[index])) {
      problems.add("field '" + attributes_[index]->name + "': value " +
                   to_string(decoded.values[index]) + " does not fit " + who + " parameter type " +
                   std::string(p.cpp_type));
    }
  };
  for (const auto& l : launcher_descriptors_) {
    std::size_t k = 0;
    for (const auto& p : l.params) {
      if (p.role == Role::Attribute) check(p, k++, "launcher");
    }
  }
  auto check_function = [&](const ShapeFunctionDescriptor& f, const std::string& who) {
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      const auto it = std::find(attributes_.begin(), attributes_.end(), &schema_->arguments[i]);
      if (it != attributes_.end()) check(f.params[i], std::size_t(it - attributes_.begin()), who);
    }
  };
  check_function(shape_function_, "shape function");
  if (workspace_function_) check_function(*workspace_function_, "workspace function");
  if (!problems.empty()) throw FieldError("op '" + qualified_name() + "':" + problems.join());
  return decoded;
}

FieldList Op::encode_fields(std::span<const AttrValue> attributes) const {
  return encode_attributes(*schema_, attributes);
}

std::vector<ShapeArg> Op::shape_args(std::span<const Shape> inputs,
                                     std::span<const Shape> shape_inputs,
                                     std::span<const AttrValue> attributes) const {
  auto who = [&] { return "op '" + qualified_name() + "': "; };
  if (inputs.size() != std::size_t(num_inputs()) ||
      shape_inputs.size() != std::size_t(num_shape_inputs()) ||
      attributes.size() != attributes_.size()) {
    throw ShapeError(who() + "shape function called with " + plural(inputs.size(), "input") + ", " +
                     plural(shape_inputs.size(), "shape input") + " and " +
                     plural(attributes.size(), "attribute") + "; expected " +
                     std::to_string(num_inputs()) + ", " + std::to_string(num_shape_inputs()) +
                     " and " + std::to_string(attributes_.size()));
  }
  std::vector<ShapeArg> args(schema_->arguments.size());
  for (std::size_t k = 0; k < inputs.size(); ++k) args[input_arguments_[k]].shape = &inputs[k];
  for (std::size_t k = 0; k < shape_inputs.size(); ++k) {
    const Argument& a = schema_->arguments[shape_input_arguments_[k]];
    if (!a.type.is_list && shape_inputs[k].rank() != 1) {
      throw ShapeError(who() + "shape input '" + a.name +
                       "' is a SymInt and needs exactly one value");
    }
    args[shape_input_arguments_[k]].shape = &shape_inputs[k];
  }
  for (std::size_t k = 0; k < attributes_.size(); ++k) {
    const auto index = static_cast<std::size_t>(attributes_[k] - schema_->arguments.data());
    args[index].value = &attributes[k];
  }
  return args;
}

Dim Op::workspace_bytes(std::span<const Shape> inputs, std::span<const Shape> shape_inputs,
                        std::span<const AttrValue> attributes) const {
  if (!workspace_function_) return 0;
  auto who = [&] { return "op '" + qualified_name() + "': workspace function"; };
  const std::vector<ShapeArg> args = shape_args(inputs, shape_inputs, attributes);
  try {
    return workspace_function_->thunk(workspace_function_->callable.get(), args).at(0)[0];
  } catch (const Error& e) {
    throw ShapeError(who() + ": " + e.what());
  } catch (const std::exception& e) {
    throw ShapeError(who() + " threw: " + e.what());
  } catch (...) {
    throw ShapeError(who() + " threw a non-standard exception");
  }
}

std::size_t Op::workspace_size(std::span<const Shape> inputs, std::span<const Shape> shape_inputs,
                               std::span<const AttrValue> attributes) const {
  const Dim bytes = workspace_bytes(inputs, shape_inputs, attributes);
  const auto value = bytes.constant();
  if (!value || *value < 0) {
    const std::string who = "op '" + qualified_name() + "': workspace function";
    if (!value) throw ShapeError(who + " depends on unknown values: " + to_string(bytes));
    throw ShapeError(who + " returned " + std::to_string(*value) + " bytes");
  }
  return static_cast<std::size_t>(*value);
}

std::vector<Shape> Op::output_shapes(std::span<const Shape> inputs,
                                     std::span<const Shape> shape_inputs,
                                     std::span<const AttrValue> attributes,
                                     ShapeScope& scope) const {
  auto who = [&] { return "op '" + qualified_name() + "': "; };
  const std::vector<ShapeArg> args = shape_args(inputs, shape_inputs, attributes);
  // Size tensors are numbered within a scope, so each evaluation needs its own.
  if (!scope.size_tensors().empty()) {
    throw std::logic_error(who() + "output_shapes needs a ShapeScope without size tensors");
  }
  std::vector<Shape> shapes;
  try {
    shapes = shape_function_.thunk(shape_function_.callable.get(), args);
  } catch (const Error& e) {
    throw ShapeError(who() + "shape function: " + e.what());
  } catch (const std::exception& e) {
    throw ShapeError(who() + "shape function threw: " + e.what());
  } catch (...) {
    throw ShapeError(who() + "shape function threw a non-standard exception");
  }
  if (shapes.size() != std::size_t(num_returns())) {
    throw ShapeError(who() + "shape function returned " + plural(shapes.size(), "shape") + " for " +
                     plural(std::size_t(num_returns()), "output"));
  }
  for (int j = 0; j < num_returns(); ++j) {
    const int k = aliases_[std::size_t(j)];
    if (k < 0) continue;
    const Shape& out = shapes[std::size_t(j)];
    const Shape& in = inputs[std::size_t(k)];
    const std::string message =
        "in-place output '" + output_name(j) + "' has the shape of input '" + input(k).name + "'";
    if (out.rank() != in.rank()) throw ShapeError(who() + message + " (ranks differ)");
    try {
      for (std::size_t i = 0; i < out.rank(); ++i) require(out[i] == in[i], message);
    } catch (const ShapeError& e) {
      throw ShapeError(who() + e.what());
    }
  }
  const std::size_t declared = scope.size_tensors().size();
  if (declared != std::size_t(num_size_tensors_)) {
    throw ShapeError(who() + "shape function declared " + plural(declared, "size tensor") +
                     " but the launchers take " + std::to_string(num_size_tensors_) +
                     " SizeOut parameter" + (num_size_tensors_ == 1 ? "" : "s"));
  }
  return shapes;
}

OpDeclaration& OpRegistry::add(OpDeclaration declaration) {
  std::lock_guard lock(mutex_);
  declarations_.push_back(std::make_unique<OpDeclaration>(std::move(declaration)));
  return *declarations_.back();
}

void OpRegistry::validate_pending() {
  std::lock_guard lock(mutex_);
  for (; validated_ < declarations_.size(); ++validated_) {
    const OpDeclaration& d = *declarations_[validated_];
    try {
      Op op = Op::build(d);
      const auto same = std::find_if(ops_.begin(), ops_.end(), [&](const Op& other) {
        return other.qualified_name() == op.qualified_name() && other.version() == op.version();
      });
      if (same != ops_.end()) {
        errors_.push_back("op '" + op.qualified_name() + "' version " + op.version() +
                          " is declared twice (at " + same->location() + " and at " + d.location() +
                          ")");
        continue;
      }
      ops_.push_back(std::move(op));
    } catch (const Error& e) {
      errors_.emplace_back(e.what());
    }
  }
}

const std::deque<Op>& OpRegistry::ops() {
  validate_pending();
  return ops_;
}

const std::vector<std::string>& OpRegistry::errors() {
  validate_pending();
  return errors_;
}

const Op* OpRegistry::find(std::string_view qualified_name) {
  for (const Op& op : ops()) {
    if (op.qualified_name() == qualified_name) return &op;
  }
  return nullptr;
}

OpRegistry& registry() {
  static OpRegistry instance;
  return instance;
}

std::vector<std::string> split_launcher_names(std::string_view text) {
  std::vector<std::string> names;
  std::string current;
  int depth = 0;
  auto flush = [&] {
    const auto begin = current.find_first_not_of(" \t\n");
    const auto end = current.find_last_not_of(" \t\n");
    std::string name = begin == std::string::npos ? "" : current.substr(begin, end - begin + 1);
    // A launcher with commas in its template arguments is written in parentheses for the macro.
    if (name.size() >= 2 && name.front() == '(' && name.back() == ')') {
      int level = 0;
      bool encloses = true;
      for (std::size_t i = 0; i + 1 < name.size(); ++i) {
        level += name[i] == '(' ? 1 : name[i] == ')' ? -1 : 0;
        if (level == 0) encloses = false;
      }
      if (encloses) name = name.substr(1, name.size() - 2);
    }
    names.push_back(std::move(name));
    current.clear();
  };
  for (char c : text) {
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    if (c == '>' || c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      flush();
    } else {
      current += c;
    }
  }
  flush();
  return names;
}

void throw_dtype_mismatch(DType expected, DType actual) {
  throw TensorError("tensor has dtype " + std::string(dtype_name(actual)) +
                    " but the launcher expects " + std::string(dtype_name(expected)));
}

void throw_missing_tensor(DType expected) {
  throw TensorError("no tensor given where the launcher expects one of dtype " +
                    std::string(dtype_name(expected)));
}

}  // namespace autoplugin
