"""Liger-Kernel 0.8.5 SwiGLU (`silu(a) * b`) forward through its autograd Function
(`liger_kernel.ops.swiglu.LigerSiLUMulFunction.apply`, as `LigerSwiGLUMLP` calls it on the gate
and up projections of a Llama MLP). `@ensure_contiguous`; a DTensor branch (`isinstance` checks);
`swiglu_forward` views both inputs as `(-1, n_cols)` and asks `infer_device_arch()` at call time:
on Blackwell with rows of 16384+ it launches a column-tiled 2-D grid kernel, otherwise
`calculate_settings(n_cols)` and one program per row inside `with device_context(a.device)`.
`gate_multiplier`/`down_multiplier` keep their defaults (1.0). The fake gives the output's shape
and dtype only (the library has no fake)."""
import torch
from liger_kernel.ops.swiglu import LigerSiLUMulFunction

AUTOPLUGIN_EXAMPLES = ["user_liger::swiglu(a=[4, 128, 14336], b=[4, 128, 14336])"]


@torch.library.custom_op("user_liger::swiglu", mutates_args=())
def swiglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return LigerSiLUMulFunction.apply(a, b)


@swiglu.register_fake
def _(a, b):
    return torch.empty_like(a)
