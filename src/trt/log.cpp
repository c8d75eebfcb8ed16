// Where the adapter's log lines go, and how a failed TensorRT call is reported.
#include <autoplugin/trt/plugin.h>

#include <atomic>
#include <cstdio>
#include <string>

#include "adapter_internal.h"

namespace autoplugin::trt {

using Severity = nvinfer1::ILogger::Severity;

namespace {
std::atomic<nvinfer1::ILoggerFinder*> g_logger_finder{nullptr};
}  // namespace

void set_logger_finder(nvinfer1::ILoggerFinder* finder) noexcept { g_logger_finder = finder; }

void log(Severity severity, std::string_view message) noexcept {
  try {
    const std::string text = "autoplugin: " + std::string(message);
    nvinfer1::ILogger* logger = nullptr;
    if (nvinfer1::ILoggerFinder* finder = g_logger_finder.load()) logger = finder->findLogger();
    if (logger != nullptr) {
      logger->log(severity, text.c_str());
    } else if (severity <= Severity::kWARNING) {  // without a logger, only what needs attention
      std::fprintf(stderr, "%s\n", text.c_str());
    }
  } catch (...) {
    std::fputs("autoplugin: failed to log a message\n", stderr);
  }
}

// Building the line can itself fail (out of memory): then a fixed line goes out, so that nothing
// escapes the noexcept method.
void report_failure(const Op& op, const std::string& instance, const char* method,
                    std::string_view what) noexcept {
  try {
    // Core errors already start with the op's name; say it once.
    const std::string prefix = "op '" + op.qualified_name() + "': ";
    if (what.starts_with(prefix)) what.remove_prefix(prefix.size());
    log(Severity::kERROR, "op '" + op.qualified_name() + "'" +
                              (instance.empty() ? "" : " (layer '" + instance + "')") + ", " +
                              method + ": " + std::string(what));
  } catch (...) {
    log(Severity::kERROR, method);
  }
}

}  // namespace autoplugin::trt
