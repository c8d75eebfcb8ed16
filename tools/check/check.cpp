// The command lines of `autoplugin check` and `autoplugin inspect`.
#include "check.h"

#include <autoplugin/error.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "../exit_codes.h"
#include "case_run.h"
#include "concurrency.h"
#include "device.h"
#include "isolation.h"
#include "library.h"
#include "report.h"
#include "trt_text.h"

namespace autoplugin::check {
namespace {

using cli::kFailed;
using cli::kOk;
using cli::kUsage;

void check_usage(std::ostream& out) {
  out << "usage: autoplugin check LIB.so --op NS::NAME [--version V]\n"
         "         (--case FILE.json | --input DTYPE:SHAPE... [--attr NAME=VALUE]...\n"
         "          [--shape-input V,V,...]... [--expect-shape AxB]...)\n"
         "         [--reference COMMAND | --reference-op NS::NAME] [--seed N] [--timeout SECONDS]\n"
         "         [--strings-without-nul] [--cpu] [--no-cuda-graph] [--tensorrt LIBNVINFER]\n"
         "         [--json]\n"
         "         [--only-case NAME]... [--threads N [--contexts M] [--seconds S]]\n"
         "  SHAPE is like 2x3x8; a dimension may be a range MIN..MAX (opt is MAX; kernels also\n"
         "  run at the MIN shapes).\n"
         "  COMMAND gets a folder with case.json and input<k>.npy, and writes output<j>.npy.\n"
         "  --reference-op compares with another op of the same library on the same inputs.\n"
         "  String attributes go as TensorRT's ONNX parser sends them, the length counting the\n"
         "  trailing NUL; --strings-without-nul (or \"strings_count_nul\": false) leaves it out.\n"
         "  Each case runs in its own process: a plugin that crashes, exits or hangs (longer\n"
         "  than --timeout, default 300 s per case) fails its case; the other cases still run.\n"
         "  --only-case NAME runs only that case of the case file (e.g. one case per\n"
         "  compute-sanitizer run).\n"
         "  --threads N: after the cases, N threads, each with M execution contexts (default 1;\n"
         "  a plugin per case attached to each, as TensorRT does, and a stream), enqueue every\n"
         "  case at once for S seconds (default 10); every output must be bitwise equal to the\n"
         "  serial run's. Needs a GPU (skipped without one).\n"
         "  On a GPU each enqueue is also captured into a CUDA graph (as TensorRT and\n"
         "  Torch-TensorRT capture it) and replayed twice; its outputs must be bitwise equal to\n"
         "  the direct run's (within tolerance where the replays differ from each other).\n"
         "  --no-cuda-graph leaves that out.\n"
         "  --tensorrt LIBNVINFER (or $AUTOPLUGIN_TENSORRT_RUNTIME): TensorRT's plugin registry,\n"
         "  from that runtime library (libnvinfer.so.N or the lean libnvinfer_lean.so.N), loads\n"
         "  the library and gives the creators, as an engine does; else check loads it itself.\n";
}

Options parse_check_args(const std::vector<std::string_view>& args) {
  Options options;
  if (const char* runtime = std::getenv("AUTOPLUGIN_TENSORRT_RUNTIME")) {
    options.tensorrt_runtime = runtime;
  }
  CheckCase flags_case;
  flags_case.name = "command line";
  std::string case_file;
  bool strings_without_nul = false;
  int contexts = 0;
  int concurrency_seconds = 0;
  std::vector<std::string> only_cases;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    auto value = [&]() -> std::string_view {
      if (i + 1 >= args.size()) throw Error(std::string(a) + " needs a value");
      return args[++i];
    };
    if (a == "--op") {
      options.op = value();
    } else if (a == "--version") {
      options.version = value();
    } else if (a == "--case") {
      case_file = value();
    } else if (a == "--input") {
      flags_case.inputs.push_back(parse_input_flag(value()));
    } else if (a == "--attr") {
      auto [name, v] = parse_attribute_flag(value());
      flags_case.attributes[name] = v;
    } else if (a == "--shape-input") {
      flags_case.shape_inputs.push_back(parse_shape_input_flag(value()));
    } else if (a == "--expect-shape") {
      flags_case.expect_shapes.push_back(parse_input_flag("float32:" + std::string(value())).opt);
    } else if (a == "--reference") {
      options.reference = value();
    } else if (a == "--reference-op") {
      options.reference_op = value();
    } else if (a == "--seed") {
      options.seed = std::stoull(std::string(value()));
    } else if (a == "--strings-without-nul") {
      strings_without_nul = true;
    } else if (a == "--timeout") {
      const std::string text(value());
      const long seconds = std::strtol(text.c_str(), nullptr, 10);
      if (seconds <= 0) throw Error("--timeout expects a number of seconds, got '" + text + "'");
      options.timeout = std::chrono::seconds(seconds);
    } else if (a == "--threads" || a == "--contexts" || a == "--seconds") {
      const std::string text(value());
      const long n = std::strtol(text.c_str(), nullptr, 10);
      if (n <= 0 || n > 1024) {
        throw Error(std::string(a) + " expects a number from 1 to 1024, got '" + text + "'");
      }
      if (a == "--threads") options.threads = int(n);
      if (a == "--contexts") contexts = int(n);
      if (a == "--seconds") concurrency_seconds = int(n);
    } else if (a == "--only-case") {
      only_cases.emplace_back(value());
    } else if (a == "--cpu") {
      options.cpu_only = true;
    } else if (a == "--tensorrt") {
      options.tensorrt_runtime = value();
    } else if (a == "--no-cuda-graph") {
      options.cuda_graph = false;
    } else if (a == "--json") {
      options.json = true;
    } else if (!a.starts_with("--") && options.library.empty()) {
      options.library = a;
    } else {
      throw Error("unexpected argument '" + std::string(a) + "'");
    }
  }
  if (options.library.empty()) throw Error("no plugin library given");
  if ((contexts != 0 || concurrency_seconds != 0) && options.threads == 0) {
    throw Error("--contexts and --seconds go with --threads N");
  }
  if (contexts != 0) options.contexts = contexts;
  if (concurrency_seconds != 0) {
    options.concurrency_duration = std::chrono::seconds(concurrency_seconds);
  }
  if (!options.reference.empty() && !options.reference_op.empty()) {
    throw Error("give --reference or --reference-op, not both");
  }
  if (!case_file.empty()) {
    CheckFile file = load_check_file(case_file);
    if (options.op.empty()) options.op = file.op;
    if (options.version.empty()) options.version = file.version;
    options.cases = std::move(file.cases);
  }
  if (!only_cases.empty()) {
    std::vector<std::string> names;
    for (const CheckCase& c : options.cases) names.push_back(c.name);
    for (const std::string& name : only_cases) {
      if (std::find(names.begin(), names.end(), name) != names.end()) continue;
      std::string text = "--only-case: no case named '" + name + "' in " +
                         (case_file.empty() ? std::string("the command line") : case_file);
      if (const auto close = closest_name(name, names)) text += "; did you mean '" + *close + "'?";
      throw Error(text);
    }
    std::erase_if(options.cases, [&](const CheckCase& c) {
      return std::find(only_cases.begin(), only_cases.end(), c.name) == only_cases.end();
    });
  }
  if (!flags_case.inputs.empty()) options.cases.push_back(std::move(flags_case));
  if (strings_without_nul) {
    for (CheckCase& c : options.cases) c.strings_count_nul = false;
  }
  if (options.op.empty()) throw Error("no op given (--op, or \"op\" in the case file)");
  if (options.cases.empty()) throw Error("no case given (--case FILE or --input ...)");
  return options;
}

// Whether kernels can run here (nothing) or why not; sets the report's "gpu" heading.
std::optional<std::string> probe_gpu(Report& report) {
  const IsolatedRun probe = run_isolated(
      [](ProgressChannel& channel) {
        const auto unavailable = gpu_unavailable();
        channel.result({{"unavailable", unavailable ? *unavailable : ""},
                        {"name", unavailable ? "" : gpu_name()}});
      },
      std::chrono::seconds(120));
  std::optional<std::string> no_gpu;
  if (!probe.result) {
    no_gpu = "the CUDA runtime ended the process (" + probe.termination + ")";
  } else if (const auto why = (*probe.result)["unavailable"].get<std::string>(); !why.empty()) {
    no_gpu = why;
  }
  report.header["gpu"] = no_gpu ? "none (" + *no_gpu + "): everything but enqueue is checked"
                                : (*probe.result)["name"].get<std::string>();
  return no_gpu;
}

// A case whose process ended early (or timed out): the step it was in fails, with its log.
void report_ended_case(const Options& options, const IsolatedRun& run, Report& report) {
  const std::string method = run.last_step.empty() ? "the case" : run.last_step;
  if (options.no_gpu_here && mentions_cuda(run.log_since_result)) {
    std::string text = "needs a GPU, and this machine has none: the plugin ended the process (" +
                       run.termination + ") in " + method + " after a CUDA error";
    for (const auto& line : run.log_since_result) text += "\nplugin log: " + line;
    report.skip(method, text);
    return;
  }
  std::string text;
  std::string step = method;
  if (run.timed_out) {
    text = "the plugin did not return from " + method + " within " +
           std::to_string(options.timeout.count()) + " s: the case was stopped (--timeout)";
  } else if (run.inside_step || run.last_step.empty()) {
    text = "the plugin terminated the process during " + method + " (" + run.termination + ")";
  } else {
    step = "after " + method;
    text = "the plugin terminated the process after " + method + " (" + run.termination + ")";
  }
  for (const auto& line : run.log_since_result) text += "\nplugin log: " + line;
  report.fail(step, text);
}

// One case in a child process; when the plugin ends that process, the steps it reported, then a
// failure naming the method that was running and what the plugin had logged.
void run_case(const Options& options, const CheckCase& c, PluginLibrary& library,
              CapturingLogger& logger, Report& report, bool gpu) {
  const IsolatedRun run = run_isolated(
      [&](ProgressChannel& channel) {
        logger.forward_to([&channel](const std::string& line) { channel.log(line); });
        Report own;
        CaseRun(options, c, library, logger, own, gpu, &channel).run();
        channel.result(own.last_case_json());
      },
      options.timeout);
  if (run.result) {
    report.append_case(*run.result);
  } else {
    report.begin_case(c.name);
  }
  if (!run.finished) report_ended_case(options, run, report);
  if (c.expect_error) report.expect_error(*c.expect_error);
}

// After the cases: the concurrency run (--threads), in a child process of its own.
void run_concurrency_case(const Options& options, PluginLibrary& library, CapturingLogger& logger,
                          Report& report, const std::optional<std::string>& no_gpu) {
  if (no_gpu) {
    report.begin_case("concurrency");
    report.skip("concurrency",
                "--threads needs a GPU, and " + (options.cpu_only ? std::string("--cpu was given")
                                                                  : "there is none: " + *no_gpu));
    return;
  }
  // Every case runs again before the concurrent launches.
  const auto timeout =
      options.timeout * std::int64_t(options.cases.size() + 1) + options.concurrency_duration;
  const IsolatedRun run = run_isolated(
      [&](ProgressChannel& channel) {
        logger.forward_to([&channel](const std::string& line) { channel.log(line); });
        Report own;
        run_concurrency(options, library, logger, own, channel);
        channel.result(own.last_case_json());
      },
      timeout);
  if (run.result) {
    report.append_case(*run.result);
  } else {
    report.begin_case("concurrency");
  }
  if (!run.finished) report_ended_case(options, run, report);
}

bool asks_for_help(const std::vector<std::string_view>& args) {
  for (std::string_view a : args) {
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

void inspect_usage(std::ostream& out) {
  out << "usage: autoplugin inspect LIB.so [--json]\n"
         "  Lists the library's plugin creators with their fields (--json: as JSON). Exits\n"
         "  non-zero when the library cannot be loaded, has no creators or logs an error.\n";
}

}  // namespace

int check_main(const std::vector<std::string_view>& args) {
  if (asks_for_help(args)) {
    check_usage(std::cout);
    return kOk;
  }
  Options options;
  try {
    options = parse_check_args(args);
  } catch (const std::exception& e) {
    std::cerr << "autoplugin check: " << e.what() << "\n";
    check_usage(std::cerr);
    return kUsage;
  }
  Report report;
  CapturingLogger logger;
  // Asked in a child process: CUDA, once initialized, does not survive the fork of a case.
  std::optional<std::string> no_gpu = probe_gpu(report);
  options.no_gpu_here = no_gpu.has_value();
  if (options.cpu_only) {
    no_gpu = "--cpu given";
    report.header["gpu"] = "none (--cpu given): everything but enqueue is checked";
  }
  if (!no_gpu) {
    report.header["cuda graph"] = options.cuda_graph
                                      ? "each enqueue also captured and replayed twice"
                                      : "not captured (--no-cuda-graph)";
  }
  report.header["library"] = options.library;
  report.header["op"] = options.op + (options.version.empty() ? "" : " v" + options.version);
  try {
    PluginLibrary library(options.library, logger, options.tensorrt_runtime);
    report.header["loaded by"] = library.loaded_by();
    if (!library.has_logger_finder()) {
      report.info("setLoggerFinder", "not exported: the library's log lines are not captured");
    }
    for (const CheckCase& c : options.cases) run_case(options, c, library, logger, report, !no_gpu);
    if (options.threads > 0) run_concurrency_case(options, library, logger, report, no_gpu);
  } catch (const std::exception& e) {
    report.fail("load", e.what());
  }
  if (options.json) {
    std::cout << report.to_json().dump(2) << "\n";
  } else {
    report.print(std::cout);
  }
  return report.failures() == 0 ? kOk : kFailed;
}

int inspect_main(const std::vector<std::string_view>& args) {
  if (asks_for_help(args)) {
    inspect_usage(std::cout);
    return kOk;
  }
  std::string path;
  bool json = false;
  for (std::string_view a : args) {
    if (a == "--json") {
      json = true;
    } else if (!a.starts_with("-") && path.empty()) {
      path = a;
    } else {
      std::cerr << "autoplugin inspect: unexpected argument '" << a << "'\n";
      inspect_usage(std::cerr);
      return kUsage;
    }
  }
  if (path.empty()) {
    std::cerr << "autoplugin inspect: no plugin library given\n";
    inspect_usage(std::cerr);
    return kUsage;
  }
  CapturingLogger logger;
  try {
    PluginLibrary library{path, logger};
    nlohmann::json result{{"library", library.path()},
                          {"setLoggerFinder", library.has_logger_finder()}};
    result["creators"] = nlohmann::json::array();
    for (nvinfer1::IPluginCreatorInterface* c : library.creators()) {
      nlohmann::json entry{{"kind", c->getInterfaceInfo().kind}};
      if (is_v3_creator(*c)) {
        auto& creator = static_cast<nvinfer1::IPluginCreatorV3One&>(*c);
        entry["name"] = creator.getPluginName();
        entry["version"] = creator.getPluginVersion();
        entry["namespace"] = creator.getPluginNamespace();
        entry["fields"] = nlohmann::json::array();
        if (const auto* names = creator.getFieldNames()) {
          for (int i = 0; i < names->nbFields; ++i) {
            const auto& f = names->fields[i];
            entry["fields"].push_back({{"name", f.name ? f.name : ""},
                                       {"type", field_type_text(f.type)},
                                       {"length", f.length}});
          }
        }
      }
      result["creators"].push_back(entry);
    }
    // A library that loads but offers nothing, or logs an error while loading (an autoplugin
    // library whose declarations do not match their schemas, say), is not usable as it is.
    const std::vector<std::string> log = logger.take();
    bool failed = library.creators().empty();
    for (const auto& line : log) {
      failed = failed || line.starts_with("error: ") || line.starts_with("internal error: ");
    }
    result["log"] = log;
    if (json) {
      std::cout << result.dump(2) << "\n";
      return failed ? kFailed : kOk;
    }
    std::cout << library.path() << ": " << result["creators"].size() << " creators"
              << (library.has_logger_finder() ? "" : " (no setLoggerFinder)") << "\n";
    for (const auto& entry : result["creators"]) {
      std::cout << "  " << entry["kind"].get<std::string>();
      if (entry.contains("name")) {
        const std::string ns = entry["namespace"];
        std::cout << "  " << (ns.empty() ? "" : ns + "::") << entry["name"].get<std::string>()
                  << "  version " << entry["version"].get<std::string>() << "\n";
        for (const auto& f : entry["fields"]) {
          std::cout << "      " << f["name"].get<std::string>() << ": "
                    << f["type"].get<std::string>() << " x"
                    << (f["length"].get<int>() == 0 ? std::string("N")
                                                    : std::to_string(f["length"].get<int>()))
                    << "\n";
        }
      } else {
        std::cout << "  (not an IPluginV3 creator)\n";
      }
    }
    for (const auto& line : log) std::cout << "  plugin log: " << line << "\n";
    return failed ? kFailed : kOk;
  } catch (const std::exception& e) {
    std::cerr << "autoplugin inspect: " << e.what() << "\n";
    return kFailed;
  }
}

}  // namespace autoplugin::check
