// Registering creators with a TensorRT plugin registry, and the creator array TensorRT keeps, when
// ops come from several translation units and more are declared later. A fake registry plays
// TensorRT's part (libnvinfer is not needed).
#include <autoplugin/autoplugin.h>
#include <autoplugin/backend/op.h>
#include <autoplugin/trt/plugin.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ap = autoplugin;
namespace trt = autoplugin::trt;
using ::testing::ElementsAre;

namespace {

// Records registrations and, like TensorRT, refuses a second creator with the same name, version
// and namespace.
class FakeRegistry final : public nvinfer1::IPluginRegistry {
 public:
  std::vector<std::string> registered;  // "namespace::name/version"

  bool registerCreator(nvinfer1::IPluginCreatorInterface& creator,
                       const char* const plugin_namespace) noexcept override {
    auto& v3 = static_cast<nvinfer1::IPluginCreatorV3One&>(creator);
    const std::string key =
        std::string(plugin_namespace) + "::" + v3.getPluginName() + "/" + v3.getPluginVersion();
    for (const auto& k : registered) {
      if (k == key) return false;
    }
    registered.push_back(key);
    return true;
  }

  void setErrorRecorder(nvinfer1::IErrorRecorder* const) noexcept override {}
  nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override { return nullptr; }
  bool isParentSearchEnabled() const override { return false; }
  void setParentSearchEnabled(bool const) override {}
  PluginLibraryHandle loadLibrary(const char*) noexcept override { return nullptr; }
  void deregisterLibrary(PluginLibraryHandle) noexcept override {}
  nvinfer1::IPluginCreatorInterface* const* getAllCreators(
      std::int32_t* const count) const noexcept override {
    *count = 0;
    return nullptr;
  }
  nvinfer1::IPluginCreatorInterface* getCreator(const char*, const char*,
                                                const char*) noexcept override {
    return nullptr;
  }
  bool deregisterCreator(const nvinfer1::IPluginCreatorInterface&) noexcept override {
    return false;
  }
  nvinfer1::IPluginResource* acquirePluginResource(const char*,
                                                   nvinfer1::IPluginResource*) noexcept override {
    return nullptr;
  }
  std::int32_t releasePluginResource(const char*) noexcept override { return -1; }
#if NV_TENSORRT_MAJOR >= 11
  nvinfer1::IPluginCreatorInterface* const* getAllCreatorsRecursive(
      std::int32_t* const count) noexcept override {
    *count = 0;
    return nullptr;
  }
#else
  // TensorRT 10's interface still has the deprecated IPluginCreator methods.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  bool registerCreator(nvinfer1::IPluginCreator&, const char* const) noexcept override {
    return false;
  }
  nvinfer1::IPluginCreator* const* getPluginCreatorList(
      std::int32_t* const count) const noexcept override {
    *count = 0;
    return nullptr;
  }
  nvinfer1::IPluginCreator* getPluginCreator(const char*, const char*,
                                             const char*) noexcept override {
    return nullptr;
  }
  bool deregisterCreator(const nvinfer1::IPluginCreator&) noexcept override { return false; }
#pragma GCC diagnostic pop
#endif
};

void copy_late(ap::In<float> x, ap::Out<float> y, ap::Stream) { (void)x, (void)y; }
ap::Shape same_late(ap::Shape x) { return x; }

// Declares an op after static initialization, as a library loaded later would.
void declare_late(const std::string& name) {
  ap::registry().add(
      ap::detail::make_declaration("registration_test::" + name + "(Tensor x) -> Tensor",
                                   "copy_late", "registration_test.cpp", same_late, copy_late));
}

std::vector<std::string> plugin_names(std::span<nvinfer1::IPluginCreatorInterface* const> all) {
  std::vector<std::string> names;
  for (auto* c : all)
    names.emplace_back(static_cast<nvinfer1::IPluginCreatorV3One*>(c)->getPluginName());
  return names;
}

TEST(Registration, RegistersOpsFromEveryTranslationUnitAndLaterOnesOnce) {
  FakeRegistry tensorrt;
  ASSERT_TRUE(trt::register_creators(tensorrt));
  // Both translation units' ops, whichever static initializer ran first.
  EXPECT_THAT(tensorrt.registered,
              ::testing::UnorderedElementsAre("registration_test::a/1", "registration_test::b/1"));
  declare_late("late");
  // A second call registers only the op declared since; TensorRT would refuse the others again.
  EXPECT_TRUE(trt::register_creators(tensorrt));
  ASSERT_EQ(tensorrt.registered.size(), 3u);
  EXPECT_EQ(tensorrt.registered.back(), "registration_test::late/1");
  // Another registry gets every op.
  FakeRegistry other;
  EXPECT_TRUE(trt::register_creators(other));
  EXPECT_EQ(other.registered.size(), 3u);
}

TEST(Registration, CreatorArraysHandedOutStayValid) {
  const auto before = trt::creators();
  ASSERT_FALSE(before.empty());
  const std::vector<nvinfer1::IPluginCreatorInterface*> entries(before.begin(), before.end());
  const std::vector<std::string> names = plugin_names(before);
  // Enough new ops that a growing array would have moved.
  for (int i = 0; i < 40; ++i) declare_late("more" + std::to_string(i));
  const auto after = trt::creators();
  ASSERT_EQ(after.size(), before.size() + 40);
  // What TensorRT kept from the first call: the same pointers, to the same creators.
  EXPECT_EQ(std::vector(before.begin(), before.end()), entries);
  EXPECT_EQ(plugin_names(before), names);
  EXPECT_EQ(plugin_names(after).back(), "more39");
  EXPECT_TRUE(std::equal(before.begin(), before.end(), after.begin()));
}

}  // namespace
