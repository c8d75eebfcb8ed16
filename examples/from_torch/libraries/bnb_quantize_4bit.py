"""bitsandbytes' Triton 4-bit blockwise quantization
(`bitsandbytes.backends.triton.ops.quantize_4bit`,
bitsandbytes 0.50.2; the Triton backend bitsandbytes registers for XPU, NF4 as in QLoRA), called
as a user of the library calls it, with uint8 storage.

Host code: raises on non-float inputs, pads the flattened input to a multiple of blocksize with
`F.pad` when needed, allocates absmax [2 * cdiv(n, 2 * blocksize)] and the packed output
[n - n // 2, 1] uint8, and under `torch.<accelerator>.device(A.device)` launches the NF4 kernel
over `grid = cdiv(blocks, 4)` (SPLIT_NUM_BLOCKS = 4, BLOCK_SIZE = blocksize constexprs); returns
`absmax.float()`. The fake is bitsandbytes' own registered fake of `bitsandbytes::quantize_4bit`
(with its checks)."""
import torch
from bitsandbytes.backends.triton.ops import quantize_4bit

AUTOPLUGIN_EXAMPLES = [
    "user_bnb::quantize_4bit(A=[4096, 4096], blocksize=64, quant_type='nf4')"]


@torch.library.custom_op("user_bnb::quantize_4bit", mutates_args=())
def quantize_4bit_op(A: torch.Tensor, blocksize: int,
                     quant_type: str) -> tuple[torch.Tensor, torch.Tensor]:
    return quantize_4bit(A, blocksize, quant_type, torch.uint8)


@quantize_4bit_op.register_fake
def _(A, blocksize, quant_type):
    torch._check(blocksize in (32, 64, 128, 256, 512, 1024, 2048, 4096),
                 lambda: f"invalid blocksize {blocksize}")
    torch._check(quant_type in ("nf4", "fp4"),
                 lambda: f"quant_type must be 'nf4' or 'fp4', got {quant_type!r}")
    torch._check(
        A.dtype in (torch.float16, torch.bfloat16, torch.float32),
        lambda: f"Blockwise 4bit quantization only supports 16/32-bit floats, but got {A.dtype}",
    )
    n = A.numel()
    blocks = -(n // -blocksize)
    absmax = torch.empty((blocks,), device=A.device, dtype=torch.float32)
    out = torch.empty(((n + 1) // 2, 1), device=A.device, dtype=torch.uint8)
    return out, absmax
