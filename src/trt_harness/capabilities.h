// The capability interfaces of an IPluginV3, asked for as TensorRT asks for them (used by the
// tools and tests that drive plugins without libnvinfer).
#pragma once

#include <NvInferRuntime.h>

namespace autoplugin::trt {

inline nvinfer1::IPluginV3OneCore* core_of(nvinfer1::IPluginV3& plugin) {
  return static_cast<nvinfer1::IPluginV3OneCore*>(
      plugin.getCapabilityInterface(nvinfer1::PluginCapabilityType::kCORE));
}
// Any IPluginV3 plugin's build capability; the V2 form only for plugins known to implement it
// (autoplugin's do).
inline nvinfer1::IPluginV3OneBuild* build_of(nvinfer1::IPluginV3& plugin) {
  return static_cast<nvinfer1::IPluginV3OneBuild*>(
      plugin.getCapabilityInterface(nvinfer1::PluginCapabilityType::kBUILD));
}
inline nvinfer1::IPluginV3OneBuildV2* build_v2_of(nvinfer1::IPluginV3& plugin) {
  return static_cast<nvinfer1::IPluginV3OneBuildV2*>(
      plugin.getCapabilityInterface(nvinfer1::PluginCapabilityType::kBUILD));
}
inline nvinfer1::IPluginV3OneRuntime* runtime_of(nvinfer1::IPluginV3& plugin) {
  return static_cast<nvinfer1::IPluginV3OneRuntime*>(
      plugin.getCapabilityInterface(nvinfer1::PluginCapabilityType::kRUNTIME));
}

}  // namespace autoplugin::trt
