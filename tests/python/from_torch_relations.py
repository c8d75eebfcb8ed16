"""Relations between inputs. `matvec`'s fake names its parameters differently from the op (as
PyTorch allows) and checks a bound PyTorch would prove from its own assumptions; its host code
asserts that the inner extents agree (learned as a requirement). `vector_add`'s fake says only
"like x", and nothing says the kernel takes y shorter than x: the equality the example shows is
required, and reported. `add_same_shape`'s example has equal extents across axes ([64, 64, 130]):
its host code checks the shapes equal, axis by axis, and nothing more is required (not x[0] ==
y[1]). `rows_from_table`'s fake bounds the rows by the table's (`<=`): equal in the example, not
required equal."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["test::matvec(X=[5, 24], W=[24])", "test::vector_add(x=[300], y=[300])",
                       "test::add_same_shape(x=[64, 64, 130], y=[64, 64, 130])",
                       "test::rows_from_table(x=[16, 32], table=[16, 32])"]


@triton.jit
def matvec_kernel(x_ptr, w_ptr, out_ptr, k, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < k
    x = tl.load(x_ptr + row * k + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row, tl.sum(x * w, axis=0))


@torch.library.custom_op("test::matvec", mutates_args=())
def matvec(X: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    assert X.shape[1] == W.shape[0], "X's columns match W"
    out = torch.empty((X.shape[0],), dtype=X.dtype, device=X.device)
    matvec_kernel[(X.shape[0],)](X, W, out, X.shape[1], BLOCK=64)
    return out


@matvec.register_fake
def _(x, w):
    torch._check(x.shape[1] >= 2)
    torch._check(x.shape[1] <= 64)
    return x.new_empty((x.shape[0],))


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask)
             + tl.load(y_ptr + offsets, mask=mask), mask=mask)


@torch.library.custom_op("test::vector_add", mutates_args=())
def vector_add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = out.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out


@vector_add.register_fake
def _(x, y):
    return torch.empty_like(x)


@torch.library.custom_op("test::add_same_shape", mutates_args=())
def add_same_shape(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    assert x.shape == y.shape, "x and y have the same shape"
    out = torch.empty_like(x)
    n = out.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out


@add_same_shape.register_fake
def _(x, y):
    return torch.empty_like(x)


@triton.jit
def rows_from_table_kernel(x_ptr, table_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    t = tl.load(table_ptr + row * n_cols + cols, mask=mask)
    tl.store(out_ptr + row * n_cols + cols, x + t, mask=mask)


@torch.library.custom_op("test::rows_from_table", mutates_args=())
def rows_from_table(x: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    rows_from_table_kernel[(x.shape[0],)](x, table, out, x.shape[1], BLOCK=64)
    return out


@rows_from_table.register_fake
def _(x, table):
    torch._check(x.shape[0] <= table.shape[0])
    torch._check(x.shape[1] == table.shape[1])
    torch._check(x.shape[1] <= 64)
    return torch.empty_like(x)
