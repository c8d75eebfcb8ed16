// Absent `Tensor?` inputs through the TensorRT adapter, on the CPU: trailing ones left out by
// count, others declared by the reserved field autoplugin_absent_inputs; positions mapped in
// every build and runtime method; the field serialized; add_op's nullptr inputs.
#include <autoplugin/autoplugin.h>
#include <autoplugin/backend/op.h>
#include <autoplugin/backend/trt/convert.h>
#include <autoplugin/trt/network.h>
#include <autoplugin/trt/plugin.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <optional>

#include "capabilities.h"
#include "expr_builder.h"
#include "tensor_desc.h"
#include "test_logger.h"
#include "trt/layer_inputs.h"

namespace ap = autoplugin;
namespace trt = autoplugin::trt;
using nvinfer1::DataType;
using nvinfer1::PluginFieldType;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using trt::build_v2_of;
using trt::linear_desc;
using trt::runtime_of;
using trt::testing::fixed_profile;

namespace {

// What the launcher saw in its last call.
struct Seen {
  bool weight = false, bias = false;
  std::int64_t bias_elements = -1;
};
Seen seen;

// y = x * weight[0] + bias[0] (each optional), elementwise on the host.
template <typename T>
int affine(ap::In<T> x, ap::OptIn<T> weight, ap::OptIn<T> bias, ap::Out<T> y, ap::Workspace,
           ap::Stream) {
  seen = {weight.present(), bias.present(), bias.present() ? bias.numel() : -1};
  for (std::int64_t i = 0; i < y.numel(); ++i) {
    T v = x.data()[i];
    if (weight.present()) v = static_cast<T>(v * weight.data()[0]);
    if (bias.present() && bias.numel() > 0) v = static_cast<T>(v + bias.data()[0]);
    y.data()[i] = v;
  }
  return 0;
}
// The output's second extent is bias's, so a wrong position mapping shows in the shapes.
ap::Shape affine_shape(ap::Shape x, std::optional<ap::Shape> weight,
                       std::optional<ap::Shape> bias) {
  if (weight) ap::require((*weight)[0] == 1, "weight has one value");
  return {x[0], bias ? (*bias)[0] : ap::Dim(1)};
}
AUTOPLUGIN_OP("absent_test::affine(Tensor x, Tensor? weight=None, Tensor? bias=None) -> Tensor",
              affine_shape, affine<float>, affine<std::int32_t>)
    .workspace([](ap::Shape, std::optional<ap::Shape> weight, std::optional<ap::Shape> bias) {
      return (weight ? 1000 : 0) + (bias ? (*bias)[0] : ap::Dim(0));
    });

// The reserved field as TensorRT's ONNX parser sends an INTS attribute: INT32 values.
struct AbsentField {
  explicit AbsentField(std::vector<std::int32_t> indices) : values(std::move(indices)) {
    field = nvinfer1::PluginField("autoplugin_absent_inputs", values.data(),
                                  PluginFieldType::kINT32, std::int32_t(values.size()));
    collection = {1, &field};
  }
  std::vector<std::int32_t> values;
  nvinfer1::PluginField field;
  nvinfer1::PluginFieldCollection collection{};
};

using PluginPtr = std::unique_ptr<nvinfer1::IPluginV3>;

class AbsentInputs : public ::testing::Test {
 protected:
  void SetUp() override {
    trt::set_logger_finder(&finder);
    seen = {};
  }
  void TearDown() override { trt::set_logger_finder(nullptr); }

  PluginPtr create(const nvinfer1::PluginFieldCollection* fc,
                   nvinfer1::TensorRTPhase phase = nvinfer1::TensorRTPhase::kBUILD) {
    auto* creator = trt::creator_for("absent_test::affine");
    EXPECT_NE(creator, nullptr);
    return PluginPtr(creator->createPlugin("layer0", fc, phase));
  }

  // onShapeChange and enqueue with x = [2, 1] of 3.0 and the given passed inputs (float32).
  std::vector<float> run(nvinfer1::IPluginV3& plugin, std::vector<std::vector<float>> passed,
                         std::vector<std::vector<std::int64_t>> shapes,
                         std::vector<std::int64_t> out_shape) {
    std::vector<nvinfer1::PluginTensorDesc> in;
    std::vector<const void*> pointers;
    for (std::size_t p = 0; p < passed.size(); ++p) {
      in.push_back(linear_desc(DataType::kFLOAT, shapes[p]));
      pointers.push_back(passed[p].empty() ? nullptr : passed[p].data());
    }
    const auto out = linear_desc(DataType::kFLOAT, out_shape);
    std::int64_t count = 1;
    for (auto e : out_shape) count *= e;
    std::vector<float> y(std::size_t(count), -1.0f);
    void* outputs[] = {y.data()};
    auto* runtime = runtime_of(plugin);
    EXPECT_EQ(runtime->onShapeChange(in.data(), std::int32_t(in.size()), &out, 1), 0)
        << finder.logger.all();
    std::vector<std::byte> workspace(4096);
    EXPECT_EQ(
        runtime->enqueue(in.data(), &out, pointers.data(), outputs, workspace.data(), nullptr), 0)
        << finder.logger.all();
    return y;
  }

  trt::testing::CapturingFinder finder;
};

TEST_F(AbsentInputs, CreatorListsTheReservedField) {
  const auto* names = trt::creator_for("absent_test::affine")->getFieldNames();
  ASSERT_EQ(names->nbFields, 1);
  EXPECT_STREQ(names->fields[0].name, "autoplugin_absent_inputs");
  EXPECT_EQ(names->fields[0].type, PluginFieldType::kINT32);
  EXPECT_EQ(names->fields[0].length, 0);
}

TEST_F(AbsentInputs, TrailingInputLeftOutByCount) {
  PluginPtr plugin = create(nullptr);
  ASSERT_NE(plugin, nullptr) << finder.logger.all();
  auto* build = build_v2_of(*plugin);
  // x and weight passed; bias absent.
  const DataType types[] = {DataType::kINT32, DataType::kINT32};
  DataType out_type = DataType::kFLOAT;
  ASSERT_EQ(build->getOutputDataTypes(&out_type, 1, types, 2), 0) << finder.logger.all();
  EXPECT_EQ(out_type, DataType::kINT32);

  trt::RecordingExprBuilder exprs;
  const std::vector<std::int64_t> x_dims{-1, 1}, w_dims{1};
  nvinfer1::DimsExprs in[] = {exprs.dims("x", x_dims), exprs.dims("w", w_dims)};
  nvinfer1::DimsExprs out{};
  ASSERT_EQ(build->getOutputShapes(in, 2, nullptr, 0, &out, 1, exprs.builder()), 0)
      << finder.logger.all();
  exprs.expire();
  ASSERT_EQ(out.nbDims, 2);
  EXPECT_TRUE(out.d[1]->isConstant());
  EXPECT_EQ(out.d[1]->getConstantValue(), 1);  // bias absent

  nvinfer1::DynamicPluginTensorDesc io[] = {fixed_profile(DataType::kFLOAT, {2, 1}),
                                            fixed_profile(DataType::kFLOAT, {1}),
                                            fixed_profile(DataType::kFLOAT, {2, 1})};
  for (int pos = 0; pos < 3; ++pos) EXPECT_TRUE(build->supportsFormatCombination(pos, io, 2, 1));
  io[1].desc.type = DataType::kINT32;  // weight's dtype differs from x's: no launcher
  EXPECT_FALSE(build->supportsFormatCombination(1, io, 2, 1));
  io[1].desc.type = DataType::kFLOAT;
  ASSERT_EQ(build->configurePlugin(io, 2, io + 2, 1), 0) << finder.logger.all();
  EXPECT_EQ(build->getWorkspaceSize(io, 2, io + 2, 1), 1000u);

  const auto y = run(*plugin, {{3, 3}, {2}}, {{2, 1}, {1}}, {2, 1});
  EXPECT_TRUE(seen.weight);
  EXPECT_FALSE(seen.bias);
  EXPECT_THAT(y, ElementsAre(6.0f, 6.0f));
}

TEST_F(AbsentInputs, NonTrailingInputDeclaredByTheField) {
  AbsentField weight_absent({1});
  PluginPtr plugin = create(&weight_absent.collection);
  ASSERT_NE(plugin, nullptr) << finder.logger.all();
  auto* build = build_v2_of(*plugin);
  // TensorRT passes x and bias: position 1 is op input 2.
  trt::RecordingExprBuilder exprs;
  const std::vector<std::int64_t> x_dims{-1, 1}, b_dims{-1};
  nvinfer1::DimsExprs in[] = {exprs.dims("x", x_dims), exprs.dims("b", b_dims)};
  nvinfer1::DimsExprs out{};
  ASSERT_EQ(build->getOutputShapes(in, 2, nullptr, 0, &out, 1, exprs.builder()), 0)
      << finder.logger.all();
  EXPECT_EQ(out.d[1], in[1].d[0]);  // bias's extent, at TensorRT position 1
  exprs.expire();

  nvinfer1::DynamicPluginTensorDesc io[] = {fixed_profile(DataType::kFLOAT, {2, 1}),
                                            fixed_profile(DataType::kFLOAT, {1}),
                                            fixed_profile(DataType::kFLOAT, {2, 1})};
  EXPECT_TRUE(build->supportsFormatCombination(1, io, 2, 1));
  EXPECT_TRUE(build->supportsFormatCombination(2, io, 2, 1));
  ASSERT_EQ(build->configurePlugin(io, 2, io + 2, 1), 0) << finder.logger.all();
  EXPECT_EQ(build->getWorkspaceSize(io, 2, io + 2, 1), 1u);  // no weight; bias of 1
  EXPECT_STREQ(build->getTimingCacheID(), "absent_test::affine/1[absent weight]");

  const auto y = run(*plugin, {{3, 3}, {0.5f}}, {{2, 1}, {1}}, {2, 1});
  EXPECT_FALSE(seen.weight);
  EXPECT_TRUE(seen.bias);
  EXPECT_THAT(y, ElementsAre(3.5f, 3.5f));

  // Three tensors are one too many once weight is declared absent.
  const DataType types[] = {DataType::kFLOAT, DataType::kFLOAT, DataType::kFLOAT};
  DataType out_type{};
  EXPECT_NE(build->getOutputDataTypes(&out_type, 1, types, 3), 0);
  EXPECT_THAT(finder.logger.all(), HasSubstr("expected 2 inputs, TensorRT passed 3"));
}

TEST_F(AbsentInputs, TheFieldSurvivesSerialization) {
  AbsentField weight_absent({1});
  PluginPtr plugin = create(&weight_absent.collection);
  ASSERT_NE(plugin, nullptr);
  const auto* fc = runtime_of(*plugin)->getFieldsToSerialize();
  ASSERT_NE(fc, nullptr);
  ASSERT_EQ(fc->nbFields, 1);
  EXPECT_STREQ(fc->fields[0].name, "autoplugin_absent_inputs");
  EXPECT_EQ(fc->fields[0].type, PluginFieldType::kINT64);
  ASSERT_EQ(fc->fields[0].length, 1);
  EXPECT_EQ(static_cast<const std::int64_t*>(fc->fields[0].data)[0], 1);

  PluginPtr restored = create(fc, nvinfer1::TensorRTPhase::kRUNTIME);
  ASSERT_NE(restored, nullptr) << finder.logger.all();
  const auto y = run(*restored, {{3, 3}, {0.5f}}, {{2, 1}, {1}}, {2, 1});
  EXPECT_FALSE(seen.weight);
  EXPECT_THAT(y, ElementsAre(3.5f, 3.5f));
  // Nothing declared: nothing serialized.
  PluginPtr plain = create(nullptr);
  EXPECT_EQ(runtime_of(*plain)->getFieldsToSerialize()->nbFields, 0);
}

TEST_F(AbsentInputs, APresentTensorWithoutElementsIsPresent) {
  AbsentField weight_absent({1});
  PluginPtr plugin = create(&weight_absent.collection);
  // bias of 0 elements, passed as TensorRT may pass an empty tensor: without an address.
  run(*plugin, {{3, 3}, {}}, {{2, 1}, {0}}, {2, 0});
  EXPECT_TRUE(seen.bias);
  EXPECT_EQ(seen.bias_elements, 0);
}

TEST_F(AbsentInputs, ARequiredInputCannotBeAbsent) {
  AbsentField x_absent({0});
  EXPECT_EQ(create(&x_absent.collection), nullptr);
  EXPECT_THAT(finder.logger.all(),
              HasSubstr("field 'autoplugin_absent_inputs': input 0 ('x') is a Tensor, which "
                        "cannot be absent; only Tensor? inputs can"));
  AbsentField out_of_range({3});
  EXPECT_EQ(create(&out_of_range.collection), nullptr);
  EXPECT_THAT(finder.logger.all(), HasSubstr("3 is not an input index (the op has 3 tensor "
                                             "inputs)"));

  PluginPtr plugin = create(nullptr);
  DataType out_type{};
  EXPECT_NE(build_v2_of(*plugin)->getOutputDataTypes(&out_type, 1, nullptr, 0), 0);
  EXPECT_THAT(finder.logger.all(),
              HasSubstr("getOutputDataTypes: argument 'x' (Tensor) is required, but only 0 "
                        "tensors were passed"));
}

// add_op's pure part: which tensors the layer gets and what the field declares.
TEST_F(AbsentInputs, AddOpTakesNullptrForAbsentInputs) {
  const ap::Op* op = nullptr;
  for (const ap::Op& o : ap::registry().ops()) {
    if (o.qualified_name() == "absent_test::affine") op = &o;
  }
  ASSERT_NE(op, nullptr);
  // Distinct addresses standing for tensors; never dereferenced.
  alignas(8) char storage[3];
  auto* x = reinterpret_cast<nvinfer1::ITensor*>(&storage[0]);
  auto* w = reinterpret_cast<nvinfer1::ITensor*>(&storage[1]);
  auto* b = reinterpret_cast<nvinfer1::ITensor*>(&storage[2]);

  nvinfer1::ITensor* middle[] = {x, nullptr, b};
  const auto declared = trt::layer_inputs(*op, middle);
  EXPECT_THAT(declared.tensors, ElementsAre(x, b));
  EXPECT_THAT(declared.declared_absent, ElementsAre(1));

  nvinfer1::ITensor* trailing[] = {x, w, nullptr};
  const auto counted = trt::layer_inputs(*op, trailing);
  EXPECT_THAT(counted.tensors, ElementsAre(x, w));
  EXPECT_TRUE(counted.declared_absent.empty());

  nvinfer1::ITensor* both[] = {x, nullptr, nullptr};
  EXPECT_THAT(trt::layer_inputs(*op, both).tensors, ElementsAre(x));

  nvinfer1::ITensor* no_x[] = {nullptr, w, b};
  try {
    trt::layer_inputs(*op, no_x);
    FAIL() << "a nullptr for a required input was accepted";
  } catch (const ap::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("op 'absent_test::affine': argument 'x' (Tensor) is required, "
                                    "but its tensor is nullptr"));
  }
}

}  // namespace
