"""Two ops added to a namespace with `torch.library.Library("corpus_frag", "FRAGMENT")` and
schema strings: a 2-D average pool with `int[2]` kernel size and stride (`stride=[]` meaning
the kernel size, as PyTorch's own schema has it) over a 2-D grid of (N * C, output tiles) with
runtime loops over the window, and a constant pad of a matrix to a `SymInt[]` size (the output's
shape is the attribute). Kernels are given with `lib.impl(..., "CUDA")`, fakes with
`torch.library.register_fake` by string name."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "corpus_frag::avg_pool2d(x=[2, 16, 30, 41], kernel_size=[3, 2], stride=[2, 2])",
    "corpus_frag::avg_pool2d(x=[2, 16, 30, 41], kernel_size=[2, 2], stride=[])",
    "corpus_frag::pad_to(x=[100, 70], size=[128, 128], value=0.0)",
]

lib = torch.library.Library("corpus_frag", "FRAGMENT")
lib.define("avg_pool2d(Tensor x, int[2] kernel_size, int[2] stride=[]) -> Tensor")
lib.define("pad_to(Tensor x, SymInt[] size, float value=0.0) -> Tensor")


@triton.jit
def avg_pool2d_kernel(x_ptr, out_ptr, H, W, OH, OW, KH, KW, SH, SW, BLOCK: tl.constexpr):
    pid_nc = tl.program_id(0).to(tl.int64)
    pid = tl.program_id(1)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < OH * OW
    oh = offsets // OW
    ow = offsets % OW
    x_base = x_ptr + pid_nc * H * W
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for kh in range(0, KH):
        for kw in range(0, KW):
            ih = oh * SH + kh
            iw = ow * SW + kw
            acc += tl.load(x_base + ih * W + iw, mask=mask, other=0.0).to(tl.float32)
    acc = acc / (KH * KW)
    tl.store(out_ptr + pid_nc * OH * OW + offsets, acc.to(out_ptr.dtype.element_ty), mask=mask)


def avg_pool2d_cuda(x, kernel_size, stride=()):
    if len(stride) == 0:
        stride = kernel_size
    kh, kw = kernel_size
    sh, sw = stride
    N, C, H, W = x.shape
    OH = (H - kh) // sh + 1
    OW = (W - kw) // sw + 1
    x = x.contiguous()
    out = torch.empty((N, C, OH, OW), dtype=x.dtype, device=x.device)
    BLOCK = 128
    grid = (N * C, triton.cdiv(OH * OW, BLOCK))
    avg_pool2d_kernel[grid](x, out, H, W, OH, OW, kh, kw, sh, sw, BLOCK=BLOCK)
    return out


lib.impl("avg_pool2d", avg_pool2d_cuda, "CUDA")


@torch.library.register_fake("corpus_frag::avg_pool2d")
def _(x, kernel_size, stride=()):
    if len(stride) == 0:
        stride = kernel_size
    kh, kw = kernel_size
    sh, sw = stride
    N, C, H, W = x.shape
    torch._check(kh >= 1 and kw >= 1 and sh >= 1 and sw >= 1)
    torch._check(H >= kh)
    torch._check(W >= kw)
    return x.new_empty((N, C, (H - kh) // sh + 1, (W - kw) // sw + 1))


@triton.jit
def pad_to_kernel(x_ptr, out_ptr, H, W, OH, OW, value, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < OH * OW
    r = offsets // OW
    c = offsets % OW
    inside = (r < H) & (c < W)
    v = tl.load(x_ptr + r * W + c, mask=mask & inside, other=0.0)
    v = tl.where(inside, v, value)
    tl.store(out_ptr + offsets, v.to(out_ptr.dtype.element_ty), mask=mask)


def pad_to_cuda(x, size, value=0.0):
    H, W = x.shape
    OH, OW = size
    x = x.contiguous()
    out = torch.empty((OH, OW), dtype=x.dtype, device=x.device)
    BLOCK = 1024
    pad_to_kernel[(triton.cdiv(OH * OW, BLOCK),)](x, out, H, W, OH, OW, value, BLOCK=BLOCK)
    return out


lib.impl("pad_to", pad_to_cuda, "CUDA")


@torch.library.register_fake("corpus_frag::pad_to")
def _(x, size, value=0.0):
    torch._check(len(size) == 2)
    torch._check(size[0] >= x.shape[0])
    torch._check(size[1] >= x.shape[1])
    return x.new_empty(size)


def avg_pool2d_reference(x, kernel_size, stride=()):
    return torch.nn.functional.avg_pool2d(x.float(), kernel_size, stride or None).to(x.dtype)


def pad_to_reference(x, size, value=0.0):
    return torch.nn.functional.pad(x, (0, size[1] - x.shape[1], 0, size[0] - x.shape[0]),
                                   value=value)
