"""Models calling the examples' ops, for the ONNX export tests (CPU: export and check; GPU: eager
outputs against examples/reference.py). Each model lists its calls' attributes in call order,
which is the order of its plugin nodes in the exported graph."""
import torch
import torch.nn.functional as F

ops = torch.ops.torchtrt_ex


class CircularPad(torch.nn.Module):
    def forward(self, x):
        return ops.circular_pad(x, [1, 1, 2, 2])


class NonZero(torch.nn.Module):
    def forward(self, x):
        return ops.nonzero(x)


class BroadcastTo(torch.nn.Module):
    def forward(self, x, like):
        return ops.broadcast_to(x, [like.shape[0], 2, 3])


class BiasAct(torch.nn.Module):
    def forward(self, x, weight, bias):
        middle_absent = ops.bias_act(x, None, bias, relu=True)
        return ops.bias_act(middle_absent, weight)  # bias absent: trailing


class ScaleShift(torch.nn.Module):
    def forward(self, x):
        return ops.scale_shift(x, scale=0.5, shift=3, relu=True, rounding="floor")


def _inputs(generator):
    def randn(*shape):
        return torch.randn(*shape, generator=generator)
    return randn


def models():
    """(name, model, inputs, dynamic_shapes, calls): calls are (op, attribute values) in order;
    the inputs are CPU tensors."""
    g = torch.Generator().manual_seed(0)
    randn = _inputs(g)
    batch = torch.export.Dim("batch", min=1, max=64)
    sparse = randn(4, 5) * (torch.rand(4, 5, generator=g) > 0.5)
    return [
        ("circular_pad", CircularPad().eval(), (randn(2, 3, 8, 8),), ({0: batch},),
         [("torchtrt_ex::circular_pad", {"padding": [1, 1, 2, 2]})]),
        ("nonzero", NonZero().eval(), (sparse,), ({0: torch.export.Dim.DYNAMIC},),
         [("torchtrt_ex::nonzero", {})]),
        ("broadcast_to", BroadcastTo().eval(), (randn(1, 3), randn(4)), (None, {0: batch}),
         [("torchtrt_ex::broadcast_to", {})]),
        ("bias_act", BiasAct().eval(), (randn(2, 4, 5), randn(4), randn(4)),
         ({0: batch}, None, None),
         [("torchtrt_ex::bias_act", {"relu": True}), ("torchtrt_ex::bias_act", {})]),
        ("scale_shift", ScaleShift().eval(), (randn(3, 7) * 4,), ({0: batch},),
         [("torchtrt_ex::scale_shift",
           {"scale": 0.5, "shift": 3, "relu": True, "rounding": "floor"})]),
    ]


def expected(name, inputs):
    """What each model computes, in plain PyTorch."""
    if name == "circular_pad":
        return F.pad(inputs[0], [1, 1, 2, 2], mode="circular")
    if name == "nonzero":
        return torch.nonzero(inputs[0])
    if name == "broadcast_to":
        return inputs[0].broadcast_to(inputs[1].shape[0], 2, 3)
    if name == "bias_act":
        x, weight, bias = inputs
        y = torch.relu(x + bias.reshape(1, -1, 1))
        return y * weight.reshape(1, -1, 1)
    if name == "scale_shift":
        return torch.floor(torch.relu(inputs[0] * 0.5 + 3))
    raise KeyError(name)
