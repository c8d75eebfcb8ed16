"""`torch.max(x, dim, keepdim)` as a Torch-TensorRT-style custom op: a `dim: int` attribute that
may be negative (wrapped with `dim % x.ndim`, as ATen's `maybe_wrap_dim` does), a `keepdim: bool`
that changes the outputs' rank, and two outputs of different dtypes (the values in x's dtype, the
indices int64). The input is viewed as [outer, R, inner] around the reduced dimension; a 2-D grid
of (outer, tiles of inner) walks the reduced axis with a runtime loop."""
import math

import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "torchtrt_ex::max_dim(x=[4, 37, 50], dim=-2, keepdim=False)",
    "torchtrt_ex::max_dim(x=[4, 37, 50], dim=2, keepdim=True)",
]


@triton.jit
def max_dim_kernel(
    x_ptr, values_ptr, indices_ptr,
    R, inner,
    stride_outer, stride_r,
    BLOCK_INNER: tl.constexpr,
):
    pid_outer = tl.program_id(0).to(tl.int64)
    pid_inner = tl.program_id(1)
    offs = pid_inner * BLOCK_INNER + tl.arange(0, BLOCK_INNER)
    mask = offs < inner
    base = x_ptr + pid_outer * stride_outer + offs
    best = tl.full([BLOCK_INNER], float("-inf"), tl.float32)
    best_idx = tl.zeros([BLOCK_INNER], dtype=tl.int64)
    for r in range(0, R):
        v = tl.load(base + r * stride_r, mask=mask, other=float("-inf")).to(tl.float32)
        take = v > best
        best = tl.where(take, v, best)
        best_idx = tl.where(take, r, best_idx)
    out_off = pid_outer * inner + offs
    tl.store(values_ptr + out_off, best.to(values_ptr.dtype.element_ty), mask=mask)
    tl.store(indices_ptr + out_off, best_idx, mask=mask)


@torch.library.custom_op("torchtrt_ex::max_dim", mutates_args=())
def max_dim(x: torch.Tensor, dim: int = -1, keepdim: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    assert x.is_cuda, "Tensors must be on CUDA device."
    ndim = x.dim()
    assert -ndim <= dim < ndim, f"dim {dim} out of range for a tensor of rank {ndim}"
    dim = dim % ndim
    x = x.contiguous()
    outer = math.prod(x.shape[:dim])
    R = x.shape[dim]
    inner = math.prod(x.shape[dim + 1:])

    out_shape = list(x.shape)
    if keepdim:
        out_shape[dim] = 1
    else:
        del out_shape[dim]
    values = torch.empty(out_shape, dtype=x.dtype, device=x.device)
    indices = torch.empty(out_shape, dtype=torch.int64, device=x.device)

    BLOCK_INNER = min(triton.next_power_of_2(inner), 128)
    grid = (outer, triton.cdiv(inner, BLOCK_INNER))
    max_dim_kernel[grid](
        x, values, indices,
        R, inner,
        x.stride(dim - 1) if dim > 0 else R * inner, x.stride(dim),
        BLOCK_INNER=BLOCK_INNER,
    )
    return values, indices


@torch.library.register_fake("torchtrt_ex::max_dim")
def _(x, dim=-1, keepdim=False):
    dim = dim % x.dim()
    shape = list(x.shape)
    if keepdim:
        shape[dim] = 1
    else:
        del shape[dim]
    return x.new_empty(shape), x.new_empty(shape, dtype=torch.int64)


def max_dim_reference(x, dim=-1, keepdim=False):
    v, i = torch.max(x, dim=dim, keepdim=keepdim)
    return v, i
