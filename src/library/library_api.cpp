// The C entry points of every autoplugin library (see library_api.h): what tools and the Python
// package learn about the ops in a library, as JSON.
#include <autoplugin/backend/attr_types.h>
#include <autoplugin/backend/describe.h>
#include <autoplugin/backend/library_api.h>
#include <autoplugin/backend/op.h>
#include <autoplugin/backend/shapes.h>
#include <autoplugin/error.h>

#include <string>
#include <vector>

#include "json.h"

namespace autoplugin {
namespace {

using json::quote;

const char* keep(std::string text) {
  thread_local std::string result;
  result = std::move(text);
  return result.c_str();
}

std::string error_document(std::string_view message) {
  return "{\"ok\": false, \"error\": " + quote(message) + "}";
}

template <typename F>
const char* answer(F&& make) noexcept {
  try {
    return keep(make());
  } catch (const std::exception& e) {
    try {
      return keep(error_document(e.what()));
    } catch (...) {
    }
  } catch (...) {
  }
  return "{\"ok\": false, \"error\": \"out of memory\"}";
}

template <typename T, typename F>
std::string array(const std::vector<T>& items, F&& item) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + item(items[i]);
  return out + "]";
}

std::string attribute_json(const Argument& a) {
  const AttributeTypeInfo& info = *attribute_type_info(a.type);
  std::string out = "{\"name\": " + quote(a.name) + ", \"type\": " + quote(a.type.to_string()) +
                    ", \"base\": " + quote(info.schema_name.substr(0, info.schema_name.find('['))) +
                    ", \"list\": " + (a.type.is_list ? "true" : "false") + ", \"fixed_size\": " +
                    (a.type.fixed_size ? std::to_string(*a.type.fixed_size) : "null") +
                    ", \"optional\": " + (a.type.optional ? "true" : "false") +
                    ", \"field_type\": " + quote(field_type_name(info.parser_field)) +
                    ", \"serialized_type\": " + quote(field_type_name(info.serialized)) +
                    ", \"onnx\": " + quote(info.onnx_attribute);
  if (const std::optional<AttrValue> absent = value_when_absent(a)) {
    out += ", \"default\": " + json::value(*absent);
  }
  return out + "}";
}

std::string op_json(const Op& op) {
  const Schema& schema = op.schema();
  std::string arguments = "[";
  int input = 0, shape_input = 0, attribute = 0;
  for (std::size_t i = 0; i < schema.arguments.size(); ++i) {
    const Argument& a = schema.arguments[i];
    std::string kind, index;
    if (a.type.is_tensor()) {
      kind = "tensor", index = std::to_string(input++);
    } else if (a.type.is_shape_input()) {
      kind = "shape_input", index = std::to_string(shape_input++);
    } else {
      kind = "attribute", index = std::to_string(attribute++);
    }
    arguments += std::string(i ? ", " : "") + "{\"name\": " + quote(a.name) + ", \"kind\": \"" +
                 kind + "\", \"index\": " + index + ", \"type\": " + quote(a.type.to_string()) +
                 "}";
  }
  arguments += "]";
  std::vector<std::string> outputs;
  for (int j = 0; j < op.num_outputs(); ++j) {
    outputs.push_back("{\"name\": " + quote(op.output_name(j)) +
                      ", \"size_tensor\": " + (j >= op.num_returns() ? "true" : "false") +
                      ", \"aliases_input\": " + std::to_string(op.aliased_input(j)) + "}");
  }
  std::vector<std::string> launchers;
  for (const LauncherEntry& e : op.launchers()) {
    launchers.push_back(
        "{\"name\": " + quote(e.launcher->name) + ", \"tactic\": " + std::to_string(e.tactic) +
        ", \"dtypes\": " + array(e.dtypes, [](DType d) { return quote(dtype_name(d)); }) + "}");
  }
  return "{\"name\": " + quote(op.qualified_name()) +
         ", \"plugin_name\": " + quote(op.plugin_name()) +
         ", \"namespace\": " + quote(op.plugin_namespace()) +
         ", \"version\": " + quote(op.version()) + ", \"schema\": " + quote(schema.text) +
         ", \"declared\": " + quote(op.location()) +
         ", \"num_inputs\": " + std::to_string(op.num_inputs()) +
         ", \"num_returns\": " + std::to_string(op.num_returns()) +
         ", \"arguments\": " + arguments + ", \"attributes\": " +
         array(op.attributes(), [](const Argument* a) { return attribute_json(*a); }) +
         ", \"outputs\": " + array(outputs, [](const std::string& s) { return s; }) +
         ", \"launchers\": " + array(launchers, [](const std::string& s) { return s; }) +
         ", \"has_workspace\": " + (op.has_workspace() ? "true" : "false") + "}";
}

const Op& op_named(const char* name) {
  if (name == nullptr) throw Error("no op name given");
  const Op* op = find_op(name);
  if (op != nullptr) return *op;
  std::string names;
  for (const Op& other : registry().ops()) {
    names += (names.empty() ? "" : ", ") + other.qualified_name();
  }
  throw Error("no op '" + std::string(name) +
              "' in this library (it has: " + (names.empty() ? "none" : names) + ")");
}

std::vector<FieldView> field_views(std::int32_t count, const autoplugin_field_v1* fields) {
  if (count < 0 || (count > 0 && fields == nullptr)) {
    throw FieldError(std::to_string(count) + " fields and " + (fields ? "a" : "no") +
                     " field array");
  }
  std::vector<FieldView> views;
  for (std::int32_t i = 0; i < count; ++i) {
    const autoplugin_field_v1& f = fields[i];
    if (f.name == nullptr) throw FieldError("field " + std::to_string(i) + " has no name");
    if (f.type < 0 || f.type > static_cast<std::int32_t>(FieldType::FP4)) {
      throw FieldError("field '" + std::string(f.name) + "' has an unknown field type " +
                       std::to_string(f.type));
    }
    views.push_back({f.name, static_cast<FieldType>(f.type), f.data, f.length});
  }
  return views;
}

// Writes each distinct subexpression once, as a node that later nodes refer to by index.
class ProgramSink final : public DimSink {
 public:
  Handle constant(std::int64_t value) override {
    return add("{\"const\": " + std::to_string(value) + "}");
  }
  Handle input_extent(int input, int axis, std::string_view label) override {
    return add("{\"input\": [" + std::to_string(input) + ", " + std::to_string(axis) +
               "], \"label\": " + quote(label) + "}");
  }
  Handle shape_value(int shape_input, int index, std::string_view label) override {
    return add("{\"shape_input\": [" + std::to_string(shape_input) + ", " + std::to_string(index) +
               "], \"label\": " + quote(label) + "}");
  }
  Handle size_tensor(int index, Handle opt, Handle upper) override {
    return add("{\"size_tensor\": " + std::to_string(index) + ", \"opt\": " + ref(opt) +
               ", \"upper\": " + ref(upper) + "}");
  }
  Handle operation(DimOp op, Handle a, Handle b) override {
    return add("{\"op\": " + quote(dim_op_name(op)) + ", \"a\": " + ref(a) + ", \"b\": " + ref(b) +
               "}");
  }
  static std::string ref(Handle h) {
    return std::to_string(reinterpret_cast<std::uintptr_t>(h) - 1);
  }
  std::string nodes() const {
    return array(nodes_, [](const std::string& s) { return s; });
  }

 private:
  Handle add(std::string node) {
    nodes_.push_back(std::move(node));
    return reinterpret_cast<Handle>(static_cast<std::uintptr_t>(nodes_.size()));
  }
  std::vector<std::string> nodes_;
};

std::string shape_program(const Op& op, std::int32_t num_inputs, const std::int32_t* ranks,
                          const char* const* dtypes, std::int32_t num_shape_inputs,
                          const std::int32_t* lengths, std::vector<FieldView> fields) {
  const std::string who = "op '" + op.qualified_name() + "': ";
  if (num_inputs != op.num_inputs() || num_shape_inputs != op.num_shape_inputs()) {
    throw Error(who + "called with " + std::to_string(num_inputs) + " tensors and " +
                std::to_string(num_shape_inputs) + " shape inputs; it takes " +
                std::to_string(op.num_inputs()) + " and " + std::to_string(op.num_shape_inputs()));
  }
  const DecodedAttributes decoded = op.decode_fields(fields);
  op.bind_attributes(decoded.values);  // a value the op's own types refuse is an error here too

  std::vector<Shape> inputs;
  std::vector<DType> input_dtypes;
  AbsentInputs absent;  // rank -1: the caller passed None
  for (int k = 0; k < num_inputs; ++k) {
    const Argument& a = op.input(k);
    if (ranks[k] < 0) {
      if (!a.type.optional) {
        throw Error(who + "argument '" + a.name + "' (" + a.type.to_string() +
                    ") is required, got None");
      }
      if (k > AbsentInputs::kMaxIndex) {
        throw Error(who + "argument '" + a.name + "': inputs past index " +
                    std::to_string(AbsentInputs::kMaxIndex) + " cannot be None");
      }
      absent.add(k);
      inputs.emplace_back();
      input_dtypes.push_back(DType::Float32);  // not read
      continue;
    }
    if (ranks[k] > static_cast<std::int32_t>(kMaxRank)) {
      throw Error(who + "argument '" + a.name + "' has rank " + std::to_string(ranks[k]) +
                  "; TensorRT allows at most " + std::to_string(kMaxRank));
    }
    const std::optional<DType> dtype = dtype_from_name(dtypes[k] ? dtypes[k] : "");
    if (!dtype) {
      throw Error(who + "argument '" + a.name + "' has dtype " + (dtypes[k] ? dtypes[k] : "?") +
                  ", which no launcher takes");
    }
    inputs.push_back(Shape::symbolic_input(k, static_cast<std::size_t>(ranks[k]), a.name));
    input_dtypes.push_back(*dtype);
  }
  std::vector<Shape> shape_inputs;
  for (int k = 0; k < num_shape_inputs; ++k) {
    const Argument& a = op.shape_input(k);
    Shape values;
    for (int i = 0; i < lengths[k]; ++i) {
      values.push_back(Dim::shape_value(k, i, a.name + "[" + std::to_string(i) + "]"));
    }
    shape_inputs.push_back(std::move(values));
  }

  std::vector<DType> all_dtypes = input_dtypes;
  std::vector<std::string> output_dtypes;
  for (int j = 0; j < op.num_returns(); ++j) {
    const DType dtype = op.output_dtype(j, input_dtypes, decoded.values, absent);
    all_dtypes.push_back(dtype);
    output_dtypes.push_back(quote(dtype_name(dtype)));
  }
  if (op.find_launcher(all_dtypes, 0, absent) == nullptr) {
    std::string given, available;
    for (std::size_t p = 0; p < all_dtypes.size(); ++p) {
      given +=
          (given.empty() ? "" : ", ") +
          (absent.contains(int(p)) ? std::string("None") : std::string(dtype_name(all_dtypes[p])));
    }
    for (const LauncherEntry& e : op.launchers()) {
      if (e.tactic > 1) continue;
      std::string row;
      for (DType d : e.dtypes) row += (row.empty() ? "" : ", ") + std::string(dtype_name(d));
      available += "\n  (" + row + ")  " + e.launcher->name;
    }
    throw Error(
        who + "no launcher for dtypes (" + given +
        "); add a launcher for them. Its launchers take (inputs, then outputs):" + available);
  }

  ShapeScope scope;
  const std::vector<Shape> shapes =
      op.output_shapes(inputs, shape_inputs, decoded.values, scope, absent);
  ProgramSink sink;
  Lowering lowering(sink);
  std::vector<std::string> outputs;
  for (std::size_t j = 0; j < shapes.size(); ++j) {
    std::vector<std::string> dims;
    for (const Dim& d : shapes[j]) dims.push_back(ProgramSink::ref(lowering.lower(d)));
    outputs.push_back("{\"shape\": " + array(dims, [](const std::string& s) { return s; }) +
                      ", \"dtype\": " + output_dtypes[j] + "}");
  }
  std::vector<std::string> requirements;
  for (const Requirement& r : scope.requirements()) {
    requirements.push_back(
        "{\"condition\": " + ProgramSink::ref(lowering.lower(r.condition.as_dim())) +
        ", \"message\": " + quote(r.message) + "}");
  }
  std::vector<std::string> size_tensors;
  for (const SizeTensorDecl& s : scope.size_tensors()) {
    size_tensors.push_back("{\"opt\": " + ProgramSink::ref(lowering.lower(s.opt)) +
                           ", \"upper\": " + ProgramSink::ref(lowering.lower(s.upper)) + "}");
  }
  std::vector<std::string> warnings;
  for (const std::string& w : decoded.warnings) warnings.push_back(quote(w));
  const auto same = [](const std::string& s) { return s; };
  return "{\"ok\": true, \"nodes\": " + sink.nodes() + ", \"outputs\": " + array(outputs, same) +
         ", \"requirements\": " + array(requirements, same) +
         ", \"size_tensors\": " + array(size_tensors, same) +
         ", \"warnings\": " + array(warnings, same) + "}";
}

}  // namespace
}  // namespace autoplugin

using namespace autoplugin;

extern "C" const char* autoplugin_library_v1_ops() {
  return answer([] {
    std::string ops;
    for (const Op& op : registry().ops()) ops += (ops.empty() ? "" : ", ") + op_json(op);
    std::string errors;
    for (const std::string& e : registry().errors())
      errors += (errors.empty() ? "" : ", ") + quote(e);
    return "{\"autoplugin\": 1, \"ok\": true, \"ops\": [" + ops + "], \"errors\": [" + errors +
           "]}";
  });
}

extern "C" const char* autoplugin_library_v1_describe(const char* op) {
  return answer([op] {
    std::string text;
    if (op != nullptr && *op != '\0') return describe(op_named(op));
    for (const Op& each : registry().ops()) {
      if (op == nullptr) {
        text += (text.empty() ? "" : "\n") + describe(each);
      } else {
        text += each.qualified_name() + "  (plugin \"" + each.plugin_name() + "\" v" +
                each.version() + ", " + std::to_string(each.launchers().size()) + " launchers)\n";
      }
    }
    return text;
  });
}

extern "C" const char* autoplugin_library_v1_shape_program(const char* op, std::int32_t num_inputs,
                                                           const std::int32_t* input_ranks,
                                                           const char* const* input_dtypes,
                                                           std::int32_t num_shape_inputs,
                                                           const std::int32_t* shape_input_lengths,
                                                           std::int32_t num_fields,
                                                           const autoplugin_field_v1* fields) {
  return answer([&] {
    if (num_inputs < 0 || num_shape_inputs < 0 ||
        (num_inputs > 0 && (input_ranks == nullptr || input_dtypes == nullptr)) ||
        (num_shape_inputs > 0 && shape_input_lengths == nullptr)) {
      throw Error("shape_program: missing input ranks, dtypes or shape-input lengths");
    }
    return shape_program(op_named(op), num_inputs, input_ranks, input_dtypes, num_shape_inputs,
                         shape_input_lengths, field_views(num_fields, fields));
  });
}

extern "C" const char* autoplugin_library_v1_decode_fields(const char* op, std::int32_t num_fields,
                                                           const autoplugin_field_v1* fields) {
  return answer([&] {
    const Op& found = op_named(op);
    const DecodedAttributes decoded = found.decode_fields(field_views(num_fields, fields));
    found.bind_attributes(decoded.values);
    std::string values;
    for (std::size_t k = 0; k < decoded.values.size(); ++k) {
      values += (k ? ", " : "") + quote(found.attributes()[k]->name) + ": " +
                json::value(decoded.values[k]);
    }
    std::string warnings;
    for (const std::string& w : decoded.warnings)
      warnings += (warnings.empty() ? "" : ", ") + quote(w);
    return "{\"ok\": true, \"values\": {" + values + "}, \"warnings\": [" + warnings + "]}";
  });
}
