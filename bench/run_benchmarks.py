"""Side-by-side benchmarks of the example plugins on a GPU, all measured in the same run.

  python3 bench/run_benchmarks.py BUILD_DIR

circular_pad: the plugin's enqueue (CUDA kernel, and the Triton kernel compiled ahead of time) vs
PyTorch's F.pad(mode="circular") vs a Triton kernel written the way the Torch-TensorRT RFC writes
one (one flat output index per element, launched from Python) vs a device copy of the same bytes. gelu_tanh: the plugin vs PyTorch per dtype. enqueue: host cost of the plugin's
enqueue vs a direct launcher call vs an empty kernel launch. Times are medians of CUDA-event
timings; bandwidth counts bytes read plus bytes written.
"""
import json
import subprocess
import sys

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

ITERATIONS = 50


def median_ms(fn):
    for _ in range(5):
        fn()
    times = []
    for _ in range(ITERATIONS):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return sorted(times)[len(times) // 2]


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


def triton_circular_pad(x, padding):
    left, right, top, bottom = padding
    n, c, h, w = x.shape
    out = torch.empty((n, c, h + top + bottom, w + left + right), device=x.device, dtype=x.dtype)
    total = out.numel()
    circular_pad_4d_kernel[(triton.cdiv(total, 1024),)](
        x, out, c, h, w, out.shape[2], out.shape[3], top, left, total, BLOCK=1024)
    return out


def plugin_ms(bench, op, dtype, shape, padding=None):
    args = [bench, op, dtype, ",".join(map(str, shape))]
    if padding is not None:
        args.append(",".join(map(str, padding)))
    result = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return result["ms"]


def gbps(nbytes, ms):
    return nbytes / ms / 1e6


def circular_pad_table(bench):
    padding = [2, 2, 2, 2]
    shapes = [(1, 3, 64, 64), (8, 16, 64, 64), (8, 64, 128, 128), (8, 64, 256, 256),
              (16, 64, 256, 256), (8, 64, 512, 512)]
    print("circular_pad, float32, padding (2, 2, 2, 2) on the last two dims")
    print("  plugin: the CUDA kernel's plugin; aot: the Triton kernel's plugin (compiled ahead of time,"
          " no Python);\n  triton: a flat-index Triton kernel launched from Python")
    print(f"{'shape':>20} {'MB in+out':>10} {'copy ms':>9} {'plugin ms':>10} {'plugin %':>9}"
          f" {'aot ms':>8} {'aot %':>7} {'torch ms':>9} {'torch %':>8} {'triton ms':>10} {'triton %':>9}")
    for shape in shapes:
        x = torch.randn(shape, device="cuda")
        reference = F.pad(x, padding, mode="circular")
        assert torch.equal(triton_circular_pad(x, padding), reference)
        nbytes = (x.numel() + reference.numel()) * x.element_size()
        # The copy moves the same bytes: the output's worth read and written, split evenly.
        flat = torch.empty(nbytes // 2 // x.element_size(), device="cuda")
        flat_out = torch.empty_like(flat)
        copy = median_ms(lambda: flat_out.copy_(flat))
        torch_ms = median_ms(lambda: F.pad(x, padding, mode="circular"))
        triton_ms = median_ms(lambda: triton_circular_pad(x, padding))
        plugin = plugin_ms(bench, "circular_pad", "float32", shape, padding)
        aot = plugin_ms(bench, "circular_pad_triton", "float32", shape, padding)
        copy_bw = gbps(nbytes, copy)
        row = [gbps(nbytes, t) / copy_bw * 100 for t in (plugin, aot, torch_ms, triton_ms)]
        print(f"{str(shape):>20} {nbytes / 1e6:>10.1f} {copy:>9.4f} {plugin:>10.4f} {row[0]:>8.1f}%"
              f" {aot:>8.4f} {row[1]:>6.1f}% {torch_ms:>9.4f} {row[2]:>7.1f}%"
              f" {triton_ms:>10.4f} {row[3]:>8.1f}%")
        del x, reference, flat, flat_out
    print()


def gelu_table(bench):
    shape = (64, 1024, 1024)
    print(f"gelu_tanh, shape {shape}")
    print(f"{'dtype':>10} {'copy ms':>9} {'plugin ms':>10} {'torch ms':>9} {'plugin/torch':>13}")
    for name, dtype in (("float32", torch.float32), ("float16", torch.float16),
                        ("bfloat16", torch.bfloat16)):
        x = torch.randn(shape, device="cuda", dtype=dtype)
        out = torch.empty_like(x)
        copy = median_ms(lambda: out.copy_(x))
        torch_ms = median_ms(lambda: F.gelu(x, approximate="tanh"))
        plugin = plugin_ms(bench, "gelu_tanh", name, shape)
        print(f"{name:>10} {copy:>9.4f} {plugin:>10.4f} {torch_ms:>9.4f} {torch_ms / plugin:>12.2f}x")
        del x, out
    print()


def nonzero_table(bench):
    print("nonzero, float32, every element non-zero (the largest output)")
    print(f"{'shape':>16} {'plugin ms':>10} {'torch ms':>9} {'torch/plugin':>13}")
    for shape in ((1024, 1024), (16, 1024, 1024)):
        x = torch.full(shape, 1.5, device="cuda")
        torch_ms = median_ms(lambda: torch.nonzero(x))
        plugin = plugin_ms(bench, "nonzero", "float32", shape, [])
        print(f"{str(shape):>16} {plugin:>10.4f} {torch_ms:>9.4f} {torch_ms / plugin:>12.2f}x")
        del x
    print("  (torch.nonzero also waits for the count to size its output; the plugin writes a size\n"
          "   tensor and TensorRT sizes the output from it)")
    print()


def overhead_table(bench):
    result = json.loads(subprocess.run([bench, "overhead"], check=True, capture_output=True,
                                       text=True).stdout)
    print("host time per call (median of 7 interleaved rounds of 5000 calls, after a warm-up)")
    print("one-element gelu_tanh, float32")
    print(f"  empty kernel launch  {result['empty_launch_us']:.3f} us")
    print(f"  direct launcher call {result['direct_call_us']:.3f} us")
    print(f"  plugin enqueue       {result['plugin_enqueue_us']:.3f} us"
          f"  (+{result['plugin_enqueue_us'] - result['direct_call_us']:.3f} us over the direct call)")
    print("circular_pad on [1, 1], float32")
    print(f"  CUDA kernel plugin   {result['circular_pad_enqueue_us']:.3f} us")
    print(f"  Triton AOT plugin    {result['circular_pad_triton_enqueue_us']:.3f} us"
          "  (launched through the CUDA driver API)")
    print()


def circular_pad_dtype_table(bench):
    shape, padding = (8, 64, 256, 256), [2, 2, 2, 2]
    print(f"circular_pad per dtype, shape {shape}, padding (2, 2, 2, 2): CUDA vs Triton AOT plugin")
    print(f"{'dtype':>10} {'copy ms':>9} {'plugin ms':>10} {'aot ms':>8} {'torch ms':>9}")
    for name, dtype in (("float32", torch.float32), ("float16", torch.float16),
                        ("bfloat16", torch.bfloat16)):
        x = torch.randn(shape, device="cuda", dtype=dtype)
        reference = F.pad(x, padding, mode="circular")
        flat = torch.empty((x.numel() + reference.numel()) // 2, device="cuda", dtype=dtype)
        flat_out = torch.empty_like(flat)
        copy = median_ms(lambda: flat_out.copy_(flat))
        torch_ms = median_ms(lambda: F.pad(x, padding, mode="circular"))
        plugin = plugin_ms(bench, "circular_pad", name, shape, padding)
        aot = plugin_ms(bench, "circular_pad_triton", name, shape, padding)
        print(f"{name:>10} {copy:>9.4f} {plugin:>10.4f} {aot:>8.4f} {torch_ms:>9.4f}")
        del x, reference, flat, flat_out
    print()


def main(build_dir):
    bench = f"{build_dir}/bench/autoplugin_bench"
    print(f"GPU: {torch.cuda.get_device_name()}, PyTorch {torch.__version__}, "
          f"Triton {triton.__version__}\n")
    circular_pad_table(bench)
    circular_pad_dtype_table(bench)
    gelu_table(bench)
    nonzero_table(bench)
    overhead_table(bench)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build")
