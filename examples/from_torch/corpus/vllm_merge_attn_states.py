"""vLLM's Triton `merge_attn_states` (cascade / chunked-prefill attention): two partial attention
outputs [num_tokens, num_heads, head_size] with their log-sum-exps [num_heads, num_tokens]
(float32) merged into `output` in place; `output_lse` optional, written when given. One program
per (token, head); the token and head counts come from `tl.num_programs`; HEAD_SIZE is a
constexpr and PADDED_HEAD_SIZE its next power of two; an lse of +inf (an empty partial) counts
as -inf."""
from typing import Optional

import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "vllm_like::merge_attn_states(output=[13, 8, 128], prefix_output=[13, 8, 128],"
    " prefix_lse=float32[8, 13], suffix_output=[13, 8, 128], suffix_lse=float32[8, 13],"
    " output_lse=float32[8, 13])",
]


@triton.jit
def merge_attn_states_kernel(
    output,  # [NUM_TOKENS, NUM_HEADS, HEAD_SIZE]
    output_lse,  # [NUM_HEADS, NUM_TOKENS]
    prefix_output,  # [NUM_TOKENS, NUM_HEADS, HEAD_SIZE]
    prefix_lse,  # [NUM_HEADS, NUM_TOKENS]
    suffix_output,  # [NUM_TOKENS, NUM_HEADS, HEAD_SIZE]
    suffix_lse,  # [NUM_HEADS, NUM_TOKENS]
    HEAD_SIZE: tl.constexpr,
    PADDED_HEAD_SIZE: tl.constexpr,
    OUTPUT_LSE: tl.constexpr,
):
    token_idx = tl.program_id(0)
    num_tokens = tl.num_programs(0)
    head_idx = tl.program_id(1)
    num_heads = tl.num_programs(1)

    p_lse = tl.load(prefix_lse + head_idx * num_tokens + token_idx)
    s_lse = tl.load(suffix_lse + head_idx * num_tokens + token_idx)
    p_lse = float("-inf") if p_lse == float("inf") else p_lse
    s_lse = float("-inf") if s_lse == float("inf") else s_lse

    max_lse = tl.maximum(p_lse, s_lse)
    p_lse = p_lse - max_lse
    s_lse = s_lse - max_lse
    out_se = tl.exp(p_lse) + tl.exp(s_lse)

    if OUTPUT_LSE:
        out_lse = tl.log(out_se) + max_lse
        tl.store(output_lse + head_idx * num_tokens + token_idx, out_lse)

    head_arange = tl.arange(0, PADDED_HEAD_SIZE)
    head_mask = head_arange < HEAD_SIZE
    p_out = tl.load(prefix_output + token_idx * num_heads * HEAD_SIZE + head_idx * HEAD_SIZE +
                    head_arange, mask=head_mask)
    s_out = tl.load(suffix_output + token_idx * num_heads * HEAD_SIZE + head_idx * HEAD_SIZE +
                    head_arange, mask=head_mask)

    # NOTE(woosuk): Be careful with the numerical stability.
    p_scale = tl.exp(p_lse) / out_se
    s_scale = tl.exp(s_lse) / out_se
    out = p_out * p_scale + s_out * s_scale
    tl.store(output + token_idx * num_heads * HEAD_SIZE + head_idx * HEAD_SIZE + head_arange,
             out, mask=head_mask)


@torch.library.custom_op("vllm_like::merge_attn_states", mutates_args=("output", "output_lse"))
def merge_attn_states(
    output: torch.Tensor,
    prefix_output: torch.Tensor,
    prefix_lse: torch.Tensor,
    suffix_output: torch.Tensor,
    suffix_lse: torch.Tensor,
    output_lse: torch.Tensor,
) -> None:
    num_tokens = output.shape[0]
    num_query_heads = output.shape[1]
    head_size = output.shape[2]
    padded_head_size = triton.next_power_of_2(head_size)
    assert head_size in (64, 80, 96, 112, 128, 256), f"unsupported head size {head_size}"

    # TODO(woosuk): Use CUDA kernel instead of Triton to minimize CPU overhead.
    merge_attn_states_kernel[(num_tokens, num_query_heads)](
        output,
        output_lse,
        prefix_output,
        prefix_lse,
        suffix_output,
        suffix_lse,
        head_size,
        padded_head_size,
        output_lse is not None,
    )


@merge_attn_states.register_fake
def _(output, prefix_output, prefix_lse, suffix_output, suffix_lse, output_lse):
    torch._check(output.shape[2] in (64, 80, 96, 112, 128, 256))
    torch._check(prefix_output.shape == output.shape)
    torch._check(suffix_output.shape == output.shape)
    torch._check(prefix_lse.shape[0] == output.shape[1])
    torch._check(prefix_lse.shape[1] == output.shape[0])
    torch._check(suffix_lse.shape == prefix_lse.shape)
    if output_lse is not None:
        torch._check(output_lse.shape == prefix_lse.shape)
    return None


def merge_attn_states_reference(prefix_output, prefix_lse, suffix_output, suffix_lse):
    p = prefix_lse.clone()
    s = suffix_lse.clone()
    p[p == float("inf")] = float("-inf")
    s[s == float("inf")] = float("-inf")
    m = torch.maximum(p, s)
    pe, se = torch.exp(p - m), torch.exp(s - m)
    tot = pe + se
    lse = torch.log(tot) + m
    ps = (pe / tot).T[:, :, None]
    ss = (se / tot).T[:, :, None]
    out = prefix_output.float() * ps + suffix_output.float() * ss
    return out.to(prefix_output.dtype), lse

