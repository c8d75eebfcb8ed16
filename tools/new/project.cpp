#include "project.h"

#include <autoplugin/backend/attr_types.h>
#include <autoplugin/error.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>

namespace autoplugin::scaffold {
namespace {

// The extents every generated case gives its tensor inputs (and SymInt[] values).
constexpr std::string_view kCaseShape = "[2, 3, 4]";

std::string cpp_type_of(DType dtype) {
  switch (dtype) {
    case DType::Float32:
      return "float";
    case DType::Float16:
      return "__half";
    case DType::BFloat16:
      return "__nv_bfloat16";
    case DType::Int8:
      return "std::int8_t";
    case DType::Int32:
      return "std::int32_t";
    case DType::Int64:
      return "std::int64_t";
    default:
      throw Error("dtype " + std::string(dtype_name(dtype)) +
                  " cannot be a plugin tensor's (float32, float16, bfloat16, int8, int32, int64)");
  }
}

// What a launcher or shape function takes for an attribute: the first type the attribute-type
// table offers (a view for strings and lists), in std::optional for an optional one.
std::string attribute_parameter(const Type& type) {
  const AttributeTypeInfo* info = attribute_type_info(type);
  std::string_view first = info->cpp_parameters.substr(0, info->cpp_parameters.find(" or "));
  std::string text(first);
  if (text.starts_with("autoplugin::")) text = "ap::" + text.substr(12);
  return type.optional ? "std::optional<" + text + ">" : text;
}

std::string shape_parameter(const Type& type) {
  if (type.is_tensor()) return type.optional ? "std::optional<ap::Shape>" : "ap::Shape";
  if (type.is_shape_input()) return type.is_list ? "ap::Shape" : "ap::Dim";
  return attribute_parameter(type);
}

std::string cpp_string_literal(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// The shortest text that reads back as `value`, kept a float for JSON readers (1.0, not 1).
std::string json_float(double value) {
  std::string text;
  for (int precision = 1; precision <= 17; ++precision) {
    std::ostringstream out;
    out.precision(precision);
    out << value;
    text = out.str();
    if (std::stod(text) == value) break;
  }
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}

template <typename List, typename Element>
std::string json_list(const List& values, Element element) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + element(values[i]);
  return text + "]";
}

std::string json_value(const AttrValue& value) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "null"; }
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return json_float(v); }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(const std::string& v) const { return json_string(v); }
    std::string operator()(const IntList& v) const {
      return json_list(v, [](std::int64_t x) { return std::to_string(x); });
    }
    std::string operator()(const FloatList& v) const { return json_list(v, json_float); }
    std::string operator()(const BoolList& v) const {
      return json_list(v, [](bool x) { return std::string(x ? "true" : "false"); });
    }
    std::string operator()(DType v) const { return json_string(dtype_name(v)); }
  };
  return std::visit(Visitor{}, value);
}

// A value for an attribute without a default that the stub accepts: ones, false, "", float32.
std::string plausible_value(const Type& type) {
  std::string element;
  switch (type.base) {
    case BaseType::Int:
      element = "1";
      break;
    case BaseType::Float:
      element = "1.0";
      break;
    case BaseType::Bool:
      element = "false";
      break;
    case BaseType::Str:
      return "\"\"";
    case BaseType::ScalarType:
      return "\"float32\"";
    default:
      throw Error("no case value for " + type.to_string());
  }
  if (!type.is_list) return element;
  const std::size_t count = type.fixed_size.value_or(2);
  std::string text = "[";
  for (std::size_t i = 0; i < count; ++i) text += (i ? ", " : "") + element;
  return text + "]";
}

// The argument the stub's outputs follow: the first required tensor (copied), else the first
// SymInt[] (its values are the outputs' shape, filled with zeros).
struct Source {
  const Argument* argument = nullptr;
  std::size_t index = 0;  // among the inputs, or among the shape inputs
  bool copies() const { return argument->type.is_tensor(); }
};

Source find_source(const Schema& schema) {
  std::size_t tensors = 0, shape_inputs = 0;
  Source list_source;
  for (const Argument& a : schema.arguments) {
    if (a.type.is_tensor()) {
      if (!a.type.optional) return {&a, tensors};
      ++tensors;
    } else if (a.type.is_shape_input()) {
      if (a.type.is_list && !list_source.argument) list_source = {&a, shape_inputs};
      ++shape_inputs;
    }
  }
  if (list_source.argument) return list_source;
  throw Error(
      "the generated stub gives its outputs the shape of the first Tensor or SymInt[] "
      "argument, and schema \"" +
      schema.text + "\" has neither");
}

void check_supported(const Schema& schema) {
  for (const Argument& a : schema.arguments) {
    if (a.type.base == BaseType::Tensor && a.type.is_list) {
      throw Error("argument '" + a.name + "': " + a.type.to_string() +
                  " (a list of tensors) cannot be a plugin input");
    }
  }
  if (schema.returns.empty()) throw Error("schema \"" + schema.text + "\" returns nothing");
  for (const Argument& r : schema.returns) {
    if (!r.type.is_tensor() || r.type.optional) {
      throw Error("return '" + r.name + "': schema type " + r.type.to_string() +
                  ", but a plugin returns tensors (Tensor)");
    }
  }
}

std::string cu_file(const Schema& schema, const std::vector<DType>& dtypes, const Source& source) {
  const std::string& op = schema.name;
  std::ostringstream out;
  out << "// " << schema.qualified_name()
      << ": generated by `autoplugin new`. The kernel, the launcher\n"
      << "// and the shape function are stubs that copy '" << source.argument->name
      << "' into every output; replace them with the op.\n"
      << "#include <autoplugin/autoplugin.h>\n\n"
      << "#include <cuda_runtime.h>\n\n"
      << "#include <array>\n#include <cstdint>\n#include <optional>\n#include <span>\n"
      << "#include <string_view>\n\n"
      << "namespace ap = autoplugin;\n\n";
  if (source.copies()) {
    out << "namespace {\n\n"
        << "constexpr int kThreadsPerBlock = 256;\n\n"
        << "// Your kernel goes here. The stub is elementwise: one thread per element.\n"
        << "template <typename T>\n"
        << "__global__ void " << op << "_kernel(const T* input, T* output, std::int64_t count) {\n"
        << "  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + "
           "threadIdx.x;\n"
        << "  if (i < count) output[i] = input[i];\n"
        << "}\n\n"
        << "}  // namespace\n\n";
  }
  // The launcher: tensors, then the returns, then the attributes in schema order, then the stream.
  out << "// The launcher: one instantiation per dtype in the declaration below. Your launch code\n"
      << "// goes here (In/Out: data(), numel(), size(axis), stride(axis), rank(), shape()).\n"
      << "template <typename T>\n"
      << "cudaError_t " << op << "(";
  std::vector<std::string> params;
  for (const Argument& a : schema.arguments) {
    if (a.type.is_tensor()) {
      const bool used = &a == source.argument;
      params.push_back(std::string(used ? "" : "[[maybe_unused]] ") +
                       (a.type.optional ? "ap::OptIn<T> " : "ap::In<T> ") + a.name);
    }
  }
  for (const Argument& r : schema.returns) params.push_back("ap::Out<T> " + r.name);
  for (const Argument& a : schema.arguments) {
    if (a.type.is_attribute()) {
      params.push_back("[[maybe_unused]] " + attribute_parameter(a.type) + " " + a.name);
    }
  }
  params.push_back("cudaStream_t stream");
  for (std::size_t i = 0; i < params.size(); ++i) {
    out << (i ? ",\n    " : "") << params[i];
  }
  out << ") {\n";
  const std::string& first_out = schema.returns.front().name;
  out << "  const std::int64_t count = " << first_out << ".numel();\n"
      << "  if (count == 0) return cudaSuccess;\n";
  if (source.copies()) {
    out << "  const auto blocks = static_cast<unsigned>((count + kThreadsPerBlock - 1) / "
           "kThreadsPerBlock);\n";
    for (const Argument& r : schema.returns) {
      out << "  " << op << "_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>("
          << source.argument->name << ".data(), " << r.name << ".data(), count);\n";
    }
    out << "  return cudaGetLastError();\n";
  } else {
    for (const Argument& r : schema.returns) {
      out << "  if (const cudaError_t status = cudaMemsetAsync(" << r.name
          << ".data(), 0, count * sizeof(T), stream);\n"
          << "      status != cudaSuccess) {\n"
          << "    return status;\n"
          << "  }\n";
    }
    out << "  return cudaSuccess;\n";
  }
  out << "}\n\n";

  // The shape function: every schema argument in order.
  const std::size_t returns = schema.returns.size();
  const std::string result =
      returns == 1 ? "ap::Shape" : "std::array<ap::Shape, " + std::to_string(returns) + ">";
  out << "// The shape function: the schema's arguments in order, tensors as symbolic shapes. "
         "Your\n"
      << "// output shapes go here (ap::require(condition, message) states what must hold).\n"
      << result << " " << op << "_shape(";
  for (std::size_t i = 0; i < schema.arguments.size(); ++i) {
    const Argument& a = schema.arguments[i];
    out << (i ? ",\n    " : "") << (&a == source.argument ? "" : "[[maybe_unused]] ")
        << shape_parameter(a.type) << " " << a.name;
  }
  out << ") {\n";
  if (returns == 1) {
    out << "  return " << source.argument->name << ";\n";
  } else {
    out << "  return {";
    for (std::size_t j = 0; j < returns; ++j) out << (j ? ", " : "") << source.argument->name;
    out << "};\n";
  }
  out << "}\n\n";

  out << "AUTOPLUGIN_OP(" << cpp_string_literal(schema.text) << ",\n              " << op
      << "_shape";
  for (DType d : dtypes) out << ",\n              " << op << "<" << cpp_type_of(d) << ">";
  out << ");\n";
  return out.str();
}

std::string cmake_lists(const Schema& schema) {
  const std::string target = schema.name + "_plugin";
  std::ostringstream out;
  out << "# " << schema.qualified_name() << ": generated by `autoplugin new`.\n"
      << "# cmake -S . -B build -DCMAKE_PREFIX_PATH=<installed autoplugin> && cmake --build build\n"
      << "cmake_minimum_required(VERSION 3.25)\n"
      << "project(" << target << " LANGUAGES CXX CUDA)\n"
      << "find_package(autoplugin REQUIRED)\n\n"
      << "# The TensorRT plugin library (lib" << target << ".so).\n"
      << "autoplugin_add_library(" << target << " SOURCES " << schema.name << ".cu)\n\n"
      << "# The same op as a PyTorch op library, where PyTorch is installed.\n"
      << "option(" << target << "_TORCH \"also build the PyTorch op library\" OFF)\n"
      << "if(" << target << "_TORCH)\n"
      << "  autoplugin_add_torch_library(" << schema.name << "_torch SOURCES " << schema.name
      << ".cu)\n"
      << "endif()\n";
  return out.str();
}

std::string cases_json(const Schema& schema, const std::vector<DType>& dtypes) {
  std::string shape_inputs, attributes;
  for (const Argument& a : schema.arguments) {
    if (a.type.is_shape_input()) {
      shape_inputs += std::string(shape_inputs.empty() ? "" : ", ") +
                      (a.type.is_list ? std::string(kCaseShape) : "[4]");
    } else if (a.type.is_attribute()) {
      std::string value;
      if (a.default_value) {
        if (std::holds_alternative<std::monostate>(*a.default_value)) continue;  // None
        value = json_value(*a.default_value);
      } else {
        value = plausible_value(a.type);
      }
      attributes += (attributes.empty() ? "" : ", ") + json_string(a.name) + ": " + value;
    }
  }
  std::string expect_shapes;
  for (std::size_t j = 0; j < schema.returns.size(); ++j) {
    expect_shapes += (j ? ", " : "") + std::string(kCaseShape);
  }
  std::ostringstream out;
  out << "{\n  \"op\": " << json_string(schema.qualified_name()) << ",\n  \"cases\": [\n";
  for (std::size_t d = 0; d < dtypes.size(); ++d) {
    const std::string name(dtype_name(dtypes[d]));
    std::string inputs;
    for (const Argument& a : schema.arguments) {
      if (!a.type.is_tensor()) continue;
      inputs += std::string(inputs.empty() ? "" : ", ") + "{\"dtype\": " + json_string(name) +
                ", \"shape\": " + std::string(kCaseShape) + "}";
    }
    out << "    {\"name\": " << json_string(name) << ", \"inputs\": [" << inputs << "],\n";
    if (!shape_inputs.empty()) out << "     \"shape_inputs\": [" << shape_inputs << "],\n";
    if (!attributes.empty()) out << "     \"attributes\": {" << attributes << "},\n";
    out << "     \"expect_shapes\": [" << expect_shapes << "]}"
        << (d + 1 < dtypes.size() ? "," : "") << "\n";
  }
  out << "  ]\n}\n";
  return out.str();
}

std::string reference_py(const Schema& schema, const Source& source) {
  const std::string stub =
      source.copies()
          ? "    # The stub copies input " + std::to_string(source.index) + " ('" +
                source.argument->name +
                "') into every output, as the generated kernel does.\n"
                "    return [inputs[" +
                std::to_string(source.index) + "].copy() for _ in outputs]\n"
          : "    # The stub fills every output with zeros, shaped by shape input " +
                std::to_string(source.index) + " ('" + source.argument->name +
                "'), as the generated launcher does.\n"
                "    return [np.zeros(shape_inputs[" +
                std::to_string(source.index) + "], dtype=NUMPY[o[\"dtype\"]]) for o in outputs]\n";
  return "\"\"\"Reference for " + schema.qualified_name() +
         ", for `autoplugin check --reference \"python3 reference.py\"`.\n"
         "\n"
         "Usage: python3 reference.py DIR\n"
         "DIR holds case.json (op, attributes with defaults applied, shape_inputs, inputs, "
         "outputs)\n"
         "and input<k>.npy; this writes output<j>.npy for every output case.json lists. bfloat16\n"
         "travels as uint16 bits (NumPy has no bfloat16).\n"
         "\"\"\"\n"
         "import json\n"
         "import os\n"
         "import sys\n"
         "\n"
         "import numpy as np\n"
         "\n"
         "NUMPY = {\"float32\": np.float32, \"float16\": np.float16, \"bfloat16\": np.uint16,\n"
         "         \"int8\": np.int8, \"int32\": np.int32, \"int64\": np.int64}\n"
         "\n"
         "\n"
         "def compute(inputs, attributes, shape_inputs, outputs):\n"
         "    \"\"\"The op: NumPy arrays in, one array per output out. Your reference goes here\n"
         "    (PyTorch works too: convert the arrays with torch.from_numpy).\"\"\"\n" +
         stub +
         "\n"
         "\n"
         "def main(folder):\n"
         "    with open(os.path.join(folder, \"case.json\")) as f:\n"
         "        case = json.load(f)\n"
         "    inputs = [np.load(os.path.join(folder, i[\"file\"])) for i in case[\"inputs\"]]\n"
         "    outputs = case[\"outputs\"]\n"
         "    results = compute(inputs, case[\"attributes\"], case[\"shape_inputs\"], outputs)\n"
         "    for spec, result in zip(outputs, results):\n"
         "        np.save(os.path.join(folder, spec[\"file\"]), "
         "result.astype(NUMPY[spec[\"dtype\"]]))\n"
         "\n"
         "\n"
         "if __name__ == \"__main__\":\n"
         "    main(sys.argv[1])\n";
}

}  // namespace

std::vector<GeneratedFile> generate_project(const Schema& schema,
                                            const std::vector<DType>& dtypes) {
  check_supported(schema);
  const Source source = find_source(schema);
  return {{schema.name + ".cu", cu_file(schema, dtypes, source)},
          {"CMakeLists.txt", cmake_lists(schema)},
          {"cases.json", cases_json(schema, dtypes)},
          {"reference.py", reference_py(schema, source)}};
}

}  // namespace autoplugin::scaffold
