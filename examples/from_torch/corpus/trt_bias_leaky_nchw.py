"""A per-channel bias and leaky ReLU on NCHW in the style of Torch-TensorRT's plugin tutorials,
declared with `torch.library.define` and a schema string (a default `alpha`), its CUDA kernel
given with `@torch.library.impl(..., "cuda")` and its fake with `@torch.library.register_fake`,
both by the op's string name. Two tensor inputs broadcast: `bias` of shape [C] onto `x` of shape
[N, C, H, W], a 2-D grid of (N * C, tiles of H * W), every access through the strides the host
passes with `*x.stride()`."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["torchtrt_ex::bias_leaky_nchw(x=[2, 24, 17, 33], bias=[24], alpha=0.2)"]

torch.library.define("torchtrt_ex::bias_leaky_nchw",
                     "(Tensor x, Tensor bias, float alpha=0.1) -> Tensor")


@triton.jit
def bias_leaky_nchw_kernel(
    x_ptr, bias_ptr, out_ptr,
    C, H, W,
    stride_xn, stride_xc, stride_xh, stride_xw,
    stride_on, stride_oc, stride_oh, stride_ow,
    alpha,
    BLOCK: tl.constexpr,
):
    pid_nc = tl.program_id(0).to(tl.int64)
    pid_hw = tl.program_id(1)
    n = pid_nc // C
    c = pid_nc % C
    offsets = pid_hw * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < H * W
    h = offsets // W
    w = offsets % W

    x = tl.load(x_ptr + n * stride_xn + c * stride_xc + h * stride_xh + w * stride_xw,
                mask=mask).to(tl.float32)
    b = tl.load(bias_ptr + c).to(tl.float32)
    y = x + b
    y = tl.where(y >= 0, y, alpha * y)
    tl.store(out_ptr + n * stride_on + c * stride_oc + h * stride_oh + w * stride_ow,
             y.to(out_ptr.dtype.element_ty), mask=mask)


@torch.library.impl("torchtrt_ex::bias_leaky_nchw", "cuda")
def bias_leaky_nchw_cuda(x: torch.Tensor, bias: torch.Tensor, alpha: float = 0.1) -> torch.Tensor:
    assert x.is_cuda and bias.is_cuda, "Tensors must be on CUDA device."
    assert x.dim() == 4, "x must be NCHW"
    assert bias.dim() == 1 and bias.shape[0] == x.shape[1], "bias must have C elements"
    N, C, H, W = x.shape
    out = torch.empty((N, C, H, W), dtype=x.dtype, device=x.device)
    BLOCK = 256
    grid = (N * C, triton.cdiv(H * W, BLOCK))
    bias_leaky_nchw_kernel[grid](
        x, bias, out,
        C, H, W,
        *x.stride(),
        *out.stride(),
        alpha,
        BLOCK=BLOCK,
        num_warps=4,
    )
    return out


@torch.library.register_fake("torchtrt_ex::bias_leaky_nchw")
def _(x: torch.Tensor, bias: torch.Tensor, alpha: float = 0.1) -> torch.Tensor:
    torch._check(bias.shape[0] == x.shape[1])
    return x.new_empty(x.shape)


def bias_leaky_nchw_reference(x, bias, alpha=0.1):
    y = x.float() + bias.float()[None, :, None, None]
    return torch.nn.functional.leaky_relu(y, alpha).to(x.dtype)
