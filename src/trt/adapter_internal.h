// What the adapter's sources share: the exception boundary every TensorRT call goes through, and
// making a plugin. Not installed.
#pragma once

#include <autoplugin/backend/op.h>

#include <NvInferRuntime.h>

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

namespace autoplugin::trt {

inline constexpr std::int32_t kFailure = -1;  // TensorRT's error status

// Logs a failed TensorRT call, naming the op, the plugin instance (layer) and the method.
void report_failure(const Op& op, const std::string& instance, const char* method,
                    std::string_view what) noexcept;

// Runs `body`; any exception becomes a logged error naming the op, the plugin instance and the
// method, and `on_error` is returned. This is the boundary every TensorRT call goes through.
template <typename R, typename Body>
R guarded(const Op& op, const std::string& instance, const char* method, R on_error,
          Body&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    report_failure(op, instance, method, e.what());
  } catch (...) {
    report_failure(op, instance, method, "an unknown exception was thrown");
  }
  return on_error;
}

// A new plugin of `op` with decoded attribute values and the inputs its reserved field declared
// absent, for the layer named `instance`.
nvinfer1::IPluginV3* make_plugin(const Op& op, std::vector<AttrValue> attributes,
                                 AbsentInputs declared_absent, std::string instance);

}  // namespace autoplugin::trt
