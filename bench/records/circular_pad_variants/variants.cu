// Candidate kernels for circular_pad (examples/circular_pad), timed side by side against a device
// copy of the same bytes. Standalone (nvcc only), see run.sh:
//   nvcc -O3 -arch=sm_90 -std=c++17 variants.cu -o variants && ./variants
// Semantics as the example's op: the output's last dimensions are padded circularly, padding in
// PyTorch order (last dimension first, a (before, after) pair per dimension), negative padding
// crops; padding wraps at most once. Every variant's output is compared bit for bit with a
// per-element reference kernel on small odd shapes and on every timed shape.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "variants.cuh"

#define CHECK(call)                                                      \
  do {                                                                   \
    cudaError_t status_ = (call);                                        \
    if (status_ != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(status_));                         \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

namespace {

using namespace pad_variants;

// ---------------------------------------------------------------------------------------------
// Reference: one thread per output element, 64-bit, modulo per dimension.

template <typename T>
__global__ void reference(const T* x, T* y, Geometry g, std::int64_t total) {
  for (std::int64_t p = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; p < total;
       p += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::int64_t rest = p;
    std::int64_t source = 0;
    std::int64_t stride = 1;
    for (int d = g.rank - 1; d >= 0; --d) {
      const std::int64_t o = rest % g.out[d];
      rest /= g.out[d];
      const std::int64_t i = ((o - g.before[d]) % g.in[d] + g.in[d]) % g.in[d];
      source += i * stride;
      stride *= g.in[d];
    }
    y[p] = x[source];
  }
}

// ---------------------------------------------------------------------------------------------
// Harness

template <typename T>
__global__ void fill_input(T* x, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    // Distinct bit patterns per element (mod 2^16 for 16-bit types), no NaN concerns: compared
    // bitwise.
    if constexpr (sizeof(T) == 4) {
      reinterpret_cast<std::uint32_t*>(x)[i] = static_cast<std::uint32_t>(i * 2654435761u + 7u);
    } else {
      reinterpret_cast<std::uint16_t*>(x)[i] = static_cast<std::uint16_t>(i * 40503u + 7u);
    }
  }
}

template <typename W>
__global__ void count_mismatches(const W* a, const W* b, std::int64_t n,
                                 unsigned long long* count) {
  unsigned long long local = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    local += a[i] != b[i];
  }
  if (local) atomicAdd(count, local);
}

std::string text(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

constexpr int kWarmUp = 5;
constexpr int kGuard = 16;  // elements after y checked for stray writes
constexpr int kRuns = 30;

// Keeps the GPU busy while the host enqueues the timed launch, so that the start event runs just
// before the kernel: the time is the kernel's, without the host's launch latency (which would
// otherwise add several microseconds to kernels of 15 us at 64 MB).
__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

template <typename F>
float time_ms(F&& fn, cudaStream_t s, bool busy = true) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < kWarmUp; ++i) fn();
  std::vector<float> times;
  for (int i = 0; i < kRuns; ++i) {
    if (busy) spin<<<1, 1, 0, s>>>(200000);
    CHECK(cudaEventRecord(start, s));
    fn();
    CHECK(cudaEventRecord(stop, s));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return median(times);
}

int failures = 0;
// dtype -> variant -> smallest % of copy over the timed sizes from 64 MB (in+out) up
std::map<std::string, std::map<std::string, double>> worst;

// Runs every variant once on (shape, padding), checks it against the reference; with `timed`,
// times them and the copy. `offset_elements` shifts x and y inside their allocations (alignment).
template <typename T>
void run_case(const char* dtype, const std::vector<std::int64_t>& shape,
              const std::vector<std::int64_t>& padding, bool timed, int offset_elements,
              cudaStream_t s) {
  const Problem p = make_problem(shape, padding);
  T* x_alloc;
  T* y_alloc;
  T* ref_alloc;
  CHECK(cudaMalloc(&x_alloc, (p.in_count + offset_elements) * sizeof(T)));
  CHECK(cudaMalloc(&y_alloc, (p.out_count + offset_elements + kGuard) * sizeof(T)));
  CHECK(cudaMalloc(&ref_alloc, (p.out_count + offset_elements) * sizeof(T)));
  T* x = x_alloc + offset_elements;
  T* y = y_alloc + offset_elements;
  T* ref = ref_alloc + offset_elements;
  unsigned long long* count;
  CHECK(cudaMalloc(&count, sizeof(unsigned long long)));
  fill_input<<<grid_for(p.in_count), kThreads, 0, s>>>(x, p.in_count);
  reference<<<grid_for(p.out_count), kThreads, 0, s>>>(x, ref, make_geometry(shape, padding),
                                                       p.out_count);
  CHECK(cudaGetLastError());
  const double mb = static_cast<double>(p.in_count + p.out_count) * sizeof(T) / 1e6;
  float copy = 0;
  if (timed) {
    // A device copy moving the same bytes: half read, half written.
    const std::size_t half = static_cast<std::size_t>((p.in_count + p.out_count) * sizeof(T) / 2);
    char* a;
    char* b;
    CHECK(cudaMalloc(&a, half));
    CHECK(cudaMalloc(&b, half));
    copy = time_ms([&] { CHECK(cudaMemcpyAsync(b, a, half, cudaMemcpyDeviceToDevice, s)); }, s);
    const float idle_copy =
        time_ms([&] { CHECK(cudaMemcpyAsync(b, a, half, cudaMemcpyDeviceToDevice, s)); }, s, false);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    std::printf(
        "%-9s %-20s pad %-14s %8.1f MB in+out: copy %.4f ms (%.0f GB/s; %.4f ms "
        "without the spin kernel)\n",
        dtype, text(shape).c_str(), text(padding).c_str(), mb, copy, mb / copy, idle_copy);
  }
  for (const auto& v : variants<T>()) {
    CHECK(cudaMemsetAsync(y_alloc, 0xff, (p.out_count + offset_elements + kGuard) * sizeof(T), s));
    if (!v.launch(x, y, p, s)) {
      if (timed) std::printf("    %-24s n/a\n", v.name);
      continue;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaMemsetAsync(count, 0, sizeof(unsigned long long), s));
    if constexpr (sizeof(T) == 4) {
      count_mismatches<<<grid_for(p.out_count), kThreads, 0, s>>>(
          reinterpret_cast<const std::uint32_t*>(y), reinterpret_cast<const std::uint32_t*>(ref),
          p.out_count, count);
    } else {
      count_mismatches<<<grid_for(p.out_count), kThreads, 0, s>>>(
          reinterpret_cast<const std::uint16_t*>(y), reinterpret_cast<const std::uint16_t*>(ref),
          p.out_count, count);
    }
    unsigned long long mismatches = 0;
    CHECK(cudaMemcpyAsync(&mismatches, count, sizeof(mismatches), cudaMemcpyDeviceToHost, s));
    // Elements before y (offset) and after its end must be untouched (0xff pattern).
    std::vector<T> guard(offset_elements + kGuard);
    if (offset_elements > 0) {
      CHECK(cudaMemcpyAsync(guard.data(), y_alloc, offset_elements * sizeof(T),
                            cudaMemcpyDeviceToHost, s));
    }
    CHECK(cudaMemcpyAsync(guard.data() + offset_elements, y + p.out_count, kGuard * sizeof(T),
                          cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < offset_elements + kGuard; ++i) {
      const auto* bytes = reinterpret_cast<const unsigned char*>(&guard[i]);
      for (std::size_t k = 0; k < sizeof(T); ++k) mismatches += bytes[k] != 0xff;
    }
    if (mismatches) {
      ++failures;
      std::printf("MISMATCH %s %s %s pad %s offset %d: %llu elements differ\n", v.name, dtype,
                  text(shape).c_str(), text(padding).c_str(), offset_elements, mismatches);
    }
    if (timed) {
      const float ms = time_ms([&] { v.launch(x, y, p, s); }, s);
      const double pct = copy / ms * 100;
      std::printf("    %-24s %8.4f ms %6.0f GB/s %6.1f%% of copy%s\n", v.name, ms, mb / ms, pct,
                  mismatches ? "  WRONG" : "");
      if (mb >= 64) {
        auto& w = worst[dtype];
        const double value = mismatches ? 0 : pct;
        w[v.name] = w.count(v.name) ? std::min(w[v.name], value) : value;
      }
    }
  }
  CHECK(cudaFree(x_alloc));
  CHECK(cudaFree(y_alloc));
  CHECK(cudaFree(ref_alloc));
  CHECK(cudaFree(count));
}

struct Shape {
  std::vector<std::int64_t> shape, padding;
};

template <typename T>
void run_dtype(const char* dtype, cudaStream_t s) {
  const std::vector<Shape> checks = {
      {{2, 3, 8, 8}, {1, 1, 2, 2}},
      {{4, 3, 16, 16}, {2, 3}},
      {{2, 5, 7}, {1, 2, 3, 0}},
      {{4, 6}, {-1, -2}},
      {{3, 5, 37}, {3, 4, 1, 1}},
      {{2, 3, 1001}, {5, 2}},
      {{5, 1}, {1, 1, 1, 0}},
      {{2, 3, 4, 5, 300}, {7, 5, 1, 2, 3, 1}},
      {{4, 64, 130}, {-3, 9, 2, -1}},
      {{37}, {4, 5}},
      {{3, 2, 1000}, {999, 1000, 1, 1}},
      {{7, 33, 65}, {1, 0, 0, 2}},
      {{2, 4, 64, 64}, {3, 3, 2, 2}},
      {{3, 9, 17}, {0, 0, 1, 1}},
      {{2, 3, 40, 24}, {-2, 5, 1, -3}},
  };
  for (const auto& c : checks) {
    for (int offset : {0, 1, 3}) run_case<T>(dtype, c.shape, c.padding, false, offset, s);
  }
  const std::vector<Shape> timed = {
      {{8, 64, 128, 128}, {2, 2, 2, 2}},  {{8, 64, 256, 256}, {2, 2, 2, 2}},
      {{16, 64, 256, 256}, {2, 2, 2, 2}}, {{8, 64, 512, 512}, {2, 2, 2, 2}},
      {{8, 64, 256, 256}, {3, 3, 2, 2}},
  };
  for (const auto& c : timed) run_case<T>(dtype, c.shape, c.padding, true, 0, s);
  std::printf("\n");
}

}  // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a time limit keeps what was printed
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf(
      "GPU: %s, %d SMs; median of %d runs after %d warm-up; %% of cudaMemcpyAsync D2D "
      "moving the same bytes (in+out);\na spin kernel before each timed launch hides the host's "
      "launch latency\n\n",
      prop.name, prop.multiProcessorCount, kRuns, kWarmUp);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  run_dtype<float>("float32", s);
  run_dtype<__half>("float16", s);
  run_dtype<__nv_bfloat16>("bfloat16", s);
  std::printf("Worst %% of copy over the timed sizes >= 64 MB (0 = wrong result):\n");
  std::printf("%-24s %9s %9s %9s\n", "variant", "float32", "float16", "bfloat16");
  for (const auto& v : variants<float>()) {
    std::printf("%-24s", v.name);
    for (const char* dtype : {"float32", "float16", "bfloat16"}) {
      const auto& w = worst[dtype];
      const auto it = w.find(v.name);
      if (it == w.end()) {
        std::printf(" %9s", "n/a");
      } else {
        std::printf(" %8.1f%%", it->second);
      }
    }
    std::printf("\n");
  }
  std::printf("%s: %d mismatching runs\n", failures ? "FAILED" : "all variants exact", failures);
  CHECK(cudaStreamDestroy(s));
  return failures ? 1 : 0;
}
