"""Liger-Kernel 0.8.5 generalized Jensen-Shannon divergence forward through its autograd Function
(`liger_kernel.ops.jsd.LigerJSDFunction.apply`, as `LigerJSD.forward` calls it), for
distillation: student and teacher log-probabilities, beta = 0.5, no labels. `@ensure_contiguous`;
`jsd_forward` clones the input into dX, routes through Liger's dispatcher
(`dispatch("jsd_loss_and_grad", ...)`, the Triton primitive without CuTe DSL), which launches
`_jsd_kernel` per row with `BLOCK_SIZE = min(MAX_FUSED_SIZE, next_power_of_2(V))`, writing a
float32 (BT, V) loss tile; the host then sums it and casts to the input's dtype. The fake gives
the scalar loss (the library has no fake)."""
import torch
from liger_kernel.ops.jsd import LigerJSDFunction

AUTOPLUGIN_EXAMPLES = ["user_liger::jsd(log_q=[1024, 32000], log_p=[1024, 32000], beta=0.5)"]


@torch.library.custom_op("user_liger::jsd", mutates_args=())
def jsd(log_q: torch.Tensor, log_p: torch.Tensor, beta: float) -> torch.Tensor:
    return LigerJSDFunction.apply(log_q, log_p, None, beta, -100, None, None)


@jsd.register_fake
def _(log_q, log_p, beta):
    return log_q.new_empty(())
