"""Liger-Kernel 0.8.5 DyT (Dynamic Tanh, `gamma * tanh(alpha * x) + beta`, the normalization-free
replacement of LayerNorm) forward (`liger_kernel.ops.dyt.liger_dyt_fwd`), called as a user of the
library calls it; alpha is the one-element learnable scalar. The host code asserts
`x.is_contiguous()`, sets the `HAVE_BETA` constexpr from `beta is not None`, views x as
`(-1, N)` and launches a `@triton.autotune` kernel (BLOCK_N in {1024, 2048, 4096} x num_stages x
num_warps, key `N`, `N: tl.constexpr`) on a grid `(cdiv(N, BLOCK_N), M)` computed from the
config. The fake gives the output's shape and dtype only (the library has no fake)."""
import torch
from liger_kernel.ops.dyt import liger_dyt_fwd

AUTOPLUGIN_EXAMPLES = ["user_liger::dyt(x=[4, 128, 4096], alpha=[1], gamma=[4096], beta=[4096])"]


@torch.library.custom_op("user_liger::dyt", mutates_args=())
def dyt(x: torch.Tensor, alpha: torch.Tensor, gamma: torch.Tensor,
        beta: torch.Tensor) -> torch.Tensor:
    return liger_dyt_fwd(x, alpha, gamma, beta)


@dyt.register_fake
def _(x, alpha, gamma, beta):
    return torch.empty_like(x)
