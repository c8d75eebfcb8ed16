"""Host code as inference engines write it. `silu_and_mul` takes its output as an argument named
`out` (vLLM's convention) and writes it in place. `cache_rows` copies rows into a cache by an
int64 slot index, with strides annotated `tl.int64` (compiled so, as Triton's JIT does) and a
fake that bounds the slots by the rows (`>=`: no equality assumed). `rope_heads` checks that the
last extent is a multiple of a head size from a set (`% head_size == 0`: sampled on multiples).
`persistent_scale` reads the multiprocessor count when the module is imported
(`torch.cuda.get_device_properties`), as persistent kernels do. `glu_halves` passes its kernel
the two halves of `x.chunk(2, dim=-1)` (a view partway into the input) and `join_halves` writes
two inputs into the halves of its output (a view partway into the output), as GLU / SwiGLU host
code does. `flip_sign` passes its kernel integer views of a float input and output
(`x.view(torch.int32)`), as bit-manipulating kernels (quantizers, sign flips) take them.
`value_rows` takes the value part of a fused QKV projection (`qkv.split([q_size, kv_size,
kv_size], dim=-1)`, vLLM's idiom), its block the next power of two of an attribute that a
relation ties to the input's width."""
import torch
import triton
import triton.language as tl

NUM_SMS = torch.cuda.get_device_properties("cuda").multi_processor_count

AUTOPLUGIN_EXAMPLES = ["test::silu_and_mul(out=[4, 64], input=[4, 128])",
                       "test::cache_rows(key=[8, 64], slots=int64[8], cache=[32, 64])",
                       "test::rope_heads(x=[6, 512], head_size=128)",
                       "test::persistent_scale(x=[5000], scale=2.0)",
                       "test::glu_halves(x=[6, 96])",
                       "test::join_halves(a=[5, 40], b=[5, 40])",
                       "test::flip_sign(x=[6, 100])",
                       "test::value_rows(qkv=[10, 768], q_size=512, kv_size=128)"]


@triton.jit
def silu_and_mul_kernel(out_ptr, input_ptr, d, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < d
    gate = tl.load(input_ptr + row * 2 * d + cols, mask=mask).to(tl.float32)
    up = tl.load(input_ptr + row * 2 * d + d + cols, mask=mask).to(tl.float32)
    tl.store(out_ptr + row * d + cols, (gate * tl.sigmoid(gate) * up).to(out_ptr.dtype.element_ty),
             mask=mask)


@torch.library.custom_op("test::silu_and_mul", mutates_args=("out",))
def silu_and_mul(out: torch.Tensor, input: torch.Tensor) -> None:
    d = input.shape[-1] // 2
    rows = input.numel() // input.shape[-1]
    silu_and_mul_kernel[(rows, triton.cdiv(d, 256))](out, input, d, BLOCK=256)


@silu_and_mul.register_fake
def _(out, input):
    torch._check(out.shape[-1] * 2 == input.shape[-1])
    torch._check(out.shape[0] == input.shape[0])


@triton.jit
def cache_rows_kernel(key_ptr, slot_ptr, cache_ptr, key_stride: tl.int64, cache_stride: tl.int64,
                      n_cols, key_rows, cache_rows, BLOCK: tl.constexpr):
    # Each token's slot takes the key row of that slot: tokens that share a slot write the same
    # row (the cases' slots repeat).
    token = tl.program_id(0).to(tl.int64)
    slot = tl.load(slot_ptr + token)
    valid = (slot >= 0) & (slot < key_rows) & (slot < cache_rows)
    cols = tl.arange(0, BLOCK)
    mask = (cols < n_cols) & valid
    row = tl.load(key_ptr + slot * key_stride + cols, mask=mask)
    tl.store(cache_ptr + slot * cache_stride + cols, row, mask=mask)


@torch.library.custom_op("test::cache_rows", mutates_args=("cache",))
def cache_rows(key: torch.Tensor, slots: torch.Tensor, cache: torch.Tensor) -> None:
    tokens = slots.shape[0]
    cache_rows_kernel[(tokens,)](key, slots, cache, key.stride(0), cache.stride(0), key.shape[1],
                                 key.shape[0], cache.shape[0],
                                 BLOCK=triton.next_power_of_2(key.shape[1]))


@cache_rows.register_fake
def _(key, slots, cache):
    torch._check(key.shape[0] >= slots.shape[0])
    torch._check(key.shape[1] == cache.shape[1])
    torch._check(key.shape[1] <= 256)


@triton.jit
def rope_heads_kernel(x_ptr, out_ptr, n_cols, HEAD: tl.constexpr):
    row = tl.program_id(0)
    head = tl.program_id(1)
    half = tl.arange(0, HEAD // 2)
    base = x_ptr + row * n_cols + head * HEAD
    first = tl.load(base + half)
    second = tl.load(base + HEAD // 2 + half)
    target = out_ptr + row * n_cols + head * HEAD
    tl.store(target + half, -second)
    tl.store(target + HEAD // 2 + half, first)


@torch.library.custom_op("test::rope_heads", mutates_args=())
def rope_heads(x: torch.Tensor, head_size: int) -> torch.Tensor:
    out = torch.empty_like(x)
    rope_heads_kernel[(x.shape[0], x.shape[1] // head_size)](x, out, x.shape[1], HEAD=head_size)
    return out


@rope_heads.register_fake
def _(x, head_size):
    torch._check(head_size in (64, 128))
    torch._check(x.shape[-1] % head_size == 0)
    return torch.empty_like(x)


@triton.jit
def persistent_scale_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr, NUM_SMS: tl.constexpr):
    tiles = tl.cdiv(n, BLOCK)
    for tile in tl.range(tl.program_id(0), tiles, NUM_SMS):
        offsets = tile * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * scale, mask=mask)


@torch.library.custom_op("test::persistent_scale", mutates_args=())
def persistent_scale(x: torch.Tensor, scale: float) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    grid = (min(NUM_SMS, triton.cdiv(n, 1024)),)
    persistent_scale_kernel[grid](x, out, n, scale, BLOCK=1024, NUM_SMS=NUM_SMS)
    return out


@persistent_scale.register_fake
def _(x, scale):
    return torch.empty_like(x)


@triton.jit
def glu_kernel(a_ptr, b_ptr, out_ptr, row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    a = tl.load(a_ptr + row * row_stride + cols, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + row * row_stride + cols, mask=mask).to(tl.float32)
    tl.store(out_ptr + row * n_cols + cols, (a * tl.sigmoid(b)).to(out_ptr.dtype.element_ty),
             mask=mask)


@torch.library.custom_op("test::glu_halves", mutates_args=())
def glu_halves(x: torch.Tensor) -> torch.Tensor:
    a, b = x.chunk(2, dim=-1)
    out = torch.empty(a.shape, dtype=x.dtype, device=x.device)
    glu_kernel[(a.shape[0], triton.cdiv(a.shape[1], 64))](a, b, out, a.stride(0), a.shape[1],
                                                          BLOCK=64)
    return out


@glu_halves.register_fake
def _(x):
    torch._check(x.shape[-1] % 2 == 0)
    return x.new_empty(x.shape[0], x.shape[1] // 2)


@triton.jit
def copy_rows_kernel(src_ptr, dst_ptr, n_cols, src_stride, dst_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    tl.store(dst_ptr + row * dst_stride + cols,
             tl.load(src_ptr + row * src_stride + cols, mask=mask), mask=mask)


@torch.library.custom_op("test::join_halves", mutates_args=())
def join_halves(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    out = torch.empty(a.shape[0], 2 * a.shape[1], dtype=a.dtype, device=a.device)
    block = triton.next_power_of_2(a.shape[1])
    copy_rows_kernel[(a.shape[0],)](a, out[:, :a.shape[1]], a.shape[1], a.stride(0),
                                    out.stride(0), BLOCK=block)
    copy_rows_kernel[(a.shape[0],)](b, out[:, a.shape[1]:], a.shape[1], b.stride(0),
                                    out.stride(0), BLOCK=block)
    return out


@join_halves.register_fake
def _(a, b):
    torch._check(a.shape == b.shape)
    torch._check(a.shape[1] <= 1024)
    return a.new_empty(a.shape[0], 2 * a.shape[1])


@triton.jit
def flip_sign_kernel(bits_ptr, out_ptr, n, SIGN: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(bits_ptr + offsets, mask=mask) ^ SIGN, mask=mask)


@torch.library.custom_op("test::flip_sign", mutates_args=())
def flip_sign(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    bits = torch.int32 if x.element_size() == 4 else torch.int16
    sign = -2**31 if bits == torch.int32 else -2**15
    flip_sign_kernel[(triton.cdiv(x.numel(), 256),)](x.view(bits), out.view(bits), x.numel(),
                                                     SIGN=sign, BLOCK=256)
    return out


@flip_sign.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("test::value_rows", mutates_args=())
def value_rows(qkv: torch.Tensor, q_size: int, kv_size: int) -> torch.Tensor:
    _, _, v = qkv.split([q_size, kv_size, kv_size], dim=-1)
    out = torch.empty(qkv.shape[0], kv_size, dtype=qkv.dtype, device=qkv.device)
    copy_rows_kernel[(qkv.shape[0],)](v, out, kv_size, v.stride(0), out.stride(0),
                                      BLOCK=triton.next_power_of_2(kv_size))
    return out


@value_rows.register_fake
def _(qkv, q_size, kv_size):
    torch._check(q_size + 2 * kv_size == qkv.shape[-1])
    torch._check(q_size >= 1)
    torch._check(kv_size >= 1)
    torch._check(kv_size <= 1024)
    return qkv.new_empty(qkv.shape[0], kv_size)
