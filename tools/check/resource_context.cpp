#include "resource_context.h"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace autoplugin::check {
namespace {

constexpr std::uint64_t kCudaMallocAlignment = 256;

std::string bytes_text(std::uint64_t bytes) {
  return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
}

}  // namespace

CountingGpuAllocator::~CountingGpuAllocator() {
  for (const auto& [address, allocation] : live_) cudaFree(allocation.base);
}

void* CountingGpuAllocator::allocateAsync(std::uint64_t size, std::uint64_t alignment,
                                          nvinfer1::AllocatorFlags, cudaStream_t) noexcept {
  try {
    std::lock_guard lock(mutex_);
    if (alignment != 0 && (alignment & (alignment - 1)) != 0) {
      misuse_.push_back("allocate asked for an alignment of " + std::to_string(alignment) +
                        ", not a power of 2");
      return nullptr;
    }
    // cudaMalloc aligns to 256 bytes; a larger alignment gets room to move the address up.
    const std::uint64_t extra = alignment > kCudaMallocAlignment ? alignment : 0;
    void* base = nullptr;
    if (cudaMalloc(&base, size + extra == 0 ? 1 : size + extra) != cudaSuccess) {
      cudaGetLastError();  // a failed allocation is the plugin's to handle, not sticky
      return nullptr;
    }
    auto address = reinterpret_cast<std::uintptr_t>(base);
    if (extra != 0) address = (address + alignment - 1) & ~std::uintptr_t(alignment - 1);
    void* handed_out = reinterpret_cast<void*>(address);
    live_[handed_out] = {base, size};
    ++allocations_;
    bytes_ += size;
    return handed_out;
  } catch (...) {
    return nullptr;
  }
}

bool CountingGpuAllocator::deallocateAsync(void* memory, cudaStream_t stream) noexcept {
  try {
    std::lock_guard lock(mutex_);
    if (memory == nullptr) return true;
    const auto found = live_.find(memory);
    if (found == live_.end()) {
      misuse_.push_back(
          "deallocate of an address the allocator did not hand out (or freed "
          "already)");
      return false;
    }
    // The plugin may still have work on `stream` that uses the memory.
    if (stream != nullptr) cudaStreamSynchronize(stream);
    const cudaError_t error = cudaFree(found->second.base);
    live_.erase(found);
    if (error != cudaSuccess) {
      misuse_.push_back(std::string("cudaFree failed: ") + cudaGetErrorName(error));
      return false;
    }
    return true;
  } catch (...) {
    return false;
  }
}

std::string CountingGpuAllocator::problems() const {
  std::lock_guard lock(mutex_);
  std::string text;
  if (!live_.empty()) {
    std::uint64_t bytes = 0;
    std::string sizes;
    for (const auto& [address, allocation] : live_) {
      bytes += allocation.size;
      sizes += (sizes.empty() ? "" : ", ") + std::to_string(allocation.size);
    }
    text = std::to_string(live_.size()) + " of " + std::to_string(allocations_) +
           " allocations from the resource context's GPU allocator (" + bytes_text(bytes) + ": " +
           sizes + ") were not freed by the time the plugin was destroyed";
  }
  for (const std::string& line : misuse_) {
    text += (text.empty() ? "" : "\n") + std::string("GPU allocator: ") + line;
  }
  return text;
}

std::string CountingGpuAllocator::summary() const {
  std::lock_guard lock(mutex_);
  return std::to_string(allocations_) + (allocations_ == 1 ? " allocation, " : " allocations, ") +
         bytes_text(bytes_);
}

std::uint64_t CountingGpuAllocator::allocations() const {
  std::lock_guard lock(mutex_);
  return allocations_;
}

std::int32_t RecordingErrorRecorder::getNbErrors() const noexcept {
  std::lock_guard lock(mutex_);
  return static_cast<std::int32_t>(errors_.size());
}

nvinfer1::ErrorCode RecordingErrorRecorder::getErrorCode(std::int32_t index) const noexcept {
  std::lock_guard lock(mutex_);
  if (index < 0 || std::size_t(index) >= errors_.size())
    return nvinfer1::ErrorCode::kINVALID_ARGUMENT;
  return errors_[std::size_t(index)].code;
}

RecordingErrorRecorder::ErrorDesc RecordingErrorRecorder::getErrorDesc(
    std::int32_t index) const noexcept {
  std::lock_guard lock(mutex_);
  if (index < 0 || std::size_t(index) >= errors_.size()) return "no such error";
  return errors_[std::size_t(index)].description.c_str();
}

void RecordingErrorRecorder::clear() noexcept {
  std::lock_guard lock(mutex_);
  errors_.clear();
}

bool RecordingErrorRecorder::reportError(nvinfer1::ErrorCode code, ErrorDesc desc) noexcept {
  try {
    std::lock_guard lock(mutex_);
    errors_.push_back({code, desc == nullptr ? "(no description)" : desc});
  } catch (...) {
  }
  return false;
}

std::vector<std::string> RecordingErrorRecorder::take() {
  std::lock_guard lock(mutex_);
  std::vector<std::string> lines;
  for (const Entry& e : errors_) lines.push_back(error_code_text(e.code) + ": " + e.description);
  errors_.clear();
  return lines;
}

std::string error_code_text(nvinfer1::ErrorCode code) {
  static constexpr const char* kNames[] = {"kSUCCESS",
                                           "kUNSPECIFIED_ERROR",
                                           "kINTERNAL_ERROR",
                                           "kINVALID_ARGUMENT",
                                           "kINVALID_CONFIG",
                                           "kFAILED_ALLOCATION",
                                           "kFAILED_INITIALIZATION",
                                           "kFAILED_EXECUTION",
                                           "kFAILED_COMPUTATION",
                                           "kINVALID_STATE",
                                           "kUNSUPPORTED_STATE"};
  const auto value = static_cast<std::int32_t>(code);
  const bool named = value >= 0 && std::size_t(value) < std::size(kNames);
  return std::string(named ? kNames[value] : "error code") + " (" + std::to_string(value) + ")";
}

std::string CheckResourceContext::take_reported_errors() const {
  std::string text;
  for (const std::string& line : recorder_.take()) {
    text += (text.empty() ? "" : "\n") +
            std::string(
                "the plugin reported through the error "
                "recorder: ") +
            line;
  }
  return text;
}

}  // namespace autoplugin::check
