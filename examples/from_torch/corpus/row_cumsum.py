"""Row-wise cumulative sum (last dimension) with tl.cumsum over a power-of-two block.

Written with torch.library.triton_op + wrap_triton, so that torch.compile can see the kernel.
Accumulates in float32 and writes the input dtype.
"""
import torch
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton

AUTOPLUGIN_EXAMPLES = ["modern::row_cumsum(x=[8, 300])"]


@triton.jit
def _row_cumsum_kernel(x_ptr, y_ptr, n_cols, stride_x, stride_y, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    y = tl.cumsum(x, axis=0)
    tl.store(y_ptr + row * stride_y + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton_op("modern::row_cumsum", mutates_args={})
def row_cumsum(x: torch.Tensor) -> torch.Tensor:
    n_cols = x.shape[-1]
    x2 = x.reshape(-1, n_cols)
    if x2.stride(-1) != 1:
        x2 = x2.contiguous()
    n_rows = x2.shape[0]
    y = torch.empty((n_rows, n_cols), dtype=x.dtype, device=x.device)
    BLOCK = triton.next_power_of_2(n_cols)
    if BLOCK > 8192:
        raise ValueError(f"row_cumsum handles rows of at most 8192 elements, got {n_cols}")
    num_warps = 4
    if BLOCK >= 2048:
        num_warps = 8
    if BLOCK >= 4096:
        num_warps = 16
    wrap_triton(_row_cumsum_kernel)[(n_rows,)](
        x2, y, n_cols, x2.stride(0), y.stride(0), BLOCK=BLOCK, num_warps=num_warps)
    return y.view(x.shape)


@row_cumsum.register_fake
def _(x):
    torch._check(x.shape[-1] <= 8192)
    return torch.empty_like(x)


def cumsum_reference(x):
    return torch.cumsum(x.float(), dim=-1).to(x.dtype)
