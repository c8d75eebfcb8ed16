"""SGLang's Triton GELU-and-mul
(`sglang.kernels.ops.activation.gelu_and_mul_triton.gelu_and_mul_triton`,
sglang 0.5.23; GeGLU: gelu(x[:, :d]) * x[:, d:], erf GELU), called as a user of the library calls
it, without quantization.

Host code: hidden_states is [bs, 2 * d], the output [bs, d] (in `quantize or` the input's
dtype), `num_warps = max(min(next_power_of_2(cdiv(d, 256)), 32), 4)` (16 on HIP),
`BLOCK_SIZE = next_power_of_2(d)`, `grid = (bs,)`; `quant_max=None` and `static_scale=False`
are constexprs, `hidden_dim` a constexpr too. Returns (out, None) without quantization."""
import torch
from sglang.kernels.ops.activation.gelu_and_mul_triton import gelu_and_mul_triton

AUTOPLUGIN_EXAMPLES = ["user_sglang::gelu_and_mul(hidden_states=[16, 16384])"]


@torch.library.custom_op("user_sglang::gelu_and_mul", mutates_args=())
def gelu_and_mul(hidden_states: torch.Tensor) -> torch.Tensor:
    out, _ = gelu_and_mul_triton(hidden_states)
    return out


@gelu_and_mul.register_fake
def _(hidden_states):
    bs, in_hidden_dim = hidden_states.shape
    return hidden_states.new_empty((bs, in_hidden_dim // 2))
