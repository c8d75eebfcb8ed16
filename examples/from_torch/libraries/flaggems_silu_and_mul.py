"""FlagGems 5.0.2 SiLU-and-multiply (`flag_gems.fused.silu_and_mul.silu_and_mul(A, B)`, i.e.
`SiluAndMul.apply`), called as a user of the library calls it for a Llama SwiGLU MLP on the gate
and up projections. The forward is a `pointwise_dynamic` kernel with two inputs and DEFAULT type
promotion: FlagGems generates the broadcasting wrapper and Triton kernel source at call time."""
import torch
from flag_gems.fused.silu_and_mul import silu_and_mul as gems_silu_and_mul

AUTOPLUGIN_EXAMPLES = ["user_flaggems::silu_and_mul(gate=[4, 128, 11008], up=[4, 128, 11008])"]


@torch.library.custom_op("user_flaggems::silu_and_mul", mutates_args=())
def silu_and_mul(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    return gems_silu_and_mul(gate, up)


@silu_and_mul.register_fake
def _(gate, up):
    return torch.empty_like(gate)
