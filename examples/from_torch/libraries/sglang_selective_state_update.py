"""SGLang's Mamba2 decode-step selective state update
(`sglang.kernels.ops.mamba.triton_ops.mamba_ssm.selective_state_update`, sglang 0.5.23; adapted
from vLLM / mamba_ssm), called as a user of the library calls it: the SSM state is updated in
place and the output written into a preallocated `out`, dt through softplus with dt_bias.

Host code: unsqueezes 2-D/3-D inputs to [batch, T, nheads, dim] (state to 4-D), asserts every
shape against the state's, picks `BLOCK_SIZE_M, num_warps` by dstate by hand (no autotune, "it
would overwrite the state"), reads `tie_hdim` from strides (A, dt, dt_bias broadcast along the
head dim), passes PDL kwargs when `is_arch_support_pdl()`, `grid = (cdiv(dim, BLOCK_SIZE_M),
batch, nheads)` under `torch.get_device_module(x.device).device(...)`; optional tensors passed as
None. The op mutates `state` and `out` and returns nothing, as the library's function does."""
import torch
from sglang.kernels.ops.mamba.triton_ops.mamba_ssm import selective_state_update

AUTOPLUGIN_EXAMPLES = [
    "user_sglang::selective_state_update(state=[8, 80, 64, 128], x=[8, 80, 64], dt=[8, 80, 64], "
    "A=[80, 64, 128], B=[8, 1, 128], C=[8, 1, 128], D=[80, 64], z=[8, 80, 64], "
    "dt_bias=[80, 64], out=[8, 80, 64])"]


@torch.library.custom_op("user_sglang::selective_state_update", mutates_args=("state", "out"))
def selective_state_update_op(state: torch.Tensor, x: torch.Tensor, dt: torch.Tensor,
                              A: torch.Tensor, B: torch.Tensor, C: torch.Tensor,
                              D: torch.Tensor, z: torch.Tensor, dt_bias: torch.Tensor,
                              out: torch.Tensor) -> None:
    selective_state_update(state, x, dt, A, B, C, D=D, z=z, dt_bias=dt_bias, dt_softplus=True,
                           out=out)


@selective_state_update_op.register_fake
def _(state, x, dt, A, B, C, D, z, dt_bias, out):
    return None
