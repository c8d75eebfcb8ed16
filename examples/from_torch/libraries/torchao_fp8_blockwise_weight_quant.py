"""torchao's blockwise fp8 weight quantization
(`torchao.kernel.blockwise_quantization.fp8_blockwise_weight_quant`, torchao 0.18.0; DeepSeek-V3's
128x128 weight quantization: one float32 scale per 128x128 tile, values / scale as
float8_e4m3fn), called as a user of the library calls it.

Host code: kernels built lazily on first call (`_get_triton_impls`); asserts x contiguous, 2-D,
both extents divisible by block_size, and the fp8 dtype;
`grid = (cdiv(M, meta["BLOCK_SIZE"]), cdiv(N, meta["BLOCK_SIZE"]))`, BLOCK_SIZE a constexpr.
Returns (y float8_e4m3fn [M, N], s float32 [M / block, N / block])."""
import torch
from torchao.kernel.blockwise_quantization import fp8_blockwise_weight_quant

AUTOPLUGIN_EXAMPLES = [
    "user_torchao::fp8_blockwise_weight_quant(w=[4096, 7168], block_size=128)"]


@torch.library.custom_op("user_torchao::fp8_blockwise_weight_quant", mutates_args=())
def fp8_blockwise_weight_quant_op(w: torch.Tensor,
                                  block_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    return fp8_blockwise_weight_quant(w, block_size, torch.float8_e4m3fn)


@fp8_blockwise_weight_quant_op.register_fake
def _(w, block_size):
    y = torch.empty_like(w, dtype=torch.float8_e4m3fn)
    s = w.new_empty(w.shape[0] // block_size, w.shape[1] // block_size, dtype=torch.float32)
    return y, s
