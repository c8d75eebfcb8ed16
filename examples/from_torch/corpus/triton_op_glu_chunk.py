"""A gated linear unit over `x.chunk(2, dim=1)`, registered with `torch.library.triton_op` and
launched through `wrap_triton`: the kernel gets the two halves as views (the second starts
partway into the input) with their strides, as GLU and SwiGLU host code passes them. PyTorch
derives the fake from the host code, its `torch._check` included."""
import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton

AUTOPLUGIN_EXAMPLES = ["mylib::glu(x=[8, 512])"]


@triton.jit
def glu_kernel(a_ptr, b_ptr, out_ptr, stride_in, stride_out, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    a = tl.load(a_ptr + row * stride_in + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + row * stride_in + cols, mask=mask, other=0.0).to(tl.float32)
    out = a * tl.sigmoid(b)
    tl.store(out_ptr + row * stride_out + cols, out.to(out_ptr.dtype.element_ty), mask=mask)


@triton_op("mylib::glu", mutates_args={})
def glu(x: torch.Tensor) -> torch.Tensor:
    torch._check(x.shape[1] % 2 == 0, lambda: "glu halves dim 1: its size must be even")
    a, b = x.chunk(2, dim=1)
    out = torch.empty_like(a)
    rows, n_cols = a.shape

    def grid(meta):
        return (rows, triton.cdiv(n_cols, meta["BLOCK_SIZE"]))

    wrap_triton(glu_kernel)[grid](a, b, out, a.stride(0), out.stride(0), n_cols, BLOCK_SIZE=256)
    return out


def glu_reference(x):
    return F.glu(x, dim=1)
