"""flash-linear-attention's gated RMSNorm (`fla.modules.fused_norm_gate.rms_norm_gated`, fla-core
0.6.0; the output norm of Gated DeltaNet / Mamba2-style layers: rmsnorm(x) * weight * swish(g)),
called as a user of the library calls it.

The function is `LayerNormGatedFunction.apply` (under fla's `input_guard`): it reshapes x and g to
[T, D] and calls `layer_norm_gated_fwd`, which asserts the weight's shape, allocates `rstd`
(float32) and picks by D: an autotuned token-tile kernel (`grid = cdiv(T, meta["BT"])`) for
D <= 512, a row kernel otherwise; the activation is a string constexpr."""
import torch
from fla.modules.fused_norm_gate import rms_norm_gated

AUTOPLUGIN_EXAMPLES = [
    "user_fla::rms_norm_gated(x=[2, 1024, 16, 128], g=[2, 1024, 16, 128], weight=[128], eps=1e-05)"]


@torch.library.custom_op("user_fla::rms_norm_gated", mutates_args=())
def rms_norm_gated_op(x: torch.Tensor, g: torch.Tensor, weight: torch.Tensor,
                      eps: float) -> torch.Tensor:
    return rms_norm_gated(x, g, weight, None, activation="swish", eps=eps)


@rms_norm_gated_op.register_fake
def _(x, g, weight, eps):
    return torch.empty_like(x)
