"""A fake that requires two inputs' extents to be equal (a bias matching the last dimension): the
trace gives them one value, and the equality becomes a requirement of the plugin; and one that
relates them otherwise (one input twice as long as the other), traced at the example's extents."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["test::add_bias(x=[4, 3, 32], bias=[32])",
                       "test::add_pairs(x=[40], pairs=[20])"]


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


@triton.jit
def interleave_kernel(x_ptr, pairs_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    value = tl.load(x_ptr + offsets, mask=mask) + tl.load(pairs_ptr + offsets // 2, mask=mask)
    tl.store(out_ptr + offsets, value, mask=mask)


@torch.library.custom_op("test::add_pairs", mutates_args=())
def add_pairs(x: torch.Tensor, pairs: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    interleave_kernel[(triton.cdiv(n, 256),)](x, pairs, out, n, BLOCK=256)
    return out


@add_pairs.register_fake
def _(x, pairs):
    # A relation other than equality: traced at the example's extents, where it holds.
    torch._check(pairs.shape[0] * 2 == x.shape[0])
    return torch.empty_like(x)
