"""User's ops whose host code calls a library's op through torch.ops
(from_torch_imported_library.py's `halve`, a torch.library.custom_op launching a Triton kernel,
as torchao's blockwise FP8 GEMM is, and `halve_rows`, a Python kernel registered for CUDA with
`Library.impl`, as vLLM's and SGLang's ops are): from-torch runs the library op's
implementation, not its fake, and the plugin launches its kernel."""
import torch

import from_torch_imported_library  # noqa: F401

AUTOPLUGIN_EXAMPLES = ["user_ns::halved(x=[8, 64])", "user_ns::halved_rows(x=[8, 64])"]


@torch.library.custom_op("user_ns::halved", mutates_args=())
def halved(x: torch.Tensor) -> torch.Tensor:
    return torch.ops.imported_lib.halve(x.contiguous())


@halved.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("user_ns::halved_rows", mutates_args=())
def halved_rows(x: torch.Tensor) -> torch.Tensor:
    return torch.ops.imported_lib.halve_rows(x.contiguous())


@halved_rows.register_fake
def _(x):
    return torch.empty_like(x)
