"""Total variation distance loss, forward (loss and gradient), after Liger-Kernel's ops/tvd.py.

    TVD(P || Q) = 0.5 * sum |P - Q|

`reduction` is a string attribute ("none", "sum", "mean", "batchmean") mapped to an int
tl.constexpr; the loss's shape depends on it ((BT, V) for "none", a scalar otherwise).
The reduction scale is computed on the host and fused into the kernel.
"""
from typing import Literal, Optional, Tuple

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536 // 4

REDUCTION_LITERAL = Literal["none", "sum", "mean", "batchmean"]

_REDUCTION_MODE_NONE = tl.constexpr(0)
_REDUCTION_MODE_SUM = tl.constexpr(1)
_REDUCTION_MODE_MEAN = tl.constexpr(2)
_REDUCTION_MODE_BATCHMEAN = tl.constexpr(3)

_str_to_reduction_mode = {
    "none": _REDUCTION_MODE_NONE.value,
    "sum": _REDUCTION_MODE_SUM.value,
    "mean": _REDUCTION_MODE_MEAN.value,
    "batchmean": _REDUCTION_MODE_BATCHMEAN.value,
}


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
def _tv_distance_kernel(
    p_ptr,
    p_stride,
    q_ptr,
    q_stride,
    loss_ptr,
    loss_stride,
    grads_ptr,
    grads_stride,
    label_ptr,
    ignore_index: tl.constexpr,
    n_cols,
    scale,  # reduction scale for loss and gradients, computed on the host
    BLOCK_SIZE: tl.constexpr,
    HAS_LABEL: tl.constexpr,
    reduction: tl.constexpr = _REDUCTION_MODE_BATCHMEAN,
):
    pid = tl.program_id(0).to(tl.int64)
    p_ptr += pid * p_stride
    q_ptr += pid * q_stride
    loss_ptr += pid * loss_stride
    grads_ptr += pid * grads_stride
    label_ptr += pid

    base_offsets = tl.arange(0, BLOCK_SIZE)

    if HAS_LABEL:
        label = tl.load(label_ptr)
        if label == ignore_index:
            for i in range(0, n_cols, BLOCK_SIZE):
                offsets = i + base_offsets
                mask = offsets < n_cols
                tl.store(grads_ptr + offsets, 0.0, mask=mask)
                if reduction == _REDUCTION_MODE_NONE:
                    tl.store(loss_ptr + offsets, 0.0, mask=mask)
            return

    loss_sum = 0.0
    for i in range(0, n_cols, BLOCK_SIZE):
        offsets = i + base_offsets
        mask = offsets < n_cols

        p = tl.load(p_ptr + offsets, mask=mask, other=0.0)
        q = tl.load(q_ptr + offsets, mask=mask, other=0.0)

        tv_loss = 0.5 * tl.abs(p - q)
        grad_res = tl.where(p > q, 0.5 * scale, -0.5 * scale)
        tl.store(grads_ptr + offsets, grad_res, mask=mask)

        if reduction == _REDUCTION_MODE_NONE:
            tl.store(loss_ptr + offsets, tv_loss, mask=mask)
        else:
            loss_sum += tl.sum(tv_loss, axis=0)

    if reduction != _REDUCTION_MODE_NONE:
        tl.store(loss_ptr, loss_sum * scale)


def tv_distance_forward_triton(p, q, shift_labels, reduction, ignore_index, has_label):
    BT, V = p.shape

    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))
    num_warps = get_num_warps(BLOCK_SIZE)

    grid = (BT,)

    reduction = _str_to_reduction_mode[reduction]

    out_size = (BT, V) if reduction == _REDUCTION_MODE_NONE.value else (BT,)
    output_tensor = torch.zeros(out_size, device=p.device, dtype=torch.float32)
    grads = torch.empty_like(p)

    n_non_ignore = (shift_labels != ignore_index).sum().item() if has_label else BT

    if reduction == _REDUCTION_MODE_BATCHMEAN.value:
        scale = 1.0 / n_non_ignore
    elif reduction == _REDUCTION_MODE_MEAN.value:
        scale = 1.0 / (n_non_ignore * V)
    else:
        scale = 1.0

    _tv_distance_kernel[grid](
        p,
        p.stride(0),
        q,
        q.stride(0),
        output_tensor,
        output_tensor.stride(0),
        grads,
        grads.stride(0),
        shift_labels if has_label else torch.empty(1, device=p.device),
        ignore_index,
        V,
        scale,
        BLOCK_SIZE=BLOCK_SIZE,
        HAS_LABEL=has_label,
        num_warps=num_warps,
        reduction=reduction,
    )

    if reduction in (_REDUCTION_MODE_BATCHMEAN.value, _REDUCTION_MODE_MEAN.value):
        return output_tensor.sum(), grads
    elif reduction == _REDUCTION_MODE_SUM.value:
        return output_tensor.sum(dim=0), grads
    else:
        return output_tensor, grads


@torch.library.custom_op("liger::tvd", mutates_args=())
def tvd(
    p: torch.Tensor,
    q: torch.Tensor,
    shift_labels: Optional[torch.Tensor] = None,
    reduction: str = "batchmean",
    ignore_index: int = -100,
) -> Tuple[torch.Tensor, torch.Tensor]:
    p = p.contiguous()
    q = q.contiguous()
    has_label = False
    if shift_labels is not None:
        assert shift_labels.shape == (p.shape[0],), (
            f"the shape of shift_labels must be (BT,). Got: {shift_labels.shape}"
        )
        shift_labels = shift_labels.contiguous()
        has_label = True
    with torch.cuda.device(p.device):
        return tv_distance_forward_triton(p, q, shift_labels, reduction, ignore_index, has_label)


@tvd.register_fake
def _tvd_fake(p, q, shift_labels=None, reduction="batchmean", ignore_index=-100):
    torch._check(p.shape == q.shape)
    if reduction == "none":
        loss = p.new_empty(p.shape, dtype=torch.float32)
    else:
        loss = p.new_empty((), dtype=torch.float32)
    return loss, torch.empty_like(p)


AUTOPLUGIN_EXAMPLES = [
    "liger::tvd(p=[8, 4096], q=[8, 4096], shift_labels=None, reduction='batchmean', ignore_index=-100)",
    "liger::tvd(p=[8, 4096], q=[8, 4096], shift_labels=None, reduction='none', ignore_index=-100)",
]
