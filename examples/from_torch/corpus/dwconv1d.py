"""Depthwise 1-D convolution over time, as in Mamba's short conv / ConvNeXt-1D blocks.

x [batch, channels, time], weight [channels, 1, K] (nn.Conv1d(groups=channels) layout),
optional bias [channels]; padding K // 2 on both sides, stride 1, so
out [batch, channels, time + 2 * (K // 2) - K + 1] (== time for odd K).
One program per (batch * channel, tile of output time steps).
"""
from typing import Optional

import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["vision::dwconv1d(x=[2, 48, 300], weight=[48, 1, 4], bias=[48])"]


@triton.jit
def dwconv1d_kernel(
    x_ptr, w_ptr, b_ptr, y_ptr,
    C, T, T_out, PAD,
    stride_xb, stride_xc, stride_xt,
    stride_yb, stride_yc, stride_yt,
    K: tl.constexpr,
    HAS_BIAS: tl.constexpr,
    BLOCK_T: tl.constexpr,
):
    pid_bc = tl.program_id(0)
    pid_t = tl.program_id(1)
    b = pid_bc // C
    c = pid_bc % C
    t = pid_t * BLOCK_T + tl.arange(0, BLOCK_T)
    mask = t < T_out
    x_row = x_ptr + b.to(tl.int64) * stride_xb + c.to(tl.int64) * stride_xc
    acc = tl.zeros([BLOCK_T], dtype=tl.float32)
    for k in range(K):
        src = t + k - PAD
        m = mask & (src >= 0) & (src < T)
        xv = tl.load(x_row + src * stride_xt, mask=m, other=0.0).to(tl.float32)
        wv = tl.load(w_ptr + c * K + k).to(tl.float32)
        acc += xv * wv
    if HAS_BIAS:
        acc += tl.load(b_ptr + c).to(tl.float32)
    y_row = y_ptr + b.to(tl.int64) * stride_yb + c.to(tl.int64) * stride_yc
    tl.store(y_row + t * stride_yt, acc.to(y_ptr.dtype.element_ty), mask=mask)


@torch.library.custom_op("vision::dwconv1d", mutates_args=())
def dwconv1d(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor] = None) -> torch.Tensor:
    assert x.dim() == 3, "x must be [batch, channels, time]"
    assert weight.dim() == 3 and weight.shape[1] == 1, "weight must be [channels, 1, K]"
    B, C, T = x.shape
    assert weight.shape[0] == C, "one filter per channel"
    K = weight.shape[-1]
    pad = K // 2
    T_out = T + 2 * pad - K + 1
    weight = weight.contiguous()
    y = torch.empty((B, C, T_out), device=x.device, dtype=x.dtype)
    BLOCK_T = 256
    num_warps = 4
    grid = (B * C, triton.cdiv(T_out, BLOCK_T))
    dwconv1d_kernel[grid](
        x, weight, bias, y,
        C, T, T_out, pad,
        x.stride(0), x.stride(1), x.stride(2),
        y.stride(0), y.stride(1), y.stride(2),
        K=K,
        HAS_BIAS=bias is not None,
        BLOCK_T=BLOCK_T,
        num_warps=num_warps,
    )
    return y


@dwconv1d.register_fake
def _(x, weight, bias=None):
    torch._check(weight.shape[0] == x.shape[1])
    torch._check(weight.shape[1] == 1)
    if bias is not None:
        torch._check(bias.shape[0] == x.shape[1])
    B, C, T = x.shape
    K = weight.shape[-1]
    return x.new_empty((B, C, T + 2 * (K // 2) - K + 1))


def dwconv1d_reference(x, weight, bias=None):
    K = weight.shape[-1]
    return torch.nn.functional.conv1d(x.float(), weight.float(), None if bias is None else bias.float(),
                                      padding=K // 2, groups=x.shape[1]).to(x.dtype)
