// A plugin library that loads but offers no creator, logging why (as an autoplugin library whose
// declarations do not match their schemas does): `autoplugin inspect` must fail on it.
#include <NvInferRuntime.h>

using namespace nvinfer1;

extern "C" __attribute__((visibility("default"))) void setLoggerFinder(ILoggerFinder* finder) {
  if (finder != nullptr) {
    if (ILogger* logger = finder->findLogger()) {
      logger->log(ILogger::Severity::kERROR, "no_creators: op 'x' does not match its schema");
    }
  }
}

extern "C" __attribute__((visibility("default"))) IPluginCreatorInterface* const* getCreators(
    int32_t& count) {
  count = 0;
  return nullptr;
}
