"""Liger-Kernel 0.8.5 Llama 4 rotary embedding (`liger_kernel.ops.llama4_rope.llama4_rope_forward(q,
k, freqs_cis)`) on [batch, seq, heads, head_dim] queries and keys with the frequencies as real
pairs. The host code reads the head counts and half the head size from the shapes, makes the
inputs contiguous in float32 only where needed, picks its block and warps from the head size
(`_select_kernel_meta`), and rotates q and k in place on a (batch * seq, heads) grid; the glue
hands it copies, as a caller that keeps its inputs does."""
import torch
from liger_kernel.ops.llama4_rope import llama4_rope_forward

AUTOPLUGIN_EXAMPLES = ["user_liger::llama4_rope(q=[2, 256, 32, 128], k=[2, 256, 8, 128], freqs=[256, 64, 2])"]


@torch.library.custom_op("user_liger::llama4_rope", mutates_args=())
def llama4_rope(q: torch.Tensor, k: torch.Tensor, freqs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return llama4_rope_forward(q.clone(), k.clone(), freqs)


@llama4_rope.register_fake
def _(q, k, freqs):
    return torch.empty_like(q), torch.empty_like(k)
