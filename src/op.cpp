// The queries a backend asks a validated op: launchers and tactics, output dtypes, the
// format/dtype predicate, aliases, field decoding, output shapes and workspace sizes.
#include <autoplugin/backend/op.h>
#include <autoplugin/error.h>

#include <algorithm>
#include <exception>
#include <stdexcept>

#include "op_internal.h"

namespace autoplugin {

using detail::plural;
using detail::Problems;

void AbsentInputs::add(int input) {
  if (input < 0 || input > kMaxIndex) {
    throw std::out_of_range("input " + std::to_string(input) + " cannot be absent (at most " +
                            std::to_string(kMaxIndex) + ")");
  }
  bits_ |= std::uint64_t{1} << input;
}

std::vector<int> AbsentInputs::indices() const {
  std::vector<int> result;
  for (int k = 0; k <= kMaxIndex; ++k) {
    if (contains(k)) result.push_back(k);
  }
  return result;
}

bool Op::has_optional_inputs() const noexcept { return has_optional_tensor(*schema_); }

AbsentInputs Op::declared_absent(std::span<const std::int64_t> indices) const {
  const std::string who =
      "op '" + qualified_name() + "': field '" + std::string(kAbsentInputsField) + "': ";
  AbsentInputs absent;
  for (std::int64_t k : indices) {
    if (k < 0 || k >= num_inputs()) {
      throw FieldError(who + std::to_string(k) + " is not an input index (the op has " +
                       plural(std::size_t(num_inputs()), "tensor input") + ")");
    }
    const Argument& a = input(int(k));
    if (!a.type.optional) {
      throw FieldError(who + "input " + std::to_string(k) + " ('" + a.name + "') is a " +
                       a.type.to_string() + ", which cannot be absent; only Tensor? inputs can");
    }
    if (k > AbsentInputs::kMaxIndex) {
      throw FieldError(who + "input " + std::to_string(k) + " ('" + a.name +
                       "'): inputs past index " + std::to_string(AbsentInputs::kMaxIndex) +
                       " cannot be absent");
    }
    absent.add(int(k));
  }
  return absent;
}

AbsentInputs Op::absent_inputs(const AbsentInputs& declared, int passed) const {
  const std::string who = "op '" + qualified_name() + "': ";
  AbsentInputs absent = declared;
  int present = 0;
  for (int k = 0; k < num_inputs(); ++k) {
    if (declared.contains(k)) continue;
    if (present < passed) {
      ++present;
      continue;
    }
    const Argument& a = input(k);
    if (!a.type.optional) {
      throw Error(who + "argument '" + a.name + "' (" + a.type.to_string() +
                  ") is required, but only " + plural(std::size_t(std::max(passed, 0)), "tensor") +
                  " were passed" +
                  (declared.empty() ? std::string()
                                    : " (inputs declared absent by field '" +
                                          std::string(kAbsentInputsField) + "' not counted)"));
    }
    if (k > AbsentInputs::kMaxIndex) {
      throw Error(who + "argument '" + a.name + "': inputs past index " +
                  std::to_string(AbsentInputs::kMaxIndex) + " cannot be absent");
    }
    absent.add(k);
  }
  if (passed > present) {
    throw Error(who + "expected at most " + std::to_string(present) + " input tensors" +
                (declared.empty() ? std::string()
                                  : " (field '" + std::string(kAbsentInputsField) + "' declares " +
                                        plural(declared.indices().size(), "input") + " absent)") +
                ", got " + std::to_string(passed));
  }
  return absent;
}

std::vector<int> Op::present_inputs(const AbsentInputs& absent) const {
  std::vector<int> present;
  for (int k = 0; k < num_inputs(); ++k) {
    if (!absent.contains(k)) present.push_back(k);
  }
  return present;
}

AbsentInputs Op::absent_to_declare(const AbsentInputs& absent) const {
  int trailing = num_inputs();
  while (trailing > 0 && absent.contains(trailing - 1)) --trailing;
  AbsentInputs declared;
  for (int k : absent.indices()) {
    if (k < trailing) declared.add(k);
  }
  return declared;
}

namespace {

// Whether a launcher takes these dtypes; an absent input's position matches any.
bool takes(const LauncherEntry& e, std::span<const DType> dtypes, const AbsentInputs& absent) {
  if (e.dtypes.size() != dtypes.size()) return false;
  for (std::size_t p = 0; p < dtypes.size(); ++p) {
    if (e.dtypes[p] != dtypes[p] && !absent.contains(int(p))) return false;
  }
  return true;
}

}  // namespace

const std::string& Op::output_name(int output) const {
  return output_names_.at(std::size_t(output));
}

int Op::tactic_count(std::span<const DType> dtypes, const AbsentInputs& absent) const noexcept {
  return static_cast<int>(std::count_if(launchers_.begin(), launchers_.end(),
                                        [&](const auto& e) { return takes(e, dtypes, absent); }));
}

const LauncherEntry* Op::find_launcher(std::span<const DType> dtypes, std::int32_t tactic,
                                       const AbsentInputs& absent) const noexcept {
  for (const auto& e : launchers_) {
    if (takes(e, dtypes, absent) && (tactic == 0 || e.tactic == tactic)) return &e;
  }
  return nullptr;
}

std::int64_t Op::launch_another(const LauncherEntry& declined, const LaunchArgs& args,
                                const LauncherEntry** ran) const {
  for (const LauncherEntry& e : launchers_) {
    if (&e == &declined || e.dtypes != declined.dtypes) continue;
    if (ran != nullptr) *ran = &e;
    const std::int64_t status = e.launcher->thunk(e.launcher->callable.get(), args);
    if (status != kNotApplicable) return status;
  }
  // Every launcher declined: only now is anything allocated (enqueue allocates nothing).
  std::string names = "'" + declined.launcher->name + "'";
  for (const LauncherEntry& e : launchers_) {
    if (&e != &declined && e.dtypes == declined.dtypes) names += ", '" + e.launcher->name + "'";
  }
  std::string shapes;
  for (std::size_t k = 0; k < args.inputs.size(); ++k) {
    const TensorRef& ref = args.inputs[k];
    shapes += (shapes.empty() ? "" : ", ") + input(int(k)).name + " ";
    if (!ref.present) {
      shapes += "absent";
      continue;
    }
    shapes += "[";
    for (std::int32_t i = 0; i < ref.rank; ++i) {
      shapes += (i == 0 ? "" : ", ") + std::to_string(ref.extents[std::size_t(i)]);
    }
    shapes += "]";
  }
  throw Error("op '" + qualified_name() + "': no launcher applies to inputs " + shapes + " (" +
              names + " returned autoplugin::Launch::NotApplicable); add a launcher that does");
}

const LauncherEntry& Op::launcher_for(std::span<const DType> dtypes, std::int32_t tactic,
                                      const AbsentInputs& absent) const {
  if (const LauncherEntry* entry = find_launcher(dtypes, tactic, absent)) return *entry;
  // Dtypes by position name, e.g. "(x float32, out float32)"; "bias absent".
  auto named = [&](std::span<const DType> list, const AbsentInputs& gone) {
    std::string text;
    for (std::size_t p = 0; p < list.size(); ++p) {
      const std::string& name =
          int(p) < num_inputs() ? input(int(p)).name : output_name(int(p) - num_inputs());
      text += (text.empty() ? "" : ", ") + name + " " +
              (gone.contains(int(p)) ? std::string("absent") : std::string(dtype_name(list[p])));
    }
    return "(" + text + ")";
  };
  const std::string who = "op '" + qualified_name() + "': ";
  const int tactics = tactic_count(dtypes, absent);
  if (tactics > 0) {
    throw Error(who + "no launcher for tactic " + std::to_string(tactic) + " of dtypes " +
                named(dtypes, absent) + "; they have " + plural(std::size_t(tactics), "tactic"));
  }
  std::string taken;
  for (const LauncherEntry& e : launchers_) {
    const std::string these = named(e.dtypes, {});
    if (taken.find(these) == std::string::npos) taken += (taken.empty() ? "" : ", ") + these;
  }
  throw Error(who + "no launcher for dtypes " + named(dtypes, absent) + "; its launchers take " +
              taken + ". Add a launcher for these dtypes to the op's declaration");
}

DType Op::output_dtype(int output, std::span<const DType> input_dtypes,
                       std::span<const AttrValue> attributes, const AbsentInputs& absent) const {
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
        if (input(k).name != rule.argument) continue;
        if (absent.contains(k)) {
          throw Error("op '" + qualified_name() + "': output '" + output_name(output) +
                      "' takes the dtype of input '" + rule.argument +
                      "', which is absent; pass it, or declare .output_dtype(\"" +
                      output_name(output) + "\", ...) by another input");
        }
        return input_dtypes[std::size_t(k)];
      }
      break;
    case DTypeRule::Kind::FromAttribute:
      for (std::size_t a = 0; a < attributes_.size(); ++a) {
        if (attributes_[a]->name != rule.argument) continue;
        if (const auto* dtype = std::get_if<DType>(&attributes[a])) return *dtype;
        // ScalarType? dtype=None keeps the first input's dtype, as in PyTorch.
        for (int k = 0; k < num_inputs(); ++k) {
          if (!absent.contains(k)) return input_dtypes[std::size_t(k)];
        }
      }
      break;
  }
  throw BindingError("op '" + qualified_name() + "': cannot decide the dtype of output '" +
                     output_name(output) + "'");
}

bool Op::supports(int pos, std::span<const PortDesc> ports, std::span<const AttrValue> attributes,
                  const AbsentInputs& absent) const noexcept {
  const int n_in = num_inputs();
  if (pos < 0 || pos >= n_in + num_outputs() || ports.size() <= std::size_t(pos) ||
      attributes.size() != attributes_.size() || absent.contains(pos)) {
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
      if (absent.contains(aliases_[std::size_t(output)])) return false;
      const PortDesc& source = ports[std::size_t(aliases_[std::size_t(output)])];
      if (source.format != ports[std::size_t(pos)].format) return false;
    }
    std::vector<DType> input_dtypes;
    for (int k = 0; k < n_in; ++k) input_dtypes.push_back(ports[std::size_t(k)].dtype);
    try {
      if (output_dtype(output, input_dtypes, attributes, absent) != ports[std::size_t(pos)].dtype) {
        return false;
      }
    } catch (const std::exception&) {
      return false;
    }
  }
  // Some launcher handles the dtypes proposed so far; later positions are not looked at.
  return std::any_of(launchers_.begin(), launchers_.end(), [&](const LauncherEntry& e) {
    for (int p = 0; p <= pos; ++p) {
      if (e.dtypes[std::size_t(p)] != ports[std::size_t(p)].dtype && !absent.contains(p)) {
        return false;
      }
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
  try {
    declared_absent(decoded.absent_inputs);
  } catch (const FieldError& e) {
    const std::string prefix = "op '" + qualified_name() + "': ";
    const std::string text = e.what();
    problems.add(text.starts_with(prefix) ? text.substr(prefix.size()) : text);
  }
  if (!problems.empty()) throw FieldError("op '" + qualified_name() + "':" + problems.join());
  return decoded;
}

FieldList Op::encode_fields(std::span<const AttrValue> attributes,
                            const AbsentInputs& absent) const {
  std::vector<std::int64_t> indices;
  for (int k : absent.indices()) indices.push_back(k);
  return encode_attributes(*schema_, attributes, indices);
}

std::vector<ShapeArg> Op::shape_args(std::span<const Shape> inputs,
                                     std::span<const Shape> shape_inputs,
                                     std::span<const AttrValue> attributes,
                                     const AbsentInputs& absent) const {
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
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (absent.contains(int(k))) {
      if (!input(int(k)).type.optional) {
        throw ShapeError(who() + "argument '" + input(int(k)).name + "' (" +
                         input(int(k)).type.to_string() + ") is required but absent");
      }
      continue;  // the function gets std::nullopt
    }
    args[input_arguments_[k]].shape = &inputs[k];
  }
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
                        std::span<const AttrValue> attributes, const AbsentInputs& absent) const {
  if (!workspace_function_) return 0;
  auto who = [&] { return "op '" + qualified_name() + "': workspace function"; };
  const std::vector<ShapeArg> args = shape_args(inputs, shape_inputs, attributes, absent);
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
                               std::span<const AttrValue> attributes,
                               const AbsentInputs& absent) const {
  const Dim bytes = workspace_bytes(inputs, shape_inputs, attributes, absent);
  const auto value = bytes.constant();
  if (!value || *value < 0) {
    const std::string who = "op '" + qualified_name() + "': workspace function";
    if (!value) throw ShapeError(who + " depends on unknown values: " + to_string(bytes));
    throw ShapeError(who + " returned " + std::to_string(*value) + " bytes");
  }
  // No GPU has this much memory: a size like it is a bug in the workspace function (an
  // overflow, a unit mistake), refused here rather than handed to TensorRT to allocate.
  constexpr std::int64_t kAbsurdWorkspaceBytes = std::int64_t{1} << 40;
  if (*value >= kAbsurdWorkspaceBytes) {
    throw ShapeError("op '" + qualified_name() + "': workspace function returned " +
                     std::to_string(*value) + " bytes (1 TiB or more): absurd");
  }
  return static_cast<std::size_t>(*value);
}

std::vector<Shape> Op::output_shapes(std::span<const Shape> inputs,
                                     std::span<const Shape> shape_inputs,
                                     std::span<const AttrValue> attributes, ShapeScope& scope,
                                     const AbsentInputs& absent) const {
  auto who = [&] { return "op '" + qualified_name() + "': "; };
  const std::vector<ShapeArg> args = shape_args(inputs, shape_inputs, attributes, absent);
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
    if (absent.contains(k)) {
      throw ShapeError(who() + "in-place output '" + output_name(j) + "' writes into input '" +
                       input(k).name + "', which is absent");
    }
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

}  // namespace autoplugin
