"""flash-linear-attention's chunk-local cumulative sum (`fla.ops.utils.cumsum.chunk_local_cumsum`,
fla-core 0.6.0), as Gated DeltaNet's chunked forward calls it on its log-gates g [B, T, H] with
chunk size 64 (`@input_guard`, `@dispatch`). For a 3-D input the host code asserts the chunk size
is a power of 2, allocates a float32 output and launches an autotuned kernel (num_warps keyed on
B, H, BT) over `NT * B * H` programs, HAS_SCALE and IS_VARLEN heuristics from None arguments."""
import torch
from fla.ops.utils.cumsum import chunk_local_cumsum

AUTOPLUGIN_EXAMPLES = ["user_fla::chunk_local_cumsum(g=[2, 4096, 16])"]


@torch.library.custom_op("user_fla::chunk_local_cumsum", mutates_args=())
def cumsum(g: torch.Tensor) -> torch.Tensor:
    return chunk_local_cumsum(g, chunk_size=64)


@cumsum.register_fake
def _(g):
    return g.new_empty(g.shape, dtype=torch.float32)
