// Triton AOT kernels launched on a GPU through autoplugin::triton (no Python): scalar
// parameters of every type, an fp32 scalar, specialized builds (for alignment, for values),
// scratch memory, argument checks before any launch, and a module that cannot load reported as
// an error (never exit()). Exits 77 (skipped) when there is no GPU.
#include <autoplugin/error.h>
#include <autoplugin/triton.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "error_text.h"
#include "triton_kernels/test_autotuned_add.h"
#include "triton_kernels/test_row_scale.h"
#include "triton_kernels/test_scalars.h"
#include "triton_kernels/test_scale_add.h"
#include "triton_kernels/test_scale_add_specialized.h"
#include "triton_kernels/test_scale_add_values.h"
#include "triton_kernels/test_tile_copy.h"

namespace {

namespace tr = autoplugin::triton;
using autoplugin_test::test_autotuned_add;
using autoplugin_test::test_row_scale;
using autoplugin_test::test_scalars;
using autoplugin_test::test_scale_add;
using autoplugin_test::test_scale_add_specialized;
using autoplugin_test::test_scale_add_values;
using autoplugin_test::test_tile_copy;

int failures = 0;

void expect(bool condition, const std::string& what) {
  std::printf("%s  %s\n", condition ? "ok  " : "FAIL", what.c_str());
  if (!condition) ++failures;
}

void cuda(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", call, cudaGetErrorString(status));
    std::exit(1);
  }
}

template <typename T>
struct DeviceBuffer {
  explicit DeviceBuffer(std::size_t count) : count(count) {
    cuda(cudaMalloc(&data, count * sizeof(T)), "cudaMalloc");
  }
  ~DeviceBuffer() { cudaFree(data); }
  std::vector<T> read() const {
    std::vector<T> host(count);
    cuda(cudaMemcpy(host.data(), data, count * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return host;
  }
  void write(const std::vector<T>& host) {
    cuda(cudaMemcpy(data, host.data(), count * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  T* data = nullptr;
  std::size_t count;
};

void fp32_scalar(cudaStream_t stream) {
  const int n = 10000;  // not a multiple of the block
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i) * 0.25f;
    y[i] = 1.0f - static_cast<float>(i);
  }
  DeviceBuffer<float> dx(n), dy(n), dout(n);
  dx.write(x);
  dy.write(y);
  test_scale_add::launch(tr::make_grid(tr::cdiv(n, test_scale_add::BLOCK)), stream, dx.data,
                         dy.data, dout.data, n, 0.5f);
  cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const std::vector<float> out = dout.read();
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    if (std::fabs(out[i] - (0.5f * x[i] + y[i])) > 1e-5f * (1.0f + std::fabs(y[i]))) ++wrong;
  }
  expect(wrong == 0, "scale_add: out = 0.5 * x + y for all " + std::to_string(n) +
                         " elements (fp32 scalar passed as 4 bytes): " + std::to_string(wrong) +
                         " wrong");
}

// Each image of a specialized kernel computes the same: aligned (every promise kept), n not a
// multiple of 16 (addresses only), and misaligned addresses (the generic build).
void specialized_images(cudaStream_t stream) {
  const int n = 4096 + 64;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 97) * 0.5f;
    y[i] = 3.0f - static_cast<float>(i % 13);
  }
  DeviceBuffer<float> dx(n), dy(n), dout(n);
  dx.write(x);
  dy.write(y);
  struct Case {
    const char* what;
    int offset;  // elements into the buffers
    int count;
  };
  for (const Case& c :
       {Case{"aligned, n a multiple of 16", 0, 4096},
        Case{"aligned, n not a multiple of 16", 0, 4095}, Case{"misaligned addresses", 1, 4096}}) {
    cuda(cudaMemset(dout.data, 0, n * sizeof(float)), "cudaMemset");
    test_scale_add_specialized::launch(
        tr::make_grid(tr::cdiv(c.count, test_scale_add_specialized::BLOCK)), stream,
        dx.data + c.offset, dy.data + c.offset, dout.data + c.offset, c.count, 0.5f);
    cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const std::vector<float> out = dout.read();
    int wrong = 0;
    for (int i = 0; i < n; ++i) {
      const bool inside = i >= c.offset && i < c.offset + c.count;
      if (out[i] != (inside ? 0.5f * x[i] + y[i] : 0.0f)) ++wrong;
    }
    expect(wrong == 0, std::string("scale_add specialized, ") + c.what + ": " +
                           std::to_string(wrong) + " wrong");
  }
}

// The builds compiled for n = 4096 and alpha = 0.5 (not passed those arguments) compute what the
// generic one does, and the others serve other values.
void value_images(cudaStream_t stream) {
  const int n = 4096 + 64;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 89) * 0.5f;
    y[i] = 2.0f - static_cast<float>(i % 11);
  }
  DeviceBuffer<float> dx(n), dy(n), dout(n);
  dx.write(x);
  dy.write(y);
  struct Case {
    const char* what;
    int offset;
    int count;
    float alpha;
  };
  for (const Case& c : {Case{"n = 4096, alpha = 0.5, aligned", 0, 4096, 0.5f},
                        Case{"n = 4096, alpha = 0.5, misaligned", 1, 4096, 0.5f},
                        Case{"n = 4096, alpha = 0.25 (no build for it)", 0, 4096, 0.25f},
                        Case{"n = 4095, alpha = 0.5", 0, 4095, 0.5f}}) {
    cuda(cudaMemset(dout.data, 0, n * sizeof(float)), "cudaMemset");
    test_scale_add_values::launch(tr::make_grid(tr::cdiv(c.count, test_scale_add_values::BLOCK)),
                                  stream, dx.data + c.offset, dy.data + c.offset,
                                  dout.data + c.offset, c.count, c.alpha);
    cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const std::vector<float> out = dout.read();
    int wrong = 0;
    for (int i = 0; i < n; ++i) {
      const bool inside = i >= c.offset && i < c.offset + c.count;
      if (out[i] != (inside ? c.alpha * x[i] + y[i] : 0.0f)) ++wrong;
    }
    expect(wrong == 0, std::string("scale_add with value builds, ") + c.what + ": " +
                           std::to_string(wrong) + " wrong");
  }
}

void every_scalar_type(cudaStream_t stream) {
  DeviceBuffer<double> out(11);
  test_scalars::launch(tr::make_grid(1), stream, out.data, true, std::int8_t{-2},
                       std::int16_t{-300}, std::int32_t{-32}, std::int64_t{-5'000'000'000},
                       std::uint8_t{200}, std::uint32_t{4'000'000'000u}, std::uint64_t{1} << 40,
                       1.5f, -2.0f, 0.25);
  cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const std::vector<double> expected = {1,   -2, -300, -32, -5e9, 200, 4e9, 1099511627776.0,
                                        1.5, -2, 0.25};
  const std::vector<double> got = out.read();
  std::string text;
  for (double v : got) text += std::to_string(v) + " ";
  expect(got == expected,
         "scalars: i1 i8 i16 i32 i64 u8 u32 u64 fp16 bf16 fp64 arrive intact: " + text);
}

void scratch_memory(cudaStream_t stream) {
  const int rows = 128, cols = 192;
  std::vector<float> x(rows * cols);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  DeviceBuffer<float> dx(x.size()), dout(x.size());
  dx.write(x);
  const tr::Grid grid = tr::make_grid(tr::cdiv(rows, test_tile_copy::BLOCK_M),
                                      tr::cdiv(cols, test_tile_copy::BLOCK_N));
  const std::size_t bytes = test_tile_copy::scratch_bytes(grid);
  DeviceBuffer<unsigned char> scratch(bytes);
  const std::string small = error_of([&] {
    test_tile_copy::launch(grid, stream, {scratch.data, bytes - 1}, dx.data, dout.data, rows, cols);
  });
  expect(small.find("bytes of scratch memory") != std::string::npos,
         "tile_copy: too little scratch is refused before launch: " + small);
  test_tile_copy::launch(grid, stream, {scratch.data, bytes}, dx.data, dout.data, rows, cols);
  cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  expect(dout.read() == x, "tile_copy: device-side tensor descriptors in " + std::to_string(bytes) +
                               " bytes of scratch copy the tensor");
}

void checks_before_launch(cudaStream_t stream) {
  DeviceBuffer<float> buffer(64);
  const std::string misaligned = error_of([&] {
    test_scale_add::launch(tr::make_grid(1), stream, buffer.data + 1, buffer.data, buffer.data, 8,
                           1.0f);
  });
  expect(misaligned.find("not a multiple of 16") != std::string::npos,
         "a pointer that breaks the ':16' promise is refused: " + misaligned);
}

void unloadable_module(cudaStream_t stream) {
  static const unsigned char junk_cubin[] = {0x7f, 'E', 'L', 'F', 0, 0, 0, 0};
  static const char junk_ptx[] = "this is not PTX";
  tr::KernelImage broken = test_scale_add::image();
  broken.name = "broken";
  broken.cubin = junk_cubin;
  broken.ptx = junk_ptx;
  DeviceBuffer<float> buffer(64);
  const std::string message = error_of([&] {
    tr::launch(broken, tr::make_grid(1), stream,
               {static_cast<const void*>(buffer.data), static_cast<const void*>(buffer.data),
                static_cast<const void*>(buffer.data), std::int32_t{8}, 1.0f});
  });
  expect(message.find("Triton kernel 'broken': the kernel does not load on this GPU") !=
             std::string::npos,
         "a kernel that does not load is an error, not exit(): " + message);
  expect(cudaGetLastError() == cudaSuccess, "the CUDA context is still usable afterwards");
}

// Images are values: two different kernels' images at one address are two kernels.
void copied_images(cudaStream_t stream) {
  DeviceBuffer<float> x(64), y(64), out(64);
  x.write(std::vector<float>(64, 2.0f));
  y.write(std::vector<float>(64, 1.0f));
  tr::KernelImage copy = test_scale_add::image();
  tr::launch(copy, tr::make_grid(1), stream,
             {static_cast<const void*>(x.data), static_cast<const void*>(y.data),
              static_cast<const void*>(out.data), std::int32_t{64}, 3.0f});
  DeviceBuffer<double> scalars(11);
  copy = test_scalars::image();
  tr::launch(copy, tr::make_grid(1), stream,
             {static_cast<const void*>(scalars.data), true, std::int8_t{1}, std::int16_t{2},
              std::int32_t{16}, std::int64_t{4}, std::uint8_t{5}, std::uint32_t{6},
              std::uint64_t{7}, tr::Float16Arg(8.0f), tr::BFloat16Arg(9.0f), 10.0});
  cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  expect(out.read() == std::vector<float>(64, 7.0f) &&
             scalars.read() == std::vector<double>{1, 1, 2, 16, 4, 5, 6, 7, 8, 9, 10},
         "two kernels' images copied to one address launch their own kernels");
}

// A thread that never used CUDA has no current context: the stream's context is used.
void thread_without_context(cudaStream_t stream) {
  DeviceBuffer<float> x(16), y(16), out(16);
  x.write(std::vector<float>(16, 1.0f));
  y.write(std::vector<float>(16, 0.5f));
  std::string error;
  std::thread worker([&] {
    error = error_of([&] {
      test_scale_add::launch(tr::make_grid(1), stream, x.data, y.data, out.data, 16, 2.0f);
    });
  });
  worker.join();
  cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  expect(error.empty() && out.read() == std::vector<float>(16, 2.5f),
         "a launch from a thread without a current context runs in its stream's context" +
             (error.empty() ? std::string() : ": " + error));
}

// Every variant of a family, selected by the values a launcher computes at run time: the block
// that holds a row (the next power of two) and the heuristic EVEN (the row fills it).
void family_variants(cudaStream_t stream) {
  for (const int n : {1, 17, 32, 33, 64, 500, 1024}) {
    const int rows = 3;
    std::vector<float> x(std::size_t(rows) * n);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 3.0f;
    DeviceBuffer<float> dx(x.size()), dout(x.size());
    dx.write(x);
    std::int64_t block = 32;
    while (block < n) block *= 2;
    if (block > 64) block = 1024;
    const std::size_t variant = test_row_scale::select(block, block == n);
    test_row_scale::launch(variant, tr::make_grid(rows), stream, dx.data, dout.data, n, 2.0f);
    cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const std::vector<float> out = dout.read();
    int wrong = 0;
    for (std::size_t i = 0; i < x.size(); ++i) wrong += out[i] != std::max(2.0f * x[i], 0.0f);
    expect(wrong == 0, std::string("row_scale variant ") + test_row_scale::image(variant).name +
                           " for rows of " + std::to_string(n) + ": " + std::to_string(wrong) +
                           " wrong");
  }
  for (std::size_t config = 0; config < test_autotuned_add::variants.size(); ++config) {
    const int n = 5000;
    std::vector<float> x(n, 1.5f), y(n, -0.25f);
    DeviceBuffer<float> dx(n), dy(n), dout(n);
    dx.write(x);
    dy.write(y);
    const std::int64_t block = test_autotuned_add::variants[config].BLOCK;
    test_autotuned_add::launch(config, tr::make_grid(tr::cdiv(n, block)), stream, dx.data, dy.data,
                               dout.data, n);
    cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const std::vector<float> out = dout.read();
    int wrong = 0;
    for (float value : out) wrong += value != 1.25f;
    expect(wrong == 0,
           "autotune config " + std::to_string(config) + ": " + std::to_string(wrong) + " wrong");
  }
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no GPU: Triton kernels are not launched\n");
    return 77;
  }
  cudaStream_t stream = nullptr;
  cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
  try {
    fp32_scalar(stream);
    specialized_images(stream);
    value_images(stream);
    every_scalar_type(stream);
    scratch_memory(stream);
    checks_before_launch(stream);
    unloadable_module(stream);
    copied_images(stream);
    thread_without_context(stream);
    family_variants(stream);
    fp32_scalar(stream);  // again: the kernel loaded by the first launch is reused
  } catch (const std::exception& e) {
    expect(false, std::string("unexpected error: ") + e.what());
  }
  cudaStreamDestroy(stream);
  std::printf("%d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
