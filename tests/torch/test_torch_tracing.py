"""The examples' PyTorch ops under fake tensors and torch.export (no GPU needed): output shapes
are the declarations' expressions over symbolic sizes; bad calls raise naming op and argument."""
import unittest

from torch_library import LIBRARY, missing


def requirements_missing():
    return missing(gpu=False)


class Tracing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import torch

        import autoplugin.torch

        cls.torch = torch
        cls.library = autoplugin.torch.load_library(LIBRARY)
        cls.ops = torch.ops.torchtrt_ex

    def export(self, fn, example, dims):
        torch = self.torch

        class Model(torch.nn.Module):
            def forward(self, x):
                return fn(x)

        program = torch.export.export(Model(), example, dynamic_shapes=dims)
        return [node.meta["val"] for node in program.graph.nodes
                if node.op == "call_function" and str(node.target).startswith("torchtrt_ex.")]

    def test_loading_twice_is_loading_once(self):
        import autoplugin.torch

        self.assertIs(autoplugin.torch.load_library(LIBRARY), self.library)

    def test_circular_pad_exports_the_padded_dims_as_expressions(self):
        d = self.torch.export.Dim.DYNAMIC
        (out,) = self.export(lambda x: self.ops.circular_pad(x, [1, 1, 2, 2]),
                             (self.torch.zeros(2, 3, 8, 8),), ({0: d, 2: d, 3: d},))
        shape = [str(s) for s in out.shape]
        print("circular_pad exported:", shape)
        self.assertEqual(shape[1], "3")
        self.assertRegex(shape[2], r"^s\d+ \+ 4$")
        self.assertRegex(shape[3], r"^s\d+ \+ 2$")

    def test_nonzero_exports_an_unbacked_size(self):
        d = self.torch.export.Dim.DYNAMIC
        (out,) = self.export(self.ops.nonzero, (self.torch.ones(4, 5),), ({0: d, 1: d},))
        print("nonzero exported:", list(out.shape))
        self.assertRegex(str(out.shape[0]), r"^u\d+$")
        self.assertEqual(int(out.shape[1]), 2)

    def test_every_example_has_a_fake_implementation(self):
        from torch._subclasses.fake_tensor import FakeTensorMode
        from torch.fx.experimental.symbolic_shapes import ShapeEnv

        torch = self.torch
        with FakeTensorMode(shape_env=ShapeEnv()):
            x = torch.empty(6, 5, 40)
            self.assertEqual(tuple(self.ops.row_sum(x).shape), (6, 5))
            values, indices = self.ops.row_max(x)
            self.assertEqual(indices.dtype, torch.int64)
            self.assertEqual(tuple(self.ops.broadcast_to(torch.empty(1, 3), [4, 2, 3]).shape),
                             (4, 2, 3))
            bags = self.ops.embedding_bag(torch.empty(10, 16), torch.zeros(8, dtype=torch.int64),
                                          torch.zeros(3, dtype=torch.int64), mode="max")
            self.assertEqual(tuple(bags.shape), (3, 16))
            self.assertEqual(self.ops.scale_shift(torch.empty(2, 3, dtype=torch.float16),
                                                  rounding="floor").dtype, torch.float16)

    def test_none_for_an_optional_tensor_is_traced(self):
        from torch._subclasses.fake_tensor import FakeTensorMode

        torch = self.torch
        with FakeTensorMode():
            x, b = torch.empty(3, 8, 5, dtype=torch.bfloat16), torch.empty(8, dtype=torch.bfloat16)
            self.assertEqual(tuple(self.ops.bias_act(x, None, b).shape), (3, 8, 5))
            self.assertEqual(tuple(self.ops.bias_act(x).shape), (3, 8, 5))
            with self.assertRaisesRegex(RuntimeError, "one value per channel"):
                self.ops.bias_act(x, torch.empty(7, dtype=torch.bfloat16))
        d = torch.export.Dim.DYNAMIC
        (out,) = self.export(lambda x: self.ops.bias_act(x, None, None, relu=True),
                             (torch.zeros(2, 4, 6),), ({0: d, 2: d},))
        self.assertRegex(str(out.shape[0]), r"^s\d+$")
        self.assertEqual(int(out.shape[1]), 4)

    def test_export_keeps_an_equality_between_extents(self):
        torch = self.torch

        class Model(torch.nn.Module):
            def forward(self, x, weight):
                return self.ops.bias_act(x, weight)

        Model.ops = self.ops
        channels, weights = torch.export.Dim("channels"), torch.export.Dim("weights")
        with self.assertRaisesRegex(Exception, r"must always be equal"):
            torch.export.export(Model(), (torch.zeros(2, 8, 5), torch.ones(8)),
                                dynamic_shapes=({1: channels}, {0: weights}))
        program = torch.export.export(Model(), (torch.zeros(2, 8, 5), torch.ones(8)),
                                      dynamic_shapes=({1: channels}, {0: channels}))
        self.assertEqual(len(program.range_constraints), 1)

    def test_plain_ops_run_on_meta_tensors(self):
        x = self.torch.empty(6, 5, 40, device="meta")
        self.assertEqual(tuple(self.ops.row_sum(x).shape), (6, 5))

    def test_a_failed_requirement_is_a_runtime_error_with_its_message(self):
        from torch._subclasses.fake_tensor import FakeTensorMode

        with FakeTensorMode():
            with self.assertRaisesRegex(RuntimeError, "circular padding wraps around at most once"):
                self.ops.circular_pad(self.torch.empty(2, 3), [4, 4])

    def test_a_dtype_without_a_launcher_is_refused_when_traced(self):
        from torch._subclasses.fake_tensor import FakeTensorMode

        with FakeTensorMode():
            with self.assertRaisesRegex(RuntimeError, r"op 'torchtrt_ex::gelu_tanh': no launcher "
                                                      r"for dtypes \(int32, int32\)"):
                self.ops.gelu_tanh(self.torch.empty(2, 3, dtype=self.torch.int32))

    def test_an_attribute_the_op_refuses_is_refused_when_traced(self):
        from torch._subclasses.fake_tensor import FakeTensorMode

        with FakeTensorMode():
            with self.assertRaisesRegex(RuntimeError, r"rounding is \"none\", \"floor\" or "
                                                      r"\"nearest\", not \"up\""):
                self.ops.scale_shift(self.torch.empty(2, 3), rounding="up")
            with self.assertRaisesRegex(RuntimeError, r"attributes refused: mode is \"sum\", "
                                                      r"\"mean\" or \"max\", not \"median\""):
                torch = self.torch
                self.ops.embedding_bag(torch.empty(10, 16), torch.zeros(8, dtype=torch.int64),
                                       torch.zeros(3, dtype=torch.int64), mode="median")

    def test_a_cpu_tensor_is_refused_naming_the_argument(self):
        with self.assertRaisesRegex(RuntimeError, r"op 'torchtrt_ex::gelu_tanh': argument 'x': "
                                                  r"expected a CUDA tensor, got one on cpu"):
            self.ops.gelu_tanh(self.torch.zeros(3))


class DirectOpsWithoutAGpu(unittest.TestCase):
    """autoplugin.torch.direct_ops where no call can be direct (CPU and meta tensors, tracing):
    each op answers as torch.ops' does. The direct path itself runs in test_torch_gpu.py."""

    @classmethod
    def setUpClass(cls):
        import torch

        import autoplugin.torch

        cls.torch = torch
        cls.autoplugin_torch = autoplugin.torch
        cls.library = autoplugin.torch.load_library(LIBRARY)
        cls.direct = autoplugin.torch.direct_ops(cls.library).torchtrt_ex

    def test_the_direct_module_is_built_beside_the_library(self):
        # CTest's build has Python's headers (the venv's interpreter); without them the module
        # is not built and direct_calls is None.
        self.assertEqual(self.autoplugin_torch.direct_calls(self.library), 0)
        self.assertNotIsInstance(self.direct.gelu_tanh, self.torch._ops.OpOverloadPacket)

    def test_every_op_of_the_library_is_there(self):
        names = {name.split("::")[1] for name in self.library.ops}
        self.assertEqual(names, set(vars(self.direct)))

    def test_calls_that_cannot_be_direct_are_torch_ops_calls(self):
        torch = self.torch
        with self.assertRaisesRegex(RuntimeError, r"op 'torchtrt_ex::gelu_tanh': argument 'x': "
                                                  r"expected a CUDA tensor, got one on cpu"):
            self.direct.gelu_tanh(torch.zeros(3))
        x = torch.empty(2, 3, 5, 7, device="meta")
        self.assertEqual(tuple(self.direct.circular_pad(x, [1, 1, 2, 2]).shape), (2, 3, 9, 9))
        with self.assertRaisesRegex(RuntimeError, r"rounding is \"none\", \"floor\" or "
                                                  r"\"nearest\", not \"up\""):
            self.direct.scale_shift(torch.empty(2, 3, device="meta"), rounding="up")
        self.assertEqual(self.autoplugin_torch.direct_calls(self.library), 0)

    def test_the_same_object_for_the_same_library(self):
        self.assertIs(self.autoplugin_torch.direct_ops(self.library).torchtrt_ex, self.direct)

    def test_compile_traces_the_op_without_a_graph_break(self):
        torch = self.torch
        direct = self.direct
        torch._dynamo.reset()
        torch._dynamo.utils.counters.clear()
        compiled = torch.compile(lambda x: direct.circular_pad(x, [1, 1]) * 2, fullgraph=True,
                                 backend="eager")
        self.assertEqual(tuple(compiled(torch.empty(3, 5, device="meta")).shape), (3, 7))
        self.assertEqual(sum(torch._dynamo.utils.counters["graph_break"].values()), 0)

    def test_export_records_the_op_itself(self):
        torch = self.torch
        direct = self.direct

        class Model(torch.nn.Module):
            def forward(self, x):
                return direct.gelu_tanh(direct.circular_pad(x, [1, 1]))

        for strict in (False, True):  # strict: through torch.compile's tracer
            program = torch.export.export(Model(), (torch.zeros(2, 4),), strict=strict)
            targets = [str(node.target) for node in program.graph.nodes
                       if node.op == "call_function"]
            self.assertEqual(targets, ["torchtrt_ex.circular_pad.default",
                                       "torchtrt_ex.gelu_tanh.default"])
