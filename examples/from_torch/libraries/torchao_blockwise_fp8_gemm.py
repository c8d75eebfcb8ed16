"""torchao 0.18.0 blockwise FP8 GEMM (`torchao.kernel.blockwise_quantization.blockwise_fp8_gemm`;
DeepSeek-V3's blockwise-quantized linear layer): A [M, K] and B [N, K] in float8_e4m3fn, float32
scales per 128 block, C = A @ B.T in bfloat16. The function calls torchao's own custom op
(`torch.ops.ao.blockwise_fp8_gemm`, a `torch.library.custom_op` with a fake), whose
implementation asserts its inputs contiguous, buckets M by its log2 (`M_BUCKET`, a constexpr
and an autotune key) and launches a kernel autotuned over its tiles."""
import torch
from torchao.kernel.blockwise_quantization import blockwise_fp8_gemm

AUTOPLUGIN_EXAMPLES = [
    "user_torchao::blockwise_fp8_gemm(a=float8_e4m3fn[64, 4096], a_s=float32[64, 32], "
    "b=float8_e4m3fn[2048, 4096], b_s=float32[16, 32])"
]


@torch.library.custom_op("user_torchao::blockwise_fp8_gemm", mutates_args=())
def gemm(a: torch.Tensor, a_s: torch.Tensor, b: torch.Tensor, b_s: torch.Tensor) -> torch.Tensor:
    return blockwise_fp8_gemm(a, a_s, b, b_s, 128)


@gemm.register_fake
def _(a, a_s, b, b_s):
    return a.new_empty(*a.shape[:-1], b.shape[0], dtype=torch.bfloat16)
