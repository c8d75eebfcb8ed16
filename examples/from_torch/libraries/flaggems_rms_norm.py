"""FlagGems 5.0.2 RMSNorm (`flag_gems.ops.rms_norm.rms_norm`, i.e. `RmsNorm.apply` over
`rms_norm_forward`), called as a user of the library calls it in a Llama decoder layer. The host
code folds the leading axes into M rows, makes x/weight contiguous, allocates `inv_rms` (float32,
saved for backward) and picks by size: `rms_norm_kernel` with BLOCK_SIZE = next_power_of_2(N) for
N <= 4096, else `rms_norm_loop_kernel` (`libentry` + `triton.autotune` keyed on N)."""
import torch
from flag_gems.ops.rms_norm import rms_norm as gems_rms_norm

AUTOPLUGIN_EXAMPLES = ["user_flaggems::rms_norm(x=[4, 128, 4096], weight=[4096], eps=1e-06)"]


@torch.library.custom_op("user_flaggems::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return gems_rms_norm(x, list(weight.shape), weight, eps)


@rms_norm.register_fake
def _(x, weight, eps):
    return torch.empty_like(x)
