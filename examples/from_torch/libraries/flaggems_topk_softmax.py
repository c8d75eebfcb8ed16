"""FlagGems 5.0.2 MoE routing top-k softmax (`flag_gems.fused.topk_softmax.topk_softmax(
topk_weights, topk_indices, token_expert_indices, gating_output, renormalize)`), called as a
user of the library calls it for Mixtral routing (8 experts, top-2, renormalized): the user
allocates the float32 weights, int32 indices and int32 token->expert scratch (as vLLM does) and
returns weights and indices. The host code asserts topk <= 32, maps the indices' dtype to a Triton
dtype constexpr (INDEX_TY), sizes BLOCK_SIZE_EXPERTS/BLOCK_SIZE_ROWS from the expert count
(1 row and 1 warp above 128 experts) and passes every argument by keyword."""
import torch
from flag_gems.fused.topk_softmax import topk_softmax as gems_topk_softmax

AUTOPLUGIN_EXAMPLES = [
    "user_flaggems::topk_softmax(gating_output=[512, 8], topk=2, renormalize=True)"]


@torch.library.custom_op("user_flaggems::topk_softmax", mutates_args=())
def topk_softmax(gating_output: torch.Tensor, topk: int,
                 renormalize: bool) -> tuple[torch.Tensor, torch.Tensor]:
    num_tokens = gating_output.shape[0]
    topk_weights = torch.empty((num_tokens, topk), dtype=torch.float32, device=gating_output.device)
    topk_ids = torch.empty((num_tokens, topk), dtype=torch.int32, device=gating_output.device)
    token_expert_indices = torch.empty((num_tokens, topk), dtype=torch.int32,
                                       device=gating_output.device)
    gems_topk_softmax(topk_weights, topk_ids, token_expert_indices, gating_output, renormalize)
    return topk_weights, topk_ids


@topk_softmax.register_fake
def _(gating_output, topk, renormalize):
    num_tokens = gating_output.shape[0]
    return (gating_output.new_empty((num_tokens, topk), dtype=torch.float32),
            gating_output.new_empty((num_tokens, topk), dtype=torch.int32))
