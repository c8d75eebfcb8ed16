"""FlagGems 5.0.2 embedding lookup (`flag_gems.ops.embedding.embedding(weight, indices)`), called
as a user of the library calls it for a Llama token embedding. The host code asserts `not sparse`,
makes indices/weight contiguous, allocates `(*indices.shape, N)` in the weight's dtype and
launches `embedding_kernel` (libentry) with one program per index and
BLOCK_SIZE = next_power_of_2(N)."""
import torch
from flag_gems.ops.embedding import embedding as gems_embedding

AUTOPLUGIN_EXAMPLES = ["user_flaggems::embedding(weight=[32000, 4096], indices=int64[4, 128])"]


@torch.library.custom_op("user_flaggems::embedding", mutates_args=())
def embedding(weight: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
    return gems_embedding(weight, indices)


@embedding.register_fake
def _(weight, indices):
    return weight.new_empty((*indices.shape, weight.shape[-1]))
