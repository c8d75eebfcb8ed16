"""xFormers 0.0.35 index select and concatenate (`xformers.ops.index_select_cat(sources, indices)`;
the row gather of DINOv2's stochastic depth): rows of two sources picked by int64 indices,
flattened and concatenated. The host code (an `autograd.Function`) allocates the flat output,
and for each pair checks CUDA tensors, ranks and fewer indices than rows (`raise ValueError`)
before launching its kernel on a view of the output."""
import torch
from xformers.ops import index_select_cat

AUTOPLUGIN_EXAMPLES = [
    "user_xformers::index_select_cat(a=[1024, 64], b=[512, 128], ia=int64[32], ib=int64[16])"]


@torch.library.custom_op("user_xformers::index_select_cat", mutates_args=())
def select_cat(a: torch.Tensor, b: torch.Tensor, ia: torch.Tensor,
               ib: torch.Tensor) -> torch.Tensor:
    return index_select_cat([a, b], [ia, ib])


@select_cat.register_fake
def _(a, b, ia, ib):
    return a.new_empty(ia.shape[0] * a.shape[1] + ib.shape[0] * b.shape[1])
