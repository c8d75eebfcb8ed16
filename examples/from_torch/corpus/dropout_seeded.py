"""Dropout driven by a seed, in the style of Triton's low-memory-dropout tutorial: the keep mask
is drawn from the seed and each element's offset (Philox, `tl.rand`), so nothing but the seed
needs storing for the backward pass."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["tutorial::seeded_dropout(x=[3, 1000], p=0.5, seed=123)"]


@triton.jit
def _seeded_dropout(
    x_ptr,
    output_ptr,
    n_elements,
    p,
    seed,
    BLOCK_SIZE: tl.constexpr,
):
    # compute memory offsets of elements handled by this instance
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    # load data from x
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    # randomly prune it
    random = tl.rand(seed, offsets)
    x_keep = random > p
    # write-back
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


@torch.library.custom_op("tutorial::seeded_dropout", mutates_args=())
def seeded_dropout(x: torch.Tensor, p: float, seed: int) -> torch.Tensor:
    output = torch.empty_like(x)
    assert x.is_contiguous()
    n_elements = x.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )  # noqa: E731
    _seeded_dropout[grid](x, output, n_elements, p, seed, BLOCK_SIZE=1024)
    return output


@seeded_dropout.register_fake
def _(x, p, seed):
    return torch.empty_like(x)
