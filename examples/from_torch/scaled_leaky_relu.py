"""An elementwise custom op with float attributes: out = scale * (x if x > 0 else slope * x).

The grid is a function of the launch's meta-parameters, as Triton's tutorials write it; the float
attributes reach the kernel as fp32 scalars.
"""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["ex::scaled_leaky_relu(x=[4, 3, 32], negative_slope=0.1, scale=2.0)"]


@triton.jit
def scaled_leaky_relu_kernel(x_ptr, out_ptr, n, negative_slope, scale, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.where(x > 0, x, x * negative_slope) * scale
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


@torch.library.custom_op("ex::scaled_leaky_relu", mutates_args=())
def scaled_leaky_relu(x: torch.Tensor, negative_slope: float, scale: float) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)  # noqa: E731
    scaled_leaky_relu_kernel[grid](x, out, n, negative_slope, scale, BLOCK=1024)
    return out


@scaled_leaky_relu.register_fake
def _(x, negative_slope, scale):
    return torch.empty_like(x)
