"""FlagGems 5.0.2 rotary position embedding (`flag_gems.fused.rotary_embedding.
apply_rotary_pos_emb(q, k, cos, sin, position_ids, rotary_interleaved, inplace)`), called as a
user of the library calls it for Llama-style GQA attention (32 query heads, 8 KV heads, head_dim
128, non-interleaved, out of place). The host code asserts q/k/cos/sin shape relations
(`cos.shape[-1] * 2 == q.shape[-1]`, position_ids' shape equals q.shape[:-2], cos/sin unit last
stride), views q/k as (tokens, heads, head_dim), pads head_dim to max(next_power_of_2, 16) and
launches `apply_rotary_pos_emb_kernel` with one program per token, passing
MAX_POSITION_EMBEDDINGS=cos.shape[0] as a keyword; outputs are viewed back to q's/k's shapes."""
import torch
from flag_gems.fused.rotary_embedding import apply_rotary_pos_emb

AUTOPLUGIN_EXAMPLES = [
    "user_flaggems::rotary_embedding(q=[2, 512, 32, 128], k=[2, 512, 8, 128], cos=[4096, 64], "
    "sin=[4096, 64], position_ids=int64[2, 512])"
]


@torch.library.custom_op("user_flaggems::rotary_embedding", mutates_args=())
def rotary_embedding(q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                     position_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    q_embed, k_embed = apply_rotary_pos_emb(q, k, cos, sin, position_ids, False, False)
    return q_embed, k_embed


@rotary_embedding.register_fake
def _(q, k, cos, sin, position_ids):
    return torch.empty_like(q), torch.empty_like(k)
