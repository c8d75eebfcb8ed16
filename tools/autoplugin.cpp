// The autoplugin command-line tool.
#include <autoplugin/describe.h>
#include <autoplugin/op.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#ifdef AUTOPLUGIN_WITH_CHECK
#include "check/check.h"
#endif

namespace {

constexpr int kOk = 0;
constexpr int kFailed = 1;
constexpr int kUsage = 2;

void print_usage(std::ostream& out) {
  out << "usage: autoplugin <command> [options]\n"
         "\n"
         "commands:\n"
         "  describe [--op NAME]   print the TensorRT plugin each op becomes: identity, inputs,\n"
         "                         outputs, fields, dtype table, output shapes and the builder\n"
         "                         calls they take\n"
         "  list                   one line per op\n"
         "  inspect LIB.so         list a plugin library's creators and their fields (--json)\n"
         "  check LIB.so --op OP   drive OP through TensorRT's plugin lifecycle: build phase on\n"
         "                         the CPU, kernels on a GPU against a reference (check --help)\n"
         "\n"
         "The ops are those built into this tool (the bundled examples).\n"
         "options: --help, --version\n";
}

// Invalid declarations are reported, never silently dropped.
bool report_declaration_errors() {
  const auto& errors = autoplugin::registry().errors();
  for (const auto& e : errors) std::cerr << "error: " << e << "\n";
  return errors.empty();
}

void print_not_done_here() {
  std::cout << "\nNot done by this command:\n";
#ifdef AUTOPLUGIN_WITH_EXAMPLES
  std::cout << "  - running the kernels: describe needs no GPU and launches nothing;\n"
               "    the examples' CUDA code was compiled and linked, and their Triton kernels\n"
               "    " AUTOPLUGIN_TRITON_KERNELS ", but none was executed.\n";
#else
  std::cout << "  - the bundled examples were not built (no CUDA compiler was found).\n";
#endif
#ifdef AUTOPLUGIN_TENSORRT_VERSION
  std::cout << "  - running the plugins inside TensorRT: the examples' plugin library was built\n"
               "    against TensorRT " AUTOPLUGIN_TENSORRT_VERSION
               " headers, but no TensorRT runtime is used here.\n";
#else
  std::cout
      << "  - building the TensorRT plugin library: no TensorRT headers were found when this\n"
         "    tool was built (configure with -DTensorRT_ROOT=<TensorRT folder>).\n";
#endif
}

int list_ops() {
  const bool declarations_ok = report_declaration_errors();
  for (const auto& op : autoplugin::registry().ops()) {
    std::cout << op.qualified_name() << "  (plugin \"" << op.plugin_name() << "\" v" << op.version()
              << ", " << op.launchers().size() << " launchers)\n";
  }
  return declarations_ok ? kOk : kFailed;
}

int describe_ops(const std::vector<std::string_view>& args) {
  std::string_view only;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--op" && i + 1 < args.size()) {
      only = args[++i];
    } else {
      std::cerr << "autoplugin describe: unexpected argument '" << args[i] << "'\n";
      print_usage(std::cerr);
      return kUsage;
    }
  }
  const bool declarations_ok = report_declaration_errors();
  const auto& ops = autoplugin::registry().ops();
  bool found = false;
  for (const auto& op : ops) {
    if (!only.empty() && op.qualified_name() != only && op.name() != only) continue;
    if (found) std::cout << "\n";
    std::cout << autoplugin::describe(op);
    found = true;
  }
  if (!only.empty() && !found) {
    std::cerr << "autoplugin describe: no op named '" << only << "'; known ops:";
    for (const auto& op : ops) std::cerr << " " << op.qualified_name();
    std::cerr << "\n";
    return kUsage;
  }
  if (ops.empty()) std::cout << "no ops are built into this tool\n";
  print_not_done_here();
  return declarations_ok ? kOk : kFailed;
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
  if (command == "list") return list_ops();
  if (command == "check" || command == "inspect") {
#ifdef AUTOPLUGIN_WITH_CHECK
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
