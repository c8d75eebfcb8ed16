"""A fake that requires two inputs' extents to be equal (a bias matching the last dimension): the
trace gives them one value, and the equality becomes a requirement of the plugin."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["test::add_bias(x=[4, 3, 32], bias=[32])"]


@triton.jit
def add_bias_kernel(x_ptr, bias_ptr, out_ptr, n, cols, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    value = tl.load(x_ptr + offsets, mask=mask) + tl.load(bias_ptr + offsets % cols, mask=mask)
    tl.store(out_ptr + offsets, value, mask=mask)


@torch.library.custom_op("test::add_bias", mutates_args=())
def add_bias(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    add_bias_kernel[(triton.cdiv(n, 256),)](x, bias, out, n, x.shape[-1], BLOCK=256)
    return out


@add_bias.register_fake
def _(x, bias):
    torch._check(bias.shape[0] == x.shape[-1], lambda: "bias matches x's last dimension")
    return torch.empty_like(x)
