// The IPluginCreatorV3One of each op, the table of them that getCreators hands TensorRT, and
// registration with a TensorRT plugin registry.
#include <autoplugin/backend/op.h>
#include <autoplugin/backend/trt/convert.h>
#include <autoplugin/error.h>
#include <autoplugin/trt/plugin.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "adapter_internal.h"

namespace autoplugin::trt {

using Severity = nvinfer1::ILogger::Severity;

namespace {

class Creator final : public nvinfer1::IPluginCreatorV3One {
 public:
  explicit Creator(const Op& op) : op_(&op), specs_(field_specs(op.schema())) {
    for (const FieldSpec& spec : specs_) {
      field_names_.emplace_back(spec.name.c_str(), nullptr, to_trt(spec.type), spec.length);
    }
    field_collection_.nbFields = static_cast<std::int32_t>(field_names_.size());
    field_collection_.fields = field_names_.data();
  }

  nvinfer1::IPluginV3* createPlugin(const char* name, const nvinfer1::PluginFieldCollection* fc,
                                    nvinfer1::TensorRTPhase) noexcept override {
    const std::string instance = name != nullptr ? name : "";
    return guarded<nvinfer1::IPluginV3*>(*op_, instance, "createPlugin", nullptr, [&] {
      std::vector<FieldView> views;
      if (fc != nullptr) {
        if (fc->nbFields < 0 || (fc->nbFields > 0 && fc->fields == nullptr)) {
          throw FieldError("the field collection has " + std::to_string(fc->nbFields) +
                           " fields and " + (fc->fields ? "a" : "no") + " field array");
        }
        for (int i = 0; i < fc->nbFields; ++i) {
          const nvinfer1::PluginField& f = fc->fields[i];
          if (f.name == nullptr) throw FieldError("field " + std::to_string(i) + " has no name");
          const auto type = from_trt(f.type);
          if (!type) {
            throw FieldError("field '" + std::string(f.name) + "' has an unknown field type " +
                             std::to_string(static_cast<int>(f.type)));
          }
          views.push_back({f.name, *type, f.data, f.length});
        }
      }
      DecodedAttributes decoded = op_->decode_fields(views);
      for (const auto& warning : decoded.warnings) log(Severity::kWARNING, warning);
      const AbsentInputs absent = op_->declared_absent(decoded.absent_inputs);
      return make_plugin(*op_, std::move(decoded.values), absent, instance);
    });
  }

  const nvinfer1::PluginFieldCollection* getFieldNames() noexcept override {
    return &field_collection_;
  }
  const char* getPluginName() const noexcept override { return op_->plugin_name().c_str(); }
  const char* getPluginVersion() const noexcept override { return op_->version().c_str(); }
  const char* getPluginNamespace() const noexcept override {
    return op_->plugin_namespace().c_str();
  }
  const Op& op() const noexcept { return *op_; }

 private:
  const Op* op_;
  std::vector<FieldSpec> specs_;
  std::vector<nvinfer1::PluginField> field_names_;
  nvinfer1::PluginFieldCollection field_collection_{};
};

// One creator per op, extended when ops were declared after the last look. TensorRT keeps the
// array getCreators returned, so every array handed out stays allocated and unchanged: a refresh
// that finds new ops publishes a new array instead of growing the old one.
class CreatorTable {
 public:
  std::span<nvinfer1::IPluginCreatorInterface* const> refresh() {
    std::lock_guard lock(mutex_);
    const auto& errors = registry().errors();
    for (; logged_errors_ < errors.size(); ++logged_errors_) {
      log(Severity::kERROR, "op not registered: " + errors[logged_errors_]);
    }
    const auto& ops = registry().ops();
    for (std::size_t i = creators_.size(); i < ops.size(); ++i) {
      creators_.push_back(std::make_unique<Creator>(ops[i]));
    }
    if (published_size_ != creators_.size()) {
      auto array = std::make_unique<nvinfer1::IPluginCreatorInterface*[]>(creators_.size());
      for (std::size_t i = 0; i < creators_.size(); ++i) array[i] = creators_[i].get();
      published_.push_back(std::move(array));
      published_size_ = creators_.size();
    }
    if (published_size_ == 0) return {};
    return {published_.back().get(), published_size_};
  }

  // Registers with `trt_registry` the creators an earlier call did not register there.
  bool register_new(nvinfer1::IPluginRegistry& trt_registry) {
    const auto all = refresh();
    std::lock_guard lock(mutex_);
    std::size_t& registered = registered_[&trt_registry];
    bool ok = true;
    for (; registered < all.size(); ++registered) {
      auto* creator = static_cast<Creator*>(all[registered]);
      if (!trt_registry.registerCreator(*creator, creator->getPluginNamespace())) {
        log(Severity::kERROR, std::string("TensorRT refused to register plugin '") +
                                  creator->getPluginName() + "' in namespace '" +
                                  creator->getPluginNamespace() + "'");
        ok = false;
      }
    }
    return ok;
  }

 private:
  std::mutex mutex_;
  std::size_t logged_errors_ = 0;
  std::vector<std::unique_ptr<Creator>> creators_;
  std::vector<std::unique_ptr<nvinfer1::IPluginCreatorInterface*[]>> published_;
  std::size_t published_size_ = 0;
  // Per TensorRT registry, how many creators (in table order) were registered with it.
  std::map<const nvinfer1::IPluginRegistry*, std::size_t> registered_;
};

CreatorTable& creator_table() {
  static CreatorTable table;
  return table;
}

}  // namespace

std::span<nvinfer1::IPluginCreatorInterface* const> creators() noexcept {
  try {
    return creator_table().refresh();
  } catch (const std::exception& e) {
    log(Severity::kERROR, std::string("could not create the plugin creators: ") + e.what());
  } catch (...) {
    log(Severity::kERROR, "could not create the plugin creators");
  }
  return {};
}

nvinfer1::IPluginCreatorV3One* creator_for(std::string_view name) noexcept {
  const auto all = creators();
  const Op* op = find_op(name);
  for (nvinfer1::IPluginCreatorInterface* c : all) {
    auto* creator = static_cast<Creator*>(c);
    if (&creator->op() == op) return creator;
  }
  return nullptr;
}

bool register_creators(nvinfer1::IPluginRegistry& trt_registry) noexcept {
  try {
    return creator_table().register_new(trt_registry);
  } catch (const std::exception& e) {
    log(Severity::kERROR, std::string("could not register the plugin creators: ") + e.what());
  } catch (...) {
    log(Severity::kERROR, "could not register the plugin creators");
  }
  return false;
}

}  // namespace autoplugin::trt
