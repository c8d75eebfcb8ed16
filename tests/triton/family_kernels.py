"""Kernels for the Triton family tests: variants over constexpr values, a heuristic, a string
constexpr and autotune configs."""
import triton
import triton.language as tl


@triton.heuristics({"EVEN": lambda args: args["n"] == args["BLOCK"]})
@triton.jit
def row_scale_kernel(x, out, n, scale, BLOCK: tl.constexpr, EVEN: tl.constexpr,
                     MODE: tl.constexpr):
    """out = MODE(scale * x) row by row, one program a row of n <= BLOCK elements: a family over
    BLOCK, a heuristic (EVEN: the row fills the block, no mask) and a string constexpr."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    if EVEN:
        value = tl.load(x + row * n + cols)
    else:
        value = tl.load(x + row * n + cols, mask=cols < n, other=0.0)
    value = value * scale
    if MODE == "relu":
        value = tl.maximum(value, 0.0)
    if EVEN:
        tl.store(out + row * n + cols, value)
    else:
        tl.store(out + row * n + cols, value, mask=cols < n)


@triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=2),
                          triton.Config({"BLOCK": 1024}, num_warps=4, num_stages=2)],
                 key=["n"])
@triton.jit
def autotuned_add_kernel(x, y, out, n, BLOCK: tl.constexpr):
    """out = x + y with the block of each @triton.autotune config."""
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    tl.store(out + i, tl.load(x + i, mask=mask) + tl.load(y + i, mask=mask), mask=mask)
