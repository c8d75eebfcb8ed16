"""FlagGems 5.0.2 GLU (`flag_gems.ops.glu.glu(self, dim)`; a * sigmoid(b) of the two halves)
over the last axis, as a gated MLP calls it. The host code asserts the split axis is even,
`torch.chunk`s the input into two strided views and calls a `pointwise_dynamic` kernel (code
generated per rank) on them."""
import torch
from flag_gems.ops.glu import glu as gems_glu

AUTOPLUGIN_EXAMPLES = ["user_flaggems::glu(x=[4, 512, 8192])"]


@torch.library.custom_op("user_flaggems::glu", mutates_args=())
def glu(x: torch.Tensor) -> torch.Tensor:
    return gems_glu(x, -1)


@glu.register_fake
def _(x):
    return x.new_empty(list(x.shape[:-1]) + [x.shape[-1] // 2])
