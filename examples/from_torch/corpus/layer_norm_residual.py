"""Layer norm (or RMSNorm) forward with the residual added first, in the style of the
flash-attention / Triton-tutorial layer norms: two outputs (the normalized rows and the new
residual stream), an `is_rms_norm: bool` argument that becomes an `IS_RMS_NORM` constexpr, rows
longer than the block handled by `tl.range` loops, host code that flattens with `reshape`,
makes the rows contiguous and returns `.view(*shape)`."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "flash_like::layer_norm_residual(x=[2, 50, 768], residual=[2, 50, 768], weight=[768],"
    " bias=[768], eps=1e-05, is_rms_norm=False)",
    "flash_like::layer_norm_residual(x=[2, 50, 768], residual=[2, 50, 768], weight=[768],"
    " bias=[768], eps=1e-05, is_rms_norm=True)",
]


@triton.jit
def _layer_norm_residual_fwd(
    X, RESIDUAL, Y, RESIDUAL_OUT, W, B,
    stride_row, N, eps,
    IS_RMS_NORM: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    X += row * stride_row
    RESIDUAL += row * stride_row
    Y += row * stride_row
    RESIDUAL_OUT += row * stride_row

    if IS_RMS_NORM:
        mean = 0.0
    else:
        _sum = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
        for off in tl.range(0, N, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            mask = cols < N
            h = (tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
                 + tl.load(RESIDUAL + cols, mask=mask, other=0.0).to(tl.float32))
            _sum += h
        mean = tl.sum(_sum, axis=0) / N

    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in tl.range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        h = (tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
             + tl.load(RESIDUAL + cols, mask=mask, other=0.0).to(tl.float32))
        d = tl.where(mask, h - mean, 0.0)
        _var += d * d
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)

    for off in tl.range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        h = (tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
             + tl.load(RESIDUAL + cols, mask=mask, other=0.0).to(tl.float32))
        tl.store(RESIDUAL_OUT + cols, h.to(RESIDUAL_OUT.dtype.element_ty), mask=mask)
        w = tl.load(W + cols, mask=mask).to(tl.float32)
        b = tl.load(B + cols, mask=mask).to(tl.float32)
        y = (h - mean) * rstd * w + b
        tl.store(Y + cols, y.to(Y.dtype.element_ty), mask=mask)


@torch.library.custom_op("flash_like::layer_norm_residual", mutates_args=())
def layer_norm_residual(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor,
                        bias: torch.Tensor, eps: float,
                        is_rms_norm: bool) -> tuple[torch.Tensor, torch.Tensor]:
    shape = x.shape
    N = shape[-1]
    x = x.reshape(-1, N).contiguous()
    residual = residual.reshape(-1, N).contiguous()
    M = x.shape[0]
    y = torch.empty_like(x)
    residual_out = torch.empty_like(x)
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
    num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
    _layer_norm_residual_fwd[(M,)](
        x, residual, y, residual_out, weight, bias,
        x.stride(0), N, eps,
        IS_RMS_NORM=is_rms_norm,
        BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps,
    )
    return y.view(*shape), residual_out.view(*shape)


@layer_norm_residual.register_fake
def _(x, residual, weight, bias, eps, is_rms_norm):
    return torch.empty_like(x), torch.empty_like(x)


def layer_norm_residual_reference(x, residual, weight, bias, eps, is_rms_norm):
    h = x.float() + residual.float()
    if is_rms_norm:
        y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps) * weight.float() + bias.float()
    else:
        y = torch.nn.functional.layer_norm(h, (h.shape[-1],), weight.float(), bias.float(), eps)
    return y.to(x.dtype), h.to(x.dtype)
