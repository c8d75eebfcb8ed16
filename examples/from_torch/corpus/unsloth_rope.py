"""Rotary position embedding in the style of Unsloth's fast RoPE: Q of shape (batch, seq, heads,
head_dim), cos/sin of (seq, head_dim // 2), one program per (row, head group), the half dim
as a power-of-two block from calculate_settings, heads processed in groups of 4."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["unsloth::rope(Q=[2, 7, 32, 128], cos=[7, 64], sin=[7, 64])"]

ROPE_GROUP_SIZE = 4
MAX_FUSED_SIZE = 65536


def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(f"Cannot launch Triton kernel since n = {n} exceeds the maximum CUDA blocksize")
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


@triton.jit
def _rope_embedding(Q, Q_row_stride, Out, cos, cos_row_stride, sin, sin_row_stride, seqlen,
                    head_dim: tl.constexpr, n_heads: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row_position = tl.program_id(0)
    group_head_position = tl.program_id(1)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    half_head_dim = head_dim // 2
    mask = col_offsets < half_head_dim

    sin1 = tl.load(sin + (row_position % seqlen) * sin_row_stride + col_offsets, mask=mask, other=0)
    cos1 = tl.load(cos + (row_position % seqlen) * cos_row_stride + col_offsets, mask=mask, other=0)

    head_start = group_head_position * 4
    head_end = min(head_start + 4, n_heads)
    for k in range(head_start, head_end):
        offs_q1 = row_position * Q_row_stride + k * head_dim + col_offsets
        offs_q2 = row_position * Q_row_stride + k * head_dim + col_offsets + half_head_dim
        Q1 = tl.load(Q + offs_q1, mask=mask, other=0).to(sin1.dtype)
        Q2 = tl.load(Q + offs_q2, mask=mask, other=0).to(sin1.dtype)
        tl.store(Out + offs_q1, Q1 * cos1 - Q2 * sin1, mask=mask)
        tl.store(Out + offs_q2, Q2 * cos1 + Q1 * sin1, mask=mask)


@torch.library.custom_op("unsloth::rope", mutates_args=())
def rope(Q: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    batch, seq_len, n_heads, head_dim = Q.shape
    Q = Q.reshape(batch * seq_len, n_heads * head_dim)
    n_rows, n_cols = Q.shape
    assert seq_len <= cos.shape[0]
    BLOCK_SIZE, num_warps = calculate_settings(head_dim // 2)
    div, mod = divmod(n_heads, ROPE_GROUP_SIZE)
    n_groups = div + (mod != 0)
    out = torch.empty_like(Q)
    _rope_embedding[(n_rows, n_groups,)](
        Q, Q.stride(0), out, cos, cos.stride(0), sin, sin.stride(0), seq_len,
        head_dim, n_heads, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return out.view(batch, seq_len, n_heads, head_dim)


@rope.register_fake
def _(Q, cos, sin):
    torch._check(cos.shape[1] * 2 == Q.shape[3])
    return torch.empty_like(Q)


def rope_reference(Q, cos, sin):
    """The rotation in eager PyTorch: each head's halves (q1, q2) become (q1 cos - q2 sin,
    q2 cos + q1 sin), cos and sin by position."""
    half = Q.shape[-1] // 2
    c = cos[:Q.shape[1]].float()[None, :, None, :]
    s = sin[:Q.shape[1]].float()[None, :, None, :]
    q1, q2 = Q[..., :half].float(), Q[..., half:].float()
    return torch.cat([q1 * c - q2 * s, q2 * c + q1 * s], dim=-1).to(Q.dtype)
