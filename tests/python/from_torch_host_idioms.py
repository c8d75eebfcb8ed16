"""Host-code idioms of Python custom ops that from-torch converts as written: a kernel with
`do_not_specialize`, constexpr defaults the launch leaves out, the device's capability read in
the host code, `torch.empty_strided`, `new_empty`/`new_zeros` buffers, a `Sequence[int]`
permutation, `device_types="cuda"`, a launch by keywords with `math.prod`, a body wrapped by
a `functools.wraps` decorator (Liger's `ensure_contiguous`), and a block whose cap changes with
the size (Liger's DyT: 1024 below 4096 columns, 2048 from there)."""
import functools
import math
from typing import Sequence

import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["test::no_specialize(x=[300, 70], scale=0.5)",
                       "test::default_block(x=[1000])",
                       "test::by_capability(x=[1000])",
                       "test::two_buffers(x=[64, 48])",
                       "test::permuted(x=[4, 6, 8], dims=[0, 2, 1])",
                       "test::by_keywords(x=[4, 33, 70], k=3)",
                       "test::two_caps(x=[64, 1000])"]


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
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        args = [a.contiguous() if isinstance(a, torch.Tensor) else a for a in args]
        return function(*args, **kwargs)
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
def row_tanh_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
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
    row_tanh_kernel[(x.shape[0],)](x, out, n, BLOCK=block, num_warps=8 if block >= 2048 else 4)
    return out


@two_caps.register_fake
def _(x):
    torch._check(x.dim() == 2)
    return torch.empty_like(x)
