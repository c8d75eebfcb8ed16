"""Kernels for the Triton tests: each exercises one part of argument passing."""
import triton
import triton.language as tl


@triton.jit
def scale_add_kernel(x, y, out, n, alpha, BLOCK: tl.constexpr):
    """out = alpha * x + y: an fp32 scalar parameter (4 bytes in the kernel, not a double)."""
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    tl.store(out + i, alpha * tl.load(x + i, mask=mask) + tl.load(y + i, mask=mask), mask=mask)


@triton.jit
def scalars_kernel(out, stream, b, c, d, e, f, g, h, i, j, double):
    """Writes every scalar parameter, converted to float64, to out[0..10]. Two parameters have
    names that C++ cannot take as they are (a name launch() uses, a C++ keyword)."""
    tl.store(out + 0, stream.to(tl.float64))
    tl.store(out + 1, b.to(tl.float64))
    tl.store(out + 2, c.to(tl.float64))
    tl.store(out + 3, d.to(tl.float64))
    tl.store(out + 4, e.to(tl.float64))
    tl.store(out + 5, f.to(tl.float64))
    tl.store(out + 6, g.to(tl.float64))
    tl.store(out + 7, h.to(tl.float64))
    tl.store(out + 8, i.to(tl.float64))
    tl.store(out + 9, j.to(tl.float64))
    tl.store(out + 10, double.to(tl.float64))


@triton.jit
def tile_copy_kernel(x, out, rows, cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """A copy through device-side tensor descriptors, which live in global scratch memory."""
    source = tl.make_tensor_descriptor(x, shape=[rows, cols], strides=[cols, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    target = tl.make_tensor_descriptor(out, shape=[rows, cols], strides=[cols, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    m = tl.program_id(0) * BLOCK_M
    n = tl.program_id(1) * BLOCK_N
    target.store([m, n], source.load([m, n]))
