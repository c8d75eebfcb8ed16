"""Triton circular_pad variants timed against a device copy of the same bytes (`out.copy_(x)`).

  python3 triton_variants.py            # on a GPU: checks every variant, then times them
  python3 triton_variants.py --cpu-check  # no GPU: the variants' index math checked on the CPU

Variants (launched from Python, JIT-compiled without the JIT's value and alignment
specializations, as the example's plugin runs its kernel AOT). All see the tensors as the widest
words (2, 4 or 8 bytes) whose size divides the last dimension's extents and padding.
  rows RxC       the kernel before: R output rows per program in C-word column blocks, each row's
                 source row computed once (narrow rows leave lanes idle).
  flat B         one program per B consecutive output words, every word's row, column and source
                 computed (divisions as multiply-high and shift), D and H always wrapped: the
                 shipped kernel with row_wraps 2.
  shipped        the example's kernel (examples/circular_pad_triton/circular_pad_triton.py): flat,
                 1024 words a program, the divisions and wraps of unpadded D and H skipped.
  fold B         the shipped kernel with other block sizes.
Every variant's output must equal torch.nn.functional.pad(mode="circular") (torch.equal; for
negative padding, the wrapped-index reference of examples/reference.py).
"""
import importlib.util
import os
import sys

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "..", "examples", "circular_pad_triton", "circular_pad_triton.py")
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
WORDS = {2: torch.int16, 4: torch.int32, 8: torch.int64}
MB = 1e6


def canonical(shape, padding):
    """As the plugin's launcher: [N, D, H, W] in and out extents and `before` per dimension."""
    rank = len(shape)
    out_shape = list(shape)
    before = [0] * rank
    for i in range(len(padding) // 2):
        d = rank - 1 - i
        before[d] = padding[2 * i]
        out_shape[d] += padding[2 * i] + padding[2 * i + 1]
    g_in, g_out, g_before = [1] * 4, [1] * 4, [0] * 4
    for d in range(rank):
        slot = max(0, d - rank + 4)
        g_in[slot] *= shape[d]
        g_out[slot] *= out_shape[d]
        if slot > 0:
            g_before[slot] = before[d]
    return g_in, g_out, g_before, out_shape


def word_bytes(element, g_in, g_out, g_before, tensors):
    """The widest word (up to 8 bytes) made of whole elements that the last dimension allows."""
    for size in (8, 4):
        k = size // element
        if k <= 1:
            continue
        if (g_in[3] % k == 0 and g_out[3] % k == 0 and g_before[3] % k == 0
                and all(t.data_ptr() % size == 0 for t in tensors)):
            return size
    return element


def rows_args(g_in, g_out, g_before, k=1):
    """The rows kernel's scalar arguments, the last dimension in words of k elements."""
    rows = g_out[0] * g_out[1] * g_out[2]
    return (rows, g_in[1], g_in[2], g_in[3] // k, g_out[1], g_out[2], g_out[3] // k, g_before[1],
            g_before[2], g_before[3] // k)


def torch_reference(x, padding):
    """Circular padding by index_select with wrapped indices (F.pad's rules; any rank)."""
    out = x
    for i in range(len(padding) // 2):
        d = x.dim() - 1 - i
        before, after = padding[2 * i], padding[2 * i + 1]
        extent = x.shape[d]
        index = (torch.arange(-before, extent + after, device=x.device) % extent)
        out = out.index_select(d, index)
    return out


def reference(x, padding):
    """F.pad(mode="circular") where it applies; as examples/reference.py, the index reference for
    negative padding (F.pad wraps a dimension padded on one side and cropped on the other
    relative to the cropped extent, the op relative to the input's) and ranks F.pad lacks."""
    if all(p >= 0 for p in padding) and len(padding) // 2 < x.dim():
        try:
            return F.pad(x, padding, mode="circular")
        except (RuntimeError, NotImplementedError, ValueError):
            pass
    return torch_reference(x, padding)


@triton.jit
def _wrap(index, extent):
    return tl.where(index < 0, index + extent, tl.where(index >= extent, index - extent, index))

@triton.jit
def rows_kernel(x, out, rows, in_d, in_h, in_w, out_d, out_h, out_w, before_d, before_h,
                before_w, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    row = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    row_in_range = row < rows
    h = row % out_h
    rest = row // out_h
    d = rest % out_d
    n = rest // out_d
    source_row = (n * in_d + _wrap(d - before_d, in_d)) * in_h + _wrap(h - before_h, in_h)
    source = x + source_row.to(tl.int64)[:, None] * in_w
    target = out + row.to(tl.int64)[:, None] * out_w
    for start in range(0, out_w, BLOCK_COLS):
        col = start + tl.arange(0, BLOCK_COLS)
        mask = row_in_range[:, None] & (col < out_w)[None, :]
        values = tl.load(source + _wrap(col - before_w, in_w)[None, :], mask=mask)
        tl.store(target + col[None, :], values, mask=mask)


def magic(divisor):
    """(multiplier, shift) with floor(n / divisor) == umulhi(2n, multiplier) >> shift for every
    0 <= n < 2**31, as the example's launcher computes them."""
    shift = (divisor - 1).bit_length()
    return -(-(1 << (31 + shift)) // divisor), shift


def unspecialized(kernel):
    """The kernel as its AOT build sees it: no integer equal to 1 or multiple of 16, no aligned
    pointer assumed."""
    function = kernel.fn
    names = [name for name in function.__code__.co_varnames[:function.__code__.co_argcount]
             if function.__annotations__.get(name) is not tl.constexpr]
    return triton.jit(do_not_specialize=names, do_not_specialize_on_alignment=names)(function)


def shipped_args(g_in, g_out, g_before, k=1):
    """The shipped kernel's scalar arguments, in words of k elements, for one launch over the
    whole output (the launcher splits outputs of 2**31 words or more into several)."""
    rows = g_out[0] * g_out[1] * g_out[2]
    out_w = g_out[3] // k
    d_wraps = g_in[1] != g_out[1] or g_before[1] != 0
    h_wraps = g_in[2] != g_out[2] or g_before[2] != 0
    row_wraps = 2 if d_wraps else (1 if h_wraps else 0)
    return (rows * out_w, 0, row_wraps, g_in[1], g_in[2], g_in[3] // k, g_out[1], g_out[2], out_w,
            g_before[1], g_before[2], g_before[3] // k, *magic(out_w), *magic(g_out[2]),
            *magic(g_out[1]))


def wrap_every_dimension_args(g_in, g_out, g_before, k=1):
    """The shipped kernel's arguments with row_wraps 2 whatever is padded: its general branch,
    every dimension divided and wrapped (the flat kernel without the skip)."""
    args = shipped_args(g_in, g_out, g_before, k)
    return args[:2] + (2,) + args[3:]


def cpu_check():
    """Without a GPU: the rows and shipped kernels' math, written with torch on the CPU, on the
    arguments the variants pass (elements and words), against the reference; the shipped kernel
    also in launches of a few rows each, as the launcher splits large outputs."""
    def wrap(i, e):
        return torch.where(i < 0, i + e, torch.where(i >= e, i - e, i))

    def emulate_rows(x_flat, rows, in_d, in_h, in_w, out_d, out_h, out_w, before_d, before_h,
                     before_w):
        row = torch.arange(rows)
        h = row % out_h
        rest = row // out_h
        d = rest % out_d
        n = rest // out_d
        source_row = (n * in_d + wrap(d - before_d, in_d)) * in_h + wrap(h - before_h, in_h)
        col = torch.arange(out_w)
        return x_flat[(source_row[:, None] * in_w + wrap(col - before_w, in_w)[None, :]).reshape(-1)]

    def divide(n, multiplier, shift):
        return ((n * 2) * multiplier >> 32) >> shift

    def emulate_shipped(x_flat, words, first_row, row_wraps, in_d, in_h, in_w, out_d, out_h, out_w,
                        before_d, before_h, before_w, w_multiplier, w_shift, h_multiplier, h_shift,
                        d_multiplier, d_shift):
        offset = torch.arange(words, dtype=torch.int64)
        local_row = divide(offset, w_multiplier, w_shift)
        assert torch.equal(local_row, offset // out_w)
        col = offset - local_row * out_w
        row = first_row + local_row
        if row_wraps == 0:
            source_row = row
        else:
            rest = divide(row, h_multiplier, h_shift)
            outer = rest
            if row_wraps == 2:
                n = divide(rest, d_multiplier, d_shift)
                outer = n * in_d + wrap(rest - n * out_d - before_d, in_d)
            source_row = outer * in_h + wrap(row - rest * out_h - before_h, in_h)
        return x_flat[source_row * in_w + wrap(col - before_w, in_w)]

    def emulate_shipped_in_launches(x_flat, rows_per_launch, words, _first_row, *rest):
        out_w = rest[6]
        rows = words // out_w
        parts = []
        for first_row in range(0, rows, rows_per_launch):
            launch_words = min(rows_per_launch, rows - first_row) * out_w
            parts.append(emulate_shipped(x_flat, launch_words, first_row, *rest))
        return torch.cat(parts)

    checked = 0
    for shape, padding in CHECKS:
        for name, dtype in DTYPES.items():
            x = (torch.arange(int(torch.tensor(shape).prod())) % 251).to(dtype).reshape(shape)
            expected = reference(x, padding)
            g_in, g_out, g_before, out_shape = canonical(shape, padding)
            assert list(expected.shape) == out_shape, (shape, padding)
            expected = expected.reshape(-1)
            size = word_bytes(x.element_size(), g_in, g_out, g_before, [x, expected])
            for word in sorted({x.element_size(), size}):
                k = word // x.element_size()
                flat = x.reshape(-1).view(WORDS[word])
                results = [emulate_rows(flat, *rows_args(g_in, g_out, g_before, k)),
                           emulate_shipped(flat, *shipped_args(g_in, g_out, g_before, k)),
                           emulate_shipped(flat, *wrap_every_dimension_args(g_in, g_out,
                                                                            g_before, k))]
                for rows_per_launch in (1, 3):
                    results.append(emulate_shipped_in_launches(
                        flat, rows_per_launch, *shipped_args(g_in, g_out, g_before, k)))
                for got in results:
                    assert torch.equal(got.view(dtype), expected), (shape, padding, word)
                checked += len(results)
    print(f"cpu check: {checked} argument sets match the reference")


CHECKS = [
    ((2, 3, 8, 8), [1, 1, 2, 2]), ((4, 3, 16, 16), [2, 3]), ((2, 5, 7), [1, 2, 3, 0]),
    ((4, 6), [-1, -2]), ((2, 3, 4, 5, 300), [7, 5, 1, 2, 3, 1]), ((37,), [4, 5]),
    ((3, 2, 1000), [999, 1000, 1, 1]), ((3, 5, 37), [3, 4, 1, 1]), ((2, 3, 1001), [5, 2]),
    ((2, 4, 64, 64), [3, 3, 2, 2]), ((2, 4, 32, 64), [2, 2, 2, 2]), ((2, 4, 32, 64), [4, 4, 1, 1]),
    ((2, 3, 40, 24), [-2, 4, 1, -3]),
]
TIMED = [((8, 64, 128, 128), [2, 2, 2, 2]), ((8, 64, 256, 256), [2, 2, 2, 2]),
         ((16, 64, 256, 256), [2, 2, 2, 2]), ((8, 64, 512, 512), [2, 2, 2, 2]),
         ((8, 64, 256, 256), [3, 3, 2, 2])]


def gpu_main():
    spec = importlib.util.spec_from_file_location("circular_pad_triton_source", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    shipped_jit = unspecialized(module.circular_pad_kernel)
    rows_jit = unspecialized(rows_kernel)

    def in_words(x, out, g_in, g_out, g_before):
        size = word_bytes(x.element_size(), g_in, g_out, g_before, [x, out])
        return x.view(-1).view(WORDS[size]), out.view(-1).view(WORDS[size]), size // x.element_size()

    def rows_launcher(block_rows, block_cols, warps):
        def launch(x, out, g_in, g_out, g_before):
            x, out, k = in_words(x, out, g_in, g_out, g_before)
            args = rows_args(g_in, g_out, g_before, k)
            rows_jit[(triton.cdiv(args[0], block_rows),)](
                x, out, *args, BLOCK_ROWS=block_rows, BLOCK_COLS=block_cols, num_warps=warps)
        return launch

    def flat_launcher(kernel, make_args, block, warps):
        def launch(x, out, g_in, g_out, g_before):
            x, out, k = in_words(x, out, g_in, g_out, g_before)
            args = make_args(g_in, g_out, g_before, k)
            kernel[(triton.cdiv(args[0], block),)](x, out, *args, BLOCK=block, num_warps=warps)
        return launch

    variants = [
        ("rows 4x256,4w (before)", rows_launcher(4, 256, 4)),
        ("flat 1024,4w", flat_launcher(shipped_jit, wrap_every_dimension_args, 1024, 4)),
        ("shipped (fold 1024,4w)", flat_launcher(shipped_jit, shipped_args, 1024, 4)),
        ("fold 2048,4w", flat_launcher(shipped_jit, shipped_args, 2048, 4)),
        ("fold 512,4w", flat_launcher(shipped_jit, shipped_args, 512, 4)),
        ("fold 1024,8w", flat_launcher(shipped_jit, shipped_args, 1024, 8)),
    ]

    def median_ms(fn, runs=30, warm_up=5, busy=True):
        for _ in range(warm_up):
            fn()
        times = []
        for _ in range(runs):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            # The GPU sleeps while Python enqueues: the events time the kernel, not the launch.
            if busy:
                torch.cuda._sleep(1_000_000)
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
        return sorted(times)[len(times) // 2]

    sys.stdout.reconfigure(line_buffering=True)  # a time limit keeps what was printed
    failures = 0
    worst = {}
    print(f"GPU: {torch.cuda.get_device_name()}, PyTorch {torch.__version__}, Triton "
          f"{triton.__version__}; median of 30 runs; % of out.copy_(x) moving the same bytes;\n"
          "the GPU sleeps (torch.cuda._sleep) before each timed launch: no launch latency")
    for name, dtype in DTYPES.items():
        for shape, padding in TIMED:
            x = torch.randn(shape, device="cuda").to(dtype)
            expected = reference(x, padding)
            g_in, g_out, g_before, _ = canonical(list(shape), padding)
            nbytes = (x.numel() + expected.numel()) * x.element_size()
            flat = torch.empty(nbytes // 2 // x.element_size(), device="cuda", dtype=dtype)
            flat_out = torch.empty_like(flat)
            copy = median_ms(lambda: flat_out.copy_(flat))
            idle_copy = median_ms(lambda: flat_out.copy_(flat), busy=False)
            del flat, flat_out
            print(f"{name:<9} {str(list(shape)):<20} pad {str(padding):<14} {nbytes / MB:8.1f} MB"
                  f" in+out: copy {copy:.4f} ms ({nbytes / MB / copy:.0f} GB/s; {idle_copy:.4f}"
                  " ms without the sleep)")
            out = torch.empty_like(expected)
            for variant, launch in variants:
                out.fill_(float("nan"))
                launch(x, out, g_in, g_out, g_before)
                ok = torch.equal(out, expected)
                failures += not ok
                ms = median_ms(lambda: launch(x, out, g_in, g_out, g_before))
                pct = copy / ms * 100
                print(f"    {variant:<24} {ms:8.4f} ms {nbytes / MB / ms:6.0f} GB/s"
                      f" {pct:6.1f}% of copy{'' if ok else '  WRONG'}")
                if nbytes >= 64 * MB:
                    key = (variant, name)
                    worst[key] = min(worst.get(key, 1e9), pct if ok else 0.0)
            del x, expected, out
        print()
    print("Worst % of copy over the timed sizes >= 64 MB (0 = wrong result):")
    print(f"{'variant':<24} " + " ".join(f"{n:>9}" for n in DTYPES))
    for variant, _ in variants:
        print(f"{variant:<24} " + " ".join(f"{worst.get((variant, n), 0):>8.1f}%" for n in DTYPES))
    print("Checks on small odd shapes (JIT compiles each new specialization: after the timings)")
    for name, dtype in DTYPES.items():
        for shape, padding in CHECKS:
            x = torch.randn(shape, device="cuda").to(dtype)
            expected = reference(x, padding)
            g_in, g_out, g_before, _ = canonical(list(shape), padding)
            for variant, launch in variants:
                out = torch.full_like(expected, float("nan"))
                launch(x, out, g_in, g_out, g_before)
                if not torch.equal(out, expected):
                    failures += 1
                    print(f"MISMATCH {variant} {name} {shape} pad {padding}")
    print(f"{'FAILED' if failures else 'all variants exact'}: {failures} mismatching runs")
    return 1 if failures else 0


if __name__ == "__main__":
    if "--cpu-check" in sys.argv:
        cpu_check()
        sys.exit(0)
    sys.exit(gpu_main())
