"""xFormers' in-place scaled index add (`xformers.ops.scaled_index_add`, xformers 0.0.35;
input.index_add_(0, index, source * scaling, alpha=alpha), the residual add of DINOv2's
stochastic-depth subsets), called as a user of the library calls it.

`scaled_index_add` is `_ScaledIndexAdd.apply` (mark_dirty on input), calling
`scaled_index_add_fwd`: it checks `.is_cuda`, ranks (3), input/source extents 1 and 2 equal,
input rows >= source rows, len(index) == source rows, equal strides of input and source,
scaling 1-D of D elements with input's last stride; a kernel with fixed block sizes
(1, 1, 512) over `grid = (cdiv(Bi, 1), cdiv(M, 1), cdiv(D, 512))`. The op mutates `input`."""
import torch
from xformers.ops import scaled_index_add

AUTOPLUGIN_EXAMPLES = [
    "user_xformers::scaled_index_add(input=[64, 257, 1024], index=int64[32], "
    "source=[32, 257, 1024], scaling=[1024], alpha=1.0)"]


@torch.library.custom_op("user_xformers::scaled_index_add", mutates_args=("input",))
def scaled_index_add_op(input: torch.Tensor, index: torch.Tensor, source: torch.Tensor,
                        scaling: torch.Tensor, alpha: float) -> None:
    scaled_index_add(input, index, source, scaling, alpha)


@scaled_index_add_op.register_fake
def _(input, index, source, scaling, alpha):
    return None
