"""SGLang's fused dual residual RMSNorm
(`sglang.kernels.ops.layernorm.fused_rmsnorm.fused_dual_residual_rmsnorm`, sglang 0.5.23; Grok's
post-attention norm then residual add then pre-MLP norm: mid = rmsnorm(x) * w1 + residual,
output = rmsnorm(mid) * w2), called as a user of the library calls it.

Host code: asserts x is 2-D and x/residual equal in shape and dtype, `BLOCK_SIZE =
next_power_of_2(hidden_dim)`, `num_warps = max(min(next_power_of_2(cdiv(hidden_dim, 256)), 32),
4)` (16 on HIP), `grid = (bs,)`; the kernel takes `eps` and `hidden_dim` as constexprs.
Returns (output, mid)."""
import torch
from sglang.kernels.ops.layernorm.fused_rmsnorm import fused_dual_residual_rmsnorm

AUTOPLUGIN_EXAMPLES = [
    "user_sglang::fused_dual_residual_rmsnorm(x=[16, 6144], residual=[16, 6144], "
    "weight1=[6144], weight2=[6144], eps=1e-05)"]


@torch.library.custom_op("user_sglang::fused_dual_residual_rmsnorm", mutates_args=())
def fused_dual_residual_rmsnorm_op(x: torch.Tensor, residual: torch.Tensor,
                                   weight1: torch.Tensor, weight2: torch.Tensor,
                                   eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    return fused_dual_residual_rmsnorm(x, residual, weight1, weight2, eps)


@fused_dual_residual_rmsnorm_op.register_fake
def _(x, residual, weight1, weight2, eps):
    return torch.empty_like(x), torch.empty_like(x)
