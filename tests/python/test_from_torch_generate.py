"""from-torch end to end on the CPU: the example modules (the RFC's circular pad as published among
them) and the focused modules beside this file become plugin projects (the generated C++ holds the
recovered launches, shapes, requirements and workspace), the Python API works on repeated calls,
and what cannot be generated is refused with the argument, the source line and why. Needs torch
and triton (no GPU)."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

if not (importlib.util.find_spec("torch") and importlib.util.find_spec("triton")):
    print("SKIPPED: torch and triton are needed to generate plugins from Python custom ops")
    sys.exit(0)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLES = os.path.join(ROOT, "examples", "from_torch")


def from_torch(*args):
    environment = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    return subprocess.run([sys.executable, "-m", "autoplugin.from_torch", *args],
                          capture_output=True, text=True, env=environment)


class GenerateExamplesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(prefix="from_torch_test_")

    def generate(self, module, *extra):
        result = from_torch(os.path.join(EXAMPLES, module), "--out", self.out, "--no-artefacts",
                            "--dtypes", "float32,float16", *extra)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.log = result.stderr
        folder = result.stdout.strip().splitlines()[-1]
        name = os.path.basename(folder)
        with open(os.path.join(folder, f"{name}.cpp")) as f:
            cpp = f.read()
        with open(os.path.join(folder, "CMakeLists.txt")) as f:
            cmake = f.read()
        return cpp, cmake

    def test_rfc_circular_pad(self):
        cpp, cmake = self.generate(
            "circular_pad_rfc.py",
            "--example", "torchtrt_ex::triton_circular_pad(x=[2, 3, 8, 8], padding=[1, 1, 2, 2])",
            "--example",
            "torchtrt_ex::triton_circular_pad(x=[2, 3, 8, 8], padding=[1, 2, 1, 1, 2, 2])")
        # the schema, with list[int] as an attribute
        self.assertIn('AUTOPLUGIN_OP("torchtrt_ex::triton_circular_pad(Tensor x, int[] padding) '
                      '-> Tensor"', cpp)
        # shapes traced from F.pad(..., "circular"), its wrap-around guards as requirements
        self.assertIn("return ap::Shape{x[0], x[1], x[2] + padding_2 + padding_3, "
                      "x[3] + padding_0 + padding_1};", cpp)
        self.assertIn("ap::require(padding_0 <= x[3],", cpp)
        # launch arguments from NumPy arrays of dims and pads (numpy.int32 scalars)
        self.assertIn("ap::triton::make_grid(ap::triton::cdiv(out.numel(), 256))", cpp)
        self.assertIn('/* all_pads_0  */ std::int32_t{0}', cpp)
        self.assertIn('/* all_pads_4  */ checked_i32(padding[2], "all_pads_4")', cpp)
        self.assertIn('/* all_pads_2  */ checked_i32(padding[4], "all_pads_2")', cpp)
        self.assertIn('/* orig_dims_3 */ checked_i32(x.size(3), "orig_dims_3")', cpp)
        self.assertIn('if (x.rank() == 4 && padding.size() == 6) {', cpp)
        self.assertIn('throw ap::ShapeError(\n      "torchtrt_ex::triton_circular_pad was '
                      'generated for (x of rank 4, padding of length 4) or (x of rank 4, padding '
                      'of length 6); ', cpp)
        self.assertIn('/* X_len       */ checked_i32(x.numel(), "X_len")', cpp)
        # one kernel per dtype; the published host code allocates y as float32 of shape [1, 1,
        # H', W'], the plugin's output is the fake's (x's dtype, [N, C, H', W']) and so is Y
        self.assertIn('SIGNATURE "*fp16, i32, i32, i32, i32, i32, i32, i32, i32, *fp16, i32, i32, '
                      'i32, i32, i32, 256"', cmake)
        self.assertIn('/* Y_len       */ checked_i32(out.numel(), "Y_len")', cpp)
        self.assertIn("note: output 0: the host code allocates [1, 1, ", self.log)
        self.assertIn("circular_pad_rfc.py:69: y = torch.empty(tuple(out_dims.tolist()), "
                      "device=x.device))", self.log)
        self.assertIn("triton_circular_pad_float32, triton_circular_pad_float16", cpp)
        # the copy shown in examples/from_torch/generated is what the generator writes today
        # (from the first #include on: the header names the versions it was generated with)
        with open(os.path.join(EXAMPLES, "generated", "triton_circular_pad.cpp")) as f:
            shown = f.read()
        start = "#include <autoplugin/autoplugin.h>"
        self.assertEqual(cpp[cpp.index(start):], shown[shown.index(start):])

    def test_scaled_leaky_relu(self):
        cpp, cmake = self.generate("scaled_leaky_relu.py")
        self.assertIn("ap::triton::make_grid(ap::triton::cdiv(x.numel(), 1024))", cpp)
        self.assertIn("/* negative_slope */ static_cast<float>(negative_slope)", cpp)
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, fp32, fp32, 1024"', cmake)

    def test_row_window_max(self):
        cpp, cmake = self.generate("row_window_max.py")
        self.assertIn("return ap::Shape{x[0], x[1] + 1 - ap::min(x[1], window_dim)};", cpp)
        self.assertIn("ap::require(window_dim >= 1,", cpp)
        self.assertIn("ap::triton::make_grid(x.size(0), ap::triton::cdiv(out.size(1), 128))", cpp)
        self.assertIn('checked_i32(std::min(x.size(1), window), "window")', cpp)


class LibraryOpTest(unittest.TestCase):
    def test_library_defined_op(self):
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(os.path.join(os.path.dirname(__file__), "from_torch_library_op.py"),
                                "--out", out, "--no-artefacts")
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(os.path.join(out, "twice", "twice.cpp")) as f:
                cpp = f.read()
        self.assertIn('AUTOPLUGIN_OP("libex::twice(Tensor x) -> Tensor"', cpp)
        self.assertIn("ap::triton::make_grid(ap::triton::cdiv(x.numel(), 512))", cpp)


class StructureTest(unittest.TestCase):
    def test_structures_strings_and_bools(self):
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(os.path.join(os.path.dirname(__file__),
                                             "from_torch_structures.py"), "--out", out,
                                "--no-artefacts")
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(os.path.join(out, "shift", "shift.cpp")) as f:
                cpp = f.read()
            with open(os.path.join(out, "shift", "CMakeLists.txt")) as f:
                cmake = f.read()
        # a kernel variant per structure, each launched with its own block size
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, fp32, i1, 128"', cmake)
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, fp32, i1, 512"', cmake)
        self.assertIn("shift_shift_kernel_fp32_v2::launch(", cpp)
        # the string selects the structure; the bool is passed through
        self.assertIn('if (x.rank() == 3 && mode == "down") {', cpp)
        self.assertIn("/* delta   */ -1.0f,", cpp)
        self.assertIn("/* negate  */ static_cast<bool>(negate));", cpp)


    def test_extents_a_fake_requires_equal(self):
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(os.path.join(os.path.dirname(__file__),
                                             "from_torch_tied_extents.py"), "--out", out,
                                "--no-artefacts")
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(os.path.join(out, "add_bias", "add_bias.cpp")) as f:
                cpp = f.read()
        self.assertIn("ap::require(bias[0] == x[2],", cpp)
        self.assertIn("return ap::Shape{x[0], x[1], x[2]};", cpp)
        self.assertIn("/* cols     */ checked_i32(x.size(2), \"cols\")", cpp)


class RefusalTest(unittest.TestCase):
    def test_argument_from_tensor_values_is_refused(self):
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(os.path.join(os.path.dirname(__file__), "from_torch_refused.py"),
                                "--out", out)
            self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
            self.assertIn("op 'test::normalize_by_max': its host code reads the tensor contents "
                          "at from_torch_refused.py:21 (scale = 1.0 / float(x.abs().max()))",
                          result.stderr)
            self.assertIn("compute that value inside the kernel, or pass it as an attribute",
                          result.stderr)
            self.assertEqual(os.listdir(out), [], "nothing is written for a refused op")

    def test_host_code_refusals_say_what_to_change(self):
        module = os.path.join(os.path.dirname(__file__), "from_torch_host_refusals.py")
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(module, "--out", out, "--no-artefacts", "--op",
                                "test::aligned_copy")
            self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
            self.assertIn("its host code rejects sizes the plugin would accept", result.stderr)
            self.assertIn('at from_torch_host_refusals.py:20 (assert x.shape[-1] % 4 == 0, "rows '
                          'of a multiple of 4"): AssertionError', result.stderr)
            self.assertIn("State that condition in the fake implementation (torch._check(...))",
                          result.stderr)
            result = from_torch(module, "--out", out, "--no-artefacts", "--op",
                                "test::upcast_copy", "--dtypes", "float32,float16")
            self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
            self.assertIn("argument 'x_ptr' of kernel 'copy_kernel' (from_torch_host_refusals.py:"
                          "34: ", result.stderr)
            self.assertIn("is, for float16 inputs, a tensor the host code computes with 'float'",
                          result.stderr)
            self.assertIn("make it an input of the op", result.stderr)

    def test_autotuned_kernel_is_refused(self):
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(os.path.join(os.path.dirname(__file__), "from_torch_autotuned.py"),
                                "--out", out)
            self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
            self.assertIn("op 'test::autotuned_copy': from_torch_autotuned.py:", result.stderr)
            self.assertIn("'cp_kernel' is autotuned", result.stderr)

    def test_missing_example_is_explained(self):
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(os.path.join(EXAMPLES, "circular_pad_rfc.py"), "--out", out)
            self.assertEqual(result.returncode, 1)
            self.assertIn("no example. Pass --example 'torchtrt_ex::triton_circular_pad(x=..., "
                          "padding=...)'", result.stderr)


HERE = os.path.dirname(os.path.abspath(__file__))


def generated(out, op):
    with open(os.path.join(out, op, f"{op}.cpp")) as f:
        cpp = f.read()
    with open(os.path.join(out, op, "CMakeLists.txt")) as f:
        cmake = f.read()
    with open(os.path.join(out, op, "cases.json")) as f:
        cases = json.load(f)
    return cpp, cmake, cases


class HostCodeAsWrittenTest(unittest.TestCase):
    """The focused modules, each generated once (both dtypes)."""

    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(prefix="from_torch_host_")
        cls.logs = {}
        for module in ("device_guards", "scratch", "optional_inplace", "relations"):
            result = from_torch(os.path.join(HERE, f"from_torch_{module}.py"), "--out", cls.out,
                                "--no-artefacts", "--dtypes", "float32,float16")
            cls.logs[module] = (result.returncode, result.stderr)

    def module(self, name):
        status, log = self.logs[name]
        self.assertEqual(status, 0, log)
        return log

    def test_gpu_guards_and_returned_views(self):
        self.module("device_guards")
        cpp, _, _ = generated(self.out, "row_scale")
        # asserts on is_cuda, the device and its capability passed; y, returned as a view, is
        # the output; the 2-D view of x is x
        self.assertIn("/* x_ptr        */ x.data(),", cpp)
        self.assertIn("/* y_ptr        */ out.data(),", cpp)
        self.assertIn('/* x_row_stride */ checked_i32(x.size(2), "x_row_stride")', cpp)
        self.assertIn("ap::triton::make_grid(x.size(0) * x.size(1))", cpp)
        # the fake's torch._check, the one PyTorch proves by itself included
        self.assertIn("ap::require(scale[0] == x[2],", cpp)
        self.assertIn('"x[2] <= 64 (torch._check in the fake implementation, '
                      'from_torch_device_guards.py:', cpp)

    def test_scratch_buffers_become_the_workspace(self):
        self.module("scratch")
        cpp, cmake, _ = generated(self.out, "rms_norm")
        self.assertIn(".workspace(rms_norm_workspace);", cpp)
        self.assertIn("return 256 * ap::ceil_div(x[0], 64) + 256;", cpp)
        self.assertIn("/* rstd_ptr  */ reinterpret_cast<float*>(scratch + scratch0_offset),", cpp)
        # torch.zeros: cleared before the launch, with the CUDA runtime
        self.assertIn("check_cuda(cudaMemsetAsync(scratch + scratch1_offset, 0, "
                      "scratch_bytes(1, 4), stream),", cpp)
        self.assertIn("CUDA::cudart", cmake)
        # returned, the same buffer is an output, float32 for fp16 inputs as the fake says
        cpp, _, _ = generated(self.out, "rms_norm_stats")
        self.assertIn("return 256;", cpp)  # only the counter is scratch
        self.assertIn("ap::Out<__half> out0,\n                            ap::Out<float> out1,",
                      cpp)
        self.assertIn("/* rstd_ptr  */ out1.data(),", cpp)

    def test_optional_tensor_and_in_place(self):
        self.module("optional_inplace")
        cpp, cmake, cases = generated(self.out, "scale_bias")
        self.assertIn('AUTOPLUGIN_OP("test::scale_bias(Tensor x, Tensor? bias, float alpha) -> '
                      'Tensor"', cpp)
        self.assertIn("std::optional<ap::Shape> bias", cpp)
        self.assertIn("if (x.rank() == 2 && bias.has_value() && bias->rank() == 1) {", cpp)
        self.assertIn("ap::require((*bias)[0] == x[1],", cpp)
        self.assertIn("ap::OptIn<float> bias,", cpp)
        self.assertIn("if (x.rank() == 2 && !bias.present()) {", cpp)
        self.assertIn('SIGNATURE "*fp32, *fp32, *fp32, i32, i32, fp32, False, 256"', cmake)
        self.assertIn('SIGNATURE "*fp32, *fp32, *fp32, i32, i32, fp32, True, 256"', cmake)
        self.assertIn(None, [i for case in cases["cases"] for i in case["inputs"]])
        cpp, cmake, _ = generated(self.out, "axpy_")
        self.assertIn('AUTOPLUGIN_OP("test::axpy_(Tensor(a0!) x, Tensor y, float alpha) -> '
                      'Tensor(a0!)"', cpp)
        self.assertIn("if (out.data() != x.data()) {", cpp)
        self.assertIn("/* x_ptr */ out.data(),", cpp)

    def test_relations_between_inputs(self):
        log = self.module("relations")
        cpp, _, _ = generated(self.out, "matvec")
        # the fake is called positionally (its parameters are x, w; the op's X, W)
        self.assertIn("ap::require(X[1] >= 2,", cpp)
        self.assertIn('"X[1] == W[0] (the host code checks it, from_torch_relations.py:25)"', cpp)
        cpp, _, _ = generated(self.out, "vector_add")
        self.assertIn('"x[0] == y[0] (equal in the example; nothing in the fake or the host code '
                      'says so)"', cpp)
        self.assertIn("test::vector_add: note: requiring x[0] == y[0]", log)

    def test_example_equalities_can_be_dropped(self):
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(os.path.join(HERE, "from_torch_relations.py"), "--out", out,
                                "--no-artefacts", "--op", "test::vector_add",
                                "--no-example-equalities")
            self.assertEqual(result.returncode, 0, result.stderr)
            cpp, _, _ = generated(out, "vector_add")
        self.assertNotIn("ap::require(", cpp)
        self.assertIn("not requiring x[0] == y[0] (--no-example-equalities)", result.stderr)


class PythonApiTest(unittest.TestCase):
    def test_generate_twice_in_one_process(self):
        sys.path.insert(0, os.path.join(ROOT, "python"))
        import autoplugin.from_torch as from_torch_api
        messages = []
        with tempfile.TemporaryDirectory() as out:
            for attempt in range(2):
                folders = from_torch_api.generate(
                    os.path.join(HERE, "from_torch_library_op.py"), os.path.join(out, str(attempt)),
                    artefacts=(attempt == 1), log=messages.append)
                self.assertEqual([os.path.basename(f) for f in folders], ["twice"])
            # the second call also shipped the compiled kernel (the project builds without Triton)
            self.assertTrue(os.path.isfile(os.path.join(out, "1", "twice", "aot",
                                                        "twice_twice_kernel_fp32.json")))
        self.assertTrue(any("wrote" in m for m in messages))


if __name__ == "__main__":
    unittest.main(verbosity=1)
