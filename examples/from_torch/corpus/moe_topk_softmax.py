"""MoE router: softmax over the gating logits of each token, then the top-k experts.

gating_output [num_tokens, num_experts] -> topk_weights float32 [num_tokens, topk],
topk_ids int32 [num_tokens, topk]. With renormalize the k weights are rescaled to sum to 1
(Mixtral / Qwen-MoE style). One program per token; the k maxima are found by repeated
tl.max / tl.argmax, masking the winner out after each round.
"""
from typing import Tuple

import torch
import triton
import triton.language as tl

# The routers deployed: Mixtral (8 experts, top 2) and DeepSeek-style (64 experts, top 8).
AUTOPLUGIN_EXAMPLES = ["moe::topk_softmax(gating_output=[64, 8], topk=2, renormalize=True)",
                       "moe::topk_softmax(gating_output=[64, 64], topk=8, renormalize=True)"]


@triton.jit
def _topk_softmax_kernel(
    logits_ptr,
    weights_ptr,
    ids_ptr,
    num_experts,
    stride_lt,
    stride_wt,
    stride_it,
    TOPK: tl.constexpr,
    RENORMALIZE: tl.constexpr,
    BLOCK_E: tl.constexpr,
):
    token = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_E)
    mask = offs < num_experts
    logits = tl.load(logits_ptr + token * stride_lt + offs, mask=mask, other=float("-inf"))
    logits = logits.to(tl.float32)
    row_max = tl.max(logits, axis=0)
    e = tl.exp(logits - row_max)
    e = tl.where(mask, e, 0.0)
    probs = e / tl.sum(e, axis=0)
    # padded lanes must never win
    probs = tl.where(mask, probs, -1.0)

    total = 0.0
    for i in range(TOPK):
        w = tl.max(probs, axis=0)
        idx = tl.argmax(probs, axis=0)
        tl.store(weights_ptr + token * stride_wt + i, w)
        tl.store(ids_ptr + token * stride_it + i, idx.to(tl.int32))
        total += w
        probs = tl.where(offs == idx, -1.0, probs)

    if RENORMALIZE:
        for i in range(TOPK):
            w = tl.load(weights_ptr + token * stride_wt + i)
            tl.store(weights_ptr + token * stride_wt + i, w / total)


@torch.library.custom_op("moe::topk_softmax", mutates_args=())
def topk_softmax(
    gating_output: torch.Tensor, topk: int, renormalize: bool
) -> Tuple[torch.Tensor, torch.Tensor]:
    assert gating_output.dim() == 2, "gating_output must be [num_tokens, num_experts]"
    num_tokens, num_experts = gating_output.shape
    assert topk <= num_experts, "topk must not exceed the number of experts"
    gating_output = gating_output.contiguous()
    topk_weights = torch.empty(
        (num_tokens, topk), dtype=torch.float32, device=gating_output.device
    )
    topk_ids = torch.empty((num_tokens, topk), dtype=torch.int32, device=gating_output.device)
    if num_tokens == 0:
        return topk_weights, topk_ids
    BLOCK_E = max(triton.next_power_of_2(num_experts), 16)
    num_warps = 1 if BLOCK_E <= 128 else 4
    _topk_softmax_kernel[(num_tokens,)](
        gating_output,
        topk_weights,
        topk_ids,
        num_experts,
        gating_output.stride(0),
        topk_weights.stride(0),
        topk_ids.stride(0),
        TOPK=topk,
        RENORMALIZE=renormalize,
        BLOCK_E=BLOCK_E,
        num_warps=num_warps,
    )
    return topk_weights, topk_ids


@topk_softmax.register_fake
def _(gating_output, topk, renormalize):
    torch._check(topk >= 1)
    torch._check(topk <= gating_output.shape[1])
    n = gating_output.shape[0]
    return (
        gating_output.new_empty((n, topk), dtype=torch.float32),
        gating_output.new_empty((n, topk), dtype=torch.int32),
    )


def topk_softmax_reference(gating_output, topk, renormalize):
    probs = torch.softmax(gating_output.float(), dim=-1)
    # Equal probabilities in the lowest expert's order, as the kernel's tl.argmax takes them
    # (torch.topk leaves the order of ties unspecified; wide float16 rows have many).
    weights, ids = torch.sort(probs, dim=-1, descending=True, stable=True)
    weights, ids = weights[:, :topk], ids[:, :topk]
    if renormalize:
        weights = weights / weights.sum(dim=-1, keepdim=True)
    return weights, ids.to(torch.int32)
