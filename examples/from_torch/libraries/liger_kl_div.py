"""Liger-Kernel 0.8.5 KL-divergence loss forward through its autograd Function
(`liger_kernel.ops.kl_div.LigerKLDivLossFunction.apply`, as `LigerKLDIVLoss` calls it), for
distillation: log-probabilities of the student against the teacher's, `batchmean` reduction,
default eps. `@ensure_contiguous`; `kldiv_forward_triton` takes
`BLOCK_SIZE = min(16384, next_power_of_2(V))` (8192 on XPU/NPU, chosen at import by
`infer_device()`), `num_warps` by block size, maps the reduction string to an int constexpr,
allocates zeroed float32 per-row sums (`(BT, V)` for "none") and after the kernel reduces with
`output_tensor.sum() / BT`. The fake gives the float32 scalar (the library has no fake)."""
import torch
from liger_kernel.ops.kl_div import LigerKLDivLossFunction

AUTOPLUGIN_EXAMPLES = [
    "user_liger::kl_div(y_pred=[1024, 32000], y_true=[1024, 32000], log_target=True)"]


@torch.library.custom_op("user_liger::kl_div", mutates_args=())
def kl_div(y_pred: torch.Tensor, y_true: torch.Tensor, log_target: bool) -> torch.Tensor:
    return LigerKLDivLossFunction.apply(y_pred, y_true, "batchmean", log_target)


@kl_div.register_fake
def _(y_pred, y_true, log_target):
    return y_pred.new_empty((), dtype=torch.float32)
