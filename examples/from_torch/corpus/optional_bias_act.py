"""A linear layer's epilogue: an optional bias along the last dimension, then leaky ReLU. The bias
is `Optional[Tensor]`; without one the kernel is compiled with HAS_BIAS=False and a dummy pointer
(the input) is passed in its place."""
from typing import Optional

import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "mylib::bias_leaky_relu(x=[32, 640], bias=[640], negative_slope=0.01)",
    "mylib::bias_leaky_relu(x=[32, 640], bias=None, negative_slope=0.01)",
]


@triton.jit
def _bias_leaky_relu_kernel(X, B, Y, stride_xm, stride_ym, N, negative_slope,
                            HAS_BIAS: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride_xm + cols, mask=mask, other=0.0).to(tl.float32)
    if HAS_BIAS:
        x += tl.load(B + cols, mask=mask, other=0.0).to(tl.float32)
    y = tl.where(x >= 0, x, x * negative_slope)
    tl.store(Y + row * stride_ym + cols, y.to(Y.dtype.element_ty), mask=mask)


@torch.library.custom_op("mylib::bias_leaky_relu", mutates_args=())
def bias_leaky_relu(x: torch.Tensor, bias: Optional[torch.Tensor] = None,
                    negative_slope: float = 0.01) -> torch.Tensor:
    M, N = x.shape
    if bias is not None:
        assert bias.shape == (N,), f"bias must have shape ({N},), got {tuple(bias.shape)}"
    y = torch.empty_like(x)
    BLOCK_N = 256
    grid = (M, triton.cdiv(N, BLOCK_N))
    _bias_leaky_relu_kernel[grid](
        x, bias if bias is not None else x, y, x.stride(0), y.stride(0), N, negative_slope,
        HAS_BIAS=bias is not None, BLOCK_N=BLOCK_N)
    return y


@bias_leaky_relu.register_fake
def _(x, bias=None, negative_slope=0.01):
    if bias is not None:
        torch._check(bias.shape[0] == x.shape[1])
    return torch.empty_like(x)


def bias_leaky_relu_reference(x, bias=None, negative_slope=0.01):
    y = x.float() if bias is None else x.float() + bias.float()
    return torch.nn.functional.leaky_relu(y, negative_slope).to(x.dtype)
