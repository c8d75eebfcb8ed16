"""flash-linear-attention's decode-step causal conv1d
(`fla.modules.convolution.causal_conv1d_update`,
fla-core 0.6.0; one new token per sequence, the rolling conv state updated in place), called as a
user of the library calls it, with SiLU.

Host code: x is [N, D] (strides picked by rank: 2-D, [1, N, D] or [N, 1, D]), the cache
[N, D, W] is shifted and written in place and returned beside y, `BW = next_power_of_2(W)`, an
autotuned kernel over `grid = (cdiv(D, meta["BD"]) * N,)`. The op mutates `cache` and returns y."""
import torch
from fla.modules.convolution import causal_conv1d_update

AUTOPLUGIN_EXAMPLES = [
    "user_fla::causal_conv1d_update(x=[16, 4096], cache=[16, 4096, 4], weight=[4096, 4], "
    "bias=[4096])"]


@torch.library.custom_op("user_fla::causal_conv1d_update", mutates_args=("cache",))
def causal_conv1d_update_op(x: torch.Tensor, cache: torch.Tensor, weight: torch.Tensor,
                            bias: torch.Tensor) -> torch.Tensor:
    y, _ = causal_conv1d_update(x, cache, None, weight, bias, activation="silu")
    return y


@causal_conv1d_update_op.register_fake
def _(x, cache, weight, bias):
    return torch.empty_like(x)
