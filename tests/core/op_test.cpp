// Binding a schema to launchers and a shape function: validation messages, dtype table, output
// dtype rules, the format/dtype predicate, launches and shape evaluation.
#include <autoplugin/autoplugin.h>
#include <autoplugin/backend/describe.h>
#include <autoplugin/backend/op.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "op_internal.h"

namespace ap = autoplugin;
using ::testing::AllOf;
using ::testing::HasSubstr;

#define DECLARE(schema, shape, ...) \
  ::autoplugin::detail::make_declaration(schema, #__VA_ARGS__, "test.cpp:1", shape, __VA_ARGS__)

namespace {

// ---- launchers and shape functions used by the tests (CPU code: the core never runs kernels) ----
template <typename T>
void pad_launcher(ap::In<T> x, ap::Out<T> y, std::span<const std::int64_t> padding,
                  ap::Stream stream) {
  (void)x, (void)y, (void)padding, (void)stream;
}
ap::Shape pad_shape(ap::Shape x, std::span<const std::int64_t> padding) {
  for (std::size_t i = 0; i < padding.size() / 2; ++i) {
    x[x.rank() - 1 - i] += padding[2 * i] + padding[2 * i + 1];
  }
  return x;
}
ap::Shape identity_shape(ap::Shape x) { return x; }

template <typename T>
void copy_launcher(ap::In<T> x, ap::Out<T> y, ap::Stream) {
  for (std::int64_t i = 0; i < x.numel(); ++i) y.data()[i] = x.data()[i];
}
template <typename T>
void negate_launcher(ap::In<T> x, ap::Out<T> y, ap::Stream) {
  for (std::int64_t i = 0; i < x.numel(); ++i) y.data()[i] = -x.data()[i];
}

ap::TensorRef ref(void* data, ap::DType dtype, std::initializer_list<std::int64_t> extents) {
  ap::TensorRef r;
  r.data = data;
  r.dtype = dtype;
  r.rank = static_cast<std::int32_t>(extents.size());
  std::copy(extents.begin(), extents.end(), r.extents.begin());
  return r;
}

std::string build_error(const ap::OpDeclaration& d) {
  try {
    ap::Op::build(d);
  } catch (const ap::BindingError& e) {
    return e.what();
  }
  return "";
}

// ---- validation ------------------------------------------------------------------------------

TEST(OpBuild, ValidOpHasPositionsAndDtypeTable) {
  auto op = ap::Op::build(DECLARE("ex::pad(Tensor x, int[] padding) -> Tensor", pad_shape,
                                  pad_launcher<float>, pad_launcher<std::int32_t>));
  EXPECT_EQ(op.qualified_name(), "ex::pad");
  EXPECT_EQ(op.plugin_name(), "pad");
  EXPECT_EQ(op.plugin_namespace(), "ex");
  EXPECT_EQ(op.version(), "1");
  EXPECT_EQ(op.num_inputs(), 1);
  EXPECT_EQ(op.num_outputs(), 1);
  ASSERT_EQ(op.launchers().size(), 2u);
  EXPECT_EQ(op.launchers()[0].launcher->name, "pad_launcher<float>");
  EXPECT_EQ(op.launchers()[1].launcher->name, "pad_launcher<std::int32_t>");
  EXPECT_EQ(op.launchers()[1].dtypes, (std::vector{ap::DType::Int32, ap::DType::Int32}));
  EXPECT_EQ(op.output_dtype_rule(0).kind, ap::DTypeRule::Kind::SameAsInput);
  ASSERT_EQ(op.attributes().size(), 1u);
  EXPECT_EQ(op.attributes()[0]->name, "padding");
}

template <typename T>
void bad_launcher(ap::In<T> x, double padding, std::string_view mode, ap::Out<T> y, ap::Stream) {
  (void)x, (void)padding, (void)mode, (void)y;
}
ap::Shape bad_shape(ap::Shape x, double padding) {
  (void)padding;
  return x;
}

TEST(OpBuild, ReportsEveryMismatchInOneMessage) {
  const std::string message =
      build_error(DECLARE("ex::pad(Tensor x, Tensor? bias, int[] padding) -> (Tensor y, Tensor z)",
                          bad_shape, bad_launcher<float>));
  EXPECT_THAT(message, AllOf(HasSubstr("op 'ex::pad'"), HasSubstr("test.cpp:1"),
                             HasSubstr("launcher 'bad_launcher<float>' takes 1 input tensor "
                                       "(In<T>/OptIn<T>) but the schema declares 2 (x, bias)"),
                             HasSubstr("takes 1 output tensor (Out<T>) but the schema returns 2 "
                                       "(y, z)"),
                             HasSubstr("takes 2 attributes but the schema declares 1 (padding)"),
                             HasSubstr("shape function takes 2 parameters but the schema declares "
                                       "3 arguments")));
}

void unsized_scratch_launcher(ap::In<float> x, ap::Out<float> y, ap::Workspace scratch,
                              ap::Stream) {
  (void)x, (void)y, (void)scratch;
}
void counting_launcher(ap::In<float> x, ap::Out<float> y, ap::SizeOut count, ap::Stream) {
  (void)x, (void)y, (void)count;
}
ap::Shape no_parameters() { return {}; }

// Validation runs in passes (launchers, shape function, workspace, size tensors, dtype rules,
// formats, aliases); each adds to one list, so one message holds what every pass found, in order.
TEST(OpBuild, EveryPassReportsIntoOneMessage) {
  const std::string message =
      build_error(DECLARE("ex::all(Tensor(a!) x) -> Tensor y", no_parameters,
                          unsized_scratch_launcher, counting_launcher)
                      .output_dtype("x", ap::same_dtype_as("x"))
                      .formats("nope", {ap::Format::Linear}));
  EXPECT_EQ(
      message,
      "op 'ex::all' (declared at test.cpp:1) does not match its schema \"ex::all(Tensor(a!) "
      "x) -> Tensor y\":"
      "\n  - shape function takes 0 parameters but the schema declares 1 argument; it takes "
      "every schema argument, in order"
      "\n  - launcher 'unsized_scratch_launcher' takes an autoplugin::Workspace but the op "
      "declares "
      "no workspace size; chain .workspace(bytes_function) after the declaration"
      "\n  - launchers disagree on the number of SizeOut parameters ('unsized_scratch_launcher' "
      "takes 0, 'counting_launcher' takes 1)"
      "\n  - output_dtype names 'x', which is not an output"
      "\n  - formats names 'nope', which is not an input or output tensor"
      "\n  - input 'x' is written ('(a!)') but no output aliases it; declare the output as "
      "Tensor(a!)");
}

template <typename T>
void typed_launcher(ap::In<T> x, ap::Out<T> y, double padding, std::int64_t mode, ap::Stream) {
  (void)x, (void)y, (void)padding, (void)mode;
}
ap::Shape typed_shape(ap::Shape x, std::span<const std::int64_t>, std::string_view) { return x; }

TEST(OpBuild, NamesArgumentExpectedAndActualTypes) {
  const std::string message =
      build_error(DECLARE("ex::op(Tensor x, int[] padding, str mode) -> Tensor", typed_shape,
                          typed_launcher<float>, typed_launcher<ap::half_storage>));
  EXPECT_THAT(message,
              AllOf(HasSubstr("argument 'padding': schema type int[], launcher "
                              "'typed_launcher<float>' takes double (expected "
                              "std::span<const int64_t> or std::vector<int64_t>)"),
                    HasSubstr("argument 'mode': schema type str, launcher 'typed_launcher<float>' "
                              "takes int64_t (expected std::string_view or const std::string&)"),
                    HasSubstr("launcher 'typed_launcher<ap::half_storage>' takes double")));
}

template <typename T>
void optional_input_launcher(ap::In<T> x, ap::In<T> bias, ap::Out<T> y, ap::Stream) {
  (void)x, (void)bias, (void)y;
}
ap::Shape two_shapes(ap::Shape x, ap::Shape bias) {
  (void)bias;
  return x;
}

TEST(OpBuild, OptionalTensorNeedsOptInAndOptionalShape) {
  const std::string message = build_error(DECLARE("ex::op(Tensor x, Tensor? bias) -> Tensor",
                                                  two_shapes, optional_input_launcher<float>));
  EXPECT_THAT(message, HasSubstr("argument 'bias': schema type Tensor?, launcher "
                                 "'optional_input_launcher<float>' takes In<float32> (expected "
                                 "OptIn<T>)"));
  EXPECT_THAT(message, HasSubstr("argument 'bias': schema type Tensor?, shape function parameter "
                                 "2 has type Shape (expected std::optional<autoplugin::Shape>)"));
}

void optional_attr_launcher(ap::In<float> x, ap::Out<float> y, std::int64_t dim, ap::Stream) {
  (void)x, (void)y, (void)dim;
}
ap::Shape optional_attr_shape(ap::Shape x, std::optional<std::int64_t> dim) {
  (void)dim;
  return x;
}

TEST(OpBuild, NoneNeedsAnOptionalParameter) {
  const std::string message = build_error(DECLARE("ex::op(Tensor x, int? dim=None) -> Tensor",
                                                  optional_attr_shape, optional_attr_launcher));
  EXPECT_THAT(message, HasSubstr("argument 'dim': schema type int?, launcher "
                                 "'optional_attr_launcher' takes int64_t (expected std::optional "
                                 "of int64_t or int32_t)"));
}

TEST(OpBuild, MalformedSchemaNamesTheDeclaration) {
  const std::string message =
      build_error(DECLARE("ex::op(Tensor x -> Tensor", identity_shape, copy_launcher<float>));
  EXPECT_THAT(message, AllOf(HasSubstr("op declared at test.cpp:1"), HasSubstr("column")));
}

template <typename T, typename U>
void convert_launcher(ap::In<T> x, ap::Out<U> y, ap::Stream) {
  (void)x, (void)y;
}

TEST(OpBuild, OutputDtypeRulesFollowTheLaunchers) {
  auto same = ap::Op::build(DECLARE("ex::op(Tensor x) -> Tensor", identity_shape,
                                    convert_launcher<float, float>,
                                    convert_launcher<ap::half_storage, ap::half_storage>));
  EXPECT_EQ(same.output_dtype_rule(0).kind, ap::DTypeRule::Kind::SameAsInput);
  EXPECT_EQ(same.output_dtype_rule(0).argument, "x");

  auto fixed = ap::Op::build(DECLARE("ex::op(Tensor x) -> Tensor", identity_shape,
                                     convert_launcher<float, std::int64_t>,
                                     convert_launcher<ap::half_storage, std::int64_t>));
  EXPECT_EQ(fixed.output_dtype_rule(0).kind, ap::DTypeRule::Kind::Fixed);
  EXPECT_EQ(fixed.output_dtype_rule(0).dtype, ap::DType::Int64);

  // A quantizer: float8 e4m3 (TensorRT's FP8) out of every float dtype.
  auto fp8 = ap::Op::build(DECLARE("ex::op(Tensor x) -> Tensor", identity_shape,
                                   convert_launcher<float, ap::float8_e4m3_storage>,
                                   convert_launcher<ap::half_storage, ap::float8_e4m3_storage>));
  EXPECT_EQ(fp8.output_dtype_rule(0).kind, ap::DTypeRule::Kind::Fixed);
  EXPECT_EQ(fp8.output_dtype_rule(0).dtype, ap::DType::Float8E4M3);

  const std::string ambiguous = build_error(
      DECLARE("ex::op(Tensor x) -> Tensor", identity_shape, convert_launcher<float, std::int64_t>,
              convert_launcher<float, std::int32_t>, convert_launcher<ap::half_storage, float>));
  EXPECT_THAT(ambiguous, AllOf(HasSubstr("output 'out': the launchers give dtypes (int64 from "
                                         "'convert_launcher<float, std::int64_t>'"),
                               HasSubstr("declare .output_dtype(\"out\", ...)")));
}

void cast_launcher_f16(ap::In<float> x, ap::Out<ap::half_storage> y, ap::DType, ap::Stream) {
  (void)x, (void)y;
}
void cast_launcher_i32(ap::In<float> x, ap::Out<std::int32_t> y, ap::DType, ap::Stream) {
  (void)x, (void)y;
}
ap::Shape cast_shape(ap::Shape x, ap::DType) { return x; }

TEST(OpBuild, OutputDtypeFromScalarTypeAttribute) {
  auto d = DECLARE("ex::cast(Tensor x, ScalarType dtype) -> Tensor", cast_shape, cast_launcher_f16,
                   cast_launcher_i32);
  d.output_dtype("out", ap::dtype_from_attribute("dtype"));
  auto op = ap::Op::build(d);
  const std::vector<ap::DType> in{ap::DType::Float32};
  const std::vector<ap::AttrValue> to_int{ap::DType::Int32};
  EXPECT_EQ(op.output_dtype(0, in, to_int), ap::DType::Int32);
  // The predicate accepts exactly the dtype the attribute names.
  const std::vector<ap::PortDesc> ok{{ap::DType::Float32}, {ap::DType::Int32}};
  const std::vector<ap::PortDesc> wrong{{ap::DType::Float32}, {ap::DType::Float16}};
  EXPECT_TRUE(op.supports(1, ok, to_int));
  EXPECT_FALSE(op.supports(1, wrong, to_int));

  auto bad =
      DECLARE("ex::cast(Tensor x, ScalarType dtype) -> Tensor", cast_shape, cast_launcher_f16);
  bad.output_dtype("out", ap::dtype_from_attribute("x"))
      .output_dtype("nope", ap::fixed_dtype(ap::DType::Int8));
  EXPECT_THAT(build_error(bad),
              AllOf(HasSubstr("dtype rule names 'x', which is not a ScalarType attribute"),
                    HasSubstr("output_dtype names 'nope', which is not an output")));
}

TEST(OpBuild, SameDtypesBecomeTactics) {
  auto op =
      ap::Op::build(DECLARE("ex::op(Tensor x) -> Tensor", identity_shape, copy_launcher<float>,
                            negate_launcher<float>, copy_launcher<std::int32_t>));
  const std::vector f32{ap::DType::Float32, ap::DType::Float32};
  const std::vector i32{ap::DType::Int32, ap::DType::Int32};
  EXPECT_EQ(op.tactic_count(f32), 2);
  EXPECT_EQ(op.tactic_count(i32), 1);
  EXPECT_EQ(op.launchers()[0].tactic, 1);
  EXPECT_EQ(op.launchers()[1].tactic, 2);
  EXPECT_EQ(op.launchers()[2].tactic, 0);
  EXPECT_EQ(op.find_launcher(f32, 0)->launcher->name, "copy_launcher<float>");
  EXPECT_EQ(op.find_launcher(f32, 2)->launcher->name, "negate_launcher<float>");
  EXPECT_EQ(op.find_launcher(f32, 3), nullptr);
  EXPECT_EQ(op.find_launcher(std::vector{ap::DType::Float16, ap::DType::Float16}, 0), nullptr);
}

// A backend asked for dtypes no launcher takes says which dtypes the launchers do take.
TEST(OpBuild, MissingLauncherNamesTheDtypesTheLaunchersTake) {
  auto op =
      ap::Op::build(DECLARE("ex::op(Tensor x) -> Tensor y", identity_shape, copy_launcher<float>,
                            negate_launcher<float>, copy_launcher<std::int32_t>));
  const std::vector f32{ap::DType::Float32, ap::DType::Float32};
  EXPECT_EQ(op.launcher_for(f32, 2).launcher->name, "negate_launcher<float>");
  auto message = [&](std::vector<ap::DType> dtypes, std::int32_t tactic) -> std::string {
    try {
      op.launcher_for(dtypes, tactic);
    } catch (const ap::Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(message({ap::DType::Float16, ap::DType::Float16}, 0),
            "op 'ex::op': no launcher for dtypes (x float16, y float16); its launchers take "
            "(x float32, y float32), (x int32, y int32). Add a launcher for these dtypes to the "
            "op's declaration");
  EXPECT_EQ(message(f32, 3),
            "op 'ex::op': no launcher for tactic 3 of dtypes (x float32, y float32); they have 2 "
            "tactics");
}

template <typename T>
void inplace_launcher(ap::In<T> x, ap::Out<T> y, ap::Stream) {
  (void)x, (void)y;
}

TEST(OpBuild, InPlaceOutputsAliasTheirInput) {
  auto op = ap::Op::build(
      DECLARE("ex::relu_(Tensor(a!) x) -> Tensor(a!)", identity_shape, inplace_launcher<float>));
  EXPECT_EQ(op.aliased_input(0), 0);
  EXPECT_THAT(build_error(DECLARE("ex::relu_(Tensor(a) x) -> Tensor(b!)", identity_shape,
                                  inplace_launcher<float>)),
              HasSubstr("output 'out' aliases set 'b', which no input has"));
  EXPECT_THAT(build_error(DECLARE("ex::relu_(Tensor(a!) x) -> Tensor(a!)", identity_shape,
                                  convert_launcher<float, std::int32_t>)),
              HasSubstr("in-place output 'out' must have the dtype of input 'x'"));
}

TEST(OpBuild, FormatsAndExampleNamesAreChecked) {
  auto d = DECLARE("ex::op(Tensor x) -> Tensor", identity_shape, copy_launcher<float>);
  d.formats("y", {ap::Format::HWC8});
  EXPECT_THAT(build_error(d), HasSubstr("formats names 'y', which is not an input or output"));
}

// ---- registration ----------------------------------------------------------------------------

template <typename T>
void registered_launcher(ap::In<T> x, ap::Out<T> y, std::int32_t wrong, ap::Stream) {
  (void)x, (void)y, (void)wrong;
}
ap::Shape registered_shape(ap::Shape x, std::string_view) { return x; }

AUTOPLUGIN_OP("op_test::mismatched(Tensor x, str mode) -> Tensor", registered_shape,
              registered_launcher<float>);
AUTOPLUGIN_OP("op_test::good(Tensor x) -> Tensor", identity_shape, copy_launcher<float>)
    .version("3");

TEST(Registry, InvalidDeclarationsAreReportedWhenTheLibraryLoads) {
  EXPECT_NE(ap::find_op("op_test::good"), nullptr);
  EXPECT_EQ(ap::find_op("op_test::good")->version(), "3");
  EXPECT_EQ(ap::find_op("good"), ap::find_op("op_test::good"));  // plugin name
  EXPECT_EQ(ap::find_op("op_test::mismatched"), nullptr);
  std::string all;
  for (const auto& e : ap::registry().errors()) all += e + "\n";
  EXPECT_THAT(all, AllOf(HasSubstr("op 'op_test::mismatched' (declared at "),
                         HasSubstr("argument 'mode': schema type str, launcher "
                                   "'registered_launcher<float>' takes int32_t")));
}

TEST(Registry, SplitsLauncherNamesAtTopLevelCommas) {
  EXPECT_EQ(ap::detail::split_launcher_names(" f<float, int>, g , h<std::pair<a, b>>(x)"),
            (std::vector<std::string>{"f<float, int>", "g", "h<std::pair<a, b>>(x)"}));
  EXPECT_EQ(ap::detail::split_launcher_names("(f<float, int>), (a)(b)"),
            (std::vector<std::string>{"f<float, int>", "(a)(b)"}));
}

// ---- the format/dtype predicate -----------------------------------------------------------------

template <typename A, typename B, typename C>
void mixed_launcher(ap::In<A> a, ap::In<B> b, ap::Out<C> c, ap::Out<std::int64_t> idx, ap::Stream) {
  (void)a, (void)b, (void)c, (void)idx;
}
std::pair<ap::Shape, ap::Shape> mixed_shape(ap::Shape a, ap::Shape b) {
  (void)b;
  return {a, a};
}

TEST(Predicate, AnswersFromEarlierPositionsOnly) {
  auto d = DECLARE("ex::mixed(Tensor a, Tensor b) -> (Tensor c, Tensor idx)", mixed_shape,
                   (mixed_launcher<float, float, float>),
                   (mixed_launcher<ap::half_storage, float, ap::half_storage>),
                   (mixed_launcher<std::int32_t, std::int32_t, std::int32_t>));
  d.formats("a", {ap::Format::Linear, ap::Format::HWC8});
  auto op = ap::Op::build(d);
  const std::vector<ap::DType> all{ap::DType::Float32, ap::DType::Float16, ap::DType::BFloat16,
                                   ap::DType::Int32,   ap::DType::Int64,   ap::DType::Int8};
  const std::vector<ap::Format> formats{ap::Format::Linear, ap::Format::HWC8, ap::Format::CHW4};
  std::mt19937 rng(7);
  auto random_port = [&] {
    return ap::PortDesc{all[rng() % all.size()], formats[rng() % formats.size()]};
  };
  int accepted = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<ap::PortDesc> ports(4);
    for (auto& p : ports) p = random_port();
    const int pos = static_cast<int>(rng() % 4);
    const bool answer = op.supports(pos, ports, {});
    accepted += answer ? 1 : 0;
    for (int later = pos + 1; later < 4; ++later) ports[std::size_t(later)] = random_port();
    ASSERT_EQ(op.supports(pos, ports, {}), answer) << "position " << pos;
  }
  EXPECT_GT(accepted, 100);  // the property is not vacuous
}

TEST(Predicate, AcceptsExactlyTheLauncherCombinations) {
  auto op = ap::Op::build(DECLARE("ex::mixed(Tensor a, Tensor b) -> (Tensor c, Tensor idx)",
                                  mixed_shape, (mixed_launcher<float, float, float>),
                                  (mixed_launcher<ap::half_storage, float, ap::half_storage>)));
  using D = ap::DType;
  auto ports = [](D a, D b, D c, D idx) { return std::vector<ap::PortDesc>{{a}, {b}, {c}, {idx}}; };
  EXPECT_TRUE(op.supports(3, ports(D::Float16, D::Float32, D::Float16, D::Int64), {}));
  EXPECT_FALSE(op.supports(1, ports(D::Float16, D::Float16, D::Float16, D::Int64), {}));
  EXPECT_FALSE(op.supports(2, ports(D::Float16, D::Float32, D::Float32, D::Int64), {}));
  EXPECT_FALSE(op.supports(3, ports(D::Float32, D::Float32, D::Float32, D::Int32), {}));
  auto hwc = ports(D::Float32, D::Float32, D::Float32, D::Int64);
  hwc[0].format = ap::Format::HWC8;
  EXPECT_FALSE(op.supports(0, hwc, {}));
  EXPECT_FALSE(op.supports(4, hwc, {}));
  EXPECT_FALSE(op.supports(-1, hwc, {}));
}

// ---- launching -------------------------------------------------------------------------------

struct Recorded {
  std::int32_t scale = 0;
  std::string mode;
  std::vector<std::int64_t> padding;
  std::optional<double> eps;
  ap::Stream stream = nullptr;
};
Recorded recorded;

int scale_launcher(ap::In<float> x, std::int32_t scale, ap::Out<float> y, std::string_view mode,
                   ap::Stream stream, std::span<const std::int64_t> padding,
                   std::optional<double> eps) {
  recorded = {scale, std::string(mode), {padding.begin(), padding.end()}, eps, stream};
  for (std::int64_t i = 0; i < x.numel(); ++i) y.data()[i] = x.data()[i] * float(scale);
  return scale < 0 ? 7 : 0;
}
ap::Shape scale_shape(ap::Shape x, std::int64_t, std::string_view, std::span<const std::int64_t>,
                      std::optional<double>) {
  return x;
}

class Launch : public ::testing::Test {
 protected:
  ap::Op op = ap::Op::build(DECLARE(
      "ex::scale(Tensor x, int scale, str mode=\"fast\", int[] padding=[1, 2], float? eps=None) "
      "-> Tensor",
      scale_shape, scale_launcher));
};

TEST_F(Launch, PassesTensorsAttributesAndStream) {
  std::vector<float> x{1, 2, 3, 4, 5, 6}, y(6);
  const std::vector<ap::TensorRef> inputs{ref(x.data(), ap::DType::Float32, {2, 3})};
  const std::vector<ap::TensorRef> outputs{ref(y.data(), ap::DType::Float32, {2, 3})};
  auto fields = op.encode_fields(std::vector<ap::AttrValue>{std::int64_t{3}, std::string("exact"),
                                                            ap::IntList{4, 5}, ap::AttrValue{}});
  auto decoded = op.decode_fields(fields.views());
  auto* stream = reinterpret_cast<ap::Stream>(0x1234);
  ap::LaunchArgs args{inputs, outputs, {}, decoded.values, stream, {}, {}};
  EXPECT_EQ(op.launch(op.launchers()[0], args), 0);
  EXPECT_EQ(y, (std::vector<float>{3, 6, 9, 12, 15, 18}));
  EXPECT_EQ(recorded.scale, 3);
  EXPECT_EQ(recorded.mode, "exact");
  EXPECT_EQ(recorded.padding, (std::vector<std::int64_t>{4, 5}));
  EXPECT_FALSE(recorded.eps.has_value());
  EXPECT_EQ(recorded.stream, stream);
}

TEST_F(Launch, ReturnsTheLauncherStatus) {
  std::vector<float> x{1}, y(1);
  const std::vector<ap::TensorRef> inputs{ref(x.data(), ap::DType::Float32, {1})};
  const std::vector<ap::TensorRef> outputs{ref(y.data(), ap::DType::Float32, {1})};
  const std::vector<ap::AttrValue> attrs{std::int64_t{-1}, std::string("fast"), ap::IntList{}, 0.5};
  EXPECT_EQ(op.launch(op.launchers()[0], {inputs, outputs, {}, attrs, nullptr, {}, {}}), 7);
  EXPECT_EQ(recorded.eps, 0.5);
}

TEST_F(Launch, RefusesAMismatchedTensorDtype) {
  std::vector<float> x{1}, y(1);
  const std::vector<ap::TensorRef> inputs{ref(x.data(), ap::DType::Float16, {1})};
  const std::vector<ap::TensorRef> outputs{ref(y.data(), ap::DType::Float32, {1})};
  const std::vector<ap::AttrValue> attrs{std::int64_t{1}, std::string(), ap::IntList{}, 0.5};
  try {
    op.launch(op.launchers()[0], {inputs, outputs, {}, attrs, nullptr, {}, {}});
    FAIL() << "expected a TensorError";
  } catch (const ap::TensorError& e) {
    EXPECT_THAT(e.what(), HasSubstr("dtype float16 but the launcher expects float32"));
  }
}

TEST_F(Launch, DecodingChecksNarrowLauncherTypes) {
  const std::int64_t too_big = std::int64_t{1} << 40;
  ap::FieldList fields;
  fields.add("scale", ap::FieldType::Int64, &too_big, 1);
  try {
    op.decode_fields(fields.views());
    FAIL() << "expected a FieldError";
  } catch (const ap::FieldError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("op 'ex::scale'"),
                                HasSubstr("field 'scale': value 1099511627776 does not fit "
                                          "launcher parameter type int32_t")));
  }
}

// ---- shape functions -------------------------------------------------------------------------

ap::Shape throwing_shape(ap::Shape x) {
  if (x.rank() == 1) throw std::runtime_error("rank 1 is not supported");
  ap::require(x[0] > 1, "x needs more than one row");
  return x;
}

TEST(ShapeFunction, FailuresNameTheOp) {
  auto op =
      ap::Op::build(DECLARE("ex::op(Tensor x) -> Tensor", throwing_shape, copy_launcher<float>));
  ap::ShapeScope scope;
  const std::vector<ap::AttrValue> none;
  auto message = [&](std::vector<std::int64_t> extents) {
    try {
      op.output_shapes(std::vector{ap::Shape::concrete(extents)}, {}, none, scope);
    } catch (const ap::ShapeError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_THAT(message({5}),
              HasSubstr("op 'ex::op': shape function threw: rank 1 is not supported"));
  EXPECT_THAT(message({1, 5}), AllOf(HasSubstr("op 'ex::op': shape function:"),
                                     HasSubstr("x needs more than one row")));
  EXPECT_EQ(message({2, 5}), "");
}

TEST(ShapeFunction, SymbolicOutputsAndRequirements) {
  auto op = ap::Op::build(
      DECLARE("ex::pad(Tensor x, int[] padding) -> Tensor", pad_shape, pad_launcher<float>));
  ap::ShapeScope scope;
  const std::vector<ap::AttrValue> attrs{ap::IntList{1, 1, 2, 3}};
  auto out = op.output_shapes(std::vector{ap::Shape::symbolic_input(0, 3, "x")}, {}, attrs, scope);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(ap::to_string(out[0]), "[x[0], x[1] + 5, x[2] + 2]");
  auto concrete = op.output_shapes(
      std::vector{ap::Shape::concrete(std::vector<std::int64_t>{4, 5, 6})}, {}, attrs, scope);
  EXPECT_EQ(concrete[0].values(), (std::vector<std::int64_t>{4, 10, 8}));
}

ap::Shape nonzero_shape(ap::Shape x) {
  return {ap::size_tensor(ap::floor_div(x.numel(), 2), x.numel()), x.rank()};
}
void nonzero_launcher(ap::In<float> x, ap::Out<std::int64_t> y, ap::SizeOut count, ap::Stream) {
  (void)x, (void)y, (void)count;
}
void nonzero_without_count(ap::In<float> x, ap::Out<std::int64_t> y, ap::Stream) {
  (void)x, (void)y;
}

TEST(ShapeFunction, SizeTensorsBecomeExtraOutputs) {
  auto op =
      ap::Op::build(DECLARE("ex::nonzero(Tensor x) -> Tensor", nonzero_shape, nonzero_launcher));
  EXPECT_EQ(op.num_outputs(), 2);
  EXPECT_EQ(op.output_name(1), "out_size0");
  EXPECT_EQ(op.output_dtype(1, std::vector{ap::DType::Float32}, {}), ap::DType::Int32);
  ap::ShapeScope scope;
  auto out = op.output_shapes(std::vector{ap::Shape::symbolic_input(0, 2, "x")}, {}, {}, scope);
  ASSERT_EQ(scope.size_tensors().size(), 1u);
  EXPECT_EQ(ap::to_string(scope.size_tensors()[0].upper), "x[0] * x[1]");
  EXPECT_EQ(out[0].rank(), 2u);

  auto mismatch = ap::Op::build(
      DECLARE("ex::nonzero(Tensor x) -> Tensor", nonzero_shape, nonzero_without_count));
  ap::ShapeScope other;
  EXPECT_THROW(
      {
        try {
          mismatch.output_shapes(std::vector{ap::Shape::symbolic_input(0, 2, "x")}, {}, {}, other);
        } catch (const ap::ShapeError& e) {
          EXPECT_THAT(e.what(), HasSubstr("declared 1 size tensor but the launchers take 0 "
                                          "SizeOut parameters"));
          throw;
        }
      },
      ap::ShapeError);
}

ap::Shape reshape_shape(ap::Shape x, ap::Shape size, ap::Dim fill) {
  ap::require(x.numel() == size.numel(), "size keeps the number of elements");
  size.push_back(fill);
  return size;
}
void reshape_launcher(ap::In<float> x, ap::Out<float> y, ap::Stream) { (void)x, (void)y; }

TEST(ShapeFunction, ShapeInputsAreSymbolic) {
  auto op = ap::Op::build(DECLARE("ex::reshape(Tensor x, SymInt[] size, SymInt fill) -> Tensor",
                                  reshape_shape, reshape_launcher));
  EXPECT_EQ(op.num_shape_inputs(), 2);
  EXPECT_TRUE(op.attributes().empty());
  ap::Shape size{ap::Dim::shape_value(0, 0, "size[0]"), ap::Dim::shape_value(0, 1, "size[1]")};
  ap::Shape fill{ap::Dim::shape_value(1, 0, "fill")};
  ap::ShapeScope scope;
  auto out = op.output_shapes(std::vector{ap::Shape::symbolic_input(0, 1, "x")},
                              std::vector{size, fill}, {}, scope);
  EXPECT_EQ(ap::to_string(out[0]), "[size[0], size[1], fill]");
  ASSERT_EQ(scope.requirements().size(), 1u);
  EXPECT_EQ(scope.requirements()[0].message, "size keeps the number of elements");
}

void reshape_launcher_taking_int(ap::In<float> x, ap::Out<float> y, std::int64_t fill, ap::Stream) {
  (void)x, (void)y, (void)fill;
}

// A launcher never receives shape inputs: an integer for one is not taken for an attribute.
TEST(OpBuild, LauncherTakingAnIntegerForASymIntIsToldItDoesNot) {
  EXPECT_THAT(
      build_error(DECLARE("ex::reshape(Tensor x, SymInt[] size, SymInt fill) -> Tensor",
                          reshape_shape, reshape_launcher_taking_int)),
      HasSubstr("takes 1 attribute but the schema declares 0 (none); a launcher takes every "
                "attribute, in schema order; launchers do not take SymInt or SymInt[] arguments "
                "(only the shape function does, as Dim and Shape): their values are the outputs' "
                "extents, Out<T>::size(axis)"));
}

TEST(Describe, ShowsPluginFieldsDtypesAndShapes) {
  auto d = DECLARE("ex::pad(Tensor x, int[] padding, str mode=\"circular\") -> Tensor",
                   ([](ap::Shape x, std::span<const std::int64_t> p, std::string_view) {
                     return pad_shape(std::move(x), p);
                   }),
                   ([](ap::In<float>, ap::Out<float>, std::span<const std::int64_t>,
                       std::string_view, ap::Stream) {}));
  d.example(ap::Example().rank("x", 2).attr("padding", ap::IntList{2, 2}));
  const std::string text = ap::describe(ap::Op::build(d));
  EXPECT_THAT(text, AllOf(HasSubstr("name \"pad\", namespace \"ex\", version \"1\""),
                          HasSubstr("padding        int[]        required"),
                          HasSubstr("mode           str          default \"circular\""),
                          HasSubstr("ONNX INTS"), HasSubstr("x rank 2, padding=[2, 2]"),
                          HasSubstr("out = [x[0], x[1] + 4]"), HasSubstr("SUM(x[1], 4)")));
}

// Output shapes print as the shape function wrote them; the builder calls show the lowering.
TEST(Describe, ShowsSelectAsWritten) {
  auto d = DECLARE("ex::clip(Tensor x) -> Tensor",
                   ([](ap::Shape x) { return ap::Shape{ap::select(x[0] < 4, x[1], x[0])}; }),
                   copy_launcher<float>);
  d.example(ap::Example().rank("x", 2));
  const std::string text = ap::describe(ap::Op::build(d));
  EXPECT_THAT(text, AllOf(HasSubstr("out = [select(x[0] < 4, x[1], x[0])]"),
                          HasSubstr("t0 = LESS(x[0], 4)"), HasSubstr("SUB(1, t0)")));
}

// Without an example, ranks the shape function refuses at the default (4) are searched for.
TEST(Describe, FindsRanksTheShapeFunctionAccepts) {
  auto d = DECLARE("ex::norm(Tensor x, Tensor weight, SymInt[] repeats) -> Tensor",
                   ([](ap::Shape x, ap::Shape weight, ap::Shape repeats) {
                     ap::require(weight.rank() == 1, "weight is 1-D");
                     ap::require(repeats.rank() == x.rank(), "one repeat per dimension of x");
                     ap::require(weight[0] == x.at(-1), "weight matches x's last extent");
                     return x;
                   }),
                   ([](ap::In<float>, ap::In<float>, ap::Out<float>, ap::Stream) {}));
  const std::string text = ap::describe(ap::Op::build(d));
  EXPECT_THAT(text, AllOf(HasSubstr("(example: x rank 4, weight rank 1, repeats length 4; ranks "
                                    "the shape function accepts, found by trying)"),
                          HasSubstr("out = [x[0], x[1], x[2], x[3]]"),
                          HasSubstr("requires weight[0] == x[3]")));
}

}  // namespace

namespace {

void scratch_launcher(ap::In<float> x, ap::Out<float> y, ap::Workspace scratch, ap::Stream) {
  y.data()[0] = static_cast<float>(scratch.size) + x.data()[0];
}
ap::Dim scratch_bytes(ap::Shape x) { return x.numel() * 4; }

TEST(Workspace, SizedByTheDeclaredFunctionAndPassedToTheLauncher) {
  auto d = DECLARE("ex::op(Tensor x) -> Tensor", identity_shape, scratch_launcher);
  EXPECT_THAT(build_error(d), HasSubstr("takes an autoplugin::Workspace but the op declares no "
                                        "workspace size"));
  d.workspace(scratch_bytes);
  auto op = ap::Op::build(d);
  ASSERT_TRUE(op.has_workspace());
  const std::vector<ap::Shape> inputs{ap::Shape::concrete(std::vector<std::int64_t>{2, 3})};
  EXPECT_EQ(op.workspace_size(inputs, {}, {}), 24u);
  const std::vector<ap::Shape> symbolic{ap::Shape::symbolic_input(0, 2, "x")};
  EXPECT_THROW(op.workspace_size(symbolic, {}, {}), ap::ShapeError);

  std::vector<float> x{1}, y(1);
  const std::vector<ap::TensorRef> in{ref(x.data(), ap::DType::Float32, {1})};
  const std::vector<ap::TensorRef> out{ref(y.data(), ap::DType::Float32, {1})};
  ap::LaunchArgs args{in, out, {}, {}, nullptr, {nullptr, 24}, {}};
  EXPECT_EQ(op.launch(op.launchers()[0], args), 0);
  EXPECT_EQ(y[0], 25.0f);

  auto unused = DECLARE("ex::op(Tensor x) -> Tensor", identity_shape, copy_launcher<float>);
  unused.workspace(scratch_bytes);
  EXPECT_THAT(build_error(unused), HasSubstr("declares a workspace size but no launcher takes"));
}

// Launchers that handle only some shapes: a row kernel for rows of at most 4 elements, and one
// for even rows; the op falls back, in tactic order, to one that applies.
int ran_launcher = 0;
ap::Launch short_rows(ap::In<float> x, ap::Out<float> y, ap::Stream) {
  if (x.size(-1) > 4) return ap::Launch::NotApplicable;
  ran_launcher = 1;
  y.data()[0] = x.data()[0];
  return ap::Launch::Launched;
}
ap::Launch even_rows(ap::In<float> x, ap::Out<float> y, ap::Stream) {
  if (x.size(-1) % 2 != 0) return ap::Launch::NotApplicable;
  ran_launcher = 2;
  y.data()[0] = x.data()[0];
  return ap::Launch::Launched;
}

TEST(Tactics, LaunchersThatDoNotApplyFallBackInTacticOrder) {
  auto op =
      ap::Op::build(DECLARE("ex::op(Tensor x) -> Tensor", identity_shape, short_rows, even_rows));
  ASSERT_EQ(op.launchers().size(), 2u);
  EXPECT_EQ(op.launchers()[1].tactic, 2);
  EXPECT_FALSE(op.launchers()[0].launcher->returns_status);
  std::vector<float> x(12, 1.0f), y(12);
  const auto run = [&](std::size_t tactic, std::initializer_list<std::int64_t> extents) {
    const std::vector<ap::TensorRef> in{ref(x.data(), ap::DType::Float32, extents)};
    const std::vector<ap::TensorRef> out{ref(y.data(), ap::DType::Float32, extents)};
    const ap::LaunchArgs args{in, out, {}, {}, nullptr, {}, {}};
    const ap::LauncherEntry* ran = nullptr;
    ran_launcher = 0;
    EXPECT_EQ(op.launch(op.launchers()[tactic], args, &ran), 0);
    return ran == nullptr ? -1 : ran->tactic * 10 + ran_launcher;
  };
  EXPECT_EQ(run(0, {2, 3}), 11);  // the chosen tactic applies
  EXPECT_EQ(run(1, {2, 3}), 11);  // tactic 2 does not (odd rows): tactic 1 runs
  EXPECT_EQ(run(1, {2, 6}), 22);
  EXPECT_EQ(run(0, {2, 6}), 22);  // rows past 4: tactic 2
  try {
    run(0, {1, 7});
    ADD_FAILURE() << "no launcher applies to rows of 7";
  } catch (const ap::Error& e) {
    EXPECT_STREQ(e.what(),
                 "op 'ex::op': no launcher applies to inputs x [1, 7] ('short_rows', "
                 "'even_rows' returned autoplugin::Launch::NotApplicable); add a launcher that "
                 "does");
  }
}

}  // namespace

namespace {

// ---- regressions found in review -------------------------------------------------------------

float seen_bias = 0;
ap::Shape identity_shape_with_int(ap::Shape x, std::int64_t) { return x; }
void int_launcher(ap::In<float> x, ap::Out<float> y, std::int64_t, ap::Stream) { (void)x, (void)y; }
void bias_launcher(ap::In<float> x, ap::OptIn<float> bias, ap::Out<float> y, ap::Stream) {
  seen_bias = !bias.present() ? -1.0f : bias.numel() == 0 ? 0.0f : bias.data()[0];
  y.data()[0] = x.data()[0];
}
ap::Shape bias_shape(ap::Shape x, std::optional<ap::Shape>) { return x; }

TEST(Regression, OptionalInputsGetTheirOwnBuffer) {
  auto op =
      ap::Op::build(DECLARE("ex::op(Tensor x, Tensor? bias) -> Tensor", bias_shape, bias_launcher));
  std::vector<float> x{1}, bias{7}, y(1);
  const std::vector<ap::TensorRef> inputs{ref(x.data(), ap::DType::Float32, {1}),
                                          ref(bias.data(), ap::DType::Float32, {1})};
  const std::vector<ap::TensorRef> outputs{ref(y.data(), ap::DType::Float32, {1})};
  ASSERT_EQ(op.launch(op.launchers()[0], {inputs, outputs, {}, {}, nullptr, {}, {}}), 0);
  EXPECT_EQ(seen_bias, 7.0f);
  ap::TensorRef none = ref(nullptr, ap::DType::Float32, {1});
  none.present = false;
  const std::vector<ap::TensorRef> absent{ref(x.data(), ap::DType::Float32, {1}), none};
  ASSERT_EQ(op.launch(op.launchers()[0], {absent, outputs, {}, {}, nullptr, {}, {}}), 0);
  EXPECT_EQ(seen_bias, -1.0f);
  // A present tensor without elements may come without an address: it is still present.
  const std::vector<ap::TensorRef> empty{ref(x.data(), ap::DType::Float32, {1}),
                                         ref(nullptr, ap::DType::Float32, {0})};
  ASSERT_EQ(op.launch(op.launchers()[0], {empty, outputs, {}, {}, nullptr, {}, {}}), 0);
  EXPECT_EQ(seen_bias, 0.0f);
}

ap::Shape bias_sized_shape(ap::Shape x, std::optional<ap::Shape> bias) {
  return {x[0], bias ? (*bias)[0] : ap::Dim(-5)};
}

TEST(AbsentInputs, CoreQueriesSkipAbsentPositions) {
  auto op = ap::Op::build(
      DECLARE("ex::op(Tensor x, Tensor? bias) -> Tensor", bias_sized_shape, bias_launcher));
  ap::AbsentInputs absent;
  absent.add(1);
  // The shape function gets std::nullopt; the absent entry's shape is not read.
  ap::ShapeScope scope;
  const std::vector<ap::Shape> inputs{ap::Shape::concrete(std::vector<std::int64_t>{4}),
                                      ap::Shape::concrete(std::vector<std::int64_t>{9})};
  const auto shapes = op.output_shapes(inputs, {}, {}, scope, absent);
  EXPECT_EQ(ap::to_string(shapes[0][1]), "-5");
  // Launchers match whatever dtype an absent position holds.
  const std::vector<ap::DType> dtypes{ap::DType::Float32, ap::DType::Int64, ap::DType::Float32};
  EXPECT_EQ(op.find_launcher(dtypes, 0), nullptr);
  EXPECT_NE(op.find_launcher(dtypes, 0, absent), nullptr);
  EXPECT_EQ(op.output_dtype(0, std::span(dtypes).first(2), {}, absent), ap::DType::Float32);
  // Trailing by count; more than remain, or a required one missing, are errors naming it.
  EXPECT_EQ(op.absent_inputs({}, 1), absent);
  EXPECT_TRUE(op.absent_inputs({}, 2).empty());
  EXPECT_EQ(op.absent_to_declare(absent), ap::AbsentInputs{});
  try {
    op.absent_inputs({}, 0);
    FAIL();
  } catch (const ap::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("argument 'x' (Tensor) is required"));
  }
  EXPECT_THROW(op.absent_inputs(absent, 2), ap::Error);
  // The reserved field is listed, decoded and encoded.
  const auto specs = ap::field_specs(op.schema());
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].name, "autoplugin_absent_inputs");
  const ap::FieldList fields = op.encode_fields({}, absent);
  EXPECT_EQ(op.decode_fields(fields.views()).absent_inputs, std::vector<std::int64_t>{1});
}

TEST(AbsentInputs, ReservedFieldAndNamesAreRefusedWhereTheyDoNotFit) {
  auto plain =
      ap::Op::build(DECLARE("ex::op(Tensor x) -> Tensor", identity_shape, copy_launcher<float>));
  const std::int64_t index = 0;
  const ap::FieldView field{"autoplugin_absent_inputs", ap::FieldType::Int64, &index, 1};
  try {
    plain.decode_fields(std::span(&field, 1));
    FAIL();
  } catch (const ap::FieldError& e) {
    EXPECT_THAT(e.what(), HasSubstr("the op has no Tensor? argument that could be absent"));
  }
  EXPECT_THAT(build_error(DECLARE("ex::op(Tensor x, int autoplugin_mode) -> Tensor",
                                  identity_shape_with_int, int_launcher)),
              HasSubstr("argument 'autoplugin_mode': names starting with \"autoplugin_\" are "
                        "reserved"));
}

TEST(Regression, EmptyOutputsNeedNoAddress) {
  auto op =
      ap::Op::build(DECLARE("ex::op(Tensor x) -> Tensor", identity_shape, copy_launcher<float>));
  const std::vector<ap::TensorRef> inputs{ref(nullptr, ap::DType::Float32, {0, 3})};
  const std::vector<ap::TensorRef> outputs{ref(nullptr, ap::DType::Float32, {0, 3})};
  EXPECT_EQ(op.launch(op.launchers()[0], {inputs, outputs, {}, {}, nullptr, {}, {}}), 0);
  const std::vector<ap::TensorRef> missing{ref(nullptr, ap::DType::Float32, {1, 3})};
  EXPECT_THROW(op.launch(op.launchers()[0], {inputs, missing, {}, {}, nullptr, {}, {}}),
               ap::TensorError);
}

void two_scratch(ap::In<float> x, ap::Out<float> a, ap::Out<float> b, ap::Workspace, ap::Stream) {
  (void)x, (void)a, (void)b;
}
std::pair<ap::Shape, ap::Shape> two_shapes_of(ap::Shape x) { return {x, x}; }

TEST(Regression, WorkspaceWorksForSeveralOutputs) {
  auto d = DECLARE("ex::op(Tensor x) -> (Tensor a, Tensor b)", two_shapes_of, two_scratch);
  d.workspace(scratch_bytes);
  EXPECT_EQ(build_error(d), "");
}

TEST(Regression, DeclaredDtypeRulesMustMatchTheLaunchers) {
  auto d = DECLARE("ex::op(Tensor x) -> Tensor", identity_shape, copy_launcher<float>);
  d.output_dtype("out", ap::fixed_dtype(ap::DType::Int32));
  EXPECT_THAT(build_error(d), HasSubstr("output 'out': declared dtype int32, but launcher "
                                        "'copy_launcher<float>' writes float32"));
}

TEST(Regression, InPlaceNeedsAnAliasedOutputOfTheSameShape) {
  EXPECT_THAT(build_error(DECLARE("ex::op(Tensor(a!) x) -> Tensor", identity_shape,
                                  inplace_launcher<float>)),
              HasSubstr("input 'x' is written ('(a!)') but no output aliases it"));
  auto op = ap::Op::build(DECLARE(
      "ex::op(Tensor(a!) x) -> Tensor(a!)",
      [](ap::Shape x) {
        x[0] *= 2;
        return x;
      },
      inplace_launcher<float>));
  ap::ShapeScope scope;
  try {
    op.output_shapes(std::vector{ap::Shape::concrete(std::vector<std::int64_t>{3})}, {}, {}, scope);
    FAIL() << "expected a ShapeError";
  } catch (const ap::ShapeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("in-place output 'out' has the shape of input 'x'"));
  }
}

ap::Shape narrow_shape(ap::Shape x, std::int32_t n) {
  x[0] += n;
  return x;
}
void wide_launcher(ap::In<float> x, ap::Out<float> y, std::int64_t n, ap::Stream) {
  (void)x, (void)y, (void)n;
}

TEST(Regression, NarrowShapeFunctionParametersAreRangeChecked) {
  auto op =
      ap::Op::build(DECLARE("ex::op(Tensor x, int n) -> Tensor", narrow_shape, wide_launcher));
  const std::int64_t big = (std::int64_t{1} << 32) + 5;
  ap::FieldList fields;
  fields.add("n", ap::FieldType::Int64, &big, 1);
  try {
    op.decode_fields(fields.views());
    FAIL() << "expected a FieldError";
  } catch (const ap::FieldError& e) {
    EXPECT_THAT(e.what(), HasSubstr("does not fit shape function parameter type int32_t"));
  }
}

TEST(Regression, PredicateRefusesAWrongAttributeCount) {
  auto d = DECLARE("ex::cast(Tensor x, ScalarType dtype) -> Tensor", cast_shape, cast_launcher_f16);
  d.output_dtype("out", ap::dtype_from_attribute("dtype"));
  auto op = ap::Op::build(d);
  const std::vector<ap::PortDesc> ports{{ap::DType::Float32}, {ap::DType::Float16}};
  EXPECT_FALSE(op.supports(1, ports, {}));
}

void bool_launcher(ap::In<bool> x, ap::Out<float> y, ap::Stream) { (void)x, (void)y; }

TEST(Regression, BoolTensorsAreRejected) {
  EXPECT_THAT(build_error(DECLARE("ex::op(Tensor x) -> Tensor", identity_shape, bool_launcher)),
              HasSubstr("takes In<bool>, but TensorRT plugins cannot have bool or uint8 tensors"));
}

TEST(Regression, DescribeReportsInsteadOfThrowing) {
  auto d = DECLARE("ex::op(Tensor x) -> Tensor", identity_shape, copy_launcher<float>);
  d.example(ap::Example().rank("x", 9));
  EXPECT_THAT(ap::describe(ap::Op::build(d)), HasSubstr("error: "));
}

}  // namespace
