"""The examples' PyTorch ops on a GPU: every case of examples/*/cases.json in eager mode against
examples/reference.py, torch.library.opcheck per op, torch.compile without graph breaks or
recompiles, torch.export, bad calls, and tactics."""
import unittest

from torch_library import LIBRARY, missing


def requirements_missing():
    return missing(gpu=True)


class OnTheGpu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import torch

        import autoplugin.torch
        import examples

        cls.torch = torch
        cls.examples = examples
        cls.library = autoplugin.torch.load_library(LIBRARY)
        cls.reference = examples.reference_module()

    def op(self, name):
        namespace, op = name.split("::")
        return getattr(getattr(self.torch.ops, namespace), op)

    def case_call(self, name, case, seed=0):
        generator = self.torch.Generator().manual_seed(seed)
        inputs = [self.examples.make_input(spec, generator, "cuda") for spec in case["inputs"]]
        args, kwargs = self.examples.call_arguments(self.library.op(name), case, inputs)
        return inputs, args, kwargs

    def test_every_case_matches_the_reference(self):
        checked = 0
        for name, case in self.examples.cases():
            with self.subTest(op=name, case=case["name"]):
                inputs, args, kwargs = self.case_call(name, case)
                outputs = self.op(name)(*args, **kwargs)
                outputs = list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]
                short = name.split("::")[1]
                expected = self.reference.OPS[short](*inputs, case.get("attributes", {}),
                                                     case.get("shape_inputs", []))
                for actual, wanted in zip(outputs, expected):
                    self.examples.assert_close(self, actual, wanted,
                                               str(actual.dtype).replace("torch.", ""), case)
                checked += 1
        print(f"eager: {checked} cases matched the reference")
        self.assertGreater(checked, 30)

    def test_opcheck_passes_for_every_op(self):
        seen = set()
        for name, case in self.examples.cases():
            if name in seen:
                continue
            seen.add(name)
            with self.subTest(op=name):
                _, args, kwargs = self.case_call(name, case)
                results = self.torch.library.opcheck(self.op(name).default, args, kwargs)
                print(f"opcheck {name}: {results}")
                self.assertTrue(all(v == "SUCCESS" for v in results.values()), results)

    def test_compile_has_no_graph_break_and_compiles_once(self):
        torch = self.torch
        from torch._dynamo.testing import CompileCounterWithBackend

        ops = torch.ops.torchtrt_ex

        def model(x, weight, indices, offsets):
            y = ops.gelu_tanh(ops.circular_pad(x, [1, 1, 2, 2]))
            return y.sum(dim=(-1, -2)), ops.embedding_bag(weight, indices, offsets, mode="mean")

        torch._dynamo.reset()
        counter = CompileCounterWithBackend("inductor")
        compiled = torch.compile(model, backend=counter, fullgraph=True, dynamic=True)
        for n, bags in [(2, 3), (5, 7), (9, 4)]:
            x = torch.randn(n, 4, 8 + n, 6 + n, device="cuda")
            weight = torch.randn(20, 16, device="cuda")
            indices = torch.randint(0, 20, (bags * 3,), device="cuda")
            offsets = torch.arange(0, bags * 3, 3, device="cuda")
            expected = model(x, weight, indices, offsets)
            actual = compiled(x, weight, indices, offsets)
            for a, e in zip(actual, expected):
                torch.testing.assert_close(a, e, atol=1e-4, rtol=1e-4)
        breaks = sum(torch._dynamo.utils.counters["graph_break"].values())
        print(f"torch.compile: {counter.frame_count} compiled frame(s) for 3 sizes, "
              f"{breaks} graph breaks")
        self.assertEqual(breaks, 0)
        self.assertEqual(counter.frame_count, 1)

    def test_export_keeps_the_declared_expressions(self):
        torch = self.torch

        class Pad(torch.nn.Module):
            def forward(self, x):
                return torch.ops.torchtrt_ex.circular_pad(x, [1, 1, 2, 2])

        d = torch.export.Dim.DYNAMIC
        program = torch.export.export(Pad(), (torch.zeros(2, 3, 8, 8, device="cuda"),),
                                      dynamic_shapes=({0: d, 2: d, 3: d},))
        shapes = [list(n.meta["val"].shape) for n in program.graph.nodes
                  if n.op == "call_function" and "circular_pad" in str(n.target)]
        print("exported circular_pad output:", shapes)
        self.assertRegex(str(shapes[0][2]), r"\+ 4$")
        x = torch.randn(3, 3, 9, 7, device="cuda")
        torch.testing.assert_close(program.module()(x), torch.ops.torchtrt_ex.circular_pad(
            x, [1, 1, 2, 2]))

    def test_nonzero_returns_its_true_size(self):
        torch = self.torch
        x = torch.zeros(100, 7, device="cuda")
        x[3, 2] = x[50, 6] = 1
        out = torch.ops.torchtrt_ex.nonzero(x)
        torch.testing.assert_close(out, torch.nonzero(x))

    def test_an_output_past_the_triton_kernels_index_range_takes_several_launches(self):
        # 32768 x 65537 float16 words (odd padding: 2-byte words) is more than one launch of the
        # 32-bit kernel covers; the launcher splits it into runs of whole rows.
        torch = self.torch
        x = torch.randn(1, 32768, 65536, device="cuda", dtype=torch.float16)
        out = torch.ops.torchtrt_ex.circular_pad_triton(x, [1, 0])
        self.assertGreater(out.numel(), 2**31)
        self.assertTrue(torch.equal(out, torch.nn.functional.pad(x, [1, 0], mode="circular")))
        del x, out
        torch.cuda.empty_cache()

    def test_row_max_keeps_the_first_maximum_and_the_first_nan(self):
        # The kernel compares elements in full only in steps that hold a NaN or a new maximum:
        # rows that rise everywhere, fall, tie and hold NaNs, by warp (33) and block (4099).
        torch = self.torch
        x = torch.randn(6, 4099, device="cuda")
        x[0] = torch.arange(4099.0)
        x[1] = -torch.arange(4099.0)
        x[2, 100] = x[2, 3000] = x[2, 20] = 50.0
        x[3, 2000] = x[3, 10] = x[3, 3] = float("nan")
        x[4, 4098] = float("inf")
        x[5, 7] = float("nan")
        x[5, 4000] = float("inf")
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            for width in (33, 4099):
                with self.subTest(dtype=dtype, width=width):
                    y = x[:, :width].to(dtype).contiguous()
                    values, indices = torch.ops.torchtrt_ex.row_max(y)
                    expected_values, expected_indices = torch.max(y, dim=-1)
                    torch.testing.assert_close(values, expected_values, equal_nan=True,
                                               rtol=0, atol=0)
                    first_nan = torch.isnan(y).float().argmax(dim=-1)
                    expected_indices = torch.where(torch.isnan(y).any(dim=-1), first_nan,
                                                   expected_indices)
                    self.assertTrue(torch.equal(indices, expected_indices), (indices,
                                                                             expected_indices))

    def test_bad_calls_raise_runtime_errors_naming_op_and_argument(self):
        torch = self.torch
        ops = torch.ops.torchtrt_ex
        with self.assertRaisesRegex(RuntimeError, "op 'torchtrt_ex::gelu_tanh': argument 'x': "
                                                  "has dtype Double"):
            ops.gelu_tanh(torch.zeros(3, device="cuda", dtype=torch.float64))
        with self.assertRaisesRegex(RuntimeError, r"no launcher for dtypes \(int32, int32\)"):
            ops.gelu_tanh(torch.zeros(3, device="cuda", dtype=torch.int32))
        with self.assertRaisesRegex(RuntimeError, "circular padding wraps around at most once"):
            ops.circular_pad(torch.zeros(2, 3, device="cuda"), [4, 4])
        # PyTorch checks argument types against the schema before the kernel runs.
        with self.assertRaisesRegex(RuntimeError, "Expected a value of type 'List\\[int\\]' for "
                                                  "argument 'padding'"):
            ops.circular_pad(torch.zeros(2, 3, device="cuda"), "1")
        with self.assertRaisesRegex(RuntimeError, "rounding is \"none\", \"floor\" or \"nearest\""):
            ops.scale_shift(torch.zeros(2, device="cuda"), rounding="up")

    def test_absent_optional_inputs_reach_the_launcher_as_absent(self):
        torch = self.torch
        op = torch.ops.torchtrt_ex.bias_act
        x = torch.randn(3, 5, 4, device="cuda")
        w = torch.randn(5, device="cuda")
        b = torch.randn(5, device="cuda")
        per_channel = (1, 5, 1)
        torch.testing.assert_close(op(x, w, b), x * w.view(per_channel) + b.view(per_channel))
        torch.testing.assert_close(op(x, None, b), x + b.view(per_channel))
        torch.testing.assert_close(op(x, weight=w), x * w.view(per_channel))
        torch.testing.assert_close(op(x, relu=True), torch.relu(x))
        # A present tensor without elements is present: x of 0 batches with weight and bias.
        empty = torch.zeros(0, 5, 4, device="cuda")
        self.assertEqual(op(empty, w, b).shape, (0, 5, 4))
        for args in [(x, None, b), (x, w, None), (x, None, None)]:
            results = torch.library.opcheck(op.default, args, {})
            self.assertTrue(all(v == "SUCCESS" for v in results.values()), results)
        with self.assertRaisesRegex(RuntimeError, "argument 'x'"):
            op(None, w, b)

    def test_a_non_contiguous_input_is_read_through_a_dense_copy(self):
        torch = self.torch
        x = torch.randn(6, 10, device="cuda").t()
        torch.testing.assert_close(torch.ops.torchtrt_ex.gelu_tanh(x),
                                   torch.nn.functional.gelu(x, approximate="tanh"))

    def test_direct_calls_equal_torch_ops_calls_for_every_case(self):
        import autoplugin.torch

        direct = autoplugin.torch.direct_ops(self.library)
        before = autoplugin.torch.direct_calls(self.library)
        self.assertIsNotNone(before, "the library's direct module was not built beside it")
        checked = 0
        for name, case in self.examples.cases():
            with self.subTest(op=name, case=case["name"]):
                _, args, kwargs = self.case_call(name, case)
                # Positional, as the direct path takes them; torch.ops' call keeps the signature.
                schema = self.op(name).default._schema
                positional = list(args) + [kwargs.get(a.name, a.default_value)
                                           for a in schema.arguments[len(args):]]
                expected = self.op(name)(*positional)
                namespace, short = name.split("::")
                actual = getattr(getattr(direct, namespace), short)(*positional)
                expected = list(expected) if isinstance(expected, (tuple, list)) else [expected]
                actual = list(actual) if isinstance(actual, (tuple, list)) else [actual]
                self.assertEqual(len(actual), len(expected))
                for a, e in zip(actual, expected):
                    self.examples.assert_close(self, a, e, str(a.dtype).replace("torch.", ""),
                                               case)
                checked += 1
        taken = autoplugin.torch.direct_calls(self.library) - before
        print(f"direct calls: {checked} cases equal to torch.ops' calls, {taken} of them direct")
        self.assertGreater(taken, checked // 2)

    def test_the_direct_path_is_taken_only_where_the_dispatcher_passes_the_call_on(self):
        import autoplugin.torch
        from torch.utils._python_dispatch import TorchDispatchMode

        torch = self.torch
        direct = autoplugin.torch.direct_ops(self.library).torchtrt_ex
        x = torch.randn(3, 41, device="cuda")  # a shape no other test calls it with
        expected = torch.nn.functional.gelu(x, approximate="tanh")

        def taken(call, wanted=expected):
            before = autoplugin.torch.direct_calls(self.library)
            torch.testing.assert_close(call(), wanted)
            return autoplugin.torch.direct_calls(self.library) - before

        self.assertEqual(taken(lambda: direct.gelu_tanh(x.clone())), 0)  # a new signature
        self.assertEqual(taken(lambda: direct.gelu_tanh(x)), 1)
        self.assertEqual(taken(lambda: direct.gelu_tanh(x=x)), 0)
        self.assertEqual(taken(lambda: direct.gelu_tanh(torch.nn.Parameter(x, False))), 1)
        with_grad = x.clone().requires_grad_()
        self.assertEqual(taken(lambda: direct.gelu_tanh(with_grad).detach()), 0)
        with torch.no_grad():
            self.assertEqual(taken(lambda: direct.gelu_tanh(with_grad)), 1)
        wide = torch.randn(41, 3, device="cuda").t()
        self.assertEqual(taken(lambda: direct.gelu_tanh(wide),
                               torch.nn.functional.gelu(wide, approximate="tanh")), 0)

        class Sub(torch.Tensor):
            pass

        self.assertEqual(taken(lambda: direct.gelu_tanh(x.as_subclass(Sub)).as_subclass(
            torch.Tensor)), 0)
        with torch.device("cuda"):  # a torch function mode
            self.assertEqual(taken(lambda: direct.gelu_tanh(x)), 0)
        with torch.autocast("cuda"):
            self.assertEqual(taken(lambda: direct.gelu_tanh(x)), 0)

        seen = []

        class Recording(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                seen.append(str(func))
                return func(*args, **(kwargs or {}))

        with Recording():
            self.assertEqual(taken(lambda: direct.gelu_tanh(x)), 0)
        self.assertIn("torchtrt_ex.gelu_tanh.default", seen)
        with torch.profiler.profile() as profile:
            self.assertEqual(taken(lambda: direct.gelu_tanh(x)), 0)
        self.assertIn("torchtrt_ex::gelu_tanh", [e.name for e in profile.events()])
        # The same launch failure either way, naming the op and the argument.
        for call in (torch.ops.torchtrt_ex.circular_pad, direct.circular_pad):
            with self.assertRaisesRegex(RuntimeError, "circular padding wraps around at most once"):
                call(torch.zeros(2, 3, device="cuda"), [4, 4])

        torch._dynamo.reset()
        compiled = torch.compile(lambda t: direct.gelu_tanh(t) * 2, fullgraph=True)
        self.assertEqual(taken(lambda: compiled(x), expected * 2), 0)
        self.assertEqual(sum(torch._dynamo.utils.counters["graph_break"].values()), 0)

    def test_calls_that_differ_in_one_value_are_not_confused(self):
        # What a call computes from its signature is kept: each differing value must count.
        torch = self.torch
        ops = torch.ops.torchtrt_ex

        def circular(y, padding):  # F.pad's circular mode pads 4-D inputs by 4 values only
            return self.reference.OPS["circular_pad"](y, {"padding": padding}, [])[0]

        x = torch.randn(2, 3, 5, 6, device="cuda")
        for padding in ([1, 1, 1, 1], [2, 1, 0, 2], [1, 1, 1, 1], [0, 0]):
            torch.testing.assert_close(ops.circular_pad(x, padding), circular(x, padding))
        for shape in ((2, 3, 5, 6), (2, 3, 6, 5), (3, 2, 5, 6)):
            y = torch.randn(shape, device="cuda")
            torch.testing.assert_close(ops.circular_pad(y, [1, 2]), circular(y, [1, 2]))
        for dtype in (torch.float16, torch.float32):
            y = x.to(dtype)
            out = ops.circular_pad(y, [1, 1])
            self.assertEqual(out.dtype, dtype)
            torch.testing.assert_close(out, circular(y, [1, 1]))
        z = torch.randn(4, 7, device="cuda") * 4
        for attributes in ({"scale": 2.0}, {"scale": 2}, {"scale": 3.0}, {"scale": 2.0, "shift": 1},
                           {"scale": 2.0, "relu": True}, {"scale": 0.5, "rounding": "floor"},
                           {"scale": 0.5, "rounding": "nearest"}, {"scale": 2.0}):
            with self.subTest(attributes=attributes):
                expected = self.reference.OPS["scale_shift"](z, attributes, [])[0]
                torch.testing.assert_close(ops.scale_shift(z, **attributes), expected)
        # A non-contiguous input after a contiguous one of the same signature: still copied.
        t = torch.randn(6, 10, device="cuda")
        ops.gelu_tanh(t.t().contiguous())
        torch.testing.assert_close(ops.gelu_tanh(t.t()),
                                   torch.nn.functional.gelu(t.t(), approximate="tanh"))

    def test_a_tactic_chosen_after_calls_applies_to_the_next_call(self):
        import autoplugin.torch

        torch = self.torch
        x = torch.randn(4, 100, device="cuda")
        torch.ops.torchtrt_ex.row_sum(x)
        try:
            autoplugin.torch.set_tactic(self.library, "torchtrt_ex::row_sum", 99)
            with self.assertRaisesRegex(RuntimeError, "no launcher"):
                torch.ops.torchtrt_ex.row_sum(x)
        finally:
            autoplugin.torch.set_tactic(self.library, "torchtrt_ex::row_sum", 0)
        torch.testing.assert_close(torch.ops.torchtrt_ex.row_sum(x), x.sum(-1), atol=1e-3,
                                   rtol=1e-4)

    def test_each_tactic_can_be_chosen(self):
        import autoplugin.torch

        torch = self.torch
        x = torch.randn(33, 1000, device="cuda")
        for tactic in (1, 2, 0):
            autoplugin.torch.set_tactic(self.library, "torchtrt_ex::row_sum", tactic)
            torch.testing.assert_close(torch.ops.torchtrt_ex.row_sum(x), x.sum(-1), atol=1e-3,
                                       rtol=1e-4)
