"""SGLang's per-token-group int8 quantization
(`sglang.kernels.ops.quantization.int8_kernel.per_token_group_quant_int8`, sglang 0.5.23; one
float32 scale per group of `group_size` elements of a row, as block-quantized int8 linear layers
take their activations), called as a user of the library calls it.

Host code: asserts `x.shape[-1] % group_size == 0` and x contiguous, int8 limits from
`torch.iinfo`, M = numel // group_size groups, `BLOCK = next_power_of_2(group_size)`,
`num_warps = min(max(BLOCK // 256, 1), 8)`, `grid = (M,)`. Returns (x_q int8 like x,
x_s float32 [..., K / group_size])."""
import torch
from sglang.kernels.ops.quantization.int8_kernel import per_token_group_quant_int8

AUTOPLUGIN_EXAMPLES = ["user_sglang::per_token_group_quant_int8(x=[16, 4096], group_size=128)"]


@torch.library.custom_op("user_sglang::per_token_group_quant_int8", mutates_args=())
def per_token_group_quant_int8_op(x: torch.Tensor,
                                  group_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    return per_token_group_quant_int8(x, group_size)


@per_token_group_quant_int8_op.register_fake
def _(x, group_size):
    x_q = torch.empty_like(x, dtype=torch.int8)
    x_s = torch.empty(x.shape[:-1] + (x.shape[-1] // group_size,), device=x.device,
                      dtype=torch.float32)
    return x_q, x_s
