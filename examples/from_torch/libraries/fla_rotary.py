"""flash-linear-attention's rotary embedding (`fla.modules.rotary.rotary_embedding`, fla-core
0.6.0, non-interleaved, not in place), called as a user of the library calls it.

`rotary_embedding` is `RotaryEmbeddingFunction.apply` (under `input_guard`), which calls
`rotary_embedding_fwdbwd`: x is [B, T, H, D], cos/sin [TR, R/2]; it asserts D <= 256, R <= D,
TR >= T + offset and equal dtypes, allocates y with `torch.zeros_like` (and copies the
unrotated tail when R < D), `BD = next_power_of_2(R)`,
`BT = min(128, next_power_of_2(cdiv(T, multiprocessor_count)))`, `grid = (cdiv(T, BT), B, H)`."""
import torch
from fla.modules.rotary import rotary_embedding

AUTOPLUGIN_EXAMPLES = [
    "user_fla::rotary(x=[2, 512, 32, 128], cos=[4096, 64], sin=[4096, 64])"]


@torch.library.custom_op("user_fla::rotary", mutates_args=())
def rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    return rotary_embedding(x, cos, sin, interleaved=False, inplace=False)


@rotary.register_fake
def _(x, cos, sin):
    return torch.empty_like(x)
