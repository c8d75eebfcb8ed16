// Validation of an OpDeclaration into an Op: a sequence of passes over the declaration (see
// Op::build), each adding what does not fit to one problem list.
#include <autoplugin/backend/attr_types.h>
#include <autoplugin/backend/op.h>
#include <autoplugin/error.h>

#include <algorithm>

#include "op_internal.h"

namespace autoplugin {

using detail::plural;
using detail::Problems;

namespace {

// The C++ parameter types that bind to a schema type, for messages (from the type table).
std::string expected_cpp_types(const Type& type) {
  const AttributeTypeInfo* info = attribute_type_info(type);
  const std::string types = info != nullptr ? std::string(info->cpp_parameters) : "?";
  return type.optional ? "std::optional of " + types : types;
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

// A launcher given an integer for a SymInt counts it as an attribute; say what it gets instead.
// (A Dim or Shape parameter fails to compile, binding.h's LaunchParam.)
constexpr const char* kNoShapeInputs =
    "; launchers do not take SymInt or SymInt[] arguments (only the shape function does, as Dim "
    "and Shape): their values are the outputs' extents, Out<T>::size(axis)";

void check_launcher(const Schema& schema, const std::vector<const Argument*>& inputs,
                    const std::vector<const Argument*>& attributes, const LauncherDescriptor& l,
                    Problems& problems) {
  const std::string who = "launcher '" + l.name + "'";
  std::vector<const ParamDescriptor*> tensor_inputs, outputs, attrs;
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
  // The stream and workspace counts are checked at compile time (binding.h).
  if (attrs.size() != attributes.size()) {
    const bool has_shape_inputs =
        std::any_of(schema.arguments.begin(), schema.arguments.end(),
                    [](const Argument& a) { return a.type.is_shape_input(); });
    problems.add(who + " takes " + plural(attrs.size(), "attribute") + " but the schema declares " +
                 std::to_string(attributes.size()) + " (" + names_of(attributes) +
                 "); a launcher takes every attribute, in schema order" +
                 (has_shape_inputs && attrs.size() > attributes.size() ? kNoShapeInputs : ""));
  } else {
    for (std::size_t k = 0; k < attributes.size(); ++k) {
      const Type& type = attributes[k]->type;
      if (!attribute_matches(*attrs[k], type)) {
        problems.add("argument '" + attributes[k]->name + "': schema type " + type.to_string() +
                     ", " + who + " takes " + param_type_text(*attrs[k]) + " (expected " +
                     expected_cpp_types(type) + ")");
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
        expected = expected_cpp_types(a.type);
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

// The attribute check takes every attribute, in schema order, typed as for a launcher.
void check_attribute_check(const std::vector<const Argument*>& attributes,
                           const std::optional<AttributeCheckDescriptor>& check,
                           Problems& problems) {
  if (!check) return;
  if (check->params.size() != attributes.size()) {
    problems.add("the attribute check (.validate) takes " +
                 plural(check->params.size(), "parameter") + " but the schema declares " +
                 plural(attributes.size(), "attribute") + " (" + names_of(attributes) +
                 "); it takes every attribute, in schema order");
    return;
  }
  for (std::size_t k = 0; k < attributes.size(); ++k) {
    const Type& type = attributes[k]->type;
    if (!attribute_matches(check->params[k], type)) {
      problems.add("argument '" + attributes[k]->name + "': schema type " + type.to_string() +
                   ", the attribute check (.validate) parameter " + std::to_string(k + 1) +
                   " has type " + param_type_text(check->params[k]) + " (expected " +
                   expected_cpp_types(type) + ")");
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
    // A required input first: an optional one may be absent.
    std::optional<DTypeRule> inferred;
    for (const bool optional : {false, true}) {
      for (int k = 0; k < n_in && !inferred; ++k) {
        if (positions.inputs[std::size_t(k)]->type.optional != optional) continue;
        const bool same = std::all_of(launchers.begin(), launchers.end(), [&](const auto& e) {
          return e.dtypes[out_pos] == e.dtypes[std::size_t(k)];
        });
        if (same) inferred = same_dtype_as(positions.inputs[std::size_t(k)]->name);
      }
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
  for (const Argument& a : schema.arguments) {
    if (a.name.starts_with("autoplugin_")) {
      problems.add("argument '" + a.name +
                   "': names starting with \"autoplugin_\" are reserved for autoplugin's own "
                   "plugin fields (such as " +
                   std::string(kAbsentInputsField) + ")");
    }
  }
  check_launchers(positions, d.launchers_, problems);
  check_shape_function_declaration(schema, d.shape_function_, problems);
  check_workspace(schema, d.launchers_, d.workspace_function_, problems);
  check_attribute_check(op.attributes_, d.attribute_check_, problems);
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
  op.attribute_check_ = d.attribute_check_;
  if (!problems.empty()) {
    throw BindingError("op '" + schema.qualified_name() + "' (declared at " + d.location_ +
                       ") does not match its schema \"" + schema.text + "\":" + problems.join());
  }
  return op;
}

}  // namespace autoplugin
