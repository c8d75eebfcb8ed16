"""Side-by-side benchmarks of the example plugins on a GPU, all measured in the same run.

  python3 bench/run_benchmarks.py BUILD_DIR [--json FILE] [--only NAME[,NAME...]]

--only runs the sections whose names contain one of the NAMEs (e.g. embedding_bag).

Each example plugin runs through its IPluginV3 enqueue (bench/plugin_bench.cu, no Python in the
timed loop) beside what a user would otherwise run: PyTorch's eager op; for circular_pad also the
run-time pattern of a Python JIT plugin (the eager op, then a copy into the engine's preallocated
output) and a Triton kernel written the way the Torch-TensorRT RFC writes one (a flat output index
per element, launched from Python); and a device copy of the same bytes, the bandwidth a memory-bound
kernel can reach. Times are medians of CUDA-event timings; copy bandwidth counts bytes read plus
bytes written. The run ends with one summary table: per op, dtype and size our time, the best
alternative's, their ratio, the target (issue 14) and whether it is met.
"""
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402  (bench/timing.py)
import torch
import torch.nn.functional as F
import triton
import triton.language as tl

ITERATIONS = 50
MB = 1e6
SUMMARY = []  # rows of the summary table
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def median_ms(fn):
    return timing.median_ms(fn, ITERATIONS)


def copy_ms(nbytes, dtype=torch.float32):
    """A device copy moving `nbytes` (half read, half written)."""
    element = torch.empty((), dtype=dtype).element_size()
    flat = torch.empty(max(1, nbytes // 2 // element), device="cuda", dtype=dtype)
    flat_out = torch.empty_like(flat)
    ms = median_ms(lambda: flat_out.copy_(flat))
    del flat, flat_out
    return ms


def plugin(bench, op, dtype, shape, **options):
    """The plugin's median ms through enqueue (the best tactic's where there are several)."""
    args = [bench, op, dtype, ",".join(map(str, shape))]
    for key, value in options.items():
        value = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else value
        args.append(f"{key}={value}")
    result = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return result["ms"], result.get("tactics", {})


def summary(op, dtype, size, ours, alt_name, alt, target, met, note=""):
    SUMMARY.append(dict(op=op, dtype=dtype, size=size, ours_ms=ours, alternative=alt_name,
                        alternative_ms=alt, ratio=alt / ours if alt else None, target=target,
                        met=bool(met), note=note))


# ---- circular_pad ----

@triton.jit
def circular_pad_4d_kernel(x, y, C, H, W, H_out, W_out, top, left, total, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < total
    w = offsets % W_out
    h = (offsets // W_out) % H_out
    nc = offsets // (W_out * H_out)
    src_h = (h - top + H) % H
    src_w = (w - left + W) % W
    values = tl.load(x + nc * H * W + src_h * W + src_w, mask=mask)
    tl.store(y + offsets, values, mask=mask)


def triton_circular_pad(x, padding, out=None):
    left, right, top, bottom = padding
    n, c, h, w = x.shape
    if out is None:
        out = torch.empty((n, c, h + top + bottom, w + left + right), device=x.device,
                          dtype=x.dtype)
    total = out.numel()
    circular_pad_4d_kernel[(triton.cdiv(total, 1024),)](
        x, out, c, h, w, out.shape[2], out.shape[3], top, left, total, BLOCK=1024)
    return out


def circular_pad_table(bench):
    padding = [2, 2, 2, 2]
    shapes = [(1, 3, 64, 64), (8, 16, 64, 64), (8, 64, 128, 128), (8, 64, 256, 256),
              (16, 64, 256, 256), (8, 64, 512, 512)]
    print("circular_pad, padding (2, 2, 2, 2) on the last two dims; % of a device copy's bandwidth")
    print("  plugin: the CUDA kernel's plugin; aot: the Triton kernel's plugin (compiled ahead of"
          " time, no Python);\n  jit: a Python JIT plugin's run time (F.pad, then a copy into the"
          " engine's output);\n  torch: F.pad(mode='circular'); triton: a flat-index Triton kernel"
          " launched from Python")
    print(f"{'dtype':>9} {'shape':>18} {'MB':>7} {'copy ms':>8} {'plugin ms':>9} {'plugin%':>7}"
          f" {'aot ms':>8} {'aot%':>6} {'jit ms':>8} {'jit%':>6} {'torch ms':>8} {'torch%':>6}"
          f" {'triton ms':>9} {'triton%':>7}")
    for name, dtype in DTYPES.items():
        for shape in shapes:
            x = torch.randn(shape, device="cuda", dtype=dtype)
            reference = F.pad(x, padding, mode="circular")
            assert torch.equal(triton_circular_pad(x, padding), reference)
            engine_output = torch.empty_like(reference)
            nbytes = (x.numel() + reference.numel()) * x.element_size()
            copy = copy_ms(nbytes, dtype)
            torch_ms = median_ms(lambda: F.pad(x, padding, mode="circular"))
            jit_ms = median_ms(lambda: engine_output.copy_(F.pad(x, padding, mode="circular")))
            triton_ms = median_ms(lambda: triton_circular_pad(x, padding, engine_output))
            ours, _ = plugin(bench, "circular_pad", name, shape, padding=padding)
            aot, _ = plugin(bench, "circular_pad_triton", name, shape, padding=padding)
            pct = [copy / t * 100 for t in (ours, aot, jit_ms, torch_ms, triton_ms)]
            print(f"{name:>9} {str(shape):>18} {nbytes / MB:>7.1f} {copy:>8.4f} {ours:>9.4f}"
                  f" {pct[0]:>6.1f}% {aot:>8.4f} {pct[1]:>5.1f}% {jit_ms:>8.4f} {pct[2]:>5.1f}%"
                  f" {torch_ms:>8.4f} {pct[3]:>5.1f}% {triton_ms:>9.4f} {pct[4]:>6.1f}%")
            if nbytes >= 64 * MB:
                alternatives = {"jit": jit_ms, "torch": torch_ms, "triton": triton_ms}
                best = min(alternatives, key=alternatives.get)
                size = f"{'x'.join(map(str, shape))} ({nbytes / MB:.0f} MB)"
                for op, t, p in (("circular_pad", ours, pct[0]), ("circular_pad_triton", aot, pct[1])):
                    summary(op, name, size, t, best, alternatives[best], ">= 90% copy", p >= 90,
                            f"{p:.1f}% copy")
            del x, reference, engine_output
    print()


# ---- gelu_tanh ----

def gelu_table(bench):
    shape = (64, 1024, 1024)
    print(f"gelu_tanh, shape {shape}")
    print(f"{'dtype':>10} {'copy ms':>9} {'plugin ms':>10} {'plugin%':>8} {'torch ms':>9}"
          f" {'torch/plugin':>13}")
    for name, dtype in DTYPES.items():
        x = torch.randn(shape, device="cuda", dtype=dtype)
        out = torch.empty_like(x)
        copy = median_ms(lambda: out.copy_(x))
        torch_ms = median_ms(lambda: F.gelu(x, approximate="tanh"))
        ours, _ = plugin(bench, "gelu_tanh", name, shape)
        pct = copy / ours * 100
        print(f"{name:>10} {copy:>9.4f} {ours:>10.4f} {pct:>7.1f}% {torch_ms:>9.4f}"
              f" {torch_ms / ours:>12.2f}x")
        summary("gelu_tanh", name, "x".join(map(str, shape)), ours, "torch", torch_ms,
                ">= 95% copy", pct >= 95, f"{pct:.1f}% copy")
        del x, out
    print()


# ---- nonzero ----

def nonzero_table(bench):
    print("nonzero, float32 (torch.nonzero also waits for the count to size its output; the plugin"
          " writes a size tensor\nand TensorRT sizes the output from it)")
    print(f"{'shape':>16} {'non-zero':>9} {'plugin ms':>10} {'torch ms':>9} {'torch/plugin':>13}")
    for shape in ((1024, 1024), (16, 1024, 1024)):
        for fraction in (0.0, 0.5, 1.0):
            x = (torch.rand(shape, device="cuda") < fraction).float()
            torch_ms = median_ms(lambda: torch.nonzero(x))
            ours, _ = plugin(bench, "nonzero", "float32", shape, nonzero=fraction)
            print(f"{str(shape):>16} {fraction:>8.0%} {ours:>10.4f} {torch_ms:>9.4f}"
                  f" {torch_ms / ours:>12.2f}x")
            summary("nonzero", "float32", f"{'x'.join(map(str, shape))} {fraction:.0%} non-zero",
                    ours, "torch", torch_ms, ">= 1.0x torch", torch_ms >= ours)
            del x
    print()


# ---- embedding_bag ----

def embedding_bag_table(bench):
    """Every mode of F.embedding_bag at DLRM-like sizes (a 10^6 x 128 table, 65,536 bags of 32
    indices; float32 and float16), beside PyTorch and the gather floor: the bytes the op must
    move (the rows it gathers, indices, offsets, per-sample weights, output) at the copy
    bandwidth measured in this run."""
    copy_bw = 512 * MB / copy_ms(512 * int(MB))  # bytes per ms
    print("embedding_bag; floor: the gathered rows, indices, offsets, per-sample weights and"
          f" output at copy bandwidth ({copy_bw / 1e6:.0f} GB/s)")
    print(f"{'table':>14} {'dtype':>8} {'bags x n':>10} {'mode':>18} {'index':>6} {'plugin ms':>10}"
          f" {'floor%':>7} {'torch ms':>9} {'torch/plugin':>13}")
    modes = [("sum", {}), ("mean", {}), ("max", {}), ("sum", {"weighted": 1}),
             ("mean", {"padding_idx": 0})]
    cases = [((1_000_000, 128), "float32", mode, extra, index) for mode, extra in modes
             for index in ("int64", "int32")]
    cases += [((1_000_000, 128), "float16", mode, extra, "int64") for mode, extra in modes]
    cases += [((10_000, 64), "float32", "sum", {}, "int64"),
              ((10_000, 64), "float32", "max", {}, "int32")]
    bags, per_bag = 65536, 32
    tables = {}
    for (rows, dim), dtype, mode, extra, index in cases:
        if (rows, dim, dtype) not in tables:
            tables.clear()
            tables[(rows, dim, dtype)] = torch.randn((rows, dim), device="cuda",
                                                     dtype=DTYPES[dtype])
        weight = tables[(rows, dim, dtype)]
        index_dtype = torch.int64 if index == "int64" else torch.int32
        indices = torch.randint(rows, (bags * per_bag,), device="cuda", dtype=index_dtype)
        offsets = torch.arange(0, bags * per_bag, per_bag, device="cuda", dtype=index_dtype)
        sample_weights = (torch.rand(bags * per_bag, device="cuda", dtype=weight.dtype)
                          if extra.get("weighted") else None)
        padding_idx = extra.get("padding_idx")
        torch_ms = median_ms(lambda: F.embedding_bag(
            indices, weight, offsets, mode=mode, per_sample_weights=sample_weights,
            padding_idx=padding_idx))
        ours, _ = plugin(bench, "embedding_bag", dtype, (rows, dim), bags=bags,
                         per_bag=per_bag, index=index, mode=mode, **extra)
        index_size, element = indices.element_size(), weight.element_size()
        floor_bytes = (bags * per_bag * (dim * element + index_size)
                       + bags * (index_size + dim * element))
        if sample_weights is not None:
            floor_bytes += bags * per_bag * element
        pct = floor_bytes / copy_bw / ours * 100
        label = mode + "".join(f" {k}" if k == "weighted" else f" {k}={v}"
                               for k, v in extra.items())
        print(f"{f'{rows}x{dim}':>14} {dtype:>8} {f'{bags}x{per_bag}':>10} {label:>18}"
              f" {index:>6} {ours:>10.4f} {pct:>6.1f}% {torch_ms:>9.4f} {torch_ms / ours:>12.2f}x")
        summary("embedding_bag", f"{dtype}/{index}", f"{rows}x{dim} {label} {bags}x{per_bag}",
                ours, "torch", torch_ms, ">= 1.0x torch, >= 90% floor",
                torch_ms >= ours and pct >= 90, f"{pct:.0f}% floor")
        del indices, offsets, sample_weights
    tables.clear()
    print()


# ---- row_sum, row_max ----

def row_reduction_table(bench):
    print("row_sum, row_max over the last dimension; read%: bytes read per second, as a % of a"
          " device copy's bandwidth (bytes read + written per second; a copy moving the input's"
          " bytes)")
    print(f"{'op':>8} {'dtype':>9} {'shape':>14} {'plugin ms':>10} {'read%':>7} {'torch ms':>9}"
          f" {'torch/plugin':>13} {'tactics (ms)':>20}")
    shapes = [(8192, 8192), (65536, 1024)]
    for op, dtypes in (("row_sum", ("float32", "float16")),
                       ("row_max", ("float32", "float16", "bfloat16"))):
        for name in dtypes:
            for shape in shapes:
                x = torch.randn(shape, device="cuda", dtype=DTYPES[name])
                nbytes = x.numel() * x.element_size()
                copy = copy_ms(nbytes, x.dtype)  # the time to move nbytes at copy bandwidth
                if op == "row_sum":
                    torch_ms = median_ms(lambda: torch.sum(x, dim=-1))
                    ours, tactics = plugin(bench, op, name, shape, tactics=2)
                else:
                    torch_ms = median_ms(lambda: torch.max(x, dim=-1))
                    ours, tactics = plugin(bench, op, name, shape)
                pct = copy / ours * 100
                tactic_text = ", ".join(f"{k}: {v:.4f}" for k, v in tactics.items())
                print(f"{op:>8} {name:>9} {'x'.join(map(str, shape)):>14} {ours:>10.4f}"
                      f" {pct:>6.1f}% {torch_ms:>9.4f} {torch_ms / ours:>12.2f}x {tactic_text:>20}")
                summary(op, name, f"{'x'.join(map(str, shape))} ({nbytes / MB:.0f} MB)", ours,
                        "torch", torch_ms, ">= 1.0x torch, >= 90% read",
                        torch_ms >= ours and pct >= 90, f"{pct:.1f}% read")
                del x
    print()


# ---- enqueue overhead ----

def overhead_table(bench):
    result = json.loads(subprocess.run([bench, "overhead"], check=True, capture_output=True,
                                       text=True).stdout)
    print("host time per call (median of 7 interleaved rounds of 5000 calls, after a warm-up)")
    print("one-element gelu_tanh, float32")
    over = result["plugin_enqueue_us"] - result["direct_call_us"]
    print(f"  empty kernel launch  {result['empty_launch_us']:.3f} us")
    print(f"  direct launcher call {result['direct_call_us']:.3f} us")
    print(f"  plugin enqueue       {result['plugin_enqueue_us']:.3f} us (+{over:.3f} us over the"
          " direct call)")
    print("circular_pad on [1, 1], float32")
    print(f"  CUDA kernel plugin   {result['circular_pad_enqueue_us']:.3f} us")
    print(f"  Triton AOT plugin    {result['circular_pad_triton_enqueue_us']:.3f} us"
          "  (launched through the CUDA driver API)")
    print()
    SUMMARY.append(dict(op="enqueue overhead", dtype="float32", size="1 element",
                        ours_ms=result["plugin_enqueue_us"] / 1000, alternative="direct call",
                        alternative_ms=result["direct_call_us"] / 1000, ratio=None,
                        target="<= 1 us over direct", met=over <= 1.0, note=f"+{over:.3f} us"))


def print_summary():
    print("Summary (ratio: the best alternative's time / ours; above 1 means ours is faster)")
    header = (f"{'op':<20} {'dtype':<14} {'size':<32} {'ours ms':>9} {'best alternative':>22}"
              f" {'ratio':>7}  {'target':<27} {'':<6} note")
    print(header)
    print("-" * len(header))
    for row in SUMMARY:
        alt = f"{row['alternative']} {row['alternative_ms']:.4f}"
        ratio = f"{row['ratio']:.2f}x" if row["ratio"] else "-"
        print(f"{row['op']:<20} {row['dtype']:<14} {row['size']:<32} {row['ours_ms']:>9.4f}"
              f" {alt:>22} {ratio:>7}  {row['target']:<27} {'MET' if row['met'] else 'MISSED':<6}"
              f" {row['note']}")
    met = sum(row["met"] for row in SUMMARY)
    print(f"{met} of {len(SUMMARY)} targets met")


def main(argv):
    build_dir = argv[1] if len(argv) > 1 and not argv[1].startswith("--") else "build"
    json_path = argv[argv.index("--json") + 1] if "--json" in argv else None
    bench = f"{build_dir}/bench/autoplugin_bench"
    sys.stdout.reconfigure(line_buffering=True)  # the log shows each row as it is measured
    print(f"GPU: {torch.cuda.get_device_name()}, PyTorch {torch.__version__}, "
          f"Triton {triton.__version__}\n")
    sections = [circular_pad_table, gelu_table, nonzero_table, embedding_bag_table,
                row_reduction_table, overhead_table]
    if "--only" in argv:
        names = argv[argv.index("--only") + 1].split(",")
        sections = [s for s in sections if any(name in s.__name__ for name in names)]
        if not sections:
            sys.exit(f"--only {','.join(names)}: no section matches")

    def stop(signum, frame):
        raise TimeoutError("stopped (SIGTERM)")

    signal.signal(signal.SIGTERM, stop)  # a time limit still gets the summary so far
    try:
        for section in sections:
            started = time.time()
            try:
                section(bench)
                print(f"({section.__name__}: {time.time() - started:.0f} s)\n")
            except TimeoutError:
                raise
            except Exception as error:  # one section's failure leaves the others' figures
                stderr = getattr(error, "stderr", "") or ""
                print(f"{section.__name__} failed: {error} {stderr.strip()}\n")
    except TimeoutError as error:
        print(f"{error}: the summary covers the sections run so far\n")
    finally:
        print_summary()
        if json_path:
            with open(json_path, "w") as f:
                json.dump(SUMMARY, f, indent=1)


if __name__ == "__main__":
    main(sys.argv)
