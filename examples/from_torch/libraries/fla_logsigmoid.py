"""fla-core 0.6.0 log-sigmoid with a temperature (`fla.modules.activations.logsigmoid_fwd(x,
temperature)`), the gate activation of linear-attention layers. The host code flattens the
input to rows (`prepare_input`), allocates the output, and launches a kernel autotuned over its
block of rows (`B`), with the row length `D` a constexpr."""
import torch
from fla.modules.activations import logsigmoid_fwd

AUTOPLUGIN_EXAMPLES = ["user_fla::logsigmoid(x=[4, 2048, 1024], temperature=1.0)"]


@torch.library.custom_op("user_fla::logsigmoid", mutates_args=())
def logsigmoid(x: torch.Tensor, temperature: float) -> torch.Tensor:
    return logsigmoid_fwd(x, temperature)


@logsigmoid.register_fake
def _(x, temperature):
    return torch.empty_like(x)
