"""Unit tests of from-torch's point sampler (python/autoplugin/from_torch/points.py), in seconds:
meeting a bound on one size at a sampled point. Needs torch and sympy (no GPU, no Triton)."""
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

from autoplugin.from_torch import points, shapes  # noqa: E402


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


class RaiseToBoundTest(unittest.TestCase):
    def test_an_extent_moves_to_the_bound_and_what_is_tied_follows(self):
        x1, w0 = sympy.Symbol("x1", integer=True), sympy.Symbol("w0", integer=True)
        symbols = {x1: shapes.SymbolRef("extent", "X", 1), w0: shapes.SymbolRef("extent", "W", 0)}
        requires = [sympy.Le(x1, 64), sympy.Eq(x1, w0)]
        point = {"X": [5, 4000], "W": [4000]}
        points.satisfy(point, requires, symbols)
        self.assertEqual(point, {"X": [5, 64], "W": [64]})


if __name__ == "__main__":
    unittest.main(verbosity=1)
