"""Liger-Kernel 0.8.5 fused residual add + RMSNorm forward
(`liger_kernel.ops.fused_add_rms_norm.fused_add_rms_norm_forward`), called as a user of the
library calls it in a decoder layer: `S = X + R` (the new residual) and `Y = rmsnorm(S) * W`, with
Llama's casting mode and offset 0. The host code maps the casting-mode string to an int (assert),
views X and R as `(-1, dim)`, picks `calculate_settings(n_cols)`, allocates an `RSTD` scratch
(float32 for "llama"/"gemma"), asserts `X.shape[1] == W.shape[0]` and launches one program per
row with `num_stages=2`. It returns `(Y, S, RSTD, BLOCK_SIZE, num_warps, num_stages,
casting_mode)`; the glue keeps Y and S. The fake gives the outputs' shapes and dtypes only (the
library has no fake)."""
import torch
from liger_kernel.ops.fused_add_rms_norm import fused_add_rms_norm_forward

AUTOPLUGIN_EXAMPLES = [
    "user_liger::fused_add_rms_norm(X=[4, 128, 4096], R=[4, 128, 4096], W=[4096], eps=1e-06)"
]


@torch.library.custom_op("user_liger::fused_add_rms_norm", mutates_args=())
def fused_add_rms_norm(
    X: torch.Tensor, R: torch.Tensor, W: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    Y, S, _, _, _, _, _ = fused_add_rms_norm_forward(X, R, W, eps, 0.0, "llama")
    return Y, S


@fused_add_rms_norm.register_fake
def _(X, R, W, eps):
    return torch.empty_like(X), torch.empty_like(X)
