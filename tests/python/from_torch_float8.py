"""float8_e4m3fn tensors of the op itself (TensorRT's FP8): a row of fp8 values rescaled by a
float per row into fp8 again, as a quantized activation is requantized. The example gives the
fp8 input its dtype (`x=float8_e4m3fn[...]`); the scale follows --dtypes."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["test::rescale_fp8(x=float8_e4m3fn[64, 256], scale=[64])"]


@triton.jit
def rescale_kernel(x_ptr, scale_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    columns = tl.arange(0, BLOCK)
    mask = columns < n_cols
    x = tl.load(x_ptr + row * n_cols + columns, mask=mask, other=0.0).to(tl.float32)
    scale = tl.load(scale_ptr + row).to(tl.float32)
    tl.store(y_ptr + row * n_cols + columns, (x * scale).to(y_ptr.dtype.element_ty), mask=mask)


@torch.library.custom_op("test::rescale_fp8", mutates_args=())
def rescale_fp8(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    rescale_kernel[(x.shape[0],)](x, scale, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return y


@rescale_fp8.register_fake
def _(x, scale):
    torch._check(scale.shape[0] == x.shape[0])
    return torch.empty_like(x)
