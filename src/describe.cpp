#include <autoplugin/backend/attr_types.h>
#include <autoplugin/backend/describe.h>
#include <autoplugin/backend/shapes.h>
#include <autoplugin/error.h>

#include <span>
#include <sstream>

#include "dim_internal.h"

namespace autoplugin {
namespace {

constexpr std::size_t kDefaultRank = 4;
constexpr std::size_t kDefaultShapeInputLength = 2;

std::string pad(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

std::string dtype_rule_text(const DTypeRule& rule) {
  switch (rule.kind) {
    case DTypeRule::Kind::SameAsInput:
      return "dtype of " + rule.argument;
    case DTypeRule::Kind::Fixed:
      return std::string(dtype_name(rule.dtype));
    case DTypeRule::Kind::FromAttribute:
      return "dtype named by attribute " + rule.argument;
  }
  return "?";
}

// Ranks of the inputs and lengths of the SymInt[] arguments that describe shows shapes for.
struct ExampleSizes {
  std::vector<std::size_t> ranks;    // per input
  std::vector<std::size_t> lengths;  // per shape input (1 for a SymInt)
};

std::vector<Shape> symbolic_inputs(const Op& op, const ExampleSizes& sizes) {
  std::vector<Shape> inputs;
  for (int k = 0; k < op.num_inputs(); ++k) {
    inputs.push_back(Shape::symbolic_input(k, sizes.ranks[std::size_t(k)], op.input(k).name));
  }
  return inputs;
}

std::vector<Shape> symbolic_shape_inputs(const Op& op, const ExampleSizes& sizes) {
  std::vector<Shape> shape_inputs;
  for (int k = 0; k < op.num_shape_inputs(); ++k) {
    Shape values;
    for (std::size_t i = 0; i < sizes.lengths[std::size_t(k)]; ++i) {
      values.push_back(Dim::shape_value(k, static_cast<int>(i),
                                        op.shape_input(k).name + "[" + std::to_string(i) + "]"));
    }
    shape_inputs.push_back(std::move(values));
  }
  return shape_inputs;
}

// The declaration's example sizes, with defaults (rank 4, length 2) for the rest. When the shape
// function refuses those, other ranks and lengths (0 to 4) of the ones the example leaves open
// are tried, largest first, so that an op restricted to some ranks still shows its shapes.
ExampleSizes example_sizes(const Op& op, std::span<const AttrValue> attributes, bool may_search,
                           bool& searched) {
  const Example& example = op.example();
  ExampleSizes sizes;
  std::vector<std::size_t*> open;
  for (int k = 0; k < op.num_inputs(); ++k) {
    const auto declared = example.rank_of(op.input(k).name);
    sizes.ranks.push_back(declared.value_or(kDefaultRank));
  }
  for (int k = 0; k < op.num_shape_inputs(); ++k) {
    const Argument& a = op.shape_input(k);
    const auto declared = example.rank_of(a.name);
    sizes.lengths.push_back(a.type.is_list ? declared.value_or(kDefaultShapeInputLength) : 1);
  }
  for (int k = 0; k < op.num_inputs(); ++k) {
    if (!example.rank_of(op.input(k).name)) open.push_back(&sizes.ranks[std::size_t(k)]);
  }
  for (int k = 0; k < op.num_shape_inputs(); ++k) {
    const Argument& a = op.shape_input(k);
    if (a.type.is_list && !example.rank_of(a.name)) open.push_back(&sizes.lengths[std::size_t(k)]);
  }
  const auto works = [&] {
    try {
      ShapeScope scope;
      op.output_shapes(symbolic_inputs(op, sizes), symbolic_shape_inputs(op, sizes), attributes,
                       scope);
      return true;
    } catch (const Error&) {
      return false;
    }
  };
  searched = false;
  constexpr std::size_t kLargest = 4;
  constexpr std::size_t kMostOpen = 4;  // 5^4 evaluations at most
  if (!may_search || open.empty() || open.size() > kMostOpen || works()) return sizes;
  const ExampleSizes defaults = sizes;
  std::size_t combinations = 1;
  for (std::size_t i = 0; i < open.size(); ++i) combinations *= kLargest + 1;
  for (std::size_t n = 0; n < combinations; ++n) {
    std::size_t rest = n;
    for (std::size_t* size : open) {
      *size = kLargest - rest % (kLargest + 1);
      rest /= kLargest + 1;
    }
    if (works()) {
      searched = true;
      return sizes;
    }
  }
  return defaults;
}

void describe_shapes(const Op& op, std::ostringstream& out) {
  const Example& example = op.example();
  std::vector<std::string> used;
  std::vector<AttrValue> attributes;
  std::vector<std::string> missing;
  for (const Argument* a : op.attributes()) {
    if (const AttrValue* value = example.attr_of(a->name)) {
      attributes.push_back(*value);
      used.push_back(a->name + "=" + to_string(*value));
    } else if (auto absent = value_when_absent(*a)) {
      attributes.push_back(std::move(*absent));
    } else {
      missing.push_back(a->name);
      attributes.emplace_back(std::monostate{});
    }
  }
  bool searched = false;
  const ExampleSizes sizes = example_sizes(op, attributes, missing.empty(), searched);
  std::vector<std::string> size_text;
  for (int k = 0; k < op.num_inputs(); ++k) {
    size_text.push_back(op.input(k).name + " rank " + std::to_string(sizes.ranks[std::size_t(k)]));
  }
  for (int k = 0; k < op.num_shape_inputs(); ++k) {
    const Argument& a = op.shape_input(k);
    if (a.type.is_list) {
      size_text.push_back(a.name + " length " + std::to_string(sizes.lengths[std::size_t(k)]));
    }
  }
  used.insert(used.begin(), size_text.begin(), size_text.end());
  const std::vector<Shape> inputs = symbolic_inputs(op, sizes);
  const std::vector<Shape> shape_inputs = symbolic_shape_inputs(op, sizes);
  std::string example_text;
  for (const auto& u : used) example_text += (example_text.empty() ? "" : ", ") + u;
  out << "  shapes    (example: " << example_text
      << (searched ? "; ranks the shape function accepts, found by trying" : "") << ")\n";
  if (!missing.empty()) {
    std::string names;
    for (const auto& m : missing) names += (names.empty() ? "" : ", ") + m;
    out << "            not shown: needs example values for " << names << "\n";
    return;
  }
  ShapeScope scope;
  std::vector<Shape> outputs;
  try {
    outputs = op.output_shapes(inputs, shape_inputs, attributes, scope);
  } catch (const Error& e) {
    out << "            error: " << e.what() << "\n"
        << "            (choose the example: .example(autoplugin::Example().rank(\"x\", 2)"
           ".length(\"size\", 3).attr(\"name\", value)) after the declaration)\n";
    return;
  }
  std::vector<std::string> names;
  for (int j = 0; j < op.num_returns(); ++j) {
    names.push_back(op.output_name(j));
    out << "            " << names.back() << " = " << to_string(outputs[std::size_t(j)]) << "\n";
  }
  for (std::size_t s = 0; s < scope.size_tensors().size(); ++s) {
    const auto& decl = scope.size_tensors()[s];
    out << "            " << op.output_name(op.num_returns() + static_cast<int>(s))
        << ": data-dependent extent size_tensor" << s << ", opt " << to_string(decl.opt)
        << ", upper bound " << to_string(decl.upper) << "\n";
  }
  for (const auto& r : scope.requirements()) {
    out << "            requires " << to_string(r.condition.as_dim()) << "  (\"" << r.message
        << "\")"
        << (detail::has_shape_value(r.condition.as_dim())
                ? "  (TensorRT: every output extent -1 when it fails)"
                : "")
        << "\n";
  }
  if (op.has_workspace()) {
    try {
      out << "            workspace = "
          << to_string(op.workspace_bytes(inputs, shape_inputs, attributes)) << " bytes\n";
    } catch (const Error& e) {
      out << "\n            error: " << e.what() << "\n";
    }
  }
  out << "  builder   IExprBuilder calls for these shapes:\n";
  // What getOutputShapes hands TensorRT: requirements on shape-input values folded in.
  fold_shape_value_requirements(outputs, scope.requirements());
  std::istringstream lines(operation_program(outputs, names));
  for (std::string line; std::getline(lines, line);) out << "            " << line << "\n";
}

}  // namespace

std::string describe(const Op& op) {
  std::ostringstream out;
  const Schema& schema = op.schema();
  out << op.qualified_name() << "\n";
  out << "  plugin    name \"" << op.plugin_name() << "\", namespace \"" << op.plugin_namespace()
      << "\", version \"" << op.version() << "\"\n";
  out << "  schema    " << schema.text << "\n";
  out << "  declared  " << op.location() << "\n";
  for (int k = 0; k < op.num_inputs(); ++k) {
    const Argument& a = op.input(k);
    out << (k == 0 ? "  inputs    " : "            ") << k << "  " << pad(a.name, 12)
        << a.type.to_string() << "\n";
  }
  for (int k = 0; k < op.num_shape_inputs(); ++k) {
    const Argument& a = op.shape_input(k);
    out << (k == 0 ? "  shape in  " : "            ") << k << "  " << pad(a.name, 12)
        << a.type.to_string() << "  (TensorRT shape input: values usable in output shapes)\n";
  }
  for (int j = 0; j < op.num_outputs(); ++j) {
    std::string kind = j < op.num_returns() ? "Tensor" : "size tensor (0-d)";
    out << (j == 0 ? "  outputs   " : "            ") << j << "  " << pad(op.output_name(j), 12)
        << pad(kind, 20) << "dtype: " << dtype_rule_text(op.output_dtype_rule(j));
    if (op.aliased_input(j) >= 0) out << ", in place of " << op.input(op.aliased_input(j)).name;
    out << "\n";
  }
  if (op.attributes().empty() && !op.has_optional_inputs()) out << "  fields    none\n";
  for (std::size_t i = 0; i < op.attributes().size(); ++i) {
    const Argument& a = *op.attributes()[i];
    out << (i == 0 ? "  fields    " : "            ") << pad(a.name, 15)
        << pad(a.type.to_string(), 13)
        << pad(a.default_value ? "default " + to_string(*a.default_value)
                               : (a.type.optional ? "default None" : "required"),
               22)
        << "ONNX " << attribute_type_info(a.type)->onnx_attribute << "\n";
  }
  if (op.has_optional_inputs()) {
    // Reserved: which Tensor? inputs are absent (trailing ones may instead be left out).
    out << (op.attributes().empty() ? "  fields    " : "            ") << kAbsentInputsField
        << "  int[]  default []  ONNX INTS  (reserved: indices of absent Tensor? inputs; "
           "trailing ones may be left out instead)\n";
  }
  out << "  dtypes    ";
  std::vector<std::string> headers;
  for (int k = 0; k < op.num_inputs(); ++k) headers.push_back(op.input(k).name);
  for (int j = 0; j < op.num_returns(); ++j) headers.push_back(op.output_name(j));
  for (const auto& h : headers) out << pad(h, 10);
  out << "launcher\n";
  for (const LauncherEntry& e : op.launchers()) {
    out << "            ";
    for (DType dtype : e.dtypes) out << pad(std::string(dtype_name(dtype)), 10);
    out << e.launcher->name;
    if (e.tactic > 0) out << "  (tactic " << e.tactic << ")";
    out << "\n";
  }
  try {
    describe_shapes(op, out);
  } catch (const std::exception& e) {
    out << "            error: " << e.what() << "\n";
  }
  return out.str();
}

}  // namespace autoplugin
