"""xFormers' RMSNorm (`xformers.ops.rmsnorm.rms_norm`, xformers 0.0.35; inference only), called
as a user of the library calls it.

Host code: asserts `_is_triton_available()` (a CUDA device of capability >= 8.0), refuses inputs
that need gradients, imports `_rms_norm_forward` lazily, which raises on non-contiguous x or
weight, flattens to [M, N], `BLOCK_SIZE = min(max(min(65536 // element_size,
next_power_of_2(N)), 128), 8192)`, `num_warps = min(max(BLOCK_SIZE // 256, 1), 8)`,
`grid = (M,)` under `torch.cuda.device(x.device)`; INCLUDE_WEIGHT a bool constexpr."""
import torch
from xformers.ops.rmsnorm import rms_norm

AUTOPLUGIN_EXAMPLES = ["user_xformers::rms_norm(x=[4, 128, 4096], weight=[4096], eps=1e-06)"]


@torch.library.custom_op("user_xformers::rms_norm", mutates_args=())
def rms_norm_op(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return rms_norm(x, weight, eps)


@rms_norm_op.register_fake
def _(x, weight, eps):
    return torch.empty_like(x)
