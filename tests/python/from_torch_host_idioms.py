"""Host-code idioms of Python custom ops that from-torch converts as written: a kernel with
`do_not_specialize`, constexpr defaults the launch leaves out, the device's capability read in
the host code, `torch.empty_strided`, `new_empty`/`new_zeros` buffers, a `Sequence[int]`
permutation, `device_types="cuda"`, a launch by keywords with `math.prod`, a body wrapped by
a `functools.wraps` decorator (Liger's `ensure_contiguous`), a block whose cap changes with
the size (Liger's DyT: 1024 below 4096 columns, 2048 from there), a constexpr that follows a
power of two listed after it (Mamba's BLOCK_SIZE_M), and FlagGems' ways: a kernel kept by the
host code and launched again with the arguments but the constexprs (its LibEntry cache), a
block that drops at a size (`next_power_of_2(n)` up to 32768, 4096 above) and a bool
constexpr `TILE_N >= N`; float8 bytes held as int8, written through a float8 view (SGLang's
quantization for runtimes without float8 tensors); and a heuristic `K % BLOCK_K == 0` beside
another constant block that the samples cannot tell from it (Triton's matmul's EVEN_K); and
grouped-query attention's query heads per key head, one extent divided by another; and a bool
attribute whose other value takes a branch that does not convert (SGLang's column-major scales,
a transposed view); and a grid over the heads of two inputs (vLLM's rotary embedding: query
heads, then key heads); and a reflection pad whose fake is F.pad's own (its requirements are
bounds: each padded extent longer than its padding) with a block of the padded width, which
converts with the padding held at the example's value; and DyT's own grid, tiles of its block
that changes with the size (`cdiv(n, BLOCK)`), which samples missing the middle step cannot
tell from tiles of 2048."""
import functools
import math
from typing import List, Sequence

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["test::no_specialize(x=[300, 70], scale=0.5)",
                       "test::default_block(x=[1000])",
                       "test::by_capability(x=[1000])",
                       "test::two_buffers(x=[64, 48])",
                       "test::permuted(x=[4, 6, 8], dims=[0, 2, 1])",
                       "test::by_keywords(x=[4, 33, 70], k=3)",
                       "test::two_caps(x=[64, 1000])",
                       "test::rows_first(x=[64, 300])",
                       "test::cached_tiles(x=[16, 1000])",
                       "test::fp8_bytes(x=[8, 256])",
                       "test::even_k(a=[64, 384])",
                       "test::grouped_heads(q=[2, 32, 64], k=[2, 8, 64])",
                       "test::row_scales(x=[16, 256])",
                       "test::both_heads(q=[8, 256], k=[8, 64], head_size=32)",
                       "test::reflect_rows(x=[8, 300], padding=[2, 3])",
                       "test::tiled_caps(x=[4, 768])"]


@triton.jit(do_not_specialize=["n"])
def scale_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * scale, mask=mask)


@torch.library.custom_op("test::no_specialize", mutates_args=(), device_types="cuda")
def no_specialize(x: torch.Tensor, scale: float) -> torch.Tensor:
    out = torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device=x.device)
    scale_kernel[(triton.cdiv(x.numel(), 512),)](x, out, x.numel(), scale, BLOCK=512)
    return out


@no_specialize.register_fake
def _(x, scale):
    return torch.empty_like(x)


@triton.jit
def times_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr = 256, FACTOR: tl.constexpr = 3):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * FACTOR, mask=mask)


@torch.library.custom_op("test::default_block", mutates_args=())
def default_block(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    times_kernel[(triton.cdiv(x.numel(), 256),)](x, out, x.numel())
    return out


@default_block.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("test::by_capability", mutates_args=())
def by_capability(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    major, _ = torch.cuda.get_device_capability(x.device)
    block = 1024 if major >= 9 else 512
    scale_kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), 1.0, BLOCK=block)
    return out


@by_capability.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("test::two_buffers", mutates_args=())
def two_buffers(x: torch.Tensor) -> torch.Tensor:
    twice = x.new_empty(x.shape)
    out = x.new_zeros(x.shape)
    scale_kernel[(triton.cdiv(x.numel(), 256),)](x, twice, x.numel(), 2.0, BLOCK=256)
    scale_kernel[(triton.cdiv(x.numel(), 256),)](twice, out, x.numel(), 3.0, BLOCK=256)
    return out


@two_buffers.register_fake
def _(x):
    return torch.empty_like(x)


@triton.jit
def gather3_kernel(x_ptr, out_ptr, s0, s1, s2, n1, n2, BLOCK: tl.constexpr):
    i = tl.program_id(0)
    j = tl.program_id(1)
    k = tl.arange(0, BLOCK)
    mask = k < n2
    value = tl.load(x_ptr + i * s0 + j * s1 + k * s2, mask=mask)
    tl.store(out_ptr + (i * n1 + j) * n2 + k, value, mask=mask)


@torch.library.custom_op("test::permuted", mutates_args=())
def permuted(x: torch.Tensor, dims: Sequence[int]) -> torch.Tensor:
    view = x.permute(*dims)
    out = torch.empty(view.shape, dtype=x.dtype, device=x.device)
    gather3_kernel[(view.shape[0], view.shape[1])](x, out, view.stride(0), view.stride(1),
                                                   view.stride(2), view.shape[1], view.shape[2],
                                                   BLOCK=triton.next_power_of_2(view.shape[2]))
    return out


@permuted.register_fake
def _(x, dims):
    torch._check(x.shape[dims[2]] <= 1024)
    return x.new_empty([x.shape[d] for d in dims])


def ensure_contiguous(function):
    # Liger's: the first argument taken by position (its autograd ctx), so the body must be
    # called as PyTorch calls it, not by keywords
    @functools.wraps(function)
    def wrapper(first, *args, **kwargs):
        args = [a.contiguous() if isinstance(a, torch.Tensor) else a for a in args]
        kwargs = {k: v.contiguous() if isinstance(v, torch.Tensor) else v
                  for k, v in kwargs.items()}
        return function(first.contiguous(), *args, **kwargs)
    return wrapper


@triton.jit
def row_scale_kernel(x_ptr, out_ptr, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    tl.store(out_ptr + row * n_cols + cols, x * scale, mask=mask)


@torch.library.custom_op("test::by_keywords", mutates_args=())
@ensure_contiguous
def by_keywords(x: torch.Tensor, k: int) -> torch.Tensor:
    out = torch.empty_like(x)
    rows = math.prod(x.size()[:-1])
    row_scale_kernel[(rows,)](x_ptr=x, out_ptr=out, n_cols=x.size(-1), scale=1 / k,
                              BLOCK=triton.next_power_of_2(x.size(-1)))
    return out


@by_keywords.register_fake
def _(x, k):
    torch._check(x.shape[-1] <= 4096)
    torch._check(k != 0)
    return torch.empty_like(x)


@triton.jit
def row_halves_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
        tl.store(out_ptr + row * n_cols + cols, x * 0.5, mask=mask)


@torch.library.custom_op("test::two_caps", mutates_args=())
def two_caps(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.shape[-1]
    if n >= 4096:
        block = min(triton.next_power_of_2(n), 2048)
    else:
        block = min(triton.next_power_of_2(n), 1024)
    row_halves_kernel[(x.shape[0],)](x, out, n, BLOCK=block, num_warps=8 if block >= 2048 else 4)
    return out


@two_caps.register_fake
def _(x):
    torch._check(x.dim() == 2)
    return torch.empty_like(x)


@triton.jit
def rows_kernel(x_ptr, out_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offsets = rows[:, None] * n_cols + cols[None, :]
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2, mask=mask)


@torch.library.custom_op("test::rows_first", mutates_args=())
def rows_first(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    block = triton.next_power_of_2(x.shape[1])
    rows = 4 if block <= 1024 else 1
    rows_kernel[(triton.cdiv(x.shape[0], rows),)](x, out, x.shape[0], x.shape[1], ROWS=rows,
                                                  BLOCK=block)
    return out


@rows_first.register_fake
def _(x):
    torch._check(x.dim() == 2)
    torch._check(x.shape[1] <= 4096)
    return torch.empty_like(x)


@triton.heuristics({"ONE_TILE": lambda args: args["TILE"] >= args["n_cols"]})
@triton.jit
def tiles_kernel(x_ptr, out_ptr, n_cols, TILE: tl.constexpr, ONE_TILE: tl.constexpr):
    row = tl.program_id(0)
    if ONE_TILE:
        cols = tl.arange(0, TILE)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
        tl.store(out_ptr + row * n_cols + cols, x * 2, mask=mask)
    else:
        for start in range(0, n_cols, TILE):
            cols = start + tl.arange(0, TILE)
            mask = cols < n_cols
            x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
            tl.store(out_ptr + row * n_cols + cols, x * 2, mask=mask)


_KEPT = {}  # FlagGems' LibEntry: the compiled kernel per key, launched again without constexprs


@torch.library.custom_op("test::cached_tiles", mutates_args=())
def cached_tiles(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.shape[1]
    key = (n, x.dtype)
    if key in _KEPT:
        _KEPT[key][(x.shape[0], 1, 1)](x, out, n)
    else:
        tile = triton.next_power_of_2(n) if n <= 32768 else 4096
        _KEPT[key] = tiles_kernel[(x.shape[0],)](x, out, n, TILE=tile)
    return out


@cached_tiles.register_fake
def _(x):
    torch._check(x.dim() == 2)
    return torch.empty_like(x)


@triton.jit
def to_fp8_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    x = tl.clamp(x, -448.0, 448.0)
    tl.store(y_ptr + offsets, x.to(y_ptr.dtype.element_ty), mask=mask)


@torch.library.custom_op("test::fp8_bytes", mutates_args=())
def fp8_bytes(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty(x.shape, dtype=torch.int8, device=x.device)
    to_fp8_kernel[(triton.cdiv(x.numel(), 1024),)](x, out.view(torch.float8_e4m3fn), x.numel(),
                                                   BLOCK=1024)
    return out


@fp8_bytes.register_fake
def _(x):
    return torch.empty(x.shape, dtype=torch.int8, device=x.device)


@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def row_sums_kernel(a_ptr, out_ptr, M, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr,
                    EVEN_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    total = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        cols = k * BLOCK_K + tl.arange(0, BLOCK_K)
        if EVEN_K:
            x = tl.load(a_ptr + rows[:, None] * K + cols[None, :], mask=rows[:, None] < M)
        else:
            x = tl.load(a_ptr + rows[:, None] * K + cols[None, :],
                        mask=(rows[:, None] < M) & (cols[None, :] < K), other=0.0)
        total += tl.sum(x.to(tl.float32), axis=1)
    tl.store(out_ptr + rows, total.to(out_ptr.dtype.element_ty), mask=rows < M)


@torch.library.custom_op("test::even_k", mutates_args=())
def even_k(a: torch.Tensor) -> torch.Tensor:
    out = torch.empty(a.shape[0], dtype=a.dtype, device=a.device)
    row_sums_kernel[(triton.cdiv(a.shape[0], 32),)](a, out, a.shape[0], a.shape[1], BLOCK_M=32,
                                                    BLOCK_K=128)
    return out


@even_k.register_fake
def _(a):
    torch._check(a.dim() == 2)
    return a.new_empty(a.shape[0])


@triton.jit
def grouped_heads_kernel(q_ptr, k_ptr, out_ptr, q_heads, k_heads, group, D: tl.constexpr):
    row = tl.program_id(0)  # (batch, query head)
    batch, head = row // q_heads, row % q_heads
    d = tl.arange(0, D)
    q = tl.load(q_ptr + row * D + d)
    k = tl.load(k_ptr + (batch * k_heads + head // group) * D + d)
    tl.store(out_ptr + row * D + d, q * k)


@torch.library.custom_op("test::grouped_heads", mutates_args=())
def grouped_heads(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(q)
    group = q.shape[1] // k.shape[1]
    grouped_heads_kernel[(q.shape[0] * q.shape[1],)](q, k, out, q.shape[1], k.shape[1], group,
                                                     D=64)
    return out


@grouped_heads.register_fake
def _(q, k):
    torch._check(q.shape[0] == k.shape[0])
    torch._check(q.shape[1] % k.shape[1] == 0)
    torch._check(q.shape[2] == 64)
    torch._check(k.shape[2] == 64)
    return torch.empty_like(q)


@triton.jit
def group_absmax_kernel(x_ptr, scale_ptr, n_cols, scale_row_stride, scale_group_stride,
                        GROUP: tl.constexpr):
    row, group = tl.program_id(0), tl.program_id(1)
    cols = group * GROUP + tl.arange(0, GROUP)
    x = tl.load(x_ptr + row * n_cols + cols)
    tl.store(scale_ptr + row * scale_row_stride + group * scale_group_stride,
             tl.max(tl.abs(x), axis=0))


@torch.library.custom_op("test::row_scales", mutates_args=())
def row_scales(x: torch.Tensor, column_major: bool = False) -> torch.Tensor:
    rows, cols = x.shape
    groups = cols // 64
    if column_major:
        scales = torch.empty((groups, rows), dtype=x.dtype, device=x.device).t()
    else:
        scales = torch.empty((rows, groups), dtype=x.dtype, device=x.device)
    group_absmax_kernel[(rows, groups)](x, scales, cols, scales.stride(0), scales.stride(1),
                                        GROUP=64)
    return scales


@row_scales.register_fake
def _(x, column_major=False):
    torch._check(x.dim() == 2)
    torch._check(x.shape[1] % 64 == 0)
    return x.new_empty((x.shape[0], x.shape[1] // 64))


@triton.jit
def both_heads_kernel(q_ptr, k_ptr, q_heads, q_width, k_width, HEAD: tl.constexpr):
    token, head = tl.program_id(0), tl.program_id(1)
    d = tl.arange(0, HEAD)
    if head < q_heads:
        at = q_ptr + token * q_width + head * HEAD + d
    else:
        at = k_ptr + token * k_width + (head - q_heads) * HEAD + d
    tl.store(at, tl.load(at) * 2)


@torch.library.custom_op("test::both_heads", mutates_args=("q", "k"))
def both_heads(q: torch.Tensor, k: torch.Tensor, head_size: int) -> None:
    q_heads = q.shape[-1] // head_size
    k_heads = k.shape[-1] // head_size
    both_heads_kernel[(q.shape[0], q_heads + k_heads)](q, k, q_heads, q.shape[-1], k.shape[-1],
                                                       HEAD=32)


@both_heads.register_fake
def _(q, k, head_size):
    torch._check(head_size == 32)
    torch._check(q.shape[0] == k.shape[0])
    torch._check(q.shape[-1] % 32 == 0)
    torch._check(k.shape[-1] % 32 == 0)


@triton.jit
def reflect_rows_kernel(x_ptr, out_ptr, W, W_out, pad_left, BLOCK_W: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    mask = cols < W_out
    source = cols - pad_left
    source = tl.where(source < 0, -source, source)
    source = tl.where(source >= W, 2 * (W - 1) - source, source)
    tl.store(out_ptr + row * W_out + cols, tl.load(x_ptr + row * W + source, mask=mask),
             mask=mask)


@torch.library.custom_op("test::reflect_rows", mutates_args=())
def reflect_rows(x: torch.Tensor, padding: List[int]) -> torch.Tensor:
    W = x.shape[-1]
    W_out = W + padding[0] + padding[1]
    out = x.new_empty((x.shape[0], W_out))
    BLOCK_W = min(triton.next_power_of_2(W_out), 1024)
    reflect_rows_kernel[(x.shape[0], triton.cdiv(W_out, BLOCK_W))](x, out, W, W_out, padding[0],
                                                                  BLOCK_W=BLOCK_W)
    return out


@reflect_rows.register_fake
def _(x, padding):
    return F.pad(x, padding, mode="reflect")


@triton.jit
def tile_halves_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    row = tl.program_id(1) * n_cols
    mask = cols < n_cols
    tl.store(out_ptr + row + cols, tl.load(x_ptr + row + cols, mask=mask) * 0.5, mask=mask)


@torch.library.custom_op("test::tiled_caps", mutates_args=())
def tiled_caps(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    rows, n = x.shape
    block = min(triton.next_power_of_2(n), 2048 if n >= 4096 else 1024)
    tile_halves_kernel[(triton.cdiv(n, block), rows)](x, out, n, BLOCK=block)
    return out


@tiled_caps.register_fake
def _(x):
    torch._check(x.dim() == 2)
    return torch.empty_like(x)
