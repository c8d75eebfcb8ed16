"""The examples' PyTorch ops against PyTorch's own, measured in one run on a GPU.

  python3 bench/torch_bench.py BUILD_DIR

Host time per eager call (tiny tensors, so the CPU thread is the limit) of our circular_pad,
PyTorch's F.pad(mode="circular"), and, from bench/plugin_bench.cu, the plugin's enqueue and a direct
launcher call in C++; device time of our eager circular_pad vs F.pad at (8, 64, 256, 256) float32.
"""
import json
import os
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import autoplugin.torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402  (bench/timing.py)


def host_us(fn, calls=5000, rounds=7):
    medians = []
    for _ in range(3 + rounds):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for i in range(calls):
            fn()
            if i % 256 == 255:
                torch.cuda.synchronize()  # never a full launch queue
        torch.cuda.synchronize()
        medians.append((time.perf_counter() - start) / calls * 1e6)
    measured = sorted(medians[3:])
    return measured[len(measured) // 2]


def main(build):
    autoplugin.torch.load_library(os.path.join(build, "examples", "libautoplugin_examples_torch.so"))
    pad = torch.ops.torchtrt_ex.circular_pad
    print(f"GPU: {torch.cuda.get_device_name()}, PyTorch {torch.__version__}")

    tiny = torch.zeros(1, 1, 4, 4, device="cuda")
    ours_host = host_us(lambda: pad(tiny, [1, 1, 1, 1]))
    torch_host = host_us(lambda: F.pad(tiny, [1, 1, 1, 1], mode="circular"))
    # The floor of any eager op from Python: dispatch, an output from the allocator, one launch.
    floor_host = host_us(lambda: torch.neg(tiny))
    plugin = {}
    bench = os.path.join(build, "bench", "autoplugin_bench")
    if os.path.exists(bench):
        plugin = json.loads(subprocess.run([bench, "overhead"], check=True, capture_output=True,
                                           text=True).stdout)
    print("\nhost time per call, (1, 1, 4, 4) float32, padding (1, 1, 1, 1)")
    print(f"  eager torch.ops.torchtrt_ex.circular_pad   {ours_host:8.2f} us")
    print(f"  eager F.pad(mode='circular')               {torch_host:8.2f} us")
    print(f"  eager torch.neg (an eager op's floor)      {floor_host:8.2f} us")
    if plugin:
        print(f"  C++ direct launcher call (gelu_tanh)       {plugin['direct_call_us']:8.2f} us")
        print(f"  C++ plugin enqueue (circular_pad)          {plugin['circular_pad_enqueue_us']:8.2f} us")
        print(f"  eager overhead over the C++ enqueue        "
              f"{ours_host - plugin['circular_pad_enqueue_us']:8.2f} us  (target <= 5 us)")

    x = torch.randn(8, 64, 256, 256, device="cuda")
    padding = [2, 2, 2, 2]
    ours = timing.median_ms(lambda: pad(x, padding))
    theirs = timing.median_ms(lambda: F.pad(x, padding, mode="circular"))
    torch.testing.assert_close(pad(x, padding), F.pad(x, padding, mode="circular"))
    print("\ndevice time, (8, 64, 256, 256) float32, padding (2, 2, 2, 2)")
    print(f"  eager circular_pad {ours:.4f} ms, F.pad {theirs:.4f} ms: {theirs / ours:.2f}x "
          f"(target >= 1.5x)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build")
