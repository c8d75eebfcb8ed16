"""A row argmax in the style of Torch-TensorRT's tutorials with PyTorch's `triton_op`: the op is
registered with `torch.library.triton_op` and launches through `wrap_triton` (no fake written:
PyTorch derives it), asserts its input is on CUDA, and returns int64 indices (a dtype other than
the input's) over the last dimension, with a `keepdim: bool = False` attribute that changes the
output's rank."""
import torch
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton

AUTOPLUGIN_EXAMPLES = [
    "torchtrt_ex::argmax_lastdim(x=[4, 33, 1000], keepdim=False)",
    "torchtrt_ex::argmax_lastdim(x=[4, 33, 1000], keepdim=True)",
]


@triton.jit
def row_argmax_kernel(x_ptr, out_ptr, n_cols, x_row_stride, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_cols
    x = tl.load(x_ptr + row * x_row_stride + offsets, mask=mask, other=float("-inf"))
    index = tl.argmax(x, axis=0, tie_break_left=True)
    tl.store(out_ptr + row, index.to(tl.int64))


@triton_op("torchtrt_ex::argmax_lastdim", mutates_args={})
def argmax_lastdim(x: torch.Tensor, keepdim: bool = False) -> torch.Tensor:
    assert x.is_cuda, "x must be on a CUDA device"
    n_cols = x.shape[-1]
    rows = x.reshape(-1, n_cols)
    n_rows = rows.shape[0]
    out = torch.empty(n_rows, dtype=torch.int64, device=x.device)
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8 if BLOCK_SIZE >= 4096 else 4
    wrap_triton(row_argmax_kernel)[(n_rows,)](
        rows, out, n_cols, rows.stride(0), BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    if keepdim:
        return out.view(*x.shape[:-1], 1)
    return out.view(x.shape[:-1])


def argmax_reference(x, keepdim=False):
    return torch.argmax(x, dim=-1, keepdim=keepdim)
