"""Liger-Kernel 0.8.5 GroupNorm forward through its autograd Function
(`liger_kernel.ops.group_norm.LigerGroupNormFunction.apply`, as `LigerGroupNorm.forward` calls
it), e.g. the GroupNorm(32, C) of a diffusion UNet. `@ensure_contiguous` makes the inputs
contiguous; `group_norm_forward` views X as `(batch, num_groups, -1)`, takes
`BLOCK_SIZE = min(65536, next_power_of_2(C // num_groups * H * W))`, allocates zeroed
`Mean`/`RSTD` in X's dtype and launches a `(batch, num_groups)` grid. `num_channels` is passed
as `X.shape[1]`, as the Liger module passes its own. The fake gives the output's shape and dtype
only (the library has no fake)."""
import torch
from liger_kernel.ops.group_norm import LigerGroupNormFunction

AUTOPLUGIN_EXAMPLES = [
    "user_liger::group_norm(X=[2, 320, 64, 64], W=[320], B=[320], num_groups=32, eps=1e-05)"
]


@torch.library.custom_op("user_liger::group_norm", mutates_args=())
def group_norm(X: torch.Tensor, W: torch.Tensor, B: torch.Tensor, num_groups: int,
               eps: float) -> torch.Tensor:
    return LigerGroupNormFunction.apply(X, W, B, X.shape[1], num_groups, eps)


@group_norm.register_fake
def _(X, W, B, num_groups, eps):
    return torch.empty_like(X)
