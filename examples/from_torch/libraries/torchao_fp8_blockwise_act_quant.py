"""torchao's blockwise fp8 activation quantization
(`torchao.kernel.blockwise_quantization.fp8_blockwise_act_quant`, torchao 0.18.0; DeepSeek-V3's
1x128 activation quantization: one float32 scale per 128 contiguous elements, values / scale as
float8_e4m3fn), called as a user of the library calls it.

Host code: the Triton kernels are built lazily on first call (`_get_triton_impls`, checking
`torch.utils._triton.has_triton()`, the kernels defined inside a function); asserts x contiguous,
`x.size(-1) % block_size == 0` and the fp8 dtype; `grid = cdiv(x.numel(), meta["BLOCK_SIZE"])`
with BLOCK_SIZE = block_size a constexpr. Returns (y float8_e4m3fn, s float32)."""
import torch
from torchao.kernel.blockwise_quantization import fp8_blockwise_act_quant

AUTOPLUGIN_EXAMPLES = ["user_torchao::fp8_blockwise_act_quant(x=[4, 128, 7168], block_size=128)"]


@torch.library.custom_op("user_torchao::fp8_blockwise_act_quant", mutates_args=())
def fp8_blockwise_act_quant_op(x: torch.Tensor,
                               block_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    return fp8_blockwise_act_quant(x, block_size, torch.float8_e4m3fn)


@fp8_blockwise_act_quant_op.register_fake
def _(x, block_size):
    y = torch.empty_like(x, dtype=torch.float8_e4m3fn)
    s = x.new_empty(*x.shape[:-1], x.shape[-1] // block_size, dtype=torch.float32)
    return y, s
