"""Unit tests of from-torch's op discovery (python/autoplugin/from_torch/discover.py), in
seconds: the ops of the module given, not those of the libraries it imports. Needs torch and
triton (no GPU)."""
import importlib.util
import os
import sys
import unittest

if not (importlib.util.find_spec("torch") and importlib.util.find_spec("triton")):
    print("SKIPPED: torch and triton are needed to import the modules")
    sys.exit(0)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from autoplugin.from_torch.discover import find_ops  # noqa: E402


class DiscoveryTest(unittest.TestCase):
    def test_the_ops_of_an_imported_library_are_not_the_modules(self):
        ops = find_ops(os.path.join(HERE, "from_torch_uses_library.py"))
        self.assertEqual([op.qualname for op in ops], ["user_ns::scaled"])
        self.assertEqual(ops[0].body.__name__, "scaled")


if __name__ == "__main__":
    unittest.main()
