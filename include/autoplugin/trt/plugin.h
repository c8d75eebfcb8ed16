// The TensorRT adapter: every declared op as an IPluginV3 plugin with an IPluginCreatorV3One.
// Thin by design: each method maps onto the engine-neutral core (op.h).
#pragma once

#include <NvInferRuntime.h>

#include <span>
#include <string_view>

namespace autoplugin::trt {

// The creators of every valid op declared in this library, built on first use. Invalid
// declarations are logged as errors and left out. A span once returned stays valid and unchanged,
// also after a later call returns a longer one for ops declared since.
std::span<nvinfer1::IPluginCreatorInterface* const> creators() noexcept;

// The creator of op `name` ("ns::name", or the plugin name alone, as add_op takes it); null if
// this library has none.
nvinfer1::IPluginCreatorV3One* creator_for(std::string_view name) noexcept;

// Registers the creators with `registry` (for an application that links its ops in directly:
// `register_creators(*getPluginRegistry())`, which needs libnvinfer), each under its op's
// namespace. Call it from main or later, not from a static initializer: ops in translation units
// initialized after that one would not be declared yet. A later call registers only the ops
// declared since the previous call with the same registry. Returns false if any registration
// failed (each failure is logged).
bool register_creators(nvinfer1::IPluginRegistry& registry) noexcept;

// Where log lines go: the logger of this finder (as set by TensorRT through the library's
// setLoggerFinder entry point), or standard error when none was set.
void set_logger_finder(nvinfer1::ILoggerFinder* finder) noexcept;
void log(nvinfer1::ILogger::Severity severity, std::string_view message) noexcept;

}  // namespace autoplugin::trt
