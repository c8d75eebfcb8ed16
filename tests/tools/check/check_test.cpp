// Unit tests of autoplugin check's parts that need neither a GPU nor a plugin library.
#include <autoplugin/error.h>
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <thread>

#include "check/case.h"
#include "check/device.h"
#include "check/fields.h"
#include "check/isolation.h"
#include "check/library.h"
#include "check/report.h"
#include "check/resource_context.h"
#include "check/tensors.h"

namespace autoplugin::check {
namespace {

using nvinfer1::PluginFieldType;

template <typename T>
std::vector<std::byte> bytes_of(std::initializer_list<T> values) {
  std::vector<std::byte> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), std::data(values), bytes.size());
  return bytes;
}

// A creator that only lists fields.
class ListingCreator final : public nvinfer1::IPluginCreatorV3One {
 public:
  ListingCreator() {
    names_.emplace_back("alpha", nullptr, PluginFieldType::kFLOAT32, 1);
    names_.emplace_back("mode", nullptr, PluginFieldType::kCHAR, 0);
    names_.emplace_back("padding", nullptr, PluginFieldType::kINT64, 0);
    collection_ = {static_cast<std::int32_t>(names_.size()), names_.data()};
  }
  nvinfer1::IPluginV3* createPlugin(const char*, const nvinfer1::PluginFieldCollection*,
                                    nvinfer1::TensorRTPhase) noexcept override {
    return nullptr;
  }
  const nvinfer1::PluginFieldCollection* getFieldNames() noexcept override { return &collection_; }
  const char* getPluginName() const noexcept override { return "listing"; }
  const char* getPluginVersion() const noexcept override { return "1"; }
  const char* getPluginNamespace() const noexcept override { return ""; }

 private:
  std::vector<nvinfer1::PluginField> names_;
  nvinfer1::PluginFieldCollection collection_{};
};

TEST(CheckReference, GetsEveryAttributeWithTheSerializedDefaults) {
  Fields serialized;
  serialized.add("alpha", PluginFieldType::kFLOAT32, bytes_of<float>({0.25f}), 1);
  const std::string mode = "nearest";
  std::vector<std::byte> text(mode.size() + 1);
  std::memcpy(text.data(), mode.c_str(), text.size());
  serialized.add("mode", PluginFieldType::kCHAR, text, static_cast<std::int32_t>(text.size()));
  serialized.add("padding", PluginFieldType::kINT64, bytes_of<std::int64_t>({3}), 1);
  ListingCreator creator;
  const nlohmann::json attributes = attributes_with_defaults({{"alpha", 0.5}}, serialized, creator);
  EXPECT_EQ(attributes["alpha"], 0.5);  // the case's own value
  EXPECT_EQ(attributes["mode"], "nearest");
  EXPECT_EQ(attributes["padding"], nlohmann::json::array({3}));  // listed as a list: stays one
}

TEST(CheckDevice, FindsTheFirstChangedGuardByte) {
  std::vector<std::byte> guard(64, kGuardByte);
  EXPECT_FALSE(first_changed(guard).has_value());
  guard[17] = std::byte{0};
  EXPECT_EQ(first_changed(guard), 17u);
}

TEST(CheckResourceContext, RecorderKeepsReportsUntilTaken) {
  CheckResourceContext context;
  nvinfer1::IErrorRecorder* recorder = context.getErrorRecorder();
  ASSERT_NE(recorder, nullptr);
  EXPECT_FALSE(recorder->reportError(nvinfer1::ErrorCode::kFAILED_EXECUTION, "launch failed"));
  EXPECT_EQ(recorder->getNbErrors(), 1);
  EXPECT_EQ(recorder->getErrorCode(0), nvinfer1::ErrorCode::kFAILED_EXECUTION);
  EXPECT_STREQ(recorder->getErrorDesc(0), "launch failed");
  EXPECT_EQ(context.take_reported_errors(),
            "the plugin reported through the error recorder: kFAILED_EXECUTION (7): launch failed");
  EXPECT_EQ(recorder->getNbErrors(), 0);
  EXPECT_EQ(context.take_reported_errors(), "");
  EXPECT_EQ(error_code_text(static_cast<nvinfer1::ErrorCode>(42)), "error code (42)");
}

TEST(CheckResourceContext, AllocatorRefusesWhatItDidNotHandOut) {
  CheckResourceContext context;
  nvinfer1::IGpuAllocator* allocator = context.getGpuAllocator();
  ASSERT_NE(allocator, nullptr);
  int not_from_the_allocator = 0;
  EXPECT_FALSE(allocator->deallocateAsync(&not_from_the_allocator, nullptr));
  EXPECT_EQ(allocator->allocateAsync(64, 3, 0, nullptr), nullptr);  // not a power of 2
  EXPECT_EQ(context.allocator().problems(),
            "GPU allocator: deallocate of an address the allocator did not hand out (or freed "
            "already)\nGPU allocator: allocate asked for an alignment of 3, not a power of 2");
}

TEST(CheckLog, ShowsTextAfterAnEmbeddedNul) {
  const char message[] = "unknown mode 'linear\0' (expected 'linear')\0\xDB\xDB";
  EXPECT_EQ(visible_message(message), "unknown mode 'linear\\0' (expected 'linear')");
  const char bookkeeping[] = "done\0!\0\0";  // one byte is not taken for text
  EXPECT_EQ(visible_message(bookkeeping), "done");
}

TEST(CheckReport, CaseTravelsAsJsonAndExpectedErrorsPass) {
  Report child;
  child.begin_case("c");
  child.add(Report::Status::Passed, "one");
  child.fail("two", "unknown mode 'cubic'");
  Report parent;
  parent.append_case(child.last_case_json());
  EXPECT_EQ(parent.failures(), 1);
  parent.expect_error("unknown mode");
  EXPECT_EQ(parent.failures(), 0);
  parent.expect_error("something else");
  EXPECT_EQ(parent.failures(), 1);
}

// The error a case file's text gives, "no error" where it parses.
std::string error_of(const char* text) {
  try {
    (void)parse_check_file(nlohmann::json::parse(text), "cases.json");
  } catch (const autoplugin::Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(CheckCaseFile, SuggestsTheKnownNameForAMisspelledOne) {
  EXPECT_EQ(closest_name("rnage", {"range", "values"}), "range");
  EXPECT_EQ(closest_name("expect_shape", {"expect_shapes", "inputs"}), "expect_shapes");
  EXPECT_FALSE(closest_name("tolerance", {"atol", "rtol"}).has_value());
}

// Every number a case file holds is checked for its kind and range before it is converted: a
// typo such as a 26-digit shape input is an error naming the case and the key, not undefined
// behaviour (found by the case-file fuzzer).
TEST(CheckCaseFile, RefusesNumbersOutOfRangeNamingTheCaseAndKey) {
  EXPECT_EQ(error_of(R"({"cases": [{"name": "big", "inputs": [{"shape": [2]}],
                                   "shape_inputs": [[39993333333333333333333333]]}]})"),
            "cases.json: case 'big'.shape_inputs[0]: expected a 64-bit integer, got "
            "3.999333333333334e+25");
  EXPECT_EQ(
      error_of(R"({"cases": [{"name": "u", "inputs": [{"shape": [2]}],
                                   "shape_inputs": [[18446744073709551615]]}]})"),
      "cases.json: case 'u'.shape_inputs[0]: expected a 64-bit integer, got 18446744073709551615");
  EXPECT_EQ(
      error_of(R"({"cases": [{"name": "e", "inputs": [{"shape": [18446744073709551615]}]}]})"),
      "cases.json: case 'e'.inputs[0].shape: expected a 64-bit integer, got 18446744073709551615");
  EXPECT_EQ(error_of(R"({"cases": [{"name": "t", "inputs": [{"shape": [2]}], "atol": "0.1"}]})"),
            "cases.json: case 't'.atol: expected a number, got \"0.1\"");
  EXPECT_EQ(
      error_of(R"({"cases": [{"name": "z", "inputs": [{"shape": [2], "zero_fraction": 2}]}]})"),
      "cases.json: case 'z'.inputs[0].zero_fraction: expected a fraction from 0 to 1, got 2");
  EXPECT_EQ(error_of(R"({"cases": [{"name": "i", "inputs": [{"dtype": "int32", "shape": [1],
                                   "values": ["nan"]}]}]})"),
            "cases.json: case 'i'.inputs[0].values: expected a number, got \"nan\"");
  EXPECT_EQ(
      error_of(R"({"cases": [{"name": "f", "inputs": [{"shape": [1], "values": ["NaN"]}]}]})"),
      "cases.json: case 'f'.inputs[0].values: expected a number or \"nan\", \"inf\", "
      "\"-inf\", got \"NaN\"");
  EXPECT_EQ(error_of(R"({"cases": [{"name": "ok", "inputs": [{"shape": [2]}],
                                   "shape_inputs": [[9223372036854775807]]}]})"),
            "no error");
}

// JSON has no NaN or infinity: a floating-point input's values name them (sort's NaN cases).
TEST(CheckCaseFile, ReadsNanAndInfinitiesAmongFloatValues) {
  const auto file = parse_check_file(nlohmann::json::parse(R"({"cases": [{"name": "n",
      "inputs": [{"dtype": "float16", "shape": [4], "values": [1.5, "nan", "inf", "-inf"]}]}]})"),
                                     "cases.json");
  const auto& values = file.cases.at(0).inputs.at(0).values;
  ASSERT_EQ(values.size(), 4u);
  EXPECT_EQ(values[0], 1.5);
  EXPECT_TRUE(std::isnan(values[1]));
  EXPECT_EQ(values[2], std::numeric_limits<double>::infinity());
  EXPECT_EQ(values[3], -std::numeric_limits<double>::infinity());
}

// An index that a kernel writes through without atomics must not repeat (xFormers' scaled index
// add races on a repeated row, in the eager op too), and must stay within the axis it indexes at
// the min and max shapes as well.
TEST(CheckCaseFile, DistinctIndicesFollowTheExtentTheyIndex) {
  const auto file = parse_check_file(nlohmann::json::parse(R"({"cases": [{"name": "d",
      "inputs": [{"min": [32, 4], "opt": [64, 4], "max": [128, 4]},
                 {"dtype": "int64", "min": [16], "opt": [32], "max": [64],
                  "range": [0, "in0[0]"], "distinct": true}]}]})"),
                                     "cases.json");
  const CheckCase& c = file.cases.at(0);
  std::mt19937_64 rng(7);
  for (Point point : {Point::Min, Point::Opt, Point::Max}) {
    const InputSpec spec = input_at(c, 1, point);
    EXPECT_EQ(spec.high, static_cast<double>(c.inputs[0].at(point)[0]));
    const HostTensor index = random_tensor(spec, rng);
    std::set<double> seen;
    for (std::size_t i = 0; i < static_cast<std::size_t>(index.numel()); ++i) {
      EXPECT_GE(index.at(i), 0.0);
      EXPECT_LT(index.at(i), spec.high);
      seen.insert(index.at(i));
    }
    EXPECT_EQ(static_cast<std::int64_t>(seen.size()), index.numel()) << point_name(point);
  }
  // A range far wider than the count draws without the whole range in memory.
  InputSpec wide = c.inputs[1];
  wide.opt = {1000};
  wide.high = 1e15;
  wide.high_extent.reset();
  const HostTensor sparse = random_tensor(wide, rng);
  std::set<double> values;
  for (std::size_t i = 0; i < 1000; ++i) values.insert(sparse.at(i));
  EXPECT_EQ(values.size(), 1000u);
}

// Outputs that change from run to run where an index input repeats: check names that input.
TEST(CheckTensors, FindsRepeatedIndicesOnlyInIntegerTensors) {
  EXPECT_TRUE(repeats_values({DType::Int64, {3}, bytes_of<std::int64_t>({4, 1, 4})}));
  EXPECT_FALSE(repeats_values({DType::Int64, {3}, bytes_of<std::int64_t>({4, 1, 5})}));
  EXPECT_TRUE(repeats_values({DType::Int32, {2}, bytes_of<std::int32_t>({0, 0})}));
  EXPECT_FALSE(repeats_values({DType::Float32, {2}, bytes_of<float>({0.5f, 0.5f})}));
}

TEST(CheckCaseFile, RefusesDistinctValuesTheRangeCannotHold) {
  EXPECT_EQ(error_of(R"({"cases": [{"name": "d", "inputs": [{"min": [8], "opt": [64]},
      {"dtype": "int32", "min": [16], "opt": [32], "range": [0, "in0[0]"], "distinct": true}]}]})"),
            "cases.json: case 'd'.inputs[1].distinct: 16 distinct values at the min shapes, but "
            "the range [0, 8) holds 8 integers");
  EXPECT_EQ(error_of(R"({"cases": [{"name": "x", "inputs": [{"shape": [8]},
      {"dtype": "int32", "shape": [4], "range": [0, "in2[0]"]}]}]})"),
            "cases.json: case 'x'.inputs[1].range: in2[0] names no input of the case (it has 2, "
            "absent ones excluded)");
  EXPECT_EQ(error_of(R"({"cases": [{"name": "a", "inputs": [{"shape": [8]},
      {"dtype": "int32", "shape": [4], "range": [0, "in0[1]"]}]}]})"),
            "cases.json: case 'a'.inputs[1].range: in0[1] names no axis of input 0 (rank 1)");
  EXPECT_EQ(error_of(R"({"cases": [{"name": "s", "inputs": [{"shape": [8]},
      {"dtype": "int32", "shape": [4], "range": [0, "rows"]}]}]})"),
            "cases.json: case 's'.inputs[1].range[1]: expected a number or an input's extent such "
            "as \"in0[1]\", got \"rows\"");
  EXPECT_EQ(error_of(R"({"cases": [{"name": "h", "inputs": [
      {"dtype": "int64", "shape": [2], "range": [0, 1e300], "distinct": true}]}]})"),
            "cases.json: case 'h'.inputs[0].distinct: the range's bounds must lie within -2^53 "
            "and 2^53");
  EXPECT_EQ(error_of(R"({"cases": [{"name": "v", "inputs": [
      {"dtype": "int32", "shape": [2], "values": [1, 1], "distinct": true}]}]})"),
            "cases.json: case 'v'.inputs[0].distinct: random values only (no \"values\", no "
            "\"zero_fraction\")");
}

TEST(CheckCompare, EqualInfinitiesMatchExactlyAndOppositeOnesDoNot) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const HostTensor expected{DType::Float32, {4}, bytes_of<float>({-inf, inf, nan, 2.0f})};
  EXPECT_EQ(compare(expected, expected, Tolerance{0, 0}), std::nullopt);
  const HostTensor flipped{DType::Float32, {4}, bytes_of<float>({inf, inf, nan, 2.0f})};
  const auto mismatch = compare(flipped, expected, Tolerance{1e-5, 1e-5});
  ASSERT_TRUE(mismatch.has_value());
  EXPECT_NE(mismatch->find("1 of 4 elements differ"), std::string::npos) << *mismatch;
}

TEST(CheckIsolation, ReportsHowTheChildEnded) {
  const auto aborted = run_isolated(
      [](ProgressChannel& channel) {
        channel.step_started("getOutputShapes");
        channel.log("error: about to abort");
        std::abort();
      },
      std::chrono::seconds(60));
  EXPECT_FALSE(aborted.finished);
  EXPECT_TRUE(aborted.inside_step);
  EXPECT_EQ(aborted.last_step, "getOutputShapes");
  EXPECT_EQ(aborted.termination, "signal 6, SIGABRT");
  EXPECT_EQ(aborted.log_since_result, std::vector<std::string>{"error: about to abort"});

  const auto exited =
      run_isolated([](ProgressChannel&) { std::exit(0); }, std::chrono::seconds(60));
  EXPECT_FALSE(exited.finished);
  EXPECT_EQ(exited.termination, "exit code 0");

  const auto finished = run_isolated(
      [](ProgressChannel& channel) {
        channel.result({{"answer", 42}});
      },
      std::chrono::seconds(60));
  EXPECT_TRUE(finished.finished);
  EXPECT_EQ((*finished.result)["answer"], 42);

  const auto hung = run_isolated(
      [](ProgressChannel& channel) {
        channel.step_started("configurePlugin");
        std::this_thread::sleep_for(std::chrono::hours(1));
      },
      std::chrono::seconds(1));
  EXPECT_TRUE(hung.timed_out);
  EXPECT_EQ(hung.last_step, "configurePlugin");
}

}  // namespace
}  // namespace autoplugin::check
