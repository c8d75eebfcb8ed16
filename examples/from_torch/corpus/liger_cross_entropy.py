"""Cross entropy forward in the style of Liger-Kernel (without the fused linear layer): int64
class targets, an `ignore_index` int attribute, a `label_smoothing` float and a `reduction`
string that is a `tl.constexpr` of the kernel; one program per row runs an online softmax over
the vocabulary in blocks of at most `MAX_FUSED_SIZE`, the per-row losses go to a zeroed
`loss_1d` buffer and the host sums them. The mean divides by the count of targets that are not
ignored, which the host reads back with `.item()` as Liger does."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "liger::cross_entropy(_input=[37, 32000], target=int64[37], ignore_index=-100, "
    "label_smoothing=0.0, reduction='mean')",
    "liger::cross_entropy(_input=[37, 32000], target=int64[37], ignore_index=-100, "
    "label_smoothing=0.1, reduction='none')",
]

MAX_FUSED_SIZE = 65536 // 2


@triton.jit
def liger_cross_entropy_kernel(
    X_ptr, X_stride,
    Y_ptr, Y_stride,
    loss_ptr, loss_stride,
    n_cols, n_non_ignore, ignore_index, label_smoothing,
    reduction: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    program_id = tl.program_id(0).to(tl.int64)

    Y_ptr += program_id * Y_stride
    y = tl.load(Y_ptr)
    X_ptr += program_id * X_stride
    loss_ptr += program_id * loss_stride

    if y == ignore_index:
        # loss_1d is zeroed: an ignored row contributes nothing
        return

    m = float("-inf")
    d = 0.0
    ori_X_y = tl.load(X_ptr + y).cast(tl.float32)
    scaled_x_sum = 0.0
    eps = label_smoothing / n_cols

    for i in range(0, n_cols, BLOCK_SIZE):
        X_offsets = i + tl.arange(0, BLOCK_SIZE)
        X_block = tl.load(X_ptr + X_offsets, mask=X_offsets < n_cols,
                          other=float("-inf")).cast(tl.float32)
        block_max = tl.max(X_block)
        if label_smoothing > 0:
            scaled_x_sum += tl.sum(tl.where(X_offsets < n_cols, -eps * X_block, 0.0))
        m_new = tl.maximum(m, block_max)
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(X_block - m_new))
        m = m_new

    lse = m + tl.log(d)
    loss = lse - ori_X_y
    if label_smoothing > 0:
        smooth_loss = scaled_x_sum + label_smoothing * lse
        loss = loss * (1 - label_smoothing) + smooth_loss
    if reduction == "mean":
        loss = loss / n_non_ignore
    tl.store(loss_ptr, loss)


def cross_entropy_forward(_input, target, ignore_index, label_smoothing, reduction):
    BT, V = _input.shape
    n_rows = BT
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))

    loss_1d = torch.zeros(n_rows, dtype=torch.float32, device=_input.device)
    n_non_ignore = (target != ignore_index).sum().item()

    if _input.stride(-1) != 1:
        _input = _input.contiguous()
    if target.stride(-1) != 1:
        target = target.contiguous()

    liger_cross_entropy_kernel[(n_rows,)](
        X_ptr=_input,
        X_stride=_input.stride(-2),
        Y_ptr=target,
        Y_stride=target.stride(-1),
        loss_ptr=loss_1d,
        loss_stride=loss_1d.stride(-1),
        n_cols=V,
        n_non_ignore=max(n_non_ignore, 1),
        ignore_index=ignore_index,
        label_smoothing=label_smoothing,
        reduction=reduction,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=32,
    )
    if reduction == "none":
        return loss_1d
    return torch.sum(loss_1d)


@torch.library.custom_op("liger::cross_entropy", mutates_args=())
def cross_entropy(_input: torch.Tensor, target: torch.Tensor, ignore_index: int = -100,
                  label_smoothing: float = 0.0, reduction: str = "mean") -> torch.Tensor:
    return cross_entropy_forward(_input, target, ignore_index, label_smoothing, reduction)


@cross_entropy.register_fake
def _(_input, target, ignore_index=-100, label_smoothing=0.0, reduction="mean"):
    torch._check(target.shape[0] == _input.shape[0])
    if reduction == "none":
        return _input.new_empty((_input.shape[0],), dtype=torch.float32)
    return _input.new_empty((), dtype=torch.float32)


def cross_entropy_reference(_input, target, ignore_index=-100, label_smoothing=0.0,
                            reduction="mean"):
    return torch.nn.functional.cross_entropy(_input.float(), target, ignore_index=ignore_index,
                                             label_smoothing=label_smoothing,
                                             reduction=reduction)
