"""Liger-Kernel 0.8.5 modulated RMSNorm forward (`liger_kernel.ops.modulated_rms_norm.
modulated_rms_norm_forward(X, W, scale, shift, eps, offset, casting_mode)`), the adaptive norm of
diffusion transformers (a scale and shift per sample broadcast over its tokens). The host code
asserts the modulation's rows divide the input's, views both as rows, picks the block from the
row length, and passes `rows_per_modulation` to its kernel as a constexpr; the glue keeps the
output."""
import torch
from liger_kernel.ops.modulated_rms_norm import modulated_rms_norm_forward

AUTOPLUGIN_EXAMPLES = ["user_liger::modulated_rms_norm(x=[2, 1024, 1536], weight=[1536], scale=[2, 1, 1536], shift=[2, 1, 1536], eps=1e-6)"]


@torch.library.custom_op("user_liger::modulated_rms_norm", mutates_args=())
def modulated_rms_norm(x: torch.Tensor, weight: torch.Tensor, scale: torch.Tensor,
                       shift: torch.Tensor, eps: float) -> torch.Tensor:
    y, _, _, _, _, _ = modulated_rms_norm_forward(x, weight, scale, shift, eps, 0.0, "llama")
    return y


@modulated_rms_norm.register_fake
def _(x, weight, scale, shift, eps):
    return torch.empty_like(x)
