"""Liger-Kernel 0.8.5 cross-entropy loss forward
(`liger_kernel.ops.cross_entropy.cross_entropy_forward`), called as a user of the library calls
it for an LLM's next-token loss: mean reduction, no class weight, no z-loss, no softcap, an
`ignore_index` and `label_smoothing` attribute. The host code takes
`BLOCK_SIZE = min(32768, next_power_of_2(V))`, allocates zeroed per-row losses, counts the
non-ignored targets with `target_mask.sum().item()` and asserts the targets' max/min against V
(reads of tensor contents), picks `num_warps` by `infer_device_arch()` and element size (8 for
16-bit inputs on Blackwell, else 32), launches one program per row (`HAS_GRADIENTS` from
`_input.requires_grad`: the kernel then writes the gradient into the logits in place) and
reduces with `torch.sum(loss_1d)` after the kernel. The fake gives the scalar loss in the logits'
dtype (the library has no fake)."""
import torch
from liger_kernel.ops.cross_entropy import cross_entropy_forward

AUTOPLUGIN_EXAMPLES = [
    "user_liger::cross_entropy(logits=[4096, 128256], target=int64[4096], ignore_index=-100, "
    "label_smoothing=0.0)"
]


@torch.library.custom_op("user_liger::cross_entropy", mutates_args=())
def cross_entropy(logits: torch.Tensor, target: torch.Tensor, ignore_index: int,
                  label_smoothing: float) -> torch.Tensor:
    loss, _, _, _, _ = cross_entropy_forward(
        logits, target, None, ignore_index, 0.0, label_smoothing, "mean", None, False
    )
    return loss


@cross_entropy.register_fake
def _(logits, target, ignore_index, label_smoothing):
    return logits.new_empty(())
