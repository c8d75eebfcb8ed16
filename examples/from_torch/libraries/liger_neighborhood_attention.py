"""Liger-Kernel 0.8.5 fused neighborhood attention forward through its autograd Function
(`liger_kernel.ops.fused_neighborhood_attention.LigerFusedNeighborhoodAttentionFunction.apply`,
as `LigerFusedNeighborhoodAttention.forward` calls it): q, k, v of [B, H, S, D], a 7-wide
window, dilation 1, default scale. The host code builds a float32 [S, S] neighborhood mask with a
kernel (on a `torch.zeros` buffer), computes masked QK^T scores into [B, H, S, S], runs Liger's
softmax forward on the scores viewed as rows, then an AV kernel into the output. The fake gives
the output's shape and dtype (the library has none)."""
import torch
from liger_kernel.ops.fused_neighborhood_attention import LigerFusedNeighborhoodAttentionFunction

AUTOPLUGIN_EXAMPLES = [
    "user_liger::neighborhood_attention(q=[2, 8, 1024, 64], k=[2, 8, 1024, 64], "
    "v=[2, 8, 1024, 64])"]


@torch.library.custom_op("user_liger::neighborhood_attention", mutates_args=())
def neighborhood_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return LigerFusedNeighborhoodAttentionFunction.apply(q, k, v, 7, 1, None)


@neighborhood_attention.register_fake
def _(q, k, v):
    return torch.empty_like(q)
