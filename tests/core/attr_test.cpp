#include <autoplugin/attr.h>
#include <autoplugin/error.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace autoplugin {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
constexpr double kInf = std::numeric_limits<double>::infinity();

template <typename T>
FieldView view(std::string_view name, FieldType type, const std::vector<T>& data) {
  return {name, type, data.data(), static_cast<std::int32_t>(data.size())};
}

FieldView text_view(std::string_view name, const std::string& text) {
  return {name, FieldType::Char, text.data(), static_cast<std::int32_t>(text.size())};
}

// Runs decode and returns the FieldError's message ("" if nothing was thrown).
std::string decode_error(const Schema& schema, std::span<const FieldView> fields) {
  try {
    decode_attributes(schema, fields);
  } catch (const FieldError& error) {
    return error.what();
  }
  return "";
}

std::string decode_error(const Schema& schema, const FieldView& field) {
  return decode_error(schema, std::span<const FieldView>(&field, 1));
}

AttrValue decode_one(const Schema& schema, const FieldView& field) {
  const DecodedAttributes decoded =
      decode_attributes(schema, std::span<const FieldView>(&field, 1));
  EXPECT_EQ(decoded.values.size(), 1u);
  EXPECT_TRUE(decoded.warnings.empty());
  return decoded.values.at(0);
}

TEST(FieldTypeTest, MirrorsPluginFieldTypeNumbering) {
  EXPECT_EQ(static_cast<int>(FieldType::Float16), 0);
  EXPECT_EQ(static_cast<int>(FieldType::Int32), 5);
  EXPECT_EQ(static_cast<int>(FieldType::Char), 6);
  EXPECT_EQ(static_cast<int>(FieldType::Unknown), 8);
  EXPECT_EQ(static_cast<int>(FieldType::BFloat16), 9);
  EXPECT_EQ(static_cast<int>(FieldType::Int64), 10);
  EXPECT_EQ(static_cast<int>(FieldType::FP4), 13);
  const std::vector<std::string_view> names = {"FLOAT16", "FLOAT32", "FLOAT64", "INT8",    "INT16",
                                               "INT32",   "CHAR",    "DIMS",    "UNKNOWN", "BF16",
                                               "INT64",   "FP8",     "INT4",    "FP4"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(field_type_name(static_cast<FieldType>(i)), names[i]);
  }
}

TEST(AttributeArgumentsTest, SkipsTensorsAndShapeInputs) {
  const Schema schema = parse_schema(
      "ns::op(Tensor x, int a, Tensor? b, SymInt s, float c, SymInt[] t, str d, ScalarType e, "
      "bool[2] f) -> Tensor");
  std::vector<std::string> names;
  for (const Argument* argument : attribute_arguments(schema)) names.push_back(argument->name);
  EXPECT_THAT(names, ElementsAre("a", "c", "d", "e", "f"));
  EXPECT_TRUE(attribute_arguments(parse_schema("op(Tensor x, SymInt[] s) -> ()")).empty());
}

TEST(FieldSpecsTest, AdvertisesWhatTheOnnxParserSends) {
  const Schema schema = parse_schema(
      "ns::op(Tensor x, int a, int[] b, int[3] c, bool d, bool[] e, bool[2]? f, float g, "
      "float[] h, float[4] i, str j, ScalarType k, int? l, SymInt[] s) -> Tensor");
  const std::vector<FieldSpec> specs = field_specs(schema);
  struct Expected {
    std::string name;
    FieldType type;
    std::int32_t length;
  };
  const std::vector<Expected> expected = {
      {"a", FieldType::Int32, 1},   {"b", FieldType::Int32, 0},   {"c", FieldType::Int32, 3},
      {"d", FieldType::Int32, 1},   {"e", FieldType::Int32, 0},   {"f", FieldType::Int32, 2},
      {"g", FieldType::Float32, 1}, {"h", FieldType::Float32, 0}, {"i", FieldType::Float32, 4},
      {"j", FieldType::Char, 0},    {"k", FieldType::Char, 0},    {"l", FieldType::Int32, 1}};
  ASSERT_EQ(specs.size(), expected.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(specs[i].name, expected[i].name);
    EXPECT_EQ(specs[i].type, expected[i].type) << expected[i].name;
    EXPECT_EQ(specs[i].length, expected[i].length) << expected[i].name;
  }
}

// ---------------------------------------------------------------------------------------------
// FieldList

TEST(FieldListTest, OwnsItsBytes) {
  FieldList fields;
  {
    std::vector<std::int32_t> data = {1, 2, 3};
    fields.add("abc", FieldType::Int32, data.data(), 3);
    data.assign({9, 9, 9});
  }
  ASSERT_EQ(fields.size(), 1u);
  const FieldView field = fields.views()[0];
  EXPECT_EQ(field.name, "abc");
  EXPECT_EQ(field.type, FieldType::Int32);
  EXPECT_EQ(field.length, 3);
  std::int32_t copy[3];
  std::memcpy(copy, field.data, sizeof copy);
  EXPECT_THAT(copy, ElementsAre(1, 2, 3));
}

TEST(FieldListTest, ViewsSurviveGrowth) {
  FieldList fields;
  for (int i = 0; i < 100; ++i) {
    const std::int64_t value = i;
    fields.add("f" + std::to_string(i), FieldType::Int64, &value, 1);
  }
  ASSERT_EQ(fields.size(), 100u);
  for (int i = 0; i < 100; ++i) {
    const FieldView& field = fields.views()[static_cast<std::size_t>(i)];
    EXPECT_EQ(field.name, "f" + std::to_string(i));
    std::int64_t value = 0;
    std::memcpy(&value, field.data, sizeof value);
    EXPECT_EQ(value, i);
  }
}

TEST(FieldListTest, CopiesAreIndependent) {
  auto original = std::make_unique<FieldList>();
  const double number = 0.1;
  original->add("a_name_longer_than_small_string_storage", FieldType::Float64, &number, 1);
  original->add("s", FieldType::Char, "hi", 3);
  const FieldList copy(*original);
  FieldList assigned;
  assigned = *original;
  const void* original_data = original->views()[0].data;
  original.reset();

  for (const FieldList* fields : std::vector<const FieldList*>{&copy, &assigned}) {
    ASSERT_EQ(fields->size(), 2u);
    const FieldView first = fields->views()[0];
    EXPECT_NE(first.data, original_data);
    EXPECT_EQ(first.name, "a_name_longer_than_small_string_storage");
    double value = 0;
    std::memcpy(&value, first.data, sizeof value);
    EXPECT_EQ(value, 0.1);
    EXPECT_EQ(fields->views()[1].name, "s");
    EXPECT_STREQ(static_cast<const char*>(fields->views()[1].data), "hi");
  }
}

TEST(FieldListTest, MoveKeepsViewsValid) {
  FieldList fields;
  const std::int8_t byte = 1;
  fields.add("b", FieldType::Int8, &byte, 1);
  FieldList moved(std::move(fields));
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(moved.views()[0].name, "b");
  EXPECT_EQ(*static_cast<const std::int8_t*>(moved.views()[0].data), 1);
}

TEST(FieldListTest, EmptyFieldHasNullData) {
  FieldList fields;
  fields.add("none", FieldType::Int64, nullptr, 0);
  EXPECT_EQ(fields.views()[0].length, 0);
  EXPECT_EQ(fields.views()[0].data, nullptr);
  EXPECT_THROW(fields.add("bad", FieldType::Int64, nullptr, 2), FieldError);
  EXPECT_THROW(fields.add("bad", FieldType::Int64, &fields, -1), FieldError);
}

// ---------------------------------------------------------------------------------------------
// Round trip of our serialized form, one case per type and edge value.

struct RoundTripCase {
  std::string type;  // schema type of the single attribute "v"
  AttrValue value;
  FieldType field_type;  // what encode must write
  std::int32_t length;
};

std::ostream& operator<<(std::ostream& out, const RoundTripCase& c) {
  return out << c.type << " = " << to_string(c.value);
}

class RoundTripTest : public ::testing::TestWithParam<RoundTripCase> {};

TEST_P(RoundTripTest, DecodeOfEncodeIsExact) {
  const RoundTripCase& c = GetParam();
  const Schema schema = parse_schema("ns::op(Tensor x, " + c.type + " v) -> Tensor");
  const FieldList fields = encode_attributes(schema, std::span<const AttrValue>(&c.value, 1));
  ASSERT_EQ(fields.size(), 1u);
  const FieldView field = fields.views()[0];
  EXPECT_EQ(field.name, "v");
  EXPECT_EQ(field.type, c.field_type) << field_type_name(field.type);
  EXPECT_EQ(field.length, c.length);
  if (field.length == 0) {
    EXPECT_EQ(field.data, nullptr);
  }

  const DecodedAttributes decoded = decode_attributes(schema, fields.views());
  EXPECT_TRUE(decoded.warnings.empty());
  ASSERT_EQ(decoded.values.size(), 1u);
  EXPECT_EQ(decoded.values[0], c.value) << to_string(decoded.values[0]);
  EXPECT_EQ(decoded.values[0].index(), c.value.index());
}

const std::string kEmbeddedNul("a\0b", 3);
const std::string kTrailingNul("a\0", 2);

INSTANTIATE_TEST_SUITE_P(
    EveryType, RoundTripTest,
    ::testing::Values(
        RoundTripCase{"int", std::int64_t{0}, FieldType::Int64, 1},
        RoundTripCase{"int", std::int64_t{-1}, FieldType::Int64, 1},
        RoundTripCase{"int", kInt64Max, FieldType::Int64, 1},
        RoundTripCase{"int", kInt64Min, FieldType::Int64, 1},
        RoundTripCase{"int?", std::int64_t{1} << 40, FieldType::Int64, 1},
        RoundTripCase{"int?", std::monostate{}, FieldType::Int64, 0},
        RoundTripCase{"float", 0.1, FieldType::Float64, 1},
        RoundTripCase{"float", -1e300, FieldType::Float64, 1},
        RoundTripCase{"float", 5e-324, FieldType::Float64, 1},
        RoundTripCase{"float", -kInf, FieldType::Float64, 1},
        RoundTripCase{"float?", std::monostate{}, FieldType::Float64, 0},
        RoundTripCase{"bool", true, FieldType::Int8, 1},
        RoundTripCase{"bool", false, FieldType::Int8, 1},
        RoundTripCase{"bool?", std::monostate{}, FieldType::Int8, 0},
        RoundTripCase{"str", std::string(), FieldType::Char, 1},
        RoundTripCase{"str", std::string("reflect"), FieldType::Char, 8},
        RoundTripCase{"str", kEmbeddedNul, FieldType::Char, 4},
        RoundTripCase{"str", kTrailingNul, FieldType::Char, 3},
        RoundTripCase{"str", std::string("\"quotes' and \\"), FieldType::Char, 15},
        RoundTripCase{"str?", std::string(), FieldType::Char, 1},
        RoundTripCase{"str?", std::monostate{}, FieldType::Char, 0},
        RoundTripCase{"int[]", IntList{}, FieldType::Int64, 0},
        RoundTripCase{"int[]", IntList{1, -2, kInt64Max, kInt64Min}, FieldType::Int64, 4},
        RoundTripCase{"int[3]", IntList{7, 8, 9}, FieldType::Int64, 3},
        RoundTripCase{"int[]?", IntList{}, FieldType::Int64, 0},
        RoundTripCase{"int[]?", IntList{5}, FieldType::Int64, 1},
        RoundTripCase{"int[]?", std::monostate{}, FieldType::Unknown, 0},
        RoundTripCase{"int[2]?", std::monostate{}, FieldType::Int64, 0},
        RoundTripCase{"float[]", FloatList{}, FieldType::Float64, 0},
        RoundTripCase{"float[]", FloatList{0.1, -1e-310, kInf}, FieldType::Float64, 3},
        RoundTripCase{"float[2]", FloatList{1.0 / 3, 2.0 / 3}, FieldType::Float64, 2},
        RoundTripCase{"float[]?", FloatList{}, FieldType::Float64, 0},
        RoundTripCase{"float[]?", std::monostate{}, FieldType::Unknown, 0},
        RoundTripCase{"bool[]", BoolList{}, FieldType::Int8, 0},
        RoundTripCase{"bool[]", BoolList{true, false, true}, FieldType::Int8, 3},
        RoundTripCase{"bool[2]", BoolList{false, true}, FieldType::Int8, 2},
        RoundTripCase{"bool[]?", BoolList{}, FieldType::Int8, 0},
        RoundTripCase{"bool[]?", std::monostate{}, FieldType::Unknown, 0},
        RoundTripCase{"ScalarType", DType::Float32, FieldType::Char, 8},
        RoundTripCase{"ScalarType", DType::Float16, FieldType::Char, 8},
        RoundTripCase{"ScalarType", DType::BFloat16, FieldType::Char, 9},
        RoundTripCase{"ScalarType", DType::Int8, FieldType::Char, 5},
        RoundTripCase{"ScalarType", DType::Int32, FieldType::Char, 6},
        RoundTripCase{"ScalarType", DType::Int64, FieldType::Char, 6},
        RoundTripCase{"ScalarType", DType::UInt8, FieldType::Char, 6},
        RoundTripCase{"ScalarType", DType::Bool, FieldType::Char, 5},
        RoundTripCase{"ScalarType", DType::Float8E4M3, FieldType::Char, 14},
        RoundTripCase{"ScalarType?", std::monostate{}, FieldType::Char, 0}));

TEST(EncodeDecodeTest, NanStaysNan) {
  const Schema schema = parse_schema("op(float a, float[] b) -> ()");
  const std::vector<AttrValue> values = {std::nan(""),
                                         FloatList{1.0, std::numeric_limits<double>::quiet_NaN()}};
  const DecodedAttributes decoded =
      decode_attributes(schema, encode_attributes(schema, values).views());
  EXPECT_TRUE(std::isnan(std::get<double>(decoded.values[0])));
  const auto& list = std::get<FloatList>(decoded.values[1]);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0], 1.0);
  EXPECT_TRUE(std::isnan(list[1]));
}

TEST(EncodeDecodeTest, NoneIsKeptWhenTheDefaultIsNotNone) {
  const Schema schema = parse_schema("op(int? a=3, int[]? b=[1], str? c=\"x\") -> ()");
  const std::vector<AttrValue> values(3, std::monostate{});
  EXPECT_EQ(decode_attributes(schema, encode_attributes(schema, values).views()).values, values);
}

TEST(EncodeDecodeTest, ManyAttributesKeepSchemaOrder) {
  const Schema schema = parse_schema(
      "ns::op(Tensor x, int[] padding, SymInt[] size, str mode=\"reflect\", Tensor? w, "
      "float eps=1e-05, ScalarType dtype, bool[2] flags) -> Tensor");
  const std::vector<AttrValue> values = {IntList{1, 2, 3, 4}, std::string("circular"), 1e-12,
                                         DType::BFloat16, BoolList{true, false}};
  const FieldList fields = encode_attributes(schema, values);
  std::vector<std::string_view> names;
  for (const FieldView& field : fields.views()) names.push_back(field.name);
  EXPECT_THAT(names, ElementsAre("padding", "mode", "eps", "dtype", "flags"));
  const DecodedAttributes decoded = decode_attributes(schema, fields.views());
  EXPECT_EQ(decoded.values, values);
}

// ---------------------------------------------------------------------------------------------
// Encode errors

TEST(EncodeTest, RejectsValuesOfTheWrongAlternative) {
  const Schema schema = parse_schema("ns::op(int a, float b, int[2] c, str d, bool e) -> ()");
  const std::vector<AttrValue> values = {1.5, std::int64_t{1}, IntList{1, 2, 3}, std::monostate{},
                                         true};
  try {
    encode_attributes(schema, values);
    FAIL() << "no error";
  } catch (const FieldError& error) {
    const std::string message = error.what();
    EXPECT_THAT(message, StartsWith("op 'ns::op': 4 problems with plugin fields:\n"));
    EXPECT_THAT(message, HasSubstr("\n  field 'a': expected int, got float 1.5"));
    EXPECT_THAT(message, HasSubstr("\n  field 'b': expected float, got int 1"));
    EXPECT_THAT(message, HasSubstr("\n  field 'c': expected int[2], got int[] [1, 2, 3]"));
    EXPECT_THAT(message, HasSubstr("\n  field 'd': expected str, got None"));
    EXPECT_THAT(message, ::testing::Not(HasSubstr("field 'e'")));
  }
}

TEST(EncodeTest, RejectsWrongValueCount) {
  const Schema schema = parse_schema("ns::op(Tensor x, int a, float b) -> ()");
  const std::vector<AttrValue> values = {std::int64_t{1}};
  EXPECT_THROW(
      {
        try {
          encode_attributes(schema, values);
        } catch (const FieldError& error) {
          EXPECT_THAT(error.what(), HasSubstr("expected 2 attribute values (a, b), got 1"));
          throw;
        }
      },
      FieldError);
}

TEST(EncodeTest, SchemaWithoutAttributesGivesNoFields) {
  const Schema schema = parse_schema("op(Tensor x, SymInt[] s) -> Tensor");
  EXPECT_EQ(encode_attributes(schema, {}).size(), 0u);
}

// ---------------------------------------------------------------------------------------------
// What users and the ONNX parser send

TEST(DecodeTest, IntFromAnyIntegerType) {
  const Schema schema = parse_schema("ns::op(int k) -> ()");
  EXPECT_EQ(decode_one(schema, view("k", FieldType::Int32, std::vector<std::int32_t>{-7})),
            AttrValue(std::int64_t{-7}));
  EXPECT_EQ(decode_one(schema, view("k", FieldType::Int16, std::vector<std::int16_t>{-300})),
            AttrValue(std::int64_t{-300}));
  EXPECT_EQ(decode_one(schema, view("k", FieldType::Int8, std::vector<std::int8_t>{-128})),
            AttrValue(std::int64_t{-128}));
  EXPECT_EQ(decode_one(schema, view("k", FieldType::Int64, std::vector<std::int64_t>{kInt64Min})),
            AttrValue(kInt64Min));
}

TEST(DecodeTest, IntListFromOnnxInts) {
  const Schema schema = parse_schema("ns::op(int[] padding) -> ()");
  EXPECT_EQ(decode_one(schema, view("padding", FieldType::Int32,
                                    std::vector<std::int32_t>{1, -2, 2147483647, -2147483647})),
            AttrValue(IntList{1, -2, 2147483647, -2147483647}));
}

TEST(DecodeTest, UnalignedDataIsRead) {
  const Schema schema = parse_schema("ns::op(int[] a, float b) -> ()");
  alignas(8) unsigned char buffer[40] = {};
  const std::int64_t values[2] = {-5, 6};
  const double number = 0.1;
  std::memcpy(buffer + 1, values, sizeof values);
  std::memcpy(buffer + 21, &number, sizeof number);
  const FieldView fields[] = {{"a", FieldType::Int64, buffer + 1, 2},
                              {"b", FieldType::Float64, buffer + 21, 1}};
  const DecodedAttributes decoded = decode_attributes(schema, fields);
  EXPECT_EQ(decoded.values[0], AttrValue(IntList{-5, 6}));
  EXPECT_EQ(decoded.values[1], AttrValue(0.1));
}

TEST(DecodeTest, FloatFromOnnxFloat) {
  const Schema schema = parse_schema("ns::op(float eps, float[] scales) -> ()");
  const std::vector<float> eps = {1e-5f};
  const std::vector<float> scales = {0.5f, -2.25f, 0.1f};
  const FieldView fields[] = {view("eps", FieldType::Float32, eps),
                              view("scales", FieldType::Float32, scales)};
  const DecodedAttributes decoded = decode_attributes(schema, fields);
  EXPECT_EQ(decoded.values[0], AttrValue(static_cast<double>(1e-5f)));
  EXPECT_EQ(decoded.values[1], AttrValue(FloatList{0.5, -2.25, static_cast<double>(0.1f)}));
}

TEST(DecodeTest, FloatFromIntegers) {
  const Schema schema = parse_schema("ns::op(float a, float[] b) -> ()");
  const std::vector<std::int32_t> a = {3};
  const std::vector<std::int64_t> b = {-1, 2};
  const FieldView fields[] = {view("a", FieldType::Int32, a), view("b", FieldType::Int64, b)};
  const DecodedAttributes decoded = decode_attributes(schema, fields);
  EXPECT_EQ(decoded.values[0], AttrValue(3.0));
  EXPECT_EQ(decoded.values[1], AttrValue(FloatList{-1.0, 2.0}));
}

struct HalfCase {
  std::uint16_t bits;
  double value;
};

TEST(DecodeTest, FloatFromHalfBits) {
  const Schema schema = parse_schema("ns::op(float v) -> ()");
  const std::vector<HalfCase> cases = {{0x3C00, 1.0},
                                       {0xC000, -2.0},
                                       {0x3800, 0.5},
                                       {0x7BFF, 65504.0},
                                       {0x0001, std::ldexp(1.0, -24)},
                                       {0x03FF, std::ldexp(1023.0, -24)},
                                       {0x0400, std::ldexp(1.0, -14)},
                                       {0x3555, 0.333251953125},
                                       {0x0000, 0.0},
                                       {0x7C00, kInf},
                                       {0xFC00, -kInf}};
  for (const HalfCase& c : cases) {
    const std::vector<std::uint16_t> data = {c.bits};
    EXPECT_EQ(decode_one(schema, view("v", FieldType::Float16, data)), AttrValue(c.value))
        << std::hex << c.bits;
  }
  const std::vector<std::uint16_t> negative_zero = {0x8000};
  const double zero =
      std::get<double>(decode_one(schema, view("v", FieldType::Float16, negative_zero)));
  EXPECT_EQ(zero, 0.0);
  EXPECT_TRUE(std::signbit(zero));
  const std::vector<std::uint16_t> nan = {0x7E00};
  EXPECT_TRUE(std::isnan(std::get<double>(decode_one(schema, view("v", FieldType::Float16, nan)))));
}

TEST(DecodeTest, FloatFromBFloat16Bits) {
  const Schema schema = parse_schema("ns::op(float[] v) -> ()");
  const std::vector<std::uint16_t> data = {0x3F80, 0xC020, 0x7F80, 0x0001, 0x4049};
  EXPECT_EQ(decode_one(schema, view("v", FieldType::BFloat16, data)),
            AttrValue(FloatList{1.0, -2.5, kInf, std::ldexp(1.0, -133), 3.140625}));
}

TEST(DecodeTest, StrFromOnnxString) {
  const Schema schema = parse_schema("ns::op(str mode) -> ()");
  const std::string with_nul("reflect\0", 8);
  EXPECT_EQ(decode_one(schema, text_view("mode", with_nul)), AttrValue(std::string("reflect")));
  EXPECT_EQ(decode_one(schema, text_view("mode", "reflect")), AttrValue(std::string("reflect")));
  EXPECT_EQ(decode_one(schema, text_view("mode", std::string(1, '\0'))), AttrValue(std::string()));
  EXPECT_EQ(decode_one(schema, FieldView{"mode", FieldType::Char, nullptr, 0}),
            AttrValue(std::string()));
  // Only one NUL is stripped.
  EXPECT_EQ(decode_one(schema, text_view("mode", std::string("ab\0\0", 4))),
            AttrValue(std::string("ab\0", 3)));
}

TEST(DecodeTest, BoolFromOnnxInt) {
  const Schema schema = parse_schema("ns::op(bool a, bool b, bool[] c) -> ()");
  const std::vector<std::int32_t> zero = {0};
  const std::vector<std::int64_t> one = {1};
  const std::vector<std::int32_t> list = {1, 0, 1};
  const FieldView fields[] = {view("a", FieldType::Int32, zero), view("b", FieldType::Int64, one),
                              view("c", FieldType::Int32, list)};
  const DecodedAttributes decoded = decode_attributes(schema, fields);
  EXPECT_EQ(decoded.values[0], AttrValue(false));
  EXPECT_EQ(decoded.values[1], AttrValue(true));
  EXPECT_EQ(decoded.values[2], AttrValue(BoolList{true, false, true}));
}

TEST(DecodeTest, ScalarTypeFromNameOrCode) {
  const Schema schema = parse_schema("ns::op(ScalarType dtype) -> ()");
  EXPECT_EQ(decode_one(schema, text_view("dtype", std::string("float16\0", 8))),
            AttrValue(DType::Float16));
  EXPECT_EQ(decode_one(schema, text_view("dtype", "torch.bfloat16")), AttrValue(DType::BFloat16));
  EXPECT_EQ(decode_one(schema, text_view("dtype", "half")), AttrValue(DType::Float16));
  EXPECT_EQ(decode_one(schema, view("dtype", FieldType::Int32, std::vector<std::int32_t>{6})),
            AttrValue(DType::Float32));
  EXPECT_EQ(decode_one(schema, view("dtype", FieldType::Int32, std::vector<std::int32_t>{15})),
            AttrValue(DType::BFloat16));
  EXPECT_EQ(decode_one(schema, view("dtype", FieldType::Int64, std::vector<std::int64_t>{11})),
            AttrValue(DType::Bool));
}

TEST(DecodeTest, FixedSizeListBroadcastsOneValue) {
  const Schema schema = parse_schema("ns::op(int[3] k, float[2] s, bool[2] b) -> ()");
  const std::vector<std::int32_t> k = {4};
  const std::vector<float> s = {0.5f};
  const std::vector<std::int8_t> b = {1};
  const FieldView fields[] = {view("k", FieldType::Int32, k), view("s", FieldType::Float32, s),
                              view("b", FieldType::Int8, b)};
  const DecodedAttributes decoded = decode_attributes(schema, fields);
  EXPECT_EQ(decoded.values[0], AttrValue(IntList{4, 4, 4}));
  EXPECT_EQ(decoded.values[1], AttrValue(FloatList{0.5, 0.5}));
  EXPECT_EQ(decoded.values[2], AttrValue(BoolList{true, true}));
}

TEST(DecodeTest, LengthZeroIsNoneForOptionalScalars) {
  const Schema schema =
      parse_schema("ns::op(int? a=4, float? b, bool? c, ScalarType? d, int[2]? e) -> ()");
  const FieldView fields[] = {{"a", FieldType::Int32, nullptr, 0},
                              {"b", FieldType::Float32, nullptr, 0},
                              {"c", FieldType::Int32, nullptr, 0},
                              {"d", FieldType::Char, nullptr, 0},
                              {"e", FieldType::Int32, nullptr, 0}};
  const DecodedAttributes decoded = decode_attributes(schema, fields);
  for (const AttrValue& value : decoded.values) EXPECT_EQ(value, AttrValue(std::monostate{}));
}

TEST(DecodeTest, MissingFieldsTakeDefaults) {
  const Schema schema = parse_schema(
      "ns::op(Tensor x, int[2] stride=1, float eps=1e-05, str mode=\"reflect\", bool? flag, "
      "ScalarType? dtype=float16, int[]? pads=None, int required) -> Tensor");
  const std::vector<std::int32_t> required = {3};
  const FieldView field = view("required", FieldType::Int32, required);
  const DecodedAttributes decoded =
      decode_attributes(schema, std::span<const FieldView>(&field, 1));
  EXPECT_EQ(decoded.values,
            (std::vector<AttrValue>{IntList{1, 1}, 1e-05, std::string("reflect"), std::monostate{},
                                    DType::Float16, std::monostate{}, std::int64_t{3}}));
  EXPECT_TRUE(decoded.warnings.empty());
}

TEST(DecodeTest, UnknownFieldIsAWarning) {
  const Schema schema = parse_schema("ns::op(int[] padding, str mode=\"reflect\") -> ()");
  const std::vector<std::int32_t> padding = {1, 1};
  const FieldView fields[] = {view("paddin", FieldType::Int32, padding),
                              view("padding", FieldType::Int32, padding),
                              text_view("plugin_version", "1")};
  const DecodedAttributes decoded = decode_attributes(schema, fields);
  EXPECT_EQ(decoded.values[0], AttrValue(IntList{1, 1}));
  EXPECT_EQ(decoded.values[1], AttrValue(std::string("reflect")));
  ASSERT_EQ(decoded.warnings.size(), 2u);
  EXPECT_EQ(decoded.warnings[0],
            "op 'ns::op': ignoring unknown field 'paddin' (did you mean 'padding'? fields: "
            "padding, mode)");
  EXPECT_EQ(decoded.warnings[1],
            "op 'ns::op': ignoring unknown field 'plugin_version' (fields: padding, mode)");

  const Schema no_fields = parse_schema("op(Tensor x) -> Tensor");
  const DecodedAttributes none = decode_attributes(no_fields, std::span(fields, 1));
  ASSERT_EQ(none.warnings.size(), 1u);
  EXPECT_THAT(none.warnings[0], HasSubstr("(the op has no fields)"));
}

// ---------------------------------------------------------------------------------------------
// Bad fields: each names the op, the field, what was expected and what was received.

struct BadFieldCase {
  std::string label;
  std::string type;  // schema type of the single attribute "v"
  FieldType field_type;
  std::vector<std::int64_t> ints;  // data, converted to field_type; unused for Char
  std::string chars;
  std::optional<std::int32_t> length;  // overrides the element count
  bool null_data = false;
  std::string message;  // the whole line after "op 'ns::op': "
};

std::ostream& operator<<(std::ostream& out, const BadFieldCase& c) { return out << c.label; }

class BadFieldTest : public ::testing::TestWithParam<BadFieldCase> {};

TEST_P(BadFieldTest, NamesOpFieldExpectationAndReceived) {
  const BadFieldCase& c = GetParam();
  const Schema schema = parse_schema("ns::op(Tensor x, " + c.type + " v) -> Tensor");
  std::vector<std::byte> bytes;
  std::int32_t count = 0;
  const auto append = [&](const auto& value) {
    const auto* first = reinterpret_cast<const std::byte*>(&value);
    bytes.insert(bytes.end(), first, first + sizeof value);
    ++count;
  };
  for (std::int64_t x : c.ints) {
    switch (c.field_type) {
      case FieldType::Int8:
        append(static_cast<std::int8_t>(x));
        break;
      case FieldType::Int16:
        append(static_cast<std::int16_t>(x));
        break;
      case FieldType::Int32:
        append(static_cast<std::int32_t>(x));
        break;
      case FieldType::Float32:
        append(static_cast<float>(x));
        break;
      case FieldType::Float64:
        append(static_cast<double>(x));
        break;
      default:
        append(x);
        break;
    }
  }
  for (char ch : c.chars) append(ch);
  const FieldView field{"v", c.field_type, c.null_data ? nullptr : bytes.data(),
                        c.length.value_or(count)};
  EXPECT_EQ(decode_error(schema, field), "op 'ns::op': field 'v': " + c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadFieldTest,
    ::testing::Values(
        BadFieldCase{"IntFromFloat",
                     "int",
                     FieldType::Float32,
                     {1},
                     "",
                     {},
                     false,
                     "expected int (one integer), got FLOAT32 x1"},
        BadFieldCase{"IntFromChar",
                     "int",
                     FieldType::Char,
                     {},
                     "12",
                     {},
                     false,
                     "expected int (one integer), got CHAR x2"},
        BadFieldCase{"IntTwoValues",
                     "int",
                     FieldType::Int32,
                     {1, 2},
                     "",
                     {},
                     false,
                     "expected int (one integer), got INT32 x2"},
        BadFieldCase{"IntNoValue",
                     "int",
                     FieldType::Int32,
                     {},
                     "",
                     {},
                     false,
                     "expected int (one integer), got INT32 x0"},
        BadFieldCase{"IntListFromFloats",
                     "int[]",
                     FieldType::Float32,
                     {1, 2, 3, 4},
                     "",
                     {},
                     false,
                     "expected int[] (integers), got FLOAT32 x4"},
        BadFieldCase{"FixedListWrongLength",
                     "int[2]",
                     FieldType::Int32,
                     {1, 2, 3},
                     "",
                     {},
                     false,
                     "expected int[2] (2 integers, or 1 to broadcast), got INT32 x3"},
        BadFieldCase{"FixedListEmpty",
                     "int[2]",
                     FieldType::Int32,
                     {},
                     "",
                     {},
                     false,
                     "expected int[2] (2 integers, or 1 to broadcast), got INT32 x0"},
        BadFieldCase{"FloatFromChar",
                     "float",
                     FieldType::Char,
                     {},
                     "1.5",
                     {},
                     false,
                     "expected float (one float), got CHAR x3"},
        BadFieldCase{"FloatListFromDims",
                     "float[]",
                     FieldType::Dims,
                     {1},
                     "",
                     {},
                     false,
                     "expected float[] (floats), got DIMS x1"},
        BadFieldCase{"FloatNoValue",
                     "float",
                     FieldType::Float32,
                     {},
                     "",
                     {},
                     false,
                     "expected float (one float), got FLOAT32 x0"},
        BadFieldCase{"BoolValueTwo",
                     "bool",
                     FieldType::Int32,
                     {2},
                     "",
                     {},
                     false,
                     "expected bool (one integer 0 or 1), got INT32 value 2"},
        BadFieldCase{"BoolNegative",
                     "bool",
                     FieldType::Int8,
                     {-1},
                     "",
                     {},
                     false,
                     "expected bool (one integer 0 or 1), got INT8 value -1"},
        BadFieldCase{"BoolFromFloat",
                     "bool",
                     FieldType::Float32,
                     {1},
                     "",
                     {},
                     false,
                     "expected bool (one integer 0 or 1), got FLOAT32 x1"},
        BadFieldCase{"BoolListValue",
                     "bool[]",
                     FieldType::Int32,
                     {1, 0, 5},
                     "",
                     {},
                     false,
                     "expected bool[] (integers 0 or 1), got INT32 value 5 at index 2"},
        BadFieldCase{"StrFromInts",
                     "str",
                     FieldType::Int8,
                     {65, 0},
                     "",
                     {},
                     false,
                     "expected str (chars), got INT8 x2"},
        BadFieldCase{"ScalarTypeUnknownName",
                     "ScalarType",
                     FieldType::Char,
                     {},
                     "float99",
                     {},
                     false,
                     "expected ScalarType (a dtype name as chars, or one integer ScalarType "
                     "code), got unknown dtype name 'float99'"},
        BadFieldCase{"ScalarTypeUnknownCode",
                     "ScalarType",
                     FieldType::Int32,
                     {99},
                     "",
                     {},
                     false,
                     "expected ScalarType (a dtype name as chars, or one integer ScalarType "
                     "code), got unknown ScalarType code 99"},
        BadFieldCase{"ScalarTypeTwoCodes",
                     "ScalarType",
                     FieldType::Int32,
                     {5, 6},
                     "",
                     {},
                     false,
                     "expected ScalarType (a dtype name as chars, or one integer ScalarType "
                     "code), got INT32 x2"},
        BadFieldCase{"ScalarTypeEmpty",
                     "ScalarType",
                     FieldType::Char,
                     {},
                     "",
                     {},
                     false,
                     "expected ScalarType (a dtype name as chars, or one integer ScalarType "
                     "code), got CHAR x0"},
        BadFieldCase{"NoneMarkerOnRequired",
                     "int[]",
                     FieldType::Unknown,
                     {},
                     "",
                     {},
                     false,
                     "expected int[] (integers), got UNKNOWN x0"},
        BadFieldCase{
            "NullData", "int[]", FieldType::Int32, {}, "", 4, true, "data is null but length is 4"},
        BadFieldCase{
            "NegativeLength", "int[]", FieldType::Int32, {1}, "", -1, false, "negative length -1"},
        BadFieldCase{"NegativeLengthOptional",
                     "str?",
                     FieldType::Char,
                     {},
                     "",
                     -3,
                     false,
                     "negative length -3"}),
    [](const ::testing::TestParamInfo<BadFieldCase>& param) { return param.param.label; });

TEST(DecodeErrorTest, MissingRequiredField) {
  const Schema schema = parse_schema("ns::op(Tensor x, int[] padding) -> Tensor");
  EXPECT_EQ(decode_error(schema, std::span<const FieldView>()),
            "op 'ns::op': field 'padding': missing required field (expected int[] (integers))");
}

TEST(DecodeErrorTest, DuplicateField) {
  const Schema schema = parse_schema("ns::op(int k) -> ()");
  const std::vector<std::int32_t> one = {1};
  const FieldView fields[] = {view("k", FieldType::Int32, one), view("k", FieldType::Int32, one)};
  EXPECT_EQ(decode_error(schema, fields), "op 'ns::op': field 'k': given more than once");
}

TEST(DecodeErrorTest, ReportsEveryProblemAtOnce) {
  const Schema schema = parse_schema(
      "ns::pad.overload(Tensor x, int[] padding, str mode, bool flag, float eps=1e-05, "
      "int[2] stride) -> Tensor");
  const std::vector<float> floats = {1, 2, 3, 4};
  const std::vector<std::int32_t> two = {2};
  const std::vector<std::int32_t> three = {1, 2, 3};
  const FieldView fields[] = {
      view("padding", FieldType::Float32, floats), view("flag", FieldType::Int32, two),
      view("stride", FieldType::Int32, three), view("flag", FieldType::Int32, two),
      view("padd", FieldType::Int32, two)};
  const std::string message = decode_error(schema, fields);
  EXPECT_EQ(message,
            "op 'ns::pad.overload': 5 problems with plugin fields:\n"
            "  field 'flag': given more than once\n"
            "  field 'padding': expected int[] (integers), got FLOAT32 x4\n"
            "  field 'mode': missing required field (expected str (chars))\n"
            "  field 'flag': expected bool (one integer 0 or 1), got INT32 value 2\n"
            "  field 'stride': expected int[2] (2 integers, or 1 to broadcast), got INT32 x3");
}

TEST(DecodeErrorTest, IsAnAutopluginError) {
  const Schema schema = parse_schema("op(int k) -> ()");
  EXPECT_THROW(decode_attributes(schema, {}), Error);
}

// ---------------------------------------------------------------------------------------------
// coerce_attribute

class CoerceTest : public ::testing::Test {
 protected:
  const Schema schema = parse_schema(
      "ns::op(Tensor x, int a, float b, bool c, str d, ScalarType e, int[] f, int[3] g, "
      "float[] h, float[2] i, bool[2] j, int? k, float[]? l) -> Tensor");
  const Argument& arg(std::string_view name) const {
    for (const Argument& argument : schema.arguments) {
      if (argument.name == name) return argument;
    }
    throw std::logic_error("no argument");
  }
  AttrValue coerce(std::string_view name, AttrValue value) const {
    return coerce_attribute(schema, arg(name), std::move(value));
  }
  std::string coerce_error(std::string_view name, AttrValue value) const {
    try {
      coerce(name, std::move(value));
    } catch (const FieldError& error) {
      return error.what();
    }
    return "";
  }
};

TEST_F(CoerceTest, ConvertsToCanonicalAlternatives) {
  EXPECT_EQ(coerce("a", std::int64_t{-3}), AttrValue(std::int64_t{-3}));
  EXPECT_EQ(coerce("b", 0.25), AttrValue(0.25));
  const AttrValue from_int = coerce("b", std::int64_t{2});
  EXPECT_TRUE(std::holds_alternative<double>(from_int));
  EXPECT_EQ(from_int, AttrValue(2.0));
  EXPECT_EQ(coerce("c", true), AttrValue(true));
  EXPECT_EQ(coerce("d", std::string("x")), AttrValue(std::string("x")));
  EXPECT_EQ(coerce("e", DType::Int8), AttrValue(DType::Int8));
  EXPECT_EQ(coerce("e", std::string("torch.float16")), AttrValue(DType::Float16));
  EXPECT_EQ(coerce("e", std::int64_t{15}), AttrValue(DType::BFloat16));
  EXPECT_EQ(coerce("f", IntList{}), AttrValue(IntList{}));
  EXPECT_EQ(coerce("g", IntList{1, 2, 3}), AttrValue(IntList{1, 2, 3}));
  EXPECT_EQ(coerce("g", std::int64_t{7}), AttrValue(IntList{7, 7, 7}));
  EXPECT_EQ(coerce("h", IntList{1, -2}), AttrValue(FloatList{1.0, -2.0}));
  EXPECT_EQ(coerce("h", FloatList{0.5}), AttrValue(FloatList{0.5}));
  EXPECT_EQ(coerce("i", 1.5), AttrValue(FloatList{1.5, 1.5}));
  EXPECT_EQ(coerce("i", std::int64_t{4}), AttrValue(FloatList{4.0, 4.0}));
  EXPECT_EQ(coerce("j", true), AttrValue(BoolList{true, true}));
  EXPECT_EQ(coerce("j", BoolList{false, true}), AttrValue(BoolList{false, true}));
  EXPECT_EQ(coerce("k", std::monostate{}), AttrValue(std::monostate{}));
  EXPECT_EQ(coerce("l", std::monostate{}), AttrValue(std::monostate{}));
}

TEST_F(CoerceTest, RejectsMismatches) {
  EXPECT_EQ(coerce_error("a", 1.5), "op 'ns::op': field 'a': expected int, got float 1.5");
  EXPECT_EQ(coerce_error("a", true), "op 'ns::op': field 'a': expected int, got bool True");
  EXPECT_EQ(coerce_error("a", std::monostate{}), "op 'ns::op': field 'a': expected int, got None");
  EXPECT_EQ(coerce_error("c", std::int64_t{1}), "op 'ns::op': field 'c': expected bool, got int 1");
  EXPECT_EQ(coerce_error("d", DType::Float32),
            "op 'ns::op': field 'd': expected str, got ScalarType float32");
  EXPECT_EQ(coerce_error("f", std::int64_t{1}),
            "op 'ns::op': field 'f': expected int[], got int 1");
  EXPECT_EQ(coerce_error("g", IntList{1, 2}),
            "op 'ns::op': field 'g': expected int[3], got int[] [1, 2]");
  EXPECT_EQ(coerce_error("i", FloatList{1, 2, 3}),
            "op 'ns::op': field 'i': expected float[2], got float[] [1.0, 2.0, 3.0]");
  EXPECT_EQ(coerce_error("j", BoolList{true}),
            "op 'ns::op': field 'j': expected bool[2], got bool[] [True]");
  EXPECT_EQ(coerce_error("e", std::string("float99")),
            "op 'ns::op': field 'e': expected ScalarType, got unknown dtype name 'float99'");
  EXPECT_EQ(coerce_error("e", std::int64_t{99}),
            "op 'ns::op': field 'e': expected ScalarType, got unknown ScalarType code 99");
  EXPECT_EQ(coerce_error("x", std::int64_t{1}),
            "op 'ns::op': field 'x': argument of type Tensor is not an attribute");
}

}  // namespace
}  // namespace autoplugin
