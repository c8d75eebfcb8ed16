"""flash-linear-attention's L2 norm forward (`fla.modules.l2norm.l2norm_fwd`, fla-core 0.6.0),
called as a user of the library calls it (the q/k normalization of Gated DeltaNet-style layers).

Computes y = x / sqrt(sum(x^2) + eps) over the last dimension. Host code: flattens to [T, D],
`BD = min(65536 // element_size, next_power_of_2(D))`, and picks by D: an autotuned kernel over
token tiles (`grid = cdiv(T, meta["BT"])`, an `NB = cdiv(T, 2048 * 32)` bucket as an autotune
key) for D <= 512, a row kernel (`grid = (T,)`) otherwise. `rstd` is dropped, as a model does."""
import torch
from fla.modules.l2norm import l2norm_fwd

AUTOPLUGIN_EXAMPLES = ["user_fla::l2norm(x=[2, 1024, 16, 128], eps=1e-06)"]


@torch.library.custom_op("user_fla::l2norm", mutates_args=())
def l2norm(x: torch.Tensor, eps: float) -> torch.Tensor:
    y, _ = l2norm_fwd(x, eps)
    return y


@l2norm.register_fake
def _(x, eps):
    return torch.empty_like(x)
