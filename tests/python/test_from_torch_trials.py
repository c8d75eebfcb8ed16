"""from-torch's trial compilations (trials.py): the largest block a program of a recorded launch
holds, read from Triton's front end, and a constexpr tried as a run-time argument. Needs torch
and triton (no GPU); seconds."""
import importlib.util
import os
import sys
import unittest

if not (importlib.util.find_spec("torch") and importlib.util.find_spec("triton")):
    print("SKIPPED: torch and triton are needed for trial compilations")
    sys.exit(0)

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from autoplugin.from_torch.records import RecordedLaunch  # noqa: E402
from autoplugin.from_torch.trials import compile_problem, largest_block  # noqa: E402


@triton.jit
def tile_kernel(x_ptr, n, SCALE: tl.constexpr, ROWS: tl.constexpr, COLS: tl.constexpr):
    offsets = tl.arange(0, ROWS)[:, None] * COLS + tl.arange(0, COLS)[None, :]
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n) * SCALE, mask=offsets < n)


def launch(rows, cols):
    x = torch.empty(8, dtype=torch.float16, device="meta")
    arguments = {"x_ptr": x, "n": 8, "SCALE": 2.0, "ROWS": rows, "COLS": cols}
    return RecordedLaunch(tile_kernel, (1,), arguments, {"num_warps": 4}, "here.py:1",
                          "tile_kernel[(1,)](...)")


class LargestBlockTest(unittest.TestCase):
    def test_a_tile_of_two_constexprs_holds_their_product(self):
        self.assertEqual(largest_block(launch(16, 32), 90), (512, ""))
        self.assertEqual(largest_block(launch(1024, 64), 90), (65536, ""))

    def test_a_block_past_tritons_largest_tensor_is_refused_with_tritons_reason(self):
        elements, refusal = largest_block(launch(2048, 1024), 90)
        self.assertIsNone(elements)
        self.assertIn("2097152", refusal)


class CompileProblemTest(unittest.TestCase):
    def test_a_constexpr_that_shapes_a_block_does_not_compile_at_run_time(self):
        self.assertNotEqual(compile_problem(launch(16, 32), "ROWS", "i32", 90), "")

    def test_a_constexpr_only_computed_with_compiles_at_run_time(self):
        self.assertEqual(compile_problem(launch(16, 32), "SCALE", "fp32", 90), "")


if __name__ == "__main__":
    sys.exit(unittest.main(verbosity=2))
