// Runs the candidate kernels of variants.cuh on the CPU, one thread after another, against a
// per-element reference, on the same odd shapes (and misaligned pointers) as variants.cu: the
// kernels' index logic checked without a GPU.
//   python3 extract_op_kernel.py DIR/op_kernel.inc
//   g++ -O2 -std=c++17 -I DIR host_check.cpp -o host_check && ./host_check
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

struct uint4 {
  unsigned x, y, z, w;
};
struct uint2 {
  unsigned x, y;
};
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};
using cudaStream_t = void*;
using cudaError_t = int;
constexpr cudaError_t cudaSuccess = 0;
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
static dim3 blockIdx, threadIdx, blockDim, gridDim;
#define __global__
#define __device__
#define __host__
#define __launch_bounds__(...)
inline unsigned __umulhi(unsigned a, unsigned b) {
  return static_cast<unsigned>((static_cast<std::uint64_t>(a) * b) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
  return static_cast<unsigned>(((static_cast<std::uint64_t>(hi) << 32) | lo) >> (shift & 31));
}
template <typename T>
T __ldg(const T* p) {
  return *p;
}
using std::min;

#define PAD_LAUNCH(kernel, blocks, threads, stream, ...)               \
  do {                                                                 \
    gridDim.x = (blocks);                                              \
    blockDim.x = (threads);                                            \
    for (blockIdx.x = 0; blockIdx.x < gridDim.x; ++blockIdx.x) {       \
      for (threadIdx.x = 0; threadIdx.x < blockDim.x; ++threadIdx.x) { \
        kernel(__VA_ARGS__);                                           \
      }                                                                \
    }                                                                  \
  } while (0)

#include "variants.cuh"

using namespace pad_variants;

namespace {

template <typename T>
std::vector<T> reference(const std::vector<T>& x, const Geometry& g, std::int64_t total) {
  std::vector<T> y(total);
  for (std::int64_t p = 0; p < total; ++p) {
    std::int64_t rest = p, source = 0, stride = 1;
    for (int d = g.rank - 1; d >= 0; --d) {
      const std::int64_t o = rest % g.out[d];
      rest /= g.out[d];
      source += ((o - g.before[d]) % g.in[d] + g.in[d]) % g.in[d] * stride;
      stride *= g.in[d];
    }
    y[p] = x[source];
  }
  return y;
}

Problem make_problem(const std::vector<std::int64_t>& shape,
                     const std::vector<std::int64_t>& padding) {
  Problem p;
  const Geometry full = make_geometry(shape, padding);
  p.in_count = p.out_count = 1;
  for (int d = 0; d < full.rank; ++d) {
    p.in_count *= full.in[d];
    p.out_count *= full.out[d];
  }
  p.g = merge_unpadded_leading_dims(full);
  p.g32 = to32(p.g);
  p.rows = p.out_count / p.g.out[p.g.rank - 1];
  return p;
}

int failures = 0, runs = 0;

template <typename T>
void check(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& padding,
           int offset) {
  const Problem p = make_problem(shape, padding);
  constexpr int kGuard = 16;
  // 16-byte aligned storage, then `offset` elements in.
  std::vector<uint4> x_store((p.in_count + offset) * sizeof(T) / 16 + 2);
  std::vector<uint4> y_store((p.out_count + offset + kGuard) * sizeof(T) / 16 + 2);
  T* x = reinterpret_cast<T*>(x_store.data()) + offset;
  T* y = reinterpret_cast<T*>(y_store.data()) + offset;
  std::vector<T> input(p.in_count);
  for (std::int64_t i = 0; i < p.in_count; ++i) input[i] = static_cast<T>(i * 40503u + 7u);
  std::memcpy(x, input.data(), input.size() * sizeof(T));
  const std::vector<T> expected = reference(input, make_geometry(shape, padding), p.out_count);
  for (const auto& v : variants<T>()) {
    std::memset(y_store.data(), 0xff, y_store.size() * sizeof(uint4));
    if (!v.launch(x, y, p, nullptr)) continue;
    ++runs;
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < p.out_count; ++i) wrong += y[i] != expected[i];
    const auto* bytes = reinterpret_cast<const unsigned char*>(y_store.data());
    const auto* y_bytes = reinterpret_cast<const unsigned char*>(y);
    for (const unsigned char* b = bytes; b < y_bytes; ++b) wrong += *b != 0xff;
    for (const unsigned char* b = y_bytes + p.out_count * sizeof(T);
         b < y_bytes + (p.out_count + kGuard) * sizeof(T); ++b) {
      wrong += *b != 0xff;
    }
    if (wrong) {
      ++failures;
      std::printf("MISMATCH %s, %zu-byte elements, shape", v.name, sizeof(T));
      for (auto s : shape) std::printf(" %lld", static_cast<long long>(s));
      std::printf(", padding");
      for (auto s : padding) std::printf(" %lld", static_cast<long long>(s));
      std::printf(", offset %d: %lld wrong\n", offset, static_cast<long long>(wrong));
    }
  }
}

struct Case {
  std::vector<std::int64_t> shape, padding;
};

}  // namespace

int main() {
  const std::vector<Case> cases = {
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
      {{2, 4, 32, 64}, {2, 2, 2, 2}},
      {{2, 4, 32, 64}, {4, 4, 1, 1}},
      {{2, 4, 32, 64}, {8, 8, 1, 1}},
  };
  for (const auto& c : cases) {
    for (int offset : {0, 1, 2, 3, 4}) {
      check<std::uint32_t>(c.shape, c.padding, offset);
      check<std::uint16_t>(c.shape, c.padding, offset);
    }
  }
  std::printf("%s: %d of %d runs mismatched\n", failures ? "FAILED" : "ok", failures, runs);
  return failures ? 1 : 0;
}
