"""Torch-TensorRT's `elementwise_scale_mul` plugin example (examples/dynamo/
auto_generate_plugins.py), made persistent as in Triton's persistent-matmul tutorial: NUM_SMS
read from `torch.cuda.get_device_properties("cuda").multi_processor_count` at import, a grid of
`min(NUM_SMS, cdiv(numel, BLOCK_SIZE))` programs that stride over the tiles with NUM_SMS as a
constexpr step, an int `a` and a float `b` attribute passed to the kernel, a `clamp: bool` that
becomes a constexpr, and the fake written exactly as Torch-TensorRT's example writes it:
`return x` (the input itself)."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = [
    "torchtrt_ex::persistent_scale_mul(X=[64, 64, 130], Y=[64, 64, 130], b=0.2, a=2, clamp=False)",
    "torchtrt_ex::persistent_scale_mul(X=[64, 64, 130], Y=[64, 64, 130], b=0.2, a=2, clamp=True)",
]

NUM_SMS = torch.cuda.get_device_properties("cuda").multi_processor_count


@triton.jit
def persistent_scale_mul_kernel(X, Y, Z, a, b, n_elements,
                                CLAMP: tl.constexpr,
                                NUM_SMS: tl.constexpr,
                                BLOCK_SIZE: tl.constexpr):
    start_pid = tl.program_id(0)
    num_tiles = tl.cdiv(n_elements, BLOCK_SIZE)
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS):
        offsets = tile_id * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(X + offsets, mask=mask)
        y = tl.load(Y + offsets, mask=mask)
        z = (a * x) * (b * y)
        if CLAMP:
            z = tl.minimum(tl.maximum(z, -1.0), 1.0)
        tl.store(Z + offsets, z, mask=mask)


@torch.library.custom_op("torchtrt_ex::persistent_scale_mul", mutates_args=())  # type: ignore[misc]
def persistent_scale_mul(
    X: torch.Tensor, Y: torch.Tensor, b: float = 0.2, a: int = 2, clamp: bool = False
) -> torch.Tensor:
    # Ensure the tensors are on the GPU
    assert X.is_cuda and Y.is_cuda, "Tensors must be on CUDA device."
    assert X.shape == Y.shape, "Tensors must have the same shape."

    # Create output tensor
    Z = torch.empty_like(X)

    # Define block size
    BLOCK_SIZE = 1024
    n_elements = X.numel()

    # Grid of programs: at most one per SM, each walking the tiles
    grid = lambda meta: (min(NUM_SMS, triton.cdiv(n_elements, meta["BLOCK_SIZE"])),)

    # Launch the kernel with parameters a and b
    persistent_scale_mul_kernel[grid](X, Y, Z, a, b, n_elements,
                                      CLAMP=clamp, NUM_SMS=NUM_SMS, BLOCK_SIZE=BLOCK_SIZE)

    return Z


@torch.library.register_fake("torchtrt_ex::persistent_scale_mul")
def _(x: torch.Tensor, y: torch.Tensor, b: float = 0.2, a: int = 2, clamp: bool = False) -> torch.Tensor:
    return x


def persistent_scale_mul_reference(X, Y, b=0.2, a=2, clamp=False):
    z = (a * X) * (b * Y)
    return z.clamp(-1.0, 1.0) if clamp else z
