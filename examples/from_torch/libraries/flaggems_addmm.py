"""FlagGems 5.0.2 addmm (`flag_gems.ops.addmm.addmm(bias, mat1, mat2)`), called as a user of the
library calls it for a linear layer with bias, y = x @ weight.T + bias, the weight kept in
PyTorch's (out_features, in_features) layout and passed as the transposed view `weight.t()`.
The host code asserts the inner dims agree and that bias broadcasts, makes mat1 contiguous (not
mat2: its strides go to the kernel), broadcasts bias to (M, N) (a stride-0 view) and launches
`addmm_kernel`, a `libentry` + `libtuner` kernel (autotuned over BLOCK_SIZE_M/N/K keyed on M, N,
K with "align32" key strategies) on a `cdiv(M, BM) x cdiv(N, BN)` grid."""
import torch
from flag_gems.ops.addmm import addmm as gems_addmm

AUTOPLUGIN_EXAMPLES = ["user_flaggems::linear(x=[512, 4096], weight=[11008, 4096], bias=[11008])"]


@torch.library.custom_op("user_flaggems::linear", mutates_args=())
def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return gems_addmm(bias, x, weight.t())


@linear.register_fake
def _(x, weight, bias):
    return x.new_empty((x.shape[0], weight.shape[0]))
