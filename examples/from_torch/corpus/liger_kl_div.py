"""KL divergence forward in the style of Liger-Kernel: `y_pred` holds log-probabilities,
`y_true` probabilities or (with the `log_target: bool` attribute, a `tl.constexpr` of the kernel)
log-probabilities; `reduction` is "none" (elementwise, the input's shape and dtype) or
"batchmean"/"sum"/"mean" (a float32 scalar). The kernel loops over each row in blocks; for the
reductions it scales each row's sum by a factor the host computes from the sizes and adds it
into a zeroed scalar with `tl.atomic_add`."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "liger::kl_div(y_pred=[24, 4000], y_true=[24, 4000], reduction='batchmean', "
    "log_target=False, eps=1e-10)",
    "liger::kl_div(y_pred=[24, 4000], y_true=[24, 4000], reduction='none', "
    "log_target=True, eps=1e-10)",
]

MAX_FUSED_SIZE = 65536 // 4


def get_num_warps(BLOCK_SIZE):
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return num_warps


@triton.jit
def _kldiv_kernel_forward(
    y_ptr, y_stride,
    gt_ptr, gt_stride,
    loss_ptr, loss_stride,
    n_cols, eps, scale,
    BLOCK_SIZE: tl.constexpr,
    log_target: tl.constexpr = False,
    reduction: tl.constexpr = "batchmean",
):
    pid = tl.program_id(0).to(tl.int64)
    y_ptr += pid * y_stride
    gt_ptr += pid * gt_stride
    loss_ptr += pid * loss_stride  # loss_stride is 0 for the reductions: one scalar

    base_offsets = tl.arange(0, BLOCK_SIZE)
    loss_sum = 0.0
    for i in range(0, n_cols, BLOCK_SIZE):
        offsets = i + base_offsets
        mask = offsets < n_cols
        y = tl.load(y_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
        y_true = tl.load(gt_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
        if not log_target:
            loss = y_true * (tl.log(tl.maximum(y_true, eps)) - y)
        else:
            loss = tl.exp(y_true) * (y_true - y)
        if reduction == "none":
            tl.store(loss_ptr + offsets, loss.to(loss_ptr.dtype.element_ty), mask=mask)
        else:
            loss_sum += tl.sum(tl.where(mask, loss, 0.0), axis=0)

    if reduction != "none":
        tl.atomic_add(loss_ptr, loss_sum * scale)


_REDUCTIONS = ("none", "sum", "mean", "batchmean")


def kldiv_forward_triton(y_pred, y_true, log_target, reduction, eps):
    BT, V = y_pred.shape
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))
    num_warps = get_num_warps(BLOCK_SIZE)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}, got {reduction!r}")

    if reduction == "none":
        output = torch.empty_like(y_pred)
        scale = 1.0
    else:
        output = torch.zeros((), dtype=torch.float32, device=y_pred.device)
        scale = {"sum": 1.0, "mean": 1.0 / (BT * V), "batchmean": 1.0 / BT}[reduction]

    _kldiv_kernel_forward[(BT,)](
        y_pred, y_pred.stride(0),
        y_true, y_true.stride(0),
        output, output.stride(0) if reduction == "none" else 0,
        V, eps, scale,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=num_warps,
        log_target=log_target,
        reduction=reduction,
    )
    return output


@torch.library.custom_op("liger::kl_div", mutates_args=())
def kl_div(y_pred: torch.Tensor, y_true: torch.Tensor, reduction: str = "batchmean",
           log_target: bool = False, eps: float = 1e-10) -> torch.Tensor:
    y_pred = y_pred.contiguous()
    y_true = y_true.contiguous()
    return kldiv_forward_triton(y_pred, y_true, log_target, reduction, eps)


@kl_div.register_fake
def _(y_pred, y_true, reduction="batchmean", log_target=False, eps=1e-10):
    torch._check(y_pred.shape == y_true.shape)
    if reduction == "none":
        return torch.empty_like(y_pred)
    return y_pred.new_empty((), dtype=torch.float32)


def kl_div_reference(y_pred, y_true, reduction="batchmean", log_target=False, eps=1e-10):
    dtype = y_pred.dtype
    y_pred, y_true = y_pred.float(), y_true.float()
    if log_target:
        loss = torch.exp(y_true) * (y_true - y_pred)
    else:
        loss = y_true * (torch.log(torch.clamp(y_true, min=eps)) - y_pred)
    if reduction == "none":
        return loss.to(dtype)
    total = loss.sum()
    if reduction == "mean":
        return total / loss.numel()
    if reduction == "batchmean":
        return total / loss.shape[0]
    return total
