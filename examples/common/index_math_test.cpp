// The example kernels' index arithmetic, checked on the host (examples/common/index_math.h).
#include "index_math.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace autoplugin_examples {
namespace {

TEST(FastDivisor, MatchesDivisionForSmallLargeAndPowerOfTwoDivisors) {
  std::mt19937 random(7);
  std::uniform_int_distribution<std::int32_t> dividend(0, INT32_MAX);
  for (std::int64_t d : {1LL, 2LL, 3LL, 5LL, 7LL, 64LL, 260LL, 641LL, 1000LL, 65537LL, 1LL << 20,
                         (1LL << 20) + 1, 2147483646LL, 2147483647LL}) {
    const FastDivisor divisor(d);
    for (std::int32_t n : {0, 1, static_cast<std::int32_t>(d - 1), INT32_MAX, INT32_MAX - 1}) {
      if (n < 0) continue;
      EXPECT_EQ(divisor.divide32(n), n / d) << n << " / " << d;
    }
    for (int i = 0; i < 20000; ++i) {
      const std::int32_t n = dividend(random);
      ASSERT_EQ(divisor.divide32(n), n / d) << n << " / " << d;
    }
    // Around the multiples of d, where a rounding error would show first.
    for (std::int64_t m = d; m < INT32_MAX && m < d * 4000; m += d) {
      for (std::int64_t n : {m - 1, m}) {
        ASSERT_EQ(divisor.divide32(static_cast<std::int32_t>(n)), n / d) << n << " / " << d;
      }
    }
  }
}

TEST(FastDivisor, EveryDivisorUpTo3000OnEveryDividendUpTo10000) {
  for (std::int64_t d = 1; d <= 3000; ++d) {
    const FastDivisor divisor(d);
    for (std::int32_t n = 0; n < 10000; ++n) ASSERT_EQ(divisor.divide32(n), n / d) << n << "/" << d;
    ASSERT_EQ(divisor.divide32(INT32_MAX), INT32_MAX / d) << d;
  }
}

TEST(FastDivisor, SixtyFourBitIndicesDivideExactly) {
  const FastDivisor divisor(3'000'000'000LL);
  EXPECT_EQ(divisor.divide<std::int64_t>(9'000'000'001LL), 3);
  EXPECT_EQ(FastDivisor(7).divide<std::int64_t>(1LL << 40), (1LL << 40) / 7);
}

TEST(Wrap, WrapsOnceEitherWay) {
  EXPECT_EQ(wrap(-1, 5), 4);
  EXPECT_EQ(wrap(-5, 5), 0);
  EXPECT_EQ(wrap(0, 5), 0);
  EXPECT_EQ(wrap(4, 5), 4);
  EXPECT_EQ(wrap(5, 5), 0);
  EXPECT_EQ(wrap(9, 5), 4);
}

TEST(ByteWindow, EqualsAnUnalignedSixteenByteRead) {
  unsigned char bytes[32];
  for (int i = 0; i < 32; ++i) bytes[i] = static_cast<unsigned char>(17 * i + 3);
  std::uint32_t words[8];
  std::memcpy(words, bytes, sizeof(words));
  for (std::uint32_t r = 0; r < 16; ++r) {
    std::uint32_t out[4];
    byte_window(words, r, out);
    EXPECT_EQ(std::memcmp(out, bytes + r, 16), 0) << "offset " << r;
  }
}

}  // namespace
}  // namespace autoplugin_examples
