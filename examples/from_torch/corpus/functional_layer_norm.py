# F.layer_norm-compatible custom op (PyTorch "Custom Python Operators" tutorial style):
# normalized_shape is a list[int], weight and bias are optional.  The kernel is a
# one-row-per-program LayerNorm (Triton tutorial 05 / unsloth layernorm.py style).
import math
from typing import Optional

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE: int = 65536


@triton.jit
def _layer_norm_fwd(
    X, Y, W, B,
    stride_x_row, stride_y_row,
    N, eps,
    HAS_WEIGHT: tl.constexpr,
    HAS_BIAS: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    X += row * stride_x_row
    Y += row * stride_y_row
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N

    x = tl.load(X + cols, mask = mask, other = 0.0).to(tl.float32)
    mean = tl.sum(x, axis = 0) / N
    xbar = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xbar * xbar, axis = 0) / N
    rstd = 1.0 / tl.sqrt(var + eps)
    y = xbar * rstd
    if HAS_WEIGHT:
        w = tl.load(W + cols, mask = mask, other = 1.0).to(tl.float32)
        y = y * w
    if HAS_BIAS:
        b = tl.load(B + cols, mask = mask, other = 0.0).to(tl.float32)
        y = y + b
    tl.store(Y + cols, y.to(Y.dtype.element_ty), mask = mask)


def _check_normalized_shape(x, normalized_shape, weight, bias):
    ndim = len(normalized_shape)
    torch._check(ndim >= 1, lambda: "normalized_shape must be non-empty")
    torch._check(
        tuple(x.shape[-ndim:]) == tuple(normalized_shape),
        lambda: f"expected trailing dims {tuple(normalized_shape)}, got {tuple(x.shape)}",
    )
    if weight is not None:
        torch._check(tuple(weight.shape) == tuple(normalized_shape))
    if bias is not None:
        torch._check(tuple(bias.shape) == tuple(normalized_shape))


@torch.library.custom_op("mylib::functional_layer_norm", mutates_args = ())
def layer_norm(
    x: torch.Tensor,
    normalized_shape: list[int],
    weight: Optional[torch.Tensor] = None,
    bias: Optional[torch.Tensor] = None,
    eps: float = 1e-5,
) -> torch.Tensor:
    _check_normalized_shape(x, normalized_shape, weight, bias)
    assert x.device.type == "cuda"
    x = x.contiguous()
    N = math.prod(normalized_shape)
    M = x.numel() // N
    x_arg = x.view(M, N)
    y = torch.empty_like(x)
    y_arg = y.view(M, N)

    # Less than 64KB per feature: enqueue fused kernel
    BLOCK_N = triton.next_power_of_2(N)
    if BLOCK_N > MAX_FUSED_SIZE // x.element_size():
        raise RuntimeError("This layer norm doesn't support feature dim >= 64KB.")
    num_warps = min(max(BLOCK_N // 256, 1), 8)

    has_weight = weight is not None
    has_bias = bias is not None
    # dummy pointers for the absent parameters (never read)
    w_arg = weight.contiguous() if has_weight else x_arg
    b_arg = bias.contiguous() if has_bias else x_arg

    _layer_norm_fwd[(M,)](
        x_arg, y_arg, w_arg, b_arg,
        x_arg.stride(0), y_arg.stride(0),
        N, eps,
        HAS_WEIGHT = has_weight,
        HAS_BIAS = has_bias,
        BLOCK_N = BLOCK_N,
        num_warps = num_warps,
    )
    return y


@layer_norm.register_fake
def _(x, normalized_shape, weight = None, bias = None, eps = 1e-5):
    _check_normalized_shape(x, normalized_shape, weight, bias)
    return torch.empty_like(x)


AUTOPLUGIN_EXAMPLES = [
    "mylib::functional_layer_norm(x=[4, 8, 1024], normalized_shape=[1024], weight=[1024], bias=[1024], eps=1e-5)",
    "mylib::functional_layer_norm(x=[4, 8, 1024], normalized_shape=[1024], weight=[1024], bias=None, eps=1e-5)",
]


def layer_norm_reference(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    return torch.nn.functional.layer_norm(
        x.float(), normalized_shape, None if weight is None else weight.float(),
        None if bias is None else bias.float(), eps).to(x.dtype)
