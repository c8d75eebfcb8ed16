"""GroupNorm forward in the style of Liger-Kernel: a `num_groups` int attribute, the input viewed
as `(batch, num_groups, -1)`, a 2-D grid of (batch, group) programs, each looping over its
group's `hidden_size = C // num_groups * H * W` elements in blocks of
`min(MAX_FUSED_SIZE, next_power_of_2(hidden_size))` for the statistics, then over its channels
for the affine transform; `Mean`/`RSTD` are zeroed buffers the host allocates. The fake requires
`C % num_groups == 0`."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["liger::group_norm(X=[2, 64, 7, 9], W=[64], B=[64], num_groups=8, eps=1e-06)"]

MAX_FUSED_SIZE = 65536


@triton.jit
def _group_norm_forward_kernel(
    Y_ptr, Y_row_stride, Y_col_stride,
    X_ptr, X_row_stride, X_col_stride,
    Mean_ptr, Mean_row_stride, Mean_col_stride,
    RSTD_ptr, RSTD_row_stride, RSTD_col_stride,
    W_ptr, B_ptr,
    hidden_size, channels_per_group, eps,
    BLOCK_SIZE: tl.constexpr,
):
    batch_idx = tl.program_id(0).to(tl.int64)
    group_idx = tl.program_id(1).to(tl.int64)

    X_ptr += batch_idx * X_row_stride + group_idx * X_col_stride
    Y_ptr += batch_idx * Y_row_stride + group_idx * Y_col_stride

    block_range = tl.arange(0, BLOCK_SIZE)

    s = 0.0
    squared_sum = 0.0
    for i in tl.range(0, hidden_size, BLOCK_SIZE):
        hidden_size_offsets = i + block_range
        mask = hidden_size_offsets < hidden_size
        X = tl.load(X_ptr + hidden_size_offsets, mask=mask, other=0.0).to(tl.float32)
        s += tl.sum(X)
        squared_sum += tl.sum(X * X)

    m = s / hidden_size
    variance = (squared_sum / hidden_size) - (m * m)
    rstd = tl.math.rsqrt(variance + eps)

    hidden_size_per_channel = hidden_size // channels_per_group
    for channel_idx in tl.range(group_idx * channels_per_group,
                                (group_idx + 1) * channels_per_group):
        W = tl.load(W_ptr + channel_idx).to(tl.float32)
        B = tl.load(B_ptr + channel_idx).to(tl.float32)
        for i in range(0, hidden_size_per_channel, BLOCK_SIZE):
            offsets = i + block_range
            mask = offsets < hidden_size_per_channel
            X = tl.load(X_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
            Y = (X - m) * rstd * W + B
            tl.store(Y_ptr + offsets, Y.to(Y_ptr.dtype.element_ty), mask=mask)
        X_ptr += hidden_size_per_channel
        Y_ptr += hidden_size_per_channel

    tl.store(Mean_ptr + batch_idx * Mean_row_stride + group_idx * Mean_col_stride, m)
    tl.store(RSTD_ptr + batch_idx * RSTD_row_stride + group_idx * RSTD_col_stride, rstd)


def group_norm_forward(X, num_channels, num_groups, W, B, eps):
    shape = X.shape
    batch_size = shape[0]
    channels_per_group = num_channels // num_groups
    X = X.view(batch_size, num_groups, -1).contiguous()
    hidden_size = X.shape[-1]
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(hidden_size))
    Y = torch.empty((batch_size, num_groups, hidden_size), dtype=X.dtype, device=X.device)
    Mean = torch.zeros((batch_size, num_groups), dtype=torch.float32, device=X.device)
    RSTD = torch.zeros((batch_size, num_groups), dtype=torch.float32, device=X.device)

    _group_norm_forward_kernel[(batch_size, num_groups)](
        Y, Y.stride(0), Y.stride(1),
        X, X.stride(0), X.stride(1),
        Mean, Mean.stride(0), Mean.stride(1),
        RSTD, RSTD.stride(0), RSTD.stride(1),
        W, B,
        hidden_size, channels_per_group, eps,
        BLOCK_SIZE=BLOCK_SIZE,
    )
    return Y.view(*shape), X.view(*shape), Mean, RSTD, BLOCK_SIZE


@torch.library.custom_op("liger::group_norm", mutates_args=())
def group_norm(X: torch.Tensor, W: torch.Tensor, B: torch.Tensor, num_groups: int,
               eps: float = 1e-6) -> torch.Tensor:
    num_channels = X.shape[1]
    assert num_channels % num_groups == 0, (
        f"Number of channels {num_channels} must be divisible by num_groups {num_groups}")
    Y, _, _, _, _ = group_norm_forward(X.contiguous(), num_channels, num_groups, W, B, eps)
    return Y


@group_norm.register_fake
def _(X, W, B, num_groups, eps=1e-6):
    torch._check(X.shape[1] % num_groups == 0)
    torch._check(W.shape[0] == X.shape[1])
    torch._check(B.shape[0] == X.shape[1])
    return torch.empty_like(X)


def group_norm_reference(X, W, B, num_groups, eps=1e-6):
    return torch.nn.functional.group_norm(X.float(), num_groups, W.float(), B.float(),
                                          eps).to(X.dtype)
