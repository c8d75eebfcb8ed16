"""Fused residual add + RMSNorm in place, in the style of vLLM's `fused_add_rms_norm` written in
Triton: `residual += input` and `input = rms_norm(residual) * weight`, both tensors updated in
place (`mutates_args=("input", "residual")`, `-> None`); the hidden size bounds the block through
the element size (`65536 // input.element_size()`), rows come from a view."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "vllm_like::fused_add_rms_norm(input=[4, 33, 512], residual=[4, 33, 512], weight=[512],"
    " epsilon=1e-05)",
]


@triton.jit
def _fused_add_rms_norm_kernel(X, R, W, stride_x, stride_r, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride_x
    R += row * stride_r
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(R + cols, mask=mask, other=0.0).to(tl.float32)
    h = x + r
    tl.store(R + cols, h.to(R.dtype.element_ty), mask=mask)
    var = tl.sum(h * h, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    y = h * rstd * w
    tl.store(X + cols, y.to(X.dtype.element_ty), mask=mask)


@torch.library.custom_op("vllm_like::fused_add_rms_norm", mutates_args=("input", "residual"))
def fused_add_rms_norm(input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor,
                       epsilon: float) -> None:
    hidden_size = input.shape[-1]
    x = input.view(-1, hidden_size)
    r = residual.view(-1, hidden_size)
    n_rows = x.shape[0]
    # Less than 64KB per feature: enqueue fused kernel
    MAX_FUSED_SIZE = 65536 // input.element_size()
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(hidden_size))
    if hidden_size > BLOCK_SIZE:
        raise RuntimeError("This RMSNorm doesn't support feature dim >= 64KB.")
    num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
    _fused_add_rms_norm_kernel[(n_rows,)](
        x, r, weight, x.stride(0), r.stride(0), hidden_size, epsilon,
        BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps,
    )


@fused_add_rms_norm.register_fake
def _(input, residual, weight, epsilon):
    return None


def fused_add_rms_norm_reference(input, residual, weight, epsilon):
    """Eager PyTorch, in place like the op (the norm of the float32 sum, as the kernel)."""
    h = input.float() + residual.float()
    residual.copy_(h.to(residual.dtype))
    variance = h.pow(2).mean(-1, keepdim=True)
    input.copy_((h * torch.rsqrt(variance + epsilon) * weight.float()).to(input.dtype))
