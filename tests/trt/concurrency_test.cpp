// Plugins of every example-like op (tests/core/example_like_ops.cpp) created, cloned (as TensorRT
// does per execution context), serialized, recreated and destroyed from many threads at once,
// through the adapter on the CPU. Run under ThreadSanitizer (scripts/test --tsan) it proves the
// absence of data races; in any build it checks every thread's results.
#include <autoplugin/trt/plugin.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "capabilities.h"
#include "example_like_ops.h"

namespace trt = autoplugin::trt;
using nvinfer1::PluginFieldType;

namespace {

class CountingLogger final : public nvinfer1::ILogger {
 public:
  void log(Severity severity, const char* message) noexcept override {
    std::lock_guard lock(mutex_);
    if (severity <= Severity::kERROR) errors.emplace_back(message);
  }
  std::vector<std::string> errors;

 private:
  std::mutex mutex_;
};
class Finder final : public nvinfer1::ILoggerFinder {
 public:
  nvinfer1::ILogger* findLogger() override { return &logger; }
  CountingLogger logger;
};

// The fields TensorRT's ONNX parser would send each op (none for ops without attributes).
struct OpFields {
  std::vector<std::int32_t> padding{1, 1, 2, 2};
  float scale = 2.0f;
  std::string rounding = "floor";
  std::string mode = "mean";
  std::vector<nvinfer1::PluginField> fields;
  nvinfer1::PluginFieldCollection collection{};

  explicit OpFields(std::string_view op) {
    if (op == "example_like::circular_pad") {
      fields.emplace_back("padding", padding.data(), PluginFieldType::kINT32, 4);
    } else if (op == "example_like::scale_shift") {
      fields.emplace_back("scale", &scale, PluginFieldType::kFLOAT32, 1);
      fields.emplace_back("rounding", rounding.c_str(), PluginFieldType::kCHAR,
                          static_cast<std::int32_t>(rounding.size() + 1));
    } else if (op == "example_like::embedding_bag") {
      fields.emplace_back("mode", mode.c_str(), PluginFieldType::kCHAR,
                          static_cast<std::int32_t>(mode.size() + 1));
    }
    collection.nbFields = static_cast<std::int32_t>(fields.size());
    collection.fields = fields.data();
  }
};

// The serialized fields as bytes, to compare plugins across threads.
std::string fields_text(const nvinfer1::PluginFieldCollection& fc) {
  std::string text;
  for (int i = 0; i < fc.nbFields; ++i) {
    const nvinfer1::PluginField& f = fc.fields[i];
    text += f.name;
    text += ':' + std::to_string(static_cast<int>(f.type)) + 'x' + std::to_string(f.length) + '=';
    const std::size_t element =
        f.type == PluginFieldType::kFLOAT64 || f.type == PluginFieldType::kINT64 ? 8
        : f.type == PluginFieldType::kCHAR || f.type == PluginFieldType::kINT8   ? 1
                                                                                 : 4;
    if (f.data != nullptr) {
      text.append(static_cast<const char*>(f.data), element * static_cast<std::size_t>(f.length));
    }
    text += ';';
  }
  return text;
}

using PluginPtr = std::unique_ptr<nvinfer1::IPluginV3>;

// One op's lifecycle (its serialized fields as text, or what failed), as TensorRT runs it for one
// layer in several execution contexts: create, clone per context, serialize, recreate from the
// fields, destroy (the source first).
std::string lifecycle(std::string_view op, int contexts) {
  auto* creator = trt::creator_for(op);
  if (creator == nullptr) return "no creator";
  OpFields fields(op);
  PluginPtr plugin(
      creator->createPlugin("layer", &fields.collection, nvinfer1::TensorRTPhase::kBUILD));
  if (!plugin) return "createPlugin failed";
  std::vector<PluginPtr> clones;
  for (int c = 0; c < contexts; ++c) {
    clones.emplace_back(trt::runtime_of(*plugin)->attachToContext(nullptr));
    if (!clones.back()) return "attachToContext failed";
  }
  const std::string expected = fields_text(*trt::runtime_of(*plugin)->getFieldsToSerialize());
  plugin.reset();
  for (PluginPtr& clone : clones) {
    const auto* serialized = trt::runtime_of(*clone)->getFieldsToSerialize();
    if (serialized == nullptr || fields_text(*serialized) != expected) return "fields differ";
    PluginPtr recreated(
        creator->createPlugin("layer", serialized, nvinfer1::TensorRTPhase::kRUNTIME));
    if (!recreated) return "recreating from the serialized fields failed";
    if (fields_text(*trt::runtime_of(*recreated)->getFieldsToSerialize()) != expected) {
      return "recreated fields differ";
    }
  }
  return "fields " + expected;
}

TEST(Concurrency, PluginsOfEveryOpLiveAndDieOnManyThreadsAtOnce) {
  Finder finder;
  trt::set_logger_finder(&finder);
  // The serial run: what every thread must see.
  std::vector<std::string> serial;
  for (std::string_view op : example_like::kOps) serial.push_back(lifecycle(op, 1));
  for (const std::string& result : serial) ASSERT_TRUE(result.starts_with("fields ")) << result;

  constexpr int kThreads = 8;
  constexpr int kRounds = 40;
  std::atomic<int> mismatches{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      for (int round = 0; round < kRounds; ++round) {
        // Threads start at different ops, so different ops overlap too.
        for (std::size_t i = 0; i < example_like::kOps.size(); ++i) {
          const std::size_t k = (i + static_cast<std::size_t>(t)) % example_like::kOps.size();
          if (lifecycle(example_like::kOps[k], 1 + round % 3) != serial[k]) ++mismatches;
        }
        // TensorRT may list the creators while others create plugins.
        if (trt::creators().size() < example_like::kOps.size()) ++mismatches;
      }
    });
  }
  go = true;
  for (std::thread& thread : threads) thread.join();
  trt::set_logger_finder(nullptr);
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_TRUE(finder.logger.errors.empty()) << finder.logger.errors.front();
}

// A plugin's creation that fails logs on many threads at once, through one logger.
TEST(Concurrency, FailedCreationsLogFromManyThreads) {
  Finder finder;
  trt::set_logger_finder(&finder);
  std::string rounding = "sideways";
  nvinfer1::PluginField field("rounding", rounding.c_str(), PluginFieldType::kCHAR,
                              static_cast<std::int32_t>(rounding.size() + 1));
  nvinfer1::PluginFieldCollection collection{1, &field};
  constexpr int kThreads = 8;
  std::atomic<int> created{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      auto* creator = trt::creator_for("example_like::scale_shift");
      for (int i = 0; i < 20; ++i) {
        PluginPtr plugin(
            creator->createPlugin("bad", &collection, nvinfer1::TensorRTPhase::kBUILD));
        if (plugin) ++created;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  trt::set_logger_finder(nullptr);
  EXPECT_EQ(created.load(), 0);
  EXPECT_EQ(finder.logger.errors.size(), std::size_t{kThreads * 20});
}

}  // namespace
