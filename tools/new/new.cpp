#include "new.h"

#include <autoplugin/backend/schema.h>
#include <autoplugin/dtype.h>
#include <autoplugin/error.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

#include "../exit_codes.h"
#include "project.h"

namespace autoplugin::scaffold {
namespace {

using cli::kFailed;
using cli::kOk;
using cli::kUsage;

constexpr std::string_view kUsageText =
    "usage: autoplugin new NS::NAME --schema \"(Tensor x, ...) -> Tensor\" [--dtypes float32,...]\n"
    "                      [--out DIR]\n"
    "\n"
    "Writes a CMake project for a new op into DIR (default: NAME; it must not exist or be empty):\n"
    "  NAME.cu         a kernel stub, a launcher instantiated per dtype, the shape function and\n"
    "                  the AUTOPLUGIN_OP declaration; the stubs copy the first tensor input\n"
    "  CMakeLists.txt  find_package(autoplugin) and autoplugin_add_library\n"
    "  cases.json      one case per dtype, for autoplugin check --case\n"
    "  reference.py    a NumPy reference stub, for autoplugin check --reference\n"
    "\n"
    "--schema is the whole schema (\"NS::NAME(...) -> ...\") or its part from '('.\n"
    "--dtypes: float32 (default), float16, bfloat16, int8, int32, int64.\n";

struct Options {
  std::string name;
  std::string schema;
  std::string dtypes = "float32";
  std::string out;
};

std::optional<Options> parse_options(const std::vector<std::string_view>& args) {
  Options options;
  bool has_schema = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    auto value = [&](std::string& into) {
      if (i + 1 >= args.size()) {
        std::cerr << "autoplugin new: " << a << " needs a value\n";
        return false;
      }
      into = std::string(args[++i]);
      return true;
    };
    if (a == "--schema") {
      if (!value(options.schema)) return std::nullopt;
      has_schema = true;
    } else if (a == "--dtypes") {
      if (!value(options.dtypes)) return std::nullopt;
    } else if (a == "--out") {
      if (!value(options.out)) return std::nullopt;
    } else if (!a.starts_with("-") && options.name.empty()) {
      options.name = std::string(a);
    } else {
      std::cerr << "autoplugin new: unexpected argument '" << a << "'\n" << kUsageText;
      return std::nullopt;
    }
  }
  if (options.name.empty() || !has_schema) {
    std::cerr << "autoplugin new: needs NS::NAME and --schema\n" << kUsageText;
    return std::nullopt;
  }
  return options;
}

// The schema as given, or NAME followed by it when it starts at '('.
Schema parse_op_schema(const Options& options) {
  const std::size_t start = options.schema.find_first_not_of(" \t");
  const bool arguments_only = start != std::string::npos && options.schema[start] == '(';
  Schema schema = parse_schema(arguments_only ? options.name + options.schema : options.schema);
  std::string qualified = schema.ns + "::" + schema.name;
  if (schema.ns.empty() || (qualified != options.name && schema.qualified_name() != options.name)) {
    throw Error("the schema names op '" + schema.qualified_name() + "', but the op to create is '" +
                options.name + "' (NS::NAME, with a namespace)");
  }
  return schema;
}

std::vector<DType> parse_dtypes(std::string_view list) {
  std::vector<DType> dtypes;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    const std::string_view name = list.substr(start, end - start);
    const std::optional<DType> dtype = dtype_from_name(name);
    const bool tensor_dtype = dtype && (*dtype == DType::Float32 || *dtype == DType::Float16 ||
                                        *dtype == DType::BFloat16 || *dtype == DType::Int8 ||
                                        *dtype == DType::Int32 || *dtype == DType::Int64);
    if (!tensor_dtype) {
      throw Error("--dtypes: unknown dtype '" + std::string(name) +
                  "' (float32, float16, bfloat16, int8, int32, int64)");
    }
    for (DType seen : dtypes) {
      if (seen == *dtype) throw Error("--dtypes: " + std::string(name) + " is listed twice");
    }
    dtypes.push_back(*dtype);
    start = end + 1;
  }
  return dtypes;
}

void write_project(const std::filesystem::path& folder, const std::vector<GeneratedFile>& files) {
  namespace fs = std::filesystem;
  if (fs::exists(folder) && !(fs::is_directory(folder) && fs::is_empty(folder))) {
    throw Error("--out " + folder.string() + ": exists and is not an empty folder");
  }
  fs::create_directories(folder);
  for (const GeneratedFile& f : files) {
    std::ofstream out(folder / f.name);
    out << f.text;
    if (!out) throw Error("cannot write " + (folder / f.name).string());
  }
}

}  // namespace

int new_main(const std::vector<std::string_view>& args) {
  for (std::string_view a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << kUsageText;
      return kOk;
    }
  }
  const std::optional<Options> options = parse_options(args);
  if (!options) return kUsage;
  try {
    const Schema schema = parse_op_schema(*options);
    const std::vector<DType> dtypes = parse_dtypes(options->dtypes);
    const std::vector<GeneratedFile> files = generate_project(schema, dtypes);
    const std::filesystem::path folder = options->out.empty() ? schema.name : options->out;
    write_project(folder, files);
    std::cout << "wrote " << folder.string() << "/:";
    for (const GeneratedFile& f : files) std::cout << " " << f.name;
    std::cout << "\nbuild: cmake -S " << folder.string() << " -B " << folder.string()
              << "/build -DCMAKE_PREFIX_PATH=<installed autoplugin> && cmake --build "
              << folder.string() << "/build\n"
              << "check: autoplugin check " << folder.string() << "/build/lib" << schema.name
              << "_plugin.so --case " << folder.string() << "/cases.json\n";
    return kOk;
  } catch (const std::exception& e) {
    std::cerr << "autoplugin new " << options->name << ": " << e.what() << "\n";
    return kFailed;
  }
}

}  // namespace autoplugin::scaffold
