"""Host code that changes a tensor's layout with PyTorch around its kernels, as library code does
(Liger's RoPE): `channel_scale` makes a channels-last copy of its NCHW input (`permute(...)
.contiguous()`), scales each channel in that layout with its kernel and returns the result as an
NCHW view of the channels-last buffer; `transposed_copy` returns the transpose (`y.t()`) of what
its kernel writes. A plugin's output is contiguous in its own shape, so each becomes a copy by
the plugin's own kernel, the channels-last buffers in its workspace. `ordered_copy` permutes its
input into the order it already has (FlagGems' `dim_compress` reducing the last axis), whose
`.contiguous()` copies nothing: its kernel reads the input itself."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["test::channel_scale(x=[2, 3, 5, 7], scale=[3])",
                       "test::transposed_copy(x=[8, 64])",
                       "test::ordered_copy(x=[8, 64])"]


@triton.jit
def last_axis_scale_kernel(x_ptr, scale_ptr, y_ptr, n, channels, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    s = tl.load(scale_ptr + offsets % channels, mask=mask)
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * s, mask=mask)


@torch.library.custom_op("test::channel_scale", mutates_args=())
def channel_scale(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    channels_last = x.permute(0, 2, 3, 1).contiguous()
    y = torch.empty_like(channels_last)
    n = y.numel()
    last_axis_scale_kernel[(triton.cdiv(n, 256),)](channels_last, scale, y, n, x.shape[1],
                                                   BLOCK=256)
    return y.permute(0, 3, 1, 2)


@channel_scale.register_fake
def _(x, scale):
    torch._check(scale.shape[0] == x.shape[1])
    return torch.empty_like(x)


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


@torch.library.custom_op("test::transposed_copy", mutates_args=())
def transposed_copy(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty((x.shape[1], x.shape[0]), dtype=x.dtype, device=x.device)
    copy_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y.t()


@transposed_copy.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("test::ordered_copy", mutates_args=())
def ordered_copy(x: torch.Tensor) -> torch.Tensor:
    rows = x.permute(0, 1).transpose(-1, 1).contiguous()
    y = torch.empty_like(rows)
    copy_kernel[(triton.cdiv(x.numel(), 256),)](rows, y, x.numel(), BLOCK=256)
    return y


@ordered_copy.register_fake
def _(x):
    return torch.empty_like(x)
