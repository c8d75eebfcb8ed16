"""A row reduction with a 2-D grid and a min in its output shape: the maximum of each window of
`window` consecutive elements of a row (the whole row when the row is shorter than the window).

x [rows, cols] -> out [rows, cols - min(window, cols) + 1]; one program per (row, block of output
columns).
"""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["ex::row_window_max(x=[8, 40], window=5)"]


@triton.jit
def row_window_max_kernel(x_ptr, out_ptr, cols, out_cols, window, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    col = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = col < out_cols
    source = x_ptr + row * cols
    best = tl.full([BLOCK], float("-inf"), tl.float32)
    for k in range(0, window):
        value = tl.load(source + col + k, mask=mask, other=float("-inf")).to(tl.float32)
        best = tl.maximum(best, value)
    tl.store(out_ptr + row * out_cols + col, best.to(out_ptr.dtype.element_ty), mask=mask)


@torch.library.custom_op("ex::row_window_max", mutates_args=())
def row_window_max(x: torch.Tensor, window: int) -> torch.Tensor:
    rows, cols = x.shape
    width = min(window, cols)
    out = torch.empty((rows, cols - width + 1), device=x.device, dtype=x.dtype)
    block = 128
    grid = (rows, triton.cdiv(cols - width + 1, block))
    row_window_max_kernel[grid](x, out, cols, cols - width + 1, width, BLOCK=block)
    return out


@row_window_max.register_fake
def _(x, window):
    torch._check(window >= 1, lambda: "window must be at least 1")
    rows, cols = x.shape
    return x.new_empty((rows, cols - torch.sym_min(window, cols) + 1))
