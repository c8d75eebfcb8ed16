"""Constexprs that take every size, as Liger-Kernel writes them (`n_cols: tl.constexpr`), a grid
of tiles over two extents (Triton's matmul tutorial: cdiv(M, BM) * cdiv(N, BN)) and a str
attribute with an empty default. A kernel that only computes with such a constexpr takes it at
run time; one that needs it at compile time (the extent of a tl.arange) is held at the example's
value, the plugin requiring the size that gives it."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["test::row_double(x=[3, 40])", "test::tile_copy(x=[70, 150])",
                       "test::static_row(x=[3, 32])"]


@triton.jit
def row_double_kernel(x_ptr, y_ptr, n_cols: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    tl.store(y_ptr + row * n_cols + cols, 2 * x, mask=mask)


@torch.library.custom_op("test::row_double", mutates_args=())
def row_double(x: torch.Tensor, label: str = "") -> torch.Tensor:
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    row_double_kernel[(n_rows,)](x, y, n_cols, BLOCK=triton.next_power_of_2(n_cols))
    return y


@row_double.register_fake
def _(x, label=""):
    torch._check(x.shape[1] <= 1024)
    return torch.empty_like(x)


@triton.jit
def tile_copy_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BN)
    rows = (pid // tiles_n) * BM + tl.arange(0, BM)
    cols = (pid % tiles_n) * BN + tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offsets = rows[:, None] * N + cols[None, :]
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


@torch.library.custom_op("test::tile_copy", mutates_args=())
def tile_copy(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty_like(x)
    grid = lambda META: (triton.cdiv(M, META["BM"]) * triton.cdiv(N, META["BN"]),)  # noqa: E731
    tile_copy_kernel[grid](x, y, M, N, BM=32, BN=64)
    return y


@tile_copy.register_fake
def _(x):
    return torch.empty_like(x)


@triton.jit
def static_row_kernel(x_ptr, y_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, N)
    tl.store(y_ptr + row * N + cols, tl.load(x_ptr + row * N + cols))


@torch.library.custom_op("test::static_row", mutates_args=())
def static_row(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    static_row_kernel[(x.shape[0],)](x, y, N=x.shape[1])
    return y


@static_row.register_fake
def _(x):
    return torch.empty_like(x)


@triton.jit
def row_double_block_first_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr, n_cols: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * n_cols + tl.arange(0, BLOCK)
    mask = tl.arange(0, BLOCK) < n_cols
    tl.store(y_ptr + offsets, 2 * tl.load(x_ptr + offsets, mask=mask), mask=mask)


@torch.library.custom_op("test::row_double_block_first", mutates_args=())
def row_double_block_first(x: torch.Tensor) -> torch.Tensor:
    """row_double with the block before the row length: the row length, which follows the block's
    variant at one sample per variant, is still a size taken at run time."""
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    row_double_block_first_kernel[(n_rows,)](x, y, BLOCK=triton.next_power_of_2(n_cols),
                                             n_cols=n_cols)
    return y


@row_double_block_first.register_fake
def _(x):
    torch._check(x.shape[1] <= 1024)
    return torch.empty_like(x)
