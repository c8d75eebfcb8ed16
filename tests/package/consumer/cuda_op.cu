// A CUDA op compiled by a consumer of the installed package: the headers need C++20, which the
// package arranges for CUDA sources (CMake 3.25 adds no C++20 flag for nvcc by itself).
#include <autoplugin/autoplugin.h>

#include <cuda_runtime.h>

#include <cstdint>

namespace ap = autoplugin;

namespace {

template <typename T>
__global__ void scale_kernel(const T* x, T* y, float factor, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = static_cast<T>(static_cast<float>(x[i]) * factor);
}

}  // namespace

template <typename T>
cudaError_t scale_cuda(ap::In<T> x, ap::Out<T> y, float factor, cudaStream_t stream) {
  const std::int64_t n = x.numel();
  if (n == 0) return cudaSuccess;
  const auto blocks = static_cast<unsigned>((n + 255) / 256);
  scale_kernel<<<blocks, 256, 0, stream>>>(x.data(), y.data(), factor, n);
  return cudaGetLastError();
}

ap::Shape same_shape(ap::Shape x, double) { return x; }

AUTOPLUGIN_OP("pkg::scale_cuda(Tensor x, float factor=2.0) -> Tensor", same_shape,
              scale_cuda<float>, scale_cuda<__half>);
