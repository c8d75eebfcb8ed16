// Regression tests for what the fuzzers (tests/fuzz) found, one per finding, as plain unit tests.
#include <autoplugin/error.h>
#include <autoplugin/schema.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ap = autoplugin;
using ::testing::HasSubstr;

namespace {

// fuzz_schema: a scalar default repeated to a fixed list size of 300 million allocated 2.4 GB
// while parsing (libFuzzer: out-of-memory). Such sizes are refused before anything is allocated.
TEST(FuzzRegression, HugeFixedListSizeWithScalarDefaultIsRefused) {
  try {
    (void)ap::parse_schema("ns::op(Tensor b, int[300047980] c=1) -> Tensor");
    FAIL() << "expected a SchemaError";
  } catch (const ap::SchemaError& e) {
    EXPECT_THAT(e.what(), HasSubstr("fixed list size is too large (at most 65536)"));
  }
  EXPECT_EQ(ap::parse_schema("ns::op(Tensor b, int[65536] c=1) -> Tensor").arguments.size(), 2u);
}

}  // namespace
