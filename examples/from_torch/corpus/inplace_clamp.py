"""An in-place clamp: the op mutates its input and returns nothing (`mutates_args=("x",)`,
`-> None`), as a custom op that updates a buffer (a KV cache, an optimizer state) is written."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["mylib::clamp_(x=[16, 4096], min_value=-0.5, max_value=0.5)"]


@triton.jit
def _clamp_inplace_kernel(x_ptr, n_elements, min_value, max_value, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    x = tl.minimum(tl.maximum(x, min_value), max_value)
    tl.store(x_ptr + offsets, x, mask=mask)


@torch.library.custom_op("mylib::clamp_", mutates_args=("x",))
def clamp_(x: torch.Tensor, min_value: float, max_value: float) -> None:
    assert x.is_contiguous(), "clamp_ works on contiguous tensors"
    n_elements = x.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)  # noqa: E731
    _clamp_inplace_kernel[grid](x, n_elements, min_value, max_value, BLOCK_SIZE=512)


@clamp_.register_fake
def _(x, min_value, max_value):
    return None


def clamp_reference(x, min_value, max_value):
    """The value x holds after the op (clamping is exact in any dtype)."""
    return x.clamp(min_value, max_value)
