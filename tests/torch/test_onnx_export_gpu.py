"""The models the ONNX export tests export (onnx_export_models.py), run eagerly on a GPU with the
examples' PyTorch op library: their outputs equal what they compute in plain PyTorch, so the
calls whose exported nodes test_onnx_export.py checks are the calls that compute the right thing."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
from torch_library import LIBRARY, missing


def requirements_missing():
    return missing(gpu=True)


class EagerOnTheGpu(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import torch

        import autoplugin.torch

        cls.torch = torch
        autoplugin.torch.load_library(LIBRARY)
        sys.path.insert(0, HERE)
        import onnx_export_models

        cls.models_module = onnx_export_models

    def check(self, name, model, inputs):
        torch = self.torch
        inputs = tuple(x.cuda() for x in inputs)
        out = model(*inputs)
        torch.cuda.synchronize()
        want = self.models_module.expected(name, inputs)
        print(f"{name}: inputs {[tuple(x.shape) for x in inputs]} -> {tuple(out.shape)} "
              f"{out.dtype}, max |difference| "
              f"{(out.double() - want.double()).abs().max().item() if out.numel() else 0.0}")
        self.assertEqual(out.shape, want.shape)
        self.assertEqual(out.dtype, want.dtype)
        if out.dtype.is_floating_point:
            torch.testing.assert_close(out, want, rtol=1e-5, atol=1e-5)
        else:
            self.assertTrue(torch.equal(out, want))

    def test_every_model_computes_what_it_should(self):
        for name, model, inputs, _, _ in self.models_module.models():
            with self.subTest(name):
                self.check(name, model, inputs)

    def test_dynamic_batches_run_eagerly(self):
        torch = self.torch
        models = {m[0]: m[1] for m in self.models_module.models()}
        for batch in (1, 5, 64):
            self.check("circular_pad", models["circular_pad"], (torch.randn(batch, 3, 8, 8),))
            self.check("broadcast_to", models["broadcast_to"],
                       (torch.randn(1, 3), torch.randn(batch)))
            self.check("bias_act", models["bias_act"],
                       (torch.randn(batch, 4, 5), torch.randn(4), torch.randn(4)))
        for density in (0.0, 0.3, 1.0):
            x = torch.randn(33, 17) * (torch.rand(33, 17) < density)
            self.check("nonzero", models["nonzero"], (x,))


if __name__ == "__main__":
    unittest.main()
