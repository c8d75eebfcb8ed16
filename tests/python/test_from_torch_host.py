"""from-torch on host code as users write it (the focused modules beside this file): GPU guards and
returned views, scratch buffers as the workspace, Tensor?, in-place ops, relations between inputs,
layouts changed with PyTorch (permuted copies and outputs), configurations picked by the GPU's
name, idioms such as do_not_specialize and constexpr defaults,
the Python API called twice, and the host code's refusals with what to change. Needs torch and
triton (no GPU)."""
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
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generated_cpp import unnamed_but_read  # noqa: E402


def from_torch(*args):
    environment = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    return subprocess.run([sys.executable, "-m", "autoplugin.from_torch", *args],
                          capture_output=True, text=True, env=environment)


HERE = os.path.dirname(os.path.abspath(__file__))


def generated(out, op):
    with open(os.path.join(out, op, f"{op}.cpp")) as f:
        cpp = f.read()
    read = unnamed_but_read(cpp)
    if read:  # the project would not compile
        raise AssertionError(f"{op}.cpp leaves parameters unnamed that it reads: {read}")
    with open(os.path.join(out, op, "CMakeLists.txt")) as f:
        cmake = f.read()
    with open(os.path.join(out, op, "cases.json")) as f:
        cases = json.load(f)
    return cpp, cmake, cases


class GeneratedModules(unittest.TestCase):
    """MODULES (from_torch_<name>.py beside this file), each generated once for DTYPES."""
    MODULES, DTYPES = (), "float32"

    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(prefix="from_torch_host_")
        cls.logs = {}
        for module in cls.MODULES:
            result = from_torch(os.path.join(HERE, f"from_torch_{module}.py"), "--out", cls.out,
                                "--no-artefacts", "--dtypes", cls.DTYPES)
            cls.logs[module] = (result.returncode, result.stderr)

    def module(self, name):
        status, log = self.logs[name]
        self.assertEqual(status, 0, log)
        return log


class HostCodeAsWrittenTest(GeneratedModules):
    """The focused modules, both dtypes."""
    MODULES = ("device_guards", "scratch", "optional_inplace", "relations")
    DTYPES = "float32,float16"

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
        # Written in place and returning a new tensor: the written input's alias first.
        cpp, _, cases = generated(self.out, "accumulate_scaled")
        self.assertIn('AUTOPLUGIN_OP("test::accumulate_scaled(Tensor(a0!) state, Tensor x, float '
                      'alpha) -> (Tensor(a0!), Tensor)"', cpp)
        self.assertIn("if (out0.data() != state.data()) {", cpp)
        self.assertIn("/* state_ptr */ out0.data(),", cpp)
        self.assertIn("/* y_ptr     */ out1.data(),", cpp)

    def test_relations_between_inputs(self):
        log = self.module("relations")
        cpp, _, _ = generated(self.out, "matvec")
        # the fake is called positionally (its parameters are x, w; the op's X, W)
        self.assertIn("ap::require(X[1] >= 2,", cpp)
        self.assertIn('"X[1] == W[0] (the host code checks it, from_torch_relations.py:', cpp)
        cpp, _, cases = generated(self.out, "vector_add")
        self.assertIn('"x[0] == y[0] (equal in the example; nothing in the fake or the host code '
                      'says so)"', cpp)
        self.assertIn("test::vector_add: note: requiring x[0] == y[0]", log)
        # The dynamic case's profile changes the equal extents together.
        dynamic = next(c for c in cases["cases"] if "_dynamic_" in c["name"])
        x, y = dynamic["inputs"]
        self.assertLess(x["min"][0], x["opt"][0])
        self.assertEqual((x["min"], x["max"]), (y["min"], y["max"]))

    def test_equal_extents_across_axes_and_bounds(self):
        self.module("relations")
        cpp, _, _ = generated(self.out, "add_same_shape")
        for axis in range(3):
            self.assertIn(f'"x[{axis}] == y[{axis}] (the host code checks it, '
                          'from_torch_relations.py:', cpp)
        self.assertNotIn("x[0] == y[1]", cpp)
        self.assertNotIn("x[1] == y[0]", cpp)
        cpp, _, _ = generated(self.out, "rows_from_table")
        self.assertIn("ap::require(x[0] <= table[0],", cpp)
        self.assertNotIn("x[0] == table[0]", cpp)

    def test_example_equalities_can_be_dropped(self):
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(os.path.join(HERE, "from_torch_relations.py"), "--out", out,
                                "--no-artefacts", "--op", "test::vector_add",
                                "--no-example-equalities")
            self.assertEqual(result.returncode, 0, result.stderr)
            cpp, _, _ = generated(out, "vector_add")
        self.assertNotIn("x[0] == y[0]", cpp)
        self.assertIn("not requiring x[0] == y[0] (--no-example-equalities)", result.stderr)
        # What the kernel needs stays: it reads x's count of elements of y (kernel_bounds).
        self.assertIn("ap::require(x[0] <= y[0],\n                \"x[0] <= y[0] (kernel "
                      "'add_kernel' reads past y otherwise)\");", cpp)


class FieldHostCodeTest(GeneratedModules):
    """Int attributes the fake branches on (axes, permutations, a pinned value) and host code in
    the style of inference engines."""
    MODULES = ("axis_attributes", "inference_style")

    def test_an_axis_attribute_is_part_of_the_structure(self):
        log = self.module("axis_attributes")
        cpp, _, cases = generated(self.out, "amax_dim")
        self.assertIn("test::amax_dim: note: dim is part of the structure", log)
        self.assertIn("if (x.rank() == 3 && dim == -1) {\n", cpp)
        self.assertIn("    return ap::Shape{x[0], x[1]};", cpp)
        self.assertIn("if (x.rank() == 3 && dim == 0) {\n", cpp)
        self.assertIn("    return ap::Shape{x[1], x[2]};", cpp)
        self.assertIn("regenerate with an --example for other ranks, lengths, strings or values "
                      "of dim", cpp)
        # the axis no example gives, counted from the end as one example counts
        self.assertIn("if (x.rank() == 3 && dim == -2) {\n", cpp)
        self.assertIn("    return ap::Shape{x[0], x[2]};", cpp)
        self.assertEqual({case["attributes"]["dim"] for case in cases["cases"]}, {-1, 0, -2})
        cpp, _, _ = generated(self.out, "permute3d")
        self.assertIn("dims.size() == 3 && dims[0] == 0 && dims[1] == 2 && dims[2] == 1", cpp)
        self.assertIn("return ap::Shape{x[0], x[2], x[1]};", cpp)
        # traced at the example's 1, which the fake requires (not at 2, away from 0 and 1)
        cpp, _, _ = generated(self.out, "shift_one")
        self.assertIn("if (x.rank() == 1 && k == 1) {", cpp)
        cpp, _, _ = generated(self.out, "transpose_copy")
        self.assertIn("if (x.rank() == 3 && dim0 == 1 && dim1 == 2) {", cpp)
        # each of the other axes for one of the pair, the other at the example's
        self.assertIn("if (x.rank() == 3 && dim0 == 0 && dim1 == 2) {", cpp)
        self.assertIn("return ap::Shape{x[2], x[1], x[0]};", cpp)
        self.assertIn("return ap::Shape{x[0], x[2], x[1]};", cpp)
        # the fake keeps the shape; the host code reads x.shape[dim]
        cpp, _, _ = generated(self.out, "row_sum_dim")
        self.assertIn("test::row_sum_dim: note: dim is part of the structure", log)
        self.assertIn("if (x.rank() == 3 && dim == -1) {", cpp)
        self.assertIn("if (x.rank() == 3 && dim == 0) {", cpp)
        self.assertIn('checked_i32(x.size(2), "R")', cpp)
        self.assertIn('checked_i32(x.size(0), "R")', cpp)
        # keepdim: the example gives False; True changes the output's rank and is generated too
        cpp, _, cases = generated(self.out, "sum_rows")
        self.assertIn("if (x.rank() == 2 && !keepdim) {", cpp)
        self.assertIn("if (x.rank() == 2 && keepdim) {", cpp)
        self.assertIn("    return ap::Shape{x[0], 1};", cpp)
        self.assertIn("//   generated for test::sum_rows(x=[64, 300], keepdim=True)", cpp)
        self.assertEqual({case["attributes"]["keepdim"] for case in cases["cases"]}, {0, 1})

    def test_inference_engine_host_code(self):
        self.module("inference_style")
        cpp, _, _ = generated(self.out, "silu_and_mul")
        # the op's argument `out` keeps its name; the plugin's output is `result`
        self.assertIn("void silu_and_mul_float32(ap::In<float> out,", cpp)
        self.assertIn('"test::silu_and_mul(Tensor(a0!) out, Tensor input) -> Tensor(a0!) result"',
                      cpp)
        self.assertIn("ap::Out<float> result,", cpp)
        self.assertIn("if (result.data() != out.data()) {", cpp)
        cpp, cmake, _ = generated(self.out, "cache_rows")
        self.assertIn("ap::require(key[0] >= slots[0],", cpp)
        self.assertNotIn("key[0] == slots[0]", cpp)
        self.assertIn("make_grid(slots.size(0))", cpp)
        self.assertIn('SIGNATURE "*fp32, *i64, *fp32, i64, i64, i32, i32, i32, constexpr"', cmake)
        cpp, _, _ = generated(self.out, "rope_heads")
        self.assertIn("ap::require(x[1] % head_size_dim == 0,", cpp)
        cpp, cmake, _ = generated(self.out, "persistent_scale")
        self.assertIn("make_grid(std::min<std::int64_t>(132, ap::triton::cdiv(x.size(0), 1024)))",
                      cpp)
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, fp32, 1024, 132"', cmake)
        # views partway into a tensor start at an expression of the sizes
        cpp, _, _ = generated(self.out, "glu_halves")
        self.assertIn("/* a_ptr      */ x.data(),", cpp)
        self.assertIn("/* b_ptr      */ x.data() + out.size(1),", cpp)
        cpp, _, _ = generated(self.out, "join_halves")
        self.assertIn("/* dst_ptr    */ out.data(),", cpp)
        self.assertIn("/* dst_ptr    */ out.data() + a.size(1),", cpp)
        # integer views of float tensors: the plugin takes floats, the kernel reads the bits
        cpp, cmake, _ = generated(self.out, "flip_sign")
        self.assertIn("void flip_sign_float32(ap::In<float> x, ap::Out<float> out, ap::Stream", cpp)
        self.assertIn("/* bits_ptr */ reinterpret_cast<const std::int32_t*>(x.data()),", cpp)
        self.assertIn("/* out_ptr  */ reinterpret_cast<std::int32_t*>(out.data()),", cpp)
        self.assertIn('SIGNATURE "*i32, *i32, i32, -2147483648, 256"', cmake)
        # the value part of a fused QKV; its family probed up to the fake's 1024 (the other
        # sizes follow the attribute: q_size stays >= 1)
        cpp, _, _ = generated(self.out, "value_rows")
        self.assertIn("/* src_ptr    */ qkv.data() + (out.size(1) + q_size),", cpp)
        self.assertIn('ap::require(kv_size <= 1024,\n                "kv_size <= 1024: kernel', cpp)

    def test_artefacts_of_a_module_that_reads_the_gpu_when_imported(self):
        # The ahead-of-time compile imports the module again, where torch.cuda has no GPU.
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(os.path.join(HERE, "from_torch_inference_style.py"), "--out",
                                out, "--dtypes", "float32", "--op", "test::persistent_scale")
            self.assertEqual(result.returncode, 0, result.stderr)
            aot = os.listdir(os.path.join(out, "persistent_scale", "aot"))
        self.assertTrue(any(name.endswith(".cubin") for name in aot), aot)


class HostIdiomsTest(GeneratedModules):
    """Idioms of host code that convert as written (from_torch_host_idioms.py)."""
    MODULES = ("host_idioms",)

    def test_host_code_idioms(self):
        self.module("host_idioms")
        # do_not_specialize, torch.empty_strided, device_types="cuda"
        cpp, cmake, _ = generated(self.out, "no_specialize")
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, fp32, 512"', cmake)
        self.assertIn("make_grid(ap::triton::cdiv(x.numel(), 512))", cpp)
        # constexpr defaults the launch leaves out
        _, cmake, _ = generated(self.out, "default_block")
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, 256, 3"', cmake)
        # torch.cuda.get_device_capability() answers as --arch (sm_90)
        cpp, cmake, _ = generated(self.out, "by_capability")
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, fp32, 1024"', cmake)
        self.assertIn("make_grid(ap::triton::cdiv(x.size(0), 1024))", cpp)
        # new_empty: a scratch buffer; new_zeros: the output, cleared
        cpp, _, _ = generated(self.out, "two_buffers")
        self.assertIn("/* out_ptr */ reinterpret_cast<float*>(scratch + scratch0_offset),", cpp)
        self.assertIn("check_cuda(cudaMemsetAsync(out.data(), 0,", cpp)
        # Sequence[int] as an int[] permutation (part of the structure)
        cpp, _, _ = generated(self.out, "permuted")
        self.assertIn("dims.size() == 3 && dims[0] == 0 && dims[1] == 2 && dims[2] == 1", cpp)
        # keywords, math.prod of the leading sizes, 1 / k, a functools.wraps decorator
        cpp, _, _ = generated(self.out, "by_keywords")
        self.assertIn("make_grid(x.size(0) * x.size(1))", cpp)
        self.assertIn("static_cast<float>(1.0 / static_cast<double>(k))", cpp)
        # a cap that changes with the size: a chain of comparisons, each variant's warps
        cpp, cmake, cases = generated(self.out, "two_caps")
        self.assertIn("select((x.size(1) <= 512 ? ap::triton::next_power_of_2(x.size(1)) : "
                      "x.size(1) <= 4095 ? std::int64_t{1024} : std::int64_t{2048}))", cpp)
        self.assertIn('"BLOCK=1024, num_warps=4, num_stages=3"', cmake)
        self.assertIn('"BLOCK=2048, num_warps=8, num_stages=3"', cmake)
        self.assertNotIn("x[1] <=", cpp)  # no size limit: the largest variant serves the rest
        self.assertIn([64, 4096], [i.get("shape") for case in cases["cases"]
                                   for i in case["inputs"]])  # the largest variant's case
        # a constexpr before the power of two it follows: a value per variant, in the grid too
        cpp, cmake, _ = generated(self.out, "rows_first")
        rows = ("[&]() -> std::int64_t { switch (ap::triton::next_power_of_2(x.size(1))) { "
                "case 1: return 4;")
        # (select() takes the values in the signature's order)
        self.assertIn("select(" + rows, cpp)
        self.assertIn("default: return 1; } }(), ap::triton::next_power_of_2(x.size(1))),", cpp)
        self.assertIn("make_grid(ap::triton::cdiv(x.size(0), " + rows, cpp)
        self.assertIn("case 2048: return 1;", cpp)
        self.assertIn('"ROWS=1, BLOCK=2048, num_warps=4, num_stages=3"', cmake)
        # a kept kernel launched again; a block that drops past a size; TILE >= n
        cpp, cmake, _ = generated(self.out, "cached_tiles")
        tile = ("(x.size(1) <= 32768 ? ap::triton::next_power_of_2(x.size(1)) : "
                "std::int64_t{4096})")
        self.assertIn(f"select({tile}, x.size(1) <= {tile})", cpp)
        self.assertIn('"TILE=32768, ONE_TILE=True|False, num_warps=4, num_stages=3"', cmake)
        # an int8 output the kernel writes through a float8 view
        cpp, cmake, _ = generated(self.out, "fp8_bytes")
        self.assertIn('SIGNATURE "*fp32, *fp8e4nv, i32, 1024"', cmake)
        self.assertIn("/* y_ptr */ reinterpret_cast<__nv_fp8_e4m3*>(out.data()),", cpp)
        # EVEN_K against BLOCK_K, not BLOCK_M (they agree at sizes a multiple of neither)
        cpp, _, _ = generated(self.out, "even_k")
        self.assertIn("select(a.size(1) % 128 == 0)", cpp)
        # GQA's group: one extent divided by another
        cpp, _, _ = generated(self.out, "grouped_heads")
        self.assertIn('/* group   */ checked_i32(floor_div(q.size(1), k.size(1)), "group"));', cpp)
        # a bool whose other value takes a branch that does not convert: the examples' value
        cpp, _, _ = generated(self.out, "row_scales")
        self.assertIn("if (x.rank() == 2 && !column_major) {", cpp)
        # a grid over the heads of two inputs
        cpp, _, _ = generated(self.out, "both_heads")
        self.assertIn("make_grid(q.size(0), floor_div(q.size(1), head_size) + "
                      "floor_div(k.size(1), head_size))", cpp)
        # F.pad's bounds met at the sampled points (the long axis's others raised past the
        # padding); the block of the padded width, with the padding held at the example's
        cpp, _, _ = generated(self.out, "reflect_rows")
        self.assertIn("padding.size() == 2 && padding[0] == 2 && padding[1] == 3", cpp)
        self.assertIn("select(std::min<std::int64_t>(std::max<std::int64_t>("
                      "ap::triton::next_power_of_2(x.size(1) + 5), ", cpp)
        self.assertIn("make_grid(x.size(0), ap::triton::cdiv(out.size(1), 1024))", cpp)
        # tiles of a block that is a step function of the size: the block's own chain
        cpp, _, _ = generated(self.out, "tiled_caps")
        chain = ("(x.size(1) <= 512 ? ap::triton::next_power_of_2(x.size(1)) : x.size(1) <= "
                 "4095 ? std::int64_t{1024} : std::int64_t{2048})")
        self.assertIn(f"make_grid(ap::triton::cdiv(x.size(1), {chain}), x.size(0))", cpp)


class LibraryLaunchersTest(GeneratedModules):
    """Libraries' own autotuners and launch entries (from_torch_library_launchers.py), and a
    library's custom op called through torch.ops (from_torch_calls_library_op.py)."""
    MODULES = ("library_launchers", "calls_library_op")

    def test_a_library_op_called_through_torch_ops_runs_its_kernels(self):
        self.module("calls_library_op")
        cpp, cmake, _ = generated(self.out, "halved")
        self.assertIn("KERNEL halve_kernel", cmake)
        self.assertIn("ap::triton::make_grid(ap::triton::cdiv(x.numel(), 256))", cpp)
        self.assertIn("/* y_ptr */ out.data(),", cpp)
        # Registered with Library.impl for CUDA (vLLM's and SGLang's direct_register_custom_op)
        cpp, cmake, _ = generated(self.out, "halved_rows")
        self.assertIn("KERNEL halve_kernel", cmake)
        self.assertIn("ap::triton::make_grid(ap::triton::cdiv(x.numel(), 128))", cpp)

    def test_a_library_s_autotuner_and_kernel_cache(self):
        self.module("library_launchers")
        cpp, cmake, _ = generated(self.out, "entry_scale")
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, fp32, 256"', cmake)
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, fp32, 1024"', cmake)
        self.assertIn("make_grid(ap::triton::cdiv(x.numel(), 1024))", cpp)

    def test_launch_pdl_is_left_out_with_a_note(self):
        log = self.module("library_launchers")
        self.assertIn("note: launch option launch_pdl=True of 'scale_kernel' "
                      "(from_torch_library_launchers.py:", log)
        _, cmake, _ = generated(self.out, "overlapped")
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, fp32, 512"', cmake)


class LayoutCopyTest(GeneratedModules):
    """Layouts changed with PyTorch around the kernels (from_torch_layouts.py)."""
    MODULES = ("layouts",)
    DTYPES = "float32,float16"

    def test_permuted_copies_and_outputs_become_copy_launches(self):
        log = self.module("layouts")
        cpp, cmake, _ = generated(self.out, "channel_scale")
        # The channels-last copy of the input, into the workspace: x's NHWC view read through
        # x's strides (padded to rank 6 in front)
        copy_in = cpp.index("channel_scale_layout_copy_fp32::launch(")
        kernel = cpp.index("channel_scale_last_axis_scale_kernel_fp32::launch(")
        self.assertLess(copy_in, kernel)
        self.assertIn("/* source      */ x.data(),\n"
                      "        /* destination */ reinterpret_cast<float*>(scratch + "
                      "scratch0_offset),", cpp)
        self.assertIn('/* size5       */ checked_i32(x.size(1), "size5"),\n'
                      "        /* stride0     */ std::int32_t{0},", cpp)
        self.assertIn('/* stride5     */ checked_i32(x.stride(1), "stride5"));', cpp)
        # The kernel reads the copy and writes a second buffer, copied into the output after it
        self.assertIn("/* x_ptr     */ reinterpret_cast<float*>(scratch + scratch0_offset),", cpp)
        self.assertIn("/* y_ptr     */ reinterpret_cast<float*>(scratch + scratch1_offset),", cpp)
        copy_out = cpp.index("/* destination */ out.data(),")
        self.assertLess(kernel, copy_out)
        self.assertIn("return 256 * ap::ceil_div(x[0] * x[1] * x[2] * x[3], 64) + 256 * "
                      "ap::ceil_div(x[0] * x[1] * x[2] * x[3], 64);", cpp)
        # The copy kernel's file beside the op's, compiled per dtype
        self.assertIn("SOURCE layout_copy.py KERNEL layout_copy", cmake)
        self.assertIn('SIGNATURE "*fp16, *fp16, i32, 1, i32, i32, i32, i32,', cmake)
        self.assertTrue(os.path.isfile(os.path.join(self.out, "channel_scale",
                                                    "layout_copy.py")))
        self.assertIn("from_torch_layouts.py:28 (channels_last = x.permute(0, 2, 3, 1)"
                      ".contiguous()) makes a contiguous copy of a view in another layout", log)
        self.assertIn("output 0 is returned as a view in another layout of the buffer made at "
                      "from_torch_layouts.py:29", log)
        # A transposed view returned: the kernel writes the workspace, copied transposed
        cpp, _, _ = generated(self.out, "transposed_copy")
        self.assertIn("/* y_ptr */ reinterpret_cast<float*>(scratch + scratch0_offset),", cpp)
        self.assertIn('/* size4       */ checked_i32(x.size(0), "size4"),', cpp)
        self.assertIn('/* stride5     */ checked_i32(x.size(0), "stride5"));', cpp)
        # Permuted into the order it has: no copy, the kernel reads the input
        cpp, _, _ = generated(self.out, "ordered_copy")
        self.assertNotIn("layout_copy", cpp)
        self.assertIn("/* x_ptr */ x.data(),", cpp)

    def test_the_copy_kernel_copies_every_layout(self):
        # Run in Triton's interpreter (on the CPU): ranks 1 to 6, permutations whose last axis
        # is contiguous in the source or not, extents that fill no tile and extents of one.
        script = """
import torch
from autoplugin.from_torch import layout_copy
cases = [([1, 32, 20, 128], (0, 2, 1, 3)), ([2, 3, 5, 7], (0, 2, 3, 1)), ([37, 5], (1, 0)),
         ([1000], (0,)), ([2, 3, 4, 5, 6, 7], (5, 3, 1, 0, 2, 4)), ([3, 1, 70], (2, 0, 1)),
         ([4, 33, 65], (0, 2, 1))]
for shape, permutation in cases:
    source = torch.arange(torch.Size(shape).numel(), dtype=torch.float32).view(shape)
    source = source.permute(*permutation)
    destination = torch.full(source.shape, -1.0)
    grid, arguments = layout_copy.launch_arguments(source, destination)
    layout_copy.layout_copy[grid](**arguments)
    assert torch.equal(destination, source.contiguous()), (shape, permutation)
print("copied", len(cases))
"""
        environment = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"),
                           TRITON_INTERPRET="1")
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                                env=environment)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("copied 7", result.stdout)


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
            # with its specializations, as the project's SPECIALIZE call expects
            self.assertTrue(os.path.isfile(os.path.join(out, "1", "twice", "aot",
                                                        "twice_twice_kernel_fp32.s0.cubin")))
        self.assertTrue(any("wrote" in m for m in messages))


class SizeIntegersTest(unittest.TestCase):
    """The integers named in SPECIALIZE_INTEGERS: computed from sizes, strides and element counts
    alone (or constant multiples of 16), not from attributes, and multiples of 16 at the
    example."""

    def test_sizes_are_named_and_attributes_are_not(self):
        sys.path.insert(0, os.path.join(ROOT, "python"))
        from types import SimpleNamespace as N
        from autoplugin.from_torch import expressions as E
        from autoplugin.from_torch.kernel_builds import size_integers
        op = N(arguments=[N(name="x", kind="Tensor"), N(name="bias", kind="Tensor?"),
                          N(name="seed", kind="int"), N(name="num_groups", kind="int")])

        def launch(unaligned=(), **values):
            return N(arguments=[N(name="x_ptr", kind="input", tensor="x", triton_type="")] + [
                N(name=name, kind="scalar", value=value, triton_type="i32",
                  aligned_at_example=name not in unaligned)
                for name, value in values.items()] + [
                N(name="scale", kind="scalar", triton_type="fp32",
                  value=E.call(E.TO_FLOAT, E.attribute_atom("p")))])

        numel, stride = E.tensor_atom("x", "numel"), E.tensor_atom("x", "stride", 0)
        rows, groups = E.tensor_atom("x", "size", 0), E.attribute_atom("num_groups")
        self.assertEqual(size_integers(op, launch(
            n=numel, stride=stride, seed=E.attribute_atom("seed"), block=E.Integer(1024),
            odd=E.Integer(3), group_stride=E.call(E.FLOOR_DIV, stride, groups),
            per_group=E.call(E.FLOOR_DIV, E.tensor_atom("x", "size", 1), groups),
            groups=groups)),
            [["n", "stride", "block", "group_stride"]])
        # Every integer a size, or none: the two builds SPECIALIZE makes already cover it.
        self.assertEqual(size_integers(op, launch(n=numel, rows=rows)), [])
        self.assertEqual(size_integers(op, launch(seed=E.attribute_atom("seed"))), [])
        # 257 rows of 1024 columns: the JIT specializes the columns and strides, not the rows.
        self.assertEqual(size_integers(op, launch(
            unaligned=("rows",), n=numel, rows=rows, stride=stride)), [["n", "stride"]])
        self.assertEqual(size_integers(op, launch(
            unaligned=("rows",), n=numel, rows=rows, seed=E.attribute_atom("seed"))),
            [["n", "rows"], ["n"]])
        # A size not aligned at the example alone: the sizes' build only (a larger input)
        self.assertEqual(size_integers(op, launch(
            unaligned=("n",), n=numel, seed=E.attribute_atom("seed"))), [["n"]])


class PluginSchemaTest(unittest.TestCase):
    def test_fixed_size_list_with_an_empty_default_is_any_length(self):
        sys.path.insert(0, os.path.join(ROOT, "python"))
        import torch
        from autoplugin.from_torch.discover import plugin_schema
        library = torch.library.Library("plugin_schema_test", "FRAGMENT")
        library.define("pool(Tensor x, int[2] kernel_size, int[2] stride=[], SymInt[] size=[]) "
                       "-> Tensor")
        self.assertEqual(plugin_schema(torch.ops.plugin_schema_test.pool.default._schema),
                         "plugin_schema_test::pool(Tensor x, int[2] kernel_size, int[] stride=[], "
                         "int[] size=[]) -> Tensor")


class RunTimeConstexprTest(unittest.TestCase):
    MODULE = os.path.join(HERE, "from_torch_run_time_constexpr.py")

    def test_a_constexpr_that_takes_every_size_is_passed_at_run_time(self):
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(self.MODULE, "--out", out, "--no-artefacts", "--op",
                                "test::row_double", "--op", "test::tile_copy")
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("constexpr 'n_cols' of kernel 'row_double_kernel' "
                          "(from_torch_run_time_constexpr.py:27) takes every size (x.size(1)); "
                          "it is compiled as a run-time i32 argument, which the kernel only "
                          "computes with, and compiled in for the value each example gives it "
                          "(SPECIALIZE_VALUES: give examples of the values you deploy)",
                          result.stderr)
            cpp, cmake, _ = generated(out, "row_double")
            self.assertIn('SIGNATURE "*fp32, *fp32, i32, constexpr"', cmake)
            self.assertIn('/* n_cols */ checked_i32(x.size(1), "n_cols")', cpp)
            # Also compiled in for the example's value, in the variant the example selects (as
            # Triton's JIT compiles a constexpr's value).
            self.assertIn('SPECIALIZE\n  SPECIALIZE_VALUES "n_cols=40, BLOCK=64")', cmake)
            # The str default is escaped in the schema's C++ literal.
            self.assertIn('AUTOPLUGIN_OP("test::row_double(Tensor x, str label=\\"\\") -> '
                          'Tensor",', cpp)
            # Tiles over two extents: the grid as the host code computes it.
            cpp, cmake, _ = generated(out, "tile_copy")
            self.assertIn("ap::triton::make_grid(ap::triton::cdiv(x.size(0), 32) * "
                          "ap::triton::cdiv(x.size(1), 64))", cpp)
            self.assertIn("SPECIALIZE)", cmake)

    def test_a_size_after_the_block_is_not_a_value_per_variant(self):
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(self.MODULE, "--out", out, "--no-artefacts", "--op",
                                "test::row_double_block_first", "--example",
                                "test::row_double_block_first(x=[3, 40])")
            self.assertEqual(result.returncode, 0, result.stderr)
            cpp, cmake, _ = generated(out, "row_double_block_first")
            self.assertIn('SIGNATURE "*fp32, *fp32, constexpr, i32"', cmake)
            self.assertIn('/* n_cols */ checked_i32(x.size(1), "n_cols")', cpp)

    def test_a_constexpr_the_kernel_needs_at_compile_time_is_held_at_the_example(self):
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(self.MODULE, "--out", out, "--no-artefacts", "--op",
                                "test::static_row")
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("note: requires x.size(1) == 32: kernel 'static_row_kernel' is "
                          "compiled for its constexpr N = 32, the example's value",
                          result.stderr)
            cpp, cmake, _ = generated(out, "static_row")
            self.assertIn("ap::require(x[1] == 32,", cpp)
            self.assertIn('SIGNATURE "*fp32, *fp32, 32"', cmake)


class GpuNameTest(unittest.TestCase):
    """Host code that picks its launch configuration by the GPU's name (from_torch_gpu_configs.py,
    a JSON file per GPU as vLLM's and SGLang's are): --gpu-name picks the deployed GPU's."""

    def generate(self, *options):
        out = tempfile.mkdtemp(prefix="from_torch_gpu_name_")
        result = from_torch(os.path.join(HERE, "from_torch_gpu_configs.py"), "--out", out,
                            "--no-artefacts", *options)
        self.assertEqual(result.returncode, 0, result.stderr)
        cpp, cmake, _ = generated(out, "double")
        return cpp, cmake, result.stderr

    def test_the_configuration_follows_the_gpu_name_given(self):
        cpp, cmake, log = self.generate()
        # No name given: the fallback configuration, and a note saying how to pick another
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, 1024"\n  NUM_WARPS 4', cmake)
        self.assertIn("ap::triton::cdiv(x.numel(), 1024)", cpp)
        self.assertIn("reads the GPU's name (torch.cuda.get_device_name): generated for 'sm_90', "
                      "which names no GPU", log)
        self.assertIn("give --gpu-name", log)
        cpp, cmake, log = self.generate("--gpu-name", "NVIDIA H100 80GB HBM3")
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, 256"\n  NUM_WARPS 8', cmake)
        self.assertIn("ap::triton::cdiv(x.numel(), 256)", cpp)
        self.assertIn("generated for 'NVIDIA H100 80GB HBM3'\n", log)


class HostRefusalTest(unittest.TestCase):
    MODULE = os.path.join(HERE, "from_torch_host_refusals.py")

    def refused(self, op, *options):
        """from-torch's stderr for `op` of the refusals module, which it must refuse."""
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(self.MODULE, "--out", out, "--no-artefacts", "--op", op,
                                *options)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        return result.stderr

    def test_host_code_refusals_say_what_to_change(self):
        stderr = self.refused("test::aligned_copy")
        self.assertIn("its host code rejects sizes the plugin would accept", stderr)
        self.assertIn('at from_torch_host_refusals.py:35 (assert x.shape[-1] % 3 == 0, "rows '
                      'of a multiple of 3"): AssertionError', stderr)
        self.assertIn("State that condition in the fake implementation (torch._check(...))",
                      stderr)
        stderr = self.refused("test::upcast_copy", "--dtypes", "float32,float16")
        self.assertIn("argument 'x_ptr' of kernel 'copy_kernel' (from_torch_host_refusals.py:"
                      "49: ", stderr)
        self.assertIn("is, for float16 inputs, a tensor the host code computes with 'float'",
                      stderr)
        self.assertIn("make it an input of the op", stderr)
        for op, message in [
                ("test::row_sums_total", "output 0 is written by none of its kernels: the "
                 "host code computes it with PyTorch (sum at from_torch_host_refusals.py:"),
                ("test::shifted_copy", "output 0 starts as what PyTorch computes (add at "
                 "from_torch_host_refusals.py:"),
                ("test::scaled_copy", "the host code writes a tensor its kernels use with "
                 "PyTorch (mul_ at from_torch_host_refusals.py:")]:
            stderr = self.refused(op)
            self.assertIn(message, stderr)
            self.assertIn("a plugin runs the kernels only", stderr)

    def test_a_block_limit_that_follows_the_element_size_is_refused(self):
        # float16 first: the family is probed in float16 up to 32768 columns, where float32's
        # host code runs the loop kernel instead
        stderr = self.refused("test::rows_by_element_size", "--dtypes", "float16,float32")
        self.assertIn("the host code runs in float16 but in float32 launches "
                      "['row_loop_kernel']", stderr)
        self.assertIn("generate each dtype in a project of its own (--dtypes float32)", stderr)

    def test_a_tensor_made_from_python_data_on_the_gpu_is_of_unknown_contents(self):
        # (not a constant: its operations would need a GPU at generation time)
        stderr = self.refused("test::unless_one")
        self.assertIn("its host code reads the tensor contents at from_torch_host_refusals.py:",
                      stderr)
        self.assertNotIn("NVIDIA driver", stderr)

    def test_a_set_of_too_many_sizes_names_the_extent_the_check_and_the_count(self):
        stderr = self.refused("test::head_set_copy")
        self.assertIn("tracing the fake implementation fixes x.size(1) to 64, the example's "
                      "(through the condition of torch._check at from_torch_host_refusals.py:",
                      stderr)
        self.assertIn("A set of up to 16 sizes is generated (a variant per size), not this one: "
                      "the fake accepts 32 sizes there (8, 16, 24, 32, ..., 248, 256), more "
                      "than the 16 of a set that is generated (a variant per size). Pin the "
                      "size in the fake (`torch._check(x.shape[1] == 64)`", stderr)

if __name__ == "__main__":
    unittest.main(verbosity=1)
