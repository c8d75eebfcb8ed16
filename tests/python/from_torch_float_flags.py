"""Flags and floats host code computes from float and bool attributes (Unsloth's softcapping
switch, dropout's `p if training else 0.0`, an assert on a probability's range), rows of a
flattened batch tiled by a block of rows, and a fake that asserts it runs on the GPU.
`rescale` has a default body in PyTorch and its Triton host code registered for CUDA
(`register_kernel("cuda")`), which passes the kernel affine functions of its attributes
(`1.0 / (1.0 - p)`, `temperature * LOG2E`). `soft_cap` takes `Optional[float]` and
`Optional[int]` arguments (None is another structure; an int's values are part of it)."""
from typing import Optional
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "test::capped_scale(x=[2, 37, 64], softcap=0.0, p=0.25, training=True)",
    "test::rescale(x=[3000], p=0.1, temperature=0.7)",
    "test::soft_cap(x=[3000], softcap=None, block=None)",
    "test::soft_cap(x=[3000], softcap=30.0, block=None)",
    "test::soft_cap(x=[3000], softcap=30.0, block=128)"]
LOG2E = 1.4426950408889634


@triton.jit
def capped_scale_kernel(x_ptr, out_ptr, n_rows, n_cols, softcap, keep,
                        DO_SOFTCAP: tl.constexpr, BLOCK_ROWS: tl.constexpr,
                        BLOCK_COLS: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    cols = tl.arange(0, BLOCK_COLS)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=0.0)
    if DO_SOFTCAP:
        x = softcap * (2 * tl.sigmoid(2 * x / softcap) - 1)
    tl.store(out_ptr + rows[:, None] * n_cols + cols[None, :], x * (1 - keep), mask=mask)


@torch.library.custom_op("test::capped_scale", mutates_args=())
def capped_scale(x: torch.Tensor, softcap: float, p: float, training: bool) -> torch.Tensor:
    assert 0.0 <= p < 1.0
    flat = x.reshape(-1, x.shape[-1])
    out = torch.empty_like(flat)
    n_rows, n_cols = flat.shape
    keep = p if training else 0.0
    capped_scale_kernel[(triton.cdiv(x.shape[0] * x.shape[1], 16),)](
        flat, out, n_rows, n_cols, softcap, keep, DO_SOFTCAP=softcap != 0, BLOCK_ROWS=16,
        BLOCK_COLS=64)
    return out.view_as(x)


@capped_scale.register_fake
def _(x, softcap, p, training):
    assert x.is_cuda
    torch._check(x.shape[2] <= 64)
    return torch.empty_like(x)


@triton.jit
def rescale_kernel(x_ptr, out_ptr, n, keep_scale, exp2_scale, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.exp2(x * exp2_scale) * keep_scale, mask=mask)


@torch.library.custom_op("test::rescale", mutates_args=())
def rescale(x: torch.Tensor, p: float, temperature: float) -> torch.Tensor:
    return torch.exp(x * temperature) / (1.0 - p)


@rescale.register_kernel("cuda")
def _(x, p, temperature):
    out = torch.empty_like(x)
    rescale_kernel[(triton.cdiv(x.numel(), 512),)](x, out, x.numel(), 1.0 / (1.0 - p),
                                                   temperature * LOG2E, BLOCK=512)
    return out


@rescale.register_fake
def _(x, p, temperature):
    return torch.empty_like(x)


@triton.jit
def soft_cap_kernel(x_ptr, out_ptr, n, cap, inverse, DO_CAP: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    if DO_CAP:
        x = cap * (2 * tl.sigmoid(2 * x * inverse) - 1)
    tl.store(out_ptr + offsets, x, mask=mask)


@torch.library.custom_op("test::soft_cap", mutates_args=())
def soft_cap(x: torch.Tensor, softcap: Optional[float] = None,
             block: Optional[int] = None) -> torch.Tensor:
    out = torch.empty_like(x)
    block = 512 if block is None else block
    cap = 0.0 if softcap is None else softcap
    inverse = 0.0 if softcap is None else 1.0 / softcap
    soft_cap_kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), cap, inverse,
                                                      DO_CAP=softcap is not None, BLOCK=block)
    return out


@soft_cap.register_fake
def _(x, softcap=None, block=None):
    return torch.empty_like(x)
