"""from-torch end to end on the CPU: the example modules (the RFC's circular pad as published among
them) become plugin projects (the generated C++ holds the recovered launches and shapes), and what
cannot be generated is refused with the argument, the source line and why. Needs torch and triton
(no GPU). test_from_torch_host.py covers host code as users write it."""
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
        self.assertEqual(unnamed_but_read(cpp), [], "the project would not compile")
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

    def test_family_warps_read_where_a_relation_ties_the_sizes(self):
        # BLOCK_SIZE comes from Q[3] // 2 and the fake requires 2 * cos[1] == Q[3]: probing a
        # size for each power of two must move both, or every variant gets the example's warps.
        cpp, cmake = self.generate(os.path.join("corpus", "unsloth_rope.py"))
        self.assertIn('"BLOCK_SIZE=1024, num_warps=4, num_stages=3"', cmake)
        self.assertIn('"BLOCK_SIZE=2048, num_warps=8, num_stages=3"', cmake)
        self.assertIn('"BLOCK_SIZE=65536, num_warps=32, num_stages=3"', cmake)

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


    def test_an_optional_string_selects_a_structure_none_included(self):
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(os.path.join(os.path.dirname(__file__),
                                             "from_torch_structures.py"), "--out", out,
                                "--op", "test::activate", "--no-artefacts")
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(os.path.join(out, "activate", "activate.cpp")) as f:
                cpp = f.read()
            with open(os.path.join(out, "activate", "cases.json")) as f:
                cases = json.load(f)["cases"]
        self.assertIn('AUTOPLUGIN_OP("test::activate(Tensor x, str? activation=None) -> Tensor"',
                      cpp)
        self.assertIn("std::optional<std::string_view> activation", cpp)
        self.assertIn("if (x.rank() == 2 && !activation.has_value()) {", cpp)
        self.assertIn('if (x.rank() == 2 && activation.has_value() && *activation == "silu") {',
                      cpp)
        self.assertIn("(x of rank 2, activation = None) or (x of rank 2, activation = 'relu')",
                      cpp)
        self.assertEqual({c["attributes"]["activation"] for c in cases}, {None, "relu", "silu"})

    def test_extents_a_fake_requires_equal(self):
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(os.path.join(os.path.dirname(__file__),
                                             "from_torch_tied_extents.py"), "--out", out,
                                "--no-artefacts")
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(os.path.join(out, "add_bias", "add_bias.cpp")) as f:
                cpp = f.read()
            with open(os.path.join(out, "add_pairs", "add_pairs.cpp")) as f:
                pairs = f.read()
        self.assertIn("ap::require(bias[0] == x[2],", cpp)
        self.assertIn("return ap::Shape{x[0], x[1], x[2]};", cpp)
        self.assertIn("/* cols     */ checked_i32(x.size(2), \"cols\")", cpp)
        # a relation other than equality, from the trace at the example's extents
        self.assertIn("ap::require(2 * pairs[0] == x[0],", pairs)


class VariantsGeneration(unittest.TestCase):
    """Generates a test module's op into a temporary folder (no test of its own)."""

    def generate(self, module, *extra):
        # No artefacts: a family is many Triton compilations (check_variants_build.cmake builds
        # small ones).
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(os.path.join(os.path.dirname(__file__), module), "--out", out,
                                "--no-artefacts", *extra)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.log = result.stderr
            folder = result.stdout.strip().splitlines()[-1]
            name = os.path.basename(folder)
            with open(os.path.join(folder, f"{name}.cpp")) as f:
                cpp = f.read()
            with open(os.path.join(folder, "CMakeLists.txt")) as f:
                cmake = f.read()
            with open(os.path.join(folder, "cases.json")) as f:
                self.cases = {c["name"]: c for c in json.load(f)["cases"]}
        return cpp, cmake


class FamilyTest(VariantsGeneration):
    """Constexprs that follow the sizes, attributes and dtypes: families and sets of variants."""

    def test_constexprs_from_sizes_and_attributes_become_a_family(self):
        cpp, cmake = self.generate("from_torch_constexpr_family.py", "--max-block", "2048")
        # every power of two the row length can give, each with the warps the host code picks
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, fp32, constexpr, \'shifted\', constexpr"',
                      cmake)
        self.assertIn('    "BLOCK_SIZE=1, LOG=True|False, num_warps=4, num_stages=3"\n', cmake)
        self.assertIn('    "BLOCK_SIZE=512, LOG=True|False, num_warps=4, num_stages=3"\n', cmake)
        self.assertIn('    "BLOCK_SIZE=1024, LOG=True|False, num_warps=8, num_stages=3"\n', cmake)
        self.assertIn('    "BLOCK_SIZE=2048, LOG=True|False, num_warps=8, num_stages=3"\n  NUM_WARPS',
                      cmake)
        # selected at enqueue from the recovered expressions
        self.assertIn("row_softmax_row_softmax_kernel_fp32::select("
                      "ap::triton::next_power_of_2(x.size(1)), log),", cpp)
        # longer rows are refused by the plugin, saying how to raise the limit
        self.assertIn('ap::require(x[1] <= 2048,\n                "x[1] <= 2048: kernel '
                      "'row_softmax_kernel' (from_torch_constexpr_family.py:43): variants are "
                      "compiled up to BLOCK_SIZE = 2048; regenerate with --max-block 4096 (or "
                      'larger) for larger sizes");', cpp)

    def test_the_host_codes_own_limit_bounds_the_family(self):
        cpp, cmake = self.generate("from_torch_constexpr_family.py")
        self.assertIn('    "BLOCK_SIZE=8192, LOG=True|False, num_warps=16, num_stages=3"\n  NUM_WARPS',
                      cmake)
        self.assertIn("ap::require(x[1] <= 8192,", cpp)
        self.assertIn("the host code refuses x[1] = 16384 (at from_torch_constexpr_family.py:29 "
                      "(raise RuntimeError(f\\\"rows of {n_cols} do not fit in one block\\\")): "
                      "RuntimeError: rows of 16384 do not fit in one block)", cpp)

    def test_a_capped_power_of_two_serves_every_larger_size(self):
        cpp, cmake = self.generate("from_torch_capped_family.py", "--max-block", "4096")
        self.assertIn('    "BLOCK_SIZE=1024, num_warps=4, num_stages=3"\n  NUM_WARPS', cmake)
        self.assertIn("row_total_row_total_kernel_fp32::select(std::min<std::int64_t>("
                      "ap::triton::next_power_of_2(x.size(1)), 1024)),", cpp)
        self.assertNotIn("ap::require(x[1] <=", cpp)

    def test_a_family_stops_where_its_block_passes_max_block(self):
        cpp, cmake = self.generate("from_torch_tile_family.py")
        # heads x 64 elements: 1024 heads hold 65536, the default --max-block
        self.assertIn('    "BLOCK_HEADS=1024, num_warps=4, num_stages=3"\n  NUM_WARPS', cmake)
        self.assertIn('ap::require(x[1] <= 1024,\n                "x[1] <= 1024: kernel '
                      "'heads_scale_kernel' (from_torch_tile_family.py:24): at BLOCK_HEADS = "
                      "2048 a program would hold a block of 131072 elements, more than "
                      "--max-block 65536; regenerate with --max-block 131072 (or larger) for "
                      'larger sizes");', cpp)

    def test_a_power_of_two_of_a_size_computed_from_others(self):
        cpp, cmake = self.generate("from_torch_derived_family.py", "--max-block", "4096")
        self.assertIn('    "BLOCK=1, num_warps=4, num_stages=3"\n', cmake)
        self.assertIn('    "BLOCK=4096, num_warps=8, num_stages=3"\n  NUM_WARPS', cmake)
        # x.shape[-1] // 2, which the fake's evenness check makes a ceiling division too
        self.assertIn("select(ap::triton::next_power_of_2(ap::triton::cdiv(x.size(2), 2))),", cpp)
        self.assertIn("ap::require(ap::ceil_div(x[2], 2) <= 4096,", cpp)
        self.assertIn("regenerate with --max-block 8192", cpp)

    def test_a_set_of_sizes_is_a_variant_per_size(self):
        cpp, cmake = self.generate("from_torch_set_of_sizes.py", "--op", "test::head_rms")
        # the fake's `x.shape[-1] in (16, 32, 64, 128)`: every size, with the tiles it takes
        self.assertIn('  VARIANTS\n'
                      '    "HEAD_DIM=16, CHUNK=16, BLOCK_ROWS=16, num_warps=4, num_stages=3"\n'
                      '    "HEAD_DIM=32, CHUNK=16, BLOCK_ROWS=16, num_warps=4, num_stages=3"\n'
                      '    "HEAD_DIM=64, CHUNK=32, BLOCK_ROWS=16, num_warps=4, num_stages=3"\n'
                      '    "HEAD_DIM=128, CHUNK=32, BLOCK_ROWS=8, num_warps=4, num_stages=3"\n'
                      '  NUM_WARPS', cmake)
        head = "x.size(2)"
        chunk = (f"[&]() -> std::int64_t {{ switch ({head}) {{ case 16: return 16; case 32: "
                 "return 16; case 64: return 32; case 128: return 32; default: return 32; } }()")
        rows = (f"[&]() -> std::int64_t {{ switch ({head}) {{ case 16: return 16; case 32: "
                "return 16; case 64: return 16; case 128: return 8; default: return 8; } }()")
        self.assertIn(f"select({head}, {chunk}, {rows}),", cpp)
        # a grid of row tiles of the variant's BLOCK_ROWS
        self.assertIn(f"ap::triton::make_grid(ap::triton::cdiv(out1.numel(), {rows})), stream,",
                      cpp)
        # the set is the plugin's requirement, the output shapes symbolic in the head size
        self.assertIn('ap::require((x[2] == 128) || (x[2] == 16) || (x[2] == 32) || '
                      '(x[2] == 64),\n                "x[2] in {16, 32, 64, 128} (a set of sizes '
                      'checked in the fake implementation, from_torch_set_of_sizes.py:', cpp)
        self.assertNotIn("ap::require(x[2] <= 128", cpp)
        self.assertIn("return {ap::Shape{x[0], x[1], x[2]}, ap::Shape{x[0], x[1]}};", cpp)
        # a case per size, so that `check` runs every variant
        for size in (16, 32, 128):
            case = self.cases[f"fp32_x2_{size}_3"]
            self.assertEqual(case["inputs"][0]["shape"], [6, 40, size])
            self.assertEqual(case["expect_shapes"], [[6, 40, size], [6, 40]])

    def test_a_set_of_sizes_not_all_powers_of_two(self):
        cpp, cmake = self.generate("from_torch_set_of_sizes.py", "--op", "test::head_rms_padded")
        # the exact size and its next power of two, per size of the set (a power-of-two family
        # fitted to samples would run 80 as 128)
        self.assertIn('    "HEAD=48, HEAD_PADDED=64, num_warps=4, num_stages=3"\n'
                      '    "HEAD=64, HEAD_PADDED=64, num_warps=4, num_stages=3"\n'
                      '    "HEAD=80, HEAD_PADDED=128, num_warps=4, num_stages=3"\n', cmake)
        self.assertIn("select(x.size(2), [&]() -> std::int64_t { switch (x.size(2)) { case 32: "
                      "return 32; case 48: return 64; case 64: return 64; case 80: return 128; "
                      "case 96: return 128; case 128: return 128; default: return 128; } }()),",
                      cpp)
        self.assertEqual(sorted(self.cases), sorted(
            [f"fp32_{k}_3" for k in ("static", "dynamic", "x2_32", "x2_48", "x2_64", "x2_96",
                                     "x2_128")]))

    def test_equalities_after_a_set_name_its_extent(self):
        cpp, cmake = self.generate("from_torch_set_of_sizes.py", "--op", "test::paired_heads")
        # traced as `128 == k[1]` after the set's check: the set's extent, at every size
        self.assertNotIn("128 ==", cpp)
        self.assertIn("ap::require(q[2] == k[1],", cpp)
        self.assertIn("(q[2] == 128) || (q[2] == 256) || (q[2] == 64)", cpp)
        # the value head size's power of two follows the set's variant
        self.assertIn('    "D=64, DV=64, num_warps=4, num_stages=3"\n'
                      '    "D=128, DV=128, num_warps=4, num_stages=3"\n'
                      '    "D=256, DV=256, num_warps=4, num_stages=3"\n', cmake)

    def test_a_count_of_groups_from_a_set_of_values(self):
        # the fake's `-(n // -group_size)`, traced with the example's -64 in place of the value
        cpp, _ = self.generate("from_torch_set_of_sizes.py", "--op", "test::group_scales")
        self.assertIn("return ap::Shape{ap::ceil_div(x[0] * x[1], group_size_dim)};", cpp)
        self.assertIn("select(group_size),", cpp)

    def test_a_set_of_values_of_an_int_attribute(self):
        cpp, cmake = self.generate("from_torch_set_of_sizes.py", "--op", "test::group_absmax")
        self.assertIn('  VARIANTS\n    "GROUP=32, num_warps=4, num_stages=3"\n'
                      '    "GROUP=64, num_warps=4, num_stages=3"\n'
                      '    "GROUP=128, num_warps=4, num_stages=3"\n  NUM_WARPS', cmake)
        self.assertIn('"group_size in {32, 64, 128} (a set of values checked in the fake '
                      'implementation, from_torch_set_of_sizes.py:', cpp)
        self.assertIn("select(group_size),", cpp)
        # the check after the set's, traced with the example's 64, is the attribute's again
        self.assertIn('ap::require(x[1] % group_size_dim == 0,\n                "x[1] % '
                      'group_size == 0 (torch._check in the fake implementation', cpp)
        self.assertNotIn("x[1] % 64", cpp)
        # (whole groups: the samples keep the rows divisible, as the fake requires)
        self.assertIn("ap::triton::make_grid(floor_div(x.numel(), group_size))", cpp)
        self.assertEqual(self.cases["fp32_group_size_128_2"]["attributes"],
                         {"group_size": 128})

    def test_an_output_the_host_code_allocates_zeroed_is_cleared(self):
        cpp, _ = self.generate("from_torch_zeroed_output.py")
        self.assertIn("    check_cuda(cudaMemsetAsync(out.data(), 0, out.numel() * "
                      "sizeof(*out.data()), stream),", cpp)
        self.assertLess(cpp.index("cudaMemsetAsync(out.data()"),
                        cpp.index("row_sum_atomic_row_sum_atomic_kernel_fp32::launch("))

    def test_an_input_of_its_own_dtype(self):
        cpp, cmake = self.generate("from_torch_int_labels.py", "--dtypes", "float32,float16")
        self.assertIn('SIGNATURE "*fp16, *i64, *fp16, i32"', cmake)
        self.assertEqual(cpp.count("ap::In<std::int64_t> labels,"), 2)  # in both launchers

    def test_float8_tensors_of_the_op(self):
        cpp, cmake = self.generate("from_torch_float8.py", "--dtypes", "float32,float16")
        self.assertIn('SIGNATURE "*fp8e4nv, *fp16, *fp8e4nv, i32, constexpr"', cmake)
        self.assertEqual(cpp.count("ap::In<__nv_fp8_e4m3> x,"), 2)
        self.assertEqual(cpp.count("ap::Out<__nv_fp8_e4m3> out,"), 2)
        # Drawn as floats (not as the 0 and 1 an integer input gets).
        self.assertEqual(self.cases["fp16_static_2_1"]["inputs"][0],
                         {"dtype": "float8_e4m3fn", "shape": [64, 256]})

    def test_a_kernel_defined_inside_a_function_compiles_from_the_copy(self):
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(os.path.join(os.path.dirname(__file__),
                                             "from_torch_nested_kernel.py"),
                                "--out", out, "--no-artefacts")
            self.assertEqual(result.returncode, 0, result.stderr)
            copy = os.path.join(out, "scale_rows", "from_torch_nested_kernel.py")
            with open(copy) as f:
                self.assertIn("\n@triton.jit\ndef scale_rows_kernel(", f.read())
            # The project's build step: the kernel, found at the copy's top level, compiles.
            compiled = subprocess.run(
                [sys.executable, os.path.join(ROOT, "tools", "triton_aot.py"), "compile",
                 "--source", copy, "--kernel", "scale_rows_kernel", "--signature",
                 "*fp32, *fp32, i32, fp32, 128", "--name", "scale_rows", "--num-warps", "4",
                 "--num-stages", "3", "--arch", "90", "--out-dir", os.path.join(out, "aot")],
                capture_output=True, text=True)
            self.assertEqual(compiled.returncode, 0, compiled.stderr)

    def test_a_constexpr_per_dtype(self):
        _, cmake = self.generate("from_torch_dtype_constexpr.py", "--dtypes",
                                 "float32,float16,bfloat16")
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, fp32, tl.fp32, 1024"', cmake)
        self.assertIn('SIGNATURE "*fp16, *fp16, i32, fp32, tl.fp16, 1024"', cmake)
        self.assertIn('SIGNATURE "*bf16, *bf16, i32, fp32, tl.bf16, 1024"', cmake)


class LaunchRecoveryTest(VariantsGeneration):
    """Launches recovered from what the samples show: edges, tiles, flags, warm-ups, heuristics
    and autotune configs."""

    def test_values_the_random_samples_seldom_reach(self):
        cpp, cmake = self.generate("from_torch_edges.py", "--op", "test::scaled_softcap",
                                   "--max-block", "512")
        self.assertIn("/* eps             */ static_cast<float>(eps)", cpp)
        self.assertIn("/* inv_temperature */ static_cast<float>(1.0 / temperature)", cpp)
        self.assertIn("/* SOFTCAP         */ static_cast<float>(softcap)", cpp)
        self.assertIn("select(softcap != 0, ", cpp)
        self.assertIn('"DO_SOFTCAP=True|False, BLOCK=512, num_warps=4, num_stages=3"', cmake)
        self.assertIn("constexpr 'SOFTCAP'", self.log)

    def test_an_autotune_configs_tiles_past_its_block(self):
        cpp, _ = self.generate("from_torch_edges.py", "--op", "test::wide_tiles")
        self.assertIn("make_grid(x.size(0), ap::triton::cdiv(x.size(1), 2048))", cpp)

    def test_requirements_the_samples_keep(self):
        cpp, _ = self.generate("from_torch_edges.py", "--op", "test::norm_rows")
        self.assertIn("ap::require(x[2] == normalized_shape_0,", cpp)
        self.assertIn("ap::require(x[2] == 64,", cpp)
        self.assertIn("/* n_cols  */ std::int32_t{64}", cpp)  # normalized_shape[0], pinned

    def test_an_absent_tensor_passed_as_none(self):
        _, cmake = self.generate("from_torch_edges.py", "--op", "test::maybe_bias")
        self.assertIn('SIGNATURE "*fp32, *fp32, *fp32, i32, True, 256"', cmake)
        self.assertIn('SIGNATURE "*fp32, None, *fp32, i32, False, 256"', cmake)

    def test_tiles_of_lengths_a_little_apart(self):
        cpp, _ = self.generate("from_torch_edges.py", "--op", "test::pad_tail")
        self.assertIn("make_grid(x.size(0), ap::triton::cdiv(out.size(1), 256))", cpp)

    def test_a_case_runs_the_largest_variant(self):
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(os.path.join(os.path.dirname(__file__), "from_torch_edges.py"),
                                "--out", out, "--no-artefacts", "--op", "test::scaled_softcap",
                                "--max-block", "512")
            self.assertEqual(result.returncode, 0, result.stderr)
            folder = result.stdout.strip().splitlines()[-1]
            with open(os.path.join(folder, "cases.json")) as f:
                cases = {c["name"]: c for c in json.load(f)["cases"]}
        # The example's rows of 256 select the block of 256; the family goes up to 512.
        largest = cases["fp32_largest_variant_2_1"]
        self.assertEqual([i["shape"] for i in largest["inputs"]], [[4, 512], [512]])
        self.assertEqual(largest["expect_shapes"], [[4, 512]])

    def test_an_output_that_starts_as_a_copy_of_the_input(self):
        cpp, _ = self.generate("from_torch_edges.py", "--op", "test::add_one_copy")
        self.assertIn("check_cuda(cudaMemcpyAsync(out.data(), x.data(), x.numel() * "
                      "sizeof(*out.data()),", cpp)
        self.assertLess(cpp.index("cudaMemcpyAsync(out.data()"),
                        cpp.index("add_one_copy_add_one_kernel_fp32::launch("))

    def test_flags_and_floats_from_attributes(self):
        cpp, cmake = self.generate("from_torch_float_flags.py", "--op", "test::capped_scale")
        self.assertIn('"DO_SOFTCAP=True|False', cmake)
        self.assertIn("select(softcap != 0)", cpp)
        self.assertIn("/* keep    */ (training ? static_cast<float>(p) : 0.0f)", cpp)
        self.assertIn("ap::triton::make_grid(ap::triton::cdiv(x.size(0) * x.size(1), 16))", cpp)
        # the CUDA kernel registered beside a PyTorch body; affine functions of attributes
        cpp, _ = self.generate("from_torch_float_flags.py", "--op", "test::rescale")
        self.assertIn("/* keep_scale */ static_cast<float>(1.0 / (1.0 - p)),", cpp)
        self.assertIn("/* exp2_scale */ static_cast<float>(1.44269504 * temperature));", cpp)
        # Optional[float] / Optional[int]: None is another structure; an int's values are part
        cpp, _ = self.generate("from_torch_float_flags.py", "--op", "test::soft_cap")
        self.assertIn("                         std::optional<double> softcap,\n"
                      "                         std::optional<std::int64_t> block) {", cpp)
        self.assertIn("if (x.rank() == 1 && !softcap.has_value() && !block.has_value()) {", cpp)
        self.assertIn("softcap.has_value() && block.has_value() && *block == 128) {", cpp)
        self.assertIn("/* inverse */ static_cast<float>(1.0 / *softcap));", cpp)
        self.assertIn("ap::triton::make_grid(ap::triton::cdiv(x.size(0), 128)), stream,", cpp)
        self.assertIn('"test::soft_cap(Tensor x, float? softcap=None, int? block=None) -> Tensor"',
                      cpp)
        self.assertEqual({(c["attributes"]["softcap"], c["attributes"]["block"])
                          for c in self.cases.values()}, {(None, None), (30.0, None), (30.0, 128)})

    def test_a_kernel_warmed_up_then_launched_compiled(self):
        cpp, cmake = self.generate("from_torch_warmup.py")
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, i32, 256"', cmake)
        # 132 multiprocessors x the occupancy of the kernel's registers, at most one per row
        self.assertRegex(cpp, r"ap::triton::make_grid\(std::min<std::int64_t>\(\d+, "
                              r"x\.size\(0\) \* x\.size\(1\)\), 1, 1\), stream,")

    def test_a_grid_of_each_variants_occupancy(self):
        # The tutorial's persistent softmax: multiprocessors x the occupancy of each block size
        cpp, _ = self.generate(os.path.join("..", "..", "examples", "from_torch", "corpus",
                                            "persistent_softmax.py"))
        self.assertRegex(cpp, r"make_grid\(std::min<std::int64_t>\(\[&\]\(\) -> std::int64_t "
                              r"\{ switch \(ap::triton::next_power_of_2\(x\.size\(1\)\)\) "
                              r"\{ case 1: return \d+; .* case 1024: return \d+; .*\}\(\), "
                              r"x\.size\(0\)\), 1, 1\)")
        # A float32 row of 32,768 in 4 pipeline stages needs more shared memory than the GPU
        # has: Triton's kernel does not load there (eager PyTorch raises OutOfResources), and a
        # plugin computing an occupancy of 0 programs from it would write nothing.
        self.assertIn("ap::require(x[1] <= 16384,", cpp)
        self.assertIn("the host code refuses x[1] = 32768 (at persistent_softmax.py:51 "
                      "(kernel._init_handles()): OutOfResources: out of resource: shared memory",
                      cpp)

    def test_heuristics_select_the_variant(self):
        cpp, cmake = self.generate("from_torch_heuristics.py", "--max-block", "64")
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, constexpr, constexpr"', cmake)
        self.assertIn('    "BLOCK=64, EVEN=True|False, num_warps=4, num_stages=3"\n', cmake)
        self.assertIn("row_double_row_double_kernel_fp32::select(ap::triton::next_power_of_2("
                      "x.size(1)), x.size(1) % ap::triton::next_power_of_2(x.size(1)) == 0),", cpp)
        self.assertIn("ap::require(x[1] <= 64,", cpp)

    def test_an_argument_that_is_always_one_is_compiled_as_the_constant(self):
        cpp, cmake = self.generate("from_torch_unit_strides.py")
        # stride_xn as Triton's JIT compiles it; stride_on is do_not_specialize: a run-time i32
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, i32, 1, i32, i32, 128"', cmake)
        self.assertNotIn("/* stride_xn", cpp)
        self.assertIn("/* stride_on */ std::int32_t{1}", cpp)

    def test_autotune_configs_become_tactics(self):
        cpp, cmake = self.generate("from_torch_autotuned.py")
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, 128"', cmake)
        self.assertIn('SIGNATURE "*fp32, *fp32, i32, 256"', cmake)
        self.assertIn("    // @triton.autotune config 1: BLOCK=256, num_warps=4, num_stages=3\n"
                      "    autotuned_copy_cp_kernel_fp32_v2::launch(\n"
                      "        ap::triton::make_grid(ap::triton::cdiv(x.numel(), 256)), stream,",
                      cpp)
        self.assertIn("autotuned_copy_shape, autotuned_copy_float32_config0, "
                      "autotuned_copy_float32_config1);", cpp)


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


    def test_missing_example_is_explained(self):
        with tempfile.TemporaryDirectory() as out:
            result = from_torch(os.path.join(EXAMPLES, "circular_pad_rfc.py"), "--out", out)
            self.assertEqual(result.returncode, 1)
            self.assertIn("no example. Pass --example 'torchtrt_ex::triton_circular_pad(x=..., "
                          "padding=...)'", result.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=1)
