"""A user's module that imports a library registering ops of its own
(from_torch_imported_library.py) and defines one op through `Library.impl`: from-torch finds
this module's op only."""
import torch
import triton
import triton.language as tl

import from_torch_imported_library  # noqa: F401

AUTOPLUGIN_EXAMPLES = ["user_ns::scaled(x=[8, 64])"]

_LIBRARY = torch.library.Library("user_ns", "DEF")
_LIBRARY.define("scaled(Tensor x) -> Tensor")


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, 2 * tl.load(x_ptr + offsets, mask=mask), mask=mask)


def scaled(x):
    y = torch.empty_like(x)
    scale_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y


_LIBRARY.impl("scaled", scaled, "CUDA")


@torch.library.register_fake("user_ns::scaled")
def _(x):
    return torch.empty_like(x)
