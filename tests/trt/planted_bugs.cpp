// A hand-written IPluginV3 library (no autoplugin code) with bugs planted on purpose, each in its
// own plugin, for `autoplugin check` to catch; "planted::correct" has none of them.
#include <NvInferRuntime.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace nvinfer1;

enum class Bug {
  None,
  DanglingFields,
  PeekingFormats,
  WrongShape,
  SizeTensorIndex,
  AbortsInShapes,
  HangsInConfigure,
  ExitsInWorkspace,
  WorkspaceFromDims,
  WorkspaceForOpt,
  WorkspaceShrinks,
  Peeking5dFormats,
  DeviceQuery,
  StringByLength,
  WritesPastOutput,
};

int64_t volume(const Dims& dims) {
  int64_t n = 1;
  for (int32_t i = 0; i < dims.nbDims; ++i) n *= dims.d[i];
  return n;
}

ILoggerFinder* g_logger_finder = nullptr;

void log_error(const std::string& message) {
  if (g_logger_finder != nullptr) {
    if (ILogger* logger = g_logger_finder->findLogger()) {
      logger->log(ILogger::Severity::kERROR, message.c_str());
    }
  }
}

class Plugin final : public IPluginV3,
                     public IPluginV3OneCore,
                     public IPluginV3OneBuild,
                     public IPluginV3OneRuntime {
 public:
  Plugin(Bug bug, const char* name, float alpha) : bug_(bug), name_(name), alpha_(alpha) {
    // The planted bug: a field list built once, pointing at this object's member. The default
    // copy in clone() copies the pointer, so a clone's fields point into its source.
    fields_.emplace_back("alpha", &alpha_, PluginFieldType::kFLOAT32, 1);
    collection_ = {1, fields_.data()};
  }

  IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override {
    switch (type) {
      case PluginCapabilityType::kCORE:
        return static_cast<IPluginV3OneCore*>(this);
      case PluginCapabilityType::kBUILD:
        return static_cast<IPluginV3OneBuild*>(this);
      case PluginCapabilityType::kRUNTIME:
        return static_cast<IPluginV3OneRuntime*>(this);
    }
    return nullptr;
  }
  IPluginV3* clone() noexcept override {
    auto* copy = new Plugin(*this);
    if (bug_ != Bug::DanglingFields) copy->collection_ = {1, copy->fields_.data()};
    if (bug_ != Bug::DanglingFields) copy->fields_[0].data = &copy->alpha_;
    return copy;
  }

  const char* getPluginName() const noexcept override { return name_.c_str(); }
  const char* getPluginVersion() const noexcept override { return "1"; }
  const char* getPluginNamespace() const noexcept override { return "planted"; }

  // SizeTensorIndex has a data-dependent output and its 0-d INT32 size tensor.
  int32_t getNbOutputs() const noexcept override { return bug_ == Bug::SizeTensorIndex ? 2 : 1; }
  int32_t getOutputDataTypes(DataType* out, int32_t, const DataType* in,
                             int32_t) const noexcept override {
    out[0] = in[0];
    if (bug_ == Bug::SizeTensorIndex) out[1] = DataType::kINT32;
    return 0;
  }
  int32_t getOutputShapes(const DimsExprs* inputs, int32_t, const DimsExprs*, int32_t,
                          DimsExprs* outputs, int32_t, IExprBuilder& builder) noexcept override {
    if (bug_ == Bug::AbortsInShapes) {
      // The planted bug: an assert where an error code belongs (what assert() does, in any build).
      log_error("planted: Assertion `inputs[0].nbDims == 3' failed");
      std::abort();
    }
    outputs[0] = inputs[0];
    if (bug_ == Bug::SizeTensorIndex) {
      // The planted bug: the index counts the input too; it is an output index (here 1).
      outputs[0].d[0] = builder.declareSizeTensor(2, *inputs[0].d[0], *inputs[0].d[0]);
      outputs[1].nbDims = 0;
    }
    if (bug_ == Bug::WrongShape) {
      outputs[0].d[0] =
          builder.operation(DimensionOperation::kSUM, *inputs[0].d[0], *builder.constant(1));
    }
    return 0;
  }
  bool supportsFormatCombination(int32_t pos, const DynamicPluginTensorDesc* io, int32_t,
                                 int32_t) noexcept override {
    const bool linear_float =
        io[pos].desc.type == DataType::kFLOAT && io[pos].desc.format == TensorFormat::kLINEAR;
    if (bug_ == Bug::PeekingFormats && pos == 0) {
      return linear_float && io[1].desc.type == DataType::kFLOAT;  // looks ahead: not allowed
    }
    if (bug_ == Bug::Peeking5dFormats && pos == 0 && io[0].desc.format == TensorFormat::kDHWC8 &&
        io[0].desc.type == DataType::kHALF) {
      return io[1].desc.type == DataType::kHALF;  // looks ahead, in a 5-D vectorized format only
    }
    return linear_float;
  }
  int32_t configurePlugin(const DynamicPluginTensorDesc* in, int32_t,
                          const DynamicPluginTensorDesc*, int32_t) noexcept override {
    max_rows_ = in[0].max.nbDims > 0 ? in[0].max.d[0] : 0;
    while (bug_ == Bug::HangsInConfigure) {
      std::this_thread::sleep_for(std::chrono::seconds(1));  // waits for something that never comes
    }
    return 0;
  }
  size_t getWorkspaceSize(const DynamicPluginTensorDesc* in, int32_t,
                          const DynamicPluginTensorDesc*, int32_t) const noexcept override {
    // One float of scratch per input element, for any shape of the profile: sized from max.
    switch (bug_) {
      case Bug::ExitsInWorkspace:
        log_error("planted: out of options, exiting");
        std::exit(3);
      case Bug::WorkspaceFromDims:  // the planted bug: desc.dims holds -1 for dynamic extents
        return static_cast<size_t>(volume(in[0].desc.dims) * int64_t(sizeof(float)));
      case Bug::WorkspaceForOpt:  // the planted bug: too small for shapes above opt
        return static_cast<size_t>(volume(in[0].opt)) * sizeof(float);
      case Bug::WorkspaceShrinks:  // the planted bug: less scratch for larger shapes
        return 4096 / static_cast<size_t>(std::max<int64_t>(1, volume(in[0].max)));
      default:
        return static_cast<size_t>(volume(in[0].max)) * sizeof(float);
    }
  }

  int32_t onShapeChange(const PluginTensorDesc*, int32_t, const PluginTensorDesc*,
                        int32_t) noexcept override {
    return 0;
  }
  // Writes as a kernel would: the whole output, and one float of scratch per input element.
  int32_t enqueue(const PluginTensorDesc* in, const PluginTensorDesc* out, const void* const*,
                  void* const* outputs, void* workspace, cudaStream_t stream) noexcept override {
    if (bug_ == Bug::SizeTensorIndex) return 0;
    int64_t elements = volume(out[0].dims);
    if (bug_ == Bug::WritesPastOutput && in[0].dims.nbDims > 0 && in[0].dims.d[0] == max_rows_) {
      ++elements;  // the planted bug: one element too many, at the max shape only
    }
    const auto scratch = static_cast<size_t>(volume(in[0].dims)) * sizeof(float);
    if (cudaMemsetAsync(outputs[0], 0, static_cast<size_t>(elements) * sizeof(float), stream) !=
            cudaSuccess ||
        (scratch != 0 && cudaMemsetAsync(workspace, 0, scratch, stream) != cudaSuccess)) {
      log_error("planted: cudaMemsetAsync failed");
      return 1;
    }
    return 0;
  }
  IPluginV3* attachToContext(IPluginResourceContext*) noexcept override { return clone(); }
  const PluginFieldCollection* getFieldsToSerialize() noexcept override { return &collection_; }

 private:
  Plugin(const Plugin&) = default;
  Bug bug_;
  std::string name_;
  float alpha_;
  int64_t max_rows_ = 0;  // of the profile last configured
  std::vector<PluginField> fields_;
  PluginFieldCollection collection_{};
};

class Creator final : public IPluginCreatorV3One {
 public:
  Creator(Bug bug, const char* name) : bug_(bug), name_(name) {
    field_names_.emplace_back("alpha", nullptr, PluginFieldType::kFLOAT32, 1);
    field_names_.emplace_back("mode", nullptr, PluginFieldType::kCHAR, 0);
    names_ = {2, field_names_.data()};
  }
  IPluginV3* createPlugin(const char*, const PluginFieldCollection* fc,
                          TensorRTPhase) noexcept override {
    float alpha = 1.0f;
    std::string mode = "linear";
    for (int i = 0; fc != nullptr && i < fc->nbFields; ++i) {
      const PluginField& f = fc->fields[i];
      if (std::strcmp(f.name, "alpha") == 0 && f.type == PluginFieldType::kFLOAT32 &&
          f.length == 1) {
        std::memcpy(&alpha, f.data, sizeof alpha);
      }
      if (std::strcmp(f.name, "mode") == 0 && f.type == PluginFieldType::kCHAR) {
        const char* text = static_cast<const char*>(f.data);
        const auto length = static_cast<size_t>(f.length);
        // The planted bug reads the string with its length, so a counted NUL becomes part of it.
        mode = bug_ == Bug::StringByLength ? std::string(text, length)
                                           : std::string(text, strnlen(text, length));
      }
    }
    if (mode != "linear") {
      log_error("planted: unknown mode '" + mode + "' (expected 'linear')");
      return nullptr;
    }
    if (bug_ == Bug::DeviceQuery) {
      // The planted habit: a device query where the plugin is made (fine on a GPU machine; where
      // there is none, creation fails).
      cudaDeviceProp properties{};
      const cudaError_t error = cudaGetDeviceProperties(&properties, 0);
      if (error != cudaSuccess) {
        log_error(std::string("planted: cudaGetDeviceProperties failed: ") +
                  cudaGetErrorString(error));
        return nullptr;
      }
    }
    return new Plugin(bug_, name_, alpha);
  }
  const PluginFieldCollection* getFieldNames() noexcept override { return &names_; }
  const char* getPluginName() const noexcept override { return name_; }
  const char* getPluginVersion() const noexcept override { return "1"; }
  const char* getPluginNamespace() const noexcept override { return "planted"; }

 private:
  Bug bug_;
  const char* name_;
  std::vector<PluginField> field_names_;
  PluginFieldCollection names_{};
};

Creator g_correct(Bug::None, "correct");
Creator g_dangling(Bug::DanglingFields, "dangling_fields");
Creator g_peeking(Bug::PeekingFormats, "peeking_formats");
Creator g_wrong_shape(Bug::WrongShape, "wrong_shape");
Creator g_size_tensor_index(Bug::SizeTensorIndex, "size_tensor_index");
Creator g_aborts_in_shapes(Bug::AbortsInShapes, "aborts_in_shapes");
Creator g_hangs_in_configure(Bug::HangsInConfigure, "hangs_in_configure");
Creator g_exits_in_workspace(Bug::ExitsInWorkspace, "exits_in_workspace");
Creator g_workspace_from_dims(Bug::WorkspaceFromDims, "workspace_from_dims");
Creator g_workspace_for_opt(Bug::WorkspaceForOpt, "workspace_for_opt");
Creator g_workspace_shrinks(Bug::WorkspaceShrinks, "workspace_shrinks");
Creator g_peeking_5d_formats(Bug::Peeking5dFormats, "peeking_5d_formats");
Creator g_device_query(Bug::DeviceQuery, "device_query");
Creator g_string_by_length(Bug::StringByLength, "string_by_length");
Creator g_writes_past_output(Bug::WritesPastOutput, "writes_past_output");
IPluginCreatorInterface* g_creators[] = {&g_correct,
                                         &g_dangling,
                                         &g_peeking,
                                         &g_wrong_shape,
                                         &g_size_tensor_index,
                                         &g_aborts_in_shapes,
                                         &g_hangs_in_configure,
                                         &g_exits_in_workspace,
                                         &g_workspace_from_dims,
                                         &g_workspace_for_opt,
                                         &g_workspace_shrinks,
                                         &g_peeking_5d_formats,
                                         &g_device_query,
                                         &g_string_by_length,
                                         &g_writes_past_output};

}  // namespace

extern "C" __attribute__((visibility("default"))) void setLoggerFinder(ILoggerFinder* finder) {
  g_logger_finder = finder;
}

extern "C" __attribute__((visibility("default"))) IPluginCreatorInterface* const* getCreators(
    int32_t& count) {
  count = static_cast<int32_t>(sizeof g_creators / sizeof g_creators[0]);
  return g_creators;
}
