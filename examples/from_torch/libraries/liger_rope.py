"""Liger-Kernel 0.8.5 RoPE (HuggingFace Llama rotate-half form) forward through its autograd
Function (`liger_kernel.ops.rope.LigerRopeFunction.apply`, as `liger_rotary_pos_emb` calls it,
position_ids None, unsqueeze_dim 1). `rope_forward` squeezes/unsqueezes cos/sin by rank,
transposes q/k to `(bsz, seq, heads, head_dim)` and makes them contiguous (a copy for contiguous
inputs), then rotates them in place in one program per (batch, seq) row; the kernel takes the
batch, head counts, head dim and the padded head counts / head dim (`next_power_of_2`) as
constexprs. It returns `q.transpose(1, 2), k.transpose(1, 2)`: outputs in the input's shape but a
permuted layout. The fake gives the outputs' shapes and dtypes only (the library has no fake)."""
import torch
from liger_kernel.ops.rope import LigerRopeFunction

AUTOPLUGIN_EXAMPLES = [
    "user_liger::rope(q=[1, 32, 2048, 128], k=[1, 8, 2048, 128], cos=[1, 2048, 128], "
    "sin=[1, 2048, 128])"
]


@torch.library.custom_op("user_liger::rope", mutates_args=())
def rope(q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor,
         sin: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    q_out, k_out = LigerRopeFunction.apply(q, k, cos, sin)
    return q_out, k_out


@rope.register_fake
def _(q, k, cos, sin):
    return torch.empty_like(q), torch.empty_like(k)
