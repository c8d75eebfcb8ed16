"""Per-row symmetric int8 quantization: two outputs of different dtypes, the int8 values and each
row's float32 scale (absmax / 127), as weight-only and activation quantizers write it."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["quant::rowwise_int8(x=[96, 1536])"]


@triton.jit
def _rowwise_quant_kernel(x_ptr, q_ptr, scale_ptr, n_cols, stride_x, stride_q,
                          BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    absmax = tl.maximum(tl.max(tl.abs(x), axis=0), 1e-8)
    scale = absmax / 127.0
    q = tl.floor(x / scale + 0.5)
    q = tl.minimum(tl.maximum(q, -127.0), 127.0)
    tl.store(q_ptr + row * stride_q + cols, q.to(tl.int8), mask=mask)
    tl.store(scale_ptr + row, scale)


@torch.library.custom_op("quant::rowwise_int8", mutates_args=())
def rowwise_int8(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    assert x.dim() == 2, "expected a 2-D tensor"
    M, N = x.shape
    q = torch.empty((M, N), dtype=torch.int8, device=x.device)
    scale = torch.empty((M,), dtype=torch.float32, device=x.device)
    BLOCK = triton.next_power_of_2(N)
    _rowwise_quant_kernel[(M,)](x, q, scale, N, x.stride(0), q.stride(0), BLOCK=BLOCK,
                                num_warps=8 if BLOCK >= 2048 else 4)
    return q, scale


@rowwise_int8.register_fake
def _(x):
    M, N = x.shape
    return x.new_empty((M, N), dtype=torch.int8), x.new_empty((M,), dtype=torch.float32)


def rowwise_int8_reference(x):
    y = x.float()
    scale = y.abs().amax(dim=1).clamp_min(1e-8) / 127.0
    q = torch.floor(y / scale[:, None] + 0.5).clamp(-127, 127).to(torch.int8)
    return q, scale
