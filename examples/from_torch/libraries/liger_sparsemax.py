"""Liger-Kernel 0.8.5 sparsemax forward through its autograd Function
(`liger_kernel.ops.sparsemax.LigerSparsemaxFunction.apply(x, dim)`, as `LigerSparsemax.forward`
calls it) over the last axis of attention scores. `_sparsemax_forward` moves `dim` last
(`transpose(...).contiguous()`), flattens to rows, sorts each row descending in float32 with
`torch.sort`, picks `calculate_settings(n_cols)` and launches one program per row; the output is
viewed back and transposed. The fake gives the output's shape and dtype (the library has none)."""
import torch
from liger_kernel.ops.sparsemax import LigerSparsemaxFunction

AUTOPLUGIN_EXAMPLES = ["user_liger::sparsemax(x=[4, 16, 256, 256])"]


@torch.library.custom_op("user_liger::sparsemax", mutates_args=())
def sparsemax(x: torch.Tensor) -> torch.Tensor:
    return LigerSparsemaxFunction.apply(x, -1)


@sparsemax.register_fake
def _(x):
    return torch.empty_like(x)
