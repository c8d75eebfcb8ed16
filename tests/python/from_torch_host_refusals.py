"""Host code from-torch refuses, each with the line and what to change: `aligned_copy` asserts a
condition its fake does not state (the plugin would accept sizes the host code rejects);
`upcast_copy` passes its kernel a tensor it computes (`x.float()`), which a plugin cannot make."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["test::aligned_copy(x=[8, 64])", "test::upcast_copy(x=[8, 64])"]


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


@torch.library.custom_op("test::aligned_copy", mutates_args=())
def aligned_copy(x: torch.Tensor) -> torch.Tensor:
    assert x.shape[-1] % 4 == 0, "rows of a multiple of 4"
    y = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y


@aligned_copy.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("test::upcast_copy", mutates_args=())
def upcast_copy(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty(x.shape, dtype=torch.float32, device=x.device)
    copy_kernel[(triton.cdiv(x.numel(), 256),)](x.float(), y, x.numel(), BLOCK=256)
    return y


@upcast_copy.register_fake
def _(x):
    return x.new_empty(x.shape, dtype=torch.float32)
