"""Host code whose fake states none of what it asserts, for the domain learner's unit tests
(test_from_torch_domain.py): an axis attribute within the input's rank, a view as (rows, groups,
-1), a block size dividing the rows, both extents multiples of a fixed block (`tiles`: each
learnt once, at 128, not also at a power of two below it), a sequence no longer than the cos
table, a multiple of 4,
any size at all, and a multiple of 3 (not learnt: a condition outside the learner's relations);
and host code that launches another kernel past a size (`by_width`: rows of up to 512 one way,
longer ones another; `by_at_least`: rows of 1024 or more one way, as FlagGems' mean over a
dim branches on `K >= 1024`, the example at 1024; `by_member`: a width asserted in a set, its
largest member one way, as fla's solve_tril launches other kernels per member; `by_either`: a condition on two sizes, one side of which always gives the
example's kernel; `by_thirds`: a multiple of 3 or not, which no threshold separates);
and constexprs no family recovers, held at the example's value (`bucketed`: a bucket of the
rows, `cdiv(B * S, 1024)`; `tapped`: a filter width the kernel unrolls over; `ordered`: an
axis order that changes where an extent is 1, as FlagGems' pointwise wrappers order strides, and
once a tensor past an int32 count of elements was seen, for good, as FlagGems regenerates them
then); and inputs of a
fixed size (`fixed_weights`: three weights and one bias, stated as those sizes however the
learner first separated the failures); and fewer indices than rows, strictly (`fewer_rows`, as
xFormers' index_select_cat checks); and kernels that run past a tensor where nothing else says
so (`table_rows`: rows of a table read through its row stride alone, x's width of each, and
multiplied by a @triton.jit helper that calls one of Triton's own, `tl.sigmoid`;
`pair_table`: a pair of reals per column, read as `2 * col + j` through the row stride, as
Liger's Llama 4 RoPE reads its frequencies; `table_writes`: the same table written;
`sections`: a table of 3 sections, each read at an offset x's sizes give, which section a
column reads following an int attribute, as Liger's M-RoPE reads its cos and sin); and host
code that takes no float32, at any size (`half_only`: the example itself fails)."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "test::pick_dim(x=[8, 64], dim=-1)",
    "test::grouped(x=[4, 64, 9], groups=8)",
    "test::block_quant(x=[16, 256], block=128)",
    "test::tiles(w=[4096, 512])",
    "test::rotary(q=[2, 100, 64], cos=[4096, 64])",
    "test::aligned(x=[8, 64])",
    "test::any_size(x=[8, 64])",
    "test::thirds(x=[8, 63])",
    "test::by_width(x=[8, 128])",
    "test::by_at_least(x=[8, 1024])",
    "test::by_member(x=[8, 64])",
    "test::by_either(x=[8, 128])",
    "test::by_thirds(x=[8, 128])",
    "test::bucketed(x=[2, 300, 64])",
    "test::tapped(x=[8, 64], w=[64, 4])",
    "test::ordered(x=[8, 1024])",
    "test::block_scales(x=[16, 1000], scales=[16, 8])",
    "test::head_sizes(x=[8, 128])",
    "test::fixed_weights(x=[8, 64], w=[3], b=[1])",
    "test::fewer_rows(x=[64, 8], rows=[16])",
    "test::table_rows(x=[8, 32], table=[16, 48])",
    "test::pair_table(x=[8, 32], table=[16, 32, 2])",
    "test::table_writes(x=[8, 32], table=[16, 48])",
    "test::sections(x=[64, 32], table=[3, 64, 32], split=8)",
    "test::half_only(x=[8, 64])",
]


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


def _copy(x):
    y = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y


@torch.library.custom_op("test::pick_dim", mutates_args=())
def pick_dim(x: torch.Tensor, dim: int) -> torch.Tensor:
    assert -x.ndim <= dim < x.ndim, "Invalid dim"
    return _copy(x)


@pick_dim.register_fake
def _(x, dim):
    return torch.empty_like(x)


@torch.library.custom_op("test::grouped", mutates_args=())
def grouped(x: torch.Tensor, groups: int) -> torch.Tensor:
    rows = x.view(x.shape[0], groups, -1).contiguous()
    return _copy(rows).view(x.shape)


@grouped.register_fake
def _(x, groups):
    return torch.empty_like(x)


@torch.library.custom_op("test::block_quant", mutates_args=())
def block_quant(x: torch.Tensor, block: int) -> torch.Tensor:
    assert x.size(-1) % block == 0
    return _copy(x)


@block_quant.register_fake
def _(x, block):
    return torch.empty_like(x)


@torch.library.custom_op("test::block_scales", mutates_args=())
def block_scales(x: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    assert x.shape[0] == scales.shape[0]
    assert triton.cdiv(x.shape[-1], 128) == scales.shape[-1]
    return _copy(x)


@block_scales.register_fake
def _(x, scales):
    return torch.empty_like(x)


@torch.library.custom_op("test::head_sizes", mutates_args=())
def head_sizes(x: torch.Tensor) -> torch.Tensor:
    assert x.shape[-1] in {16, 32, 64, 128, 256}
    return _copy(x)


@head_sizes.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("test::fixed_weights", mutates_args=())
def fixed_weights(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    assert w.shape[0] == 3, "three weights"
    assert b.numel() == 1, "one bias"
    return _copy(x)


@fixed_weights.register_fake
def _(x, w, b):
    return torch.empty_like(x)


@torch.library.custom_op("test::fewer_rows", mutates_args=())
def fewer_rows(x: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
    if not rows.shape[0] < x.shape[0]:
        raise ValueError("The number of indices cannot exceed the number of rows")
    return _copy(x)


@fewer_rows.register_fake
def _(x, rows):
    return torch.empty_like(x)


@torch.library.custom_op("test::tiles", mutates_args=())
def tiles(w: torch.Tensor) -> torch.Tensor:
    assert w.size(0) % 128 == 0 and w.size(1) % 128 == 0
    return _copy(w)


@tiles.register_fake
def _(w):
    return torch.empty_like(w)


@torch.library.custom_op("test::rotary", mutates_args=())
def rotary(q: torch.Tensor, cos: torch.Tensor) -> torch.Tensor:
    seq_len = q.shape[1]
    assert seq_len <= cos.shape[0]
    assert q.shape[-1] == cos.shape[-1]
    return _copy(q)


@rotary.register_fake
def _(q, cos):
    return torch.empty_like(q)


@torch.library.custom_op("test::aligned", mutates_args=())
def aligned(x: torch.Tensor) -> torch.Tensor:
    assert x.shape[-1] % 4 == 0
    return _copy(x)


@aligned.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("test::any_size", mutates_args=())
def any_size(x: torch.Tensor) -> torch.Tensor:
    return _copy(x)


@any_size.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("test::thirds", mutates_args=())
def thirds(x: torch.Tensor) -> torch.Tensor:
    assert x.shape[-1] % 3 == 0
    return _copy(x)


@thirds.register_fake
def _(x):
    return torch.empty_like(x)


@triton.jit
def row_copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * n + tl.arange(0, BLOCK)
    mask = tl.arange(0, BLOCK) < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


@torch.library.custom_op("test::by_width", mutates_args=())
def by_width(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] <= 512:
        y = torch.empty_like(x)
        row_copy_kernel[(x.shape[0],)](x, y, x.shape[-1], BLOCK=triton.next_power_of_2(x.shape[-1]))
        return y
    return _copy(x)


@by_width.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("test::by_at_least", mutates_args=())
def by_at_least(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] >= 1024:
        return _copy(x)
    y = torch.empty_like(x)
    row_copy_kernel[(x.shape[0],)](x, y, x.shape[-1], BLOCK=triton.next_power_of_2(x.shape[-1]))
    return y


@by_at_least.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("test::by_member", mutates_args=())
def by_member(x: torch.Tensor) -> torch.Tensor:
    assert x.shape[-1] in [16, 32, 64]
    if x.shape[-1] == 64:
        return _copy(x)
    y = torch.empty_like(x)
    row_copy_kernel[(x.shape[0],)](x, y, x.shape[-1], BLOCK=x.shape[-1])
    return y


@by_member.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("test::by_either", mutates_args=())
def by_either(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] > 64 or x.shape[0] < 100:
        return _copy(x)
    y = torch.empty_like(x)
    row_copy_kernel[(x.shape[0],)](x, y, x.shape[-1], BLOCK=triton.next_power_of_2(x.shape[-1]))
    return y


@by_either.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("test::by_thirds", mutates_args=())
def by_thirds(x: torch.Tensor) -> torch.Tensor:
    if x.shape[-1] % 3:
        return _copy(x)
    y = torch.empty_like(x)
    row_copy_kernel[(x.shape[0],)](x, y, x.shape[-1], BLOCK=triton.next_power_of_2(x.shape[-1]))
    return y


@by_thirds.register_fake
def _(x):
    return torch.empty_like(x)


@triton.jit
def bucket_copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, NB: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * NB, mask=mask)


@torch.library.custom_op("test::bucketed", mutates_args=())
def bucketed(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    rows = x.shape[0] * x.shape[1]
    bucket_copy_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256,
                                                       NB=triton.cdiv(rows, 1024))
    return y


@bucketed.register_fake
def _(x):
    return torch.empty_like(x)


@triton.jit
def taps_kernel(x_ptr, w_ptr, y_ptr, n_cols, W: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    total = tl.zeros([BLOCK], dtype=tl.float32)
    for tap in tl.static_range(W):
        total += tl.load(w_ptr + cols * W + tap, mask=mask)
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    tl.store(y_ptr + row * n_cols + cols, x * total, mask=mask)


@torch.library.custom_op("test::tapped", mutates_args=())
def tapped(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    taps_kernel[(x.shape[0],)](x, w, y, x.shape[1], W=w.shape[1],
                               BLOCK=triton.next_power_of_2(x.shape[1]))
    return y


@tapped.register_fake
def _(x, w):
    return torch.empty_like(x)


@triton.jit
def ordered_copy_kernel(x_ptr, y_ptr, n, ORDER: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


_SEEN_PAST_INT32 = []


@torch.library.custom_op("test::ordered", mutates_args=())
def ordered(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    if x.numel() >= 2 ** 31:
        _SEEN_PAST_INT32.append(x.shape)
    order = (0 if x.shape[1] == 1 else 1) + (2 if _SEEN_PAST_INT32 else 0)
    ordered_copy_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), ORDER=order, BLOCK=256)
    return y


@ordered.register_fake
def _(x):
    return torch.empty_like(x)


@triton.jit
def _product(a, b):
    return a * tl.sigmoid(b)


@triton.jit
def table_rows_kernel(x_ptr, table_ptr, y_ptr, n_cols, table_row_stride, PAIRS: tl.constexpr,
                      WRITE: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols and cols >= 0  # `and` on tensors: element-wise, as compiled
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    if WRITE:
        tl.store(table_ptr + row * table_row_stride + cols, x, mask=mask)
        tl.store(y_ptr + row * n_cols + cols, x, mask=mask)
    elif PAIRS:
        real = tl.load(table_ptr + row * table_row_stride + 2 * cols, mask=mask)
        imag = tl.load(table_ptr + row * table_row_stride + 2 * cols + 1, mask=mask)
        tl.store(y_ptr + row * n_cols + cols, x * real - x * imag, mask=mask)
    else:
        t = tl.load(table_ptr + row * table_row_stride + cols, mask=mask)
        tl.store(y_ptr + row * n_cols + cols, _product(x, t), mask=mask)


def _with_table(x, table, pairs=False, write=False):
    y = torch.empty_like(x)
    table_rows_kernel[(x.shape[0],)](x, table, y, x.shape[1], table.stride(0), PAIRS=pairs,
                                     WRITE=write, BLOCK=triton.next_power_of_2(x.shape[1]))
    return y


@torch.library.custom_op("test::table_rows", mutates_args=())
def table_rows(x: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    return _with_table(x, table)


@table_rows.register_fake
def _(x, table):
    return torch.empty_like(x)


@torch.library.custom_op("test::pair_table", mutates_args=())
def pair_table(x: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    return _with_table(x, table, pairs=True)


@pair_table.register_fake
def _(x, table):
    return torch.empty_like(x)


@torch.library.custom_op("test::table_writes", mutates_args=("table",))
def table_writes(x: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    return _with_table(x, table, write=True)


@table_writes.register_fake
def _(x, table):
    return torch.empty_like(x)


@triton.jit
def sections_kernel(x_ptr, table_ptr, y_ptr, n_rows, n_cols, split, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=inside)
    section = n_rows * n_cols
    first = tl.load(table_ptr + row * n_cols + cols, mask=inside & (cols < split), other=0.0)
    second = tl.load(table_ptr + section + row * n_cols + cols,
                     mask=inside & (cols >= split) & (cols < 2 * split), other=0.0)
    third = tl.load(table_ptr + 2 * section + row * n_cols + cols,
                    mask=inside & (cols >= 2 * split), other=0.0)
    tl.store(y_ptr + row * n_cols + cols, x * (first + second + third), mask=inside)


@torch.library.custom_op("test::sections", mutates_args=())
def sections(x: torch.Tensor, table: torch.Tensor, split: int) -> torch.Tensor:
    y = torch.empty_like(x)
    sections_kernel[(x.shape[0],)](x, table, y, x.shape[0], x.shape[1], split,
                                   BLOCK=triton.next_power_of_2(x.shape[1]))
    return y


@sections.register_fake
def _(x, table, split):
    torch._check(table.shape[1] == x.shape[0])
    torch._check(table.shape[2] == x.shape[1])
    return torch.empty_like(x)


@torch.library.custom_op("test::half_only", mutates_args=())
def half_only(x: torch.Tensor) -> torch.Tensor:
    if x.dtype != torch.float16:
        raise ValueError(f"dtype={x.dtype} (supported: float16)")
    return _copy(x)


@half_only.register_fake
def _(x):
    return torch.empty_like(x)
