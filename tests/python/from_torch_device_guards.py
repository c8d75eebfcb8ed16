"""Host code written for a GPU, as Liger-Kernel and Torch-TensorRT's tutorials write it: it asserts
its inputs are CUDA tensors, guards the device, compares devices, reads the stream and the compute
capability, works on a 2-D view of its input and returns its output as a view. from-torch runs it
on fake CUDA tensors: the launch is recovered, and the returned view is the output."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["test::row_scale(x=[2, 3, 40], scale=[40])"]
DEVICE = torch.device("cuda:0")


@triton.jit
def row_scale_kernel(x_ptr, scale_ptr, y_ptr, n_cols, x_row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask)
    s = tl.load(scale_ptr + cols, mask=mask)
    tl.store(y_ptr + row * n_cols + cols, x * s, mask=mask)


@torch.library.custom_op("test::row_scale", mutates_args=())
def row_scale(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    assert x.is_cuda and scale.is_cuda, "inputs must be CUDA tensors"
    assert x.device == DEVICE
    assert torch.cuda.get_device_capability(x.device)[0] >= 8
    shape = x.shape
    x2 = x.view(-1, shape[-1])
    n_rows, n_cols = x2.shape
    y = torch.empty((n_rows, n_cols), dtype=x.dtype, device=x.device)
    torch.cuda.current_stream()
    with torch.cuda.device(x.device):
        row_scale_kernel[(n_rows,)](x2, scale, y, n_cols, x2.stride(0), BLOCK=64)
    return y.view(*shape)


@row_scale.register_fake
def _(x, scale):
    torch._check(scale.shape[0] == x.shape[-1])
    torch._check(x.shape[-1] <= 64, lambda: "a row fits one block")
    return torch.empty_like(x)
