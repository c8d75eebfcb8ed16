"""Per-token-group int8 quantization in the style of vLLM's Triton kernel
(per_token_group_quant): each group of `group_size` consecutive elements of a row gets its own
scale (absmax / 127); one program per group; BLOCK the next power of two of the group size. The
group size is an attribute from a set the fake checks (`group_size in (32, 64, 128)`), and the row
length a multiple of it (`x.shape[-1] % group_size == 0`)."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["vllm_like::group_quant_int8(x=[16, 512], group_size=128, eps=1e-10)"]


@triton.jit
def _per_token_group_quant_int8(y_ptr, y_q_ptr, y_s_ptr, group_size, y_num_columns,
                                y_row_stride, eps, int8_min, int8_max, BLOCK: tl.constexpr):
    groups_per_row = y_num_columns // group_size
    g_id = tl.program_id(0)
    row = g_id // groups_per_row
    row_g_id = g_id % groups_per_row
    y_ptr += (row * y_row_stride) + (row_g_id * group_size)
    y_q_ptr += g_id * group_size
    y_s_ptr += g_id
    cols = tl.arange(0, BLOCK)
    mask = cols < group_size
    y = tl.load(y_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    _absmax = tl.maximum(tl.max(tl.abs(y)), eps)
    y_s = _absmax / int8_max
    y_q = tl.clamp(y / y_s, int8_min, int8_max).to(y_q_ptr.dtype.element_ty)
    tl.store(y_q_ptr + cols, y_q, mask=mask)
    tl.store(y_s_ptr, y_s)


@torch.library.custom_op("vllm_like::group_quant_int8", mutates_args=())
def group_quant_int8(x: torch.Tensor, group_size: int,
                     eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    assert x.shape[-1] % group_size == 0, "the last dimension must divide by group_size"
    assert x.stride(-1) == 1, "x groups must be contiguous"
    assert group_size in (32, 64, 128)
    info = torch.iinfo(torch.int8)
    x_q = torch.empty_like(x, device=x.device, dtype=torch.int8)
    x_s = torch.empty(x.shape[:-1] + (x.shape[-1] // group_size,), device=x.device,
                      dtype=torch.float32)
    M = x.numel() // group_size
    N = group_size
    BLOCK = triton.next_power_of_2(N)
    num_warps = min(max(BLOCK // 256, 1), 8)
    _per_token_group_quant_int8[(M,)](x, x_q, x_s, group_size, x.shape[1], x.stride(0), eps,
                                      int8_min=info.min, int8_max=info.max, BLOCK=BLOCK,
                                      num_warps=num_warps, num_stages=1)
    return x_q, x_s


@group_quant_int8.register_fake
def _(x, group_size, eps):
    torch._check(group_size in (32, 64, 128))
    torch._check(x.shape[-1] % group_size == 0)
    return (torch.empty_like(x, dtype=torch.int8),
            x.new_empty(x.shape[:-1] + (x.shape[-1] // group_size,), dtype=torch.float32))
