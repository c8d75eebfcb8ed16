"""Liger-Kernel 0.8.5 Qwen2-VL multimodal RoPE (M-RoPE) forward
(`liger_kernel.ops.qwen2vl_mrope.qwen2vl_mrope_forward`), called as a user of the library calls
it, with Qwen2-VL-7B's `mrope_section=[16, 24, 24]` (temporal/height/width slices of the
rotary half). cos/sin are `(3, bsz, seq, head_dim)`. The host code transposes q/k to
`(bsz, seq, heads, head_dim)`, makes them contiguous (a copy for contiguous inputs) and rotates
them in place in one program per (batch, seq) row; batch, head counts, head dim, padded head
counts/head dim (`next_power_of_2`) and the first two section lengths are kernel constexprs. It
returns `q.transpose(1, 2), k.transpose(1, 2), cos, sin`; the glue keeps q and k (outputs in a
permuted layout). The fake gives the outputs' shapes and dtypes only (the library has no fake)."""
import torch
from liger_kernel.ops.qwen2vl_mrope import qwen2vl_mrope_forward

AUTOPLUGIN_EXAMPLES = [
    "user_liger::qwen2vl_mrope(q=[1, 28, 1024, 128], k=[1, 4, 1024, 128], cos=[3, 1, 1024, 128], "
    "sin=[3, 1, 1024, 128], mrope_section=[16, 24, 24])"
]


@torch.library.custom_op("user_liger::qwen2vl_mrope", mutates_args=())
def qwen2vl_mrope(
    q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, mrope_section: list[int]
) -> tuple[torch.Tensor, torch.Tensor]:
    q_out, k_out, _, _ = qwen2vl_mrope_forward(q, k, cos, sin, mrope_section)
    return q_out, k_out


@qwen2vl_mrope.register_fake
def _(q, k, cos, sin, mrope_section):
    return torch.empty_like(q), torch.empty_like(k)
