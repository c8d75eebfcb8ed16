"""FlagGems 5.0.2 cross-entropy loss (`flag_gems.fused.cross_entropy_loss.cross_entropy_loss`,
i.e. `CrossEntropyLoss.apply`), called as a user of the library calls it for a causal-LM loss
over a 32000-token vocabulary with class-index targets, defaults (mean reduction,
ignore_index=-100, no label smoothing). The host code folds the input into (N, C, D), picks the
probability/indices/smoothing kernel from the target's rank and `label_smoothing` (autotuned
`celoss_indices_kernel`, libentry, grid `(cdiv(D, BLOCK_D), N)`), then reduces per-sample losses
into a 0-d tensor of the input's dtype with `sum_and_scale[(1,)]` (reduction enum from
`torch.nn._reduction`)."""
import torch
from flag_gems.fused.cross_entropy_loss import cross_entropy_loss as gems_cross_entropy_loss

AUTOPLUGIN_EXAMPLES = ["user_flaggems::cross_entropy(logits=[1024, 32000], target=int64[1024])"]


@torch.library.custom_op("user_flaggems::cross_entropy", mutates_args=())
def cross_entropy(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return gems_cross_entropy_loss(logits, target)


@cross_entropy.register_fake
def _(logits, target):
    return logits.new_empty(())
