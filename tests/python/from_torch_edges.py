"""Values the random samples seldom reach: an eps of 1e-6 (an attribute, not a constant); a
feature a float attribute turns off at 0 (`DO_SOFTCAP = softcap != 0`, a heuristic); a float
constexpr (`SOFTCAP: tl.constexpr`, passed at run time); a reciprocal the host code computes
(`1.0 / temperature`); the tile count of an autotune config with a block of 2048 (a constant 1
below 2048 columns); and requirements the samples must keep: an int attribute equal to an extent
(F.layer_norm's `normalized_shape`) and an extent fixed by the fake; and an absent bias passed
to the kernel as None (Liger's DyT), which Triton compiles as a constexpr (beside a constexpr that
takes every size, `n_cols: tl.constexpr`, compiled on trial as a run-time argument); an output
that starts as a copy of the input (`out = x.clone()`, then a kernel updating it in place); tiles
of an output one longer than the input (`cdiv(T + 1, 256)`, which random lengths seldom tell from
`cdiv(T, 256)`)."""
from typing import Optional

import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "test::scaled_softcap(x=[4, 256], w=[256], eps=1e-6, softcap=30.0, temperature=2.0)",
    "test::wide_tiles(x=[4, 1000])",
    "test::norm_rows(x=[4, 8, 64], normalized_shape=[64])",
    "test::maybe_bias(x=[4, 256], bias=[256])",
    "test::maybe_bias(x=[4, 256], bias=None)",
    "test::add_one_copy(x=[4, 1000])",
    "test::pad_tail(x=[4, 300])",
]


@triton.heuristics({"DO_SOFTCAP": lambda args: args["SOFTCAP"] != 0})
@triton.jit
def scaled_softcap_kernel(x_ptr, w_ptr, out_ptr, n_cols, eps, inv_temperature,
                          SOFTCAP: tl.constexpr, DO_SOFTCAP: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    y = x * w / (tl.abs(x) + eps) * inv_temperature
    if DO_SOFTCAP:
        y = SOFTCAP * tl.sigmoid(y / SOFTCAP)
    tl.store(out_ptr + row * n_cols + cols, y, mask=mask)


@torch.library.custom_op("test::scaled_softcap", mutates_args=())
def scaled_softcap(x: torch.Tensor, w: torch.Tensor, eps: float, softcap: float,
                   temperature: float) -> torch.Tensor:
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    scaled_softcap_kernel[(n_rows,)](x, w, out, n_cols, eps, 1.0 / temperature, SOFTCAP=softcap,
                                     BLOCK=triton.next_power_of_2(n_cols))
    return out


@scaled_softcap.register_fake
def _(x, w, eps, softcap, temperature):
    torch._check(w.shape[0] == x.shape[1])
    return torch.empty_like(x)


@triton.autotune(configs=[triton.Config({"BLOCK": 256}, num_warps=4),
                          triton.Config({"BLOCK": 2048}, num_warps=8)], key=["n_cols"])
@triton.jit
def wide_tiles_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    tl.store(out_ptr + row * n_cols + cols, tl.load(x_ptr + row * n_cols + cols, mask=mask) + 1,
             mask=mask)


@torch.library.custom_op("test::wide_tiles", mutates_args=())
def wide_tiles(x: torch.Tensor) -> torch.Tensor:
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    wide_tiles_kernel[lambda meta: (n_rows, triton.cdiv(n_cols, meta["BLOCK"]))](x, out, n_cols)
    return out


@wide_tiles.register_fake
def _(x):
    return torch.empty_like(x)


@triton.jit
def norm_rows_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    tl.store(out_ptr + row * n_cols + cols, x - mean, mask=mask)


@torch.library.custom_op("test::norm_rows", mutates_args=())
def norm_rows(x: torch.Tensor, normalized_shape: list[int]) -> torch.Tensor:
    n_cols = normalized_shape[0]
    out = torch.empty_like(x)
    norm_rows_kernel[(x.numel() // n_cols,)](x, out, n_cols, BLOCK=64)
    return out


@norm_rows.register_fake
def _(x, normalized_shape):
    torch._check(tuple(x.shape[-1:]) == tuple(normalized_shape))
    torch._check(x.shape[-1] == 64)
    return torch.empty_like(x)


@triton.jit
def maybe_bias_kernel(x_ptr, bias_ptr, out_ptr, n_cols: tl.constexpr, HAS_BIAS: tl.constexpr,
                      BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    if HAS_BIAS:
        x += tl.load(bias_ptr + cols, mask=mask)
    tl.store(out_ptr + row * n_cols + cols, x, mask=mask)


@torch.library.custom_op("test::maybe_bias", mutates_args=())
def maybe_bias(x: torch.Tensor, bias: Optional[torch.Tensor]) -> torch.Tensor:
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    maybe_bias_kernel[(n_rows,)](x, bias, out, n_cols, HAS_BIAS=bias is not None, BLOCK=256)
    return out


@maybe_bias.register_fake
def _(x, bias):
    torch._check(x.shape[1] <= 256)
    if bias is not None:
        torch._check(bias.shape[0] == x.shape[1])
    return torch.empty_like(x)


@triton.jit
def add_one_kernel(ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(ptr + offsets, tl.load(ptr + offsets, mask=mask) + 1, mask=mask)


@torch.library.custom_op("test::add_one_copy", mutates_args=())
def add_one_copy(x: torch.Tensor) -> torch.Tensor:
    out = x.clone()
    add_one_kernel[(triton.cdiv(out.numel(), 1024),)](out, out.numel(), BLOCK=1024)
    return out


@add_one_copy.register_fake
def _(x):
    return torch.empty_like(x)


@triton.jit
def pad_tail_kernel(x_ptr, out_ptr, T, T_out, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    t = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * T + t, mask=t < T, other=0.0)
    tl.store(out_ptr + row * T_out + t, x, mask=t < T_out)


@torch.library.custom_op("test::pad_tail", mutates_args=())
def pad_tail(x: torch.Tensor) -> torch.Tensor:
    rows, T = x.shape
    T_out = T + 1
    out = torch.empty((rows, T_out), dtype=x.dtype, device=x.device)
    pad_tail_kernel[(rows, triton.cdiv(T_out, 256))](x, out, T, T_out, BLOCK=256)
    return out


@pad_tail.register_fake
def _(x):
    return x.new_empty((x.shape[0], x.shape[1] + 1))
