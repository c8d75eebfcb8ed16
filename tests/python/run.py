"""Runs one test module of the Python package for CTest: prints "SKIPPED: reason" and exits 0
when the module's `requirements_missing()` names something missing, else runs its tests."""
import importlib.util
import os
import sys
import unittest

here = os.path.dirname(os.path.abspath(__file__))
# The module's own folder too, for the helpers next to it (tests/torch/examples.py).
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[1])))
sys.path.insert(0, os.path.join(here, "..", "..", "python"))
spec = importlib.util.spec_from_file_location("module_under_test", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
missing = getattr(module, "requirements_missing", lambda: None)()
if missing:
    print(f"SKIPPED: {missing}")
    sys.exit(0)
result = unittest.TextTestRunner(verbosity=2).run(unittest.defaultTestLoader.loadTestsFromModule(module))
sys.exit(0 if result.wasSuccessful() and result.testsRun > 0 else 1)
