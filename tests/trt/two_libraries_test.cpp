// Two plugin libraries built with autoplugin (two_libraries/: the same op source, compiled with
// different namespaces and factors), loaded into one process as TensorRT loads them: each lists
// only its own creators, each plugin runs its own launcher, and a creator list handed out stays
// valid and unchanged when ops are registered later.
#include <autoplugin/autoplugin.h>
#include <autoplugin/trt/plugin.h>

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "capabilities.h"
#include "tensor_desc.h"

namespace ap = autoplugin;
namespace trt = autoplugin::trt;

namespace {

using GetCreators = nvinfer1::IPluginCreatorInterface* const* (*)(std::int32_t&);

struct Library {
  explicit Library(const char* path, int mode) : handle(dlopen(path, mode)) {}
  ~Library() {
    if (handle != nullptr) dlclose(handle);
  }
  std::vector<nvinfer1::IPluginCreatorV3One*> creators(
      nvinfer1::IPluginCreatorInterface* const** array = nullptr) const {
    auto get = reinterpret_cast<GetCreators>(dlsym(handle, "getCreators"));
    if (get == nullptr) return {};
    std::int32_t count = 0;
    auto* const* list = get(count);
    if (array != nullptr) *array = list;
    std::vector<nvinfer1::IPluginCreatorV3One*> result;
    for (std::int32_t i = 0; i < count; ++i) {
      result.push_back(static_cast<nvinfer1::IPluginCreatorV3One*>(list[i]));
    }
    return result;
  }
  void* handle;
};

std::string full_name(nvinfer1::IPluginCreatorV3One* creator) {
  return std::string(creator->getPluginNamespace()) + "::" + creator->getPluginName();
}

// Creates a plugin with `creator` and runs it on the CPU on {1, 2, 3, 4}.
std::vector<float> run(nvinfer1::IPluginCreatorV3One* creator) {
  nvinfer1::PluginFieldCollection none{};
  std::unique_ptr<nvinfer1::IPluginV3> plugin(
      creator->createPlugin("layer", &none, nvinfer1::TensorRTPhase::kRUNTIME));
  if (!plugin) return {};
  auto* runtime = trt::runtime_of(*plugin);
  const auto desc = trt::linear_desc(nvinfer1::DataType::kFLOAT, {4});
  if (runtime->onShapeChange(&desc, 1, &desc, 1) != 0) return {};
  std::vector<float> x{1, 2, 3, 4}, y(4, 0.0f);
  const void* inputs[] = {x.data()};
  void* outputs[] = {y.data()};
  if (runtime->enqueue(&desc, &desc, inputs, outputs, nullptr, nullptr) != 0) return {};
  return y;
}

TEST(TwoLibraries, LoadedTogetherEachListsAndRunsItsOwnOps) {
  // RTLD_GLOBAL for the first: its symbols are visible to the second, where a clash would bind
  // the second's registry or entry points to the first's.
  Library a(TWO_LIBRARIES_A, RTLD_NOW | RTLD_GLOBAL);
  ASSERT_NE(a.handle, nullptr) << dlerror();
  nvinfer1::IPluginCreatorInterface* const* a_array = nullptr;
  const auto a_creators = a.creators(&a_array);
  ASSERT_EQ(a_creators.size(), 2u);
  Library b(TWO_LIBRARIES_B, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(b.handle, nullptr) << dlerror();
  const auto b_creators = b.creators();
  ASSERT_EQ(b_creators.size(), 1u);
  EXPECT_EQ(full_name(b_creators[0]), "two_libraries_b::scale");
  // a's list, read through the array it handed out before b registered its op, is unchanged.
  std::vector<std::string> a_names;
  for (int i = 0; i < 2; ++i) {
    a_names.push_back(full_name(static_cast<nvinfer1::IPluginCreatorV3One*>(a_array[i])));
  }
  std::sort(a_names.begin(), a_names.end());
  EXPECT_EQ(a_names, (std::vector<std::string>{"two_libraries_a::copy", "two_libraries_a::scale"}));
  EXPECT_EQ(a.creators(), a_creators);
  // Each library's plugins run its own launcher: a doubles, b triples.
  for (auto* creator : a_creators) {
    if (full_name(creator) == "two_libraries_a::scale") {
      EXPECT_EQ(run(creator), (std::vector<float>{2, 4, 6, 8}));
    }
  }
  EXPECT_EQ(run(b_creators[0]), (std::vector<float>{3, 6, 9, 12}));
  // Entry points are each library's own.
  EXPECT_NE(dlsym(a.handle, "getCreators"), dlsym(b.handle, "getCreators"));
}

int copy_launcher(ap::In<float> x, ap::Out<float> y, ap::Stream) { return (void)x, (void)y, 0; }
ap::Shape same(ap::Shape x) { return x; }

// In one library: ops declared after TensorRT took the creator list (a library that registers
// more when something else loads) get a new list; the one TensorRT holds stays as it was.
TEST(TwoLibraries, CreatorListStaysValidAcrossLaterRegistrations) {
  AUTOPLUGIN_OP("later::first(Tensor x) -> Tensor", same, copy_launcher);
  const auto before = trt::creators();
  const std::vector<nvinfer1::IPluginCreatorInterface*> copy(before.begin(), before.end());
  AUTOPLUGIN_OP("later::second(Tensor x) -> Tensor", same, copy_launcher);
  const auto after = trt::creators();
  ASSERT_EQ(after.size(), before.size() + 1);
  EXPECT_NE(after.data(), before.data());
  for (std::size_t i = 0; i < copy.size(); ++i) {
    EXPECT_EQ(before[i], copy[i]);
    EXPECT_EQ(after[i], copy[i]);
  }
  EXPECT_STREQ(static_cast<nvinfer1::IPluginCreatorV3One*>(after.back())->getPluginName(),
               "second");
}

}  // namespace
