"""Liger-Kernel 0.8.5 softmax over the last axis through its autograd Function
(`liger_kernel.ops.softmax.LigerSoftmaxFunction.apply`, as `LigerSoftmax` calls it), here on
attention scores. `@ensure_contiguous`; `_softmax_forward` views the input as `(-1, n_cols)`,
picks `calculate_settings(n_cols)` and launches the single-block kernel when
`n_cols <= BLOCK_SIZE` (always, since `calculate_settings` raises past 65536), else a looping
multi-block kernel; one program per row. The fake gives the output's shape and dtype only (the
library has no fake)."""
import torch
from liger_kernel.ops.softmax import LigerSoftmaxFunction

AUTOPLUGIN_EXAMPLES = ["user_liger::softmax(x=[2, 32, 1024, 1024])"]


@torch.library.custom_op("user_liger::softmax", mutates_args=())
def softmax(x: torch.Tensor) -> torch.Tensor:
    return LigerSoftmaxFunction.apply(x)


@softmax.register_fake
def _(x):
    return torch.empty_like(x)
