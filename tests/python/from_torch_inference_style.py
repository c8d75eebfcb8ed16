"""Host code as inference engines write it. `silu_and_mul` takes its output as an argument named
`out` (vLLM's convention) and writes it in place. `cache_rows` copies rows into a cache by an
int64 slot index, with strides annotated `tl.int64` (compiled so, as Triton's JIT does) and a
fake that bounds the slots by the rows (`>=`: no equality assumed). `rope_heads` checks that the
last extent is a multiple of a head size from a set (`% head_size == 0`: sampled on multiples).
`persistent_scale` reads the multiprocessor count when the module is imported
(`torch.cuda.get_device_properties`), as persistent kernels do."""
import torch
import triton
import triton.language as tl

NUM_SMS = torch.cuda.get_device_properties("cuda").multi_processor_count

AUTOPLUGIN_EXAMPLES = ["test::silu_and_mul(out=[4, 64], input=[4, 128])",
                       "test::cache_rows(key=[8, 64], slots=int64[8], cache=[32, 64])",
                       "test::rope_heads(x=[6, 512], head_size=128)",
                       "test::persistent_scale(x=[5000], scale=2.0)"]


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
