// The autoplugin command-line tool.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "exit_codes.h"
#include "new/new.h"

#ifdef AUTOPLUGIN_WITH_CHECK
#include "check/check.h"
#include "onnx/onnx_command.h"
#endif

namespace {

using autoplugin::cli::kFailed;
using autoplugin::cli::kOk;
using autoplugin::cli::kUsage;

void print_usage(std::ostream& out) {
  out << "usage: autoplugin <command> [options]\n"
         "\n"
         "commands:\n"
         "  describe LIB.so [--op NAME] [--json]\n"
         "                         print the TensorRT plugin each op becomes: identity, inputs,\n"
         "                         outputs, fields, dtype table, output shapes and the builder\n"
         "                         calls they take (shapes for the declaration's .example(...),\n"
         "                         else for rank 4 or the ranks its shape function accepts)\n"
         "  list LIB.so [--json] [--quiet]\n"
         "                         one line per op; fails when a declaration does not match its\n"
         "                         schema (--quiet: print only that)\n"
         "  inspect LIB.so         list a plugin library's creators and their fields (--json)\n"
         "  from-torch MODULE.py --out DIR [--op NS::NAME] [--dtypes float32,...]\n"
         "                         a Python custom op with a Triton kernel and a fake\n"
         "                         implementation becomes a CMake project of a native plugin\n"
         "                         (python3 -m autoplugin.from_torch --help)\n"
         "  new NS::NAME --schema \"(...) -> ...\" [--dtypes float32,...] [--out DIR]\n"
         "                         a CMake project for a new op: kernel and launcher stubs,\n"
         "                         shape function, declaration, cases.json, reference.py\n"
         "  check LIB.so --op OP   drive OP through TensorRT's plugin lifecycle: build phase on\n"
         "                         the CPU, kernels on a GPU against a reference (check --help)\n"
         "  onnx MODEL.onnx LIB.so [--json]\n"
         "                         the plugins TensorRT's ONNX parser would make of the model's\n"
         "                         custom nodes, created from LIB.so (onnx --help)\n"
         "\n"
         "describe and list read any library built with autoplugin (TensorRT plugin library or\n"
         "PyTorch op library); scripts/describe-examples describes the bundled examples.\n"
         "options: --help, --version\n";
}

// The ops of a library built with autoplugin, through the entry points it exports.
class LibraryOps {
 public:
  explicit LibraryOps(std::string_view path) {
    const std::string file(path);
    handle_ = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) {
      error_ = std::string("cannot load ") + file + ": " + dlerror();
      return;
    }
    ops_ = reinterpret_cast<decltype(ops_)>(dlsym(handle_, "autoplugin_library_v1_ops"));
    describe_ =
        reinterpret_cast<decltype(describe_)>(dlsym(handle_, "autoplugin_library_v1_describe"));
    if (ops_ == nullptr || describe_ == nullptr) {
      error_ = file +
               " was not built with autoplugin (it does not export "
               "autoplugin_library_v1_ops): for any plugin library, use autoplugin inspect";
    }
  }
  const std::string& error() const { return error_; }
  // Copies: the library's answer buffer is reused by its next call.
  std::string ops_json() const { return ops_(); }
  std::string describe(const char* op) const { return describe_(op); }

 private:
  void* handle_ = nullptr;  // never closed: the library's ops stay registered with their hosts
  const char* (*ops_)() = nullptr;
  const char* (*describe_)(const char*) = nullptr;
  std::string error_;
};

struct Arguments {
  std::string_view library;  // required
  std::string_view op;
  bool json = false;
  bool quiet = false;  // list: only errors
  bool help = false;
};

bool parse_arguments(std::string_view command, const std::vector<std::string_view>& args,
                     bool takes_op, Arguments& parsed) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      parsed.help = true;
    } else if (takes_op && args[i] == "--op" && i + 1 < args.size()) {
      parsed.op = args[++i];
    } else if (args[i] == "--json") {
      parsed.json = true;
    } else if (args[i] == "--quiet" && !takes_op) {
      parsed.quiet = true;
    } else if (parsed.library.empty() && !args[i].starts_with("-")) {
      parsed.library = args[i];
    } else {
      std::cerr << "autoplugin " << command << ": unexpected argument '" << args[i] << "'\n";
      print_usage(std::cerr);
      return false;
    }
  }
  if (!parsed.help && parsed.library.empty()) {
    std::cerr << "autoplugin " << command
              << ": which library? Give a library built with autoplugin (LIB.so); "
                 "scripts/describe-examples describes the bundled examples\n";
    print_usage(std::cerr);
    return false;
  }
  return true;
}

// A library's declaration errors (its "errors" list), printed; true when there are none.
bool report_library_errors(std::string_view text) {
  const auto start = text.find("\"errors\": [");
  if (start == std::string_view::npos || text.substr(start + 11, 1) == "]") return true;
  std::cerr << "error: declarations that do not match their schema (see \"errors\"):\n"
            << text.substr(start) << "\n";
  return false;
}

int list_ops(const std::vector<std::string_view>& args) {
  Arguments parsed;
  if (!parse_arguments("list", args, false, parsed)) return kUsage;
  if (parsed.help) {
    print_usage(std::cout);
    return kOk;
  }
  const LibraryOps library(parsed.library);
  if (!library.error().empty()) {
    std::cerr << "autoplugin list: " << library.error() << "\n";
    return kFailed;
  }
  const std::string ops = library.ops_json();
  if (!parsed.quiet) {
    std::cout << (parsed.json ? ops : library.describe("")) << (parsed.json ? "\n" : "");
  }
  return report_library_errors(ops) ? kOk : kFailed;
}

int describe_library(const Arguments& parsed) {
  const LibraryOps library(parsed.library);
  if (!library.error().empty()) {
    std::cerr << "autoplugin describe: " << library.error() << "\n";
    return kFailed;
  }
  const std::string ops = library.ops_json();
  const bool declarations_ok = report_library_errors(ops);
  if (parsed.json) {
    std::cout << ops << "\n";
    return declarations_ok ? kOk : kFailed;
  }
  const std::string op(parsed.op);
  const std::string text = library.describe(op.empty() ? nullptr : op.c_str());
  if (text.starts_with("{\"ok\": false")) {
    std::cerr << "autoplugin describe: " << text << "\n";
    return kUsage;
  }
  std::cout << text;
  return declarations_ok ? kOk : kFailed;
}

int describe_ops(const std::vector<std::string_view>& args) {
  Arguments parsed;
  if (!parse_arguments("describe", args, true, parsed)) return kUsage;
  if (parsed.help) {
    print_usage(std::cout);
    return kOk;
  }
  return describe_library(parsed);
}

// Where the Python package is, for from-torch: beside the tool in a CMake install
// (PREFIX/share/autoplugin/python); nowhere to add in a wheel, whose tool lives inside the
// installed package (site-packages/autoplugin/bin) that the environment's Python imports; else the
// source tree of a build. Empty where Python is left to find it.
std::string python_package_dir() {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path tool = fs::read_symlink("/proc/self/exe", error);  // argv[0] may be a bare name
  if (!error) {
    const fs::path prefix = tool.parent_path().parent_path();
    const fs::path installed = prefix / "share/autoplugin/python";
    if (fs::exists(installed / "autoplugin")) return installed.string();
    if (prefix.filename() == "autoplugin" && fs::exists(prefix / "__init__.py")) return "";
  }
  if (fs::exists(fs::path(AUTOPLUGIN_SOURCE_PYTHON_DIR) / "autoplugin")) {
    return AUTOPLUGIN_SOURCE_PYTHON_DIR;
  }
  return "";
}

// Generation runs in Python (it imports the user's module, PyTorch and Triton): AUTOPLUGIN_PYTHON
// where set (the wheel's `autoplugin` script sets it to the Python it was installed into), else
// python3 from PATH.
int from_torch(const std::vector<std::string_view>& args) {
  const std::string package = python_package_dir();
  if (!package.empty()) {
    const char* existing = std::getenv("PYTHONPATH");
    const std::string path = package + (existing && *existing ? ":" + std::string(existing) : "");
    setenv("PYTHONPATH", path.c_str(), 1);
  }
  const char* chosen = std::getenv("AUTOPLUGIN_PYTHON");
  const std::string python = chosen && *chosen ? chosen : "python3";
  std::vector<std::string> owned = {python, "-m", "autoplugin.from_torch"};
  for (std::string_view a : args) owned.emplace_back(a);
  std::vector<char*> argv;
  for (std::string& a : owned) argv.push_back(a.data());
  argv.push_back(nullptr);
  execvp(python.c_str(), argv.data());
  std::cerr << "autoplugin from-torch: cannot run " << python << ": " << std::strerror(errno)
            << "\n";
  return kFailed;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_usage(std::cout);
    return args.empty() ? kUsage : kOk;
  }
  if (args[0] == "--version") {
    std::cout << "autoplugin " << AUTOPLUGIN_VERSION << "\n";
    return kOk;
  }
  const std::string_view command = args[0];
  args.erase(args.begin());
  if (command == "describe") return describe_ops(args);
  if (command == "list") return list_ops(args);
  if (command == "from-torch") return from_torch(args);
  if (command == "new") return autoplugin::scaffold::new_main(args);
  if (command == "check" || command == "inspect" || command == "onnx") {
#ifdef AUTOPLUGIN_WITH_CHECK
    if (command == "onnx") return autoplugin::onnx::onnx_main(args);
    return command == "check" ? autoplugin::check::check_main(args)
                              : autoplugin::check::inspect_main(args);
#else
    std::cerr << "autoplugin " << command
              << ": this tool was built without TensorRT headers (configure with "
                 "-DTensorRT_ROOT=<TensorRT folder>)\n";
    return kUsage;
#endif
  }
  std::cerr << "autoplugin: unknown command '" << command << "'\n";
  print_usage(std::cerr);
  return kUsage;
}
