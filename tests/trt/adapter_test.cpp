// The TensorRT adapter driven through TensorRT's documented plugin lifecycle on the CPU, with a
// recording expression builder instead of libnvinfer. Launchers here are host code, so enqueue
// runs too (on host buffers).
#include <autoplugin/autoplugin.h>
#include <autoplugin/backend/trt/convert.h>
#include <autoplugin/trt/plugin.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>

#include "capabilities.h"
#include "expr_builder.h"
#include "tensor_desc.h"
#include "test_logger.h"

namespace ap = autoplugin;
namespace trt = autoplugin::trt;
using nvinfer1::DataType;
using nvinfer1::PluginFieldType;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using trt::build_v2_of;
using trt::core_of;
using trt::linear_desc;
using trt::runtime_of;
using trt::testing::fixed_profile;

namespace {

// ---- ops under test ----------------------------------------------------------------------------

template <typename T>
int pad_launcher(ap::In<T> x, ap::Out<T> y, std::span<const std::int64_t> padding,
                 std::string_view mode, double scale, ap::Stream) {
  // A host "kernel": copies x into the top-left corner of y (times scale), zero elsewhere.
  for (std::int64_t i = 0; i < y.numel(); ++i) y.data()[i] = T(0);
  for (std::int64_t r = 0; r < x.size(0); ++r) {
    for (std::int64_t c = 0; c < x.size(1); ++c) {
      y.data()[r * y.size(1) + c] = static_cast<T>(x.data()[r * x.size(1) + c] * scale);
    }
  }
  (void)padding;
  return mode == "fail" ? 7 : 0;
}
ap::Shape pad_shape(ap::Shape x, std::span<const std::int64_t> padding, std::string_view, double) {
  ap::require(padding.size() == 2 * x.rank(), "padding has a pair per dimension");
  for (std::size_t i = 0; i < x.rank(); ++i) {
    ap::Dim& extent = x[x.rank() - 1 - i];
    ap::require(padding[2 * i] <= extent, "padding wraps at most once");
    extent += padding[2 * i] + padding[2 * i + 1];
  }
  return x;
}
AUTOPLUGIN_OP(
    "adapter_test::pad(Tensor x, int[] padding, str mode=\"zeros\", float scale=1.0) "
    "-> Tensor",
    pad_shape, pad_launcher<float>, pad_launcher<std::int32_t>)
    .validate([](std::span<const std::int64_t> padding, std::string_view, double) {
      if (padding.size() % 2 != 0) throw std::invalid_argument("padding comes in pairs");
    });

int nonzero_launcher(ap::In<float> x, ap::Out<std::int64_t> indices, ap::SizeOut count,
                     ap::Stream) {
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    if (x.data()[i] != 0.0f) indices.data()[n++] = i;
  }
  *count.data() = static_cast<std::int32_t>(n);
  return 0;
}
ap::Shape nonzero_shape(ap::Shape x) {
  return {ap::size_tensor(ap::floor_div(x.numel(), 2), x.numel()), 1};
}
AUTOPLUGIN_OP("adapter_test::nonzero(Tensor x) -> Tensor", nonzero_shape, nonzero_launcher);

int expand_launcher(ap::In<float> x, ap::Out<float> y, ap::Stream) { return (void)x, (void)y, 0; }
ap::Shape expand_shape(ap::Shape x, ap::Shape size) {
  ap::require(x.rank() == size.rank(), "size has the rank of x");
  return size;
}
AUTOPLUGIN_OP("adapter_test::expand(Tensor x, SymInt[] size) -> Tensor", expand_shape,
              expand_launcher);

ap::Shape repeat_shape(ap::Shape x, ap::Shape repeats) {
  ap::require(x.rank() == repeats.rank(), "one repeat count per dimension");
  for (std::size_t i = 0; i < x.rank(); ++i) {
    ap::require(repeats[i] >= 0, "repeat counts are non-negative");
    x[i] *= repeats[i];
  }
  return x;
}
AUTOPLUGIN_OP("adapter_test::repeat(Tensor x, SymInt[] repeats) -> Tensor", repeat_shape,
              expand_launcher);

// Each tactic leaves its mark, so a test can tell which one ran.
int fast_relu(ap::In<float> x, ap::Out<float> y, ap::Stream) {
  (void)x;
  y.data()[0] = 1.0f;
  return 0;
}
int exact_relu(ap::In<float> x, ap::Out<float> y, ap::Stream) {
  (void)x;
  y.data()[0] = 2.0f;
  return 0;
}
ap::Shape same(ap::Shape x) { return x; }
AUTOPLUGIN_OP("adapter_test::relu_(Tensor(a!) x) -> Tensor(a!)", same, fast_relu, exact_relu);

void void_launcher(ap::In<float> x, ap::Out<float> y, ap::Stream) { (void)x, (void)y; }
ap::Shape throwing_shape(ap::Shape x) {
  if (x.rank() == 3) throw std::runtime_error("rank 3 is not supported");
  return x;
}
AUTOPLUGIN_OP("adapter_test::fragile(Tensor x) -> Tensor", throwing_shape, void_launcher);

// ---- TensorRT-side helpers ---------------------------------------------------------------------

struct Field {
  std::string name;
  PluginFieldType type;
  std::vector<std::byte> bytes;
  std::int32_t length;
};

template <typename T>
Field field(std::string name, PluginFieldType type, std::vector<T> values) {
  Field f{std::move(name), type, std::vector<std::byte>(values.size() * sizeof(T)),
          static_cast<std::int32_t>(values.size())};
  if (!values.empty()) std::memcpy(f.bytes.data(), values.data(), f.bytes.size());
  return f;
}
Field chars(std::string name, std::string text) {
  std::vector<char> bytes(text.begin(), text.end());
  bytes.push_back('\0');
  return field(std::move(name), PluginFieldType::kCHAR, bytes);
}

// Owns a PluginFieldCollection over `fields`.
struct Collection {
  explicit Collection(std::vector<Field> owned) : fields(std::move(owned)) {
    for (const auto& f : fields) {
      plugin_fields.emplace_back(f.name.c_str(), f.bytes.empty() ? nullptr : f.bytes.data(), f.type,
                                 f.length);
    }
    collection.nbFields = static_cast<std::int32_t>(plugin_fields.size());
    collection.fields = plugin_fields.data();
  }
  std::vector<Field> fields;
  std::vector<nvinfer1::PluginField> plugin_fields;
  nvinfer1::PluginFieldCollection collection{};
};

// What TensorRT's ONNX parser sends for padding=[1, 1, 2, 2] (INTS -> INT32), mode, scale.
Collection onnx_pad_fields() {
  return Collection({field<std::int32_t>("padding", PluginFieldType::kINT32, {1, 1, 2, 2}),
                     chars("mode", "zeros"),
                     field<float>("scale", PluginFieldType::kFLOAT32, {2.0f})});
}

using PluginPtr = std::unique_ptr<nvinfer1::IPluginV3>;

// Serialized fields, copied out so they can be compared after the plugin is gone.
std::vector<Field> snapshot(const nvinfer1::PluginFieldCollection* fc) {
  std::vector<Field> copy;
  for (int i = 0; i < fc->nbFields; ++i) {
    const auto& f = fc->fields[i];
    Field c{f.name, f.type, {}, f.length};
    const std::size_t size = ap::field_byte_size(*trt::from_trt(f.type), 1);
    const auto* p = static_cast<const std::byte*>(f.data);
    if (p != nullptr) c.bytes.assign(p, p + size * std::size_t(f.length));
    copy.push_back(std::move(c));
  }
  return copy;
}
bool same_fields(const std::vector<Field>& a, const std::vector<Field>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].type != b[i].type || a[i].length != b[i].length ||
        a[i].bytes != b[i].bytes) {
      return false;
    }
  }
  return true;
}

class Adapter : public ::testing::Test {
 protected:
  void SetUp() override { trt::set_logger_finder(&finder); }
  void TearDown() override { trt::set_logger_finder(nullptr); }

  nvinfer1::IPluginCreatorV3One& creator(std::string_view op) {
    auto* c = trt::creator_for(op);
    EXPECT_NE(c, nullptr) << op;
    return *c;
  }
  PluginPtr create(std::string_view op, const nvinfer1::PluginFieldCollection* fc,
                   nvinfer1::TensorRTPhase phase = nvinfer1::TensorRTPhase::kBUILD) {
    return PluginPtr(creator(op).createPlugin("layer0", fc, phase));
  }

  trt::testing::CapturingFinder finder;
};

// ---- creators and identity ---------------------------------------------------------------------

TEST_F(Adapter, LibraryListsOneCreatorPerOp) {
  const auto creators = trt::creators();
  EXPECT_EQ(creators.size(), 6u);
  for (auto* c : creators) {
    EXPECT_STREQ(c->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE");
  }
  auto& pad = creator("adapter_test::pad");
  EXPECT_STREQ(pad.getPluginName(), "pad");
  EXPECT_STREQ(pad.getPluginNamespace(), "adapter_test");
  EXPECT_STREQ(pad.getPluginVersion(), "1");
}

TEST_F(Adapter, FieldNamesUseTheTypesTheOnnxParserSends) {
  const auto* names = creator("adapter_test::pad").getFieldNames();
  ASSERT_EQ(names->nbFields, 3);
  EXPECT_STREQ(names->fields[0].name, "padding");
  EXPECT_EQ(names->fields[0].type, PluginFieldType::kINT32);
  EXPECT_EQ(names->fields[0].length, 0);
  EXPECT_STREQ(names->fields[1].name, "mode");
  EXPECT_EQ(names->fields[1].type, PluginFieldType::kCHAR);
  EXPECT_STREQ(names->fields[2].name, "scale");
  EXPECT_EQ(names->fields[2].type, PluginFieldType::kFLOAT32);
  EXPECT_EQ(names->fields[2].length, 1);
}

TEST_F(Adapter, PluginHasAllThreeCapabilities) {
  auto fields = onnx_pad_fields();
  PluginPtr plugin = create("adapter_test::pad", &fields.collection);
  ASSERT_NE(plugin, nullptr) << finder.logger.all();
  EXPECT_STREQ(plugin->getInterfaceInfo().kind, "PLUGIN");
  EXPECT_STREQ(core_of(*plugin)->getInterfaceInfo().kind, "PLUGIN_V3ONE_CORE");
  EXPECT_STREQ(build_v2_of(*plugin)->getInterfaceInfo().kind, "PLUGIN_V3ONE_BUILD");
  EXPECT_EQ(build_v2_of(*plugin)->getInterfaceInfo().major, 2);
  EXPECT_STREQ(runtime_of(*plugin)->getInterfaceInfo().kind, "PLUGIN_V3ONE_RUNTIME");
  EXPECT_STREQ(core_of(*plugin)->getPluginName(), "pad");
}

// ---- build phase -------------------------------------------------------------------------------

TEST_F(Adapter, OutputShapesAreBuilderExpressionsWithConstantsFolded) {
  auto fields = onnx_pad_fields();
  PluginPtr plugin = create("adapter_test::pad", &fields.collection);
  auto* build = build_v2_of(*plugin);
  EXPECT_EQ(build->getNbOutputs(), 1);

  trt::RecordingExprBuilder exprs;
  const std::vector<std::int64_t> symbolic{-1, -1};
  nvinfer1::DimsExprs in = exprs.dims("x", symbolic);
  nvinfer1::DimsExprs out{};
  ASSERT_EQ(build->getOutputShapes(&in, 1, nullptr, 0, &out, 1, exprs.builder()), 0)
      << finder.logger.all();
  exprs.expire();
  ASSERT_EQ(out.nbDims, 2);
  // padding [1, 1, 2, 2]: the last dim grows by 2, the first by 4; one SUM each.
  EXPECT_EQ(exprs.operation_calls(), 2);
  const std::map<std::string, std::int64_t> values{{"x[0]", 5}, {"x[1]", 7}};
  EXPECT_EQ(exprs.evaluate(out.d[0], values), 9);
  EXPECT_EQ(exprs.evaluate(out.d[1], values), 9);

  // Known extents fold away entirely: no builder operations at all.
  trt::RecordingExprBuilder constant_exprs;
  const std::vector<std::int64_t> known{5, 7};
  nvinfer1::DimsExprs known_in = constant_exprs.dims("x", known);
  ASSERT_EQ(build->getOutputShapes(&known_in, 1, nullptr, 0, &out, 1, constant_exprs.builder()), 0);
  EXPECT_EQ(constant_exprs.operation_calls(), 0);
  EXPECT_TRUE(out.d[0]->isConstant());
  EXPECT_EQ(out.d[0]->getConstantValue(), 9);
  EXPECT_TRUE(exprs.violations().empty());
}

TEST_F(Adapter, DataDependentOutputDeclaresASizeTensor) {
  PluginPtr plugin = create("adapter_test::nonzero", nullptr);
  ASSERT_NE(plugin, nullptr) << finder.logger.all();
  auto* build = build_v2_of(*plugin);
  ASSERT_EQ(build->getNbOutputs(), 2);
  trt::RecordingExprBuilder exprs;
  const std::vector<std::int64_t> symbolic{-1, 6};
  nvinfer1::DimsExprs in = exprs.dims("x", symbolic);
  nvinfer1::DimsExprs out[2]{};
  ASSERT_EQ(build->getOutputShapes(&in, 1, nullptr, 0, out, 2, exprs.builder()), 0)
      << finder.logger.all();
  ASSERT_EQ(exprs.size_tensors().size(), 1u);
  const auto& size = exprs.size_tensors()[0];
  EXPECT_EQ(size.output, 1);
  EXPECT_EQ(exprs.evaluate(size.upper, {{"x[0]", 4}}), 24);
  EXPECT_EQ(exprs.evaluate(size.opt, {{"x[0]", 4}}), 12);
  EXPECT_EQ(out[0].nbDims, 2);
  EXPECT_EQ(out[0].d[0], size.size);
  EXPECT_TRUE(out[0].d[0]->isSizeTensor());
  EXPECT_EQ(out[1].nbDims, 0);

  DataType types[2];
  const DataType input = DataType::kFLOAT;
  ASSERT_EQ(build->getOutputDataTypes(types, 2, &input, 1), 0);
  EXPECT_EQ(types[0], DataType::kINT64);
  EXPECT_EQ(types[1], DataType::kINT32);  // TensorRT requires INT32 size tensors
}

TEST_F(Adapter, ShapeInputValuesBecomeOutputExtents) {
  PluginPtr plugin = create("adapter_test::expand", nullptr);
  auto* build = build_v2_of(*plugin);
  trt::RecordingExprBuilder exprs;
  const std::vector<std::int64_t> x{-1, 1};
  const std::vector<std::int64_t> size{-1, -1};
  nvinfer1::DimsExprs in = exprs.dims("x", x);
  nvinfer1::DimsExprs shape_in = exprs.dims("size", size);
  nvinfer1::DimsExprs out{};
  ASSERT_EQ(build->getOutputShapes(&in, 1, &shape_in, 1, &out, 1, exprs.builder()), 0)
      << finder.logger.all();
  EXPECT_EQ(out.d[0], shape_in.d[0]);
  EXPECT_EQ(out.d[1], shape_in.d[1]);
  EXPECT_EQ(exprs.operation_calls(), 0);
}

TEST_F(Adapter, FailedRequirementIsAnErrorCodeAndALogLine) {
  auto fields = onnx_pad_fields();
  PluginPtr plugin = create("adapter_test::pad", &fields.collection);
  trt::RecordingExprBuilder exprs;
  const std::vector<std::int64_t> rank3{2, 3, 4};
  nvinfer1::DimsExprs in = exprs.dims("x", rank3);
  nvinfer1::DimsExprs out{};
  EXPECT_NE(build_v2_of(*plugin)->getOutputShapes(&in, 1, nullptr, 0, &out, 1, exprs.builder()), 0);
  // The op, the layer and the method, each once.
  ASSERT_FALSE(finder.logger.lines.empty());
  EXPECT_EQ(finder.logger.lines.back(),
            "autoplugin: op 'adapter_test::pad' (layer 'layer0'), getOutputShapes: shape "
            "function: padding has a pair per dimension");
}

TEST_F(Adapter, UserExceptionsNeverEscape) {
  PluginPtr plugin = create("adapter_test::fragile", nullptr);
  trt::RecordingExprBuilder exprs;
  const std::vector<std::int64_t> rank3{2, 3, 4};
  nvinfer1::DimsExprs in = exprs.dims("x", rank3);
  nvinfer1::DimsExprs out{};
  EXPECT_EQ(build_v2_of(*plugin)->getOutputShapes(&in, 1, nullptr, 0, &out, 1, exprs.builder()),
            -1);
  EXPECT_THAT(finder.logger.all(), HasSubstr("shape function threw: rank 3 is not supported"));
  // Wrong counts from a misbehaving caller are errors, not crashes.
  EXPECT_EQ(build_v2_of(*plugin)->getOutputShapes(&in, 2, nullptr, 0, &out, 1, exprs.builder()),
            -1);
  EXPECT_THAT(finder.logger.all(), HasSubstr("expected 1 inputs, TensorRT passed 2"));
}

TEST_F(Adapter, FailedRequirementsOnShapeInputValuesMakeEveryExtentNegative) {
  PluginPtr plugin = create("adapter_test::repeat", nullptr);
  trt::RecordingExprBuilder exprs;
  const std::vector<std::int64_t> x{-1, 6};
  const std::vector<std::int64_t> repeats{-1, -1};
  nvinfer1::DimsExprs in = exprs.dims("x", x);
  nvinfer1::DimsExprs shape_in = exprs.dims("repeats", repeats);
  nvinfer1::DimsExprs out{};
  ASSERT_EQ(build_v2_of(*plugin)->getOutputShapes(&in, 1, &shape_in, 1, &out, 1, exprs.builder()),
            0)
      << finder.logger.all();
  const auto extents = [&](std::int64_t r0, std::int64_t r1) {
    const std::map<std::string, std::int64_t> values{
        {"x[0]", 2}, {"repeats[0]", r0}, {"repeats[1]", r1}};
    return std::vector<std::int64_t>{exprs.evaluate(out.d[0], values),
                                     exprs.evaluate(out.d[1], values)};
  };
  EXPECT_EQ(extents(3, 2), (std::vector<std::int64_t>{6, 12}));
  EXPECT_EQ(extents(-2, 2), (std::vector<std::int64_t>{-1, -1}));
  EXPECT_EQ(extents(3, -1), (std::vector<std::int64_t>{-1, -1}));
  EXPECT_THAT(finder.logger.all(),
              HasSubstr("requirements on shape-input values, enforced by making every output "
                        "extent -1 when one fails: repeats[0] >= 0 (\"repeat counts are "
                        "non-negative\")"));

  // The plugin's own guard, should an engine run with such an extent.
  auto* runtime = runtime_of(*plugin);
  const auto in_desc = linear_desc(DataType::kFLOAT, {2, 6});
  const auto out_desc = linear_desc(DataType::kFLOAT, {-1, -1});
  EXPECT_EQ(runtime->onShapeChange(&in_desc, 1, &out_desc, 1), -1);
  EXPECT_THAT(finder.logger.all(),
              HasSubstr("onShapeChange: output 'out' has extent -1 on axis 0: a requirement on "
                        "the values of 'repeats' failed"));
}

TEST_F(Adapter, AProfileWhoseExtremeShapesBreakARequirementFailsToConfigure) {
  auto fields = onnx_pad_fields();  // padding [1, 1, 2, 2]: x[0] must be at least 2
  PluginPtr plugin = create("adapter_test::pad", &fields.collection);
  auto* build = build_v2_of(*plugin);
  const auto profile = [](std::initializer_list<std::int64_t> min,
                          std::initializer_list<std::int64_t> max) {
    nvinfer1::DynamicPluginTensorDesc d{};
    d.desc = linear_desc(DataType::kFLOAT, {-1, 4});
    d.min = trt::dims_of(std::vector<std::int64_t>(min));
    d.opt = d.max = trt::dims_of(std::vector<std::int64_t>(max));
    return d;
  };
  nvinfer1::DynamicPluginTensorDesc out = fixed_profile(DataType::kFLOAT, {-1, 6});
  const auto good = profile({2, 4}, {16, 4});
  EXPECT_EQ(build->configurePlugin(&good, 1, &out, 1), 0) << finder.logger.all();
  const auto too_small = profile({1, 4}, {16, 4});
  EXPECT_EQ(build->configurePlugin(&too_small, 1, &out, 1), -1);
  EXPECT_THAT(finder.logger.all(),
              HasSubstr("configurePlugin: the profile's min shapes (x [1, 4]) break a requirement "
                        "of the op, so the engine would accept shapes the op refuses: shape "
                        "function: padding wraps at most once"));
}

TEST_F(Adapter, FormatCombinationsFollowTheDtypeTable) {
  auto fields = onnx_pad_fields();
  PluginPtr plugin = create("adapter_test::pad", &fields.collection);
  auto* build = build_v2_of(*plugin);
  nvinfer1::DynamicPluginTensorDesc io[2] = {fixed_profile(DataType::kINT32, {2, 3}),
                                             fixed_profile(DataType::kFLOAT, {4, 5})};
  EXPECT_TRUE(build->supportsFormatCombination(0, io, 1, 1));
  EXPECT_FALSE(build->supportsFormatCombination(1, io, 1, 1));  // int32 in, float out
  io[1].desc.type = DataType::kINT32;
  EXPECT_TRUE(build->supportsFormatCombination(1, io, 1, 1));
  io[0].desc.type = DataType::kHALF;
  EXPECT_FALSE(build->supportsFormatCombination(0, io, 1, 1));
  io[0].desc.type = DataType::kINT32;
  io[0].desc.format = nvinfer1::TensorFormat::kHWC8;
  EXPECT_FALSE(build->supportsFormatCombination(0, io, 1, 1));
  EXPECT_FALSE(build->supportsFormatCombination(2, io, 1, 1));
}

TEST_F(Adapter, TacticsComeFromLaunchersWithTheSameDtypes) {
  PluginPtr plugin = create("adapter_test::relu_", nullptr);
  auto* build = build_v2_of(*plugin);
  const auto in = fixed_profile(DataType::kFLOAT, {8});
  const auto out = fixed_profile(DataType::kFLOAT, {8});
  ASSERT_EQ(build->configurePlugin(&in, 1, &out, 1), 0);
  ASSERT_EQ(build->getNbTactics(), 2);
  std::int32_t tactics[2] = {};
  ASSERT_EQ(build->getValidTactics(tactics, 2), 0);
  EXPECT_THAT(tactics, ElementsAre(1, 2));
  EXPECT_EQ(build->getAliasedInput(0), 0);

  auto fields = onnx_pad_fields();
  PluginPtr pad = create("adapter_test::pad", &fields.collection);
  EXPECT_EQ(build_v2_of(*pad)->getNbTactics(), 0);
  EXPECT_EQ(build_v2_of(*pad)->getAliasedInput(0), -1);
  EXPECT_STREQ(build_v2_of(*pad)->getTimingCacheID(),
               "adapter_test::pad/1(padding=[1, 1, 2, 2],mode=\"zeros\",scale=2.0)");
}

TEST_F(Adapter, SetTacticAfterOnShapeChangeSwitchesTheLauncher) {
  PluginPtr plugin = create("adapter_test::relu_", nullptr);
  auto* runtime = runtime_of(*plugin);
  const auto in = linear_desc(DataType::kFLOAT, {1});
  std::vector<float> x{0};
  const void* inputs[] = {x.data()};
  void* outputs[] = {x.data()};
  ASSERT_EQ(runtime->setTactic(1), 0);
  ASSERT_EQ(runtime->onShapeChange(&in, 1, &in, 1), 0);
  ASSERT_EQ(runtime->enqueue(&in, &in, inputs, outputs, nullptr, nullptr), 0);
  EXPECT_EQ(x[0], 1.0f);
  ASSERT_EQ(runtime->setTactic(2), 0);
  ASSERT_EQ(runtime->enqueue(&in, &in, inputs, outputs, nullptr, nullptr), 0);
  EXPECT_EQ(x[0], 2.0f);
  EXPECT_EQ(runtime->setTactic(3), -1);
  EXPECT_THAT(finder.logger.all(), HasSubstr("no launcher for tactic 3 of dtypes (x float32, out "
                                             "float32); they have 2 tactics"));
}

// ---- serialization, clones, runtime
// --------------------------------------------------------------

TEST_F(Adapter, SerializedFieldsRecreateTheSamePlugin) {
  auto fields = onnx_pad_fields();
  PluginPtr built = create("adapter_test::pad", &fields.collection);
  const auto serialized = snapshot(runtime_of(*built)->getFieldsToSerialize());
  ASSERT_EQ(serialized.size(), 3u);
  EXPECT_EQ(serialized[0].type, PluginFieldType::kINT64);  // our exact form, not the parser's
  Collection stored(serialized);
  PluginPtr runtime =
      create("adapter_test::pad", &stored.collection, nvinfer1::TensorRTPhase::kRUNTIME);
  ASSERT_NE(runtime, nullptr) << finder.logger.all();
  EXPECT_TRUE(same_fields(snapshot(runtime_of(*runtime)->getFieldsToSerialize()), serialized));
  EXPECT_STREQ(build_v2_of(*runtime)->getTimingCacheID(), build_v2_of(*built)->getTimingCacheID());
}

TEST_F(Adapter, ClonesOutliveTheirSource) {
  auto fields = onnx_pad_fields();
  PluginPtr source = create("adapter_test::pad", &fields.collection);
  const auto expected = snapshot(runtime_of(*source)->getFieldsToSerialize());
  PluginPtr clone(source->clone());
  PluginPtr attached(runtime_of(*source)->attachToContext(nullptr));
  ASSERT_NE(clone, nullptr);
  ASSERT_NE(attached, nullptr);
  EXPECT_NE(clone.get(), source.get());
  source.reset();
  EXPECT_TRUE(same_fields(snapshot(runtime_of(*clone)->getFieldsToSerialize()), expected));

  // The attached clone runs: onShapeChange, then enqueue on host buffers.
  auto* runtime = runtime_of(*attached);
  const auto in = linear_desc(DataType::kFLOAT, {2, 2});
  const auto out = linear_desc(DataType::kFLOAT, {6, 4});
  ASSERT_EQ(runtime->onShapeChange(&in, 1, &out, 1), 0) << finder.logger.all();
  std::vector<float> x{1, 2, 3, 4}, y(24, -1.0f);
  const void* inputs[] = {x.data()};
  void* outputs[] = {y.data()};
  ASSERT_EQ(runtime->enqueue(&in, &out, inputs, outputs, nullptr, nullptr), 0)
      << finder.logger.all();
  EXPECT_EQ(y[0], 2.0f);  // scale 2.0 from the fields
  EXPECT_EQ(y[5], 8.0f);
  EXPECT_EQ(y[23], 0.0f);
}

TEST_F(Adapter, RuntimeErrorsBecomeErrorCodes) {
  auto fields = Collection({field<std::int64_t>("padding", PluginFieldType::kINT64, {0, 0, 0, 0}),
                            chars("mode", "fail")});
  PluginPtr plugin = create("adapter_test::pad", &fields.collection);
  ASSERT_NE(plugin, nullptr) << finder.logger.all();
  auto* runtime = runtime_of(*plugin);
  const auto in = linear_desc(DataType::kFLOAT, {2, 2});
  const auto out = linear_desc(DataType::kFLOAT, {2, 2});
  std::vector<float> x(4), y(4);
  const void* inputs[] = {x.data()};
  void* outputs[] = {y.data()};
  EXPECT_EQ(runtime->enqueue(&in, &out, inputs, outputs, nullptr, nullptr), -1);
  EXPECT_THAT(finder.logger.all(), HasSubstr("enqueue without a successful onShapeChange"));
  ASSERT_EQ(runtime->onShapeChange(&in, 1, &out, 1), 0);
  EXPECT_EQ(runtime->enqueue(&in, &out, inputs, outputs, nullptr, nullptr), -1);
  EXPECT_THAT(finder.logger.all(), HasSubstr("launcher 'pad_launcher<float>' returned status 7"));
  const auto half = linear_desc(DataType::kHALF, {2, 2});
  EXPECT_EQ(runtime->onShapeChange(&half, 1, &half, 1), -1);
  EXPECT_THAT(finder.logger.all(),
              HasSubstr("no launcher for dtypes (x float16, out float16); its launchers take (x "
                        "float32, out float32), (x int32, out int32). Add a launcher for these "
                        "dtypes to the op's declaration"));
  // A requirement that concrete extents decide is checked when the shapes arrive.
  const auto tiny = linear_desc(DataType::kFLOAT, {1, 1});
  auto wide = Collection({field<std::int64_t>("padding", PluginFieldType::kINT64, {3, 0, 0, 0})});
  PluginPtr wide_plugin = create("adapter_test::pad", &wide.collection);
  EXPECT_EQ(runtime_of(*wide_plugin)->onShapeChange(&tiny, 1, &tiny, 1), -1);
  EXPECT_THAT(finder.logger.all(), HasSubstr("padding wraps at most once"));
}

TEST_F(Adapter, SizeTensorOutputsReceiveTheCount) {
  PluginPtr plugin = create("adapter_test::nonzero", nullptr);
  auto* runtime = runtime_of(*plugin);
  const auto in = linear_desc(DataType::kFLOAT, {2, 3});
  const nvinfer1::PluginTensorDesc out[2] = {linear_desc(DataType::kINT64, {-1, 1}),
                                             linear_desc(DataType::kINT32, {})};
  ASSERT_EQ(runtime->onShapeChange(&in, 1, out, 2), 0) << finder.logger.all();
  std::vector<float> x{0, 1, 0, 2, 3, 0};
  std::vector<std::int64_t> indices(6, -1);
  std::int32_t count = -1;
  const void* inputs[] = {x.data()};
  void* outputs[] = {indices.data(), &count};
  ASSERT_EQ(runtime->enqueue(&in, out, inputs, outputs, nullptr, nullptr), 0);
  EXPECT_EQ(count, 3);
  EXPECT_THAT(std::vector(indices.begin(), indices.begin() + 3), ElementsAre(1, 3, 4));
}

// ---- bad fields
// ----------------------------------------------------------------------------------

struct BadFields {
  const char* case_name;
  std::vector<Field> fields;
  const char* expected;
};

void PrintTo(const BadFields& bad, std::ostream* out) { *out << bad.case_name; }

class BadFieldTest : public Adapter, public ::testing::WithParamInterface<BadFields> {};

TEST_P(BadFieldTest, CreatePluginFailsWithAMessageNamingOpAndField) {
  Collection fields(GetParam().fields);
  EXPECT_EQ(create("adapter_test::pad", &fields.collection), nullptr);
  EXPECT_THAT(finder.logger.all(),
              AllOf(HasSubstr("op 'adapter_test::pad'"), HasSubstr("createPlugin"),
                    HasSubstr(GetParam().expected)));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadFieldTest,
    ::testing::Values(
        BadFields{"WrongType",
                  {field<float>("padding", PluginFieldType::kFLOAT32, {1, 1})},
                  "field 'padding'"},
        BadFields{"MissingRequired", {chars("mode", "zeros")}, "padding"},
        BadFields{"WrongLength",
                  {field<std::int64_t>("padding", PluginFieldType::kINT64, {0, 0}),
                   field<double>("scale", PluginFieldType::kFLOAT64, {1.0, 2.0})},
                  "field 'scale'"},
        BadFields{"UnknownFieldType",
                  {Field{"padding", static_cast<PluginFieldType>(99), {}, 0}},
                  "field 'padding' has an unknown field type 99"},
        BadFields{"NullData", {Field{"padding", PluginFieldType::kINT64, {}, 2}}, "padding"},
        BadFields{"ModeNotText",
                  {field<std::int64_t>("padding", PluginFieldType::kINT64, {0, 0}),
                   field<std::int32_t>("mode", PluginFieldType::kINT32, {1})},
                  "field 'mode'"},
        BadFields{"RefusedByTheOpsCheck",
                  {field<std::int64_t>("padding", PluginFieldType::kINT64, {1, 1, 2})},
                  "createPlugin: attributes refused: padding comes in pairs"}),
    [](const ::testing::TestParamInfo<BadFields>& param) { return param.param.case_name; });

TEST_F(Adapter, MalformedCollectionsAreRejected) {
  nvinfer1::PluginFieldCollection no_array{1, nullptr};
  EXPECT_EQ(create("adapter_test::pad", &no_array), nullptr);
  EXPECT_THAT(finder.logger.all(), HasSubstr("1 fields and no field array"));
  nvinfer1::PluginField unnamed(nullptr, nullptr, PluginFieldType::kINT64, 0);
  nvinfer1::PluginFieldCollection nameless{1, &unnamed};
  EXPECT_EQ(create("adapter_test::pad", &nameless), nullptr);
  EXPECT_THAT(finder.logger.all(), HasSubstr("field 0 has no name"));
}

TEST_F(Adapter, UnknownFieldsAreWarnedAbout) {
  auto fields = Collection(
      {field<std::int64_t>("padding", PluginFieldType::kINT64, {0, 0}), chars("mod", "zeros")});
  EXPECT_NE(create("adapter_test::pad", &fields.collection), nullptr);
  EXPECT_THAT(finder.logger.all(), HasSubstr("'mod'"));
}

}  // namespace
