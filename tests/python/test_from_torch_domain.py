"""Unit tests of from-torch's domain learner (python/autoplugin/from_torch/domain.py and
kernel_domain.py), in
seconds: what host code asserts and its fake does not state becomes a requirement, and what no
relation explains is left to the refusal; a constexpr no family recovers is held at the
example's value by bounds on the sizes it follows. Needs torch and triton (no GPU)."""
import importlib.util
import os
import sys
import tempfile
import unittest

if not (importlib.util.find_spec("torch") and importlib.util.find_spec("triton")):
    print("SKIPPED: torch and triton are needed to run host code on fake tensors")
    sys.exit(0)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import torch  # noqa: E402
import triton.language as tl  # noqa: E402

from autoplugin.from_torch import (domain, errors, generate, host, kernel_accesses,  # noqa: E402
                                   kernel_bounds, kernel_domain, pipeline, probes, shapes)
from autoplugin.from_torch.discover import Argument, CustomOp, find_ops, parse_example  # noqa: E402

MODULE = os.path.join(HERE, "from_torch_domain.py")
EXAMPLES = {}


def learnt(qualname, learn=domain.learn_domain):
    """(the requirements learnt as the host code reads the sizes, the op's notes)."""
    if not EXAMPLES:
        ops = find_ops(MODULE)
        module = next(m for name, m in sys.modules.items()
                      if name.endswith("from_torch_domain") and hasattr(m, "AUTOPLUGIN_EXAMPLES"))
        for text in module.AUTOPLUGIN_EXAMPLES:
            name, values, _ = parse_example(text)
            EXAMPLES[name] = (next(op for op in ops if op.qualname == name), text, values)
    op, text, values = EXAMPLES[qualname]
    op.notes.clear()
    example = pipeline._complete_example(op, text, values)
    traced = shapes.traced_shapes(op, example)
    before = list(traced.requires)
    learn(op, example, traced, torch.float32, 90)
    added = [r for r in traced.requires if r not in before]
    return [domain.relation_text(r, traced.symbols) for r in added], list(op.notes)


def op_with(*arguments):
    return CustomOp("test::op", "", "", list(arguments), 1, None, None, None)


class PluginDtypesTest(unittest.TestCase):
    """The --dtypes an op is generated for (pipeline._plugin_dtypes)."""

    def test_one_launcher_where_every_input_has_a_dtype_of_its_own(self):
        notes = []
        op = op_with(Argument("a", "Tensor", dtype="float8_e4m3fn"),
                     Argument("scales", "Tensor", dtype="float32"), Argument("block", "int"))
        self.assertEqual(pipeline._plugin_dtypes(op, ["float16", "float32"], notes.append),
                         ["float16"])
        self.assertIn("every tensor input has a dtype of its own (a float8_e4m3fn, scales "
                      "float32): one launcher", notes[0])

    def test_each_dtype_where_an_input_follows_it(self):
        op = op_with(Argument("x", "Tensor"), Argument("labels", "Tensor", dtype="int64"))
        self.assertEqual(pipeline._plugin_dtypes(op, ["float32", "float16"], print),
                         ["float32", "float16"])


class OtherValuesTest(unittest.TestCase):
    """The structures the pipeline adds for an attribute that became part of the structure
    during generation (pipeline._other_values), written as --example text."""
    X = Argument("x", "Tensor")

    def values(self, op, examples, given_structural=()):
        return [(e[name], name, value) for e, name, value in
                pipeline._other_values(op, examples, set(given_structural))]

    def test_a_bool_gets_its_other_value(self):
        op = op_with(self.X, Argument("keepdim", "bool", structural=True))
        self.assertEqual(self.values(op, [{"x": [4, 8], "keepdim": False}]),
                         [(False, "keepdim", True)])

    def test_an_axis_gets_each_axis_no_example_covers_counted_as_the_examples_count(self):
        op = op_with(self.X, Argument("dim", "int", structural=True))
        self.assertEqual([v for *_, v in self.values(op, [{"x": [2, 3, 4], "dim": -1}])],
                         [-3, -2])
        self.assertEqual([v for *_, v in self.values(op, [{"x": [2, 3, 4], "dim": 1}])],
                         [0, 2])
        # 0 and -1 cover axes 0 and 2; the examples' values are also tried with each other's
        examples = [{"x": [2, 3, 4], "dim": 0}, {"x": [2, 3, 4], "dim": -1}]
        self.assertEqual([v for *_, v in self.values(op, examples)], [-2])

    def test_an_int_that_is_not_an_axis_and_a_given_structure_are_left(self):
        op = op_with(self.X, Argument("block", "int", structural=True))
        self.assertEqual(self.values(op, [{"x": [2, 3], "block": 128}]), [])
        op = op_with(self.X, Argument("keepdim", "bool", structural=True))
        self.assertEqual(self.values(op, [{"x": [4, 8], "keepdim": False}], ["keepdim"]), [])

    def test_at_most_a_dozen_and_written_as_examples(self):
        op = op_with(self.X, Argument("dim", "int", structural=True))
        added = pipeline._other_values(op, [{"x": [2] * 20, "dim": 0}], set())
        self.assertEqual(len(added), pipeline.MOST_OTHER_VALUES)
        example, name, value = added[0]
        text = pipeline._example_text(op, dict(example, **{name: value}))
        self.assertEqual(text, "test::op(x=[2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, "
                               "2, 2], dim=1)")
        self.assertEqual(parse_example(text)[1], {"x": [2] * 20, "dim": 1})


class LearntRequirementsTest(unittest.TestCase):
    def test_an_axis_attribute_within_the_rank(self):
        found, notes = learnt("test::pick_dim")
        self.assertEqual(sorted(found), ["dim < 2", "dim >= -2"])
        self.assertIn("assert -x.ndim <= dim < x.ndim", notes[0])

    def test_a_view_as_rows_and_groups(self):
        found, _ = learnt("test::grouped")
        self.assertIn("x.size(1)*x.size(2) % groups == 0", found)
        # A negative count of groups can divide the rows too: the view refuses it.
        self.assertLessEqual(set(found), {"x.size(1)*x.size(2) % groups == 0", "groups >= 0",
                                          "groups >= 1"})

    def test_a_block_dividing_the_rows(self):
        found, _ = learnt("test::block_quant")
        self.assertEqual(found, ["x.size(1) % block == 0"])

    def test_a_count_of_blocks_of_another_extent(self):
        found, _ = learnt("test::block_scales")
        self.assertIn("scales.size(1) == ceiling(x.size(1)/128)", found)

    def test_a_set_of_powers_of_two_stated_once(self):
        found, notes = learnt("test::head_sizes")
        self.assertEqual(found, ["x.size(1) in {16, 32, 64, 128, 256}"])
        self.assertEqual(len(notes), 1, notes)

    def test_a_count_of_blocks_moves_off_an_extent_it_only_coincides_with(self):
        # x[0] == scales[1] == 8 in the example: learnt with them held equal, the count of
        # blocks may be stated on x[0]; the host code shows which extent it belongs to.
        notes, out = [], tempfile.mkdtemp(prefix="from_torch_domain_")
        generate(MODULE, out, examples=["test::block_scales(x=[8, 1024], scales=[8, 8])"],
                 ops=["test::block_scales"], artefacts=False, log=notes.append)
        with open(os.path.join(out, "block_scales", "block_scales.cpp")) as f:
            required = [line.strip() for line in f if "ap::require(" in line]
        self.assertIn("ap::require(scales[1] == ap::ceil_div(x[1], 128),", required)
        self.assertIn("ap::require(x[0] == scales[0],", required)
        self.assertEqual(len(required), 2, required)

    def test_sizes_pinned_to_constants_are_stated_as_them(self):
        # Failures with both sizes off may first be separated by `w == 3 * b`, or by a
        # multiple of `b`; once `b == 1` is learnt these say no more than `w == 3`.
        found, notes = learnt("test::fixed_weights")
        self.assertEqual(sorted(found), ["b.size(0) == 1", "w.size(0) == 3"])
        self.assertEqual(len(notes), 2, notes)

    def test_fewer_than_another_extent_strictly(self):
        found, _ = learnt("test::fewer_rows")
        self.assertIn("rows.size(0) < x.size(0)", found)
        self.assertNotIn("rows.size(0) <= x.size(0)", found)

    def test_each_multiple_once_and_not_one_another_implies(self):
        found, notes = learnt("test::tiles")
        self.assertEqual(sorted(found), ["w.size(0) % 128 == 0", "w.size(1) % 128 == 0"])
        self.assertEqual(len(notes), 2, notes)

    def test_a_sequence_within_its_table(self):
        found, _ = learnt("test::rotary")
        self.assertIn("q.size(1) <= cos.size(0)", found)
        self.assertIn("q.size(2) == cos.size(1)", found)
        self.assertEqual(len(found), 2, found)

    def test_a_multiple_of_the_smallest_power_of_two_that_works(self):
        found, notes = learnt("test::aligned")
        self.assertEqual(found, ["x.size(1) % 4 == 0"])
        self.assertIn("the host code fails at from_torch_domain.py:", notes[0])
        self.assertIn("AssertionError", notes[0])

    def test_nothing_where_the_host_code_takes_every_size(self):
        self.assertEqual(learnt("test::any_size"), ([], []))

    def test_nothing_stays_where_no_relation_explains_the_failures(self):
        self.assertEqual(learnt("test::thirds"), ([], []))


class ExampleKernelsTest(unittest.TestCase):
    def test_the_side_of_a_threshold_the_example_is_on(self):
        found, notes = learnt("test::by_width", kernel_domain.keep_to_example_kernels)
        self.assertEqual(found, ["x.size(1) <= 512"])
        self.assertIn("past it the host code launches copy_kernel instead of the example's "
                      "row_copy_kernel", notes[0])

    def test_a_threshold_the_example_is_at(self):
        # `x.shape[-1] >= 1024` with the example at 1024: not `x.size(1) > 512`, which sizes
        # between 513 and 1023 refute.
        found, notes = learnt("test::by_at_least", kernel_domain.keep_to_example_kernels)
        self.assertEqual(found, ["x.size(1) >= 1024"])
        self.assertIn("instead of the example's copy_kernel", notes[0])

    def test_the_example_s_member_of_a_set(self):
        # `assert x.shape[-1] in [16, 32, 64]`, 64 one way: no threshold's far side is in the set.
        def learn(op, example, traced, dtype, arch):
            domain.learn_domain(op, example, traced, dtype, arch)
            kernel_domain.keep_to_example_kernels(op, example, traced, dtype, arch)
        found, notes = learnt("test::by_member", learn)
        self.assertEqual(found, ["x.size(1) in {16, 32, 64}", "x.size(1) == 64"])
        self.assertIn("instead of the example's copy_kernel", notes[-1])

    def test_one_side_of_a_condition_on_two_sizes(self):
        # `x.shape[-1] > 64 or x.shape[0] < 100`: past 64 columns, the example's kernel always.
        found, notes = learnt("test::by_either", kernel_domain.keep_to_example_kernels)
        self.assertEqual(found, ["x.size(1) > 64"])
        self.assertIn("instead of the example's copy_kernel", notes[0])

    def test_nothing_where_no_threshold_rules_out_the_other_kernels(self):
        self.assertEqual(learnt("test::by_thirds", kernel_domain.keep_to_example_kernels), ([], []))


def held(qualname, kernel, name):
    """learnt() of hold_constexpr for constexpr `name` of the op's first launch (of `kernel`)."""
    return learnt(qualname, lambda op, example, traced, dtype, arch: kernel_domain.hold_constexpr(
        op, example, traced, 0, kernel, name, dtype, arch))


class HeldConstexprTest(unittest.TestCase):
    def test_a_bucket_of_the_rows_bounds_their_product(self):
        found, notes = held("test::bucketed", "bucket_copy_kernel", "NB")
        self.assertEqual(found, ["x.size(0)*x.size(1) <= 1024"])
        self.assertIn("kernel 'bucket_copy_kernel' is compiled for its constexpr NB = 1, the "
                      "example's value", notes[0])

    def test_a_width_the_kernel_unrolls_over_is_the_example_s(self):
        found, notes = held("test::tapped", "taps_kernel", "W")
        self.assertEqual(found, ["w.size(1) == 4"])
        self.assertIn("generate with an example at the sizes you deploy", notes[0])

    def test_no_tensor_is_probed_past_an_int32_count_of_elements(self):
        # The order changes where x.size(1) is 1, and for good once a tensor past 2^31
        # elements was seen (which the launchers' int32 sizes refuse anyway): never probed there.
        found, notes = held("test::ordered", "ordered_copy_kernel", "ORDER")
        self.assertEqual(found, ["x.size(1) >= 2"])

    def test_nothing_where_the_constexpr_never_changes(self):
        self.assertEqual(held("test::any_size", "copy_kernel", "BLOCK"), ([], []))


class KernelBoundsTest(unittest.TestCase):
    """keep_kernels_in_bounds: the kernels run in Triton's interpreter at small sizes."""

    def test_a_table_read_through_its_row_stride_is_at_least_what_is_read(self):
        found, notes = learnt("test::table_rows", kernel_bounds.keep_kernels_in_bounds)
        self.assertEqual(sorted(found), ["x.size(0) <= table.size(0)",
                                         "x.size(1) <= table.size(1)"])
        self.assertIn("kernel 'table_rows_kernel' (from_torch_domain.py:", notes[0])
        self.assertIn("reads element", notes[0])
        self.assertIn("of table, which has", notes[0])

    def test_pairs_read_per_column_need_their_extent(self):
        found, _ = learnt("test::pair_table", kernel_bounds.keep_kernels_in_bounds)
        self.assertIn("table.size(2) >= 2", found)

    def test_writes_are_checked_too(self):
        found, notes = learnt("test::table_writes", kernel_bounds.keep_kernels_in_bounds)
        self.assertIn("x.size(1) <= table.size(1)", found)
        self.assertTrue(any("writes element" in note for note in notes), notes)

    def test_sections_read_per_an_attribute_need_the_example_s_count(self):
        # At the table's example shape the sections fit in flat memory: measured at the points'
        # own shapes, what the outer axis needs follows `split`, so the example's 3 is required.
        found, notes = learnt("test::sections", kernel_bounds.keep_kernels_in_bounds)
        self.assertEqual(found, ["table.size(0) >= 3"])
        self.assertIn("the example's extent is required", notes[0])

    def test_nothing_where_the_kernel_keeps_to_its_tensors(self):
        self.assertEqual(learnt("test::any_size", kernel_bounds.keep_kernels_in_bounds),
                         ([], []))


def at_example(op, example, traced, dtype, arch):
    probes.runs_at_example(op, example, dtype, arch)


class ExampleRunTest(unittest.TestCase):
    """probes.runs_at_example: the host code at the op's own example, before any sampling."""

    def test_host_code_that_fails_at_its_example_is_refused_naming_it(self):
        with self.assertRaises(errors.GenerationError) as refusal:
            learnt("test::half_only", at_example)
        self.assertIn("its host code fails at the example itself, x=[8, 64] in float32",
                      str(refusal.exception))
        self.assertIn("ValueError: dtype=torch.float32 (supported: float16)",
                      str(refusal.exception))

    def test_nothing_where_it_runs(self):
        self.assertEqual(learnt("test::any_size", at_example), ([], []))


class StrayAccessTest(unittest.TestCase):
    """kernel_accesses.stray_access on one run of the host code."""

    def run_at(self, point):
        learnt("test::table_rows", lambda *args: None)
        op = EXAMPLES["test::table_rows"][0]
        return kernel_accesses.stray_access(host.run_body(op, point, torch.float32))

    def test_a_read_past_a_tensor_is_named_by_it(self):
        stray = self.run_at({"x": [3, 4], "table": [2, 4]})
        self.assertEqual((stray.kernel, stray.access, stray.tensor, stray.element, stray.elements),
                         ("table_rows_kernel", "reads", "table", 8, 8))

    def test_none_inside(self):
        # (5 columns in a block of 8: the kernel's mask `cols < n_cols and cols >= 0` keeps the
        # last three out, as Triton's compiler reads it; Python's `and` would not.)
        self.assertIsNone(self.run_at({"x": [3, 5], "table": [3, 6]}))

    def test_triton_language_is_left_as_it_was(self):
        # The interpreter patches triton.language for the helper the kernel calls and leaves it
        # so; a kernel compiled afterwards (trials.py) would fail.
        before = {space: dict(vars(space)) for space in (tl, tl.core, tl.core.tensor)}
        self.run_at({"x": [3, 4], "table": [3, 5]})
        for space, names in before.items():
            self.assertEqual(dict(vars(space)), names, space)

    def test_no_verdict_past_the_programs_interpreted(self):
        with self.assertRaises(kernel_accesses.NoVerdict):
            self.run_at({"x": [kernel_accesses.MAX_PROGRAMS + 1, 4], "table": [300, 4]})


if __name__ == "__main__":
    unittest.main()
