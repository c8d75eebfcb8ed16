// The GPU side of a check: device buffers, a stream, copies. Absent a usable GPU, checks run
// everything except enqueue.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace autoplugin::check {

// Why kernels cannot run here, or nothing when a GPU is usable.
std::optional<std::string> gpu_unavailable();
std::string gpu_name();
// Whether plugin log lines report a CUDA error (they mention CUDA or a GPU).
bool mentions_cuda(const std::vector<std::string>& log_lines);

class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  void* data() const noexcept { return data_; }
  void upload(const void* host, std::size_t bytes);
  void download(void* host, std::size_t bytes) const;
  // Fills with a byte pattern, so that unwritten output elements are noticed.
  void poison();

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const noexcept { return stream_; }
  // Waits, then throws autoplugin::Error on any CUDA error, naming `what`.
  void synchronize(const std::string& what);

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace autoplugin::check
