// A TensorRT plugin library loaded the way TensorRT loads one: dlopen, setLoggerFinder,
// getCreators. Only the ABI is assumed, so hand-written libraries work too.
#pragma once

#include <NvInferRuntime.h>

#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace autoplugin::check {

// Collects what plugins log, so that each step can show the lines it caused.
class CapturingLogger final : public nvinfer1::ILogger, public nvinfer1::ILoggerFinder {
 public:
  void log(Severity severity, const char* message) noexcept override;
  nvinfer1::ILogger* findLogger() override { return this; }
  // Lines logged since the last call.
  std::vector<std::string> take();
  // Also hands each line to `sink` as it is logged (so that a case's parent process has the
  // lines even when the plugin then ends the process).
  void forward_to(std::function<void(const std::string&)> sink);

 private:
  std::function<void(const std::string&)> sink_;
  std::mutex mutex_;
  std::vector<std::string> lines_;
};

class PluginLibrary {
 public:
  // Throws autoplugin::Error naming the file and what is missing. With `tensorrt_runtime` (a
  // TensorRT runtime library: libnvinfer.so.N, or the lean runtime libnvinfer_lean.so.N), the
  // library is loaded by TensorRT's own plugin registry (loadLibrary, getAllCreators) as an
  // engine build, trtexec --dynamicPlugins or a deserializing runtime loads it; else with
  // dlopen, the way the registry does.
  PluginLibrary(const std::string& path, CapturingLogger& logger,
                const std::string& tensorrt_runtime = "");
  ~PluginLibrary();
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  const std::string& path() const noexcept { return path_; }
  bool has_logger_finder() const noexcept { return has_logger_finder_; }
  // Which code loaded the library and found its creators, for the report.
  const std::string& loaded_by() const noexcept { return loaded_by_; }
  // The creator a deserializing engine gets for a plugin `built_with` made: TensorRT's
  // registry's getCreator(name, version, namespace) where it loaded the library, else the same.
  // Throws autoplugin::Error where the registry finds none.
  nvinfer1::IPluginCreatorV3One& runtime_creator(nvinfer1::IPluginCreatorV3One& built_with);
  std::span<nvinfer1::IPluginCreatorInterface* const> creators() const noexcept {
    return creators_;
  }
  // The IPluginCreatorV3One for "ns::name" (or "name"), optionally of one version. Throws
  // autoplugin::Error listing the library's plugins when there is none.
  nvinfer1::IPluginCreatorV3One& find(std::string_view op, std::string_view version) const;

 private:
  void load_with_registry(const std::string& tensorrt_runtime);

  std::string path_;
  void* handle_ = nullptr;
  bool has_logger_finder_ = false;
  std::string loaded_by_ = "autoplugin check's own dlopen";
  nvinfer1::IPluginRegistry* registry_ = nullptr;  // TensorRT's, where it loaded the library
  nvinfer1::IPluginRegistry::PluginLibraryHandle registry_handle_ = nullptr;
  std::vector<nvinfer1::IPluginCreatorInterface*> creators_;
};

// A log message as text, with any continuation after an embedded NUL shown as "\0" (see
// library.cpp).
std::string visible_message(const char* message);

// "ns::name" of a creator, or "name" without a namespace.
std::string qualified_name(const nvinfer1::IPluginCreatorV3One& creator);
bool is_v3_creator(nvinfer1::IPluginCreatorInterface& creator);

}  // namespace autoplugin::check
