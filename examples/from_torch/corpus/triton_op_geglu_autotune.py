# GEGLU forward on a packed [..., 2 * hidden] projection, written the way PyTorch's
# "torch.library.triton_op" docs show it: triton_op + wrap_triton, no separate fake
# (PyTorch derives it).  `approximate` picks erf-GELU (exact) or the tanh approximation
# inside the kernel, as unsloth/kernels/geglu.py has both _exact and _approx kernels.
import torch
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton
from triton.language.extra import libdevice


@triton.autotune(
    configs = [
        triton.Config({"BLOCK_SIZE": 256}, num_warps = 2),
        triton.Config({"BLOCK_SIZE": 512}, num_warps = 4),
        triton.Config({"BLOCK_SIZE": 1024}, num_warps = 4),
        triton.Config({"BLOCK_SIZE": 2048}, num_warps = 8),
    ],
    key = ["n_cols"],
)
@triton.jit
def _geglu_fwd_kernel(
    x_ptr, out_ptr,
    x_row_stride, out_row_stride,
    n_cols,
    APPROXIMATE: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    col_block = tl.program_id(1)
    offs = col_block * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols

    gate_ptr = x_ptr + row * x_row_stride
    up_ptr = gate_ptr + n_cols
    e = tl.load(gate_ptr + offs, mask = mask, other = 0).to(tl.float32)
    g = tl.load(up_ptr + offs, mask = mask, other = 0).to(tl.float32)

    if APPROXIMATE:
        # f = 1/2 * e * (1 + tanh( sqrt(2/pi) * (e + 0.044715 * e^3 ) ))
        s = 0.7978845608028654  # sqrt(2 / pi)
        f = 0.5 * e * (libdevice.tanh(s * e * (1.0 + 0.044715 * e * e)) + 1.0)
    else:
        # f = 1/2 * e * (1 + erf(1/sqrt(2) * e))
        f = 0.5 * e * (libdevice.erf(e * 0.7071067811865476) + 1.0)
    h = f * g
    tl.store(out_ptr + row * out_row_stride + offs, h.to(out_ptr.dtype.element_ty), mask = mask)


@triton_op("mylib::geglu", mutates_args = {})
def geglu(x: torch.Tensor, approximate: bool = False) -> torch.Tensor:
    hidden2 = x.shape[-1]
    # torch._check rather than assert: triton_op traces this body as the fake
    torch._check(hidden2 % 2 == 0, lambda: "the last dimension holds [gate | up] and must be even")
    n_cols = hidden2 // 2
    x = x.contiguous()
    n_rows = x.numel() // hidden2
    x_2d = x.view(n_rows, hidden2)
    out = torch.empty((*x.shape[:-1], n_cols), dtype = x.dtype, device = x.device)
    out_2d = out.view(n_rows, n_cols)

    def grid(meta):
        return (n_rows, triton.cdiv(n_cols, meta["BLOCK_SIZE"]))

    wrap_triton(_geglu_fwd_kernel)[grid](
        x_2d, out_2d,
        x_2d.stride(0), out_2d.stride(0),
        n_cols,
        APPROXIMATE = approximate,
    )
    return out


AUTOPLUGIN_EXAMPLES = [
    "mylib::geglu(x=[4, 16, 2048], approximate=True)",
]


def geglu_reference(x, approximate=False):
    gate, up = x.float().chunk(2, dim=-1)
    act = torch.nn.functional.gelu(gate, approximate="tanh" if approximate else "none")
    return (act * up).to(x.dtype)
