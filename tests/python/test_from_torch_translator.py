"""Unit tests of the sympy -> ap::Dim translator of from-torch, and of the launcher's typed
expressions printed to C++ (needs sympy only, no torch).

Each operator is checked twice: the exact C++ text, and its value: the C++ expression is
evaluated with the semantics ap::Dim gives it (floor division, Python's %, ...) at many integer
points and compared with sympy's own value of the expression. The forms Torch-TensorRT's
translator fails on (//, %, c - s, 2*s, max/min) have their own tests.
"""
import importlib.util
import itertools
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))

try:
    import sympy
except ImportError:  # the CTest entry skips with a reason before getting here
    print("SKIPPED: sympy is not installed")
    sys.exit(0)

from autoplugin.from_torch import expressions as E  # noqa: E402
from autoplugin.from_torch import sympy_to_dim  # noqa: E402
from autoplugin.from_torch.sympy_to_dim import TranslationError, ap_condition, ap_dim  # noqa: E402


# Stand-ins for PyTorch's sympy functions (torch.utils._sympy.functions), recognised by name.
class FloorDiv(sympy.Function):
    is_integer = True

    @classmethod
    def eval(cls, a, b):
        if a.is_Integer and b.is_Integer:
            return sympy.Integer(int(a) // int(b))


class CeilDiv(sympy.Function):
    is_integer = True

    @classmethod
    def eval(cls, a, b):
        if a.is_Integer and b.is_Integer:
            return sympy.Integer(-(-int(a) // int(b)))


class PythonMod(sympy.Function):
    is_integer = True

    @classmethod
    def eval(cls, a, b):
        if a.is_Integer and b.is_Integer:
            return sympy.Integer(int(a) % int(b))


s0, s1, p0, p1 = sympy.symbols("s0 s1 p0 p1", integer=True)
NAMES = {s0: "x[0]", s1: "x[1]", p0: "padding_0", p1: "padding_1"}


def as_python(cpp):
    """The C++ text as Python with ap::Dim's semantics."""
    text = cpp.replace("ap::Bool(true)", "True").replace("ap::Bool(false)", "False")
    text = text.replace("ap::floor_div", "floor_div").replace("ap::ceil_div", "ceil_div")
    text = text.replace("ap::max", "max").replace("ap::min", "min").replace("ap::select", "select")
    text = text.replace("&&", " and ").replace("||", " or ")
    text = re.sub(r"!(?!=)", " not ", text)
    return text


def evaluate_cpp(cpp, x, padding_0, padding_1):
    scope = {"x": x, "padding_0": padding_0, "padding_1": padding_1,
             "floor_div": lambda a, b: a // b, "ceil_div": lambda a, b: -(-a // b),
             "select": lambda c, a, b: a if c else b, "max": max, "min": min}
    return eval(as_python(cpp), scope)  # noqa: S307 - our own generated test expressions


POINTS = [dict(zip((s0, s1, p0, p1), values))
          for values in itertools.product([0, 1, 2, 7, 16], [1, 3, 5], [-3, 0, 2], [-1, 4])]


class TranslatorTest(unittest.TestCase):
    def check(self, expr, expected_text, positive_divisors=True):
        text = ap_dim(expr, NAMES)
        self.assertEqual(text, expected_text)
        for point in POINTS:
            want = expr.xreplace(point)
            got = evaluate_cpp(text, [point[s0], point[s1]], point[p0], point[p1])
            self.assertEqual(int(want), got, f"{expr} at {point}: C++ {text}")

    def check_condition(self, expr, expected_text):
        text = ap_condition(expr, NAMES)
        self.assertEqual(text, expected_text)
        for point in POINTS:
            want = bool(expr.xreplace(point))
            got = evaluate_cpp(text, [point[s0], point[s1]], point[p0], point[p1])
            self.assertEqual(want, bool(got), f"{expr} at {point}: C++ {text}")

    # + - *
    def test_sum(self):
        self.check(s0 + p0 + p1, "x[0] + padding_0 + padding_1")

    def test_constant_minus_symbol(self):  # Torch-TensorRT fails on c - s
        self.check(5 - s0, "5 - x[0]")

    def test_symbol_minus_constant(self):
        self.check(s0 - 3, "x[0] - 3")

    def test_constant_times_symbol(self):  # Torch-TensorRT fails on 2*s
        self.check(2 * s0, "2 * x[0]")

    def test_difference_of_multiples(self):
        self.check(s0 - 2 * s1, "x[0] - 2 * x[1]")

    def test_negation(self):
        self.check(-s0, "-x[0]")

    def test_product_and_power(self):
        self.check(s0 * s1 * (s0 + 1), "x[0] * x[1] * (x[0] + 1)")
        self.check(s1 ** 2, "x[1] * x[1]")

    # floor and ceiling division
    def test_floor_div(self):  # Torch-TensorRT fails on //
        self.check(FloorDiv(s0, 3), "ap::floor_div(x[0], 3)")

    def test_floor_div_of_negative(self):
        self.check(FloorDiv(p0 - 5, 2), "ap::floor_div(padding_0 - 5, 2)")

    def test_sympy_floor_of_quotient(self):
        self.check(sympy.floor((s0 + s1) / 3), "ap::floor_div(x[0] + x[1], 3)")

    def test_ceil_div(self):
        self.check(CeilDiv(s0, 4), "ap::ceil_div(x[0], 4)")

    def test_ceil_div_as_negated_floor_div(self):  # how PyTorch writes -(-a // b)
        self.check(-FloorDiv(-s0, 4), "ap::ceil_div(x[0], 4)")
        self.check(s1 - FloorDiv(-s0, 4), "x[1] + ap::ceil_div(x[0], 4)")
        # -(a // -b), how Python users write it (a block count in a fake: `-(n // -block)`)
        self.check(-FloorDiv(s0, -s1), "ap::ceil_div(x[0], x[1])")

    def test_sympy_ceiling_of_quotient(self):
        self.check(sympy.ceiling(s0 / 4), "ap::ceil_div(x[0], 4)")

    # %
    def test_python_mod(self):  # Torch-TensorRT fails on %
        self.check(PythonMod(p0, 3), "padding_0 % 3")
        self.check(PythonMod(s0 + p0, s1), "(x[0] + padding_0) % x[1]")

    def test_sympy_mod(self):
        self.check(sympy.Mod(s0, s1), "x[0] % x[1]")

    # max and min: every argument kept (Torch-TensorRT picks one)
    def test_max(self):
        self.check(sympy.Max(s0, p0), "ap::max(x[0], padding_0)")

    def test_min_of_three(self):
        self.check(sympy.Min(s0, s1, p1 + 3), "ap::min(x[0], ap::min(x[1], padding_1 + 3))")

    def test_max_with_constant(self):
        self.check(sympy.Max(1, s0 - p0), "ap::max(x[0] - padding_0, 1)")

    def test_nested_min_in_sum(self):
        self.check(s1 - sympy.Min(s1, p0) + 1, "x[1] + 1 - ap::min(x[1], padding_0)")

    # Piecewise -> select
    def test_piecewise(self):
        self.check(sympy.Piecewise((s0, s0 < s1), (s1 + 1, True)),
                   "ap::select(x[0] < x[1], x[0], x[1] + 1)")

    def test_piecewise_three_pieces(self):
        expr = sympy.Piecewise((0, sympy.Eq(s0, 0)), (s1, s0 <= 2), (2 * s1, True))
        self.check(expr, "ap::select(x[0] == 0, 0, ap::select(x[0] <= 2, x[1], 2 * x[1]))")

    # guards -> conditions for ap::require
    def test_relations(self):
        self.check_condition(sympy.Le(p0, s0), "padding_0 <= x[0]")
        self.check_condition(sympy.Gt(s0 + p0, 0), "x[0] + padding_0 > 0")
        self.check_condition(sympy.Ne(s0, 3), "x[0] != 3")

    def test_and_or_not(self):
        self.check_condition(sympy.And(p0 <= s0, sympy.Ne(s1, 3)),
                             "(x[1] != 3) && (padding_0 <= x[0])")
        self.check_condition(sympy.Or(sympy.Lt(s0, 2), sympy.Ge(p1, 1)),
                             "(x[0] < 2) || (padding_1 >= 1)")
        self.check_condition(sympy.Not(sympy.Eq(s0, s1)), "x[0] != x[1]")

    # refusals
    def test_rational_coefficient_is_refused(self):
        with self.assertRaisesRegex(TranslationError, "non-integer"):
            ap_dim(s0 / 2, NAMES)

    def test_unknown_symbol_is_refused(self):
        with self.assertRaisesRegex(TranslationError, "q.*neither an input extent"):
            ap_dim(s0 + sympy.Symbol("q", integer=True), NAMES)

    def test_unknown_function_is_refused(self):
        with self.assertRaisesRegex(TranslationError, "has no ap::Dim form"):
            ap_dim(sympy.Function("Frobnicate")(s0), NAMES)

    def test_translator_does_not_import_torch(self):
        import subprocess
        probe = ("import sys; sys.path.insert(0, sys.argv[1]); "
                 "import autoplugin.from_torch.sympy_to_dim; print('torch' in sys.modules)")
        python_dir = os.path.dirname(os.path.dirname(os.path.dirname(sympy_to_dim.__file__)))
        result = subprocess.run([sys.executable, "-c", probe, python_dir], capture_output=True,
                                text=True, check=True)
        self.assertEqual(result.stdout.strip(), "False")


@unittest.skipUnless(importlib.util.find_spec("torch"), "torch is not installed")
class TorchSympyFunctionsTest(unittest.TestCase):
    """The same translation for the functions PyTorch's symbolic shapes really produce."""

    def test_torch_functions(self):
        from torch.utils._sympy import functions as F
        self.assertEqual(ap_dim(F.FloorDiv(s0, 3), NAMES), "ap::floor_div(x[0], 3)")
        # PyTorch's CeilDiv rewrites itself as FloorDiv(a + b - 1, b): the same value.
        self.assertEqual(ap_dim(F.CeilDiv(s0, 3), NAMES), "ap::floor_div(x[0] + 2, 3)")
        self.assertEqual(ap_dim(-F.FloorDiv(-s0, 8), NAMES), "ap::ceil_div(x[0], 8)")
        self.assertEqual(ap_dim(F.PythonMod(s0, 3), NAMES), "x[0] % 3")
        self.assertEqual(ap_dim(F.Max(s0, s1), NAMES), "ap::max(x[0], x[1])")
        self.assertEqual(ap_dim(F.Min(s0, 6), NAMES), "ap::min(x[0], 6)")


class LauncherExpressionsTest(unittest.TestCase):
    """The launcher's values: printed with the parentheses C++ needs and no others, asked what
    they read and call, and their sympy form."""
    x1 = E.tensor_atom("x", "size", 1)
    n = E.attribute_atom("n")
    pad = E.attribute_atom("padding", 2)
    scale = E.attribute_atom("scale", optional=True)

    def test_operands_are_parenthesized_only_where_cpp_binds_otherwise(self):
        x1, n = self.x1, self.n
        cases = [
            (E.Binary("*", E.Binary("+", x1, n), E.Integer(4)), "(x.size(1) + n) * 4"),
            (E.Binary("+", E.Binary("*", x1, n), E.Integer(4)), "x.size(1) * n + 4"),
            (E.Binary("*", E.Binary("*", x1, n), self.pad), "x.size(1) * n * padding[2]"),
            (E.Binary("-", x1, E.Binary("-", n, E.Integer(1))), "x.size(1) - (n - 1)"),
            (E.Binary("-", E.Binary("-", x1, n), E.Integer(1)), "x.size(1) - n - 1"),
            (E.Binary("/", E.Literal("1.0"), E.Binary("*", x1, n)), "1.0 / (x.size(1) * n)"),
            (E.Binary("==", E.Binary("%", x1, E.Integer(16)), E.Integer(0)),
             "x.size(1) % 16 == 0"),
            (E.Negated("-", E.Binary("+", x1, n)), "-(x.size(1) + n)"),
            (E.Negated("!", self.scale), "!*scale"),
            (E.call(E.CDIV, E.Binary("*", x1, n), E.Integer(128)),
             "ap::triton::cdiv(x.size(1) * n, 128)"),
            (E.Binary("*", x1, E.call(E.FLOOR_DIV, n, E.Integer(2))),
             "x.size(1) * floor_div(n, 2)"),
        ]
        for expression, cpp in cases:
            self.assertEqual(expression.cpp(), cpp)

    def test_a_chain_of_conditionals_prints_inside_one_pair_of_parentheses(self):
        steps = E.Conditional(
            E.Binary("<=", self.x1, E.Integer(1024)), E.call(E.NEXT_POWER_OF_2, self.x1),
            E.Conditional(E.Binary("<=", self.x1, E.Integer(4095)), E.Integer(1024, typed=True),
                          E.Integer(2048, typed=True)))
        self.assertEqual(steps.cpp(), "(x.size(1) <= 1024 ? ap::triton::next_power_of_2("
                                      "x.size(1)) : x.size(1) <= 4095 ? std::int64_t{1024} : "
                                      "std::int64_t{2048})")
        # as an operand it needs no more
        self.assertEqual(E.Binary("*", steps, self.n).cpp(), steps.cpp() + " * n")

    def test_a_table_is_a_switch_over_its_key(self):
        table = E.Table(self.n, (("64", E.Integer(4)), ("128", E.Integer(8))), E.INT64_MAX)
        self.assertEqual(table.cpp(), "[&]() -> std::int64_t { switch (n) { case 64: return 4; "
                                      "case 128: return 8; default: return "
                                      "std::numeric_limits<std::int64_t>::max(); } }()")

    def test_what_an_expression_reads_and_calls(self):
        value = E.call(E.MIN_INT64, E.Table(self.n, (("1", self.scale),), E.Integer(0)),
                       E.call(E.FLOOR_DIV, self.x1, self.pad))
        self.assertEqual(value.parameters(), {"n", "scale", "x", "padding"})
        self.assertTrue(value.calls(E.FLOOR_DIV))
        self.assertFalse(value.calls(E.SQRT))
        self.assertEqual(E.Integer(3).parameters(), set())

    def test_the_sympy_form_has_the_launchers_integer_semantics(self):
        x1, n = self.x1, self.n
        value = E.Binary("+", E.call(E.CDIV, x1, E.Integer(4)),
                         E.Binary("*", E.Integer(-3), E.call(E.FLOOR_DIV, n, E.Integer(2))))
        form = value.sympy()
        self.assertEqual(form.free_symbols, {E.atom_symbol("x.size(1)"), E.atom_symbol("n")})
        for a, b in itertools.product(range(-9, 10), repeat=2):
            at = form.xreplace({E.atom_symbol("x.size(1)"): a, E.atom_symbol("n"): b})
            self.assertEqual(at, -(-a // 4) - 3 * (b // 2))
        bounded = E.call(E.MIN_INT64, E.Integer(8), E.call(E.MAX, x1, n)).sympy()
        self.assertEqual(bounded.xreplace({E.atom_symbol("x.size(1)"): 3,
                                           E.atom_symbol("n"): 20}), 8)

    def test_float_values_have_no_sympy_form(self):
        for value in (E.float_literal(0.5), E.call(E.TO_FLOAT, self.n),
                      E.Binary("/", E.Literal("1.0"), self.n)):
            with self.assertRaises(TypeError):
                value.sympy()
        self.assertEqual(E.float_literal(2).cpp(), "2.0f")


if __name__ == "__main__":
    unittest.main(verbosity=1)
