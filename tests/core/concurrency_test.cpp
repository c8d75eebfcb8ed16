// The core's half of plugin creation for every example-like op (tests/core/example_like_ops.cpp):
// looking ops up, decoding fields, binding attributes and encoding them again, from many
// threads at once. Run under ThreadSanitizer (scripts/test --tsan) it proves the absence of
// data races without TensorRT's headers; in any build it checks every thread's results.
#include <autoplugin/backend.h>
#include <autoplugin/op.h>

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "example_like_ops.h"

namespace ap = autoplugin;

namespace {

// Decodes an op's own serialized default attributes and encodes them again.
std::string round_trip(std::string_view name) {
  const ap::Op* op = ap::detail::find_op(name);
  if (op == nullptr) return "no op";
  std::vector<ap::AttrValue> defaults;
  for (const ap::Argument* a : op->attributes()) {
    defaults.push_back(a->default_value.value_or(ap::AttrValue(ap::IntList{1, 1, 2, 2})));
  }
  const ap::FieldList fields = op->encode_fields(defaults);
  const ap::DecodedAttributes decoded = op->decode_fields(fields.views());
  (void)op->bind_attributes(decoded.values);
  std::string text;
  for (const ap::AttrValue& value : decoded.values) text += ap::to_string(value) + ";";
  return text;
}

TEST(CoreConcurrency, FieldsRoundTripOnManyThreadsAtOnce) {
  std::vector<std::string> serial;
  for (std::string_view op : example_like::kOps) serial.push_back(round_trip(op));
  ASSERT_EQ(serial[1], "1.0;0;False;\"none\";") << "scale_shift's defaults";
  std::atomic<int> mismatches{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      for (int round = 0; round < 50; ++round) {
        for (std::size_t i = 0; i < example_like::kOps.size(); ++i) {
          const std::size_t k = (i + static_cast<std::size_t>(t)) % example_like::kOps.size();
          if (round_trip(example_like::kOps[k]) != serial[k]) ++mismatches;
        }
        if (ap::registry().ops().size() < example_like::kOps.size()) ++mismatches;
      }
    });
  }
  go = true;
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// A library loading on one thread declares ops while others look ops up (as TensorRT does from
// its own threads): every lookup sees a consistent list, and every new op appears.
void late_launcher(ap::In<float>, ap::Out<float>, ap::Stream) {}
ap::Shape late_shape(ap::Shape x) { return x; }

TEST(CoreConcurrency, OpsAreListedWhileAnotherThreadDeclaresMore) {
  constexpr int kLateOps = 40;
  std::atomic<bool> done{false};
  std::atomic<int> inconsistent{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      while (!done.load()) {
        std::size_t listed = 0;
        for (const ap::Op& op : ap::registry().ops()) {
          if (op.qualified_name().empty()) ++inconsistent;
          ++listed;
        }
        if (listed < example_like::kOps.size()) ++inconsistent;
      }
    });
  }
  for (int k = 0; k < kLateOps; ++k) {
    ap::registry().add(
        ap::detail::make_declaration("late::op" + std::to_string(k) + "(Tensor x) -> Tensor",
                                     "late_launcher", "test.cpp:1", late_shape, late_launcher));
    (void)ap::registry().ops();  // validated here, on the declaring thread
  }
  done = true;
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(inconsistent.load(), 0);
  for (int k = 0; k < kLateOps; ++k) {
    EXPECT_NE(ap::detail::find_op("late::op" + std::to_string(k)), nullptr) << k;
  }
}

}  // namespace
