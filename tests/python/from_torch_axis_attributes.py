"""Int attributes whose values the fake branches on: an axis (`amax_dim`: `del shape[dim]`, the
examples give dim -1 and 0), a permutation (`permute3d`), and an attribute the fake pins to 1
(`shift_one`: `torch._check(k == 1)`), two axes traced at one value (`transpose_copy`: dims 1
and 2, both traced away from 0 and 1 at 2), and an axis only the host code reads (`row_sum_dim`:
the fake keeps the shape; the launch's row length is `x.shape[dim]`), and a keepdim the examples
give one value of (`sum_rows`). Each is part of the structure, as a string is: the plugin takes
the examples' values of it, and the other value of a bool or the other axes of an axis."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["test::amax_dim(x=[6, 40, 24], dim=-1)",
                       "test::amax_dim(x=[6, 40, 24], dim=0)",
                       "test::permute3d(x=[4, 5, 6], dims=[0, 2, 1])",
                       "test::shift_one(x=[300], k=1)",
                       "test::transpose_copy(x=[3, 40, 70], dim0=1, dim1=2)",
                       "test::row_sum_dim(x=[6, 40, 24], dim=-1)",
                       "test::row_sum_dim(x=[6, 40, 24], dim=0)",
                       "test::sum_rows(x=[64, 300], keepdim=False)"]


@triton.jit
def amax_kernel(x_ptr, out_ptr, inner, stride_outer, stride_r, R, BLOCK_R: tl.constexpr):
    outer = tl.program_id(0)
    i = tl.program_id(1)
    r = tl.arange(0, BLOCK_R)
    values = tl.load(x_ptr + outer * stride_outer + r * stride_r + i, mask=r < R,
                     other=-float("inf"))
    tl.store(out_ptr + outer * inner + i, tl.max(values, axis=0))


@torch.library.custom_op("test::amax_dim", mutates_args=())
def amax_dim(x: torch.Tensor, dim: int) -> torch.Tensor:
    dim = dim % x.ndim
    outer = 1
    for extent in x.shape[:dim]:
        outer *= extent
    inner = 1
    for extent in x.shape[dim + 1:]:
        inner *= extent
    R = x.shape[dim]
    shape = list(x.shape)
    del shape[dim]
    out = torch.empty(shape, dtype=x.dtype, device=x.device)
    amax_kernel[(outer, inner)](x, out, inner, R * inner, inner, R,
                                BLOCK_R=triton.next_power_of_2(R))
    return out


@amax_dim.register_fake
def _(x, dim):
    torch._check(-x.ndim <= dim < x.ndim)
    shape = list(x.shape)
    del shape[dim % x.ndim]
    return x.new_empty(shape)


@triton.jit
def permute_kernel(x_ptr, out_ptr, n, d1, d2, s0, s1, s2, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    i0 = offsets // (d1 * d2)
    i1 = (offsets // d2) % d1
    i2 = offsets % d2
    tl.store(out_ptr + offsets, tl.load(x_ptr + i0 * s0 + i1 * s1 + i2 * s2, mask=mask),
             mask=mask)


@torch.library.custom_op("test::permute3d", mutates_args=())
def permute3d(x: torch.Tensor, dims: list[int]) -> torch.Tensor:
    out = torch.empty([x.shape[d] for d in dims], dtype=x.dtype, device=x.device)
    n = out.numel()
    permute_kernel[(triton.cdiv(n, 512),)](x, out, n, out.shape[1], out.shape[2],
                                           x.stride(dims[0]), x.stride(dims[1]),
                                           x.stride(dims[2]), BLOCK=512)
    return out


@permute3d.register_fake
def _(x, dims):
    return x.permute(dims).contiguous()


@triton.jit
def shift_kernel(x_ptr, out_ptr, n, k, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + k, mask=mask)


@torch.library.custom_op("test::shift_one", mutates_args=())
def shift_one(x: torch.Tensor, k: int) -> torch.Tensor:
    out = torch.empty_like(x)
    shift_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), k, BLOCK=256)
    return out


@shift_one.register_fake
def _(x, k):
    torch._check(k == 1)
    return torch.empty_like(x)


@torch.library.custom_op("test::transpose_copy", mutates_args=())
def transpose_copy(x: torch.Tensor, dim0: int, dim1: int) -> torch.Tensor:
    dims = [0, 1, 2]
    dims[dim0], dims[dim1] = dims[dim1], dims[dim0]
    out = torch.empty([x.shape[d] for d in dims], dtype=x.dtype, device=x.device)
    n = out.numel()
    permute_kernel[(triton.cdiv(n, 512),)](x, out, n, out.shape[1], out.shape[2],
                                           x.stride(dims[0]), x.stride(dims[1]),
                                           x.stride(dims[2]), BLOCK=512)
    return out


@transpose_copy.register_fake
def _(x, dim0, dim1):
    return x.transpose(dim0, dim1).contiguous()


@triton.jit
def running_sum_kernel(x_ptr, out_ptr, inner, R, BLOCK_R: tl.constexpr):
    outer = tl.program_id(0) // inner
    i = tl.program_id(0) % inner
    r = tl.arange(0, BLOCK_R)
    base = outer * R * inner + i
    values = tl.load(x_ptr + base + r * inner, mask=r < R, other=0.0)
    tl.store(out_ptr + base + r * inner, tl.cumsum(values, axis=0), mask=r < R)


@torch.library.custom_op("test::row_sum_dim", mutates_args=())
def row_sum_dim(x: torch.Tensor, dim: int) -> torch.Tensor:
    """A running sum along `dim` (torch.cumsum)."""
    R = x.shape[dim]
    inner = x.stride(dim)
    out = torch.empty_like(x)
    running_sum_kernel[(x.numel() // R,)](x, out, inner, R, BLOCK_R=triton.next_power_of_2(R))
    return out


@row_sum_dim.register_fake
def _(x, dim):
    torch._check(-x.dim() <= dim < x.dim())
    return torch.empty_like(x)


@triton.jit
def sum_rows_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + offsets, mask=offsets < n_cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(x, axis=0))


@torch.library.custom_op("test::sum_rows", mutates_args=())
def sum_rows(x: torch.Tensor, keepdim: bool = False) -> torch.Tensor:
    rows, cols = x.shape
    y = torch.empty((rows, 1) if keepdim else (rows,), device=x.device, dtype=x.dtype)
    sum_rows_kernel[(rows,)](x, y, cols, BLOCK=triton.next_power_of_2(cols))
    return y


@sum_rows.register_fake
def _(x, keepdim=False):
    return x.new_empty((x.shape[0], 1) if keepdim else (x.shape[0],))
