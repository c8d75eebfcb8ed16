"""Attention kernels' head size: a constexpr the kernel needs at compile time (`tl.arange(0,
HEAD_DIM)` over a whole row), which the fake allows from a set (`x.shape[-1] in (16, 32, 64,
128)`), and tiles that follow it (`CHUNK = 16 if head_dim <= 32 else 32`, as flash attention's
BLOCK_N follows its head size; `BLOCK_ROWS = 16 if head_dim <= 64 else 8`, and a grid of row tiles
of it): a variant per size, each with its own tiles and grid. `head_rms_padded` takes head sizes
that are not all powers of two (`in (32, 48, 64, 80, 96, 128)`), the kernel the exact size and its
next power of two (`tl.arange(0, HEAD_PADDED)`, masked to `HEAD`), as vLLM's attention kernels
do. `group_absmax` takes an int attribute from a set (`group_size in (32, 64, 128)`), as
quantization kernels do, one program per group of `GROUP` elements, and rows of whole groups
(`x.shape[-1] % group_size == 0`, which the trace writes with the example's group size);
`group_scales` one scale per group, as many as the fake's ceiling division by the group size
(`-(n // -group_size)`, which the trace writes with the example's negated).
`paired_heads` checks its head size's set before the equalities of the others to it (SGLang's
decode attention: `q.shape[-1] in (...)`, then `q.shape[-1] == k.shape[-1]`, `v.shape[-1] ==
k.shape[-1]`, which the trace writes with the example's size), and the kernel takes the value
head size as a power of two of its own."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["test::head_rms(x=[6, 40, 64])", "test::head_rms_padded(x=[6, 40, 80])",
                       "test::group_absmax(x=[4, 256], group_size=64)",
                       "test::group_scales(x=[4, 200], group_size=64)",
                       "test::paired_heads(q=[4, 8, 128], k=[64, 128], v=[64, 128])"]


@triton.jit
def head_rms_kernel(x_ptr, y_ptr, rms_ptr, rows, HEAD_DIM: tl.constexpr, CHUNK: tl.constexpr,
                    BLOCK_ROWS: tl.constexpr):
    row = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    mask = row[:, None] < rows
    total = tl.zeros([BLOCK_ROWS], dtype=tl.float32)
    for start in tl.static_range(0, HEAD_DIM, CHUNK):
        cols = start + tl.arange(0, CHUNK)
        x = tl.load(x_ptr + row[:, None] * HEAD_DIM + cols[None, :], mask=mask, other=0.0)
        total += tl.sum(x.to(tl.float32) * x.to(tl.float32), axis=1)
    rms = tl.sqrt(total / HEAD_DIM + 1e-6)
    cols = tl.arange(0, HEAD_DIM)
    x = tl.load(x_ptr + row[:, None] * HEAD_DIM + cols[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + row[:, None] * HEAD_DIM + cols[None, :], x / rms[:, None], mask=mask)
    tl.store(rms_ptr + row, rms, mask=row < rows)


@torch.library.custom_op("test::head_rms", mutates_args=())
def head_rms(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    head_dim = x.shape[-1]
    assert head_dim in {16, 32, 64, 128}, f"head size {head_dim} is not compiled"
    y = torch.empty_like(x)
    rms = torch.empty(x.shape[:-1], dtype=torch.float32, device=x.device)
    rows = x.numel() // head_dim
    chunk = 16 if head_dim <= 32 else 32
    block_rows = 16 if head_dim <= 64 else 8
    head_rms_kernel[(triton.cdiv(rows, block_rows),)](x, y, rms, rows, HEAD_DIM=head_dim,
                                                      CHUNK=chunk, BLOCK_ROWS=block_rows)
    return y, rms


@head_rms.register_fake
def _(x):
    torch._check(x.shape[-1] in (16, 32, 64, 128))
    return torch.empty_like(x), x.new_empty(x.shape[:-1], dtype=torch.float32)


@triton.jit
def head_rms_padded_kernel(x_ptr, y_ptr, rows, HEAD: tl.constexpr, HEAD_PADDED: tl.constexpr):
    row = tl.program_id(0) * 16 + tl.arange(0, 16)
    cols = tl.arange(0, HEAD_PADDED)
    mask = (row[:, None] < rows) & (cols[None, :] < HEAD)
    x = tl.load(x_ptr + row[:, None] * HEAD + cols[None, :], mask=mask, other=0.0)
    rms = tl.sqrt(tl.sum(x.to(tl.float32) * x.to(tl.float32), axis=1) / HEAD + 1e-6)
    tl.store(y_ptr + row[:, None] * HEAD + cols[None, :], x / rms[:, None], mask=mask)


@torch.library.custom_op("test::head_rms_padded", mutates_args=())
def head_rms_padded(x: torch.Tensor) -> torch.Tensor:
    head = x.shape[-1]
    assert head in (32, 48, 64, 80, 96, 128)
    y = torch.empty_like(x)
    rows = x.numel() // head
    head_rms_padded_kernel[(triton.cdiv(rows, 16),)](x, y, rows, HEAD=head,
                                                     HEAD_PADDED=triton.next_power_of_2(head))
    return y


@head_rms_padded.register_fake
def _(x):
    torch._check(x.shape[-1] in (32, 48, 64, 80, 96, 128))
    return torch.empty_like(x)


@triton.jit
def group_absmax_kernel(x_ptr, y_ptr, n, GROUP: tl.constexpr):
    offsets = tl.program_id(0) * GROUP + tl.arange(0, GROUP)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0).to(tl.float32)
    tl.store(y_ptr + offsets, x / tl.maximum(tl.max(tl.abs(x), axis=0), 1e-6), mask=offsets < n)


@torch.library.custom_op("test::group_absmax", mutates_args=())
def group_absmax(x: torch.Tensor, group_size: int) -> torch.Tensor:
    assert group_size in (32, 64, 128)
    y = torch.empty_like(x)
    group_absmax_kernel[(triton.cdiv(x.numel(), group_size),)](x, y, x.numel(), GROUP=group_size)
    return y


@group_absmax.register_fake
def _(x, group_size):
    torch._check(group_size in (32, 64, 128))
    torch._check(x.shape[-1] % group_size == 0)
    return torch.empty_like(x)


@triton.jit
def group_scale_kernel(x_ptr, s_ptr, n, GROUP: tl.constexpr):
    offsets = tl.program_id(0) * GROUP + tl.arange(0, GROUP)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0).to(tl.float32)
    tl.store(s_ptr + tl.program_id(0), tl.max(tl.abs(x), axis=0))


@torch.library.custom_op("test::group_scales", mutates_args=())
def group_scales(x: torch.Tensor, group_size: int) -> torch.Tensor:
    assert group_size in (32, 64, 128)
    groups = triton.cdiv(x.numel(), group_size)
    scales = torch.empty((groups,), dtype=torch.float32, device=x.device)
    group_scale_kernel[(groups,)](x, scales, x.numel(), GROUP=group_size)
    return scales


@group_scales.register_fake
def _(x, group_size):
    torch._check(group_size in (32, 64, 128))
    return x.new_empty((-(x.numel() // -group_size),), dtype=torch.float32)


@triton.jit
def paired_heads_kernel(q_ptr, k_ptr, v_ptr, out_ptr, D: tl.constexpr, DV: tl.constexpr):
    row = tl.program_id(0)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + row * D + d)
    k = tl.load(k_ptr + d)
    v = tl.load(v_ptr + tl.arange(0, DV))
    tl.store(out_ptr + row * D + d, q * k + v)


@torch.library.custom_op("test::paired_heads", mutates_args=())
def paired_heads(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(q)
    paired_heads_kernel[(q.shape[0] * q.shape[1],)](q, k, v, out, D=q.shape[-1],
                                                    DV=triton.next_power_of_2(v.shape[-1]))
    return out


@paired_heads.register_fake
def _(q, k, v):
    torch._check(q.shape[-1] in (64, 128, 256))
    torch._check(q.shape[-1] == k.shape[-1])
    torch._check(v.shape[-1] == k.shape[-1])
    return torch.empty_like(q)
