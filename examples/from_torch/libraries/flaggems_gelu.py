"""FlagGems 5.0.2 GELU (`flag_gems.ops.gelu.gelu(self, approximate=...)`), called as a user of the
library calls it for a GPT-2 MLP activation (approximate="tanh"). The host code switches on the
string between two `pointwise_dynamic` functions (`gelu_tanh`, `gelu_none`): FlagGems generates
the launching wrapper and kernel source at call time (rank-specialised, tiled, with its own grid
and num_warps heuristics) and caches them as files."""
import torch
from flag_gems.ops.gelu import gelu as gems_gelu

AUTOPLUGIN_EXAMPLES = ["user_flaggems::gelu(x=[8, 512, 3072], approximate='tanh')"]


@torch.library.custom_op("user_flaggems::gelu", mutates_args=())
def gelu(x: torch.Tensor, approximate: str) -> torch.Tensor:
    return gems_gelu(x, approximate=approximate)


@gelu.register_fake
def _(x, approximate):
    return torch.empty_like(x)
