"""fla-core 0.6.0 gated RMSNorm over groups of channels
(`fla.modules.norm.layernorm_gated.rmsnorm_fn(x, weight, bias, z, eps, group_size,
norm_before_gate)`; Mamba-2's gated norm), gate applied before
the norm, no bias. The host code (an `autograd.Function`) flattens to rows, asserts `D %
group_size == 0` and the shapes of the gate and weight, allocates the rstd it keeps, and
launches one program per row and group with a power-of-two block of the group (at most 64 KB
of it), its warps from the block."""
import torch
from fla.modules.norm.layernorm_gated import rmsnorm_fn

AUTOPLUGIN_EXAMPLES = ["user_fla::gated_group_rms_norm(x=[2, 512, 4096], z=[2, 512, 4096], "
                       "weight=[4096], eps=1e-5, group_size=512)"]


@torch.library.custom_op("user_fla::gated_group_rms_norm", mutates_args=())
def gated_group_rms_norm(x: torch.Tensor, z: torch.Tensor, weight: torch.Tensor, eps: float,
                         group_size: int) -> torch.Tensor:
    return rmsnorm_fn(x, weight, None, z, eps, group_size, norm_before_gate=False)


@gated_group_rms_norm.register_fake
def _(x, z, weight, eps, group_size):
    return torch.empty_like(x)
