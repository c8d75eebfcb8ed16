"""An optional bias (`Optional[Tensor]` -> `Tensor?`, one structure with it and one without), an
in-place op (`mutates_args=("x",)`, `-> None` -> an aliased `Tensor(a!)` output), and an op that
writes one input in place and returns a new tensor (a state update that returns its output, as
decode-step convolutions and state-space updates do: `-> (Tensor(a!), Tensor)`)."""
from typing import Optional

import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["test::scale_bias(x=[4, 32], bias=[32], alpha=2.0)",
                       "test::scale_bias(x=[4, 32], bias=None, alpha=2.0)",
                       "test::axpy_(x=[1000], y=[1000], alpha=0.5)",
                       "test::accumulate_scaled(state=[8, 64], x=[8, 64], alpha=0.25)"]


@triton.jit
def scale_bias_kernel(x_ptr, b_ptr, y_ptr, n, n_cols, alpha, HAS_BIAS: tl.constexpr,
                      BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    value = tl.load(x_ptr + offsets, mask=mask) * alpha
    if HAS_BIAS:
        value += tl.load(b_ptr + offsets % n_cols, mask=mask)
    tl.store(y_ptr + offsets, value, mask=mask)


@torch.library.custom_op("test::scale_bias", mutates_args=())
def scale_bias(x: torch.Tensor, bias: Optional[torch.Tensor], alpha: float) -> torch.Tensor:
    y = torch.empty_like(x)
    n = x.numel()
    scale_bias_kernel[(triton.cdiv(n, 256),)](x, bias if bias is not None else x, y, n,
                                              x.shape[-1], alpha, HAS_BIAS=bias is not None,
                                              BLOCK=256)
    return y


@scale_bias.register_fake
def _(x, bias, alpha):
    if bias is not None:
        torch._check(bias.shape[0] == x.shape[-1])
    return torch.empty_like(x)


@triton.jit
def axpy_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(x_ptr + offsets, x + alpha * tl.load(y_ptr + offsets, mask=mask), mask=mask)


@torch.library.custom_op("test::axpy_", mutates_args=("x",))
def axpy_(x: torch.Tensor, y: torch.Tensor, alpha: float) -> None:
    axpy_kernel[(triton.cdiv(x.numel(), 512),)](x, y, x.numel(), alpha, BLOCK=512)


@axpy_.register_fake
def _(x, y, alpha):
    return None


@triton.jit
def accumulate_scaled_kernel(state_ptr, x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    state = tl.load(state_ptr + offsets, mask=mask) + tl.load(x_ptr + offsets, mask=mask)
    tl.store(state_ptr + offsets, state, mask=mask)
    tl.store(y_ptr + offsets, state * alpha, mask=mask)


@torch.library.custom_op("test::accumulate_scaled", mutates_args=("state",))
def accumulate_scaled(state: torch.Tensor, x: torch.Tensor, alpha: float) -> torch.Tensor:
    y = torch.empty_like(x)
    accumulate_scaled_kernel[(triton.cdiv(x.numel(), 256),)](state, x, y, x.numel(), alpha,
                                                             BLOCK=256)
    return y


@accumulate_scaled.register_fake
def _(state, x, alpha):
    torch._check(state.shape == x.shape)
    return torch.empty_like(x)
