"""Differences of neighbouring elements along the last dimension (out[..., i] = x[..., i + 1] -
x[..., i]), one program per row. The fake checks with `torch._check` that rows have at least two
elements, so that the output is never empty."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["mylib::adjacent_diff(x=[6, 50, 129])"]


@triton.jit
def _adjacent_diff_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    for start in range(0, n_cols - 1, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols - 1
        left = tl.load(x_ptr + row * n_cols + cols, mask=mask)
        right = tl.load(x_ptr + row * n_cols + cols + 1, mask=mask)
        tl.store(out_ptr + row * (n_cols - 1) + cols, right - left, mask=mask)


@torch.library.custom_op("mylib::adjacent_diff", mutates_args=())
def adjacent_diff(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    n_cols = x.shape[-1]
    n_rows = x.numel() // n_cols
    out = torch.empty((*x.shape[:-1], n_cols - 1), dtype=x.dtype, device=x.device)
    _adjacent_diff_kernel[(n_rows,)](x, out, n_cols, BLOCK=256)
    return out


@adjacent_diff.register_fake
def _(x):
    torch._check(x.shape[-1] >= 2, lambda: "adjacent_diff needs at least two elements per row")
    return x.new_empty((*x.shape[:-1], x.shape[-1] - 1))


def adjacent_diff_reference(x):
    return x.diff(dim=-1)
