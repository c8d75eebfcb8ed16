// Attribute values print as Python prints them (in messages and `describe`).
#include <autoplugin/value.h>

#include <gtest/gtest.h>

#include <cmath>

namespace ap = autoplugin;

namespace {

std::string text(ap::AttrValue value) { return ap::to_string(value); }

TEST(ValueTest, FloatsPrintLikePythonRepr) {
  EXPECT_EQ(text(100.0), "100.0");
  EXPECT_EQ(text(0.5), "0.5");
  EXPECT_EQ(text(1e-05), "1e-05");
  EXPECT_EQ(text(0.0001), "0.0001");
  EXPECT_EQ(text(1e16), "1e+16");
  EXPECT_EQ(text(1234567890123456.0), "1234567890123456.0");
  EXPECT_EQ(text(12345678901234567.0), "1.2345678901234568e+16");
  EXPECT_EQ(text(0.1), "0.1");
  EXPECT_EQ(text(-0.0), "-0.0");
  EXPECT_EQ(text(INFINITY), "inf");
  EXPECT_EQ(text(NAN), "nan");
}

TEST(ValueTest, OtherValuesPrintLikePython) {
  EXPECT_EQ(text(std::monostate{}), "None");
  EXPECT_EQ(text(std::int64_t{-3}), "-3");
  EXPECT_EQ(text(true), "True");
  EXPECT_EQ(text(std::string("a\"b")), "\"a\\\"b\"");
  EXPECT_EQ(text(ap::IntList{1, 2}), "[1, 2]");
  EXPECT_EQ(text(ap::FloatList{2.0, 0.5}), "[2.0, 0.5]");
  EXPECT_EQ(text(ap::BoolList{true, false}), "[True, False]");
  EXPECT_EQ(text(ap::DType::BFloat16), "bfloat16");
}

}  // namespace

namespace {

TEST(Float16Test, EveryHalfAndBfloat16RoundTripsThroughFloat) {
  for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto b = static_cast<std::uint16_t>(bits);
    const bool half_nan = (b & 0x7C00) == 0x7C00 && (b & 0x3FF) != 0;
    if (!half_nan) {
      ASSERT_EQ(ap::float_to_half(ap::half_to_float(b)), b) << bits;
    }
    const bool bf16_nan = (b & 0x7F80) == 0x7F80 && (b & 0x7F) != 0;
    if (!bf16_nan) {
      ASSERT_EQ(ap::float_to_bfloat16(ap::bfloat16_to_float(b)), b) << bits;
    }
  }
}

TEST(Float16Test, RoundsToNearestEven) {
  EXPECT_EQ(ap::float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(ap::float_to_half(65504.0f), 0x7BFF);
  EXPECT_EQ(ap::float_to_half(65520.0f), 0x7C00);                // rounds up to infinity
  EXPECT_EQ(ap::float_to_half(1.0f + 1.0f / 2048), 0x3C00);      // tie: to even
  EXPECT_EQ(ap::float_to_half(5.960464477539063e-08f), 0x0001);  // smallest subnormal
  EXPECT_EQ(ap::float_to_bfloat16(1.00390625f), 0x3F80);         // tie: to even
  EXPECT_EQ(ap::float_to_bfloat16(-2.0f), 0xC000);
}

TEST(Float8Test, EveryFloat8E4M3RoundTripsThroughFloat) {
  for (std::uint32_t bits = 0; bits <= 0xFF; ++bits) {
    const auto b = static_cast<std::uint8_t>(bits);
    if ((b & 0x7F) == 0x7F) {
      EXPECT_TRUE(std::isnan(ap::float8_e4m3_to_float(b))) << bits;
    } else {
      ASSERT_EQ(ap::float_to_float8_e4m3(ap::float8_e4m3_to_float(b)), b) << bits;
    }
  }
}

TEST(Float8Test, RoundsToNearestEvenAndSaturates) {
  EXPECT_EQ(ap::float8_e4m3_to_float(0x38), 1.0f);
  EXPECT_EQ(ap::float8_e4m3_to_float(0x7E), 448.0f);
  EXPECT_EQ(ap::float8_e4m3_to_float(0x01), 1.0f / 512);        // smallest subnormal
  EXPECT_EQ(ap::float_to_float8_e4m3(1.0f + 1.0f / 16), 0x38);  // tie: to even
  EXPECT_EQ(ap::float_to_float8_e4m3(1.0f + 3.0f / 16), 0x3A);  // tie: to even
  EXPECT_EQ(ap::float_to_float8_e4m3(-2.0f), 0xC0);
  EXPECT_EQ(ap::float_to_float8_e4m3(1.0f / 1024), 0x00);   // tie below the smallest
  EXPECT_EQ(ap::float_to_float8_e4m3(15.0f / 1024), 0x08);  // rounds up to a normal
  EXPECT_EQ(ap::float_to_float8_e4m3(1000.0f), 0x7E);       // saturates
  EXPECT_EQ(ap::float_to_float8_e4m3(-1e30f), 0xFE);
  EXPECT_EQ(ap::float_to_float8_e4m3(std::nanf("")), 0x7F);
}

}  // namespace
