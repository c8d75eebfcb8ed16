# Cross entropy forward in the style of unsloth/kernels/cross_entropy_loss.py:
# logit softcapping (Gemma 2) and logit scaling (Cohere), ignore_index -100,
# a chunked kernel for vocabularies above MAX_FUSED_SIZE.  Returns the per-row
# losses and the per-row logsumexp (what the backward pass needs).
from contextlib import nullcontext

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

triton_tanh = libdevice.tanh
triton_cast = tl.cast

MAX_FUSED_SIZE: int = 65536
next_power_of_2 = triton.next_power_of_2


def calculate_settings(n):
    BLOCK_SIZE: int = next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(
            f"Cannot launch Triton kernel since n = {n} exceeds "
            f"the maximum CUDA blocksize = {MAX_FUSED_SIZE}."
        )
    num_warps: int = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


DEVICE_COUNT: int = torch.cuda.device_count()
if DEVICE_COUNT > 1:
    torch_cuda_device = torch.cuda.device
else:
    def torch_cuda_device(device):
        return nullcontext()


def _cross_entropy_forward(
    logits_ptr,
    logits_row_stride,
    loss_ptr,
    logsumexp_ptr,
    labels_ptr,
    VOCAB_SIZE: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    DO_SOFTCAPPING: tl.constexpr,
    SOFTCAP: tl.constexpr,
    DO_LOGIT_SCALING: tl.constexpr,
    LOGIT_SCALE: tl.constexpr,
):
    """
    CE_i = logsumexp(x) - x[label]   (0 where label == -100)
    """
    row_idx = tl.program_id(0)
    logits_ptr += row_idx * triton_cast(logits_row_stride, tl.int64)
    loss_ptr += row_idx
    logsumexp_ptr += row_idx
    labels_ptr += row_idx

    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < VOCAB_SIZE

    label_idx = tl.load(labels_ptr).to(tl.int32)
    logits = tl.load(logits_ptr + col_offsets, mask = mask, other = -float("inf")).to(tl.float32)

    # Go logit scaling for Cohere: t * x
    if DO_LOGIT_SCALING:
        logits = LOGIT_SCALE * logits
    # Do logit softcapping for Gemma 2: t * tanh(1/t * x)
    if DO_SOFTCAPPING:
        logits = SOFTCAP * triton_tanh(logits / SOFTCAP)

    c = tl.max(logits, 0)
    logsumexp = c + tl.log(tl.sum(tl.exp(logits - c), 0))

    if label_idx != -100:
        x = tl.load(logits_ptr + label_idx).to(tl.float32)
        if DO_LOGIT_SCALING:
            x = LOGIT_SCALE * x
        if DO_SOFTCAPPING:
            x = SOFTCAP * triton_tanh(x / SOFTCAP)
        loss = logsumexp - x
    else:
        loss = 0.0
    tl.store(logsumexp_ptr, logsumexp)
    tl.store(loss_ptr, loss)


_cross_entropy_forward = triton.jit(_cross_entropy_forward)
_cross_entropy_forward = triton.heuristics(
    {
        "DO_SOFTCAPPING": lambda args: bool(args["DO_SOFTCAPPING"]),
        "DO_LOGIT_SCALING": lambda args: bool(args["DO_LOGIT_SCALING"]),
    }
)(_cross_entropy_forward)


def _chunked_cross_entropy_forward(
    logits_ptr,
    logits_row_stride,
    loss_ptr,
    logsumexp_ptr,
    labels_ptr,
    VOCAB_SIZE: tl.constexpr,
    N_CHUNKS: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    DO_SOFTCAPPING: tl.constexpr,
    SOFTCAP: tl.constexpr,
    DO_LOGIT_SCALING: tl.constexpr,
    LOGIT_SCALE: tl.constexpr,
):
    row_idx = tl.program_id(0)
    chunk_idx = tl.program_id(1)
    logits_ptr += row_idx * triton_cast(logits_row_stride, tl.int64)
    loss_ptr += row_idx
    logsumexp_ptr += row_idx * N_CHUNKS + chunk_idx
    labels_ptr += row_idx

    col_offsets = chunk_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < VOCAB_SIZE

    label_idx = tl.load(labels_ptr).to(tl.int32)
    logits = tl.load(logits_ptr + col_offsets, mask = mask, other = -float("inf")).to(tl.float32)

    if DO_LOGIT_SCALING:
        logits = LOGIT_SCALE * logits
    if DO_SOFTCAPPING:
        logits = SOFTCAP * triton_tanh(logits / SOFTCAP)

    c = tl.max(logits, 0)
    logsumexp = c + tl.log(tl.sum(tl.exp(logits - c), 0))

    if chunk_idx == 0:
        # logsumexp(chunked_logsumexp) - x; do the -x separately
        if label_idx != -100:
            x = tl.load(logits_ptr + label_idx).to(tl.float32)
            if DO_LOGIT_SCALING:
                x = LOGIT_SCALE * x
            if DO_SOFTCAPPING:
                x = SOFTCAP * triton_tanh(x / SOFTCAP)
            loss = -1.0 * x
        else:
            loss = 0.0
        tl.store(loss_ptr, loss)
    tl.store(logsumexp_ptr, logsumexp)


_chunked_cross_entropy_forward = triton.jit(_chunked_cross_entropy_forward)
_chunked_cross_entropy_forward = triton.heuristics(
    {
        "DO_SOFTCAPPING": lambda args: bool(args["DO_SOFTCAPPING"]),
        "DO_LOGIT_SCALING": lambda args: bool(args["DO_LOGIT_SCALING"]),
    }
)(_chunked_cross_entropy_forward)


@torch.library.custom_op("unsloth_c::softcap_cross_entropy", mutates_args = ())
def cross_entropy_forward(
    logits: torch.Tensor,
    labels: torch.Tensor,
    logit_softcapping: float = 0.0,
    logit_scaling: float = 0.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    n_rows: int
    vocab_size: int
    n_rows, vocab_size = logits.shape
    assert labels.shape == (n_rows,), "labels must be [n_rows]"
    device = logits.device
    labels = labels.to(device)

    div, mod = divmod(vocab_size, MAX_FUSED_SIZE)
    n_chunks: int = div + (mod != 0)
    losses = torch.empty(n_rows, dtype = torch.float32, device = device)

    DO_SOFTCAPPING: bool = bool(logit_softcapping != 0)
    DO_LOGIT_SCALING: bool = bool(logit_scaling != 0)

    if n_chunks == 1:
        # Small vocabs <= 65536 (Llama, Mistral)
        BLOCK_SIZE, num_warps = calculate_settings(vocab_size)
        logsumexp = torch.empty(n_rows, dtype = torch.float32, device = device)

        with torch_cuda_device(device):
            _cross_entropy_forward[(n_rows,)](
                logits,
                logits.stride(0),
                losses,
                logsumexp,
                labels,
                VOCAB_SIZE = vocab_size,
                BLOCK_SIZE = BLOCK_SIZE,
                DO_SOFTCAPPING = DO_SOFTCAPPING,
                SOFTCAP = logit_softcapping,
                DO_LOGIT_SCALING = DO_LOGIT_SCALING,
                LOGIT_SCALE = logit_scaling,
                num_warps = num_warps,
            )
    else:
        # Large vocabs > 65536 (Gemma 256K)
        logsumexp = torch.empty((n_rows, n_chunks), dtype = torch.float32, device = device)

        with torch_cuda_device(device):
            _chunked_cross_entropy_forward[(n_rows, n_chunks)](
                logits,
                logits.stride(0),
                losses,
                logsumexp,
                labels,
                VOCAB_SIZE = vocab_size,
                N_CHUNKS = n_chunks,
                BLOCK_SIZE = MAX_FUSED_SIZE,
                DO_SOFTCAPPING = DO_SOFTCAPPING,
                SOFTCAP = logit_softcapping,
                DO_LOGIT_SCALING = DO_LOGIT_SCALING,
                LOGIT_SCALE = logit_scaling,
                num_warps = 32,
            )
        # logsumexp(chunked_logsumexp) - x; do the -x separately
        logsumexp = torch.logsumexp(logsumexp, dim = 1)
        losses += logsumexp
        losses.masked_fill_(labels == -100, 0)
    return losses, logsumexp


@cross_entropy_forward.register_fake
def _(logits, labels, logit_softcapping = 0.0, logit_scaling = 0.0):
    torch._check(logits.dim() == 2)
    torch._check(labels.shape[0] == logits.shape[0])
    n_rows = logits.shape[0]
    losses = logits.new_empty(n_rows, dtype = torch.float32)
    logsumexp = logits.new_empty(n_rows, dtype = torch.float32)
    return losses, logsumexp


AUTOPLUGIN_EXAMPLES = [
    "unsloth_c::softcap_cross_entropy(logits=[8, 32000], labels=int64[8], "
    "logit_softcapping=30.0, logit_scaling=0.0)",
]


def cross_entropy_reference(logits, labels, logit_softcapping=0.0, logit_scaling=0.0):
    x = logits.float()
    if logit_scaling != 0:
        x = x * logit_scaling
    if logit_softcapping != 0:
        x = logit_softcapping * torch.tanh(x / logit_softcapping)
    logsumexp = torch.logsumexp(x, dim=-1)
    picked = x.gather(1, labels.clamp(min=0).unsqueeze(1)).squeeze(1)
    losses = torch.where(labels == -100, torch.zeros_like(logsumexp), logsumexp - picked)
    return losses, logsumexp
