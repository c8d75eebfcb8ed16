"""bitsandbytes' Triton 4-bit blockwise dequantization
(`bitsandbytes.backends.triton.ops.dequantize_4bit`, bitsandbytes 0.50.2; the Triton backend
bitsandbytes registers for XPU; NF4 weights of a QLoRA model dequantized to bfloat16), called as
a user of the library calls it.

Host code: raises on a non-float dtype, views non-uint8 storage as uint8, allocates the output
in `shape`/`dtype` and under `torch.<accelerator>.device(A.device)` calls `dequantize_4bit_impl`:
`grid = cdiv(A.numel(), 256)` (SPLIT_SIZE = 256), the NF4 or FP4 kernel chosen by quant_type,
blocksize passed to the kernel. The fake is bitsandbytes' own registered fake of
`bitsandbytes::dequantize_4bit` (with its checks)."""
import torch
from bitsandbytes.backends.triton.ops import dequantize_4bit

AUTOPLUGIN_EXAMPLES = [
    "user_bnb::dequantize_4bit(A=uint8[8388608, 1], absmax=float32[262144], blocksize=64, "
    "quant_type='nf4', shape=[4096, 4096])"]


@torch.library.custom_op("user_bnb::dequantize_4bit", mutates_args=())
def dequantize_4bit_op(A: torch.Tensor, absmax: torch.Tensor, blocksize: int, quant_type: str,
                       shape: list[int]) -> torch.Tensor:
    return dequantize_4bit(A, absmax, blocksize, quant_type, shape, torch.bfloat16)


@dequantize_4bit_op.register_fake
def _(A, absmax, blocksize, quant_type, shape):
    torch._check(blocksize in (32, 64, 128, 256, 512, 1024, 2048, 4096),
                 lambda: f"invalid blocksize {blocksize}")
    torch._check(quant_type in ("nf4", "fp4"),
                 lambda: f"quant_type must be 'nf4' or 'fp4', got {quant_type!r}")
    torch._check(absmax.dtype == torch.float32,
                 lambda: f"absmax must be float32, got {absmax.dtype}")
    return torch.empty(shape, dtype=torch.bfloat16, device=A.device)
