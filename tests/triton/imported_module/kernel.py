import triton
import triton.language as tl

from helper import doubled


@triton.jit
def doubled_kernel(x, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(x + offsets, doubled(tl.load(x + offsets, mask=mask)), mask=mask)
