"""flash-linear-attention's (I + A)^-1 for strictly lower-triangular chunk blocks
(`fla.ops.utils.solve_tril.solve_tril`, fla-core 0.6.0), as DeltaNet-style chunked forwards call
it on A [B, T, H, 64]. `@dispatch`, `@input_guard`; the host code asserts the block width is 16,
32 or 64, allocates a zeroed float32 output and launches the 64x64 merge kernel on
`(NT, B * H)` with `USE_TMA` from the device (off without FLA_USE_TMA=1)."""
import torch
from fla.ops.utils.solve_tril import solve_tril

AUTOPLUGIN_EXAMPLES = ["user_fla::solve_tril(A=[2, 4096, 16, 64])"]


@torch.library.custom_op("user_fla::solve_tril", mutates_args=())
def solve_tril_op(A: torch.Tensor) -> torch.Tensor:
    return solve_tril(A)


@solve_tril_op.register_fake
def _(A):
    return A.new_empty(A.shape, dtype=torch.float32)
