#include <autoplugin/error.h>
#include <autoplugin/schema.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace autoplugin {
namespace {

using ::testing::HasSubstr;

Type make_type(BaseType base, bool is_list = false, std::optional<std::size_t> fixed_size = {},
               bool optional = false) {
  Type type;
  type.base = base;
  type.is_list = is_list;
  type.fixed_size = fixed_size;
  type.optional = optional;
  return type;
}

const char* const kExample =
    "ns::name.overload(Tensor x, Tensor? bias, int[] padding, float eps=1e-05, "
    "str mode=\"reflect\", bool flag=True, ScalarType dtype, SymInt[] size) -> (Tensor y, Tensor "
    "idx)";

TEST(SchemaTest, ParsesTheDesignExample) {
  const Schema schema = parse_schema(kExample);
  EXPECT_EQ(schema.text, kExample);
  EXPECT_EQ(schema.ns, "ns");
  EXPECT_EQ(schema.name, "name");
  EXPECT_EQ(schema.overload, "overload");
  EXPECT_EQ(schema.qualified_name(), "ns::name.overload");
  EXPECT_EQ(schema.plugin_name(), "name.overload");

  ASSERT_EQ(schema.arguments.size(), 8u);
  const auto& a = schema.arguments;
  EXPECT_EQ(a[0].name, "x");
  EXPECT_EQ(a[0].type, make_type(BaseType::Tensor));
  EXPECT_EQ(a[0].column, 19u);
  EXPECT_FALSE(a[0].default_value);
  EXPECT_FALSE(a[0].alias);
  EXPECT_EQ(a[1].name, "bias");
  EXPECT_EQ(a[1].type, make_type(BaseType::Tensor, false, {}, true));
  EXPECT_EQ(a[1].column, 29u);
  EXPECT_EQ(a[2].name, "padding");
  EXPECT_EQ(a[2].type, make_type(BaseType::Int, true));
  EXPECT_EQ(a[3].name, "eps");
  EXPECT_EQ(a[3].type, make_type(BaseType::Float));
  EXPECT_EQ(a[3].default_value, AttrValue(1e-05));
  EXPECT_EQ(a[4].name, "mode");
  EXPECT_EQ(a[4].default_value, AttrValue(std::string("reflect")));
  EXPECT_EQ(a[5].name, "flag");
  EXPECT_EQ(a[5].default_value, AttrValue(true));
  EXPECT_EQ(a[6].name, "dtype");
  EXPECT_EQ(a[6].type, make_type(BaseType::ScalarType));
  EXPECT_FALSE(a[6].default_value);
  EXPECT_EQ(a[7].name, "size");
  EXPECT_EQ(a[7].type, make_type(BaseType::SymInt, true));
  EXPECT_TRUE(a[7].type.is_shape_input());

  ASSERT_EQ(schema.returns.size(), 2u);
  EXPECT_EQ(schema.returns[0].name, "y");
  EXPECT_EQ(schema.returns[1].name, "idx");
  EXPECT_EQ(schema.returns[0].type, make_type(BaseType::Tensor));
}

TEST(SchemaTest, NameForms) {
  Schema schema = parse_schema("relu(Tensor x) -> Tensor");
  EXPECT_EQ(schema.ns, "");
  EXPECT_EQ(schema.name, "relu");
  EXPECT_EQ(schema.overload, "");
  EXPECT_EQ(schema.qualified_name(), "relu");
  EXPECT_EQ(schema.plugin_name(), "relu");

  schema = parse_schema("my_ns::op_2(Tensor x) -> Tensor");
  EXPECT_EQ(schema.qualified_name(), "my_ns::op_2");
  EXPECT_EQ(schema.plugin_name(), "op_2");

  schema = parse_schema("add.Tensor(Tensor x) -> Tensor");
  EXPECT_EQ(schema.qualified_name(), "add.Tensor");
  EXPECT_EQ(schema.overload, "Tensor");

  schema = parse_schema("  _a :: _b . _c ( ) -> ( )  ");
  EXPECT_EQ(schema.ns, "_a");
  EXPECT_EQ(schema.name, "_b");
  EXPECT_EQ(schema.overload, "_c");
  EXPECT_TRUE(schema.arguments.empty());
  EXPECT_TRUE(schema.returns.empty());
}

TEST(SchemaTest, EveryTypeAndSuffix) {
  const Schema schema = parse_schema(
      "f(Tensor a, Tensor? b, int c, int? d, int[] e, int[3] f, int[]? g, int[2]? h, float i, "
      "float[] j, float[4]? k, bool l, bool[] m, bool[2] n, str o, str? p, SymInt q, SymInt? r, "
      "SymInt[] s, SymInt[2] t, ScalarType u, ScalarType? v) -> Tensor");
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"a", "Tensor"},     {"b", "Tensor?"},    {"c", "int"},       {"d", "int?"},
      {"e", "int[]"},      {"f", "int[3]"},     {"g", "int[]?"},    {"h", "int[2]?"},
      {"i", "float"},      {"j", "float[]"},    {"k", "float[4]?"}, {"l", "bool"},
      {"m", "bool[]"},     {"n", "bool[2]"},    {"o", "str"},       {"p", "str?"},
      {"q", "SymInt"},     {"r", "SymInt?"},    {"s", "SymInt[]"},  {"t", "SymInt[2]"},
      {"u", "ScalarType"}, {"v", "ScalarType?"}};
  ASSERT_EQ(schema.arguments.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(schema.arguments[i].name, expected[i].first);
    EXPECT_EQ(schema.arguments[i].type.to_string(), expected[i].second) << expected[i].first;
  }
  EXPECT_EQ(schema.arguments[5].type, make_type(BaseType::Int, true, 3));
  EXPECT_EQ(schema.arguments[7].type, make_type(BaseType::Int, true, 2, true));
  EXPECT_EQ(schema.arguments[10].type, make_type(BaseType::Float, true, 4, true));

  EXPECT_TRUE(schema.arguments[0].type.is_tensor());
  EXPECT_TRUE(schema.arguments[1].type.is_tensor());
  EXPECT_FALSE(schema.arguments[0].type.is_attribute());
  EXPECT_TRUE(schema.arguments[2].type.is_attribute());
  EXPECT_TRUE(schema.arguments[16].type.is_shape_input());
  EXPECT_FALSE(schema.arguments[18].type.is_attribute());
  EXPECT_TRUE(schema.arguments[20].type.is_attribute());
}

TEST(SchemaTest, BaseTypeNames) {
  EXPECT_EQ(base_type_name(BaseType::Tensor), "Tensor");
  EXPECT_EQ(base_type_name(BaseType::Int), "int");
  EXPECT_EQ(base_type_name(BaseType::Float), "float");
  EXPECT_EQ(base_type_name(BaseType::Bool), "bool");
  EXPECT_EQ(base_type_name(BaseType::Str), "str");
  EXPECT_EQ(base_type_name(BaseType::SymInt), "SymInt");
  EXPECT_EQ(base_type_name(BaseType::ScalarType), "ScalarType");
}

TEST(SchemaTest, WhitespaceBetweenTokens) {
  const Schema schema = parse_schema(
      "\tns :: op ( Tensor ( a ! ) x ,\n int [ 2 ] ? k = [ 1 , -2 ] , * , float e = 2 ) "
      "-> ( Tensor ( a ! ) y )\n");
  ASSERT_EQ(schema.arguments.size(), 3u);
  ASSERT_TRUE(schema.arguments[0].alias);
  EXPECT_EQ(schema.arguments[0].alias->set, "a");
  EXPECT_TRUE(schema.arguments[0].alias->is_write);
  EXPECT_EQ(schema.arguments[1].type, make_type(BaseType::Int, true, 2, true));
  EXPECT_EQ(schema.arguments[1].default_value, AttrValue(IntList{1, -2}));
  EXPECT_EQ(schema.arguments[2].name, "e");
  EXPECT_EQ(schema.arguments[2].default_value, AttrValue(2.0));
  ASSERT_EQ(schema.returns.size(), 1u);
  EXPECT_EQ(schema.returns[0].name, "y");
  ASSERT_TRUE(schema.returns[0].alias);
  EXPECT_EQ(schema.returns[0].alias->set, "a");
}

TEST(SchemaTest, AliasAnnotations) {
  const Schema schema =
      parse_schema("f(Tensor(a) x, Tensor(b!) y, Tensor(c)? z, Tensor w) -> Tensor(b!)");
  ASSERT_EQ(schema.arguments.size(), 4u);
  EXPECT_EQ(schema.arguments[0].alias, (AliasInfo{"a", false}));
  EXPECT_EQ(schema.arguments[1].alias, (AliasInfo{"b", true}));
  EXPECT_EQ(schema.arguments[2].alias, (AliasInfo{"c", false}));
  EXPECT_TRUE(schema.arguments[2].type.optional);
  EXPECT_FALSE(schema.arguments[3].alias);
  ASSERT_EQ(schema.returns.size(), 1u);
  EXPECT_EQ(schema.returns[0].name, "out");
  EXPECT_EQ(schema.returns[0].alias, (AliasInfo{"b", true}));
}

// The bare '*' is PyTorch's: it is not an argument, and the text keeps it for PyTorch.
TEST(SchemaTest, KeywordOnly) {
  const std::string text = "f(Tensor x, int a, *, int b=1, float c=2.5) -> Tensor";
  const Schema schema = parse_schema(text);
  EXPECT_EQ(schema.text, text);
  ASSERT_EQ(schema.arguments.size(), 4u);
  EXPECT_EQ(schema.arguments[1].name, "a");
  EXPECT_EQ(schema.arguments[2].name, "b");
  EXPECT_EQ(schema.arguments[2].column, 23u);
}

TEST(SchemaTest, ReturnForms) {
  Schema schema = parse_schema("f(Tensor x) -> Tensor");
  ASSERT_EQ(schema.returns.size(), 1u);
  EXPECT_EQ(schema.returns[0].name, "out");
  EXPECT_EQ(schema.returns[0].column, 16u);

  schema = parse_schema("f(Tensor x) -> Tensor y");
  ASSERT_EQ(schema.returns.size(), 1u);
  EXPECT_EQ(schema.returns[0].name, "y");

  schema = parse_schema("f(Tensor x) -> (Tensor)");
  ASSERT_EQ(schema.returns.size(), 1u);
  EXPECT_EQ(schema.returns[0].name, "out");

  schema = parse_schema("f(Tensor x) -> (Tensor, Tensor, Tensor)");
  ASSERT_EQ(schema.returns.size(), 3u);
  EXPECT_EQ(schema.returns[0].name, "out0");
  EXPECT_EQ(schema.returns[1].name, "out1");
  EXPECT_EQ(schema.returns[2].name, "out2");

  schema = parse_schema("f(Tensor x) -> (Tensor values, Tensor, Tensor count)");
  ASSERT_EQ(schema.returns.size(), 3u);
  EXPECT_EQ(schema.returns[0].name, "values");
  EXPECT_EQ(schema.returns[1].name, "out1");
  EXPECT_EQ(schema.returns[2].name, "count");

  schema = parse_schema("f(Tensor(a!) x) -> Tensor(a!)");
  ASSERT_EQ(schema.returns.size(), 1u);
  EXPECT_EQ(schema.returns[0].alias, (AliasInfo{"a", true}));

  schema = parse_schema("f(Tensor(a!) x) -> ()");
  EXPECT_TRUE(schema.returns.empty());
}

TEST(SchemaTest, IntDefaults) {
  const Schema schema = parse_schema(
      "f(int a=0, int b=-7, int c=+3, int d=9223372036854775807, int e=-9223372036854775808, "
      "int? g=None, int? h=5) -> ()");
  const auto& a = schema.arguments;
  EXPECT_EQ(a[0].default_value, AttrValue(std::int64_t{0}));
  EXPECT_EQ(a[1].default_value, AttrValue(std::int64_t{-7}));
  EXPECT_EQ(a[2].default_value, AttrValue(std::int64_t{3}));
  EXPECT_EQ(a[3].default_value, AttrValue(std::numeric_limits<std::int64_t>::max()));
  EXPECT_EQ(a[4].default_value, AttrValue(std::numeric_limits<std::int64_t>::min()));
  EXPECT_EQ(a[5].default_value, AttrValue(std::monostate{}));
  EXPECT_EQ(a[6].default_value, AttrValue(std::int64_t{5}));
}

TEST(SchemaTest, FloatDefaults) {
  const Schema schema = parse_schema(
      "f(float a=1e-05, float b=-1.5, float c=2, float d=.5, float e=inf, float f=-inf, "
      "float g=nan, float h=-.25, float i=+1E3, float j=0.1, float? k=None) -> ()");
  const auto& a = schema.arguments;
  EXPECT_EQ(a[0].default_value, AttrValue(1e-05));
  EXPECT_EQ(a[1].default_value, AttrValue(-1.5));
  EXPECT_EQ(a[2].default_value, AttrValue(2.0));
  EXPECT_EQ(a[3].default_value, AttrValue(0.5));
  EXPECT_EQ(a[4].default_value, AttrValue(std::numeric_limits<double>::infinity()));
  EXPECT_EQ(a[5].default_value, AttrValue(-std::numeric_limits<double>::infinity()));
  ASSERT_TRUE(std::holds_alternative<double>(*a[6].default_value));
  EXPECT_TRUE(std::isnan(std::get<double>(*a[6].default_value)));
  EXPECT_EQ(a[7].default_value, AttrValue(-0.25));
  EXPECT_EQ(a[8].default_value, AttrValue(1000.0));
  EXPECT_EQ(a[9].default_value, AttrValue(0.1));  // exactly the double nearest 0.1
  EXPECT_EQ(a[10].default_value, AttrValue(std::monostate{}));
}

TEST(SchemaTest, BoolStrAndScalarTypeDefaults) {
  const Schema schema =
      parse_schema(R"(f(bool a=True, bool b=False, bool? c=None, str d="x", str e='single', )"
                   R"(str f="q\"\\\n\t\'", str g='', str? h=None, ScalarType i=float16, )"
                   R"(ScalarType j=torch.bfloat16, ScalarType? k=None, ScalarType l=half) -> ())");
  const auto& a = schema.arguments;
  ASSERT_EQ(a.size(), 12u);
  EXPECT_EQ(a[0].default_value, AttrValue(true));
  EXPECT_EQ(a[1].default_value, AttrValue(false));
  EXPECT_EQ(a[2].default_value, AttrValue(std::monostate{}));
  EXPECT_EQ(a[3].default_value, AttrValue(std::string("x")));
  EXPECT_EQ(a[4].default_value, AttrValue(std::string("single")));
  EXPECT_EQ(a[5].default_value, AttrValue(std::string("q\"\\\n\t'")));
  EXPECT_EQ(a[6].default_value, AttrValue(std::string()));
  EXPECT_EQ(a[7].default_value, AttrValue(std::monostate{}));
  EXPECT_EQ(a[8].default_value, AttrValue(DType::Float16));
  EXPECT_EQ(a[9].default_value, AttrValue(DType::BFloat16));
  EXPECT_EQ(a[10].default_value, AttrValue(std::monostate{}));
  EXPECT_EQ(a[11].default_value, AttrValue(DType::Float16));
}

TEST(SchemaTest, AdjacentStringsAreNotConcatenated) {
  // 'it''s' is two tokens; the second one must be rejected, not silently joined.
  EXPECT_THROW(parse_schema("f(str e='it''s') -> ()"), SchemaError);
  const Schema schema = parse_schema(R"(f(str e='it\'s', str d="a'b", str c='a"b') -> ())");
  EXPECT_EQ(schema.arguments[0].default_value, AttrValue(std::string("it's")));
  EXPECT_EQ(schema.arguments[1].default_value, AttrValue(std::string("a'b")));
  EXPECT_EQ(schema.arguments[2].default_value, AttrValue(std::string("a\"b")));
}

TEST(SchemaTest, ListDefaults) {
  const Schema schema = parse_schema(
      "f(int[] a=[1, 2], int[] b=[], int[2] c=1, int[3] d=[4,5,6], float[] e=[1, 2.5, -inf], "
      "float[2] f=0.5, bool[] g=[True, False], bool[3] h=True, int[]? i=None, int[]? j=[], "
      "float[2]? k=[-1, 1e300]) -> ()");
  const auto& a = schema.arguments;
  ASSERT_EQ(a.size(), 11u);
  EXPECT_EQ(a[0].default_value, AttrValue(IntList{1, 2}));
  EXPECT_EQ(a[1].default_value, AttrValue(IntList{}));
  EXPECT_EQ(a[2].default_value, AttrValue(IntList{1, 1}));
  EXPECT_EQ(a[3].default_value, AttrValue(IntList{4, 5, 6}));
  EXPECT_EQ(a[4].default_value,
            AttrValue(FloatList{1.0, 2.5, -std::numeric_limits<double>::infinity()}));
  EXPECT_EQ(a[5].default_value, AttrValue(FloatList{0.5, 0.5}));
  EXPECT_EQ(a[6].default_value, AttrValue(BoolList{true, false}));
  EXPECT_EQ(a[7].default_value, AttrValue(BoolList{true, true, true}));
  EXPECT_EQ(a[8].default_value, AttrValue(std::monostate{}));
  EXPECT_EQ(a[9].default_value, AttrValue(IntList{}));
  EXPECT_EQ(a[10].default_value, AttrValue(FloatList{-1.0, 1e300}));
}

TEST(SchemaTest, OptionalTensorAndSymIntDefaultToNone) {
  const Schema schema = parse_schema("f(Tensor? b=None, SymInt? s=None, SymInt[]? t=None) -> ()");
  for (const Argument& argument : schema.arguments) {
    EXPECT_EQ(argument.default_value, AttrValue(std::monostate{})) << argument.name;
  }
}

TEST(SchemaTest, TypeToString) {
  EXPECT_EQ(make_type(BaseType::Tensor).to_string(), "Tensor");
  EXPECT_EQ(make_type(BaseType::Tensor, false, {}, true).to_string(), "Tensor?");
  EXPECT_EQ(make_type(BaseType::Int, true).to_string(), "int[]");
  EXPECT_EQ(make_type(BaseType::Int, true, 2, true).to_string(), "int[2]?");
  EXPECT_EQ(make_type(BaseType::SymInt, true).to_string(), "SymInt[]");
  EXPECT_EQ(make_type(BaseType::ScalarType, false, {}, true).to_string(), "ScalarType?");
}

// ---------------------------------------------------------------------------------------------
// Errors: each case names the column of the offending character and a phrase of the message.

struct BadSchema {
  std::string text;
  std::size_t column;
  std::string phrase;
};

// Readable failure output and stable test names: the case's text, not its bytes.
void PrintTo(const BadSchema& bad, std::ostream* out) { *out << '"' << bad.text << '"'; }

class SchemaErrorTest : public ::testing::TestWithParam<BadSchema> {};

TEST_P(SchemaErrorTest, ReportsColumnAndReason) {
  const BadSchema& bad = GetParam();
  try {
    parse_schema(bad.text);
    FAIL() << "no error for: " << bad.text;
  } catch (const SchemaError& error) {
    EXPECT_EQ(error.column(), bad.column) << error.what();
    EXPECT_THAT(error.what(), HasSubstr(bad.phrase));
    EXPECT_THAT(error.what(),
                HasSubstr("invalid schema at column " + std::to_string(bad.column) + ": "));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Invalid, SchemaErrorTest,
    ::testing::Values(
        BadSchema{"", 1, "empty schema"}, BadSchema{"   ", 1, "empty schema"},
        BadSchema{"(Tensor x) -> Tensor", 1, "expected an operator name, found '('"},
        BadSchema{"ns::(Tensor x) -> Tensor", 5, "operator name after '::'"},
        BadSchema{"1op(Tensor x) -> Tensor", 1, "expected an operator name, found '1op'"},
        BadSchema{"op.(Tensor x) -> Tensor", 4, "overload name"},
        BadSchema{"ns:op(Tensor x) -> Tensor", 3, "expected '(' after the operator name"},
        BadSchema{"op -> Tensor", 4, "expected '('"},
        BadSchema{"op(Tnsor x) -> Tensor", 4, "unknown type 'Tnsor'"},
        BadSchema{"op(Tensor x, Int k) -> Tensor", 14, "did you mean 'int'?"},
        BadSchema{"op(Scalar s) -> Tensor", 4,
                  "known types: Tensor, int, float, bool, str, SymInt, ScalarType"},
        BadSchema{"op(Tensor x int k) -> Tensor", 13,
                  "expected ',' or ')' after argument 'x', found 'int'"},
        BadSchema{"op(Tensor x", 12, "expected ',' or ')' after argument 'x', found end of schema"},
        BadSchema{"op(Tensor x,) -> Tensor", 13, "expected an argument type, found ')'"},
        BadSchema{"op(Tensor) -> Tensor", 10, "expected an argument name after type 'Tensor'"},
        BadSchema{"op(Tensor 2x) -> Tensor", 11, "found '2x'"},
        BadSchema{"op(Tensor x)", 13, "expected '->'"},
        BadSchema{"op(Tensor x) Tensor", 14, "expected '->' and the return types"},
        BadSchema{"op(Tensor x) - > Tensor", 14, "expected '->'"},
        BadSchema{"op(Tensor x) -> Tensor y z", 26, "unexpected 'z' after the return types"},
        BadSchema{"op(Tensor x) -> Tensor;", 23, "unexpected ';'"},
        BadSchema{"op(Tensor x) ->", 16, "expected a return type, found end of schema"},
        BadSchema{"op(Tensor x) -> (Tensor y", 26, "expected ',' or ')' after return 1"},
        BadSchema{"op(Tensor x, int x) -> Tensor", 18, "duplicate argument name 'x'"},
        BadSchema{"op(Tensor x) -> (Tensor y, Tensor y)", 35, "duplicate return name 'y'"},
        BadSchema{"op(Tensor x) -> Tensor x", 24, "return name 'x' is already the name of an arg"},
        BadSchema{"op(Tensor out) -> Tensor", 19, "'out' (the name given to unnamed return 1)"},
        BadSchema{"op(Tensor x) -> (Tensor out1, Tensor)", 31, "duplicate return name 'out1'"},
        BadSchema{"op(Tensor x) -> int", 17, "only Tensor returns are supported, found 'int'"},
        BadSchema{"op(Tensor x) -> (Tensor y, float z)", 28, "found 'float'"},
        BadSchema{"op(Tensor x) -> Tensor?", 17, "only Tensor returns are supported"},
        BadSchema{"op(Tensor[] xs) -> Tensor", 4, "Tensor[] (a list of tensors) is not supported"},
        BadSchema{"op(str[] s) -> Tensor", 4, "str[] is not supported"},
        BadSchema{"op(ScalarType[] s) -> Tensor", 4, "ScalarType[] is not supported"},
        BadSchema{"op(int(a) k) -> Tensor", 7,
                  "alias annotation like '(a!)' is only allowed on "
                  "Tensor, not on 'int'"},
        BadSchema{"op(Tensor() x) -> Tensor", 11, "expected an alias set name"},
        BadSchema{"op(Tensor(a!x) -> Tensor", 13, "expected ')' to close the alias annotation"},
        BadSchema{"op(int[2 k) -> Tensor", 10, "expected ']' to close the list type"},
        BadSchema{"op(int[0] k) -> Tensor", 8, "at least 1"},
        BadSchema{"op(int[99999999999] k) -> Tensor", 8, "too large"},
        BadSchema{"op(Tensor x=None) -> Tensor", 12, "Tensor argument 'x' cannot have a default"},
        BadSchema{"op(SymInt s=3) -> Tensor", 12, "SymInt argument 's' cannot have a default"},
        BadSchema{"op(SymInt[] s=[1]) -> Tensor", 14, "cannot have a default"},
        BadSchema{"op(Tensor? b=1) -> Tensor", 14, "of type 'Tensor?' can only be None, found '1'"},
        BadSchema{"op(SymInt? s=2) -> Tensor", 14, "can only be None"},
        BadSchema{"op(int k=None) -> Tensor", 10, "None is not a valid default for 'k'"},
        BadSchema{"op(int[] k=None) -> Tensor", 12, "only optional types ('int[]?')"},
        BadSchema{"op(int k=1.5) -> Tensor", 10, "must be an integer, found '1.5'"},
        BadSchema{"op(int k=\"1\") -> Tensor", 10, "must be an integer, found '\"1\"'"},
        BadSchema{"op(int k=+-1) -> Tensor", 10, "must be an integer"},
        BadSchema{"op(int k=True) -> Tensor", 10, "must be an integer"},
        BadSchema{"op(int k=99999999999999999999) -> Tensor", 10, "out of range for int"},
        BadSchema{"op(float e=abc) -> Tensor", 12, "must be a number like 1e-05"},
        BadSchema{"op(float e=1e-) -> Tensor", 12, "must be a number"},
        BadSchema{"op(float e=--1) -> Tensor", 12, "must be a number"},
        BadSchema{"op(float e=1e999) -> Tensor", 12, "out of range for float"},
        BadSchema{"op(bool b=1) -> Tensor", 11, "must be True or False, found '1'"},
        BadSchema{"op(bool b=true) -> Tensor", 11, "must be True or False"},
        BadSchema{"op(str s=reflect) -> Tensor", 10, "must be a string literal in quotes"},
        BadSchema{"op(str s=\"abc) -> Tensor", 10, "unterminated string literal"},
        BadSchema{"op(str s='abc\\') -> Tensor", 10, "unterminated string literal"},
        BadSchema{"op(str s=\"a\\qb\") -> Tensor", 12, "invalid escape '\\q'"},
        BadSchema{"op(ScalarType t=float99) -> Tensor", 17, "must be a dtype name"},
        BadSchema{"op(ScalarType t=\"float32\") -> Tensor", 17, "must be a dtype name"},
        BadSchema{"op(int k=) -> Tensor", 10, "expected a default value, found ')'"},
        BadSchema{"op(int k=[1]) -> Tensor", 10, "must be a single int, not a list"},
        BadSchema{"op(int[] k=1) -> Tensor", 12, "must be a list like [1, 2]"},
        BadSchema{"op(int[2] k=[1, 2, 3]) -> Tensor", 13, "has 3 elements, but 'int[2]' needs 2"},
        BadSchema{"op(int[3]? k=[]) -> Tensor", 14, "has 0 elements"},
        BadSchema{"op(int[] k=[1, x]) -> Tensor", 16, "must be an integer, found 'x'"},
        BadSchema{"op(float[] k=[1, True]) -> Tensor", 18, "must be a number"},
        BadSchema{"op(bool[] k=[True, 0]) -> Tensor", 20, "must be True or False, found '0'"},
        BadSchema{"op(int[] k=[[1]]) -> Tensor", 13, "nested lists are not supported"},
        BadSchema{"op(int[] k=[1 2]) -> Tensor", 15, "expected ',' or ']' in the list"},
        BadSchema{"op(int[] k=[1, 2) -> Tensor", 17, "expected ',' or ']'"},
        BadSchema{"op(int[] k=[None]) -> Tensor", 13, "must be an integer, found 'None'"},
        BadSchema{"op(Tensor x, *, *, int k) -> Tensor", 17, "only one bare '*'"},
        BadSchema{"op(Tensor x, *) -> Tensor", 14, "must be followed by keyword-only arguments"},
        BadSchema{"op(Tensor x, * int k) -> Tensor", 16, "expected ',' or ')' after '*'"},
        BadSchema{"op(Tensor x) -> (Tensor y) z", 28, "unexpected 'z'"}),
    [](const ::testing::TestParamInfo<BadSchema>& param) { return std::to_string(param.index); });

TEST(SchemaErrorMessageTest, ShowsTextAndCaretUnderColumn) {
  const std::string text = "ns::op(Tensor x, Tensor y int k) -> Tensor";
  try {
    parse_schema(text);
    FAIL() << "no error";
  } catch (const SchemaError& error) {
    EXPECT_EQ(error.column(), 27u);
    EXPECT_EQ(std::string(error.what()),
              "invalid schema at column 27: expected ',' or ')' after argument 'y', found 'int'\n"
              "  ns::op(Tensor x, Tensor y int k) -> Tensor\n"
              "                            ^");
  }
}

TEST(SchemaErrorMessageTest, CaretAlignsWhenTextHasTabsAndNewlines) {
  try {
    parse_schema("op(\tTensor x,\n Bogus k) -> Tensor");
    FAIL() << "no error";
  } catch (const SchemaError& error) {
    EXPECT_EQ(error.column(), 16u);
    EXPECT_THAT(error.what(), HasSubstr("\n  op( Tensor x,  Bogus k) -> Tensor\n"
                                        "                 ^"));
  }
}

TEST(SchemaErrorMessageTest, IsAnAutopluginError) { EXPECT_THROW(parse_schema("op("), Error); }

}  // namespace
}  // namespace autoplugin
