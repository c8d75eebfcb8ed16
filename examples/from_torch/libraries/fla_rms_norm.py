"""flash-linear-attention's RMSNorm (`fla.modules.layernorm.rms_norm`, fla-core 0.6.0), called as
a user of the library calls it.

`rms_norm` is `LayerNormFunction.apply(..., is_rms_norm=True)`: it reshapes x to [T, D] and calls
`layer_norm_fwd`, which asserts the weight's shape, computes
`BD = min(65536 // element_size, next_power_of_2(D))` (raising past 64KB) and picks by D: an
autotuned token-tile kernel (`grid = cdiv(T, meta["BT"])`) for D <= 512, a row kernel
(`grid = (T,)`) otherwise; HAS_WEIGHT/HAS_BIAS/HAS_RESIDUAL are bool constexprs."""
import torch
from fla.modules.layernorm import rms_norm

AUTOPLUGIN_EXAMPLES = ["user_fla::rms_norm(x=[4, 128, 4096], weight=[4096], eps=1e-06)"]


@torch.library.custom_op("user_fla::rms_norm", mutates_args=())
def rms_norm_op(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return rms_norm(x, weight, None, eps=eps)


@rms_norm_op.register_fake
def _(x, weight, eps):
    return torch.empty_like(x)
