"""A scaled elementwise product in the style of Torch-TensorRT's plugin tutorials: the host code
asserts the tensors are on CUDA and of one shape, and the fake is registered separately with its
own parameter names (lower-case, where the op's are upper-case)."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "torchtrt_ex::scaled_mul(X=[2, 3, 64, 64], Y=[2, 3, 64, 64], lhs_scale=2.0, rhs_scale=0.5)"]


@triton.jit
def scaled_mul_kernel(X, Y, Z, n, lhs_scale, rhs_scale, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(X + offsets, mask=mask).to(tl.float32)
    y = tl.load(Y + offsets, mask=mask).to(tl.float32)
    z = (x * lhs_scale) * (y * rhs_scale)
    tl.store(Z + offsets, z.to(Z.dtype.element_ty), mask=mask)


@torch.library.custom_op("torchtrt_ex::scaled_mul", mutates_args=())  # type: ignore[misc]
def scaled_mul(X: torch.Tensor, Y: torch.Tensor, lhs_scale: float = 1.0,
               rhs_scale: float = 1.0) -> torch.Tensor:
    # Ensure the tensors are on the GPU
    assert X.is_cuda and Y.is_cuda, "Tensors must be on CUDA device."
    assert X.shape == Y.shape, "Tensors must have the same shape."

    Z = torch.empty_like(X)
    BLOCK_SIZE = 1024
    grid = lambda meta: (triton.cdiv(X.numel(), meta["BLOCK_SIZE"]),)  # noqa: E731
    scaled_mul_kernel[grid](X, Y, Z, X.numel(), lhs_scale, rhs_scale, BLOCK_SIZE=BLOCK_SIZE)
    return Z


@torch.library.register_fake("torchtrt_ex::scaled_mul")
def _(x: torch.Tensor, y: torch.Tensor, lhs_scale: float = 1.0,
      rhs_scale: float = 1.0) -> torch.Tensor:
    return torch.empty_like(x)


def scaled_mul_reference(X, Y, lhs_scale=1.0, rhs_scale=1.0):
    return ((X.float() * lhs_scale) * (Y.float() * rhs_scale)).to(X.dtype)
