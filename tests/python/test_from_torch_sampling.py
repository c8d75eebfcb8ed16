"""Unit tests of from-torch's point sampler (python/autoplugin/from_torch/points.py), in seconds:
meeting a bound on one size at a sampled point; requirements evaluated exactly (exact.py) as
sympy evaluates them. Needs torch and sympy (no GPU, no Triton)."""
import importlib.util
import os
import random
import sys
import unittest

if not (importlib.util.find_spec("torch") and importlib.util.find_spec("sympy")):
    print("SKIPPED: torch and sympy are needed by from-torch's sampler")
    sys.exit(0)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import sympy  # noqa: E402

from autoplugin.from_torch import exact, points, shapes  # noqa: E402


def walked(meets, current, lowest):
    """The nearest value by walking outwards one step at a time, above first."""
    for distance in range(1, points.BOUND_SEARCH):
        for value in (current + distance, current - distance):
            if value >= lowest and meets(value):
                return value
    return None


class CountingBound:
    def __init__(self, test):
        self.test, self.calls = test, 0

    def __call__(self, value):
        self.calls += 1
        return self.test(value)


class NearestMeetingTest(unittest.TestCase):
    def test_the_nearest_value_of_a_bound_as_the_walk_finds_it(self):
        rng = random.Random(0)
        for _ in range(5000):
            current, bound = rng.randint(-5000, 9000), rng.randint(-5000, 9000)
            lowest = rng.choice([1, -points.BOUND_SEARCH])
            below = rng.random() < 0.5
            meets = (lambda v, b=bound: v <= b) if below else (lambda v, b=bound: v >= b)
            if current >= lowest and meets(current):
                continue
            with self.subTest(current=current, bound=bound, below=below, lowest=lowest):
                self.assertEqual(points.nearest_meeting(meets, current, lowest),
                                 walked(meets, current, lowest))

    def test_near_values_are_tried_one_by_one(self):
        # A region that is not a bound (every third value), within the first steps: the walk's.
        meets = lambda v: v % 3 == 0  # noqa: E731
        for current in range(1, 40):
            if not meets(current):
                self.assertEqual(points.nearest_meeting(meets, current, 1),
                                 walked(meets, current, 1))

    def test_a_far_bound_takes_few_evaluations(self):
        meets = CountingBound(lambda v: v <= 64)
        self.assertEqual(points.nearest_meeting(meets, 4000, 1), 64)
        self.assertLess(meets.calls, 80)  # the walk took 7,872

    def test_nothing_within_the_search(self):
        self.assertIsNone(points.nearest_meeting(lambda v: v > 10 ** 6, 10, 1))
        self.assertIsNone(points.nearest_meeting(lambda v: v < -10, 5, 1))  # below the lowest


def sympy_truth(relation, values):
    """What the sampler did before exact.py: substitute, then ask sympy; "raises" where that
    raises."""
    try:
        return bool(relation.xreplace(values))
    except (ZeroDivisionError, TypeError, ValueError):
        return "raises"


def exact_truth(relation, values):
    try:
        return exact.evaluate(relation, values)
    except (ZeroDivisionError, TypeError, ValueError):
        return "raises"


class ExactEvaluationTest(unittest.TestCase):
    def test_random_requirements_hold_where_sympy_says_they_do(self):
        a, b, c = sympy.symbols("a b c", integer=True)
        terms = [a, b, c, a * b, a + 2 * c - 3, b - a, sympy.Mod(a, b), sympy.Mod(a * c, 128),
                 sympy.floor(a / b), sympy.ceiling(a / 128), sympy.ceiling((a + c) / b),
                 sympy.Min(a, 64), sympy.Max(b, c), sympy.Rational(3, 2) * a, a ** 2 / c,
                 sympy.Abs(b - c)]
        torch_functions = importlib.import_module("torch.utils._sympy.functions")
        terms += [torch_functions.FloorDiv(a, b), torch_functions.PythonMod(a, b),
                  torch_functions.Mod(a, 64), torch_functions.Max(a, c),
                  torch_functions.FloorDiv(a + c, 16)]
        relations = [sympy.Eq, sympy.Le, sympy.Lt, sympy.Ge, sympy.Gt]
        rng = random.Random(0)
        compared = 0
        for _ in range(3000):
            relation = rng.choice(relations)(rng.choice(terms), rng.choice(terms + [0, 1, 7]))
            if rng.random() < 0.3:  # a set, or two requirements at once
                relation = rng.choice([sympy.Or, sympy.And])(
                    relation, sympy.Eq(rng.choice(terms), rng.choice([0, 16, 32])))
            if not isinstance(relation, sympy.Basic) or relation in (sympy.true, sympy.false):
                continue
            values = {a: rng.randint(-3, 300), b: rng.choice([0, 1, 2, 3, 64, -5]),
                      c: rng.randint(0, 5)}
            got = exact_truth(relation, values)
            if got is not None:  # None: left to sympy (a division by 0)
                self.assertEqual(got, sympy_truth(relation, values), (relation, values))
                compared += 1
        self.assertGreater(compared, 2000)

    def test_what_it_cannot_reproduce_is_left_to_sympy(self):
        a = sympy.Symbol("a", integer=True)
        self.assertIsNone(exact.evaluate(sympy.Le(sympy.Float(0.5) * a, 3), {a: 4}))
        self.assertIsNone(exact.evaluate(sympy.Ne(a, 3), {a: 4}))
        self.assertIsNone(exact.evaluate(sympy.Le(a, 3), {a: True}))  # a bool attribute
        self.assertIsNone(exact.evaluate(sympy.Le(a, 3), {}))
        self.assertTrue(points.holds(sympy.Ne(a, 3), {a: 4}))


class RaiseToBoundTest(unittest.TestCase):
    def test_an_extent_moves_to_the_bound_and_what_is_tied_follows(self):
        x1, w0 = sympy.Symbol("x1", integer=True), sympy.Symbol("w0", integer=True)
        symbols = {x1: shapes.SymbolRef("extent", "X", 1), w0: shapes.SymbolRef("extent", "W", 0)}
        requires = [sympy.Le(x1, 64), sympy.Eq(x1, w0)]
        point = {"X": [5, 4000], "W": [4000]}
        points.satisfy(point, requires, symbols)
        self.assertEqual(point, {"X": [5, 64], "W": [64]})

    def test_an_equality_is_solved_after_the_bound_on_one_of_its_sizes(self):
        # `q[3] >= 128` (a constexpr held) beside `q[3] == 2 * freqs[1]` (kernel_bounds): raised
        # after the equality, q[3] would break it at every point.
        q3, f1 = sympy.Symbol("q3", integer=True), sympy.Symbol("f1", integer=True)
        symbols = {q3: shapes.SymbolRef("extent", "q", 3), f1: shapes.SymbolRef("extent", "f", 1)}
        requires = [sympy.Ge(q3, 128), sympy.Le(q3, 129), sympy.Eq(q3, 2 * f1)]
        point = {"q": [1, 2, 3, 4], "f": [5, 3]}
        points.satisfy(point, requires, symbols)
        self.assertTrue(all(points.holds(r, points.point_values(symbols, point))
                            for r in requires), point)


if __name__ == "__main__":
    unittest.main(verbosity=1)
