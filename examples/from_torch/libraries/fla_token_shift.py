"""flash-linear-attention's token shift (`fla.modules.token_shift.token_shift`, fla-core 0.6.0;
RWKV's time shift, y[t] = x[t-1] - x[t] with x[-1] = 0), called as a user of the library calls it.

`token_shift` (`@torch.compiler.disable`) is `TokenShift.apply`, which calls `token_shift_fwd`:
it picks the kernel by sequence length, a short kernel with `grid = (B, T)` and
`BD = next_power_of_2(D)` for T <= 4096 (IS_DECODE = T == 1 a constexpr), otherwise a long
kernel whose time tile is `min(64, next_power_of_2(cdiv(max(16, B*T), multiprocessor_count)))`."""
import torch
from fla.modules.token_shift import token_shift

AUTOPLUGIN_EXAMPLES = ["user_fla::token_shift(x=[4, 1024, 2048])"]


@torch.library.custom_op("user_fla::token_shift", mutates_args=())
def token_shift_op(x: torch.Tensor) -> torch.Tensor:
    return token_shift(x)


@token_shift_op.register_fake
def _(x):
    return torch.empty_like(x)
