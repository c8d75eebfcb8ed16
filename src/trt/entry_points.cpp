// The two entry points TensorRT looks up in a plugin library (trtexec --dynamicPlugins,
// IPluginRegistry::loadLibrary, --setPluginsToSerialize). Compiled into each plugin library.
#include <autoplugin/trt/plugin.h>

#define AUTOPLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

AUTOPLUGIN_EXPORT void setLoggerFinder(nvinfer1::ILoggerFinder* finder) {
  autoplugin::trt::set_logger_finder(finder);
}

AUTOPLUGIN_EXPORT nvinfer1::IPluginCreatorInterface* const* getCreators(std::int32_t& nbCreators) {
  const auto creators = autoplugin::trt::creators();
  nbCreators = static_cast<std::int32_t>(creators.size());
  return creators.data();
}
