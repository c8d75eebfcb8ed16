"""Benchmark of from-torch: the generated plugin's enqueue against the custom op it came from.

    python3 bench/from_torch_bench.py --generated DIR --harness ENQUEUE_BENCH [--json FILE]

DIR holds the projects `python3 -m autoplugin.from_torch` wrote for the three examples of
examples/from_torch (built, each with build/lib<op>_plugin.so); ENQUEUE_BENCH is
examples/from_torch/bench_harness's binary, which times a plugin library's enqueue the way
TensorRT calls it (dlopen, getCreators, createPlugin, onShapeChange, enqueue; no TensorRT runtime).
On a GPU with PyTorch and Triton. Per op and dtype, side by side:
  plugin   the generated plugin's enqueue (no Python, the kernel compiled ahead of time)
  eager    the custom op called from Python (torch.ops.NS.NAME)
  kernel   the Triton kernel alone, as the eager call launches it (profiler kernel time)
  jit      the JIT-plugin pattern: the eager op, then a copy into a preallocated output (what a
           Python JIT plugin does at run time)
Device times are per call: events around back-to-back calls on large tensors; `kernel` is
CUPTI's kernel duration. Host times are CPU time per call on tiny tensors.
Targets: plugin device time within 5% of the kernel alone; plugin host time >= 10x below eager.

The RFC module's host code passes numpy.int32 values to the kernel, which Triton 3.6 refuses at
launch; for the eager rows, NumPy scalars are turned into Python ints as the launch is made (a
shim around JITFunction.run, the same for every op; it costs well under a microsecond per
argument). Its host code allocates the output as [1, 1, H', W'] and always in float32 (its fake
says [N, C, H', W'] in the input's dtype): with N * C > 1 the eager call writes past its output,
so its rows use N = C = 1, and its float16 eager and kernel rows store float32 elements.
"""
import argparse
import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import time

import numpy as np
import torch

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
EXAMPLES = os.path.join(ROOT, "examples", "from_torch")

# (module, op, big input shape, tiny input shape, attributes in call order, harness fields)
CASES = [
    ("circular_pad_rfc.py", "torchtrt_ex::triton_circular_pad", (1, 1, 4096, 4096), (1, 1, 2, 2),
     {"padding": [2, 2, 2, 2]}, ["padding=i:2,2,2,2"]),
    ("scaled_leaky_relu.py", "ex::scaled_leaky_relu", (64, 1024, 1024), (1, 1, 1),
     {"negative_slope": 0.1, "scale": 2.0}, ["negative_slope=f:0.1", "scale=f:2.0"]),
    ("row_window_max.py", "ex::row_window_max", (8192, 4096), (1, 8),
     {"window": 8}, ["window=i:8"]),
]
DTYPES = {"float32": torch.float32, "float16": torch.float16}


@contextlib.contextmanager
def numpy_scalars_as_ints():
    """Triton refuses NumPy integers at launch (the RFC's host code passes numpy.int32): turned
    into Python ints as the eager launch is made, for every op alike."""
    from triton.runtime.jit import JITFunction
    original = JITFunction.run

    def run(self, *args, **kwargs):
        args = [int(a) if isinstance(a, np.integer) else a for a in args]
        kwargs = {k: int(v) if isinstance(v, np.integer) else v for k, v in kwargs.items()}
        return original(self, *args, **kwargs)

    JITFunction.run = run
    try:
        yield
    finally:
        JITFunction.run = original


def load(module):
    path = os.path.join(EXAMPLES, module)
    spec = importlib.util.spec_from_file_location(os.path.splitext(module)[0], path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def device_ms(call, batch=50, rounds=9):
    for _ in range(10):
        call()
    torch.cuda.synchronize()
    times = []
    for _ in range(rounds):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(batch):
            call()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / batch)
    return sorted(times)[len(times) // 2]


def host_us(call, calls=2000, rounds=7):
    for _ in range(200):
        call()
    results = []
    for _ in range(rounds):
        total = 0
        for i in range(calls):
            if i % 256 == 0:
                torch.cuda.synchronize()
            begin = time.perf_counter_ns()
            call()
            total += time.perf_counter_ns() - begin
        torch.cuda.synchronize()
        results.append(total / calls / 1000)
    return sorted(results)[len(results) // 2]


def profiled_calls(call, calls):
    """torch.profiler's record (CUDA activity, CUPTI) of `calls` calls, after a warm-up."""
    from torch.profiler import ProfilerActivity, profile
    for _ in range(5):
        call()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as profiler:
        for _ in range(calls):
            call()
        torch.cuda.synchronize()
    return profiler


def kernel_ms(call, names, calls=50):
    """Device time per call of the kernels named `names` over `calls` eager calls (CUPTI,
    through torch.profiler)."""
    return profiled_ms(profiled_calls(call, calls), names) / calls


def profiled_ms(profiler, names):
    """The device time in ms of the kernels named `names` that `profiler` (torch.profiler)
    recorded."""
    total = 0.0
    for event in profiler.key_averages():
        if any(name in event.key for name in names):
            total += getattr(event, "device_time_total", None) or event.cuda_time_total
    if total == 0:
        raise RuntimeError(f"the profiler saw none of the kernels {sorted(names)}")
    return total / 1000


def harness(binary, library, op, dtype, in_shape, out_shape, fields):
    command = [binary, library, op, dtype, "x".join(map(str, in_shape)),
               "x".join(map(str, out_shape)), *fields]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {result.stderr.strip()}")
    return json.loads(result.stdout)


def measure(args, module, qualname, big, tiny, attributes, fields, dtype):
    namespace, name = qualname.split("::")
    op = getattr(getattr(torch.ops, namespace), name)
    kernel_name = {"triton_circular_pad": "circ_pad_kernel"}.get(name, f"{name}_kernel")
    library = os.path.join(args.generated, name, "build", f"lib{name}_plugin.so")
    values = list(attributes.values())
    row = {"op": qualname, "dtype": dtype, "shape": list(big)}
    x = torch.randn(big, device="cuda").to(DTYPES[dtype])
    small = torch.randn(tiny, device="cuda").to(DTYPES[dtype])
    with numpy_scalars_as_ints():
        out_shape = list(op(x, *values).shape)
        out_tiny = list(op(small, *values).shape)
        buffer = torch.empty(out_shape, device="cuda", dtype=x.dtype)
        buffer_tiny = torch.empty(out_tiny, device="cuda", dtype=x.dtype)
        row["eager_ms"] = device_ms(lambda: op(x, *values))
        row["kernel_ms"] = kernel_ms(lambda: op(x, *values), {kernel_name})
        row["jit_ms"] = device_ms(lambda: buffer.copy_(op(x, *values)))
        row["eager_us"] = host_us(lambda: op(small, *values))
        row["jit_us"] = host_us(lambda: buffer_tiny.copy_(op(small, *values)))
    plugin = harness(args.harness, library, qualname, dtype, big, out_shape, fields)
    row["plugin_ms"] = plugin["device_ms"]
    row["plugin_us"] = harness(args.harness, library, qualname, dtype, tiny, out_tiny,
                               fields)["host_us"]
    row["device_vs_kernel"] = row["plugin_ms"] / row["kernel_ms"] - 1
    row["host_speedup"] = row["eager_us"] / row["plugin_us"]
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--generated", required=True)
    parser.add_argument("--harness", required=True)
    parser.add_argument("--json")
    args = parser.parse_args()
    import triton
    print(f"GPU: {torch.cuda.get_device_name()}, PyTorch {torch.__version__}, "
          f"Triton {triton.__version__}")
    rows = []
    for module, qualname, big, tiny, attributes, fields in CASES:
        load(module)
        for dtype in DTYPES:
            rows.append(measure(args, module, qualname, big, tiny, attributes, fields, dtype))
    print("\ndevice ms per call (large tensors)          host us per call (tiny tensors)")
    header = (f"{'op':<34}{'dtype':<9}{'plugin':>8}{'kernel':>8}{'eager':>8}{'jit':>8}"
              f"{'vs kernel':>10}   {'plugin':>7}{'eager':>8}{'jit':>8}{'eager/plugin':>13}")
    print(header)
    for r in rows:
        print(f"{r['op']:<34}{r['dtype']:<9}{r['plugin_ms']:8.4f}{r['kernel_ms']:8.4f}"
              f"{r['eager_ms']:8.4f}{r['jit_ms']:8.4f}{100 * r['device_vs_kernel']:+9.1f}%"
              f"   {r['plugin_us']:7.2f}{r['eager_us']:8.2f}{r['jit_us']:8.2f}"
              f"{r['host_speedup']:12.1f}x")
    device_ok = all(r["device_vs_kernel"] <= 0.05 for r in rows)
    host_ok = all(r["host_speedup"] >= 10 for r in rows)
    print(f"\ntarget device time within 5% of the kernel alone: {'met' if device_ok else 'MISSED'}")
    print(f"target host time >= 10x below the eager call: {'met' if host_ok else 'MISSED'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
