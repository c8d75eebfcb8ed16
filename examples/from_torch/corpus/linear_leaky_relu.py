"""A linear layer (`x @ weight.T + bias`) with a fused leaky ReLU, in the style of Triton's matmul
tutorial: `@triton.autotune` keyed on M, N, K over a `@triton.heuristics` that sets `EVEN_K`
from the autotuned `BLOCK_K`, a 2-D grid from a `META` lambda, the `nn.Linear` weight read
transposed through its strides, an `ACTIVATION` constexpr the host code fixes, a float
`negative_slope`, and inputs of any rank flattened to rows with `reshape`."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "tutorial::linear_leaky_relu(x=[3, 40, 96], weight=[160, 96], bias=[160],"
    " negative_slope=0.01)",
]


@triton.jit
def leaky_relu(x, negative_slope):
    return tl.where(x >= 0, x, negative_slope * x)


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_stages=4, num_warps=4),
    ],
    key=["M", "N", "K"],
)
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def _linear_kernel(
    x_ptr, w_ptr, b_ptr, y_ptr,
    M, N, K,
    stride_xm, stride_xk,
    stride_wn, stride_wk,
    stride_ym, stride_yn,
    negative_slope,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    EVEN_K: tl.constexpr,
    ACTIVATION: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :] * stride_xk
    # weight is [N, K]: its tile [BLOCK_K, BLOCK_N] is read transposed
    w_ptrs = w_ptr + offs_k[:, None] * stride_wk + offs_n[None, :] * stride_wn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K)):
        if EVEN_K:
            a = tl.load(x_ptrs)
            b = tl.load(w_ptrs)
        else:
            k_left = K - k * BLOCK_K
            a = tl.load(x_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
            b = tl.load(w_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc)
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk

    bias = tl.load(b_ptr + offs_n).to(tl.float32)
    acc += bias[None, :]
    if ACTIVATION == "leaky_relu":
        acc = leaky_relu(acc, negative_slope)

    offs_ym = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_yn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    y_ptrs = y_ptr + offs_ym[:, None] * stride_ym + offs_yn[None, :] * stride_yn
    y_mask = (offs_ym[:, None] < M) & (offs_yn[None, :] < N)
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=y_mask)


@torch.library.custom_op("tutorial::linear_leaky_relu", mutates_args=())
def linear_leaky_relu(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                      negative_slope: float = 0.01) -> torch.Tensor:
    assert x.shape[-1] == weight.shape[1], "Incompatible dimensions"
    out_shape = (*x.shape[:-1], weight.shape[0])
    x2 = x.reshape(-1, x.shape[-1])
    M, K = x2.shape
    N = weight.shape[0]
    y = torch.empty((M, N), device=x.device, dtype=x.dtype)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]))  # noqa: E731
    _linear_kernel[grid](
        x2, weight, bias, y,
        M, N, K,
        x2.stride(0), x2.stride(1),
        weight.stride(0), weight.stride(1),
        y.stride(0), y.stride(1),
        negative_slope,
        ACTIVATION="leaky_relu",
    )
    return y.view(out_shape)


@linear_leaky_relu.register_fake
def _(x, weight, bias, negative_slope=0.01):
    return x.new_empty((*x.shape[:-1], weight.shape[0]))


def linear_leaky_relu_reference(x, weight, bias, negative_slope=0.01):
    y = torch.nn.functional.linear(x.float(), weight.float(), bias.float())
    return torch.nn.functional.leaky_relu(y, negative_slope).to(x.dtype)
