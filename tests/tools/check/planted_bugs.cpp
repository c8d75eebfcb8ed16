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

#ifdef PLANTED_KERNELS
#include "planted_kernels.h"
#endif

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
  ReportsError,
  LeaksAllocation,
  SharesScratch,
  SyncsInEnqueue,
  AllocatesInEnqueue,
  ReadsDeviceValue,
  OutOfBoundsRead,
  SharedMemoryRace,
  InvalidWarpBarrier,
  UninitializedRead,
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
  ~Plugin() override {
    if (allocator_ != nullptr && scratch_ != nullptr)
      allocator_->deallocateAsync(scratch_, nullptr);
  }

  IPluginV3* clone() noexcept override {
    auto* copy = new Plugin(*this);
    copy->scratch_ = nullptr;  // each attached plugin allocates its own
    copy->allocator_ = nullptr;
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
    if (bug_ == Bug::ReportsError && recorder_ != nullptr) {
      // The planted bug: an error reported to TensorRT while the call claims success.
      recorder_->reportError(ErrorCode::kINVALID_ARGUMENT, "planted: rows must be a multiple of 8");
    }
    return 0;
  }
  // Writes as a kernel would: the whole output, and one float of scratch per input element.
  int32_t enqueue(const PluginTensorDesc* in, const PluginTensorDesc* out,
                  const void* const* inputs, void* const* outputs, void* workspace,
                  cudaStream_t stream) noexcept override {
    if (bug_ == Bug::SizeTensorIndex) return 0;
    if (bug_ == Bug::SharesScratch) return copy_through_shared_scratch(in, inputs, outputs, stream);
    if (bug_ >= Bug::OutOfBoundsRead) return launch_kernel(in, inputs, outputs, workspace, stream);
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
    return breaks_graph_capture(inputs, stream);
  }

  // The planted bugs that break a CUDA graph capture of enqueue (and only that: run directly,
  // they succeed). The first and the last ignore the error, as such plugins usually do.
  int32_t breaks_graph_capture(const void* const* inputs, cudaStream_t stream) const {
    if (bug_ == Bug::SyncsInEnqueue) {
      (void)cudaStreamSynchronize(stream);
    } else if (bug_ == Bug::AllocatesInEnqueue) {
      void* scratch = nullptr;
      if (cudaMalloc(&scratch, 256) != cudaSuccess) {
        log_error("planted: cudaMalloc in enqueue failed");
        return 1;
      }
      cudaFree(scratch);
    } else if (bug_ == Bug::ReadsDeviceValue) {
      float first = 0;
      (void)cudaMemcpy(&first, inputs[0], sizeof first, cudaMemcpyDeviceToHost);
    }
    return 0;
  }
  IPluginV3* attachToContext(IPluginResourceContext* context) noexcept override {
    auto* attached = static_cast<Plugin*>(clone());
    if (attached == nullptr || context == nullptr) return attached;
    attached->recorder_ = context->getErrorRecorder();
    // Scratch for the execution context from TensorRT's allocator (none where there is no GPU).
    if (IGpuAllocator* allocator = context->getGpuAllocator()) {
      attached->scratch_ = allocator->allocateAsync(1024, 256, 0, nullptr);
      // The planted bug: the scratch is never given back.
      if (bug_ != Bug::LeaksAllocation) attached->allocator_ = allocator;
    }
    return attached;
  }
  const PluginFieldCollection* getFieldsToSerialize() noexcept override { return &collection_; }

 private:
  // The planted bug: the output is the input, copied through one buffer that every plugin of the
  // process shares, so that execution contexts running at once overwrite each other's data.
  static int32_t copy_through_shared_scratch(const PluginTensorDesc* in, const void* const* inputs,
                                             void* const* outputs, cudaStream_t stream) {
    constexpr size_t kSharedBytes = size_t(1) << 20;
    static void* const shared = [] {
      void* memory = nullptr;
      return cudaMalloc(&memory, kSharedBytes) == cudaSuccess ? memory : nullptr;
    }();
    const auto bytes = static_cast<size_t>(volume(in[0].dims)) * sizeof(float);
    if (shared == nullptr || bytes > kSharedBytes) {
      log_error("planted: no shared scratch");
      return 1;
    }
    if (cudaMemcpyAsync(shared, inputs[0], bytes, cudaMemcpyDeviceToDevice, stream) !=
            cudaSuccess ||
        cudaMemcpyAsync(outputs[0], shared, bytes, cudaMemcpyDeviceToDevice, stream) !=
            cudaSuccess) {
      log_error("planted: cudaMemcpyAsync failed");
      return 1;
    }
    return 0;
  }

  // The kernels whose bugs only compute-sanitizer sees.
  int32_t launch_kernel(const PluginTensorDesc* in, const void* const* inputs, void* const* outputs,
                        void* workspace, cudaStream_t stream) const {
#ifdef PLANTED_KERNELS
    const auto kernel = static_cast<PlantedKernel>(int(bug_) - int(Bug::OutOfBoundsRead));
    if (launch_planted_kernel(kernel, static_cast<const float*>(inputs[0]),
                              static_cast<float*>(outputs[0]), static_cast<float*>(workspace),
                              volume(in[0].dims), stream) == cudaSuccess) {
      return 0;
    }
    log_error("planted: the kernel launch failed");
#else
    (void)in, (void)inputs, (void)outputs, (void)workspace, (void)stream;
    log_error("planted: built without kernels");
#endif
    return 1;
  }

  Plugin(const Plugin&) = default;
  Bug bug_;
  std::string name_;
  float alpha_;
  int64_t max_rows_ = 0;  // of the profile last configured
  std::vector<PluginField> fields_;
  PluginFieldCollection collection_{};
  // Given by attachToContext.
  IErrorRecorder* recorder_ = nullptr;
  IGpuAllocator* allocator_ = nullptr;  // to free scratch_ with
  void* scratch_ = nullptr;
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
Creator g_reports_error(Bug::ReportsError, "reports_error");
Creator g_leaks_allocation(Bug::LeaksAllocation, "leaks_allocation");
Creator g_shares_scratch(Bug::SharesScratch, "shares_scratch");
Creator g_syncs_in_enqueue(Bug::SyncsInEnqueue, "syncs_in_enqueue");
Creator g_allocates_in_enqueue(Bug::AllocatesInEnqueue, "allocates_in_enqueue");
Creator g_reads_device_value(Bug::ReadsDeviceValue, "reads_device_value");
#ifdef PLANTED_KERNELS
Creator g_out_of_bounds_read(Bug::OutOfBoundsRead, "out_of_bounds_read");
Creator g_shared_memory_race(Bug::SharedMemoryRace, "shared_memory_race");
Creator g_invalid_warp_barrier(Bug::InvalidWarpBarrier, "invalid_warp_barrier");
Creator g_uninitialized_read(Bug::UninitializedRead, "uninitialized_read");
#endif
IPluginCreatorInterface* g_creators[] = {
    &g_correct,
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
    &g_writes_past_output,
    &g_reports_error,
    &g_leaks_allocation,
    &g_shares_scratch,
    &g_syncs_in_enqueue,
    &g_allocates_in_enqueue,
    &g_reads_device_value,
#ifdef PLANTED_KERNELS
    &g_out_of_bounds_read,
    &g_shared_memory_race,
    &g_invalid_warp_barrier,
    &g_uninitialized_read,
#endif
};

}  // namespace

extern "C" __attribute__((visibility("default"))) void setLoggerFinder(ILoggerFinder* finder) {
  g_logger_finder = finder;
}

extern "C" __attribute__((visibility("default"))) IPluginCreatorInterface* const* getCreators(
    int32_t& count) {
  count = static_cast<int32_t>(sizeof g_creators / sizeof g_creators[0]);
  return g_creators;
}
