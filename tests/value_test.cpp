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
