"""An elementwise activation chosen by name: the `str` argument of the op becomes the kernel's
`ACTIVATION: tl.constexpr`, so each activation is compiled as its own specialization."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "mylib::activation(x=[4, 96, 200], activation='leaky_relu')",
    "mylib::activation(x=[4, 96, 200], activation='gelu_tanh')",
    "mylib::activation(x=[4, 96, 200], activation='relu')",
]


@triton.jit
def tanh(x):
    return 2 * tl.sigmoid(2 * x) - 1


@triton.jit
def _activation_kernel(x_ptr, y_ptr, n_elements, ACTIVATION: tl.constexpr,
                       BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    if ACTIVATION == "leaky_relu":
        y = tl.where(x >= 0, x, 0.01 * x)
    elif ACTIVATION == "gelu_tanh":
        y = 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    else:
        y = tl.maximum(x, 0.0)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


@torch.library.custom_op("mylib::activation", mutates_args=())
def activation(x: torch.Tensor, activation: str) -> torch.Tensor:
    if activation not in ("leaky_relu", "gelu_tanh", "relu"):
        raise ValueError(f"unknown activation {activation!r}")
    y = torch.empty_like(x)
    n = x.numel()
    _activation_kernel[(triton.cdiv(n, 1024),)](x, y, n, ACTIVATION=activation, BLOCK_SIZE=1024)
    return y


@activation.register_fake
def _(x, activation):
    return torch.empty_like(x)


def activation_reference(x, activation):
    y = x.float()
    if activation == "leaky_relu":
        y = torch.nn.functional.leaky_relu(y, 0.01)
    elif activation == "gelu_tanh":
        y = torch.nn.functional.gelu(y, approximate="tanh")
    else:
        y = torch.relu(y)
    return y.to(x.dtype)
