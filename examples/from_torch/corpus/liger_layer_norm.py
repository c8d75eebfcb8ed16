"""LayerNorm forward in the style of Liger-Kernel: the op returns the normalized output and the
per-row `Mean` and `RSTD` it saves for the backward pass (three outputs, two of them float32 of
the input's leading shape), the host flattens to rows with `view(-1, n_cols)`, asserts the weight
and bias match the hidden size, and launches under a `torch.cuda.device` guard."""
import functools

import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["liger::layer_norm(X=[3, 21, 768], W=[768], B=[768], eps=1e-05)"]

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
        return fn(*args, **kwargs)
    return wrapper


@triton.jit
def _layer_norm_forward_kernel(
    Y_ptr, Y_row_stride,
    X_ptr, X_row_stride,
    W_ptr, B_ptr,
    Mean_ptr, Mean_row_stride,
    RSTD_ptr, RSTD_row_stride,
    n_cols, eps,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0).to(tl.int64)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    Y_ptr += row_idx * Y_row_stride
    X_ptr += row_idx * X_row_stride
    Mean_ptr += row_idx * Mean_row_stride
    RSTD_ptr += row_idx * RSTD_row_stride

    X_row = tl.load(X_ptr + col_offsets, mask=mask, other=0).to(tl.float32)
    W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0).to(tl.float32)
    B_row = tl.load(B_ptr + col_offsets, mask=mask, other=0).to(tl.float32)

    mean = tl.sum(X_row, axis=0) / n_cols
    centered = tl.where(mask, X_row - mean, 0.0)
    var = tl.sum(centered * centered, axis=0) / n_cols
    rstd = tl.math.rsqrt(var + eps)

    tl.store(Mean_ptr, mean)
    tl.store(RSTD_ptr, rstd)

    Y_row = centered * rstd * W_row + B_row
    tl.store(Y_ptr + col_offsets, Y_row.to(Y_ptr.dtype.element_ty), mask=mask)


def layer_norm_forward(X, W, B, eps):
    shape = X.shape
    dim = shape[-1]
    X = X.view(-1, dim)
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    Mean = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    RSTD = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    assert X.shape[1] == W.shape[0], (
        f"Incompatible hidden size dimension between input tensor with shape[1] = {X.shape[1]} "
        f"and weight tensor with shape[0] = {W.shape[0]}")
    assert W.shape == B.shape, "weight and bias must have the same shape"

    with torch.cuda.device(X.device):
        _layer_norm_forward_kernel[(n_rows,)](
            Y, Y.stride(0),
            X, X.stride(0),
            W, B,
            Mean, Mean.stride(0),
            RSTD, RSTD.stride(0),
            n_cols, eps,
            BLOCK_SIZE=BLOCK_SIZE,
            num_warps=num_warps,
        )
    return Y.view(*shape), X, Mean, RSTD, BLOCK_SIZE, num_warps


@torch.library.custom_op("liger::layer_norm", mutates_args=())
@ensure_contiguous
def layer_norm(X: torch.Tensor, W: torch.Tensor, B: torch.Tensor,
               eps: float = 1e-5) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    Y, _, Mean, RSTD, _, _ = layer_norm_forward(X, W, B, eps)
    return Y, Mean.view(X.shape[:-1]), RSTD.view(X.shape[:-1])


@layer_norm.register_fake
def _(X, W, B, eps=1e-5):
    stats = X.new_empty(X.shape[:-1], dtype=torch.float32)
    return torch.empty_like(X), stats, torch.empty_like(stats)


def layer_norm_reference(X, W, B, eps=1e-5):
    x = X.float()
    mean = x.mean(-1)
    rstd = torch.rsqrt(x.var(-1, unbiased=False) + eps)
    y = torch.nn.functional.layer_norm(x, (X.shape[-1],), W.float(), B.float(), eps)
    return y.to(X.dtype), mean, rstd
