"""tools/reference_server.py with examples/reference.py --serve: a case computed by the server
(asked by the client `check` runs) is written as the direct call writes it, and a case the
reference cannot compute makes the client fail with the server's traceback. On the CPU; needs
torch and numpy."""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

if not (importlib.util.find_spec("torch") and importlib.util.find_spec("numpy")):
    print("SKIPPED: torch and numpy are needed by examples/reference.py")
    sys.exit(0)

import numpy as np  # noqa: E402

ROOT = os.environ.get("AUTOPLUGIN_SOURCE_DIR",
                      os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import reference_server  # noqa: E402

REFERENCE = os.path.join(ROOT, "examples", "reference.py")
CLIENT = os.path.join(ROOT, "tools", "reference_server.py")


def write_case(folder, op):
    os.makedirs(folder)
    case = {"op": op, "attributes": {"padding": [1, 2, 0, 1]},
            "inputs": [{"dtype": "float32", "shape": [2, 3, 4], "file": "input0.npy"}],
            "outputs": [{"dtype": "float32", "shape": [2, 4, 7], "file": "output0.npy"}]}
    with open(os.path.join(folder, "case.json"), "w") as f:
        json.dump(case, f)
    np.save(os.path.join(folder, "input0.npy"),
            np.arange(24, dtype=np.float32).reshape(2, 3, 4))


class ReferenceServerTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.socket = os.path.join(self.dir, "reference.sock")
        self.server = subprocess.Popen([sys.executable, REFERENCE, "--serve", self.socket],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(self.server.wait)
        self.addCleanup(self.server.kill)
        self.assertTrue(reference_server.wait_for(self.socket, self.server))

    def ask(self, folder):
        return subprocess.run([sys.executable, "-S", CLIENT, self.socket, folder],
                              capture_output=True, text=True)

    def test_served_cases_equal_direct_calls(self):
        direct, served = os.path.join(self.dir, "direct"), os.path.join(self.dir, "served")
        write_case(direct, "torchtrt_ex::circular_pad")
        write_case(served, "torchtrt_ex::circular_pad")
        subprocess.run([sys.executable, REFERENCE, direct], check=True)
        for _ in range(2):  # the server answers more than one case
            result = self.ask(served)
            self.assertEqual(result.returncode, 0, result.stderr)
        expected = np.load(os.path.join(direct, "output0.npy"))
        self.assertEqual(expected.shape, (2, 4, 7))
        np.testing.assert_array_equal(np.load(os.path.join(served, "output0.npy")), expected)

    def test_a_failed_case_reports_the_servers_traceback(self):
        folder = os.path.join(self.dir, "unknown")
        write_case(folder, "torchtrt_ex::no_such_op")
        result = self.ask(folder)
        self.assertEqual(result.returncode, 1)
        self.assertIn("error: Traceback", result.stderr)
        self.assertIn("KeyError: 'no_such_op'", result.stderr)
        # and the server still answers
        good = os.path.join(self.dir, "good")
        write_case(good, "torchtrt_ex::circular_pad")
        self.assertEqual(self.ask(good).returncode, 0)

    def test_no_server_is_said(self):
        result = subprocess.run([sys.executable, "-S", CLIENT, self.socket + ".none", self.dir],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 1)
        self.assertIn("no reference server answers at", result.stderr)


if __name__ == "__main__":
    unittest.main()
