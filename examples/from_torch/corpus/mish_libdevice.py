"""Mish, `x * tanh(softplus(x))`, as a `torch.library.triton_op` launched through `wrap_triton`,
with an explicit fake: softplus with PyTorch's `threshold` (a float argument) computed with
`tl.math.exp2`/`libdevice.log1p`, the tanh from `tl.extra.cuda.libdevice`, `tl.where` for the
linear region, host code that flattens with `view(-1)` and returns `.view(*shape)`."""
import math

import torch
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton

AUTOPLUGIN_EXAMPLES = ["act::mish(x=[16, 77, 130], threshold=20.0)"]

LOG2E = math.log2(math.e)


@triton.jit
def _mish_kernel(x_ptr, y_ptr, n_elements, threshold, LOG2E: tl.constexpr,
                 BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    softplus = tl.where(x > threshold, x,
                        tl.extra.cuda.libdevice.log1p(tl.math.exp2(x * LOG2E)))
    y = x * tl.extra.cuda.libdevice.tanh(softplus)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton_op("act::mish", mutates_args=())
def mish(x: torch.Tensor, threshold: float = 20.0) -> torch.Tensor:
    shape = x.shape
    x_flat = x.contiguous().view(-1)
    y = torch.empty_like(x_flat)
    n_elements = x_flat.numel()
    BLOCK_SIZE = 2048

    def grid(meta):
        return (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)

    wrap_triton(_mish_kernel)[grid](x_flat, y, n_elements, threshold, LOG2E=LOG2E,
                                    BLOCK_SIZE=BLOCK_SIZE, num_warps=8)
    return y.view(*shape)


@mish.register_fake
def _(x, threshold=20.0):
    return torch.empty_like(x)


def mish_reference(x, threshold=20.0):
    xf = x.float()
    softplus = torch.nn.functional.softplus(xf, beta=1.0, threshold=threshold)
    return (xf * torch.tanh(softplus)).to(x.dtype)
