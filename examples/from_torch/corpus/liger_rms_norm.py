"""RMSNorm forward in the style of Liger-Kernel: a shared `calculate_settings` picks the block
size and warps from the hidden size, the input is flattened to rows with a view, the launch is
guarded with `torch.cuda.device`, the per-row reciprocal RMS goes to an `RSTD` buffer (kept for
the backward pass) and the output is returned as a view of the input's shape."""
import functools

import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["liger::rms_norm(X=[2, 37, 576], W=[576], eps=1e-06, offset=0.0)"]

MAX_FUSED_SIZE = 65536

def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(
            f"Cannot launch Triton kernel since n = {n} exceeds "
            f"the recommended Triton blocksize = {MAX_FUSED_SIZE}."
        )
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
        args = [a.contiguous() if isinstance(a, torch.Tensor) else a for a in args]
        return fn(*args, **kwargs)
    return wrapper

@triton.jit
def _rms_norm_forward_kernel(
    Y_ptr,
    Y_row_stride,
    X_ptr,
    X_row_stride,
    W_ptr,
    RSTD_ptr,
    RSTD_row_stride,
    n_cols,
    eps,
    offset,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0).to(tl.int64)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    Y_ptr += row_idx * Y_row_stride
    X_ptr += row_idx * X_row_stride
    RSTD_ptr += row_idx * RSTD_row_stride

    X_row = tl.load(X_ptr + col_offsets, mask=mask, other=0)
    X_row_dtype = X_row.dtype
    W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0)

    # Llama casts only the inverse RMS to float32.
    X_row = X_row.to(tl.float32)
    mean_square = tl.sum(X_row * X_row, axis=0) / n_cols
    rstd = tl.math.rsqrt(mean_square + eps)
    tl.store(RSTD_ptr, rstd)

    X_row = X_row * rstd
    X_row = X_row.to(X_row_dtype)
    Y_row = X_row * (offset + W_row)
    tl.store(Y_ptr + col_offsets, Y_row, mask=mask)

def rms_norm_forward(X, W, eps, offset):
    shape = X.shape
    dim = shape[-1]
    X = X.view(-1, dim)
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)

    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    RSTD = torch.empty(n_rows, dtype=torch.float32, device=X.device)

    assert X.shape[1] == W.shape[0], "Incompatible hidden size dimension between tensor1.shape[1] and tensor2.shape[0]"

    with torch.cuda.device(X.device):
        _rms_norm_forward_kernel[(n_rows,)](
            Y,
            Y.stride(0),
            X,
            X.stride(0),
            W,
            RSTD,
            RSTD.stride(0),
            n_cols,
            eps,
            offset,
            BLOCK_SIZE=BLOCK_SIZE,
            num_warps=num_warps,
        )
    return Y.view(*shape), RSTD

@torch.library.custom_op("liger::rms_norm", mutates_args=())
@ensure_contiguous
def rms_norm(X: torch.Tensor, W: torch.Tensor, eps: float = 1e-6,
             offset: float = 0.0) -> torch.Tensor:
    Y, _ = rms_norm_forward(X, W, eps, offset)
    return Y

@rms_norm.register_fake
def _(X, W, eps=1e-6, offset=0.0):
    return torch.empty_like(X)

def llama_rms_norm(X, W, eps=1e-6, offset=0.0):
    """The Hugging Face Llama RMSNorm, in eager PyTorch."""
    variance = X.float().pow(2).mean(-1, keepdim=True)
    hidden = (X.float() * torch.rsqrt(variance + eps)).to(X.dtype)
    return hidden * (offset + W)

