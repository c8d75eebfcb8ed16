"""Host code whose launch changes with the structure: the block size depends on the rank, the
offset on a string attribute, the sign on a bool attribute. Each --example structure gets its own
compiled kernel variant; the string is part of the structure; the bool is an argument. An
optional string (Liger's and Unsloth's `activation: Optional[str] = None`) selects a constexpr,
None included."""
from typing import Optional

import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["test::shift(x=[6, 10], mode='up', negate=True)",
                       "test::shift(x=[6, 10, 3], mode='down', negate=False)",
                       "test::activate(x=[6, 10])",
                       "test::activate(x=[6, 10], activation='relu')",
                       "test::activate(x=[6, 10], activation='silu')"]


@triton.jit
def shift_kernel(x_ptr, out_ptr, n, delta, negate, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    value = tl.load(x_ptr + offsets, mask=mask) + delta
    tl.store(out_ptr + offsets, tl.where(negate, -value, value), mask=mask)


@torch.library.custom_op("test::shift", mutates_args=())
def shift(x: torch.Tensor, mode: str, negate: bool) -> torch.Tensor:
    out = torch.empty_like(x)
    block = 128 if x.dim() == 2 else 512
    delta = 1.0 if mode == "up" else -1.0
    shift_kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), delta, negate, BLOCK=block)
    return out


@shift.register_fake
def _(x, mode, negate):
    return torch.empty_like(x)


@triton.jit
def activate_kernel(x_ptr, out_ptr, n, ACTIVATION: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    value = tl.load(x_ptr + offsets, mask=mask)
    if ACTIVATION == 1:
        value = tl.maximum(value, 0.0)
    elif ACTIVATION == 2:
        value = value * tl.sigmoid(value.to(tl.float32)).to(value.dtype)
    tl.store(out_ptr + offsets, value, mask=mask)


@torch.library.custom_op("test::activate", mutates_args=())
def activate(x: torch.Tensor, activation: Optional[str] = None) -> torch.Tensor:
    out = torch.empty_like(x)
    code = 0 if activation is None else {"relu": 1, "silu": 2}[activation]
    activate_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), ACTIVATION=code, BLOCK=256)
    return out


@activate.register_fake
def _(x, activation=None):
    return torch.empty_like(x)
