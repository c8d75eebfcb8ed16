// The attribute-type table, compile-time type names, and attributes bound to the user's own
// C++ types (AttrBinding).
#include <autoplugin/attr_types.h>
#include <autoplugin/autoplugin.h>
#include <autoplugin/describe.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

namespace ap = autoplugin;
using ::testing::HasSubstr;

#define DECLARE(schema, shape, ...) \
  ::autoplugin::detail::make_declaration(schema, #__VA_ARGS__, "test.cpp:1", shape, __VA_ARGS__)

namespace {

enum class Mode { Scale, Shift };
int mode_decodes = 0;

struct Window {
  std::int64_t before = 0;
  std::int64_t after = 0;
};

}  // namespace

template <>
struct autoplugin::AttrBinding<Mode> {
  using schema_type = std::string_view;
  static Mode decode(std::string_view text) {
    ++mode_decodes;
    if (text == "scale") return Mode::Scale;
    if (text == "shift") return Mode::Shift;
    throw std::invalid_argument("mode is \"scale\" or \"shift\", not \"" + std::string(text) +
                                "\"");
  }
};

template <>
struct autoplugin::AttrBinding<Window> {
  using schema_type = std::span<const std::int64_t>;
  static constexpr std::string_view name = "Window";
  static Window decode(std::span<const std::int64_t> pair) {
    if (pair.size() != 2) throw std::invalid_argument("window is a (before, after) pair");
    return {pair[0], pair[1]};
  }
};

namespace {

// ---- the table -------------------------------------------------------------------------------

TEST(AttributeTypes, OneRowPerFieldTypeOfTheSchemaLanguage) {
  std::set<std::string_view> names;
  for (const ap::AttributeTypeInfo& info : ap::attribute_types()) names.insert(info.schema_name);
  EXPECT_EQ(names, (std::set<std::string_view>{"int", "int[]", "float", "float[]", "bool", "bool[]",
                                               "str", "ScalarType"}));
  for (const char* tensor_or_shape : {"Tensor x", "Tensor? x", "SymInt x", "SymInt[] x"}) {
    const ap::Schema schema =
        ap::parse_schema(std::string("ns::op(") + tensor_or_shape + ") -> Tensor");
    EXPECT_EQ(ap::attribute_type_info(schema.arguments[0].type), nullptr) << tensor_or_shape;
  }
}

TEST(AttributeTypes, EveryRowIsWhatTheCodecAndCreatorUse) {
  const ap::Schema schema = ap::parse_schema(
      "ns::op(Tensor x, int a, int[] b, float c, float[2] d, bool e, bool[] f, str g, "
      "ScalarType h, int? i) -> Tensor");
  const std::vector<ap::AttrValue> values{std::int64_t{1},
                                          ap::IntList{2, 3},
                                          0.5,
                                          ap::FloatList{1.0, 2.0},
                                          true,
                                          ap::BoolList{true},
                                          std::string("s"),
                                          ap::DType::Float16,
                                          ap::AttrValue{}};
  const ap::FieldList fields = ap::encode_attributes(schema, values);
  const std::vector<ap::FieldSpec> specs = ap::field_specs(schema);
  const std::vector<const ap::Argument*> attributes = ap::attribute_arguments(schema);
  ASSERT_EQ(fields.size(), attributes.size());
  for (std::size_t k = 0; k < attributes.size(); ++k) {
    const ap::AttributeTypeInfo* info = ap::attribute_type_info(attributes[k]->type);
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(fields.views()[k].type, info->serialized) << attributes[k]->name;
    EXPECT_EQ(specs[k].type, info->parser_field) << attributes[k]->name;
  }
}

TEST(AttributeTypes, EveryBuiltInParameterTypeIsNamedInItsRow) {
  const auto expect_listed = [](ap::BaseType base, bool is_list, std::string_view cpp_name) {
    for (const ap::AttributeTypeInfo& info : ap::attribute_types()) {
      if (info.base == base && info.is_list == is_list) {
        EXPECT_THAT(std::string(info.cpp_parameters), HasSubstr(std::string(cpp_name)));
        return;
      }
    }
    ADD_FAILURE() << "no row for " << cpp_name;
  };
  const auto check = [&]<typename T>() {
    using Traits = ap::detail::AttrTraits<T>;
    expect_listed(Traits::base, Traits::is_list, Traits::name);
  };
  check.operator()<std::int64_t>();
  check.operator()<std::int32_t>();
  check.operator()<double>();
  check.operator()<float>();
  check.operator()<bool>();
  check.operator()<std::string_view>();
  check.operator()<std::string>();
  check.operator()<ap::DType>();
  check.operator()<std::span<const std::int64_t>>();
  check.operator()<ap::IntList>();
  check.operator()<std::span<const double>>();
  check.operator()<ap::FloatList>();
  check.operator()<std::span<const bool>>();
}

// ---- names made at compile time --------------------------------------------------------------

static_assert(ap::detail::AttrTraits<std::optional<std::int64_t>>::name ==
              "std::optional<int64_t>");
static_assert(ap::detail::AttrTraits<std::optional<std::span<const double>>>::name ==
              "std::optional<std::span<const double>>");
static_assert(ap::detail::AttrTraits<Window>::name == "Window");
static_assert(ap::detail::AttrTraits<std::optional<Window>>::name == "std::optional<Window>");

TEST(TypeNames, AnUnnamedBoundTypeIsNamedByTheCompiler) {
  EXPECT_THAT(std::string(ap::detail::AttrTraits<Mode>::name), HasSubstr("Mode"));
}

void optional_launcher(ap::In<float>, ap::Out<float>, std::optional<std::int64_t>, ap::Stream) {}
ap::Shape optional_shape(ap::Shape x, std::optional<std::int64_t>) { return x; }

TEST(TypeNames, MismatchMessagesSpellOptionalTypesOut) {
  try {
    ap::Op::build(DECLARE("ns::op(Tensor x, str s) -> Tensor", optional_shape, optional_launcher));
    FAIL() << "expected a BindingError";
  } catch (const ap::BindingError& e) {
    EXPECT_THAT(e.what(), HasSubstr("takes std::optional<int64_t> (expected std::string_view"));
  }
}

// ---- user-bound attribute types --------------------------------------------------------------

struct Seen {
  Mode mode = Mode::Scale;
  std::optional<Window> window;
};
Seen seen;

void bound_launcher(ap::In<float> x, ap::Out<float> y, Mode mode, std::optional<Window> window,
                    ap::Stream) {
  seen = {mode, window};
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    y.data()[i] = mode == Mode::Scale ? 2 * x.data()[i] : x.data()[i] + 1;
  }
}
ap::Shape bound_shape(ap::Shape x, Mode mode, std::optional<Window> window) {
  if (window && mode == Mode::Shift) x[0] += window->before + window->after;
  return x;
}

class Bound : public ::testing::Test {
 protected:
  ap::Op op =
      ap::Op::build(DECLARE("ns::bound(Tensor x, str mode=\"scale\", int[]? window=None) -> Tensor",
                            bound_shape, bound_launcher));

  std::vector<ap::AttrValue> decode(std::vector<ap::AttrValue> values) {
    return op.decode_fields(op.encode_fields(values).views()).values;
  }
};

TEST_F(Bound, LaunchersReceiveValuesDecodedOnceWhenBound) {
  const std::vector<ap::AttrValue> attributes = decode({std::string("shift"), ap::IntList{1, 2}});
  mode_decodes = 0;
  const std::vector<ap::BoundValues> bound = op.bind_attributes(attributes);
  EXPECT_EQ(mode_decodes, 1);
  std::vector<float> x{1, 2}, y(2);
  ap::TensorRef in{x.data(), ap::DType::Float32, ap::Format::Linear, 1, {2}};
  ap::TensorRef out{y.data(), ap::DType::Float32, ap::Format::Linear, 1, {2}};
  const std::vector<ap::TensorRef> inputs{in}, outputs{out};
  for (int call = 0; call < 3; ++call) {
    ASSERT_EQ(op.launch(op.launchers()[0], {inputs, outputs, {}, attributes, nullptr, {}, bound}),
              0);
  }
  EXPECT_EQ(mode_decodes, 1) << "a launch must not decode again";
  EXPECT_EQ(seen.mode, Mode::Shift);
  ASSERT_TRUE(seen.window.has_value());
  EXPECT_EQ(seen.window->before, 1);
  EXPECT_EQ(seen.window->after, 2);
  EXPECT_EQ(y, (std::vector<float>{2, 3}));
}

TEST_F(Bound, NoneReachesAnOptionalBoundTypeAsNullopt) {
  const std::vector<ap::AttrValue> attributes = decode({std::string("scale"), ap::AttrValue{}});
  const std::vector<ap::BoundValues> bound = op.bind_attributes(attributes);
  std::vector<float> x{3}, y(1);
  const std::vector<ap::TensorRef> inputs{
      {x.data(), ap::DType::Float32, ap::Format::Linear, 1, {1}}};
  const std::vector<ap::TensorRef> outputs{
      {y.data(), ap::DType::Float32, ap::Format::Linear, 1, {1}}};
  ASSERT_EQ(op.launch(op.launchers()[0], {inputs, outputs, {}, attributes, nullptr, {}, bound}), 0);
  EXPECT_FALSE(seen.window.has_value());
  EXPECT_EQ(y[0], 6);
}

TEST_F(Bound, AValueThatDoesNotDecodeIsReportedWithTheBindingsMessage) {
  try {
    op.bind_attributes(decode({std::string("spin"), ap::IntList{1, 2, 3}}));
    FAIL() << "expected a FieldError";
  } catch (const ap::FieldError& e) {
    EXPECT_THAT(e.what(), HasSubstr("op 'ns::bound': 2 attributes do not decode"));
    EXPECT_THAT(e.what(), HasSubstr("field 'mode' ("));
    EXPECT_THAT(e.what(), HasSubstr("mode is \"scale\" or \"shift\", not \"spin\""));
    EXPECT_THAT(e.what(), HasSubstr("field 'window' (std::optional<Window>): window is a "
                                    "(before, after) pair"));
  }
}

TEST_F(Bound, ShapeFunctionsDecodeTheirOwnValues) {
  ap::ShapeScope scope;
  const std::vector<ap::Shape> shapes =
      op.output_shapes(std::vector<ap::Shape>{ap::Shape{4, 5}}, {},
                       decode({std::string("shift"), ap::IntList{1, 2}}), scope);
  ASSERT_EQ(shapes.size(), 1u);
  EXPECT_EQ(ap::to_string(shapes[0]), "[7, 5]");
}

TEST_F(Bound, ALaunchWithoutBoundValuesIsAnErrorNotACrash) {
  const std::vector<ap::AttrValue> attributes = decode({std::string("scale"), ap::AttrValue{}});
  std::vector<float> x{3}, y(1);
  const std::vector<ap::TensorRef> inputs{
      {x.data(), ap::DType::Float32, ap::Format::Linear, 1, {1}}};
  const std::vector<ap::TensorRef> outputs{
      {y.data(), ap::DType::Float32, ap::Format::Linear, 1, {1}}};
  EXPECT_THROW(op.launch(op.launchers()[0], {inputs, outputs, {}, attributes, nullptr, {}, {}}),
               ap::Error);
}

TEST(BoundTypes, BindToTheSchemaTypeOfTheirSchemaType) {
  EXPECT_THAT(ap::describe(ap::Op::build(
                  DECLARE("ns::bound(Tensor x, str mode=\"scale\", int[]? window=None) -> Tensor",
                          bound_shape, bound_launcher))),
              HasSubstr("window         int[]?"));
  try {
    ap::Op::build(DECLARE("ns::bound(Tensor x, int mode, int[]? window=None) -> Tensor",
                          bound_shape, bound_launcher));
    FAIL() << "expected a BindingError";
  } catch (const ap::BindingError& e) {
    EXPECT_THAT(e.what(), HasSubstr("argument 'mode': schema type int"));
  }
}

// ---- attribute checks (OpDeclaration::validate) ------------------------------------------------

void scale_launcher(ap::In<float> x, ap::Out<float> y, std::string_view mode, double eps,
                    ap::Stream) {
  (void)x, (void)y, (void)mode, (void)eps;
}
ap::Shape scale_shape(ap::Shape x, std::string_view, double) { return x; }

ap::OpDeclaration declare_checked() {
  auto declaration = DECLARE("ns::checked(Tensor x, str mode=\"sum\", float eps=1e-5) -> Tensor",
                             scale_shape, scale_launcher);
  declaration.validate([](std::string_view mode, double eps) {
    if (mode != "sum" && mode != "mean") {
      throw std::invalid_argument("mode is \"sum\" or \"mean\", not \"" + std::string(mode) + "\"");
    }
    if (eps <= 0) throw std::invalid_argument("eps is positive");
  });
  return declaration;
}

TEST(AttributeCheck, RefusesValuesWhenAttributesAreBoundWithTheOpsOwnMessage) {
  const ap::Op op = ap::Op::build(declare_checked());
  EXPECT_TRUE(op.has_attribute_check());
  EXPECT_NO_THROW(op.bind_attributes(std::vector<ap::AttrValue>{std::string("mean"), 0.5}));
  try {
    op.bind_attributes(std::vector<ap::AttrValue>{std::string("median"), 0.5});
    FAIL() << "expected a FieldError";
  } catch (const ap::FieldError& e) {
    EXPECT_STREQ(e.what(),
                 "op 'ns::checked': attributes refused: mode is \"sum\" or \"mean\", not "
                 "\"median\"");
  }
  EXPECT_THROW(op.bind_attributes(std::vector<ap::AttrValue>{std::string("sum"), -1.0}),
               ap::FieldError);
}

TEST(AttributeCheck, AStringResultIsTheProblemAndEmptyMeansAccepted) {
  auto declaration = DECLARE("ns::checked(Tensor x, str mode=\"sum\", float eps=1e-5) -> Tensor",
                             scale_shape, scale_launcher);
  declaration.validate([](std::string_view mode, double) -> std::string {
    return mode.empty() ? "mode is not empty" : "";
  });
  const ap::Op op = ap::Op::build(declaration);
  EXPECT_NO_THROW(op.bind_attributes(std::vector<ap::AttrValue>{std::string("x"), 1.0}));
  EXPECT_THROW(
      {
        try {
          op.bind_attributes(std::vector<ap::AttrValue>{std::string(), 1.0});
        } catch (const ap::FieldError& e) {
          EXPECT_THAT(e.what(), HasSubstr("attributes refused: mode is not empty"));
          throw;
        }
      },
      ap::FieldError);
}

TEST(AttributeCheck, TakesEveryAttributeInSchemaOrder) {
  auto wrong_type = DECLARE("ns::checked(Tensor x, str mode=\"sum\", float eps=1e-5) -> Tensor",
                            scale_shape, scale_launcher);
  wrong_type.validate([](std::int64_t, double) {});
  try {
    ap::Op::build(wrong_type);
    FAIL() << "expected a BindingError";
  } catch (const ap::BindingError& e) {
    EXPECT_THAT(e.what(), HasSubstr("argument 'mode': schema type str, the attribute check "
                                    "(.validate) parameter 1 has type int64_t"));
  }
  auto too_few = DECLARE("ns::checked(Tensor x, str mode=\"sum\", float eps=1e-5) -> Tensor",
                         scale_shape, scale_launcher);
  too_few.validate([](std::string_view) {});
  try {
    ap::Op::build(too_few);
    FAIL() << "expected a BindingError";
  } catch (const ap::BindingError& e) {
    EXPECT_THAT(e.what(), HasSubstr("the attribute check (.validate) takes 1 parameter but the "
                                    "schema declares 2 attributes (mode, eps)"));
  }
}

}  // namespace
