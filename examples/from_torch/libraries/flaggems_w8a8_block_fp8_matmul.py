"""FlagGems 5.0.2 W8A8 block-FP8 matmul (`flag_gems.ops.w8a8_block_fp8_matmul.w8a8_block_fp8_matmul`;
DeepSeek-V3's blockwise-quantized linear layer), called as a user of the library calls it: A [M, K]
and B [N, K] in float8_e4m3fn, float32 scales per [1, 128] block of A (As [M, K / 128]) and per
[128, 128] block of B (Bs [N / 128, K / 128]), C = A @ B.T in bfloat16.

Host code: asserts the scales' shapes (`triton.cdiv(K, block_k) == As.shape[-1]`, ...) and A
contiguous; looks up a tuned configuration by the GPU's name (`torch.cuda.get_device_name()`, in a
YAML file of configurations per device and (N, K), the one for the M nearest), else a default one
(BLOCK_SIZE_N and BLOCK_SIZE_K the quantization block); passes it as `**config` (block sizes,
GROUP_SIZE_M, num_warps, num_stages); grid `cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)`. The
fake gives the output's shape and dtype."""
import torch
from flag_gems.ops.w8a8_block_fp8_matmul import w8a8_block_fp8_matmul

AUTOPLUGIN_EXAMPLES = [
    "user_flaggems::w8a8_block_fp8_matmul(A=float8_e4m3fn[16, 7168], B=float8_e4m3fn[2048, 7168], "
    "As=float32[16, 56], Bs=float32[16, 56])"
]


@torch.library.custom_op("user_flaggems::w8a8_block_fp8_matmul", mutates_args=())
def w8a8_block_fp8_matmul_op(A: torch.Tensor, B: torch.Tensor, As: torch.Tensor,
                             Bs: torch.Tensor) -> torch.Tensor:
    return w8a8_block_fp8_matmul(A, B, As, Bs, [128, 128], torch.bfloat16)


@w8a8_block_fp8_matmul_op.register_fake
def _(A, B, As, Bs):
    return A.new_empty(*A.shape[:-1], B.shape[0], dtype=torch.bfloat16)
