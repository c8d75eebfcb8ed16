"""A row softmax in the style of Triton's fused-softmax tutorial: BLOCK_SIZE is the next power of
two of the row length and num_warps is chosen from it; MODE is a string constexpr from a `str`
attribute and LOG a bool constexpr from a `bool` attribute. The host code refuses rows past 8192
as Liger-style code does. A test module for from-torch's constexpr families."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_softmax_kernel(x_ptr, y_ptr, n_cols, scale, BLOCK_SIZE: tl.constexpr, MODE: tl.constexpr,
                       LOG: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf")) * scale
    if MODE == "shifted":
        x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    y = e / tl.sum(e, axis=0)
    if LOG:
        y = tl.log(y)
    tl.store(y_ptr + row * n_cols + cols, y, mask=mask)


def settings(n_cols):
    block = triton.next_power_of_2(n_cols)
    if block > 8192:
        raise RuntimeError(f"rows of {n_cols} do not fit in one block")
    num_warps = 4
    if block >= 4096:
        num_warps = 16
    elif block >= 1024:
        num_warps = 8
    return block, num_warps


@torch.library.custom_op("family::row_softmax", mutates_args=())
def row_softmax(x: torch.Tensor, scale: float, mode: str, log: bool) -> torch.Tensor:
    rows, n_cols = x.shape
    block, num_warps = settings(n_cols)
    y = torch.empty_like(x)
    row_softmax_kernel[(rows,)](x, y, n_cols, scale, BLOCK_SIZE=block, MODE=mode, LOG=log,
                                num_warps=num_warps)
    return y


@row_softmax.register_fake
def _(x, scale, mode, log):
    return torch.empty_like(x)


AUTOPLUGIN_EXAMPLES = ["family::row_softmax(x=[4, 1000], scale=0.5, mode='shifted', log=False)"]
