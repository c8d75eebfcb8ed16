"""Split-K matrix-vector product y = A @ x, accumulated with tl.atomic_add in float32.

Each program reduces a BLOCK_M x (K / SPLIT_K) slice and atomically adds its partial sums into
the float32 output; @triton.autotune picks (BLOCK_M, BLOCK_K, SPLIT_K) per (M, K) and resets
the output to zero between the configs it times.
"""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["modern::splitk_gemv(a=[512, 4096], x=[4096])"]


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 32, "BLOCK_K": 128, "SPLIT_K": 4}, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_K": 64, "SPLIT_K": 8}, num_warps=4),
        triton.Config({"BLOCK_M": 16, "BLOCK_K": 256, "SPLIT_K": 16}, num_warps=8),
    ],
    key=["M", "K"],
    reset_to_zero=["out_ptr"],
)
@triton.jit
def _splitk_gemv_kernel(a_ptr, x_ptr, out_ptr, M, K, stride_am, stride_ak,
                        BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_k = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    # slice pid_k takes the K-blocks pid_k, pid_k + SPLIT_K, ...
    for k0 in range(pid_k * BLOCK_K, K, BLOCK_K * SPLIT_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0).to(tl.float32)
        xv = tl.load(x_ptr + rk, mask=rk < K, other=0.0).to(tl.float32)
        acc += tl.sum(a * xv[None, :], axis=1)
    tl.atomic_add(out_ptr + rm, acc, mask=rm < M)


@torch.library.custom_op("modern::splitk_gemv", mutates_args=())
def splitk_gemv(a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    assert a.dim() == 2 and x.dim() == 1
    M, K = a.shape
    assert x.shape[0] == K, f"x has {x.shape[0]} elements, A has {K} columns"
    x = x.contiguous()
    out = torch.zeros((M,), device=a.device, dtype=torch.float32)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), META["SPLIT_K"])  # noqa: E731
    _splitk_gemv_kernel[grid](a, x, out, M, K, a.stride(0), a.stride(1))
    return out


@splitk_gemv.register_fake
def _(a, x):
    torch._check(a.shape[1] == x.shape[0])
    return a.new_empty((a.shape[0],), dtype=torch.float32)


def gemv_reference(a, x):
    return a.float() @ x.float()
