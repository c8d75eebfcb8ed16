"""Flags and floats host code computes from float and bool attributes (Unsloth's softcapping
switch, dropout's `p if training else 0.0`, an assert on a probability's range), rows of a
flattened batch tiled by a block of rows, and a fake that asserts it runs on the GPU."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "test::capped_scale(x=[2, 37, 64], softcap=0.0, p=0.25, training=True)"]


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
