"""SGLang's per-token int8 quantization
(`sglang.kernels.ops.quantization.int8_kernel.per_token_quant_int8`, sglang 0.5.23; W8A8 int8
activations: one float32 scale per row, round(x * 127 / absmax)), called as a user of the
library calls it.

Host code: M = numel / last extent, x_q int8 like x, scales [..., 1] float32,
`BLOCK = next_power_of_2(N)`, `num_warps = min(max(BLOCK // 256, 1), 8)`, asserts x contiguous,
`grid = (M,)`, `stride_x = x.stride(-2)`, CAL_SUM False (x_sum None) and IS_HIP constexprs.
Returns (x_q, scales)."""
import torch
from sglang.kernels.ops.quantization.int8_kernel import per_token_quant_int8

AUTOPLUGIN_EXAMPLES = ["user_sglang::per_token_quant_int8(x=[16, 4096])"]


@torch.library.custom_op("user_sglang::per_token_quant_int8", mutates_args=())
def per_token_quant_int8_op(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return per_token_quant_int8(x)


@per_token_quant_int8_op.register_fake
def _(x):
    x_q = torch.empty_like(x, dtype=torch.int8)
    scales = torch.empty(x.shape[:-1] + (1,), device=x.device, dtype=torch.float32)
    return x_q, scales
