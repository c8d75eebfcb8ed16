#include "library.h"

#include <autoplugin/error.h>

#include <dlfcn.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <utility>

namespace autoplugin::check {

namespace {

bool read_byte(const char* address, char& byte) {
  iovec local{&byte, 1};
  iovec remote{const_cast<char*>(address), 1};
  return process_vm_readv(::getpid(), &local, 1, &remote, 1, 0) == 1;
}

}  // namespace

// A plugin that builds a message around a string read with its NUL (std::string(data, length))
// logs it cut at that NUL, inside a quotation: "unknown mode 'linear". When the text stops with a
// quotation open, the text after the NUL in the same buffer is shown after a visible "\0" if it
// closes that quotation and is itself NUL-terminated printable text; otherwise whatever the heap
// holds there (stale text of earlier messages) would be shown. Read with process_vm_readv, so
// that an unreadable address ends the search instead of the process.
std::string visible_message(const char* message) {
  if (message == nullptr) return "(null)";
  std::string text(message);
  const char* next = message + text.size() + 1;
  for (int pieces = 0; pieces < 8; ++pieces) {
    char open_quote = '\0';
    for (char quote : {'\'', '"'}) {
      if (std::count(text.begin(), text.end(), quote) % 2 == 1) open_quote = quote;
    }
    if (open_quote == '\0') break;
    std::string piece;
    char c = '\0';
    while (piece.size() < 4096 && read_byte(next + piece.size(), c) &&
           (std::isprint(static_cast<unsigned char>(c)) || c == '\t')) {
      piece += c;
    }
    if (c != '\0' || piece.empty() || piece.front() != open_quote) break;
    text += "\\0" + piece;
    next += piece.size() + 1;
  }
  return text;
}

void CapturingLogger::log(Severity severity, const char* message) noexcept {
  try {
    static constexpr const char* kNames[] = {"internal error", "error", "warning", "info",
                                             "verbose"};
    const auto index = static_cast<std::size_t>(severity);
    std::string line =
        std::string(index < 5 ? kNames[index] : "log") + ": " + visible_message(message);
    std::lock_guard lock(mutex_);
    if (sink_) sink_(line);
    lines_.push_back(std::move(line));
  } catch (...) {
    // Dropping a log line is better than letting an exception reach the plugin.
  }
}

std::vector<std::string> CapturingLogger::take() {
  std::lock_guard lock(mutex_);
  return std::exchange(lines_, {});
}

void CapturingLogger::forward_to(std::function<void(const std::string&)> sink) {
  std::lock_guard lock(mutex_);
  sink_ = std::move(sink);
}

PluginLibrary::PluginLibrary(const std::string& path, CapturingLogger& logger,
                             const std::string& tensorrt_runtime)
    : path_(path) {
  if (!tensorrt_runtime.empty()) load_with_registry(tensorrt_runtime);
  // Loaded by TensorRT's registry already, this gives its handle (the library is not loaded
  // twice); the logger finder then set is check's, so that each step shows what it logged.
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) throw Error("cannot load " + path + ": " + dlerror());
  using SetLoggerFinder = void (*)(nvinfer1::ILoggerFinder*);
  using GetCreators = nvinfer1::IPluginCreatorInterface* const* (*)(std::int32_t&);
  if (auto* set_finder = reinterpret_cast<SetLoggerFinder>(dlsym(handle_, "setLoggerFinder"))) {
    set_finder(&logger);
    has_logger_finder_ = true;
  }
  if (registry_ != nullptr) {
    std::int32_t count = 0;
    nvinfer1::IPluginCreatorInterface* const* creators = registry_->getAllCreators(&count);
    if (count > 0 && creators != nullptr) creators_.assign(creators, creators + count);
    return;
  }
  auto* get_creators = reinterpret_cast<GetCreators>(dlsym(handle_, "getCreators"));
  if (get_creators == nullptr) {
    throw Error(path +
                " does not export getCreators, so TensorRT cannot load its plugins "
                "(TensorRT reports \"SymbolAddress for getCreators could not be loaded\")");
  }
  std::int32_t count = 0;
  nvinfer1::IPluginCreatorInterface* const* creators = get_creators(count);
  if (count < 0 || (count > 0 && creators == nullptr)) {
    throw Error(path + ": getCreators returned " + std::to_string(count) + " creators and " +
                (creators ? "an array" : "no array"));
  }
  creators_.assign(creators, creators + count);
}

void PluginLibrary::load_with_registry(const std::string& tensorrt_runtime) {
  // Kept loaded for the process: TensorRT's registry outlives this object's uses of it.
  void* runtime = dlopen(tensorrt_runtime.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (runtime == nullptr) {
    throw Error("cannot load TensorRT's runtime " + tensorrt_runtime + ": " + dlerror());
  }
  using GetRegistry = nvinfer1::IPluginRegistry* (*)();
  using GetVersion = std::int32_t (*)();
  auto* get_registry = reinterpret_cast<GetRegistry>(dlsym(runtime, "getPluginRegistry"));
  auto* get_version = reinterpret_cast<GetVersion>(dlsym(runtime, "getInferLibVersion"));
  if (get_registry == nullptr || get_version == nullptr) {
    throw Error(tensorrt_runtime + " is not a TensorRT runtime library (it exports no " +
                (get_registry == nullptr ? "getPluginRegistry" : "getInferLibVersion") + ")");
  }
  registry_ = get_registry();
  if (registry_ == nullptr) throw Error(tensorrt_runtime + ": getPluginRegistry returned null");
  registry_handle_ = registry_->loadLibrary(path_.c_str());
  if (registry_handle_ == nullptr) {
    throw Error("TensorRT's plugin registry (" + tensorrt_runtime + ") could not load " + path_ +
                " (loadLibrary returned null; TensorRT's log above says why)");
  }
  const std::int32_t version = get_version();
  loaded_by_ = "TensorRT " + std::to_string(version / 10000) + "." +
               std::to_string(version / 100 % 100) + "." + std::to_string(version % 100) +
               "'s plugin registry (" + tensorrt_runtime + "): loadLibrary, getAllCreators, " +
               "getCreator for the runtime phase";
}

PluginLibrary::~PluginLibrary() {
  if (registry_ != nullptr && registry_handle_ != nullptr) {
    registry_->deregisterLibrary(registry_handle_);
  }
  if (handle_ != nullptr) dlclose(handle_);
}

nvinfer1::IPluginCreatorV3One& PluginLibrary::runtime_creator(
    nvinfer1::IPluginCreatorV3One& built_with) {
  if (registry_ == nullptr) return built_with;
  nvinfer1::IPluginCreatorInterface* found = registry_->getCreator(
      built_with.getPluginName(), built_with.getPluginVersion(), built_with.getPluginNamespace());
  if (found == nullptr || !is_v3_creator(*found)) {
    throw Error(std::string("TensorRT's plugin registry has no IPluginV3 creator for ") +
                built_with.getPluginName() + " version " + built_with.getPluginVersion() +
                " in namespace '" + built_with.getPluginNamespace() +
                "': a deserializing engine would not find the plugin");
  }
  return static_cast<nvinfer1::IPluginCreatorV3One&>(*found);
}

bool is_v3_creator(nvinfer1::IPluginCreatorInterface& creator) {
  return std::strcmp(creator.getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE") == 0;
}

std::string qualified_name(const nvinfer1::IPluginCreatorV3One& creator) {
  const char* ns = creator.getPluginNamespace();
  const std::string prefix = ns != nullptr && *ns != '\0' ? std::string(ns) + "::" : "";
  return prefix + creator.getPluginName();
}

nvinfer1::IPluginCreatorV3One& PluginLibrary::find(std::string_view op,
                                                   std::string_view version) const {
  std::string known;
  for (nvinfer1::IPluginCreatorInterface* c : creators_) {
    if (c == nullptr || !is_v3_creator(*c)) continue;
    auto& creator = static_cast<nvinfer1::IPluginCreatorV3One&>(*c);
    const std::string name = qualified_name(creator);
    known += (known.empty() ? "" : ", ") + name + " v" + creator.getPluginVersion();
    const bool name_matches = name == op || std::string_view(creator.getPluginName()) == op;
    if (name_matches && (version.empty() || version == creator.getPluginVersion())) return creator;
  }
  throw Error(path_ + " has no IPluginV3 creator for '" + std::string(op) + "'" +
              (version.empty() ? "" : " version " + std::string(version)) +
              " (it has: " + (known.empty() ? "none" : known) + ")");
}

}  // namespace autoplugin::check
