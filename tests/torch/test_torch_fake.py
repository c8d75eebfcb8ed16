"""The fake (meta) implementation autoplugin.torch registers, on the CPU: an op of the test op
library defined in PyTorch with its schema, called under fake tensors with None for `Tensor?`
arguments. Needs PyTorch and the test op library (AUTOPLUGIN_TEST_OPS_LIBRARY), no GPU."""
import os
import unittest

LIBRARY = os.environ.get("AUTOPLUGIN_TEST_OPS_LIBRARY", "")


def requirements_missing():
    try:
        import torch  # noqa: F401
    except ImportError:
        return "PyTorch is not installed"
    if not os.path.exists(LIBRARY):
        return f"the test op library was not built (AUTOPLUGIN_TEST_OPS_LIBRARY={LIBRARY!r})"
    return None


class FakeWithAbsentInputs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import torch

        import autoplugin.torch
        from autoplugin.library import Library

        cls.torch = torch
        library = Library(LIBRARY)
        op = library.op("pytest::optional_inputs")
        # The schema as the op declares it; the fake is the one load_library registers.
        cls.scope = torch.library.Library("pytest", "DEF")
        cls.scope.define(op["schema"].split("::", 1)[1])
        torch.library.register_fake("pytest::optional_inputs",
                                    autoplugin.torch._fake_implementation(library, op),
                                    lib=cls.scope)
        cls.op = torch.ops.pytest.optional_inputs

    def fake_call(self, *args, **kwargs):
        from torch._subclasses.fake_tensor import FakeTensorMode

        with FakeTensorMode() as mode:
            fakes = [None if a is None else mode.from_tensor(a) for a in args]
            return self.op(*fakes, **kwargs)

    def test_none_reaches_the_shape_function_as_absent(self):
        torch = self.torch
        x, w, b = torch.zeros(4, 5), torch.zeros(3), torch.zeros(6)
        self.assertEqual(tuple(self.fake_call(x, w, b).shape), (4, 3, 16))
        self.assertEqual(tuple(self.fake_call(x, None, b).shape), (4, 1, 16))
        self.assertEqual(tuple(self.fake_call(x, w, None).shape), (4, 3, 2))
        self.assertEqual(tuple(self.fake_call(x).shape), (4, 1, 2))

    def test_absent_inputs_export_with_symbolic_sizes(self):
        torch = self.torch
        op = self.op

        class Model(torch.nn.Module):
            def forward(self, x, b):
                return op(x, None, b)

        d = torch.export.Dim.DYNAMIC
        program = torch.export.export(Model(), (torch.zeros(4, 5), torch.zeros(6)),
                                      dynamic_shapes=({0: d}, {0: d}))
        (value,) = [n.meta["val"] for n in program.graph.nodes
                    if n.op == "call_function" and "optional_inputs" in str(n.target)]
        self.assertRegex(str(value.shape[0]), r"^s\d+$")
        self.assertEqual(value.shape[1], 1)
        self.assertRegex(str(value.shape[2]), r"^s\d+ \+ 10$")


if __name__ == "__main__":
    unittest.main()
