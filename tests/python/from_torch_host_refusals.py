"""Host code from-torch refuses, each with the line and what to change: `aligned_copy` asserts a
condition its fake does not state and that from-torch does not learn (a multiple of 3: it learns
multiples of powers of two and relations between sizes), so the plugin would accept sizes the
host code rejects;
`upcast_copy` passes its kernel a tensor it computes (`x.float()`), which a plugin cannot make;
`row_sums_total` returns what PyTorch computes after its kernel (a sum), `shifted_copy` starts its
output as what PyTorch computes (`x + 1`), `scaled_copy` scales its output with PyTorch after its
kernel: a plugin runs the kernels only (a layout changed with PyTorch is copied by the plugin's
own kernel instead: from_torch_layouts.py); `head_set_copy`'s fake allows a set of 32 sizes
(`in range(8, 257, 8)`), which its trace turns into the example's size, and which is too many
to compile a variant each (a set of up to 16, as attention kernels' head sizes, is);
`rows_by_element_size` runs one block per row up to `65536 // x.element_size()` columns and a
loop over blocks past it (Liger's softmax): with float16 first in --dtypes, float32 would get
float16's limit."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["test::aligned_copy(x=[8, 63])", "test::upcast_copy(x=[8, 64])",
                       "test::row_sums_total(x=[8, 64])", "test::shifted_copy(x=[8, 64])",
                       "test::scaled_copy(x=[8, 64])", "test::head_set_copy(x=[8, 64])",
                       "test::unless_one(x=[8, 64], g=[])",
                       "test::rows_by_element_size(x=[8, 1000])"]


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


@torch.library.custom_op("test::aligned_copy", mutates_args=())
def aligned_copy(x: torch.Tensor) -> torch.Tensor:
    assert x.shape[-1] % 3 == 0, "rows of a multiple of 3"
    y = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y


@aligned_copy.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("test::upcast_copy", mutates_args=())
def upcast_copy(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty(x.shape, dtype=torch.float32, device=x.device)
    copy_kernel[(triton.cdiv(x.numel(), 256),)](x.float(), y, x.numel(), BLOCK=256)
    return y


@upcast_copy.register_fake
def _(x):
    return x.new_empty(x.shape, dtype=torch.float32)


@torch.library.custom_op("test::row_sums_total", mutates_args=())
def row_sums_total(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y.sum()


@row_sums_total.register_fake
def _(x):
    return x.new_empty(())


@torch.library.custom_op("test::shifted_copy", mutates_args=())
def shifted_copy(x: torch.Tensor) -> torch.Tensor:
    y = x + 1
    copy_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y


@shifted_copy.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("test::scaled_copy", mutates_args=())
def scaled_copy(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    y.mul_(2)
    return y


@scaled_copy.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("test::head_set_copy", mutates_args=())
def head_set_copy(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y


@head_set_copy.register_fake
def _(x):
    torch._check(x.shape[-1] in range(8, 257, 8))
    return torch.empty_like(x)


@torch.library.custom_op("test::unless_one", mutates_args=())
def unless_one(x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    if torch.equal(g, torch.tensor(1.0, device=g.device)):  # Liger's shortcut
        y.copy_(x)
        return y
    copy_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y


@unless_one.register_fake
def _(x, g):
    return torch.empty_like(x)


@triton.jit
def row_block_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    row = tl.program_id(0) * n_cols
    mask = cols < n_cols
    tl.store(y_ptr + row + cols, tl.load(x_ptr + row + cols, mask=mask), mask=mask)


@triton.jit
def row_loop_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0) * n_cols
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        tl.store(y_ptr + row + cols, tl.load(x_ptr + row + cols, mask=cols < n_cols),
                 mask=cols < n_cols)


@torch.library.custom_op("test::rows_by_element_size", mutates_args=())
def rows_by_element_size(x: torch.Tensor) -> torch.Tensor:
    rows, n_cols = x.shape
    out = torch.empty_like(x)
    limit = 65536 // x.element_size()
    block = triton.next_power_of_2(n_cols)
    if block <= limit:
        row_block_kernel[(rows,)](x, out, n_cols, BLOCK=block)
    else:
        row_loop_kernel[(rows,)](x, out, n_cols, BLOCK=limit)
    return out


@rows_by_element_size.register_fake
def _(x):
    return torch.empty_like(x)
