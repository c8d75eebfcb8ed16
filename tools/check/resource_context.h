// The resource context `check` hands to attachToContext, as TensorRT gives one to each execution
// context: a GPU allocator that counts what the plugin allocates (and what it leaves behind), and
// an error recorder that keeps what the plugin reports.
#pragma once

#include <NvInferRuntime.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace autoplugin::check {

// cudaMalloc/cudaFree behind IGpuAsyncAllocator (a stream given to the asynchronous calls is
// waited for before the memory is freed). Thread-safe, as TensorRT's allocator is.
class CountingGpuAllocator final : public nvinfer1::IGpuAsyncAllocator {
 public:
  CountingGpuAllocator() = default;
  CountingGpuAllocator(const CountingGpuAllocator&) = delete;
  CountingGpuAllocator& operator=(const CountingGpuAllocator&) = delete;
  // Frees what is still allocated, so that a leaking plugin does not leak from `check` too.
  ~CountingGpuAllocator() override;

  void* allocateAsync(std::uint64_t size, std::uint64_t alignment, nvinfer1::AllocatorFlags flags,
                      cudaStream_t stream) noexcept override;
  bool deallocateAsync(void* memory, cudaStream_t stream) noexcept override;

  // "" when everything allocated was freed and every deallocation was of a live allocation;
  // otherwise what was not (sizes, counts), for a FAIL.
  std::string problems() const;
  // "N allocations, B bytes" so far.
  std::string summary() const;
  std::uint64_t allocations() const;

 private:
  struct Allocation {
    void* base;  // what cudaMalloc returned (the address handed out may be aligned above it)
    std::uint64_t size;
  };
  mutable std::mutex mutex_;
  std::map<void*, Allocation> live_;  // by the address handed to the plugin
  std::uint64_t allocations_ = 0;
  std::uint64_t bytes_ = 0;
  std::vector<std::string> misuse_;  // frees of unknown pointers, failed cudaFree, ...
};

// Keeps every error the plugin reports; thread-safe, as the interface requires.
class RecordingErrorRecorder final : public nvinfer1::IErrorRecorder {
 public:
  std::int32_t getNbErrors() const noexcept override;
  nvinfer1::ErrorCode getErrorCode(std::int32_t index) const noexcept override;
  ErrorDesc getErrorDesc(std::int32_t index) const noexcept override;
  bool hasOverflowed() const noexcept override { return false; }
  void clear() noexcept override;
  // Not fatal: TensorRT decides from the plugin's return code whether the call failed.
  bool reportError(nvinfer1::ErrorCode code, ErrorDesc desc) noexcept override;
  RefCount incRefCount() noexcept override { return ++references_; }
  RefCount decRefCount() noexcept override { return --references_; }

  // The errors reported since the last call, one line each ("kINVALID_ARGUMENT (3): text"), and
  // forgets them.
  std::vector<std::string> take();

 private:
  struct Entry {
    nvinfer1::ErrorCode code;
    std::string description;
  };
  mutable std::mutex mutex_;
  std::vector<Entry> errors_;
  std::atomic<RefCount> references_{0};
};

// TensorRT's name for an error code ("kFAILED_EXECUTION (7)").
std::string error_code_text(nvinfer1::ErrorCode code);

class CheckResourceContext final : public nvinfer1::IPluginResourceContext {
 public:
  nvinfer1::IGpuAllocator* getGpuAllocator() const noexcept override { return &allocator_; }
  nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override { return &recorder_; }

  CountingGpuAllocator& allocator() const noexcept { return allocator_; }
  RecordingErrorRecorder& recorder() const noexcept { return recorder_; }

  // The errors the plugin reported since the last call, as a FAIL text ("" when none).
  std::string take_reported_errors() const;

 private:
  // The interface hands out non-const pointers from const getters.
  mutable CountingGpuAllocator allocator_;
  mutable RecordingErrorRecorder recorder_;
};

}  // namespace autoplugin::check
