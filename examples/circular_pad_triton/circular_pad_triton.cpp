// circular_pad_triton: the circular_pad op with a Triton kernel (circular_pad_triton.py),
// compiled ahead of time for each dtype (CMakeLists.txt) and launched from C++, no Python.
#include <autoplugin/autoplugin.h>
#include <autoplugin/triton.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include "../common/circular_pad_shape.h"
#include "triton_kernels/circular_pad_triton_fp16.h"
#include "triton_kernels/circular_pad_triton_fp32.h"
#include "triton_kernels/circular_pad_triton_i64.h"

namespace ap = autoplugin;
using namespace autoplugin_examples;

namespace {

// The kernel moves words: it only loads and stores them, so one compiled kernel per word size
// serves every dtype. The widest word the padding allows is used (see circular_pad_triton).
template <std::size_t Bytes>
struct WordKernel;
template <>
struct WordKernel<2> {
  using type = circular_pad_triton_fp16;
  using word = __half;
};
template <>
struct WordKernel<4> {
  using type = circular_pad_triton_fp32;
  using word = float;
};
template <>
struct WordKernel<8> {
  using type = circular_pad_triton_i64;
  using word = std::int64_t;
};

// The kernel's view of the tensors: [N, D, H, W], padded on D, H and W. Dimensions before the
// last three are unpadded (the shape function requires it) and fold into N.
struct Canonical4d {
  std::int64_t in[4] = {1, 1, 1, 1};
  std::int64_t out[4] = {1, 1, 1, 1};
  std::int64_t before[4] = {0, 0, 0, 0};
};

template <typename T>
Canonical4d canonical(const ap::In<T>& x, const ap::Out<T>& y,
                      std::span<const std::int64_t> padding) {
  Canonical4d g;
  const int rank = x.rank();
  for (int d = 0; d < rank; ++d) {
    const int slot = std::max(0, d - rank + 4);
    g.in[slot] *= x.size(d);
    g.out[slot] *= y.size(d);
  }
  for (std::size_t i = 0; i < padding.size() / 2; ++i) g.before[3 - i] = padding[2 * i];
  return g;
}

// The kernel computes in 32 bits: output word offsets within one launch, row numbers, and per
// dimension source indices from -extent to out + |before| + extent.
constexpr std::int64_t kIndexLimit = std::numeric_limits<std::int32_t>::max() - 1024;

std::int32_t checked_i32(std::int64_t value, const char* what) {
  if (value > kIndexLimit) {
    throw ap::Error("circular_pad_triton: " + std::string(what) + " (" + std::to_string(value) +
                    ") exceeds the kernel's 32-bit index range; use torchtrt_ex::circular_pad");
  }
  return static_cast<std::int32_t>(value);
}

// floor(n / d) as the kernel's _divide computes it for 0 <= n < 2^31: umulhi(2n, multiplier) >>
// shift, with shift = ceil(log2 d) and multiplier = ceil(2^(31 + shift) / d), which is below 2^32
// for every d in [1, 2^31).
struct Divisor {
  std::uint32_t multiplier;
  std::int32_t shift;
};

Divisor divisor(std::int64_t d) {
  std::int32_t shift = 0;
  while ((std::int64_t{1} << shift) < d) ++shift;
  const std::uint64_t numerator = std::uint64_t{1} << (31 + shift);
  const auto denominator = static_cast<std::uint64_t>(d);
  return {static_cast<std::uint32_t>((numerator + denominator - 1) / denominator), shift};
}

// The tensors as words of `Bytes` bytes: the last dimension's extents and padding divided by the
// elements per word. One launch covers fewer than kIndexLimit output words; larger outputs take
// several, each a run of whole rows.
template <std::size_t Bytes>
void launch_words(const void* x, void* y, Canonical4d g, std::int64_t elements_per_word,
                  ap::Stream stream) {
  using Kernel = typename WordKernel<Bytes>::type;
  using Word = typename WordKernel<Bytes>::word;
  g.in[3] /= elements_per_word;
  g.out[3] /= elements_per_word;
  g.before[3] /= elements_per_word;
  const std::int64_t rows = checked_i32(g.out[0] * g.out[1] * g.out[2], "the output's rows");
  checked_i32(g.in[0] * g.in[1] * g.in[2], "the input's rows");
  for (int k = 1; k < 4; ++k) {
    checked_i32(g.out[k] + std::abs(g.before[k]) + g.in[k], "a padded dimension's index range");
  }
  const std::int64_t out_w = g.out[3];
  checked_i32(out_w + Kernel::BLOCK, "an output row's words plus one program's");
  const std::int64_t rows_per_launch = (kIndexLimit - Kernel::BLOCK) / out_w;
  const bool d_wraps = g.in[1] != g.out[1] || g.before[1] != 0;
  const bool h_wraps = g.in[2] != g.out[2] || g.before[2] != 0;
  const std::int32_t row_wraps = d_wraps ? 2 : (h_wraps ? 1 : 0);
  const Divisor by_w = divisor(out_w);
  const Divisor by_h = divisor(g.out[2]);
  const Divisor by_d = divisor(g.out[1]);
  auto i32 = [](std::int64_t value) { return static_cast<std::int32_t>(value); };
  for (std::int64_t first_row = 0; first_row < rows; first_row += rows_per_launch) {
    const std::int64_t words = std::min(rows_per_launch, rows - first_row) * out_w;
    Kernel::launch(ap::triton::make_grid(ap::triton::cdiv(words, Kernel::BLOCK)), stream,
                   static_cast<const Word*>(x), static_cast<Word*>(y) + first_row * out_w,
                   i32(words), i32(first_row), row_wraps, i32(g.in[1]), i32(g.in[2]), i32(g.in[3]),
                   i32(g.out[1]), i32(g.out[2]), i32(out_w), i32(g.before[1]), i32(g.before[2]),
                   i32(g.before[3]), by_w.multiplier, by_w.shift, by_h.multiplier, by_h.shift,
                   by_d.multiplier, by_d.shift);
  }
}

// Whether k adjacent elements of the last dimension always move together (extents and padding
// multiples of k, both tensors aligned to the word), so that words of k elements can move them.
bool whole_words(const Canonical4d& g, const void* x, const void* y, std::int64_t k,
                 std::size_t word_bytes) {
  return g.in[3] % k == 0 && g.out[3] % k == 0 && g.before[3] % k == 0 &&
         reinterpret_cast<std::uintptr_t>(x) % word_bytes == 0 &&
         reinterpret_cast<std::uintptr_t>(y) % word_bytes == 0;
}

}  // namespace

// The widest word (8 or 4 bytes) the padding allows, else the element: float16 padded by 2 moves
// 4-byte words, float32 8-byte words. The kernel's cost is index math per word, so wider words
// move more bytes for it (on the H200, float16 padded by 2 as 4-byte words reaches 96-98% of copy
// bandwidth, padded by 3, as 2-byte elements, about 60%).
template <typename T>
void circular_pad_triton(ap::In<T> x, ap::Out<T> y, std::span<const std::int64_t> padding,
                         ap::Stream stream) {
  if (y.numel() == 0) return;
  const Canonical4d g = canonical(x, y, padding);
  constexpr auto element = static_cast<std::int64_t>(sizeof(T));
  if (whole_words(g, x.data(), y.data(), 8 / element, 8)) {
    launch_words<8>(x.data(), y.data(), g, 8 / element, stream);
  } else if (element < 4 && whole_words(g, x.data(), y.data(), 4 / element, 4)) {
    launch_words<4>(x.data(), y.data(), g, 4 / element, stream);
  } else {
    launch_words<sizeof(T)>(x.data(), y.data(), g, 1, stream);
  }
}

ap::Shape circular_pad_triton_shape(ap::Shape x, std::span<const std::int64_t> padding) {
  ap::require(padding.size() / 2 <= 3, "the Triton kernel pads at most the last 3 dimensions");
  return circular_pad_shape(std::move(x), padding);
}

AUTOPLUGIN_OP("torchtrt_ex::circular_pad_triton(Tensor x, int[] padding) -> Tensor",
              circular_pad_triton_shape, circular_pad_triton<float>, circular_pad_triton<__half>,
              circular_pad_triton<__nv_bfloat16>)
    .example(ap::Example().rank("x", 4).attr("padding", ap::IntList{1, 1, 2, 2}));
