#include "device.h"

#include <autoplugin/error.h>

#include <cctype>
#include <utility>

namespace autoplugin::check {
namespace {

void check(cudaError_t error, const std::string& what) {
  if (error != cudaSuccess) {
    throw Error(what + ": " + cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")");
  }
}

}  // namespace

std::optional<std::string> gpu_unavailable() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) return std::string("no usable GPU (") + cudaGetErrorName(error) + ")";
  if (count == 0) return "no GPU";
  return std::nullopt;
}

std::string gpu_name() {
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, 0) != cudaSuccess) return "unknown GPU";
  return properties.name;
}

bool mentions_cuda(const std::vector<std::string>& log_lines) {
  for (const std::string& line : log_lines) {
    std::string lower;
    for (char c : line) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.find("cuda") != std::string::npos || lower.find("gpu") != std::string::npos) {
      return true;
    }
  }
  return false;
}

std::optional<std::size_t> first_changed(std::span<const std::byte> guard) {
  for (std::size_t i = 0; i < guard.size(); ++i) {
    if (guard[i] != kGuardByte) return i;
  }
  return std::nullopt;
}

DeviceBuffer::DeviceBuffer(std::size_t bytes, std::size_t guard) : bytes_(bytes), guard_(guard) {
  // At least one byte, so that even an empty tensor has a distinct address.
  check(cudaMalloc(&data_, bytes + guard == 0 ? 1 : bytes + guard),
        "cudaMalloc of " + std::to_string(bytes + guard));
  if (guard != 0) {
    check(cudaMemset(static_cast<std::byte*>(data_) + bytes, static_cast<int>(kGuardByte), guard),
          "cudaMemset");
  }
}

DeviceBuffer::~DeviceBuffer() {
  if (data_ != nullptr) cudaFree(data_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(other.bytes_), guard_(other.guard_) {}

std::optional<std::size_t> DeviceBuffer::guard_overwritten() const {
  if (guard_ == 0) return std::nullopt;
  std::vector<std::byte> guard(guard_);
  check(cudaMemcpy(guard.data(), static_cast<const std::byte*>(data_) + bytes_, guard_,
                   cudaMemcpyDeviceToHost),
        "copy of the guard bytes from the GPU");
  return first_changed(guard);
}

void DeviceBuffer::upload(const void* host, std::size_t bytes) {
  check(cudaMemcpy(data_, host, bytes, cudaMemcpyHostToDevice), "copy to the GPU");
}

void DeviceBuffer::download(void* host, std::size_t bytes) const {
  check(cudaMemcpy(host, data_, bytes, cudaMemcpyDeviceToHost), "copy from the GPU");
}

void DeviceBuffer::download_async(void* host, std::size_t bytes, cudaStream_t stream) const {
  check(cudaMemcpyAsync(host, data_, bytes, cudaMemcpyDeviceToHost, stream), "copy from the GPU");
}

void DeviceBuffer::poison() { check(cudaMemset(data_, 0xA5, bytes_), "cudaMemset"); }

void DeviceBuffer::poison_async(cudaStream_t stream) {
  check(cudaMemsetAsync(data_, 0xA5, bytes_, stream), "cudaMemsetAsync");
}

CapturedGraph::CapturedGraph(cudaStream_t stream, const std::function<bool()>& enqueue) {
  check(cudaGetLastError(), "before capturing enqueue");
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
  const bool enqueued = enqueue();
  // What the plugin's own CUDA calls ran into while the stream was captured (it may ignore it).
  const cudaError_t during = cudaGetLastError();
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  (void)cudaGetLastError();  // capture errors are not sticky: leave none behind
  auto name = [](cudaError_t e) {
    return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
  };
  if (!enqueued) failure_ = "enqueue returned an error while its stream was captured";
  if (during != cudaSuccess) {
    failure_ += (failure_.empty() ? "" : "; ") +
                std::string("a CUDA call in enqueue failed while its stream was captured: ") +
                name(during);
  }
  if (ended != cudaSuccess) {
    failure_ += (failure_.empty() ? "" : "; ") + std::string("cudaStreamEndCapture returned ") +
                name(ended);
  }
  if (failure_.empty()) {
    const cudaError_t instantiated = cudaGraphInstantiate(&exec_, graph, 0);
    if (instantiated != cudaSuccess)
      failure_ = "cudaGraphInstantiate returned " + name(instantiated);
  }
  if (graph != nullptr) cudaGraphDestroy(graph);
}

CapturedGraph::~CapturedGraph() {
  if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
}

void CapturedGraph::launch(cudaStream_t stream) {
  check(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch");
}

Stream::Stream(bool non_blocking) {
  check(
      cudaStreamCreateWithFlags(&stream_, non_blocking ? cudaStreamNonBlocking : cudaStreamDefault),
      "cudaStreamCreate");
}

Stream::~Stream() {
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void Stream::synchronize(const std::string& what) {
  check(cudaStreamSynchronize(stream_), what);
  check(cudaGetLastError(), what);
}

}  // namespace autoplugin::check
