"""SiLU-and-mul (SwiGLU activation) as vLLM's `torch.ops._C.silu_and_mul(out, x)` is called: the
output buffer is an argument written in place (`mutates_args=("out",)`, `-> None`); the input's
last dim holds [gate | up] halves, `d = x.shape[-1] // 2`; tokens flattened over every leading
dim; a 2-D grid of tokens x column tiles (SGLang's silu_and_mul_triton_kernel style)."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["vllm_like::silu_and_mul(out=[2, 7, 1376], input=[2, 7, 2752])"]


@triton.jit
def _silu_and_mul_kernel(
    o_ptr,
    x_ptr,
    o_stride,
    x_stride,
    d,
    BLOCK_SIZE: tl.constexpr,
):
    token = tl.program_id(0).to(tl.int64)
    pid_d = tl.program_id(1)
    offs = pid_d * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < d
    x_row = x_ptr + token * x_stride
    gate = tl.load(x_row + offs, mask=mask, other=0.0).to(tl.float32)
    up = tl.load(x_row + d + offs, mask=mask, other=0.0)
    gate = gate / (1.0 + tl.exp(-gate))
    gate = gate.to(x_ptr.dtype.element_ty)
    tl.store(o_ptr + token * o_stride + offs, gate * up, mask=mask)


@torch.library.custom_op("vllm_like::silu_and_mul", mutates_args=("out",))
def silu_and_mul(out: torch.Tensor, input: torch.Tensor) -> None:
    d = input.shape[-1] // 2
    assert out.shape[-1] == d, f"out has {out.shape[-1]} columns, expected {d}"
    num_tokens = input.numel() // input.shape[-1]
    if num_tokens == 0:
        return
    x = input.view(num_tokens, input.shape[-1])
    o = out.view(num_tokens, d)
    BLOCK_SIZE = min(triton.next_power_of_2(d), 1024)
    num_warps = 4 if BLOCK_SIZE <= 512 else 8
    grid = (num_tokens, triton.cdiv(d, BLOCK_SIZE))
    _silu_and_mul_kernel[grid](
        o, x, o.stride(0), x.stride(0), d,
        BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps,
    )


@silu_and_mul.register_fake
def _(out, input):
    torch._check(out.shape[-1] * 2 == input.shape[-1])
    return None


def silu_and_mul_reference(out, input):
    d = input.shape[-1] // 2
    g, u = input[..., :d].float(), input[..., d:]
    out.copy_((torch.nn.functional.silu(g).to(input.dtype) * u))

