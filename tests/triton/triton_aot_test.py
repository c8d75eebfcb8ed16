"""Unit tests of tools/triton_aot.py without Triton: the signature, variant and PTX parsing of the
compile step, and the C++ the embed step generates from an artefact or a family (with
triton_aot_embed.py and triton_aot_family.py). Standard library only.

    python3 tests/triton/triton_aot_test.py
"""
import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPT = HERE.parents[1] / "tools" / "triton_aot.py"
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
spec = importlib.util.spec_from_file_location("triton_aot", SCRIPT)
triton_aot = importlib.util.module_from_spec(spec)
sys.modules["triton_aot"] = triton_aot  # as imported: its compile processes find its functions
spec.loader.exec_module(triton_aot)
triton_aot_embed = sys.modules["triton_aot_embed"]  # the standard-library half it imports
UsageError = triton_aot.UsageError

PTX_TYPES = {"i1": "u8", "u1": "u8", "i8": "s8", "u8": "u8", "i16": "s16", "u16": "u16",
             "i32": "s32", "u32": "u32", "i64": "s64", "u64": "u64", "fp16": "b16",
             "bf16": "b16", "fp32": "f32", "fp64": "f64"}


def parameter(name, type_name, divisibility=1):
    return {"name": name, "type": type_name, "divisibility": divisibility}


def constant(name, value):
    return {"name": name, "value": value}


def write_artefact(directory, name, parameters=(), constants=(), scratch_parameters=2,
                   global_scratch=0, global_scratch_align=128, profile_scratch=0,
                   ptx_parameters=None, cubin=b"\x7fELF", **overrides):
    """DIR/NAME.json, .cubin and .ptx as the compile step writes them; the PTX's .entry takes
    the described parameters (or the PTX types in `ptx_parameters`)."""
    metadata = {
        "format": 1, "name": name, "function": "kernel_fn", "source": "k.py",
        "source_sha256": "0" * 64, "kernel": "kernel_fn", "signature": "sig",
        "num_warps": 4, "launch_num_warps": 4, "num_stages": 3, "arch": 90,
        "triton_version": "3.6.0", "shared_bytes": 128, "parameters": list(parameters),
        "constants": list(constants), "scratch_parameters": scratch_parameters,
        "global_scratch": {"bytes": global_scratch, "align": global_scratch_align},
        "profile_scratch": {"bytes": profile_scratch, "align": 1},
    }
    metadata.update(overrides)
    if ptx_parameters is None:
        ptx_parameters = ["u64" if p["type"].startswith("*") else PTX_TYPES[p["type"]]
                          for p in parameters if "value" not in p] + ["u64"] * scratch_parameters
    entry = ",\n".join(f"\t.param .{t} kernel_fn_param_{i}" for i, t in enumerate(ptx_parameters))
    base = Path(directory) / name
    Path(f"{base}.json").write_text(json.dumps(metadata, indent=2))
    Path(f"{base}.cubin").write_bytes(cubin)
    Path(f"{base}.ptx").write_text(f".version 8.7\n.target sm_90a\n\n.visible .entry kernel_fn(\n"
                                   f"{entry}\n)\n{{\n\tret;\n}}\n")
    return base


def initializer_bytes(source, array):
    """The bytes of the C array `array` in generated source text."""
    body = re.search(re.escape(array) + r"\[[^\]]*\] = \{(.*?)\};", source, re.S).group(1)
    return bytes(int(value, 16) for value in re.findall(r"0x([0-9a-f]{2}),", body))


class SignatureTest(unittest.TestCase):
    def test_types_hints_and_constexprs(self):
        parameters, constants = triton_aot.parse_signature(
            "*fp32:16, i32, fp32, 1024, True, 0.5", ["x", "n", "alpha", "BLOCK", "FLAG", "F"], "k")
        self.assertEqual(parameters, [parameter("x", "*fp32", 16), parameter("n", "i32"),
                                      parameter("alpha", "fp32")])
        self.assertEqual(constants, [constant("BLOCK", "1024"), constant("FLAG", "True"),
                                     constant("F", "0.5")])

    def test_wrong_count_names_the_parameters(self):
        with self.assertRaisesRegex(UsageError, r"has 2 parameters \(x, n\); the signature lists 1"):
            triton_aot.parse_signature("*fp32", ["x", "n"], "k")

    def test_refused_entries(self):
        for signature, message in [("fp31", "unknown type 'fp31'"),
                                   ("i32:8", "the only hint is ':16'"),
                                   ("fp32:16", "':16' applies to pointers and integers"),
                                   ("007", "no leading zeros"),
                                   ("99999999999999999999", "does not fit in 64 bits")]:
            with self.subTest(signature=signature), self.assertRaisesRegex(UsageError, message):
                triton_aot.parse_signature(signature, ["a"], "k")


class PtxTest(unittest.TestCase):
    def test_parameter_sizes_in_order(self):
        ptx = (".visible .entry other(\n\t.param .u32 other_param_0\n)\n"
               ".visible .entry k(\n\t.param .u64 .ptr .global .align 16 k_param_0,\n"
               "\t.param .f32 k_param_1,\n\t.param .b16 k_param_2,\n"
               "\t.param .align 4 .b8 k_param_3[12]\n)\n")
        self.assertEqual(triton_aot.ptx_entry_parameters(ptx, "k"), [8, 4, 2, 12])

    def test_entry_without_parameters(self):
        self.assertEqual(triton_aot.ptx_entry_parameters(".entry k()\n{}", "k"), [])

    def test_missing_entry(self):
        with self.assertRaisesRegex(UsageError, "no .entry k in the compiled PTX"):
            triton_aot.ptx_entry_parameters(".entry k2(\n)", "k")

    def test_sizes_checked_against_types(self):
        triton_aot.check_parameter_sizes([parameter("x", "*fp16"), parameter("s", "fp32")], [8, 4])
        with self.assertRaisesRegex(UsageError, r"parameter 's' \(fp32\) is 8 bytes in the "
                                                r"compiled kernel, not 4"):
            triton_aot.check_parameter_sizes([parameter("s", "fp32")], [8])


class EmbedTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)
        self.dir = Path(self.directory.name)

    def embed(self, base, namespace=""):
        triton_aot.embed(str(base), namespace, self.dir / "out")
        name = Path(base).name
        header = (self.dir / "out" / "include" / "triton_kernels" / f"{name}.h").read_text()
        source = (self.dir / "out" / f"{name}.cpp").read_text()
        return header, source

    def test_launch_takes_typed_parameters_with_cpp_names(self):
        base = write_artefact(self.dir, "kern", parameters=[
            parameter("x", "*fp32", 16), parameter("h", "*fp16"), parameter("b", "*bf16"),
            parameter("raw", "*u16"), parameter("int", "i32"), parameter("stream", "fp16"),
            parameter("kern", "u64")])
        header, _ = self.embed(base, namespace="ns::inner")
        self.assertIn("namespace ns::inner {\n\nstruct kern {", header)
        self.assertIn("      autoplugin::triton::Grid grid, autoplugin::Stream stream,\n"
                      "      autoplugin::triton::PointerArg<float> x,\n"
                      "      autoplugin::triton::PointerArg<autoplugin::half_storage> h,\n"
                      "      autoplugin::triton::PointerArg<autoplugin::bfloat16_storage> b,\n"
                      "      autoplugin::triton::PointerArg<> raw,\n"
                      "      std::int32_t int_,\n"
                      "      autoplugin::triton::Float16Arg stream_,\n"
                      "      std::uint64_t kern_) {\n"
                      "    autoplugin::triton::launch(image(), grid, stream, "
                      "{x, h, b, raw, int_, stream_, kern_});\n", header)
        self.assertTrue(header.endswith("};\n\n}  // namespace ns::inner\n"))
        self.assertNotIn("scratch", header)

    def test_constexprs_become_typed_members(self):
        base = write_artefact(self.dir, "kern", constants=[
            constant("BLOCK", "1024"), constant("NEG", "-3"), constant("EVEN", "True"),
            constant("ODD", "False"), constant("ALPHA", "0.5"), constant("BIG", "1e5"),
            constant("class", "1")])
        header, source = self.embed(base)
        self.assertIn("  static constexpr std::int64_t BLOCK = 1024;\n"
                      "  static constexpr std::int64_t NEG = -3;\n"
                      "  static constexpr bool EVEN = true;\n"
                      "  static constexpr bool ODD = false;\n"
                      "  static constexpr double ALPHA = 0.5;\n"
                      "  static constexpr double BIG = 1e5;\n"
                      "  static constexpr std::int64_t class_ = 1;\n", header)
        # The tables keep the Python names and the recorded text.
        self.assertIn('    {"BLOCK", "1024"},\n', source)
        self.assertIn('    {"class", "1"},\n', source)
        self.assertTrue(header.startswith("// Generated by autoplugin_add_triton_kernel from "
                                          "kern.json: do not edit.\n// Triton 3.6.0 kernel "
                                          "kernel_fn for sm_90: sig\n#pragma once\n"))

    def test_scratch_memory_gives_workspace_launch(self):
        for global_bytes, profile_bytes, scratch_parameters, expected in [
                (256, 0, 2, True), (0, 8, 2, True), (0, 8, 1, False), (0, 0, 2, False)]:
            with self.subTest(global_bytes=global_bytes, profile_bytes=profile_bytes):
                base = write_artefact(self.dir, "kern", parameters=[parameter("x", "*i8")],
                                      scratch_parameters=scratch_parameters,
                                      global_scratch=global_bytes, profile_scratch=profile_bytes)
                header, _ = self.embed(base)
                self.assertEqual("autoplugin::Workspace scratch," in header, expected)
                self.assertEqual("{x}, scratch);" in header, expected)
                self.assertEqual("static std::size_t scratch_bytes(autoplugin::triton::Grid "
                                 "grid)" in header, expected)

    def test_image_embeds_the_files_and_the_metadata(self):
        cubin = bytes(range(256)) + b"\x00\x01"
        base = write_artefact(self.dir, "kern", parameters=[parameter("x", "*fp32", 16),
                                                            parameter("n", "i32")],
                              constants=[constant("BLOCK", "64")], cubin=cubin,
                              global_scratch=512, shared_bytes=16392, launch_num_warps=8)
        _, source = self.embed(base, namespace="ns")
        ptx = Path(f"{base}.ptx").read_bytes()
        self.assertIn(f"alignas(64) const unsigned char kCubin[{len(cubin)}] = {{\n    0x00,",
                      source)
        self.assertEqual(initializer_bytes(source, "kCubin"), cubin)
        self.assertIn(f"alignas(64) const char kPtx[{len(ptx)} + 1] = {{\n", source)
        self.assertEqual(initializer_bytes(source, "kPtx"), ptx)
        self.assertIn("0x0a,0};\n", source)  # the PTX is terminated
        cubin_rows = source.split("kCubin")[1].split("};")[0].splitlines()[1:]
        self.assertEqual([row.count("0x") for row in cubin_rows], [16] * 16 + [2])
        self.assertIn('    {"x", "*fp32", autoplugin::triton::ParamType::Pointer, 16, false, 0},\n'
                      '    {"n", "i32", autoplugin::triton::ParamType::I32, 1, false, 0},\n',
                      source)
        self.assertIn('  static const autoplugin::triton::KernelImage kImage{\n'
                      '      "kern",\n      "kernel_fn",\n      "sig",\n      90,\n'
                      '      kCubin,\n      kPtx,\n      kParameters,\n      kConstants,\n'
                      '      8,\n      16392,\n      2,\n      512,\n      128,\n      0,\n'
                      '      1,\n      {}};\n', source)  # no specializations
        self.assertTrue(source.startswith("// Generated by autoplugin_add_triton_kernel from "
                                          'kern.json: do not edit.\n#include '
                                          '"triton_kernels/kern.h"\n\nnamespace ns {\n'))

    def test_no_parameters_or_constants_give_empty_spans(self):
        base = write_artefact(self.dir, "kern", scratch_parameters=0)
        header, source = self.embed(base)
        self.assertNotIn("kParameters", source)
        self.assertNotIn("kConstants", source)
        self.assertIn("      kPtx,\n      {},\n      {},\n", source)
        self.assertIn("autoplugin::Stream stream) {\n"
                      "    autoplugin::triton::launch(image(), grid, stream, {});\n", header)
        self.assertTrue(source.endswith("  return kImage;\n}\n\n"))

    def test_inconsistent_artefacts_are_refused(self):
        cases = [
            (dict(format=2), "not an autoplugin Triton artefact of format 1"),
            (dict(scratch_parameters=3, ptx_parameters=["u64"] * 3), "3 scratch parameters; at most 2"),
            (dict(global_scratch=8, global_scratch_align=24),
             "global_scratch.align 24 is not a power of two"),
            (dict(parameters=[parameter("x", "*fp32")], ptx_parameters=["u64"]),
             r"kern: the kernel kernel_fn in the PTX takes 1 parameters; the .json describes 3 "
             r"\(the files are from different compilations"),
            (dict(parameters=[parameter("s", "fp32")], ptx_parameters=["f64", "u64", "u64"]),
             r"parameter 's' \(fp32\) is 8 bytes in the compiled kernel, not 4"),
            (dict(parameters=[parameter("x", "i128")], ptx_parameters=["u64"] * 3),
             "kern.json: parameter 'x': unknown Triton type 'i128'"),
            (dict(constants=[constant("BLOCK", "064")]),
             "constexpr BLOCK = 064: a leading zero makes a C\\+\\+ integer octal"),
            (dict(constants=[constant("MODE", "fast")]),
             "constexpr MODE = fast: not a bool, integer, float, quoted string, Triton dtype"),
            (dict(shared_bytes="128"), "shared_bytes is missing or not a int"),
            (dict(function="kernel_fn2"), "no .entry kernel_fn2"),
            (dict(parameters=[parameter("x-y", "i32")]), "'x-y' is not a C\\+\\+ identifier"),
        ]
        for arguments, message in cases:
            with self.subTest(message=message), self.assertRaisesRegex(UsageError, message):
                self.embed(write_artefact(self.dir, "kern", **arguments))

    def test_bad_namespace_and_missing_files(self):
        base = write_artefact(self.dir, "kern")
        with self.assertRaisesRegex(UsageError, "the namespace 'a b' is not a C\\+\\+ namespace"):
            self.embed(base, namespace="a b")
        Path(f"{base}.cubin").unlink()
        with self.assertRaisesRegex(UsageError, "kern.cubin"):
            self.embed(base)

    def test_command_line_reports_errors_without_a_traceback(self):
        base = write_artefact(self.dir, "kern", format=7)
        result = subprocess.run([sys.executable, str(SCRIPT), "embed", "--artefact", str(base),
                                 "--out-dir", str(self.dir / "out")],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stderr, f"triton_aot embed: {base}.json: not an autoplugin Triton "
                                        "artefact of format 1\n")

    def test_shipped_artefacts_embed(self):
        """Every artefact and family shipped in the tree generates a header and a source."""
        root = HERE.parents[1]
        artefacts = [path for folder in (root / "tests" / "triton" / "aot",
                                         root / "examples" / "circular_pad_triton" / "aot")
                     for path in sorted(folder.glob("*.json")) if "." not in path.stem]
        self.assertEqual(len(artefacts), 10)
        for artefact in artefacts:
            with self.subTest(artefact=artefact.name):
                header, source = self.embed(artefact.with_suffix(""), namespace="shipped")
                self.assertIn(f"struct {artefact.stem} {{", header)
                if json.loads(artefact.read_text()).get("family"):
                    self.assertEqual(initializer_bytes(source, "kCubin1"), Path(
                        f"{artefact.with_suffix('')}.1.cubin").read_bytes())
                else:
                    self.assertEqual(initializer_bytes(source, "kCubin"),
                                     artefact.with_suffix(".cubin").read_bytes())


def write_family(directory, name, variants, constants, autotune=False, parameters=(),
                 heuristics=None):
    """A family's manifest and its variants' artefacts. `variants`: (constexprs, config,
    num_warps) per variant; `constants`: the signature's constexprs ("constexpr" when varying)."""
    listed = []
    for index, (constexprs, config, warps) in enumerate(variants):
        stem = f"{name}.{index}"
        write_artefact(directory, stem, parameters=parameters, num_warps=warps,
                       launch_num_warps=warps,
                       constants=[constant(n, constexprs.get(n, v)) for n, v in constants])
        listed.append({"constexprs": constexprs, "config": config, "num_warps": warps,
                       "num_stages": 3, "artefact": stem})
    manifest = {"format": 1, "family": True, "name": name, "kernel": "kernel_fn",
                "signature": "sig", "autotune": autotune, "heuristics": heuristics or {},
                "variants": listed}
    Path(directory, f"{name}.json").write_text(json.dumps(manifest))
    return Path(directory) / name


class FamilyTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)
        self.dir = Path(self.directory.name)

    def embed(self, base):
        triton_aot.embed(str(base), "", self.dir / "out")
        name = Path(base).name
        return ((self.dir / "out" / "include" / "triton_kernels" / f"{name}.h").read_text(),
                (self.dir / "out" / f"{name}.cpp").read_text())

    def test_string_constexprs(self):
        self.assertEqual(triton_aot.parse_constexpr("'leaky_relu'"), "leaky_relu")
        self.assertEqual(triton_aot.parse_constexpr('"tanh"'), "tanh")
        self.assertIsNone(triton_aot.parse_constexpr("'it''s'"))
        self.assertIsNone(triton_aot.parse_constexpr("leaky_relu"))
        _, constants = triton_aot.parse_signature("'relu', constexpr", ["MODE", "BLOCK"], "k")
        self.assertEqual(constants, [constant("MODE", "'relu'"), constant("BLOCK", "constexpr")])
        self.assertEqual(triton_aot_embed.constant_member("MODE", "'relu'"),
                         '  static constexpr std::string_view MODE = "relu";\n')

    def test_dtype_constexprs(self):
        self.assertEqual(triton_aot.parse_constexpr("tl.float16"), "fp16")
        self.assertIsInstance(triton_aot.parse_constexpr("tl.float16"), triton_aot.DtypeConstexpr)
        self.assertEqual(triton_aot.parse_constexpr("triton.language.bfloat16"), "bf16")
        self.assertEqual(triton_aot.parse_constexpr("tl.fp32"), "fp32")
        self.assertIsNone(triton_aot.parse_constexpr("tl.float17"))
        self.assertIs(triton_aot.parse_constexpr("None"), triton_aot.NONE)
        self.assertEqual(triton_aot.constexpr_text(None), "None")
        self.assertEqual(triton_aot_embed.constant_member("OUT_DTYPE", "tl.float16"),
                         '  static constexpr std::string_view OUT_DTYPE = "fp16";\n')

    def test_variant_alternatives_multiply(self):
        variants = triton_aot.parse_variant("BLOCK=64|128, EVEN=True|False, num_warps=2",
                                            ["BLOCK", "EVEN"], "k")
        self.assertEqual(variants, [
            {"BLOCK": "64", "EVEN": "True", "num_warps": "2"},
            {"BLOCK": "64", "EVEN": "False", "num_warps": "2"},
            {"BLOCK": "128", "EVEN": "True", "num_warps": "2"},
            {"BLOCK": "128", "EVEN": "False", "num_warps": "2"}])
        for spec, message in [("BLOCK", "expected NAME=VALUE entries"),
                              ("SIZE=4", "'SIZE' is not a constexpr the signature leaves"),
                              ("BLOCK=x", "BLOCK=x is not a bool, integer, float or quoted"),
                              ("BLOCK=1, BLOCK=2", "BLOCK given twice"),
                              ("num_warps=0", "num_warps must be a positive integer")]:
            with self.subTest(spec=spec), self.assertRaisesRegex(UsageError, message):
                triton_aot.parse_variant(spec, ["BLOCK", "EVEN"], "k")

    def test_family_variants_from_configs_and_specs(self):
        class Config:
            def __init__(self, kwargs, num_warps=4, num_stages=3, pre_hook=None):
                self.kwargs, self.num_warps, self.num_stages = kwargs, num_warps, num_stages
                self.pre_hook, self.num_ctas, self.maxnreg, self.ir_override = pre_hook, 1, None, None

        class Args:
            autotune, variant, num_warps, num_stages, kernel = True, ["EVEN=True|False"], 4, 3, "k"

        kernel = triton_aot.Kernel(None, [Config({"BLOCK": 64}, 2), Config({"BLOCK": 256}, 8, 4)],
                                   {})
        constants = [constant("BLOCK", "constexpr"), constant("EVEN", "constexpr")]
        variants = triton_aot.family_variants(Args, kernel, constants)
        self.assertEqual([(v["config"], v["constexprs"], v["num_warps"], v["num_stages"])
                          for v in variants],
                         [(0, {"BLOCK": "64", "EVEN": "True"}, 2, 3),
                          (0, {"BLOCK": "64", "EVEN": "False"}, 2, 3),
                          (1, {"BLOCK": "256", "EVEN": "True"}, 8, 4),
                          (1, {"BLOCK": "256", "EVEN": "False"}, 8, 4)])
        Args.variant = None
        with self.assertRaisesRegex(UsageError, "a variant gives no value for EVEN"):
            triton_aot.family_variants(Args, kernel, constants)
        Args.autotune, Args.variant = False, ["BLOCK=1, EVEN=True, num_warps=2",
                                              "BLOCK=1, EVEN=True, num_warps=4"]
        with self.assertRaisesRegex(UsageError, "variants 0 and 1 have the same constexprs"):
            triton_aot.family_variants(Args, kernel, constants)
        Args.autotune = True
        kernel.configs[0].pre_hook = print
        with self.assertRaisesRegex(UsageError, "config 0 .*pre_hook is not supported"):
            triton_aot.family_variants(Args, kernel, constants)

    def test_family_header_selects_by_value(self):
        base = write_family(self.dir, "fam", [({"BLOCK": "64", "ACT": "'relu'"}, None, 2),
                                              ({"BLOCK": "128", "ACT": "'gelu'"}, None, 4)],
                            [("BLOCK", "constexpr"), ("ACT", "constexpr"), ("F", "0.5")],
                            parameters=[parameter("x", "*fp32", 16), parameter("n", "i32")],
                            heuristics={"ACT": "lambda args: 'relu'"})
        header, source = self.embed(base)
        self.assertIn("//   ACT: lambda args: 'relu'\n", header)
        self.assertIn("  static constexpr double F = 0.5;\n", header)
        self.assertIn("  struct Variant {\n    std::int64_t BLOCK;\n    std::string_view ACT;\n"
                      "    int num_warps;\n    int num_stages;\n  };\n", header)
        self.assertIn('      {64, "relu", 2, 3},\n      {128, "gelu", 4, 3},\n', header)
        self.assertIn("find(std::int64_t BLOCK, std::string_view ACT) noexcept {\n", header)
        self.assertIn("      if (variants[i].BLOCK == BLOCK && variants[i].ACT == ACT) return i;",
                      header)
        self.assertIn("      std::size_t variant, autoplugin::triton::Grid grid, autoplugin::Stream "
                      "stream,\n      autoplugin::triton::PointerArg<float> x,\n", header)
        self.assertIn('"BLOCK=" + std::to_string(BLOCK) + ", " + "ACT=" + "\'" + '
                      "std::string(ACT) + \"'\"", source)
        self.assertIn('"BLOCK=64, ACT=\'relu\'; BLOCK=128, ACT=\'gelu\'"', source)
        self.assertEqual(initializer_bytes(source, "kCubin1"), b"\x7fELF")

    def test_autotune_family_selects_by_config(self):
        base = write_family(self.dir, "tuned", [({"BLOCK": "64"}, 0, 2), ({"BLOCK": "256"}, 1, 8)],
                            [("BLOCK", "constexpr")], autotune=True)
        header, source = self.embed(base)
        self.assertIn("find(int config) noexcept", header)
        self.assertIn("      {0, 64, 2, 3},\n      {1, 256, 8, 3},\n", header)
        self.assertIn('"tuned[config 1]"', source)

    def test_inconsistent_families_are_refused(self):
        base = write_family(self.dir, "fam", [({"BLOCK": "64"}, None, 2), ({"BLOCK": "128"}, None, 4)],
                            [("BLOCK", "constexpr")])
        manifest = json.loads(Path(f"{base}.json").read_text())
        manifest["variants"][1]["constexprs"]["BLOCK"] = "256"
        Path(f"{base}.json").write_text(json.dumps(manifest))
        with self.assertRaisesRegex(UsageError, "fam.1's constexprs differ from those it was "
                                                "compiled with"):
            self.embed(base)
        Path(f"{base}.1.cubin").unlink()
        with self.assertRaisesRegex(UsageError, "fam.1.cubin"):
            self.embed(base)

    def test_ship_copies_the_variants_and_removes_old_ones(self):
        base = write_family(self.dir, "fam", [({"BLOCK": "64"}, None, 2)], [("BLOCK", "constexpr")])
        shipped = self.dir / "shipped"
        shipped.mkdir()
        (shipped / "fam.3.cubin").write_bytes(b"old")
        (shipped / "famous.1.json").write_text("{}")
        triton_aot.ship(str(base), str(shipped))
        self.assertEqual(sorted(p.name for p in shipped.iterdir()),
                         ["fam.0.cubin", "fam.0.json", "fam.0.ptx", "fam.json", "famous.1.json"])


def write_specialized(directory, name, parameters):
    """DIR/NAME (generic) with NAME.s0 (every address and integer a multiple of 16) and NAME.s1
    (every address), as `compile --specialize` writes them."""
    levels = triton_aot.specialization_promises(parameters)
    stems = []
    for k, promised in enumerate(levels):
        write_artefact(directory, f"{name}.s{k}", parameters=[
            dict(p, divisibility=16 if p["name"] in promised else p["divisibility"])
            for p in parameters], cubin=f"s{k}".encode())
        stems.append(f"{name}.s{k}")
    return write_artefact(directory, name, parameters=parameters, specialize=True,
                          specializations=stems)


class SpecializationTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)
        self.dir = Path(self.directory.name)
        self.parameters = [parameter("x", "*fp32"), parameter("y", "*fp16", 16),
                           parameter("n", "i32"), parameter("scale", "fp32"),
                           parameter("flag", "i1"), parameter("m", "u64")]

    def test_promises_addresses_and_integers_then_addresses(self):
        self.assertEqual(triton_aot.specialization_promises(self.parameters),
                         [["x", "n", "m"], ["x"]])
        # Nothing left to promise, or the same promises twice: fewer specializations.
        self.assertEqual(triton_aot.specialization_promises([parameter("x", "*fp32", 16)]), [])
        self.assertEqual(triton_aot.specialization_promises([parameter("x", "*fp32")]), [["x"]])

    def test_named_integers_make_a_level_between(self):
        # A size `n` keeps the promise where an attribute `m` (a seed) does not.
        self.assertEqual(triton_aot.specialization_promises(self.parameters, [["n"]]),
                         [["x", "n", "m"], ["x", "n"], ["x"]])
        # Naming every integer, or none, adds nothing.
        self.assertEqual(triton_aot.specialization_promises(self.parameters, [["n", "m"]]),
                         [["x", "n", "m"], ["x"]])
        arguments = argparse.Namespace(specialize=True, specialize_integers=["n, m"])
        self.assertEqual(triton_aot.specialized_integers(arguments, self.parameters),
                         [["n", "m"]])
        for listed, specialize, message in (
                ("scale", True, "scale: not an integer parameter of the signature (integers: m, n)"),
                ("n", False, "--specialize-integers needs --specialize")):
            with self.assertRaises(triton_aot.UsageError) as raised:
                triton_aot.specialized_integers(
                    argparse.Namespace(specialize=specialize, specialize_integers=[listed]),
                    self.parameters)
            self.assertIn(message, str(raised.exception))

    def test_each_set_of_named_integers_is_a_level(self):
        # Sizes and strides, then the ones a multiple of 16 at the example (257 rows: not k)
        parameters = self.parameters + [parameter("k", "i32")]
        self.assertEqual(triton_aot.specialization_promises(parameters, [["n", "k"], ["n"]]),
                         [["x", "n", "m", "k"], ["x", "n", "k"], ["x", "n"], ["x"]])
        arguments = argparse.Namespace(specialize=True, specialize_integers=["n,k", "n"])
        self.assertEqual(triton_aot.specialized_integers_text(arguments, parameters),
                         "n, k / n")

    def test_values_a_build_is_compiled_for(self):
        arguments = argparse.Namespace(
            specialize=True, specialize_values=["n = 4096, m=7", "n=16", "n=16", "n=8, BLOCK=64"])
        # A constexpr's value is a condition: the build is for the variants with that value.
        self.assertEqual(triton_aot.specialized_values(arguments, self.parameters, ["BLOCK"]),
                         [({"n": 4096, "m": 7}, {}), ({"n": 16}, {}), ({"n": 8}, {"BLOCK": "64"})])
        self.assertEqual(triton_aot.specialized_values_text(arguments, self.parameters, ["BLOCK"]),
                         "n=4096, m=7 / n=16 / n=16 / n=8, BLOCK=64")
        for listed, specialize, message in (
                ("x=3", True, "'x=3' is not NAME=VALUE of a run-time integer or float parameter"),
                ("n", True, "'n' is not NAME=VALUE"),
                ("n=1.5", True, "'1.5' is not a i32 value"),
                ("n=4", False, "--specialize-values needs --specialize")):
            with self.assertRaises(triton_aot.UsageError) as raised:
                triton_aot.specialized_values(
                    argparse.Namespace(specialize=specialize, specialize_values=[listed]),
                    self.parameters)
            self.assertIn(message, str(raised.exception))

    def test_a_variant_gets_the_builds_for_its_own_constexpr_values(self):
        arguments = argparse.Namespace(specialize=True, specialize_integers=None,
                                       specialize_values=["n=8, BLOCK=64", "n=9, BLOCK=128"])
        parameters = [parameter("x", "*fp32"), parameter("n", "i32")]
        builds = triton_aot.specialization_builds(arguments, parameters,
                                                  [constant("BLOCK", "64")], "k.0", "k[BLOCK=64]",
                                                  4, 3)
        compiled = [(b.stem, {p["name"]: p["value"] for p in b.parameters if "value" in p},
                     [p["name"] for p in b.parameters if p["divisibility"] == 16])
                    for b in builds]
        # n = 8 with the address promised, then alone; then the usual levels
        self.assertEqual(compiled, [("k.0.s0", {"n": 8}, ["x"]), ("k.0.s1", {"n": 8}, []),
                                    ("k.0.s2", {}, ["x", "n"]), ("k.0.s3", {}, ["x"])])
        self.assertEqual(builds[1].context, "k[BLOCK=64] with n = 8: ")

    def test_builds_compile_in_processes_in_order_and_errors_name_the_build(self):
        def compile_variant(args, kernel, parameters, constants, name, num_warps, num_stages):
            if name == "bad":
                raise RuntimeError("no such layout")
            return {"name": name, "pid": os.getpid()}, name.encode(), ""

        original = triton_aot.compile_variant
        triton_aot.compile_variant = compile_variant
        self.addCleanup(setattr, triton_aot, "compile_variant", original)
        builds = [triton_aot.Build(f"k.{i}", [], [], 4, 3, f"k.{i}") for i in range(6)]
        for jobs in (1, 3):
            results = triton_aot.compile_builds(argparse.Namespace(jobs=jobs), None, builds)
            self.assertEqual([r[1] for r in results], [f"k.{i}".encode() for i in range(6)])
            pids = {r[0]["pid"] for r in results}
            self.assertEqual(len(pids) > 1 or os.getpid() not in pids, jobs > 1)
        failing = builds[:2] + [triton_aot.Build("k.s0", [], [], 4, 3, "bad", "k with x: ")]
        with self.assertRaisesRegex(UsageError, "^k with x: RuntimeError: no such layout$"):
            triton_aot.compile_builds(argparse.Namespace(jobs=3), None, failing)

    def test_a_build_for_a_value_lists_it_and_passes_no_argument_for_it(self):
        valued = [dict(p, value=4096) if p["name"] == "n" else p for p in self.parameters]
        base = write_artefact(self.dir, "spec", parameters=self.parameters, specialize=True,
                              specializations=["spec.s0"])
        write_artefact(self.dir, "spec.s0", parameters=valued)
        triton_aot.embed(str(base), "", self.dir / "out")
        source = (self.dir / "out" / "spec.cpp").read_text()
        self.assertIn('"spec[multiples of 16: y; n = 4096]"', source)
        self.assertIn('{"n", "i32", autoplugin::triton::ParamType::I32, 1, true, 0x1000u}',
                      source)

    def test_images_list_their_specializations(self):
        base = write_specialized(self.dir, "spec", self.parameters)
        triton_aot.embed(str(base), "", self.dir / "out")
        source = (self.dir / "out" / "spec.cpp").read_text()
        self.assertIn("kSpecializations[] = {&kImage_s0, &kImage_s1};", source)
        self.assertEqual(initializer_bytes(source, "kCubin_s0"), b"s0")
        self.assertEqual(initializer_bytes(source, "kCubin_s1"), b"s1")
        self.assertIn('"spec[multiples of 16: x, y, n, m]"', source)
        self.assertIn('"spec[multiples of 16: x, y]"', source)
        # Each specialization's parameter table promises its multiples of 16.
        for stem, promised in (("s0", ["16", "16", "16", "1", "1", "16"]),
                               ("s1", ["16", "16", "1", "1", "1", "1"])):
            table = re.search(rf"kParameters_{stem}\[\] = \{{(.*?)\}};", source, re.S).group(1)
            self.assertEqual(re.findall(r"ParamType::\w+, (\d+), false, 0\}", table), promised)
        # The generic image (the one launch() is given) lists them; they list none.
        image = re.search(r"static const autoplugin::triton::KernelImage kImage\{(.*?)\};",
                          source, re.S).group(1)
        self.assertTrue(image.rstrip().endswith("kSpecializations"))

    def test_a_specialization_of_another_kernel_is_refused(self):
        base = write_specialized(self.dir, "spec", self.parameters)
        write_artefact(self.dir, "spec.s1", parameters=self.parameters[:2])
        with self.assertRaisesRegex(UsageError, "spec.s1: not the kernel of"):
            triton_aot.embed(str(base), "", self.dir / "out")
        Path(f"{base}.s0.ptx").unlink()
        with self.assertRaisesRegex(UsageError, "spec.s0.ptx"):
            triton_aot.embed(str(base), "", self.dir / "out")

    def test_ship_copies_specializations_and_removes_stale_ones(self):
        base = write_specialized(self.dir, "spec", [parameter("x", "*fp32")])
        shipped = self.dir / "shipped"
        shipped.mkdir()
        (shipped / "spec.s3.cubin").write_bytes(b"old")
        triton_aot.ship(str(base), str(shipped))
        self.assertEqual(sorted(p.name for p in shipped.iterdir()),
                         ["spec.cubin", "spec.json", "spec.ptx", "spec.s0.cubin", "spec.s0.json",
                          "spec.s0.ptx"])


def triton_missing():
    try:
        import torch  # noqa: F401
        import triton  # noqa: F401
    except ImportError:
        return True
    return False


@unittest.skipIf(triton_missing(), "torch and triton are not installed for this Python")
class ImportTest(unittest.TestCase):
    def test_a_module_asking_the_driver_for_the_device_imports_without_a_gpu(self):
        # Triton's tutorials read the device from the driver as the module is imported.
        import triton
        with tempfile.TemporaryDirectory() as folder:
            source = Path(folder) / "device_at_import.py"
            source.write_text(
                "import triton\nimport triton.language as tl\n"
                "DEVICE = triton.runtime.driver.active.get_active_torch_device()\n"
                "@triton.jit\ndef copy_kernel(x, y, n, BLOCK: tl.constexpr):\n"
                "    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                "    tl.store(y + i, tl.load(x + i, mask=i < n), mask=i < n)\n")
            before = triton.runtime.driver._active
            kernel = triton_aot.load_kernel(source, "copy_kernel", 90)
            self.assertEqual(kernel.jit.arg_names, ["x", "y", "n", "BLOCK"])
            # Any stand-in is gone again: the driver is what it was before the import, or, where
            # a GPU is there (no stand-in was needed), the one the import made Triton start.
            after = triton.runtime.driver._active
            self.assertTrue(after is before or type(after).__module__.startswith("triton."),
                            f"the driver after the import is {after!r}")


if __name__ == "__main__":
    unittest.main()
