"""Liger-Kernel 0.8.5 squared ReLU (`relu(x) ** 2`, the MLP activation of Primer / Nemotron)
forward through its autograd Function
(`liger_kernel.ops.relu_squared.LigerReLUSquaredFunction.apply`, as `liger_relu_squared` calls
it). `@ensure_contiguous`; `relu_squared_forward` views X as `(-1, n_cols)`, picks
`calculate_settings(n_cols)` and launches one program per row; the kernel takes
`n_cols: tl.constexpr`. The fake gives the output's shape and dtype only (the library has no
fake)."""
import torch
from liger_kernel.ops.relu_squared import LigerReLUSquaredFunction

AUTOPLUGIN_EXAMPLES = ["user_liger::relu_squared(X=[4, 128, 24576])"]


@torch.library.custom_op("user_liger::relu_squared", mutates_args=())
def relu_squared(X: torch.Tensor) -> torch.Tensor:
    return LigerReLUSquaredFunction.apply(X)


@relu_squared.register_fake
def _(X):
    return torch.empty_like(X)
