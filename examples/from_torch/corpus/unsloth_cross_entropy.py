"""Cross-entropy forward in the style of Unsloth: one program per row of logits
(`tl.program_id(0)`), the row's logsumexp kept for the backward pass, int64 labels with
`-100` ignored, optional logit scaling and softcapping switched by constexprs the host code
derives from float arguments, `calculate_settings` for the block size and warps, and vocabularies
longer than `MAX_FUSED_SIZE` split into chunks whose logsumexps the host code combines."""
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

AUTOPLUGIN_EXAMPLES = [
    "unsloth::cross_entropy_forward(logits=[2, 37, 1000], labels=int64[2, 37],"
    " logit_softcapping=0.0, logit_scaling=0.0)",
]

MAX_FUSED_SIZE = 65536


def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(f"Cannot launch Triton kernel since n = {n} exceeds "
                           f"the maximum CUDA blocksize = {MAX_FUSED_SIZE}.")
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


@triton.jit
def _transform_logits(x, DO_SOFTCAPPING: tl.constexpr, SOFTCAP, DO_LOGIT_SCALING: tl.constexpr,
                      LOGIT_SCALE):
    if DO_LOGIT_SCALING:
        x = LOGIT_SCALE * x
    if DO_SOFTCAPPING:
        x = SOFTCAP * libdevice.tanh(x / SOFTCAP)
    return x


@triton.jit
def _cross_entropy_forward(
    logits_ptr, logits_row_stride,
    loss_ptr, logsumexp_ptr, labels_ptr,
    VOCAB_SIZE,
    BLOCK_SIZE: tl.constexpr,
    DO_SOFTCAPPING: tl.constexpr, SOFTCAP,
    DO_LOGIT_SCALING: tl.constexpr, LOGIT_SCALE,
):
    row_idx = tl.program_id(0)
    logits_ptr += row_idx.to(tl.int64) * logits_row_stride
    loss_ptr += row_idx
    logsumexp_ptr += row_idx
    labels_ptr += row_idx

    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < VOCAB_SIZE

    label_idx = tl.load(labels_ptr).to(tl.int32)
    logits = tl.load(logits_ptr + col_offsets, mask=mask, other=-float("inf")).to(tl.float32)
    logits = _transform_logits(logits, DO_SOFTCAPPING, SOFTCAP, DO_LOGIT_SCALING, LOGIT_SCALE)
    c = tl.max(logits, 0)
    logsumexp = c + tl.log(tl.sum(tl.exp(logits - c), 0))

    if label_idx != -100:
        x = tl.load(logits_ptr + label_idx).to(tl.float32)
        x = _transform_logits(x, DO_SOFTCAPPING, SOFTCAP, DO_LOGIT_SCALING, LOGIT_SCALE)
        loss = logsumexp - x
    else:
        loss = 0.0
    tl.store(logsumexp_ptr, logsumexp)
    tl.store(loss_ptr, loss)


@triton.jit
def _chunked_cross_entropy_forward(
    logits_ptr, logits_row_stride,
    loss_ptr, logsumexp_ptr, labels_ptr,
    VOCAB_SIZE, N_CHUNKS,
    BLOCK_SIZE: tl.constexpr,
    DO_SOFTCAPPING: tl.constexpr, SOFTCAP,
    DO_LOGIT_SCALING: tl.constexpr, LOGIT_SCALE,
):
    row_idx = tl.program_id(0)
    chunk_idx = tl.program_id(1)
    logits_ptr += row_idx.to(tl.int64) * logits_row_stride
    loss_ptr += row_idx
    logsumexp_ptr += row_idx * N_CHUNKS + chunk_idx
    labels_ptr += row_idx

    col_offsets = chunk_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < VOCAB_SIZE

    label_idx = tl.load(labels_ptr).to(tl.int32)
    logits = tl.load(logits_ptr + col_offsets, mask=mask, other=-float("inf")).to(tl.float32)
    logits = _transform_logits(logits, DO_SOFTCAPPING, SOFTCAP, DO_LOGIT_SCALING, LOGIT_SCALE)
    c = tl.max(logits, 0)
    logsumexp = c + tl.log(tl.sum(tl.exp(logits - c), 0))

    if chunk_idx == 0:
        # The first chunk stores -x; the host code adds the combined logsumexp.
        if label_idx != -100:
            x = tl.load(logits_ptr + label_idx).to(tl.float32)
            x = _transform_logits(x, DO_SOFTCAPPING, SOFTCAP, DO_LOGIT_SCALING, LOGIT_SCALE)
            loss = -1.0 * x
        else:
            loss = 0.0
        tl.store(loss_ptr, loss)
    tl.store(logsumexp_ptr, logsumexp)


@torch.library.custom_op("unsloth::cross_entropy_forward", mutates_args=())
def cross_entropy_forward(logits: torch.Tensor, labels: torch.Tensor,
                          logit_softcapping: float = 0.0,
                          logit_scaling: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    vocab_size = logits.shape[-1]
    logits = logits.view(-1, vocab_size)
    labels = labels.view(-1)
    n_rows = logits.shape[0]
    div, mod = divmod(vocab_size, MAX_FUSED_SIZE)
    n_chunks = div + (mod != 0)
    losses = torch.empty(n_rows, dtype=torch.float32, device=logits.device)

    DO_SOFTCAPPING = bool(logit_softcapping != 0)
    DO_LOGIT_SCALING = bool(logit_scaling != 0)

    if n_chunks == 1:
        BLOCK_SIZE, num_warps = calculate_settings(vocab_size)
        logsumexp = torch.empty(n_rows, dtype=torch.float32, device=logits.device)
        with torch.cuda.device(logits.device):
            _cross_entropy_forward[(n_rows,)](
                logits, logits.stride(0),
                losses, logsumexp, labels,
                VOCAB_SIZE=vocab_size,
                BLOCK_SIZE=BLOCK_SIZE,
                DO_SOFTCAPPING=DO_SOFTCAPPING, SOFTCAP=logit_softcapping,
                DO_LOGIT_SCALING=DO_LOGIT_SCALING, LOGIT_SCALE=logit_scaling,
                num_warps=num_warps,
            )
    else:
        logsumexp = torch.empty((n_rows, n_chunks), dtype=torch.float32, device=logits.device)
        with torch.cuda.device(logits.device):
            _chunked_cross_entropy_forward[(n_rows, n_chunks)](
                logits, logits.stride(0),
                losses, logsumexp, labels,
                VOCAB_SIZE=vocab_size, N_CHUNKS=n_chunks,
                BLOCK_SIZE=MAX_FUSED_SIZE,
                DO_SOFTCAPPING=DO_SOFTCAPPING, SOFTCAP=logit_softcapping,
                DO_LOGIT_SCALING=DO_LOGIT_SCALING, LOGIT_SCALE=logit_scaling,
                num_warps=32,
            )
        logsumexp = torch.logsumexp(logsumexp, dim=1)
        losses += logsumexp
        losses.masked_fill_(labels == -100, 0)
    return losses, logsumexp


@cross_entropy_forward.register_fake
def _(logits, labels, logit_softcapping=0.0, logit_scaling=0.0):
    n_rows = logits.numel() // logits.shape[-1]
    return (logits.new_empty(n_rows, dtype=torch.float32),
            logits.new_empty(n_rows, dtype=torch.float32))


def cross_entropy_reference(logits, labels, logit_softcapping=0.0, logit_scaling=0.0):
    x = logits.float().view(-1, logits.shape[-1])
    if logit_scaling != 0:
        x = logit_scaling * x
    if logit_softcapping != 0:
        x = logit_softcapping * torch.tanh(x / logit_softcapping)
    labels = labels.view(-1)
    logsumexp = torch.logsumexp(x, dim=-1)
    losses = torch.nn.functional.cross_entropy(x, labels, reduction="none", ignore_index=-100)
    return losses, logsumexp
