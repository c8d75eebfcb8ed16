"""flash-linear-attention's causal depthwise conv1d (`fla.modules.convolution.causal_conv1d`,
fla-core 0.6.0, backend 'triton'; the short convolution of Mamba2 / DeltaNet layers), called as a
user of the library calls it, with SiLU.

`causal_conv1d` (under `input_guard`) is `CausalConv1dFunction.apply`, which calls
`causal_conv1d_fwd`: x is [B, T, D] (any stride: its strides are kernel arguments), the weight
[D, W], `BW = next_power_of_2(W)`, time chunks of 64, an autotuned kernel over
`grid = (cdiv(D, meta["BD"]), cdiv(T, 64), B)`; the activation is a string constexpr."""
import torch
from fla.modules.convolution import causal_conv1d

AUTOPLUGIN_EXAMPLES = [
    "user_fla::causal_conv1d(x=[2, 1024, 4096], weight=[4096, 4], bias=[4096])"]


@torch.library.custom_op("user_fla::causal_conv1d", mutates_args=())
def causal_conv1d_op(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    y, _ = causal_conv1d(x, weight, bias, activation="silu")
    return y


@causal_conv1d_op.register_fake
def _(x, weight, bias):
    return torch.empty_like(x)
