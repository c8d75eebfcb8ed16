"""Unit tests of from-torch's fitter (python/autoplugin/from_torch/fitting.py), in seconds: a
launch value identified as an expression of sizes and attributes from the values it took at
sampled points, checked at others. Needs torch and sympy (no GPU, no Triton)."""
import importlib.util
import os
import random
import sys
import unittest

if not (importlib.util.find_spec("torch") and importlib.util.find_spec("sympy")):
    print("SKIPPED: torch and sympy are needed by from-torch's fitter")
    sys.exit(0)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
from autoplugin.from_torch import fitting  # noqa: E402
from autoplugin.from_torch.errors import GenerationError  # noqa: E402
from autoplugin.from_torch.expressions import tensor_atom  # noqa: E402


def environments(shapes_at, count, seed=3):
    """`count` environments of the atoms of inputs whose shapes `shapes_at(rng)` draws."""
    rng = random.Random(seed)
    envs = []
    for _ in range(count):
        atoms, nodes = {}, {}
        for name, shape in shapes_at(rng).items():
            for axis, extent in enumerate(shape):
                atom = tensor_atom(name, "size", axis)
                atoms[atom.text], nodes[atom.text] = extent, atom
        envs.append(fitting.Environment(atoms, nodes))
    return envs


def attention_shapes(rng):
    b, h, s, d = (rng.randint(1, 16) for _ in range(4))
    return {"q": [b, h, s, d]}


def fitted(shapes_at, value_at, constants=()):
    envs = environments(shapes_at, 12)
    values = [value_at(env.atoms) for env in envs]
    return fitting.fit_integer(values, envs[:8], envs[8:], "scratch", constants).cpp()


class ProductsTest(unittest.TestCase):
    def test_scores_of_every_query_against_every_key(self):
        # Liger's neighborhood attention: torch.empty(B, H, S, S).
        self.assertEqual(
            fitted(attention_shapes, lambda a: a["q.size(0)"] * a["q.size(1)"] * a["q.size(2)"] ** 2),
            "q.size(0) * q.size(1) * q.size(2) * q.size(2)")

    def test_chunks_of_a_sequence_per_batch_and_head(self):
        # fla's chunk-local cumsum grid: cdiv(T, BT) * B * H, BT a constexpr of the launch.
        def shapes(rng):
            return {"g": [rng.randint(1, 8), rng.randint(1, 3000), rng.randint(1, 16)]}
        self.assertEqual(
            fitted(shapes, lambda a: -(-a["g.size(1)"] // 64) * a["g.size(0)"] * a["g.size(2)"],
                   constants=(64,)),
            "g.size(0) * g.size(2) * ap::triton::cdiv(g.size(1), 64)")

    def test_a_value_past_the_products_is_refused_saying_what_was_tried(self):
        def shapes(rng):
            return {"x": [rng.randint(2, 9) for _ in range(5)]}
        with self.assertRaises(GenerationError) as refusal:
            fitted(shapes, lambda a: a["x.size(0)"] * a["x.size(1)"] * a["x.size(2)"] *
                   a["x.size(3)"] * a["x.size(4)"] + 1)
        self.assertIn("product of up to four sizes", str(refusal.exception))


if __name__ == "__main__":
    unittest.main()
