"""
Temperature-scaled log-softmax over the last dimension in two passes, as a Torch-TensorRT plugin
op: a row reduction kernel computes each row's log-sum-exp (online, in BLOCK_N chunks, with
libdevice exp/log as in Triton's libdevice tutorial) into a float32 scratch buffer, then an
elementwise kernel over a 2-D grid writes x / T - lse[row].
"""
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

AUTOPLUGIN_EXAMPLES = [
    "torchtrt_ex::log_softmax_t(X=[4, 32, 1000], temperature=2.0)",
]


@triton.jit
def row_lse_kernel(X, LSE, stride_xm, N, inv_temperature, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    X += row.to(tl.int64) * stride_xm
    m_i = tl.zeros([], dtype=tl.float32) - float("inf")
    s_i = tl.zeros([], dtype=tl.float32)
    for off in range(0, N, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)
        x = tl.load(X + cols, mask=cols < N, other=-float("inf")).to(tl.float32) * inv_temperature
        m_new = tl.maximum(m_i, tl.max(x, axis=0))
        s_i = s_i * libdevice.exp(m_i - m_new) + tl.sum(libdevice.exp(x - m_new), axis=0)
        m_i = m_new
    tl.store(LSE + row, m_i + libdevice.log(s_i))


@triton.jit
def log_softmax_apply_kernel(X, LSE, Y, stride_xm, stride_ym, N, inv_temperature, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    lse = tl.load(LSE + row)
    x = tl.load(X + row.to(tl.int64) * stride_xm + cols, mask=mask, other=0.0).to(tl.float32)
    y = x * inv_temperature - lse
    tl.store(Y + row.to(tl.int64) * stride_ym + cols, y.to(Y.dtype.element_ty), mask=mask)


@torch.library.custom_op("torchtrt_ex::log_softmax_t", mutates_args=())  # type: ignore[misc]
def log_softmax_t(X: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    assert X.is_cuda, "Tensors must be on CUDA device."
    assert temperature > 0.0

    shape = X.shape
    x2d = X.reshape(-1, shape[-1])
    M, N = x2d.shape

    Y = torch.empty((M, N), device=X.device, dtype=X.dtype)
    # scratch: one float32 log-sum-exp per row
    lse = torch.empty((M,), device=X.device, dtype=torch.float32)

    inv_t = 1.0 / temperature
    BLOCK_N = min(triton.next_power_of_2(N), 4096)

    # pass 1: row reduction
    row_lse_kernel[(M,)](x2d, lse, x2d.stride(0), N, inv_t, BLOCK_N=BLOCK_N, num_warps=8 if BLOCK_N >= 2048 else 4)

    # pass 2: elementwise
    grid = lambda meta: (M, triton.cdiv(N, meta["BLOCK_N"]))
    log_softmax_apply_kernel[grid](x2d, lse, Y, x2d.stride(0), Y.stride(0), N, inv_t, BLOCK_N=1024)
    return Y.view(shape)


@torch.library.register_fake("torchtrt_ex::log_softmax_t")
def _(X: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
    return torch.empty_like(X)


def log_softmax_reference(X, temperature=1.0):
    return torch.log_softmax(X.float() / temperature, dim=-1).to(X.dtype)
