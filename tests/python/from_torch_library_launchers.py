"""Launchers of libraries' own, as FlagGems and flash-linear-attention write them: an autotuner
that subclasses Triton's and runs its configs its own way (benchmarking through the driver, which
needs a GPU), and a launch entry that keeps the kernel its first call compiled, per argument
key, and relaunches it at later calls with the autotuner's `best_config`. Both convert: the
autotuner's configs become tactics, and every call goes through the autotuner. And a launch with
`launch_pdl=True` (SGLang's), which converts without it."""
import torch
import triton
import triton.language as tl

AUTOPLUGIN_EXAMPLES = ["test::entry_scale(x=[64, 300])", "test::overlapped(x=[64, 300])"]


class BenchingTuner(triton.runtime.Autotuner):
    """A library's autotuner: it times each config on the GPU before its first launch."""

    def run(self, *args, **kwargs):
        raise RuntimeError("a GPU is needed to time the configs")


class CachedEntry(triton.KernelInterface):
    """A library's launch entry: the kernel of its first call per dtype, relaunched later with
    the best config's constexprs (the key ignores the sizes, as a kernel cache may)."""

    def __init__(self, tuner):
        self.tuner = tuner
        self.kernel_cache = {}

    def run(self, *args, grid, warmup, **kwargs):
        key = tuple(str(a.dtype) for a in args if isinstance(a, torch.Tensor))
        if key not in self.kernel_cache:
            kernel = self.tuner.run(*args, grid=grid, warmup=warmup, **kwargs)
            self.kernel_cache[key] = (kernel, self.tuner.best_config)
            return kernel
        kernel, config = self.kernel_cache[key]
        return kernel[grid](*args, **kwargs, **config.kwargs)


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, scale, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * scale, mask=mask)


scale = CachedEntry(BenchingTuner(
    scale_kernel, scale_kernel.arg_names,
    [triton.Config({"BLOCK": 256}, num_warps=2), triton.Config({"BLOCK": 1024}, num_warps=4)],
    key=["n"], reset_to_zero=None, restore_value=None))


@torch.library.custom_op("test::entry_scale", mutates_args=())
def entry_scale(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    scale[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, y, x.numel(), 0.5)
    return y


@entry_scale.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("test::overlapped", mutates_args=())
def overlapped(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    scale_kernel[(triton.cdiv(x.numel(), 512),)](x, y, x.numel(), 2.0, BLOCK=512,
                                                  launch_pdl=True)
    return y


@overlapped.register_fake
def _(x):
    return torch.empty_like(x)
