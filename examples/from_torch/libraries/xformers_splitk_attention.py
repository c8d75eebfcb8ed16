"""xFormers 0.0.35 Triton split-K attention forward
(`xformers.ops.memory_efficient_attention_forward` with `op=xformers.ops.fmha.triton_splitk.FwOp`),
a decode step: one query per sequence against a KV cache, [B, M, H, K] layout, no bias. The
dispatcher checks the op supports the inputs (CUDA, sm80+, half/bfloat16 queries, head dims
16..512); `FwOp.apply` views q/k/v as BMGHK, picks split_k by a heuristic on B*H and the key
length, allocates float32 split outputs and LSEs, launches the split-K kernel, then
`merge_attentions` launches the reduce kernel into the output. The fake gives the output's
shape and dtype."""
import torch
from xformers.ops import memory_efficient_attention_forward
from xformers.ops.fmha import triton_splitk

AUTOPLUGIN_EXAMPLES = [
    "user_xformers::splitk_attention(q=[8, 1, 32, 128], k=[8, 4096, 32, 128], "
    "v=[8, 4096, 32, 128])"]


@torch.library.custom_op("user_xformers::splitk_attention", mutates_args=())
def splitk_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return memory_efficient_attention_forward(q, k, v, op=triton_splitk.FwOp)


@splitk_attention.register_fake
def _(q, k, v):
    return torch.empty_like(q)
