"""Fused dropout + residual add, `out = residual + dropout(x)`, after Triton's low-memory-dropout
tutorial: the keep mask comes from a seed and each element's offset (`tl.rand`), each program
handles `UNROLL` blocks in a `tl.static_range` loop, host code makes the inputs contiguous, takes
the element count from `x.numel()` and turns dropout off outside training (`p` becomes 0.0 when
`training` is False)."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "tutorial::dropout_add(x=[8, 300, 64], residual=[8, 300, 64], p=0.1, seed=1234,"
    " training=True)",
]


@triton.jit
def _dropout_add_kernel(x_ptr, residual_ptr, out_ptr, n_elements, p, seed,
                        BLOCK_SIZE: tl.constexpr, UNROLL: tl.constexpr):
    pid = tl.program_id(0)
    block_start = pid * BLOCK_SIZE * UNROLL
    scale = 1.0 / (1.0 - p)
    for i in tl.static_range(UNROLL):
        offsets = block_start + i * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
        residual = tl.load(residual_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
        keep = tl.rand(seed, offsets) > p
        out = residual + tl.where(keep, x * scale, 0.0)
        tl.store(out_ptr + offsets, out.to(out_ptr.dtype.element_ty), mask=mask)


@torch.library.custom_op("tutorial::dropout_add", mutates_args=())
def dropout_add(x: torch.Tensor, residual: torch.Tensor, p: float, seed: int,
                training: bool = True) -> torch.Tensor:
    x = x.contiguous()
    residual = residual.contiguous()
    assert x.shape == residual.shape
    assert 0.0 <= p < 1.0
    out = torch.empty_like(x)
    n_elements = x.numel()
    p_effective = p if training else 0.0
    BLOCK_SIZE = 1024
    UNROLL = 4
    grid = (triton.cdiv(n_elements, BLOCK_SIZE * UNROLL),)
    _dropout_add_kernel[grid](x, residual, out, n_elements, p_effective, seed,
                              BLOCK_SIZE=BLOCK_SIZE, UNROLL=UNROLL, num_warps=4)
    return out


@dropout_add.register_fake
def _(x, residual, p, seed, training=True):
    return torch.empty_like(x)
