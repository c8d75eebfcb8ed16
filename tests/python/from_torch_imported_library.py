"""Stands for a library a user's module imports: at import it registers ops of its own, through
`torch.library.Library.impl` and `torch.library.custom_op` (as torchao, xformers, bitsandbytes
and PyTorch's inductor do), which are not the user's ops; two of them launch a Triton kernel,
for a user's op that calls them through torch.ops (from_torch_calls_library_op.py): `halve`, a
`custom_op` as torchao's blockwise FP8 GEMM is, and `halve_rows`, a Python kernel registered
for CUDA with `Library.impl` and a fake, as vLLM's and SGLang's `direct_register_custom_op`
register theirs."""
import torch
import triton
import triton.language as tl

_LIBRARY = torch.library.Library("imported_lib", "DEF")
_LIBRARY.define("noise(Tensor x, Device device) -> Tensor")
_LIBRARY.impl("noise", lambda x, device: x.clone(), "CompositeExplicitAutograd")


@torch.library.custom_op("imported_lib::merge", mutates_args=())
def merge(parts: list[torch.Tensor]) -> torch.Tensor:
    return torch.cat(parts)


@triton.jit
def halve_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 0.5, mask=mask)


@torch.library.custom_op("imported_lib::halve", mutates_args=())
def halve(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    halve_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y


@halve.register_fake
def _(x):
    return torch.empty_like(x)


_LIBRARY.define("halve_rows(Tensor x) -> Tensor")


def halve_rows(x):
    y = torch.empty_like(x)
    halve_kernel[(triton.cdiv(x.numel(), 128),)](x, y, x.numel(), BLOCK=128)
    return y


_LIBRARY.impl("halve_rows", halve_rows, dispatch_key="CUDA")
torch.library.register_fake("imported_lib::halve_rows", lambda x: torch.empty_like(x),
                            lib=_LIBRARY)
