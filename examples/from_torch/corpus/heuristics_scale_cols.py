"""Scales each column of a matrix by a per-column factor. `@triton.heuristics` derives EVEN_N
(the row length is a multiple of the block) from the arguments, and the kernel drops the bounds
mask when it holds, as Triton's flash-attention and matmul kernels do with EVEN_M/EVEN_N."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["mylib::scale_cols(x=[64, 1024], scale=[1024])",
                       "mylib::scale_cols(x=[64, 1000], scale=[1000])"]


@triton.heuristics({"EVEN_N": lambda args: args["N"] % args["BLOCK_N"] == 0})
@triton.jit
def _scale_cols_kernel(X, S, Y, M, N, stride_xm, stride_ym, BLOCK_N: tl.constexpr,
                       EVEN_N: tl.constexpr):
    row = tl.program_id(0)
    start = tl.program_id(1) * BLOCK_N
    cols = start + tl.arange(0, BLOCK_N)
    if EVEN_N:
        x = tl.load(X + row * stride_xm + cols)
        s = tl.load(S + cols)
        tl.store(Y + row * stride_ym + cols, x * s)
    else:
        mask = cols < N
        x = tl.load(X + row * stride_xm + cols, mask=mask, other=0.0)
        s = tl.load(S + cols, mask=mask, other=0.0)
        tl.store(Y + row * stride_ym + cols, x * s, mask=mask)


@torch.library.custom_op("mylib::scale_cols", mutates_args=())
def scale_cols(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    assert scale.shape[0] == N, "one scale per column"
    y = torch.empty_like(x)
    BLOCK_N = 128
    _scale_cols_kernel[(M, triton.cdiv(N, BLOCK_N))](x, scale, y, M, N, x.stride(0), y.stride(0),
                                                     BLOCK_N=BLOCK_N)
    return y


@scale_cols.register_fake
def _(x, scale):
    torch._check(scale.shape[0] == x.shape[1])
    return torch.empty_like(x)


def scale_cols_reference(x, scale):
    return x * scale
