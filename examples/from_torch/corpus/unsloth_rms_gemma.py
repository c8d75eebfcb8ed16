# RMS LayerNorm forward in the style of unsloth/kernels/rms_layernorm.py,
# exposed as a torch.library custom op.  One kernel serves Llama (W * x_hat)
# and Gemma ((W + 1) * x_hat, computed in float32) -- the `gemma` flag picks
# the code path at compile time.
from contextlib import nullcontext

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE: int = 65536
next_power_of_2 = triton.next_power_of_2


def calculate_settings(n):
    BLOCK_SIZE: int = next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(
            f"Cannot launch Triton kernel since n = {n} exceeds "
            f"the maximum CUDA blocksize = {MAX_FUSED_SIZE}."
        )
    num_warps: int = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


DEVICE_COUNT: int = torch.cuda.device_count()
if DEVICE_COUNT > 1:
    torch_cuda_device = torch.cuda.device
else:
    def torch_cuda_device(device):
        return nullcontext()


@triton.jit
def _rms_layernorm_forward(
    Y, Y_row_stride,
    X, X_row_stride,
    W, W_row_stride,
    r, r_row_stride,
    n_cols,
    eps,
    GEMMA: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    """
    Fast RMS Layernorm kernel
    Inspiration from a Triton tutorial:
    https://triton-lang.org/main/getting-started/tutorials/05-layer-norm.html
    """
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    Y += row_idx * Y_row_stride
    X += row_idx * X_row_stride
    r += row_idx * r_row_stride

    X_row = tl.load(X + col_offsets, mask = mask, other = 0).to(tl.float32)
    W_row = tl.load(W + col_offsets, mask = mask, other = 0)

    row_var = tl.sum(X_row * X_row, axis = 0) / n_cols
    inv_var = tl.math.rsqrt(row_var + eps)
    tl.store(r, inv_var)
    normed = X_row * inv_var
    if GEMMA:
        # Gemma computes (1 + W) in float32 and only casts at the very end
        output = normed * (W_row.to(tl.float32) + 1.0)
    else:
        normed = normed.to(W_row.dtype)  # Exact copy from HF
        output = normed * W_row
    tl.store(Y + col_offsets, output, mask = mask)


@torch.library.custom_op("unsloth_c::rms_layernorm", mutates_args = ())
def rms_layernorm(X: torch.Tensor, W: torch.Tensor, eps: float, gemma: bool) -> torch.Tensor:
    shape = X.shape
    dim: int = shape[-1]
    assert W.shape[0] == dim, "weight must match the hidden size"
    X = X.reshape(-1, dim)
    if not X.is_contiguous():
        X = X.contiguous()
    n_rows: int
    n_cols: int
    n_rows, n_cols = X.shape
    BLOCK_SIZE: int
    num_warps: int
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    device = X.device

    Y = torch.empty((n_rows, n_cols), dtype = X.dtype, device = device)
    r = torch.empty(n_rows, dtype = torch.float32, device = device)

    with torch_cuda_device(device):
        _rms_layernorm_forward[(n_rows,)](
            Y, Y.stride(0),
            X, X.stride(0),
            W, W.stride(0),
            r, r.stride(0),
            n_cols, eps,
            GEMMA = gemma,
            BLOCK_SIZE = BLOCK_SIZE,
            num_warps = num_warps,
        )
    return Y.view(*shape)


@rms_layernorm.register_fake
def _(X, W, eps, gemma):
    torch._check(W.shape[0] == X.shape[-1])
    return torch.empty_like(X)


AUTOPLUGIN_EXAMPLES = [
    "unsloth_c::rms_layernorm(X=[2, 4, 1024], W=[1024], eps=1e-6, gemma=True)",
]


def rms_layernorm_reference(X, W, eps, gemma):
    x = X.float()
    normed = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    if gemma:
        return (normed * (W.float() + 1.0)).to(X.dtype)
    return (normed.to(W.dtype) * W).to(X.dtype)
