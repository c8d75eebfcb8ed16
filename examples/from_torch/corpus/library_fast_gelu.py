"""A sigmoid-approximated GELU (x * sigmoid(alpha * x)) defined the older way: a
`torch.library.Library` fragment, `define` with a schema string (a default attribute value),
`impl` for the CUDA dispatch key and `impl_abstract` for the meta/fake kernel."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["corpus_lib::fast_gelu(x=[8, 3000], alpha=1.702)"]

lib = torch.library.Library("corpus_lib", "DEF")
lib.define("fast_gelu(Tensor x, float alpha=1.702) -> Tensor")


@triton.jit
def fast_gelu_kernel(x_ptr, y_ptr, n_elements, alpha, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = x * tl.sigmoid(alpha * x)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def fast_gelu_cuda(x, alpha=1.702):
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    BLOCK = 2048
    fast_gelu_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, alpha, BLOCK=BLOCK, num_warps=8)
    return y


lib.impl("fast_gelu", fast_gelu_cuda, "CUDA")


@torch.library.impl_abstract("corpus_lib::fast_gelu")
def fast_gelu_abstract(x, alpha=1.702):
    return x.new_empty(x.shape)


def fast_gelu_reference(x, alpha=1.702):
    y = x.float()
    return (y * torch.sigmoid(alpha * y)).to(x.dtype)
