"""The from-torch command line without its run-time requirements: --help works, and a run names
what is missing instead of failing with a traceback (standard library only)."""
import contextlib
import importlib.machinery
import importlib.util
import io
import os
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))

from autoplugin.from_torch.__main__ import main  # noqa: E402


class CommandLine(unittest.TestCase):
    def run_main(self, argv, missing=()):
        """main(argv) as if torch and triton were installed, but for the modules in `missing`."""
        find_spec = importlib.util.find_spec

        def without(name, *args):
            if name in missing:
                return None
            if name in ("torch", "triton"):
                return importlib.machinery.ModuleSpec(name, None)
            return find_spec(name, *args)

        stderr = io.StringIO()
        with mock.patch("importlib.util.find_spec", without), contextlib.redirect_stderr(stderr):
            status = main(argv)
        return status, stderr.getvalue()

    def test_help_needs_neither_torch_nor_triton(self):
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout), self.assertRaises(SystemExit) as exit_:
            self.run_main(["--help"], missing=("torch", "triton"))
        self.assertEqual(exit_.exception.code, 0)
        self.assertIn("--out OUT", stdout.getvalue())

    def test_a_run_without_torch_names_it(self):
        status, stderr = self.run_main(["ops.py", "--out", "generated"], missing=("torch",))
        self.assertEqual(status, 1)
        self.assertRegex(stderr, r"^autoplugin from-torch: torch not installed for .*: generation "
                                 r"imports ops.py, traces its fake implementation with PyTorch")

    def test_a_run_without_either_names_both(self):
        status, stderr = self.run_main(["ops.py", "--out", "generated"],
                                       missing=("torch", "triton"))
        self.assertEqual(status, 1)
        self.assertIn("torch and triton not installed", stderr)


if __name__ == "__main__":
    unittest.main()
