"""Exact GEGLU forward in the style of Unsloth: gelu(gate) * up with the erf form of GELU, the
launch under a `torch.cuda.device` guard wrapped in a helper, a flat grid from the element count,
the output allocated from the gate's (batch, seq_len, hidden) shape."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["unsloth::geglu_exact(gate=[2, 33, 1408], up=[2, 33, 1408])"]

torch_cuda_device = torch.cuda.device


@triton.jit
def _exact_forward_kernel(e, g, h, n_elements, BLOCK_SIZE: tl.constexpr):
    block_idx = tl.program_id(0)
    offsets = block_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements

    # f = 1/2 * e * (1 + erf(1/sqrt(2) * e))
    # h = f * up
    e_row = tl.load(e + offsets, mask=mask, other=0).to(tl.float32)
    g_row = tl.load(g + offsets, mask=mask, other=0)

    f_row = 0.5 * e_row * (tl.math.erf(tl.math.rsqrt(2.0) * e_row) + 1.0)
    f_row = f_row.to(g_row.dtype)  # Exact copy from HF
    h_row = f_row * g_row

    # Store h
    tl.store(h + offsets, h_row, mask=mask)


def geglu_exact_forward_kernel(gate, up):
    batch, seq_len, hd = gate.shape
    n_elements = gate.numel()
    device = gate.device
    out = torch.empty((batch, seq_len, hd), dtype=gate.dtype, device=device)
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']),)  # noqa: E731
    with torch_cuda_device(device):
        _exact_forward_kernel[grid](gate, up, out, n_elements, BLOCK_SIZE=1024)
    return out


@torch.library.custom_op("unsloth::geglu_exact", mutates_args=())
def geglu_exact(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    return geglu_exact_forward_kernel(gate, up)


@geglu_exact.register_fake
def _(gate, up):
    return torch.empty_like(gate)


def geglu_reference(gate, up):
    return torch.nn.functional.gelu(gate.float()).to(up.dtype) * up
