"""FlagGems 5.0.2 skip (residual-add) LayerNorm (`flag_gems.fused.skip_layernorm.skip_layer_norm`,
i.e. `SkipLayerNorm.apply`), called as a user of the library calls it after a BERT attention
block: y = LayerNorm(x + residual). The host code folds leading axes into M rows, makes every
tensor contiguous and launches `skip_layer_norm_kernel` (libentry) with one program per row and
BLOCK_SIZE = next_power_of_2(N), no loop over N."""
import torch
from flag_gems.fused.skip_layernorm import skip_layer_norm as gems_skip_layer_norm

AUTOPLUGIN_EXAMPLES = [
    "user_flaggems::skip_layer_norm(x=[8, 512, 768], residual=[8, 512, 768], weight=[768], "
    "bias=[768], eps=1e-12)"
]


@torch.library.custom_op("user_flaggems::skip_layer_norm", mutates_args=())
def skip_layer_norm(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor,
                    bias: torch.Tensor, eps: float) -> torch.Tensor:
    return gems_skip_layer_norm(x, residual, list(weight.shape), weight, bias, eps)


@skip_layer_norm.register_fake
def _(x, residual, weight, bias, eps):
    return torch.empty_like(x)
