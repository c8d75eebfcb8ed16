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

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  // At least one byte, so that even an empty tensor has a distinct address.
  check(cudaMalloc(&data_, bytes == 0 ? 1 : bytes), "cudaMalloc of " + std::to_string(bytes));
}

DeviceBuffer::~DeviceBuffer() {
  if (data_ != nullptr) cudaFree(data_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(other.bytes_) {}

void DeviceBuffer::upload(const void* host, std::size_t bytes) {
  check(cudaMemcpy(data_, host, bytes, cudaMemcpyHostToDevice), "copy to the GPU");
}

void DeviceBuffer::download(void* host, std::size_t bytes) const {
  check(cudaMemcpy(host, data_, bytes, cudaMemcpyDeviceToHost), "copy from the GPU");
}

void DeviceBuffer::poison() { check(cudaMemset(data_, 0xA5, bytes_), "cudaMemset"); }

Stream::Stream() { check(cudaStreamCreate(&stream_), "cudaStreamCreate"); }

Stream::~Stream() {
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void Stream::synchronize(const std::string& what) {
  check(cudaStreamSynchronize(stream_), what);
  check(cudaGetLastError(), what);
}

}  // namespace autoplugin::check
