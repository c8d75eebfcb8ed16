"""Row-wise softmax fused into one kernel, in the style of Triton's fused-softmax tutorial: one
program per row, the whole row in one block (BLOCK_SIZE is the next power of two of the row
length) and the number of warps chosen from the block size."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["tutorial::softmax(x=[64, 781])"]


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    input_ptrs = row_start_ptr + col_offsets
    mask = col_offsets < n_cols
    row = tl.load(input_ptrs, mask=mask, other=-float("inf")).to(tl.float32)
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * output_row_stride
    tl.store(output_row_start_ptr + col_offsets,
             softmax_output.to(output_ptr.dtype.element_ty), mask=mask)


@torch.library.custom_op("tutorial::softmax", mutates_args=())
def softmax(x: torch.Tensor) -> torch.Tensor:
    n_rows, n_cols = x.shape
    # The block size is the smallest power of two greater than the number of columns.
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    # More warps for longer rows: the reduction is spread over more threads.
    num_warps = 4
    if BLOCK_SIZE >= 2048:
        num_warps = 8
    if BLOCK_SIZE >= 4096:
        num_warps = 16
    y = torch.empty_like(x)
    softmax_kernel[(n_rows,)](
        y,
        x,
        x.stride(0),
        y.stride(0),
        n_cols,
        num_warps=num_warps,
        BLOCK_SIZE=BLOCK_SIZE,
    )
    return y


@softmax.register_fake
def _(x):
    return torch.empty_like(x)


def naive_softmax(x):
    """Eager PyTorch, for comparison (computed in float32 like the kernel)."""
    return torch.softmax(x.float(), dim=-1).to(x.dtype)
