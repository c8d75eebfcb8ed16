#include "autoplugin/dim.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <new>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "autoplugin/error.h"
#include "dim_internal.h"

// Counts heap allocations so that a test can show constant dims never allocate.
namespace {
std::atomic<std::size_t> g_allocations{0};
}  // namespace

// GCC 12 pairs the inlined replacement operators with its built-in knowledge of new and warns
// about free() on memory from operator new; here both sides are ours and use malloc/free.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  ++g_allocations;
  if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
  throw std::bad_alloc();
}
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }

namespace {

namespace ap = autoplugin;
using ap::Bool;
using ap::Dim;
using ap::DimOp;
using ap::Shape;
using ap::detail::node_of;
using ::testing::HasSubstr;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

__extension__ typedef __int128 Int128;  // an independent reference for the division tests

// Values for the symbols x (input 0), y (input 1), size (shape input 0) and size tensors.
struct Values {
  std::vector<std::vector<std::int64_t>> inputs;
  std::vector<std::vector<std::int64_t>> shape_values;
  std::vector<std::int64_t> size_tensors;
  ap::DimBindings bindings() const { return {inputs, shape_values, size_tensors}; }
};

std::int64_t eval(const Dim& dim, const Values& values) {
  return ap::evaluate(dim, values.bindings());
}

// The message of the ShapeError that `f` throws; a test failure when it throws none.
template <typename F>
std::string shape_error(F&& f) {
  try {
    f();
  } catch (const ap::ShapeError& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected a ShapeError";
  return {};
}

int count_operations(const std::string& program) {
  int count = 0;
  for (std::size_t begin = 0; begin < program.size();) {
    std::size_t end = program.find('\n', begin);
    if (program[begin] == 't') ++count;
    begin = end == std::string::npos ? program.size() : end + 1;
  }
  return count;
}

class DimTest : public ::testing::Test {
 protected:
  Shape x = Shape::symbolic_input(0, 4, "x");
  Shape y = Shape::symbolic_input(1, 2, "y");
};

// ----- folding -----

TEST(DimFolding, OperationNumberingAndNamesMatchTensorRT) {
  EXPECT_EQ(static_cast<int>(DimOp::Sum), 0);
  EXPECT_EQ(static_cast<int>(DimOp::Sub), 4);
  EXPECT_EQ(static_cast<int>(DimOp::CeilDiv), 8);
  EXPECT_EQ(ap::kDimOpCount, 9);
  EXPECT_EQ(ap::dim_op_name(DimOp::Prod), "PROD");
  EXPECT_EQ(ap::dim_op_name(DimOp::FloorDiv), "FLOOR_DIV");
  EXPECT_EQ(ap::dim_op_name(DimOp::CeilDiv), "CEIL_DIV");
}

TEST(DimFolding, ConstantsFold) {
  EXPECT_EQ((Dim(2) + 3).value(), 5);
  EXPECT_EQ((Dim(2) - 3).value(), -1);
  EXPECT_EQ((Dim(-4) * 3).value(), -12);
  EXPECT_EQ(ap::max(2, -3).value(), 2);
  EXPECT_EQ(ap::min(2, -3).value(), -3);
  EXPECT_EQ(ap::apply(DimOp::Equal, 3, 3).value(), 1);
  EXPECT_EQ(ap::apply(DimOp::Equal, 3, 4).value(), 0);
  EXPECT_EQ(ap::apply(DimOp::Less, 3, 4).value(), 1);
  EXPECT_EQ(ap::apply(DimOp::Less, 4, 4).value(), 0);
  EXPECT_EQ(ap::floor_div(-7, 2).value(), -4);
  EXPECT_EQ(ap::ceil_div(-7, 2).value(), -3);
  EXPECT_EQ(ap::floor_div(7, -2).value(), -4);
  EXPECT_EQ(ap::ceil_div(7, -2).value(), -3);
  EXPECT_EQ(ap::floor_div(-7, -2).value(), 3);
  EXPECT_EQ(ap::ceil_div(-7, -2).value(), 4);
  EXPECT_EQ((Dim(-7) / 2).value(), -4);
  EXPECT_EQ((Dim(-7) % 3).value(), 2);
  EXPECT_EQ((Dim(7) % -3).value(), -2);
  EXPECT_EQ((-Dim(5)).value(), -5);
  EXPECT_TRUE((Dim(5) + 1).is_constant());
  EXPECT_EQ(Dim().value(), 0);
}

TEST(DimFolding, CompoundAssignment) {
  Dim d = 10;
  d += 5;
  d -= 3;
  d *= 2;
  d /= -5;
  EXPECT_EQ(d.value(), -5);  // floor(24 / -5)
}

TEST(DimFolding, OverflowNamesOperationAndOperands) {
  EXPECT_THAT(shape_error([] { return Dim(kMax) + 1; }),
              HasSubstr("int64 overflow in SUM(9223372036854775807, 1)"));
  EXPECT_THAT(shape_error([] { return Dim(kMin) - 1; }), HasSubstr("SUB(-9223372036854775808, 1)"));
  EXPECT_THAT(shape_error([] { return Dim(kMax / 2 + 1) * 2; }),
              HasSubstr("int64 overflow in PROD(4611686018427387904, 2)"));
  EXPECT_THAT(shape_error([] { return -Dim(kMin); }), HasSubstr("overflow"));
  EXPECT_THAT(shape_error([] { return ap::floor_div(kMin, -1); }),
              HasSubstr("int64 overflow in FLOOR_DIV(-9223372036854775808, -1)"));
  EXPECT_THAT(shape_error([] { return ap::ceil_div(kMin, -1); }), HasSubstr("CEIL_DIV"));
  EXPECT_THAT(shape_error([] { return Dim(kMin) % -1; }), HasSubstr("overflow"));
}

TEST_F(DimTest, DivisionByZeroThrowsForConstantsAndConstantDivisors) {
  EXPECT_THAT(shape_error([] { return Dim(7) / 0; }),
              HasSubstr("division by zero in FLOOR_DIV(7, 0)"));
  EXPECT_THAT(shape_error([] { return ap::ceil_div(7, 0); }), HasSubstr("CEIL_DIV(7, 0)"));
  EXPECT_THAT(shape_error([] { return Dim(7) % 0; }), HasSubstr("division by zero"));
  // A constant zero divisor fails for every value of x, so it fails as soon as it is built.
  EXPECT_THAT(shape_error([&] { return x[0] / 0; }),
              HasSubstr("division by zero in floor_div(x[0], 0)"));
  EXPECT_THAT(shape_error([&] { return ap::ceil_div(x[0], x[1] - x[1]); }),
              HasSubstr("ceil_div(x[0], 0)"));
  EXPECT_THAT(shape_error([&] { return x[0] % 0; }), HasSubstr("division by zero"));
}

TEST(DimFolding, ConstantArithmeticNeverAllocates) {
  const std::size_t before = g_allocations.load();
  Dim d = 3;
  for (int i = 0; i < 100; ++i) {
    d = ap::select(d < 50, d * 2 + 1, d % 7 + ap::ceil_div(d, 3) - ap::floor_div(d, 2));
    d = ap::max(ap::min(d, 1000), -1000);
    d = (d != 3 && d >= 0) || d <= -1 ? d : d + 1;
  }
  const std::size_t allocations = g_allocations.load() - before;
  EXPECT_EQ(allocations, 0u);
  EXPECT_TRUE(d.is_constant());
}

TEST(DimFolding, UnsignedAboveInt64MaxThrows) {
  EXPECT_THAT(shape_error([] { return Dim(std::size_t{1} << 63); }),
              HasSubstr("9223372036854775808"));
  EXPECT_THAT(shape_error([] { return Dim(std::numeric_limits<std::uint64_t>::max()); }),
              HasSubstr("does not fit in int64"));
  EXPECT_EQ(Dim(static_cast<std::size_t>(kMax)).value(), kMax);
  EXPECT_EQ(Dim(std::numeric_limits<std::uint32_t>::max()).value(), 4294967295);
  EXPECT_EQ(Dim(-3).value(), -3);
  EXPECT_EQ(Dim(static_cast<std::int8_t>(-8)).value(), -8);
}

// ----- simplification -----

TEST_F(DimTest, IdentityRulesReturnTheOperand) {
  const Dim& a = x[0];
  EXPECT_EQ(node_of(a + 0), node_of(a));
  EXPECT_EQ(node_of(0 + a), node_of(a));
  EXPECT_EQ(node_of(a - 0), node_of(a));
  EXPECT_EQ(node_of(a * 1), node_of(a));
  EXPECT_EQ(node_of(1 * a), node_of(a));
  EXPECT_EQ(node_of(ap::floor_div(a, 1)), node_of(a));
  EXPECT_EQ(node_of(ap::ceil_div(a, 1)), node_of(a));
  EXPECT_EQ(node_of(a / 1), node_of(a));
  EXPECT_EQ(node_of(ap::max(a, a)), node_of(a));
  EXPECT_EQ(node_of(ap::min(a, a)), node_of(a));
  EXPECT_EQ(node_of(-(-a)), node_of(a));
}

TEST_F(DimTest, AnnihilatingRulesGiveConstants) {
  EXPECT_EQ((x[0] * 0).constant(), 0);
  EXPECT_EQ((0 * x[0]).constant(), 0);
  EXPECT_EQ((x[0] - x[0]).constant(), 0);
  // Structurally identical, separately built.
  EXPECT_EQ(((x[0] + x[1]) - (x[0] + x[1])).constant(), 0);
  EXPECT_EQ((x[0] * 2 == x[0] * 2).as_dim().constant(), 1);
  EXPECT_EQ((x[1] < x[1]).as_dim().constant(), 0);
  EXPECT_EQ((x[1] != x[1]).as_dim().constant(), 0);
  EXPECT_EQ((x[1] <= x[1]).as_dim().constant(), 1);
  EXPECT_EQ((ap::floor_div(x[0], 2) * 0).constant(), 0);  // a nonzero constant divisor cannot fail
  // Not identical: different symbols, different constants.
  EXPECT_FALSE((x[0] - x[1]).is_constant());
  EXPECT_FALSE(((x[0] + 1) - (x[0] + 2)).is_constant());
}

TEST_F(DimTest, RulesNeverDropASubexpressionThatMayDivideByZero) {
  const Dim quotient = ap::floor_div(x[0], x[1]);
  const Dim dropped[] = {quotient * 0,
                         quotient - quotient,
                         (quotient == quotient).as_dim(),
                         (quotient < quotient).as_dim(),
                         ap::select(Bool(true), x[2], quotient),
                         ap::select(quotient < 1, x[2], x[2])};
  const Values zero{{{5, 0, 9, 1}}, {}, {}};
  const Values two{{{5, 2, 9, 1}}, {}, {}};
  for (const Dim& d : dropped) {
    ASSERT_FALSE(d.is_constant()) << ap::to_string(d);
    EXPECT_THAT(shape_error([&] { return eval(d, zero); }), HasSubstr("division by zero"))
        << ap::to_string(d);
  }
  EXPECT_EQ(eval(dropped[0], two), 0);
  EXPECT_EQ(eval(dropped[1], two), 0);
  EXPECT_EQ(eval(dropped[2], two), 1);
  EXPECT_EQ(eval(dropped[3], two), 0);
  EXPECT_EQ(eval(dropped[4], two), 9);
  EXPECT_EQ(eval(dropped[5], two), 9);
  // max(q, q) keeps q itself, so it may simplify.
  EXPECT_EQ(node_of(ap::max(quotient, quotient)), node_of(quotient));
}

TEST_F(DimTest, ConstantsMoveRightForCommutativeOperations) {
  EXPECT_EQ(ap::to_string(3 + x[0]), "x[0] + 3");
  EXPECT_EQ(ap::to_string(3 * x[0]), "x[0] * 3");
  EXPECT_EQ(ap::to_string(ap::max(3, x[0])), "max(x[0], 3)");
  EXPECT_EQ(ap::to_string(ap::min(3, x[0])), "min(x[0], 3)");
  EXPECT_EQ(ap::to_string((3 == x[0]).as_dim()), "x[0] == 3");
  // Not commutative: stays.
  EXPECT_EQ(ap::to_string(3 - x[0]), "3 - x[0]");
  EXPECT_EQ(ap::to_string((3 < x[0]).as_dim()), "x[0] > 3");
  EXPECT_EQ(ap::to_string(ap::floor_div(3, x[0])), "floor_div(3, x[0])");
}

TEST_F(DimTest, ConstantOffsetsMerge) {
  EXPECT_EQ(ap::to_string(x[2] + 2 + 2), "x[2] + 4");
  EXPECT_EQ(ap::to_string(1 + x[2] + 1), "x[2] + 2");
  EXPECT_EQ(ap::to_string(x[0] + 2 - 5), "x[0] - 3");
  EXPECT_EQ(node_of(x[0] - 2 + 2), node_of(x[0]));
  EXPECT_EQ(node_of(x[0] + 2 - 2), node_of(x[0]));
  EXPECT_EQ(ap::to_string(x[0] - 2 - 3), "x[0] - 5");
  EXPECT_EQ(ap::to_string(x[0] + -3), "x[0] - 3");
  EXPECT_EQ(ap::to_string(x[0] - -3), "x[0] + 3");
  EXPECT_EQ(ap::to_string((3 - x[0]) + 2), "5 - x[0]");
  EXPECT_EQ(ap::to_string((3 - x[0]) - 5), "-2 - x[0]");
  EXPECT_EQ(ap::to_string(5 - (x[0] + 2)), "3 - x[0]");
  EXPECT_EQ(ap::to_string(5 - (x[0] - 2)), "7 - x[0]");
  EXPECT_EQ(ap::to_string(5 - (2 - x[0])), "x[0] + 3");
  EXPECT_EQ(ap::to_string(x[0] + -x[1]), "x[0] - x[1]");
  EXPECT_EQ(ap::to_string(x[0] - -x[1]), "x[0] + x[1]");
  EXPECT_EQ(ap::to_string(5 + -x[1]), "5 - x[1]");
}

TEST_F(DimTest, MergesThatWouldOverflowAreNotMade) {
  const Dim sum = x[0] + kMax + 1;
  EXPECT_EQ(ap::to_string(sum), "x[0] + 9223372036854775807 + 1");
  EXPECT_EQ(eval(sum, {{{-1}}, {}, {}}), kMax);
  EXPECT_THAT(shape_error([&] {
                return eval(sum, {{{0}}, {}, {}});
              }),
              HasSubstr("int64 overflow in SUM(9223372036854775807, 1) while evaluating "
                        "'x[0] + 9223372036854775807 + 1'"));
  EXPECT_EQ(ap::to_string(x[0] * kMax * 2), "x[0] * 9223372036854775807 * 2");
  EXPECT_EQ(ap::to_string(x[0] - kMax - 2), "x[0] - 9223372036854775807 - 2");
  // -INT64_MIN does not exist, so these keep the constant as written.
  EXPECT_EQ(ap::to_string(x[0] + kMin), "x[0] + (-9223372036854775808)");
  EXPECT_EQ(ap::to_string(x[0] - kMin), "x[0] - (-9223372036854775808)");
  EXPECT_EQ(eval(x[0] - kMin, {{{-1}}, {}, {}}), kMax);
}

TEST_F(DimTest, ProductsAndQuotientsSimplify) {
  EXPECT_EQ(ap::to_string(x[0] * 2 * 3), "x[0] * 6");
  EXPECT_EQ((x[0] * 2 * 0).constant(), 0);
  EXPECT_EQ(node_of(ap::floor_div(x[0] * 3, 3)), node_of(x[0]));
  EXPECT_EQ(node_of(ap::ceil_div(x[0] * -3, -3)), node_of(x[0]));
  EXPECT_EQ(ap::to_string(ap::floor_div(x[0] * 3, 2)), "floor_div(x[0] * 3, 2)");
  EXPECT_EQ(ap::to_string((x[0] / 2) * 2), "floor_div(x[0], 2) * 2");  // not x[0]
  EXPECT_EQ(ap::to_string(ap::floor_div(ap::floor_div(x[0], 2), 3)), "floor_div(x[0], 6)");
  EXPECT_EQ(ap::to_string(ap::floor_div(ap::floor_div(x[0], -2), 3)), "floor_div(x[0], -6)");
  EXPECT_EQ(ap::to_string(ap::ceil_div(ap::ceil_div(x[0], 2), 3)), "ceil_div(x[0], 6)");
  // Exact only for a positive outer divisor, and never across floor and ceil.
  EXPECT_EQ(ap::to_string(ap::floor_div(ap::floor_div(x[0], 2), -3)),
            "floor_div(floor_div(x[0], 2), -3)");
  EXPECT_EQ(ap::to_string(ap::ceil_div(ap::floor_div(x[0], 2), 3)),
            "ceil_div(floor_div(x[0], 2), 3)");
  EXPECT_EQ(ap::to_string(ap::max(ap::max(x[0], 2), 5)), "max(x[0], 5)");
  EXPECT_EQ(ap::to_string(ap::min(ap::min(x[0], 2), 5)), "min(x[0], 2)");
}

TEST_F(DimTest, OrWithAKnownTrueSideIsTrue) {
  EXPECT_EQ((Dim(1) == 1 || x[0] == 3).as_dim().constant(), 1);
  EXPECT_EQ((x[0] == 3 || Dim(2) > 1).as_dim().constant(), 1);
  EXPECT_EQ(ap::to_string((x[0] == 3 || x[0] == 3).as_dim()), "x[0] == 3");
  // A side that may divide by zero is kept: TensorRT would fail on it.
  EXPECT_FALSE((Dim(1) == 1 || ap::floor_div(4, x[1]) == 2).as_dim().is_constant());
}

TEST_F(DimTest, SelectFoldsAndLowersOntoArithmetic) {
  EXPECT_EQ(node_of(ap::select(Bool(true), x[0], x[1])), node_of(x[0]));
  EXPECT_EQ(node_of(ap::select(Bool(false), x[0], x[1])), node_of(x[1]));
  EXPECT_EQ(node_of(ap::select(Dim(7) < 3, x[0], x[1])), node_of(x[1]));
  EXPECT_TRUE(ap::identical(ap::select(x[3] < 4, x[0] + 1, x[0] + 1), x[0] + 1));
  const Dim s = ap::select(x[0] < 4, x[1], x[2]);
  EXPECT_EQ(eval(s, {{{3, 10, 20, 0}}, {}, {}}), 10);
  EXPECT_EQ(eval(s, {{{4, 10, 20, 0}}, {}, {}}), 20);
  // The arithmetic it lowers to is what the builder receives.
  EXPECT_TRUE(ap::identical(s, (x[0] < 4).as_dim() * x[1] + (x[0] >= 4).as_dim() * x[2]));
  EXPECT_EQ(ap::operation_program(std::vector{Shape{s}}, {}),
            "t0 = LESS(x[0], 4)\nt1 = PROD(t0, x[1])\nt2 = SUB(1, t0)\nt3 = PROD(t2, x[2])\n"
            "t4 = SUM(t1, t3)\nout[0] = t4\n");
}

// A select prints as written, also inside other expressions; its lowering is not shown.
TEST_F(DimTest, SelectPrintsAsWritten) {
  const Dim s = ap::select(x[0] < 4, x[1], x[2]);
  EXPECT_EQ(ap::to_string(s), "select(x[0] < 4, x[1], x[2])");
  EXPECT_EQ(ap::to_string(s + 1), "select(x[0] < 4, x[1], x[2]) + 1");
  EXPECT_EQ(ap::to_string(2 * ap::select(x[0] >= 2 && x[1] != 3, x[2] + 1, 0)),
            "select(x[0] >= 2 && x[1] != 3, x[2] + 1, 0) * 2");
  EXPECT_EQ(ap::to_string(ap::max(ap::select(x[0] < 4, 8, x[1]), ap::select(x[1] < 2, x[0], 1))),
            "max(select(x[0] < 4, 8, x[1]), select(x[1] < 2, x[0], 1))");
  // A decided condition leaves the branch it chose.
  EXPECT_EQ(ap::to_string(ap::select(Dim(3) < 4, x[1] + 1, x[2])), "x[1] + 1");
}

TEST_F(DimTest, IdenticalIsStructural) {
  EXPECT_TRUE(ap::identical(x[0] + 1, x[0] + 1));
  EXPECT_TRUE(ap::identical(Dim(3), 3));
  EXPECT_FALSE(ap::identical(Dim(3), 4));
  EXPECT_FALSE(ap::identical(x[0], 0));
  EXPECT_FALSE(ap::identical(x[0] + 1, x[0] + 2));
  EXPECT_FALSE(ap::identical(x[0] + x[1], x[1] + x[0]));
  EXPECT_FALSE(ap::identical(x[0], y[0]));
  EXPECT_FALSE(ap::identical(x[0], Dim::shape_value(0, 0, "x[0]")));
  // The label is presentation only: the same input extent is the same symbol.
  EXPECT_TRUE(ap::identical(x[0], Dim::input_extent(0, 0, "other")));
  // Deeply shared DAGs, built twice, compare quickly.
  Dim a = x[0];
  Dim b = x[0];
  for (int i = 0; i < 200; ++i) {
    a = a * x[1] + a;
    b = b * x[1] + b;
  }
  EXPECT_TRUE(ap::identical(a, b));
  EXPECT_FALSE(ap::identical(a, b + 1));
}

// ----- printing -----

TEST_F(DimTest, PrinterUsesMinimalParentheses) {
  EXPECT_EQ(ap::to_string(Dim(-5)), "-5");
  EXPECT_EQ(ap::to_string(x[0] + 1), "x[0] + 1");
  EXPECT_EQ(ap::to_string((x[0] + 1) * 2), "(x[0] + 1) * 2");
  EXPECT_EQ(ap::to_string(x[0] * 2 + 1), "x[0] * 2 + 1");
  EXPECT_EQ(ap::to_string(ap::floor_div(x[1] + 1, 2)), "floor_div(x[1] + 1, 2)");
  EXPECT_EQ(ap::to_string(ap::ceil_div(x[1], y[0])), "ceil_div(x[1], y[0])");
  EXPECT_EQ(ap::to_string(ap::max(x[0], y[0])), "max(x[0], y[0])");
  EXPECT_EQ(ap::to_string((x[0] == 3).as_dim()), "x[0] == 3");
  EXPECT_EQ(ap::to_string((x[0] < y[1]).as_dim()), "x[0] < y[1]");
  EXPECT_EQ(ap::to_string(((x[0] < 2).as_dim() == (x[1] < 3).as_dim()).as_dim()),
            "(x[0] < 2) == (x[1] < 3)");
  EXPECT_EQ(ap::to_string((x[0] + 1 < x[1] * 2).as_dim()), "x[0] + 1 < x[1] * 2");
  EXPECT_EQ(ap::to_string(-x[0]), "-x[0]");
  EXPECT_EQ(ap::to_string(-(x[0] + x[1])), "-(x[0] + x[1])");
  EXPECT_EQ(ap::to_string(-x[0] * 2), "-x[0] * 2");
  EXPECT_EQ(ap::to_string(x[0] * -3), "x[0] * (-3)");
  EXPECT_EQ(ap::to_string(x[0] - x[1] - x[2]), "x[0] - x[1] - x[2]");
  EXPECT_EQ(ap::to_string(x[0] - (x[1] - x[2])), "x[0] - (x[1] - x[2])");
  EXPECT_EQ(ap::to_string(x[0] * (x[1] * x[2])), "x[0] * (x[1] * x[2])");
  EXPECT_EQ(ap::to_string(x[0] - (x[1] + x[2])), "x[0] - (x[1] + x[2])");
  EXPECT_EQ(ap::to_string(x[0] % 4), "x[0] - floor_div(x[0], 4) * 4");
  EXPECT_EQ(ap::to_string((x[0] != 3).as_dim()), "x[0] != 3");
  EXPECT_EQ(ap::to_string((x[0] >= 3).as_dim()), "x[0] >= 3");
  EXPECT_EQ(ap::to_string((x[0] <= 3).as_dim()), "x[0] <= 3");
  EXPECT_EQ(ap::to_string((x[0] > 3).as_dim()), "x[0] > 3");
  EXPECT_EQ(ap::to_string((((x[0] < 3) || (x[1] < 4)) && (x[2] == 1)).as_dim()),
            "(x[0] < 3 || x[1] < 4) && x[2] == 1");
  EXPECT_EQ(ap::to_string(((x[0] < 3) && (x[0] < 3)).as_dim()), "x[0] < 3");
  EXPECT_EQ(ap::to_string((!(x[0] < 3)).as_dim()), "x[0] >= 3");
  EXPECT_EQ(ap::to_string(((x[0] < 3) && (x[1] < 4)).as_dim()), "x[0] < 3 && x[1] < 4");
  EXPECT_EQ(ap::to_string(((x[0] < 3) || (x[1] < 4)).as_dim()), "x[0] < 3 || x[1] < 4");
  EXPECT_EQ(ap::to_string(Dim::shape_value(0, 1, "size[1]") * 2), "size[1] * 2");
  EXPECT_EQ(ap::to_string(Dim::input_extent(2, 1, "")), "in2[1]");
  // Raw graphs print every node.
  EXPECT_EQ(ap::to_string(ap::detail::apply_unsimplified(DimOp::Sum, x[0], -3)), "x[0] + (-3)");
  EXPECT_EQ(ap::to_string(ap::detail::apply_unsimplified(DimOp::Prod, 2, 3)), "2 * 3");
}

TEST_F(DimTest, ShapePrints) {
  EXPECT_EQ(ap::to_string(Shape{x[0], x[1] + 4}), "[x[0], x[1] + 4]");
  EXPECT_EQ(ap::to_string(Shape{}), "[]");
  EXPECT_EQ(ap::to_string(Shape{2, -1}), "[2, -1]");
}

// ----- Bool -----

TEST_F(DimTest, BoolConvertsOnlyWhenConstant) {
  EXPECT_TRUE(static_cast<bool>(Bool(true)));
  EXPECT_FALSE(static_cast<bool>(Bool(false)));
  EXPECT_TRUE(static_cast<bool>(Dim(3) < 4));
  EXPECT_FALSE(static_cast<bool>(Dim(3) == 4));
  EXPECT_TRUE(static_cast<bool>(x[0] == x[0]));  // decided structurally
  EXPECT_TRUE(static_cast<bool>(!Bool(false) && (Bool(false) || Bool(true))));
  EXPECT_EQ(shape_error([&] { return static_cast<bool>(x[2] < 4); }),
            "shape function branches on a symbolic condition 'x[2] < 4'; use "
            "autoplugin::select(condition, a, b) or autoplugin::require(condition, message)");
  EXPECT_THAT(shape_error([&] {
                if (x[0] == 3) return 1;
                return 0;
              }),
              HasSubstr("'x[0] == 3'"));
}

TEST_F(DimTest, ValueOfSymbolicDimThrowsNamingIt) {
  EXPECT_EQ(Dim(4).constant(), 4);
  EXPECT_EQ((x[0] + 1).constant(), std::nullopt);
  EXPECT_THAT(shape_error([&] { return (x[0] + 1).value(); }), HasSubstr("'x[0] + 1'"));
}

// ----- Shape -----

TEST_F(DimTest, ShapeIndexingIsBoundsChecked) {
  Shape s = Shape::symbolic_input(0, 3, "x");
  const Shape& cs = s;
  EXPECT_EQ(ap::to_string(s[2]), "x[2]");
  EXPECT_EQ(node_of(s.at(-1)), node_of(s[2]));
  EXPECT_EQ(node_of(s.at(-3)), node_of(s[0]));
  EXPECT_EQ(node_of(cs.at(1)), node_of(s[1]));
  EXPECT_EQ(shape_error([&] { return s[3]; }), "axis 3 is out of range for a shape of rank 3");
  EXPECT_EQ(shape_error([&] { return cs[7]; }), "axis 7 is out of range for a shape of rank 3");
  EXPECT_EQ(shape_error([&] { return s.at(-4); }), "axis -4 is out of range for a shape of rank 3");
  EXPECT_EQ(shape_error([&] { return cs.at(3); }), "axis 3 is out of range for a shape of rank 3");
  EXPECT_THAT(shape_error([&] { Shape().at(0); }), HasSubstr("rank 0"));
}

TEST_F(DimTest, ShapeRankIsAtMostEight) {
  EXPECT_NO_THROW(Shape(std::vector<Dim>(8)));
  EXPECT_THAT(shape_error([] { return Shape(std::vector<Dim>(9)); }),
              HasSubstr("rank 9 exceeds TensorRT's maximum rank 8"));
  EXPECT_THAT(shape_error([] { return Shape{1, 2, 3, 4, 5, 6, 7, 8, 9}; }), HasSubstr("rank 9"));
  EXPECT_THAT(shape_error([] { return Shape::symbolic_input(0, 9, "x"); }), HasSubstr("rank 9"));
  const std::vector<std::int64_t> nine(9, 1);
  EXPECT_THAT(shape_error([&] { return Shape::concrete(nine); }), HasSubstr("rank 9"));
  Shape full(std::vector<Dim>(8));
  EXPECT_THAT(shape_error([&] { full.push_back(1); }), HasSubstr("rank 9"));
  EXPECT_THAT(shape_error([&] { full.insert(0, 1); }), HasSubstr("rank 9"));
  EXPECT_EQ(full.rank(), 8u);
}

TEST_F(DimTest, ShapeEditing) {
  Shape s{x[0], x[1]};
  s.push_back(5);
  s.insert(0, x[3]);
  s.insert(4, 7);
  EXPECT_EQ(ap::to_string(s), "[x[3], x[0], x[1], 5, 7]");
  s.erase(1);
  EXPECT_EQ(ap::to_string(s), "[x[3], x[1], 5, 7]");
  EXPECT_THAT(shape_error([&] { s.insert(5, 1); }), HasSubstr("axis 5"));
  EXPECT_THAT(shape_error([&] { s.erase(4); }), HasSubstr("axis 4"));
  for (Dim& d : s) d += 1;
  EXPECT_EQ(ap::to_string(s), "[x[3] + 1, x[1] + 1, 6, 8]");
}

TEST_F(DimTest, ShapeNumelAndValues) {
  const std::vector<std::int64_t> extents{2, 3, 4};
  const Shape concrete = Shape::concrete(extents);
  EXPECT_TRUE(concrete.is_constant());
  EXPECT_EQ(concrete.numel().value(), 24);
  EXPECT_EQ(concrete.values(), extents);
  EXPECT_EQ(Shape().numel().value(), 1);
  const Shape symbolic{3, x[1], x[0]};
  EXPECT_FALSE(symbolic.is_constant());
  EXPECT_EQ(ap::to_string(symbolic.numel()), "x[1] * 3 * x[0]");
  EXPECT_THAT(shape_error([&] { return symbolic.values(); }),
              HasSubstr("[3, x[1], x[0]] is symbolic at axis 1 ('x[1]')"));
}

// A user shape function (the design's circular pad) runs unchanged on integers and on symbols.
Shape circular_pad_shape(Shape x, std::span<const std::int64_t> padding) {
  for (std::size_t i = 0; i < padding.size() / 2; ++i) {
    x[x.rank() - 1 - i] += padding[2 * i] + padding[2 * i + 1];
  }
  return x;
}

TEST(DimShapeFunction, SameFunctionRunsConcretelyAndSymbolically) {
  const std::vector<std::int64_t> padding{1, 1, 2, 2};
  const std::vector<std::int64_t> extents{2, 5, 7};
  const Shape concrete = circular_pad_shape(Shape::concrete(extents), padding);
  const Shape symbolic = circular_pad_shape(Shape::symbolic_input(0, 3, "x"), padding);
  EXPECT_EQ(concrete.values(), (std::vector<std::int64_t>{2, 9, 9}));
  EXPECT_EQ(ap::to_string(symbolic), "[x[0], x[1] + 4, x[2] + 2]");
  const Values values{{extents}, {}, {}};
  EXPECT_EQ(ap::evaluate(symbolic, values.bindings()), concrete.values());
}

// ----- require, size tensors, scopes -----

TEST_F(DimTest, RequireOnConstants) {
  EXPECT_NO_THROW(ap::require(Dim(3) == 3, "never"));
  EXPECT_EQ(shape_error([] { ap::require(Dim(3) == 4, "x must have 4 channels"); }),
            "x must have 4 channels");
  EXPECT_NO_THROW(ap::require(x[0] == x[0], "decided structurally"));
}

TEST_F(DimTest, SymbolicRequireNeedsAScope) {
  EXPECT_THROW(ap::require(x[0] == 3, "m"), std::logic_error);
  ap::ShapeScope scope;
  ap::require(x[0] == 3, "x[0] must be 3");
  ap::require(Dim(1) < 2, "constant, not recorded");
  ap::require(y[0] < x[1], "y[0] must be below x[1]");
  ASSERT_EQ(scope.requirements().size(), 2u);
  EXPECT_EQ(scope.requirements()[0].message, "x[0] must be 3");
  EXPECT_EQ(ap::to_string(scope.requirements()[1].condition.as_dim()), "y[0] < x[1]");

  const Values good{{{3, 5, 0, 0}, {4, 0}}, {}, {}};
  EXPECT_NO_THROW(ap::check_requirements(scope.requirements(), good.bindings()));
  const Values bad{{{3, 5, 0, 0}, {6, 0}}, {}, {}};
  EXPECT_EQ(shape_error([&] { ap::check_requirements(scope.requirements(), bad.bindings()); }),
            "y[0] must be below x[1] (failed requirement: y[0] < x[1])");
}

TEST_F(DimTest, RequirementsOnShapeValuesFoldIntoTheExtents) {
  const Dim repeats = Dim::shape_value(0, 0, "repeats[0]");
  ap::ShapeScope scope;
  ap::require(repeats >= 0, "repeats are non-negative");
  ap::require(x[1] >= 2, "on input extents only: left to the backend");
  const Dim count = ap::size_tensor(x[0], x[0]);
  std::vector<Shape> shapes{Shape{x[0] * repeats, x[1]}, Shape{count}};
  const std::vector<ap::Requirement> folded =
      ap::fold_shape_value_requirements(shapes, scope.requirements());
  ASSERT_EQ(folded.size(), 1u);
  EXPECT_EQ(folded[0].message, "repeats are non-negative");

  const Values holds{{{3, 5, 0, 0}}, {{2}}, {4}};
  EXPECT_EQ(ap::evaluate(shapes[0], holds.bindings()), (std::vector<std::int64_t>{6, 5}));
  const Values fails{{{3, 5, 0, 0}}, {{-2}}, {4}};
  EXPECT_EQ(ap::evaluate(shapes[0], fails.bindings()), (std::vector<std::int64_t>{-1, -1}))
      << "every extent, also one that does not use the value, so the engine refuses them all";
  EXPECT_EQ(ap::evaluate(shapes[1], fails.bindings()), (std::vector<std::int64_t>{4}))
      << "a size tensor's extent is left as TensorRT requires it";
}

TEST_F(DimTest, WithoutRequirementsOnShapeValuesNothingFolds) {
  ap::ShapeScope scope;
  ap::require(x[1] >= 2, "on input extents only");
  std::vector<Shape> shapes{Shape{x[0], x[1]}};
  EXPECT_TRUE(ap::fold_shape_value_requirements(shapes, scope.requirements()).empty());
  EXPECT_EQ(ap::to_string(shapes[0]), "[x[0], x[1]]");
}

TEST_F(DimTest, ScopesNestAndAreThreadLocal) {
  ap::ShapeScope outer;
  ap::require(x[0] == 1, "outer");
  {
    ap::ShapeScope inner;
    ap::require(x[0] == 2, "inner");
    EXPECT_EQ(inner.requirements().size(), 1u);
    bool threw = false;
    std::thread([&] {
      try {
        ap::require(x[0] == 3, "other thread");
      } catch (const std::logic_error&) {
        threw = true;
      }
    }).join();
    EXPECT_TRUE(threw);
  }
  ap::require(x[0] == 4, "outer again");
  ASSERT_EQ(outer.requirements().size(), 2u);
  EXPECT_EQ(outer.requirements()[1].message, "outer again");
}

TEST_F(DimTest, SizeTensorsAreNumberedPerScope) {
  EXPECT_THROW(ap::size_tensor(1, 2), std::logic_error);
  ap::ShapeScope scope;
  const Dim s0 = ap::size_tensor(x[0], x[0] * x[1]);
  const Dim s1 = ap::size_tensor(4, 16);
  EXPECT_EQ(ap::to_string(s0), "size_tensor0");
  EXPECT_EQ(ap::to_string(s1 + 1), "size_tensor1 + 1");
  ASSERT_EQ(scope.size_tensors().size(), 2u);
  EXPECT_EQ(ap::to_string(scope.size_tensors()[0].upper), "x[0] * x[1]");
  EXPECT_EQ(scope.size_tensors()[1].opt.constant(), 4);
  EXPECT_FALSE(ap::identical(s0, s1));
  {
    ap::ShapeScope inner;
    EXPECT_EQ(ap::to_string(ap::size_tensor(1, 2)), "size_tensor0");
  }
  EXPECT_THAT(shape_error([&] { return ap::size_tensor(s0 + 1, 8); }),
              HasSubstr("opt value 'size_tensor0 + 1' of a size tensor depends on another"));
  EXPECT_THAT(shape_error([&] { return ap::size_tensor(1, ap::max(s1, 2)); }),
              HasSubstr("upper value 'max(size_tensor1, 2)'"));
  EXPECT_EQ(scope.size_tensors().size(), 2u);

  const Dim total = s0 * 2 + s1;
  EXPECT_EQ(eval(total, {{{3, 4}}, {}, {5, 7}}), 17);
  EXPECT_EQ(shape_error([&] {
              return eval(total, {{{3, 4}}, {}, {5}});
            }),
            "'size_tensor1' has no value: a data-dependent extent is known only after the kernel "
            "runs");
}

// ----- evaluation -----

TEST_F(DimTest, EvaluationNamesAMissingSymbol) {
  const Values values{{{1, 2}}, {{10}}, {}};
  EXPECT_EQ(eval(x[1] * 3, values), 6);
  EXPECT_THAT(shape_error([&] { return eval(x[3] + 1, values); }),
              HasSubstr("no value bound for 'x[3]' (input 0, axis 3)"));
  EXPECT_THAT(shape_error([&] { return eval(y[0], values); }),
              HasSubstr("no value bound for 'y[0]' (input 1, axis 0)"));
  const Dim size = Dim::shape_value(0, 1, "size[1]");
  EXPECT_THAT(shape_error([&] { return eval(size, values); }),
              HasSubstr("no value bound for 'size[1]' (shape input 0, index 1)"));
  EXPECT_EQ(eval(Dim::shape_value(0, 0, "size[0]") + 1, values), 11);
  EXPECT_THROW(Dim::input_extent(-1, 0, "bad"), std::invalid_argument);
}

TEST_F(DimTest, EvaluationErrorsNameTheExpression) {
  const Values values{{{kMax, 2, 0, -1}}, {}, {}};
  EXPECT_THAT(shape_error([&] { return eval(x[0] * x[1], values); }),
              HasSubstr("int64 overflow in PROD(9223372036854775807, 2) while evaluating "
                        "'x[0] * x[1]'"));
  EXPECT_THAT(shape_error([&] { return eval(x[1] / x[2], values); }),
              HasSubstr("division by zero in FLOOR_DIV(2, 0) while evaluating "
                        "'floor_div(x[1], x[2])'"));
  EXPECT_THAT(shape_error([&] { return eval(ap::ceil_div(-x[0] - 1, x[3]), values); }),
              HasSubstr("CEIL_DIV(-9223372036854775808, -1)"));
}

TEST_F(DimTest, EvaluatesRawConstantNodes) {
  const Dim raw = ap::detail::apply_unsimplified(
      DimOp::Sum, ap::detail::apply_unsimplified(DimOp::Prod, 2, 3), x[0]);
  EXPECT_FALSE(raw.is_constant());
  EXPECT_EQ(eval(raw, {{{4}}, {}, {}}), 10);
  const Dim zero_divisor = ap::detail::apply_unsimplified(DimOp::FloorDiv, 1, 0);
  EXPECT_THAT(shape_error([&] { return eval(zero_divisor, {}); }), HasSubstr("division by zero"));
}

TEST_F(DimTest, EvaluatesLargeSharedGraphsInLinearTime) {
  Dim d = x[0];
  for (int i = 0; i < 100; ++i) d = ap::max(d, x[1]) + ap::min(d, x[1]) - d;  // 2^100 paths
  EXPECT_EQ(eval(d, {{{3, 5}}, {}, {}}), 5);
}

// ----- lowering -----

// Records how many times each sink entry is called; handles are distinct addresses.
class CountingSink final : public ap::DimSink {
 public:
  Handle constant(std::int64_t) override { return next(constants); }
  Handle input_extent(int, int, std::string_view) override { return next(symbols); }
  Handle shape_value(int, int, std::string_view) override { return next(symbols); }
  Handle size_tensor(int, Handle, Handle) override { return next(size_tensors); }
  Handle operation(DimOp, Handle a, Handle b) override {
    EXPECT_NE(a, nullptr);
    EXPECT_NE(b, nullptr);
    return next(operations);
  }
  int constants = 0;
  int symbols = 0;
  int size_tensors = 0;
  int operations = 0;

 private:
  Handle next(int& counter) {
    ++counter;
    return &storage_[static_cast<std::size_t>(total_++)];
  }
  char storage_[4096] = {};
  int total_ = 0;
};

TEST_F(DimTest, ProgramFoldsOffsetsIntoOneOperation) {
  const Shape shapes[] = {{x[0], x[1], x[2] + 2 + 2}};
  const std::string program = ap::operation_program(shapes, {});
  EXPECT_EQ(program, "t0 = SUM(x[2], 4)\nout[0] = x[0]\nout[1] = x[1]\nout[2] = t0\n");
  EXPECT_EQ(count_operations(program), 1);
}

TEST_F(DimTest, ConstantShapeNeedsNoOperations) {
  const Shape shapes[] = {{2, ap::max(3, 7) * 2}};
  const std::string names[] = {"y"};
  EXPECT_EQ(ap::operation_program(shapes, names), "y[0] = 2\ny[1] = 14\n");
  CountingSink sink;
  ap::Lowering lowering(sink);
  lowering.lower(shapes[0][0]);
  lowering.lower(shapes[0][1]);
  lowering.lower(2);
  EXPECT_EQ(sink.operations, 0);
  EXPECT_EQ(sink.constants, 2);  // 2 is emitted once
}

TEST_F(DimTest, SharedSubexpressionsAreEmittedOnce) {
  const Dim a = x[0] + x[1];
  const Shape shapes[] = {{a * 2, a * 3}, {x[0] + x[1], (x[0] + x[1]) * 2}};
  const std::string program = ap::operation_program(shapes, {});
  EXPECT_EQ(program,
            "t0 = SUM(x[0], x[1])\n"
            "t1 = PROD(t0, 2)\n"
            "t2 = PROD(t0, 3)\n"
            "out0[0] = t1\n"
            "out0[1] = t2\n"
            "out1[0] = t0\n"
            "out1[1] = t1\n");
  CountingSink sink;
  ap::Lowering lowering(sink);
  for (const Shape& shape : shapes) {
    for (const Dim& d : shape) lowering.lower(d);
  }
  EXPECT_EQ(sink.operations, count_operations(program));
  EXPECT_EQ(sink.symbols, 2);
  EXPECT_EQ(sink.constants, 2);
  // The same Lowering keeps sharing across calls, also with temporaries.
  lowering.lower((x[0] + x[1]) * 3);
  EXPECT_EQ(sink.operations, 3);
  lowering.lower(x[0] * x[1]);
  EXPECT_EQ(sink.operations, 4);
}

TEST_F(DimTest, ProgramDeclaresSizeTensors) {
  ap::ShapeScope scope;
  const Dim s = ap::size_tensor(x[0] * 2, x[0] * 4);
  const Shape shapes[] = {{s, Dim::shape_value(0, 0, "size[0]") - 1}, {s}};
  const std::string names[] = {"values", "count"};
  EXPECT_EQ(ap::operation_program(shapes, names),
            "t0 = PROD(x[0], 2)\n"
            "t1 = PROD(x[0], 4)\n"
            "s0 = SIZE_TENSOR(opt=t0, upper=t1)\n"
            "t2 = SUB(size[0], 1)\n"
            "values[0] = s0\n"
            "values[1] = t2\n"
            "count[0] = s0\n");
  EXPECT_THROW(ap::operation_program(shapes, std::span(names, 1)), std::invalid_argument);
}

// ----- property tests -----

using Rng = std::mt19937_64;

int pick(Rng& rng, int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); }

// The library's own operators and derived operations.
struct LibraryOps {
  Dim binary(DimOp op, const Dim& a, const Dim& b) const {
    switch (op) {
      case DimOp::Sum:
        return a + b;
      case DimOp::Sub:
        return a - b;
      case DimOp::Prod:
        return a * b;
      case DimOp::FloorDiv:
        return a / b;
      default:
        return ap::apply(op, a, b);
    }
  }
  Dim mod(const Dim& a, const Dim& b) const { return a % b; }
  Dim negate(const Dim& a) const { return -a; }
  Dim select(const Dim& c, const Dim& t, const Dim& f) const { return ap::select(Bool(c), t, f); }
  Dim compare(int which, const Dim& a, const Dim& b) const {
    switch (which) {
      case 0:
        return (a == b).as_dim();
      case 1:
        return (a < b).as_dim();
      case 2:
        return (a != b).as_dim();
      case 3:
        return (a <= b).as_dim();
      case 4:
        return (a > b).as_dim();
      default:
        return (a >= b).as_dim();
    }
  }
  Dim logical_not(const Dim& c) const { return (!Bool(c)).as_dim(); }
  Dim logical_and(const Dim& c, const Dim& d) const { return (Bool(c) && Bool(d)).as_dim(); }
  Dim logical_or(const Dim& c, const Dim& d) const { return (Bool(c) || Bool(d)).as_dim(); }
};

// The nine operations through apply() or apply_unsimplified(), with the derived operations
// written out here from their documented definitions.
struct ApplyOps {
  bool simplify;
  Dim binary(DimOp op, const Dim& a, const Dim& b) const {
    return simplify ? ap::apply(op, a, b) : ap::detail::apply_unsimplified(op, a, b);
  }
  Dim mod(const Dim& a, const Dim& b) const {
    return binary(DimOp::Sub, a, binary(DimOp::Prod, binary(DimOp::FloorDiv, a, b), b));
  }
  Dim negate(const Dim& a) const { return binary(DimOp::Sub, 0, a); }
  Dim select(const Dim& c, const Dim& t, const Dim& f) const {
    return binary(DimOp::Sum, binary(DimOp::Prod, c, t),
                  binary(DimOp::Prod, binary(DimOp::Sub, 1, c), f));
  }
  Dim compare(int which, const Dim& a, const Dim& b) const {
    switch (which) {
      case 0:
        return binary(DimOp::Equal, a, b);
      case 1:
        return binary(DimOp::Less, a, b);
      case 2:
        return binary(DimOp::Sub, 1, binary(DimOp::Equal, a, b));
      case 3:
        return binary(DimOp::Sub, 1, binary(DimOp::Less, b, a));
      case 4:
        return binary(DimOp::Less, b, a);
      default:
        return binary(DimOp::Sub, 1, binary(DimOp::Less, a, b));
    }
  }
  Dim logical_not(const Dim& c) const { return binary(DimOp::Sub, 1, c); }
  Dim logical_and(const Dim& c, const Dim& d) const { return binary(DimOp::Prod, c, d); }
  Dim logical_or(const Dim& c, const Dim& d) const { return binary(DimOp::Max, c, d); }
};

// Random expression trees over x[0..3], y[0..1] and small constants. Choices depend only on the
// random stream, never on values, so the same seed builds the same tree over any inputs and ops.
// Operands are built into locals first: argument evaluation order is unspecified.
template <typename Ops>
class Generator {
 public:
  Generator(std::uint64_t seed, const Ops& ops, const Shape& x, const Shape& y)
      : rng_(seed), ops_(ops), x_(x), y_(y) {}

  Dim dim(int depth) {
    const int choice = pick(rng_, depth <= 0 ? 3 : 20);
    switch (choice) {
      case 0: {
        const int symbol = pick(rng_, 6);
        return symbol < 4 ? x_[static_cast<std::size_t>(symbol)]
                          : y_[static_cast<std::size_t>(symbol - 4)];
      }
      case 1:
        return pick(rng_, 9) - 4;
      case 2: {
        if (pool_.empty()) return 1;
        return pool_[static_cast<std::size_t>(pick(rng_, static_cast<int>(pool_.size())))];
      }
      default:
        break;
    }
    Dim result;
    if (choice < 12) {
      const Dim a = dim(depth - 1);
      const Dim b = dim(depth - 1);
      result = ops_.binary(static_cast<DimOp>(choice - 3), a, b);
    } else if (choice == 12) {
      const Dim a = dim(depth - 1);
      const Dim b = dim(depth - 1);
      result = ops_.mod(a, b);
    } else if (choice == 13) {
      result = ops_.negate(dim(depth - 1));
    } else if (choice == 14) {
      const Dim c = condition(depth - 1);
      const Dim t = dim(depth - 1);
      const Dim f = dim(depth - 1);
      result = ops_.select(c, t, f);
    } else if (choice == 15) {
      result = condition(depth - 1);
    } else {  // a constant right operand exercises the folding and merging rules
      const Dim a = dim(depth - 1);
      const auto op = static_cast<DimOp>(pick(rng_, ap::kDimOpCount));
      result = ops_.binary(op, a, pick(rng_, 9) - 4);
    }
    // Reusing small subtrees creates shared and structurally identical nodes (x - x, ...).
    if (depth <= 2) pool_.push_back(result);
    return result;
  }

  Dim condition(int depth) {
    const int choice = pick(rng_, depth <= 0 ? 6 : 9);
    if (choice < 6) {
      const Dim a = dim(depth - 1);
      const Dim b = dim(depth - 1);
      return ops_.compare(choice, a, b);
    }
    if (choice == 6) return ops_.logical_not(condition(depth - 1));
    const Dim c = condition(depth - 1);
    const Dim d = condition(depth - 1);
    return choice == 7 ? ops_.logical_and(c, d) : ops_.logical_or(c, d);
  }

 private:
  Rng rng_;
  const Ops& ops_;
  const Shape& x_;
  const Shape& y_;
  std::vector<Dim> pool_;
};

// What a computation produced: a value, or which kind of ShapeError.
struct Outcome {
  enum Kind { kValue, kDivisionByZero, kOverflow } kind = kValue;
  std::int64_t value = 0;
};

template <typename F>
Outcome outcome_of(F&& f) {
  try {
    return {Outcome::kValue, f()};
  } catch (const ap::ShapeError& error) {
    const std::string message = error.what();
    if (message.find("division by zero") != std::string::npos) return {Outcome::kDivisionByZero};
    EXPECT_THAT(message, HasSubstr("overflow"));
    return {Outcome::kOverflow};
  }
}

std::vector<std::int64_t> random_extents(Rng& rng, std::size_t rank) {
  std::vector<std::int64_t> extents(rank);
  for (auto& extent : extents) extent = pick(rng, 11) - 5;
  return extents;
}

// (a) Evaluating a symbolic build equals running the same function on integers; errors agree.
TEST(DimProperty, SymbolicEvaluationMatchesConcreteEvaluation) {
  const Shape sx = Shape::symbolic_input(0, 4, "x");
  const Shape sy = Shape::symbolic_input(1, 2, "y");
  const LibraryOps ops;
  Rng rng(20240611);
  int values = 0;
  int divisions_by_zero = 0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    const std::uint64_t seed = rng();
    const int depth = 1 + pick(rng, 4);
    Values inputs{{random_extents(rng, 4), random_extents(rng, 2)}, {}, {}};
    const Shape cx = Shape::concrete(inputs.inputs[0]);
    const Shape cy = Shape::concrete(inputs.inputs[1]);

    const Outcome concrete = outcome_of([&] {
      Generator<LibraryOps> generator(seed, ops, cx, cy);
      const Dim d = generator.dim(depth);
      EXPECT_TRUE(d.is_constant());
      return d.value();
    });
    if (concrete.kind == Outcome::kOverflow) continue;
    std::string text;
    const Outcome symbolic = outcome_of([&] {
      Generator<LibraryOps> generator(seed, ops, sx, sy);
      const Dim d = generator.dim(depth);
      text = ap::to_string(d);
      return eval(d, inputs);
    });
    ASSERT_EQ(symbolic.kind, concrete.kind) << "seed " << seed << ": " << text;
    ASSERT_EQ(symbolic.value, concrete.value) << "seed " << seed << ": " << text;
    ++(concrete.kind == Outcome::kValue ? values : divisions_by_zero);
  }
  EXPECT_GT(values, 2000);
  EXPECT_GT(divisions_by_zero, 20);
}

// (b) The simplifier never changes a defined value, and keeps every division by zero.
TEST(DimProperty, SimplificationPreservesValues) {
  const Shape sx = Shape::symbolic_input(0, 4, "x");
  const Shape sy = Shape::symbolic_input(1, 2, "y");
  const ApplyOps simplified_ops{true};
  const ApplyOps raw_ops{false};
  Rng rng(7);
  int compared = 0;
  int simplified_nodes = 0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    const std::uint64_t seed = rng();
    const int depth = 1 + pick(rng, 4);
    const Dim raw = Generator<ApplyOps>(seed, raw_ops, sx, sy).dim(depth);
    std::optional<Dim> simplified;
    try {
      simplified = Generator<ApplyOps>(seed, simplified_ops, sx, sy).dim(depth);
    } catch (const ap::ShapeError& error) {
      ASSERT_THAT(error.what(), HasSubstr("division by zero"));
    }
    if (simplified && !ap::identical(*simplified, raw)) ++simplified_nodes;
    for (int binding = 0; binding < 3; ++binding) {
      const Values inputs{{random_extents(rng, 4), random_extents(rng, 2)}, {}, {}};
      const Outcome expected = outcome_of([&] { return eval(raw, inputs); });
      if (expected.kind == Outcome::kOverflow) continue;
      if (!simplified) {  // a divisor folded to 0: the raw tree divides by zero everywhere
        ASSERT_EQ(expected.kind, Outcome::kDivisionByZero) << ap::to_string(raw);
        continue;
      }
      const Outcome actual = outcome_of([&] { return eval(*simplified, inputs); });
      ASSERT_EQ(actual.kind == Outcome::kValue, expected.kind == Outcome::kValue)
          << ap::to_string(raw) << "  =>  " << ap::to_string(*simplified);
      ASSERT_EQ(actual.value, expected.value)
          << ap::to_string(raw) << "  =>  " << ap::to_string(*simplified);
      ++compared;
    }
  }
  EXPECT_GT(compared, 6000);
  EXPECT_GT(simplified_nodes, 1000);  // the simplifier actually had work to do
}

// Lowering emits exactly what operation_program prints, for random shapes.
TEST(DimProperty, ProgramCountsMatchSinkCalls) {
  const Shape sx = Shape::symbolic_input(0, 4, "x");
  const Shape sy = Shape::symbolic_input(1, 2, "y");
  const LibraryOps ops;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    Shape shape;
    try {
      Generator<LibraryOps> generator(seed, ops, sx, sy);
      for (int axis = 0; axis < 3; ++axis) shape.push_back(generator.dim(3));
    } catch (const ap::ShapeError&) {
      continue;
    }
    CountingSink sink;
    ap::Lowering lowering(sink);
    for (const Dim& d : shape) lowering.lower(d);
    const Shape shapes[] = {shape};
    ASSERT_EQ(count_operations(ap::operation_program(shapes, {})), sink.operations);
  }
}

// (c) Division semantics against the defining inequalities, computed in 128-bit arithmetic.
void expect_division(std::int64_t a, std::int64_t b) {
  const Int128 wide_a = a;
  const Int128 wide_b = b;
  const Int128 magnitude_b = b < 0 ? -wide_b : wide_b;
  if (a == kMin && b == -1) {
    EXPECT_THAT(shape_error([&] { return ap::floor_div(a, b); }), HasSubstr("overflow"));
    EXPECT_THAT(shape_error([&] { return ap::ceil_div(a, b); }), HasSubstr("overflow"));
    return;
  }
  // floor: the remainder a - b*q has the sign of b (or is 0) and is smaller than |b|.
  const Int128 floor_remainder = wide_a - wide_b * ap::floor_div(a, b).value();
  EXPECT_TRUE(floor_remainder * wide_b >= 0) << a << " // " << b;
  EXPECT_TRUE((floor_remainder < 0 ? -floor_remainder : floor_remainder) < magnitude_b);
  // ceil: the remainder has the opposite sign of b (or is 0).
  const Int128 ceil_remainder = wide_a - wide_b * ap::ceil_div(a, b).value();
  EXPECT_TRUE(ceil_remainder * wide_b <= 0) << "ceil_div(" << a << ", " << b << ")";
  EXPECT_TRUE((ceil_remainder < 0 ? -ceil_remainder : ceil_remainder) < magnitude_b);
  // %: the floor remainder, unless its lowering's product floor_div(a, b) * b overflows.
  const Int128 product = wide_a - floor_remainder;
  if (product >= kMin && product <= kMax) {
    EXPECT_TRUE((Dim(a) % b).value() == floor_remainder) << a << " % " << b;
  } else {
    EXPECT_THAT(shape_error([&] { return Dim(a) % b; }), HasSubstr("int64 overflow in PROD"));
  }
}

TEST(DimProperty, DivisionMatchesReferenceOnAllSigns) {
  const Shape sx = Shape::symbolic_input(0, 2, "x");
  const Dim floor_q = ap::floor_div(sx[0], sx[1]);
  const Dim ceil_q = ap::ceil_div(sx[0], sx[1]);
  const Dim remainder = sx[0] % sx[1];
  for (std::int64_t a = -30; a <= 30; ++a) {
    for (std::int64_t b = -9; b <= 9; ++b) {
      if (b == 0) continue;
      const long double exact = static_cast<long double>(a) / static_cast<long double>(b);
      const auto floor_ref = static_cast<std::int64_t>(std::floor(exact));
      const auto ceil_ref = static_cast<std::int64_t>(std::ceil(exact));
      ASSERT_EQ(ap::floor_div(a, b).value(), floor_ref) << a << ", " << b;
      ASSERT_EQ(ap::ceil_div(a, b).value(), ceil_ref) << a << ", " << b;
      ASSERT_EQ((Dim(a) % b).value(), a - b * floor_ref) << a << ", " << b;
      const Values values{{{a, b}}, {}, {}};
      ASSERT_EQ(eval(floor_q, values), floor_ref);
      ASSERT_EQ(eval(ceil_q, values), ceil_ref);
      ASSERT_EQ(eval(remainder, values), a - b * floor_ref);
      expect_division(a, b);
    }
  }
  const Values overflow{{{kMin, -1}}, {}, {}};
  EXPECT_THAT(shape_error([&] { return eval(floor_q, overflow); }), HasSubstr("overflow"));
  EXPECT_THAT(shape_error([&] { return eval(ceil_q, overflow); }), HasSubstr("overflow"));
  EXPECT_THAT(shape_error([&] { return eval(remainder, overflow); }), HasSubstr("overflow"));
}

TEST(DimProperty, DivisionMatchesReferenceOnExtremeValues) {
  Rng rng(99);
  const std::int64_t edges[] = {kMin, kMin + 1, -kMax / 2, -3, -2, -1, 1, 2, 3, kMax / 2, kMax};
  auto random_value = [&]() -> std::int64_t {
    switch (pick(rng, 3)) {
      case 0:
        return edges[pick(rng, static_cast<int>(std::size(edges)))];
      case 1:
        return static_cast<std::int64_t>(rng());
      default:
        return static_cast<std::int64_t>(rng()) >> pick(rng, 63);
    }
  };
  for (int i = 0; i < 5000; ++i) {
    const std::int64_t a = random_value();
    const std::int64_t b = random_value();
    if (b != 0) expect_division(a, b);
  }
  for (std::int64_t a : edges) {
    for (std::int64_t b : edges) expect_division(a, b);
  }
}

}  // namespace
