// The GPU side of a check: device buffers, a stream, copies. Absent a usable GPU, checks run
// everything except enqueue.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace autoplugin::check {

// Why kernels cannot run here, or nothing when a GPU is usable.
std::optional<std::string> gpu_unavailable();
std::string gpu_name();
// Whether plugin log lines report a CUDA error (they mention CUDA or a GPU).
bool mentions_cuda(const std::vector<std::string>& log_lines);

// Bytes after a buffer that a kernel must leave alone, and what they hold.
inline constexpr std::size_t kGuardBytes = 4096;
inline constexpr std::byte kGuardByte{0x3C};
// The offset of the first byte of `guard` that no longer holds kGuardByte.
std::optional<std::size_t> first_changed(std::span<const std::byte> guard);

class DeviceBuffer {
 public:
  // `bytes` for the caller, then `guard` bytes filled with kGuardByte.
  explicit DeviceBuffer(std::size_t bytes, std::size_t guard = 0);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  void* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return bytes_; }  // without the guard
  void upload(const void* host, std::size_t bytes);
  void download(void* host, std::size_t bytes) const;
  // On `stream`, which the caller synchronizes before reading `host`.
  void download_async(void* host, std::size_t bytes, cudaStream_t stream) const;
  // Fills with a byte pattern, so that unwritten output elements are noticed.
  void poison();
  void poison_async(cudaStream_t stream);
  // Where a write past the end changed the guard, if anywhere.
  std::optional<std::size_t> guard_overwritten() const;

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t guard_ = 0;
};

// What an enqueue launches on a stream, captured into a CUDA graph as TensorRT (enqueueV3 on a
// captured stream) and Torch-TensorRT (use_cuda_graph) capture it: global capture mode, in which
// synchronizing, allocating or copying to the host is an error.
class CapturedGraph {
 public:
  // Captures what `enqueue` (true where it succeeded) launches on `stream`, and instantiates it.
  CapturedGraph(cudaStream_t stream, const std::function<bool()>& enqueue);
  ~CapturedGraph();
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;
  // Why the capture or the instantiation failed; empty where the graph can be launched.
  const std::string& failure() const noexcept { return failure_; }
  void launch(cudaStream_t stream);

 private:
  cudaGraphExec_t exec_ = nullptr;
  std::string failure_;
};

class Stream {
 public:
  // A non-blocking stream does not wait for work on the legacy default stream (nor it for it):
  // streams of several threads then run at once.
  explicit Stream(bool non_blocking = false);
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
