"""A kernel defined inside a function that builds it on first use and caches it in a global,
Triton imported there too (as torchao builds its blockwise float8 kernels, so that importing
the library needs no Triton): the generated project's copy of this file defines it at the top
level, where the project's build looks for it."""
import torch

_kernels = None


def _build_kernels():
    import triton
    import triton.language as tl

    @triton.jit
    def scale_rows_kernel(x_ptr, y_ptr, n_cols, scale, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        columns = tl.arange(0, BLOCK)
        mask = columns < n_cols
        x = tl.load(x_ptr + row * n_cols + columns, mask=mask)
        tl.store(y_ptr + row * n_cols + columns, x * scale, mask=mask)

    return {"scale_rows": scale_rows_kernel, "next_power_of_2": triton.next_power_of_2}


def _get_kernels():
    global _kernels
    if _kernels is None:
        _kernels = _build_kernels()
    return _kernels


AUTOPLUGIN_EXAMPLES = ["test::scale_rows(x=[4, 100], scale=0.5)"]


@torch.library.custom_op("test::scale_rows", mutates_args=())
def scale_rows(x: torch.Tensor, scale: float) -> torch.Tensor:
    kernels = _get_kernels()
    y = torch.empty_like(x)
    block = kernels["next_power_of_2"](x.shape[1])
    kernels["scale_rows"][(x.shape[0],)](x, y, x.shape[1], scale, BLOCK=block)
    return y


@scale_rows.register_fake
def _(x, scale):
    return torch.empty_like(x)
