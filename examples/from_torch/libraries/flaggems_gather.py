"""FlagGems 5.0.2 gather (`flag_gems.ops.gather.gather(inp, dim, index)`), as a sampler picks the
log-probabilities of the chosen tokens: [N, V] gathered at int64 [N, 1] along the last axis. The
host code checks the ranks, allocates the output in index's shape, restrides the input along
`dim` to the index's shape and calls a kernel whose code it generates per rank and imports from
its code cache."""
import torch
from flag_gems.ops.gather import gather as gems_gather

AUTOPLUGIN_EXAMPLES = ["user_flaggems::gather(x=[2048, 32000], index=int64[2048, 1])"]


@torch.library.custom_op("user_flaggems::gather", mutates_args=())
def gather(x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    return gems_gather(x, -1, index)


@gather.register_fake
def _(x, index):
    return x.new_empty(index.shape)
