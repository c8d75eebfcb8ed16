// libFuzzer harness: the TensorRT adapter's createPlugin on every example-like op's creator with
// any field collection (fuzzed_fields.h), then what TensorRT does with a plugin it got: clone,
// serialize the fields, recreate from them, destroy. createPlugin is noexcept: it returns a
// plugin or nullptr (and logs); a crash, an escaping exception or a sanitizer report is a
// finding, as is a plugin whose serialized fields do not recreate it.
#include <autoplugin/trt/plugin.h>

#include <memory>

#include "capabilities.h"
#include "example_like_ops.h"
#include "fuzzed_fields.h"

namespace {

class QuietLogger final : public nvinfer1::ILogger {
 public:
  void log(Severity, const char*) noexcept override {}
};
class Finder final : public nvinfer1::ILoggerFinder {
 public:
  nvinfer1::ILogger* findLogger() override { return &logger; }
  QuietLogger logger;
};

using PluginPtr = std::unique_ptr<nvinfer1::IPluginV3>;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Finder finder;
  autoplugin::trt::set_logger_finder(&finder);
  fuzz::ByteReader in(data, size);
  const std::uint8_t selector = in.byte();
  auto* creator =
      autoplugin::trt::creator_for(example_like::kOps[selector % example_like::kOps.size()]);
  if (creator == nullptr) __builtin_trap();  // the example ops failed to register
  const std::vector<fuzz::FuzzedField> fields = fuzz::read_fields(in);
  std::vector<nvinfer1::PluginField> plugin_fields;
  for (const fuzz::FuzzedField& f : fields) {
    plugin_fields.emplace_back(f.name.c_str(), f.has_data ? f.data.data() : nullptr,
                               static_cast<nvinfer1::PluginFieldType>(f.type), f.length);
  }
  nvinfer1::PluginFieldCollection collection{};
  collection.nbFields = static_cast<std::int32_t>(plugin_fields.size());
  collection.fields = plugin_fields.data();
  // Bit 7 of the selector: no collection at all (TensorRT may pass none for an op without
  // attributes); bit 6: the runtime phase.
  const auto phase =
      selector & 0x40 ? nvinfer1::TensorRTPhase::kRUNTIME : nvinfer1::TensorRTPhase::kBUILD;
  PluginPtr plugin(creator->createPlugin("fuzz", selector & 0x80 ? nullptr : &collection, phase));
  if (!plugin) return 0;
  PluginPtr clone(plugin->clone());
  if (!clone) __builtin_trap();  // a plugin that was created clones
  plugin.reset();
  const nvinfer1::PluginFieldCollection* serialized =
      autoplugin::trt::runtime_of(*clone)->getFieldsToSerialize();
  if (serialized == nullptr) __builtin_trap();
  PluginPtr recreated(creator->createPlugin("fuzz", serialized, nvinfer1::TensorRTPhase::kRUNTIME));
  if (!recreated) __builtin_trap();  // serialized fields recreate the plugin
  return 0;
}
