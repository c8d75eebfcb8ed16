"""GEGLU forward in the style of Liger-Kernel: a tanh-approximated GELU of the gate times the up
projection. An `ensure_contiguous` decorator on the op, a forward helper outside any
`autograd.Function` that flattens to rows and views back, `calculate_settings` with its
`MAX_FUSED_SIZE` check, and an `approximate: str` attribute that picks the kernel in the host
code ("tanh", or "none" for the exact erf form)."""
import functools

import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "liger::geglu(a=[2, 19, 1376], b=[2, 19, 1376], approximate='tanh')",
    "liger::geglu(a=[2, 19, 1376], b=[2, 19, 1376], approximate='none')",
]

MAX_FUSED_SIZE = 65536


def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(
            f"Cannot launch Triton kernel since n = {n} exceeds the maximum "
            f"fused block size = {MAX_FUSED_SIZE}.")
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


def ensure_contiguous(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        args = [arg.contiguous() if isinstance(arg, torch.Tensor) else arg for arg in args]
        kwargs = {k: (v.contiguous() if isinstance(v, torch.Tensor) else v)
                  for k, v in kwargs.items()}
        return fn(*args, **kwargs)
    return wrapper


@triton.jit
def _geglu_tanh_forward_kernel(a, b, c, stride, n_cols: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    program_id = tl.program_id(0).to(tl.int64)
    a += program_id * stride
    b += program_id * stride
    c += program_id * stride

    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    a_row = tl.load(a + col_offsets, mask=mask, other=0).to(tl.float32)
    b_row = tl.load(b + col_offsets, mask=mask, other=0)

    # gelu(a) ~= 0.5 * a * (1 + tanh(sqrt(2 / pi) * (a + 0.044715 * a^3)))
    sqrt_2_over_pi = 0.7978845608028654
    inner = sqrt_2_over_pi * (a_row + 0.044715 * a_row * a_row * a_row)
    # tanh(z) = 2 * sigmoid(2 z) - 1
    tanh_inner = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
    geglu_a = 0.5 * a_row * (1.0 + tanh_inner)
    c_row = geglu_a.to(b_row.dtype) * b_row
    tl.store(c + col_offsets, c_row, mask=mask)


@triton.jit
def _geglu_erf_forward_kernel(a, b, c, stride, n_cols: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    program_id = tl.program_id(0).to(tl.int64)
    a += program_id * stride
    b += program_id * stride
    c += program_id * stride

    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    a_row = tl.load(a + col_offsets, mask=mask, other=0).to(tl.float32)
    b_row = tl.load(b + col_offsets, mask=mask, other=0)
    geglu_a = 0.5 * a_row * (1.0 + tl.math.erf(a_row * 0.7071067811865476))
    c_row = geglu_a.to(b_row.dtype) * b_row
    tl.store(c + col_offsets, c_row, mask=mask)


def geglu_forward(a, b, approximate):
    ori_shape = a.shape
    n_cols = ori_shape[-1]
    a = a.view(-1, n_cols)
    b = b.view(-1, n_cols)
    c = torch.empty_like(a)
    n_rows = a.shape[0]

    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    if approximate == "tanh":
        kernel = _geglu_tanh_forward_kernel
    elif approximate == "none":
        kernel = _geglu_erf_forward_kernel
    else:
        raise ValueError(f"approximate must be 'tanh' or 'none', got {approximate!r}")
    kernel[(n_rows,)](
        a,
        b,
        c,
        c.stride(-2),
        n_cols=n_cols,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=num_warps,
    )
    return a, b, c.view(*ori_shape)


@torch.library.custom_op("liger::geglu", mutates_args=())
@ensure_contiguous
def geglu(a: torch.Tensor, b: torch.Tensor, approximate: str = "tanh") -> torch.Tensor:
    _, _, c = geglu_forward(a, b, approximate)
    return c


@geglu.register_fake
def _(a, b, approximate="tanh"):
    torch._check(a.shape == b.shape)
    return torch.empty_like(a)


def geglu_reference(a, b, approximate="tanh"):
    return torch.nn.functional.gelu(a.float(), approximate=approximate).to(a.dtype) * b
