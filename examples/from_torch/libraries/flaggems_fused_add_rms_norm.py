"""FlagGems 5.0.2 fused residual-add + RMSNorm (`flag_gems.fused.fused_add_rms_norm.
fused_add_rms_norm`), called as a user of the library calls it between vLLM-style decoder layers:
in place, residual <- x + residual and x <- RMSNorm(residual) * weight. The host code makes x and
residual contiguous (no copy for contiguous inputs), launches `fused_add_rms_norm_kernel`
(libentry) with one program per row and BLOCK_SIZE = next_power_of_2(N), and returns x and
residual themselves; the custom op declares both mutated and returns nothing."""
import torch
from flag_gems.fused.fused_add_rms_norm import fused_add_rms_norm as gems_fused_add_rms_norm

AUTOPLUGIN_EXAMPLES = [
    "user_flaggems::fused_add_rms_norm(x=[256, 4096], residual=[256, 4096], weight=[4096], "
    "eps=1e-06)"
]


@torch.library.custom_op("user_flaggems::fused_add_rms_norm", mutates_args=("x", "residual"))
def fused_add_rms_norm(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor,
                       eps: float) -> None:
    gems_fused_add_rms_norm(x, residual, list(weight.shape), weight, eps)


@fused_add_rms_norm.register_fake
def _(x, residual, weight, eps):
    return None
