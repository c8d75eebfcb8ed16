// Index arithmetic shared by the example kernels, in plain C++ so that host tests can check it
// (examples/common/index_math_test.cpp): division by a run-time constant, and the realignment
// of 16 bytes read at any offset from two aligned 16-byte loads.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define AUTOPLUGIN_EXAMPLES_HD __host__ __device__
#else
#define AUTOPLUGIN_EXAMPLES_HD
#endif

namespace autoplugin_examples {

// Division by a divisor known at launch, for dividends in [0, 2^31): a multiply-high, an add
// and a shift instead of a ~20-instruction integer division. The multiplier is
// 2^32 (2^l - d) / d + 1 with l = ceil(log2 d) (round-up method); q = (mulhi(n, m) + n) >> l.
// The add cannot overflow 32 bits because mulhi(n, m) <= n < 2^31.
struct FastDivisor {
  std::int64_t divisor = 1;
  std::uint32_t multiplier = 1;
  std::uint32_t shift = 0;

  FastDivisor() = default;
  // `d` >= 1. The fast path (`divide32`) is exact when d < 2^31; larger divisors are only
  // used through `divide64`.
  explicit FastDivisor(std::int64_t d) : divisor(d) {
    if (d >= (std::int64_t{1} << 31)) return;
    std::uint32_t l = 0;
    while ((std::int64_t{1} << l) < d) ++l;
    const std::uint64_t numerator = ((std::uint64_t{1} << l) - static_cast<std::uint64_t>(d)) << 32;
    multiplier = static_cast<std::uint32_t>(numerator / static_cast<std::uint64_t>(d) + 1);
    shift = l;
  }

  // n / divisor for 0 <= n < 2^31.
  AUTOPLUGIN_EXAMPLES_HD std::int32_t divide32(std::int32_t n) const {
    const auto un = static_cast<std::uint32_t>(n);
#if defined(__CUDA_ARCH__)
    const std::uint32_t high = __umulhi(un, multiplier);
#else
    const auto high = static_cast<std::uint32_t>((std::uint64_t{un} * multiplier) >> 32);
#endif
    return static_cast<std::int32_t>((high + un) >> shift);
  }
  AUTOPLUGIN_EXAMPLES_HD std::int64_t divide64(std::int64_t n) const { return n / divisor; }

  // n / divisor with the index type's arithmetic: 32-bit indices take the fast path.
  template <typename Index>
  AUTOPLUGIN_EXAMPLES_HD Index divide(Index n) const {
    if constexpr (sizeof(Index) == 4) {
      return divide32(n);
    } else {
      return divide64(n);
    }
  }
};

// Circular padding wraps at most once (the shape function requires it), so a conditional add or
// subtract replaces the modulo.
template <typename Index>
AUTOPLUGIN_EXAMPLES_HD inline Index wrap(Index i, Index extent) {
  return i < 0 ? i + extent : (i >= extent ? i - extent : i);
}

// Bytes [r, r + 16) of the 32 bytes `words` (two aligned 16-byte loads, little-endian), as four
// words: the value a 16-byte load at an address r bytes past a 16-byte boundary would return.
// r is in [0, 16). Selects pick the words, funnel shifts (one instruction each) the bytes.
AUTOPLUGIN_EXAMPLES_HD inline void byte_window(const std::uint32_t (&words)[8], std::uint32_t r,
                                               std::uint32_t (&out)[4]) {
  const std::uint32_t q = r / 4;
  const std::uint32_t bits = (r % 4) * 8;
  std::uint32_t picked[5];
  for (int i = 0; i < 5; ++i) {
    picked[i] = q == 0 ? words[i] : q == 1 ? words[i + 1] : q == 2 ? words[i + 2] : words[i + 3];
  }
  for (int i = 0; i < 4; ++i) {
    const std::uint64_t pair = (std::uint64_t{picked[i + 1]} << 32) | picked[i];
    out[i] = static_cast<std::uint32_t>(pair >> bits);
  }
}

}  // namespace autoplugin_examples
