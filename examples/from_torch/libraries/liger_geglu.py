"""Liger-Kernel 0.8.5 GeGLU (tanh-approximated `gelu(a) * b`, Gemma's MLP) forward
(`liger_kernel.ops.geglu.geglu_forward`), called as a user of the library calls it. The host code
views both inputs as `(-1, n_cols)`, picks `calculate_settings(n_cols)` and launches one program
per row inside `with device_context(a.device)`; the kernel takes `n_cols: tl.constexpr`. It
returns `(a, b, c)`; the glue keeps `c`. The fake gives the output's shape and dtype only (the
library has no fake)."""
import torch
from liger_kernel.ops.geglu import geglu_forward

AUTOPLUGIN_EXAMPLES = ["user_liger::geglu(a=[4, 128, 16384], b=[4, 128, 16384])"]


@torch.library.custom_op("user_liger::geglu", mutates_args=())
def geglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    _, _, c = geglu_forward(a, b)
    return c


@geglu.register_fake
def _(a, b):
    return torch.empty_like(a)
