// The TensorRT adapter: every declared op as an IPluginV3 plugin with an IPluginCreatorV3One.
// Thin by design: each method maps onto the engine-neutral core (op.h).
#pragma once

#include <autoplugin/op.h>

#include <NvInferRuntime.h>

#include <span>
#include <string_view>

namespace autoplugin::trt {

// The creators of every valid op declared in this library, built on first use. Invalid
// declarations are logged as errors and left out.
std::span<nvinfer1::IPluginCreatorInterface* const> creators() noexcept;

// The creator of op `name` ("ns::name", or the plugin name alone, as add_op takes it); null if
// this library has none.
nvinfer1::IPluginCreatorV3One* creator_for(std::string_view name) noexcept;

// Registers every creator with `registry`, under its op's namespace, for applications that link
// the ops in directly. Returns false if any registration failed (each failure is logged).
bool register_creators(nvinfer1::IPluginRegistry& registry) noexcept;

// Where log lines go: the logger of this finder (as set by TensorRT through the library's
// setLoggerFinder entry point), or standard error when none was set.
void set_logger_finder(nvinfer1::ILoggerFinder* finder) noexcept;
void log(nvinfer1::ILogger::Severity severity, std::string_view message) noexcept;

}  // namespace autoplugin::trt

// Registers this program's ops with TensorRT's global plugin registry when it starts (needs
// libnvinfer at link time). Use once, in one source file of an application that links the ops in.
#define AUTOPLUGIN_REGISTER_WITH_TENSORRT()                                \
  [[maybe_unused]] static const bool autoplugin_registered_with_tensorrt = \
      ::autoplugin::trt::register_creators(*getPluginRegistry())
