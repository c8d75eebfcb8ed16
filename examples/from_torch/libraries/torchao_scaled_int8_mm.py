"""torchao's scaled int8 GEMM (`torchao.prototype.quantized_training.int8_mm.scaled_int8_mm_cuda`,
torchao 0.18.0; the host code registered as the CUDA kernel of `torchao::scaled_int8_mm`, used by
int8 quantized training / W8A8 linear layers): C = (A @ B) * row_scale[:, None] * col_scale,
A and B int8, called as a user of the library calls it.

Host code: C allocated in row_scale's dtype; an autotuned kernel (27 configs of BLOCK_M/N/K,
keyed on M, N, K and the K strides) with a `@triton.heuristics` EVEN_K = K % BLOCK_K == 0,
`grid = cdiv(meta["M"], meta["BLOCK_M"]) * cdiv(meta["N"], meta["BLOCK_N"])` (read from the
kernel's arguments), all strides passed, COL_SCALE_SCALAR = col_scale.numel() == 1 a constexpr.
The fake is torchao's own Meta implementation (no checks)."""
import torch
from torchao.prototype.quantized_training.int8_mm import scaled_int8_mm_cuda

AUTOPLUGIN_EXAMPLES = [
    "user_torchao::scaled_int8_mm(A=int8[256, 4096], B=int8[4096, 4096], row_scale=[256], "
    "col_scale=[4096])"]


@torch.library.custom_op("user_torchao::scaled_int8_mm", mutates_args=())
def scaled_int8_mm(A: torch.Tensor, B: torch.Tensor, row_scale: torch.Tensor,
                   col_scale: torch.Tensor) -> torch.Tensor:
    return scaled_int8_mm_cuda(A, B, row_scale, col_scale)


@scaled_int8_mm.register_fake
def _(A, B, row_scale, col_scale):
    return torch.empty((A.shape[0], B.shape[1]), device=A.device, dtype=row_scale.dtype)
