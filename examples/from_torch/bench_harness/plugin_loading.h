// What the plugin timers of from-torch's benchmarks share (bench_harness/enqueue_bench.cpp and
// corpus/harness/plugin_timer.cpp): a plugin library loaded as TensorRT loads it (dlopen +
// getCreators), without TensorRT's runtime, and the small pieces around it.
#pragma once

#include <NvInferRuntime.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace plugin_loading {

// The program's name, for its messages; each program defines it.
extern const char* const kProgram;

[[noreturn]] inline void fail(const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", kProgram, message.c_str());
  std::exit(1);
}

inline void check(cudaError_t error, const char* what) {
  if (error != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorString(error));
}

// "2x3x8" or "1,2" as numbers; "" as none (a 0-d shape).
inline std::vector<std::int64_t> parse_ints(const std::string& text, char separator) {
  std::vector<std::int64_t> values;
  if (text.empty()) return values;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(separator, start), text.size());
    values.push_back(std::strtoll(text.substr(start, end - start).c_str(), nullptr, 10));
    start = end + 1;
  }
  return values;
}

inline std::int64_t numel(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto extent : shape) n *= extent;
  return n;
}

inline nvinfer1::PluginTensorDesc describe(const std::vector<std::int64_t>& shape,
                                           nvinfer1::DataType type) {
  nvinfer1::PluginTensorDesc desc{};
  desc.dims.nbDims = static_cast<std::int32_t>(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) desc.dims.d[i] = shape[i];
  desc.type = type;
  desc.format = nvinfer1::TensorFormat::kLINEAR;
  desc.scale = 1.0F;
  return desc;
}

// The IPluginV3 creator of `op` ("NS::NAME") in the plugin library at `library`.
inline nvinfer1::IPluginCreatorV3One* find_creator(const char* library, const std::string& op) {
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) fail(std::string("dlopen: ") + dlerror());
  using GetCreators = nvinfer1::IPluginCreatorInterface* const* (*)(std::int32_t&);
  auto get_creators = reinterpret_cast<GetCreators>(dlsym(handle, "getCreators"));
  if (get_creators == nullptr) fail(std::string(library) + " exports no getCreators");
  std::int32_t count = 0;
  nvinfer1::IPluginCreatorInterface* const* creators = get_creators(count);
  const std::size_t colon = op.find("::");
  const std::string ns = op.substr(0, colon);
  const std::string name = op.substr(colon + 2);
  for (std::int32_t i = 0; i < count; ++i) {
    if (std::strcmp(creators[i]->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE") != 0) continue;
    auto* creator = static_cast<nvinfer1::IPluginCreatorV3One*>(creators[i]);
    if (name == creator->getPluginName() && ns == creator->getPluginNamespace()) return creator;
  }
  fail("no creator for " + op + " in " + library);
}

}  // namespace plugin_loading
