"""Flash attention forward in the style of Triton's fused-attention tutorial: one program per
(block of queries, batch x head), an online softmax over blocks of keys with tl.dot, the
log-sum-exp (base 2) saved for a backward pass as a second, float32 output. The head size is a
constexpr the kernel needs at compile time, from a set the host code asserts and the fake checks
(`q.shape[-1] in (16, 32, 64, 128)`), and the key block follows it (32 keys for heads of 128)."""
import math
from typing import Tuple

import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "attention::flash_fwd(q=[2, 4, 256, 64], k=[2, 4, 256, 64], v=[2, 4, 256, 64], causal=True, "
    "sm_scale=0.125)"]


@triton.jit
def _attn_fwd(Q, K, V, Out, M, sm_scale,
              stride_qz, stride_qh, stride_qm, stride_qk,
              stride_kz, stride_kh, stride_kn, stride_kk,
              stride_vz, stride_vh, stride_vn, stride_vk,
              stride_oz, stride_oh, stride_om, stride_ok,
              H, N_CTX,
              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    q_base = Q + off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    k_base = K + off_z.to(tl.int64) * stride_kz + off_h.to(tl.int64) * stride_kh
    v_base = V + off_z.to(tl.int64) * stride_vz + off_h.to(tl.int64) * stride_vh
    o_base = Out + off_z.to(tl.int64) * stride_oz + off_h.to(tl.int64) * stride_oh
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    row_ok = offs_m < N_CTX
    q = tl.load(q_base + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk,
                mask=row_ok[:, None], other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.44269504
    if CAUSAL:
        hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    else:
        hi = N_CTX
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        col_ok = cols < N_CTX
        k = tl.load(k_base + cols[None, :] * stride_kn + offs_d[:, None] * stride_kk,
                    mask=col_ok[None, :], other=0.0)
        qk = tl.dot(q, k)
        keep = col_ok[None, :]
        if CAUSAL:
            keep = keep & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(keep, qk * qk_scale, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_base + cols[:, None] * stride_vn + offs_d[None, :] * stride_vk,
                    mask=col_ok[:, None], other=0.0)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i + tl.math.log2(l_i), mask=row_ok)
    tl.store(o_base + offs_m[:, None] * stride_om + offs_d[None, :] * stride_ok,
             acc.to(Out.type.element_ty), mask=row_ok[:, None])


@torch.library.custom_op("attention::flash_fwd", mutates_args=())
def flash_fwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool,
              sm_scale: float) -> Tuple[torch.Tensor, torch.Tensor]:
    head_dim_q, head_dim_k = q.shape[-1], k.shape[-1]
    head_dim_v = v.shape[-1]
    assert head_dim_q == head_dim_k and head_dim_k == head_dim_v
    assert head_dim_k in {16, 32, 64, 128}
    o = torch.empty_like(q)
    batch, heads, n_ctx = q.shape[0], q.shape[1], q.shape[2]
    lse = torch.empty((batch, heads, n_ctx), device=q.device, dtype=torch.float32)
    BLOCK_M = 64
    BLOCK_N = 64 if head_dim_k <= 64 else 32
    grid = (triton.cdiv(n_ctx, BLOCK_M), batch * heads, 1)
    _attn_fwd[grid](q, k, v, o, lse, sm_scale,
                    q.stride(0), q.stride(1), q.stride(2), q.stride(3),
                    k.stride(0), k.stride(1), k.stride(2), k.stride(3),
                    v.stride(0), v.stride(1), v.stride(2), v.stride(3),
                    o.stride(0), o.stride(1), o.stride(2), o.stride(3),
                    heads, n_ctx,
                    HEAD_DIM=head_dim_k, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, CAUSAL=causal,
                    num_warps=4, num_stages=2)
    return o, lse


@flash_fwd.register_fake
def _(q, k, v, causal, sm_scale):
    torch._check(q.shape == k.shape)
    torch._check(k.shape == v.shape)
    torch._check(q.shape[-1] in (16, 32, 64, 128))
    return torch.empty_like(q), q.new_empty(q.shape[:3], dtype=torch.float32)


def attention_reference(q, k, v, causal, sm_scale):
    """Eager attention in float32: the output, and the log-sum-exp of the scaled scores in base
    2 (the kernel's exp2 domain)."""
    scores = torch.matmul(q.float(), k.float().transpose(-1, -2)) * sm_scale
    if causal:
        n = q.shape[-2]
        future = torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    out = torch.matmul(torch.softmax(scores, dim=-1), v.float())
    return out.to(q.dtype), lse / math.log(2.0)
