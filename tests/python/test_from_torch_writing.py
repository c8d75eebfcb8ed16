"""Unit tests of what from-torch writes into a generated project, in seconds: the kernel file a
project compiles, with the names a library binds into the kernels' module only at run time
(python/autoplugin/from_torch/kernel_source.py), and the shape function's requirements that keep
sizes within the families' ranges (families.py). Needs torch and triton (the package imports
them; no GPU)."""
import importlib.util
import os
import sys
import tempfile
import types
import unittest

if not (importlib.util.find_spec("torch") and importlib.util.find_spec("triton")):
    print("SKIPPED: torch and triton are needed to import the package")
    sys.exit(0)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from autoplugin.from_torch.expressions import NEXT_POWER_OF_2, call, tensor_atom  # noqa: E402
from autoplugin.from_torch.families import VaryingConstexpr, requirements  # noqa: E402
from autoplugin.from_torch.kernel_source import kernel_file_text  # noqa: E402

# A file as a library writes it: its function reads `tanh` and `pow`, which the library gives
# the module after importing it (FlagGems' pointwise kernels); `math` it imports itself.
KERNEL_FILE = '''import math


def scalar(x):
    doubled = 2 * x
    return tanh(doubled) + pow(x, 2) + math.pi
'''


def shims():
    """The library's module holding the names it binds into the kernel file's module."""
    module = types.ModuleType("fixture_kernel_shims")
    module.tanh = lambda x: 100 * x
    module.pow = lambda x, n: 10 * x
    return module


class KernelFileTest(unittest.TestCase):
    def setUp(self):
        self.shims = shims()
        sys.modules[self.shims.__name__] = self.shims
        self.addCleanup(sys.modules.pop, self.shims.__name__)
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.path = os.path.join(folder.name, "generated_kernel.py")
        with open(self.path, "w") as f:
            f.write(KERNEL_FILE)

    def run_time_globals(self):
        import math
        return {"math": math, "tanh": self.shims.tanh, "pow": self.shims.pow,
                "unused": object(), "doubled": object()}

    def test_names_bound_only_at_run_time_are_imported_and_the_copy_runs(self):
        text = kernel_file_text(self.path, self.run_time_globals())
        self.assertTrue(text.startswith(KERNEL_FILE))
        added = text[len(KERNEL_FILE):]
        # pow too: the library's, not Python's built-in of that name; nothing the file binds
        # itself, no local variable, nothing the functions do not read.
        self.assertIn("from fixture_kernel_shims import pow\n", added)
        self.assertIn("from fixture_kernel_shims import tanh\n", added)
        self.assertEqual(added.count("\nfrom "), 2, added)
        namespace = {}
        exec(compile(text, self.path, "exec"), namespace)
        self.assertAlmostEqual(namespace["scalar"](1.0), 200 + 10 + 3.141592653589793)

    def test_a_file_that_binds_what_its_functions_read_is_copied_as_it_is(self):
        import math
        self.assertEqual(kernel_file_text(self.path, {"math": math, "pow": pow}), KERNEL_FILE)

    def test_an_object_held_under_another_name_is_imported_under_its_own(self):
        run_time = dict(self.run_time_globals(), tanh=lambda x: x)
        self.shims.hyperbolic_tangent = run_time["tanh"]
        text = kernel_file_text(self.path, run_time)
        self.assertIn("from fixture_kernel_shims import hyperbolic_tangent as tanh\n", text)

    def test_a_star_import_leaves_the_file_as_it_is(self):
        with open(self.path, "w") as f:
            f.write("from fixture_kernel_shims import *\n" + KERNEL_FILE)
        text = kernel_file_text(self.path, self.run_time_globals())
        self.assertNotIn("Bound at run time", text)


class FamilyRequirementsTest(unittest.TestCase):
    def test_one_requirement_per_size_the_smallest_limit(self):
        def launch(limit, tile):
            width = tensor_atom("cache", "size", 2)
            varying = VaryingConstexpr("BW", call(NEXT_POWER_OF_2, width), [], "cache[2]",
                                       limit, f"a block of {tile} x BW", size=width)
            return types.SimpleNamespace(varying=[varying], kernel_name="conv",
                                         where="conv.py:20")

        # an autotuned kernel's configs, each with its own tile: every tactic takes the sizes
        found = requirements([launch(8192, 8), launch(256, 256), launch(1024, 64)])
        self.assertEqual(found, [(
            "cache[2] <= 256", "cache[2] <= 256: kernel 'conv' (conv.py:20): a block of 256 x BW",
            {"cache"})])


if __name__ == "__main__":
    unittest.main()
