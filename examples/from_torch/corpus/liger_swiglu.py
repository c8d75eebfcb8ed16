"""SwiGLU forward in the style of Liger-Kernel: silu(a) * b over the last dimension, the inputs
flattened to rows with views, `calculate_settings` for the block size and warps, a
`torch.cuda.device` guard around the launch and the output returned in the input's shape."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["liger::swiglu(a=[2, 17, 688], b=[2, 17, 688])"]

MAX_FUSED_SIZE = 65536


def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(
            f"Cannot launch Triton kernel since n = {n} exceeds "
            f"the recommended Triton blocksize = {MAX_FUSED_SIZE}."
        )
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


@triton.jit
def silu(x):
    return x * tl.sigmoid(x)


@triton.jit
def _swiglu_forward_kernel(a_ptr, b_ptr, c_ptr, stride, n_cols: tl.constexpr,
                           BLOCK_SIZE: tl.constexpr):
    program_id = tl.program_id(0).to(tl.int64)

    # locate start index
    a_ptr += program_id * stride
    b_ptr += program_id * stride
    c_ptr += program_id * stride

    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    # sigmoid requires type float32
    a_row = tl.load(a_ptr + col_offsets, mask=mask, other=0).to(tl.float32)
    b_row = tl.load(b_ptr + col_offsets, mask=mask, other=0)
    c_row = silu(a_row).cast(b_row.dtype) * b_row
    tl.store(c_ptr + col_offsets, c_row, mask=mask)


def swiglu_forward(a, b):
    ori_shape = a.shape

    n_cols = ori_shape[-1]
    a = a.view(-1, n_cols)
    b = b.view(-1, n_cols)
    c = torch.empty_like(a)
    n_rows = a.shape[0]

    BLOCK_SIZE, num_warps = calculate_settings(n_cols)

    with torch.cuda.device(a.device):
        _swiglu_forward_kernel[(n_rows,)](
            a,
            b,
            c,
            c.stride(-2),
            n_cols=n_cols,
            BLOCK_SIZE=BLOCK_SIZE,
            num_warps=num_warps,
        )
    return a, b, c.view(*ori_shape)


@torch.library.custom_op("liger::swiglu", mutates_args=())
def swiglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    _, _, c = swiglu_forward(a.contiguous(), b.contiguous())
    return c


@swiglu.register_fake
def _(a, b):
    return torch.empty_like(a)


def llama_mlp_act(a, b):
    """What the Hugging Face Llama MLP computes, in eager PyTorch (silu in float32)."""
    return torch.nn.functional.silu(a.float()).to(b.dtype) * b
