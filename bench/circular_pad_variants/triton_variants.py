"""Triton circular_pad variants timed against a device copy of the same bytes (`out.copy_(x)`).

  python3 triton_variants.py            # on a GPU: checks every variant, then times them
  python3 triton_variants.py --cpu-check  # no GPU: the launch parameters checked on the CPU

Variants (launched from Python, JIT-compiled; the example's plugin runs the same kernels AOT):
  rows          the example's kernel (examples/circular_pad_triton/circular_pad_triton.py) as
                shipped: BLOCK_ROWS x 256 tiles, one element per lane per load and store.
  rows+words    the same kernel on the tensors viewed as the widest words (int32, int64) whose
                size divides the last dimension's extents and padding: float16 with even widths
                and padding then moves 4 bytes per element, like float32.
  rows+words RxC,w  tile shapes and warps for the word kernel.
  flat          one program per BLOCK consecutive output elements (contiguous, aligned: the stores
                vectorize), each element's source computed and gathered.
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
EXAMPLE = os.path.join(HERE, "..", "..", "examples", "circular_pad_triton", "circular_pad_triton.py")
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
def flat_kernel(x, out, total, in_d, in_h, in_w, out_d, out_h, out_w, before_d, before_h,
                before_w, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < total
    col = offsets % out_w
    row = offsets // out_w
    h = row % out_h
    rest = row // out_h
    d = rest % out_d
    n = rest // out_d
    source_row = (n * in_d + _wrap(d - before_d, in_d)) * in_h + _wrap(h - before_h, in_h)
    source = source_row.to(tl.int64) * in_w + _wrap(col - before_w, in_w)
    tl.store(out + offsets, tl.load(x + source, mask=mask), mask=mask)


def cpu_check():
    """Without a GPU: the rows kernel's math, written with torch on the CPU, on the same
    arguments the variants pass (elements and words), against the reference."""
    def emulate_rows(x_flat, out_numel, rows, in_d, in_h, in_w, out_d, out_h, out_w, before_d,
                     before_h, before_w):
        def wrap(i, e):
            return torch.where(i < 0, i + e, torch.where(i >= e, i - e, i))
        row = torch.arange(rows)
        h = row % out_h
        rest = row // out_h
        d = rest % out_d
        n = rest // out_d
        source_row = (n * in_d + wrap(d - before_d, in_d)) * in_h + wrap(h - before_h, in_h)
        col = torch.arange(out_w)
        index = source_row[:, None] * in_w + wrap(col - before_w, in_w)[None, :]
        out = x_flat[index.reshape(-1)]
        assert out.numel() == out_numel
        return out

    checked = 0
    for shape, padding in CHECKS:
        for name, dtype in DTYPES.items():
            x = (torch.arange(int(torch.tensor(shape).prod())) % 251).to(dtype).reshape(shape)
            expected = reference(x, padding)
            g_in, g_out, g_before, out_shape = canonical(shape, padding)
            assert list(expected.shape) == out_shape, (shape, padding)
            size = word_bytes(x.element_size(), g_in, g_out, g_before, [x, expected])
            for word in sorted({x.element_size(), size}):
                k = word // x.element_size()
                flat = x.reshape(-1).view(WORDS[word])
                got = emulate_rows(flat, expected.numel() // k, *rows_args(g_in, g_out, g_before, k))
                assert torch.equal(got.view(dtype), expected.reshape(-1)), (shape, padding, word)
                checked += 1
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
    rows_kernel = module.circular_pad_kernel

    def rows_launcher(block_rows, block_cols, warps, words):
        def launch(x, out, g_in, g_out, g_before):
            k = 1
            if words:
                size = word_bytes(x.element_size(), g_in, g_out, g_before, [x, out])
                k = size // x.element_size()
                x, out = x.view(-1).view(WORDS[size]), out.view(-1).view(WORDS[size])
            args = rows_args(g_in, g_out, g_before, k)
            br = block_rows(x.element_size()) if callable(block_rows) else block_rows
            rows_kernel[(triton.cdiv(args[0], br),)](x, out, *args, BLOCK_ROWS=br,
                                                     BLOCK_COLS=block_cols, num_warps=warps)
        return launch

    def flat_launcher(block, warps):
        def launch(x, out, g_in, g_out, g_before):
            total = out.numel()
            flat_kernel[(triton.cdiv(total, block),)](
                x, out, total, g_in[1], g_in[2], g_in[3], g_out[1], g_out[2], g_out[3],
                g_before[1], g_before[2], g_before[3], BLOCK=block, num_warps=warps)
        return launch

    shipped_rows = lambda element: 4 if element == 4 else 8  # noqa: E731 (CMakeLists.txt)
    variants = [
        ("rows (current)", rows_launcher(shipped_rows, 256, 4, False)),
        ("rows+words", rows_launcher(shipped_rows, 256, 4, True)),
        ("rows+words 4x256,4w", rows_launcher(4, 256, 4, True)),
        ("rows+words 8x256,8w", rows_launcher(8, 256, 8, True)),
        ("rows+words 2x512,4w", rows_launcher(2, 512, 4, True)),
        ("rows+words 16x128,4w", rows_launcher(16, 128, 4, True)),
        ("flat 2048,4w", flat_launcher(2048, 4)),
        ("flat 4096,8w", flat_launcher(4096, 8)),
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
