// Workspace and launch failures through the adapter on the CPU: a launcher that returns an error
// status or throws, a workspace function that throws or asks for an absurd size. Each becomes
// TensorRT's error code and one log line naming the op, the layer and the cause; none crashes,
// and no kernel runs with a workspace that was not provided.
#include <autoplugin/autoplugin.h>
#include <autoplugin/trt/plugin.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "capabilities.h"
#include "tensor_desc.h"
#include "test_logger.h"

namespace ap = autoplugin;
namespace trt = autoplugin::trt;
using ::testing::HasSubstr;

namespace {

int launches = 0;  // how many launchers ran

ap::Shape same(ap::Shape x) { return x; }

int error_status(ap::In<float>, ap::Out<float>, ap::Stream) { return ++launches, 700; }
AUTOPLUGIN_OP("failing::error_status(Tensor x) -> Tensor", same, error_status);

int throws_error(ap::In<float>, ap::Out<float>, ap::Stream) {
  ++launches;
  throw std::runtime_error("grid of 2^40 blocks is too large");
}
AUTOPLUGIN_OP("failing::throws_error(Tensor x) -> Tensor", same, throws_error);

int throws_anything(ap::In<float>, ap::Out<float>, ap::Stream) {
  ++launches;
  throw 42;
}
AUTOPLUGIN_OP("failing::throws_anything(Tensor x) -> Tensor", same, throws_anything);

int with_workspace(ap::In<float>, ap::Out<float>, ap::Workspace, ap::Stream) {
  return ++launches, 0;
}
ap::Dim workspace_throws(ap::Shape) { throw std::runtime_error("out of memory for the plan"); }
AUTOPLUGIN_OP("failing::workspace_throws(Tensor x) -> Tensor", same, with_workspace)
    .workspace(workspace_throws);
ap::Dim workspace_negative(ap::Shape x) { return x.numel() - 100; }
AUTOPLUGIN_OP("failing::workspace_negative(Tensor x) -> Tensor", same, with_workspace)
    .workspace(workspace_negative);
ap::Dim workspace_absurd(ap::Shape x) { return x.numel() * (std::int64_t{1} << 45); }
AUTOPLUGIN_OP("failing::workspace_absurd(Tensor x) -> Tensor", same, with_workspace)
    .workspace(workspace_absurd);
ap::Dim workspace_overflows(ap::Shape x) { return x.numel() * (std::int64_t{1} << 62); }
AUTOPLUGIN_OP("failing::workspace_overflows(Tensor x) -> Tensor", same, with_workspace)
    .workspace(workspace_overflows);

class Failures : public ::testing::Test {
 protected:
  void SetUp() override {
    trt::set_logger_finder(&finder);
    launches = 0;
  }
  void TearDown() override { trt::set_logger_finder(nullptr); }

  std::unique_ptr<nvinfer1::IPluginV3> create(std::string_view op) {
    auto* creator = trt::creator_for(op);
    if (creator == nullptr) return nullptr;
    nvinfer1::PluginFieldCollection none{};
    return std::unique_ptr<nvinfer1::IPluginV3>(
        creator->createPlugin("layer7", &none, nvinfer1::TensorRTPhase::kRUNTIME));
  }
  // Runs onShapeChange and enqueue on host buffers of [2, 3]; returns enqueue's status.
  std::int32_t enqueue(nvinfer1::IPluginV3& plugin) {
    auto* runtime = trt::runtime_of(plugin);
    const auto desc = trt::linear_desc(nvinfer1::DataType::kFLOAT, {2, 3});
    shape_change_status = runtime->onShapeChange(&desc, 1, &desc, 1);
    std::vector<float> x(6, 1.0f), y(6, 0.0f);
    std::vector<std::byte> workspace(64);
    const void* inputs[] = {x.data()};
    void* outputs[] = {y.data()};
    return runtime->enqueue(&desc, &desc, inputs, outputs, workspace.data(), nullptr);
  }
  // getWorkspaceSize at a profile of [2, 3].
  std::size_t workspace_size(nvinfer1::IPluginV3& plugin) {
    nvinfer1::DynamicPluginTensorDesc desc{};
    desc.desc = trt::linear_desc(nvinfer1::DataType::kFLOAT, {2, 3});
    desc.min = desc.opt = desc.max = desc.desc.dims;
    return trt::build_v2_of(plugin)->getWorkspaceSize(&desc, 1, &desc, 1);
  }
  std::string last_line() const {
    return finder.logger.lines.empty() ? "" : finder.logger.lines.back();
  }

  trt::testing::CapturingFinder finder;
  std::int32_t shape_change_status = 0;
};

TEST_F(Failures, LauncherErrorStatusIsAnErrorCodeAndALogLine) {
  auto plugin = create("failing::error_status");
  ASSERT_NE(plugin, nullptr);
  EXPECT_NE(enqueue(*plugin), 0);
  EXPECT_EQ(launches, 1);
  EXPECT_EQ(last_line(),
            "autoplugin: op 'failing::error_status' (layer 'layer7'), enqueue: launcher "
            "'error_status' returned status 700");
}

TEST_F(Failures, LauncherExceptionsAreErrorCodesAndLogLines) {
  auto plugin = create("failing::throws_error");
  ASSERT_NE(plugin, nullptr);
  EXPECT_NE(enqueue(*plugin), 0);
  EXPECT_THAT(last_line(), HasSubstr("enqueue: grid of 2^40 blocks is too large"));
  auto other = create("failing::throws_anything");
  ASSERT_NE(other, nullptr);
  EXPECT_NE(enqueue(*other), 0);
  EXPECT_THAT(last_line(), HasSubstr("enqueue: an unknown exception was thrown"));
  EXPECT_EQ(launches, 2);
}

TEST_F(Failures, ThrowingWorkspaceFunctionFailsBeforeAnyLaunch) {
  auto plugin = create("failing::workspace_throws");
  ASSERT_NE(plugin, nullptr);
  EXPECT_EQ(workspace_size(*plugin), 0u);
  EXPECT_THAT(last_line(),
              HasSubstr("getWorkspaceSize: workspace function threw: out of memory for the plan"));
  EXPECT_NE(enqueue(*plugin), 0);
  EXPECT_NE(shape_change_status, 0);
  EXPECT_EQ(launches, 0);
  EXPECT_THAT(last_line(), HasSubstr("enqueue without a successful onShapeChange"));
}

TEST_F(Failures, NegativeWorkspaceSizeIsRefused) {
  auto plugin = create("failing::workspace_negative");
  ASSERT_NE(plugin, nullptr);
  EXPECT_EQ(workspace_size(*plugin), 0u);
  EXPECT_THAT(last_line(), HasSubstr("workspace function returned -94 bytes"));
  EXPECT_NE(enqueue(*plugin), 0);
  EXPECT_EQ(launches, 0);
}

// 6 * 2^45 bytes = 192 TiB: no GPU has it; TensorRT would be asked to allocate it.
TEST_F(Failures, AbsurdWorkspaceSizeIsRefused) {
  auto plugin = create("failing::workspace_absurd");
  ASSERT_NE(plugin, nullptr);
  EXPECT_EQ(workspace_size(*plugin), 0u);
  EXPECT_THAT(last_line(), HasSubstr("workspace function returned 211106232532992 bytes (1 TiB "
                                     "or more): absurd"));
  EXPECT_NE(enqueue(*plugin), 0);
  EXPECT_EQ(launches, 0);
}

TEST_F(Failures, OverflowingWorkspaceSizeIsRefused) {
  auto plugin = create("failing::workspace_overflows");
  ASSERT_NE(plugin, nullptr);
  EXPECT_EQ(workspace_size(*plugin), 0u);
  EXPECT_THAT(last_line(), HasSubstr("op 'failing::workspace_overflows'"));
  EXPECT_NE(enqueue(*plugin), 0);
  EXPECT_EQ(launches, 0);
}

}  // namespace
