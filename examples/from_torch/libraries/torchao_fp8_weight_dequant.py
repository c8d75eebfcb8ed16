"""torchao 0.18.0 blockwise FP8 weight dequantization
(`torchao.kernel.blockwise_quantization.fp8_blockwise_weight_dequant(x, s, block_size)`): a
float8_e4m3fn weight [M, N] and its float32 scale per 128 x 128 block, dequantized to the
default dtype. The host code asserts both contiguous and 2-D and launches a 2-D grid of
blocks; the kernels are defined inside a function and built on first use."""
import torch
from torchao.kernel.blockwise_quantization import fp8_blockwise_weight_dequant

AUTOPLUGIN_EXAMPLES = [
    "user_torchao::fp8_weight_dequant(x=float8_e4m3fn[2048, 4096], s=float32[16, 32])"]


@torch.library.custom_op("user_torchao::fp8_weight_dequant", mutates_args=())
def fp8_weight_dequant(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    return fp8_blockwise_weight_dequant(x, s, 128)


@fp8_weight_dequant.register_fake
def _(x, s):
    return x.new_empty(x.shape, dtype=torch.float32)
