"""torchtrt_ex::scatter_reduce (examples/scatter_reduce) against torch.Tensor.scatter_reduce,
measured in one run on a GPU, each reduce at the sizes of the models that call it.

  python3 bench/scatter_reduce_bench.py BUILD_DIR

Both are eager out-of-place calls on the same tensors (the output allocated per call, self
copied into it, then the scatter), timed as medians of CUDA events (bench/timing.py). The index
is materialized (contiguous), as a TensorRT engine hands it to the plugin; both get the same
tensor. Each row is also checked against the exact result (float64): both reduce with atomics in
no fixed order, rounding in the output's dtype, so ours may be off by at most twice PyTorch's own
error; a row that is not is marked, and the exit status is then 1. The floor
is the bytes a call must move (index and src read, self read, out written) at the bandwidth of a
device copy measured in the same run.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import autoplugin.torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402  (bench/timing.py)

ITERATIONS = 30


def copy_bandwidth():
    """Bytes per ms of a large device copy (bytes read plus bytes written)."""
    flat = torch.empty(256 * 2**20, device="cuda", dtype=torch.float32)
    out = torch.empty_like(flat)
    ms = timing.median_ms(lambda: out.copy_(flat), ITERATIONS)
    return 2 * flat.numel() * 4 / ms


def rows(index_1d, shape):
    """The expanded 1-D index of GNN aggregation and MoE combine, materialized."""
    return index_1d.view(-1, *([1] * (len(shape) - 1))).expand(shape).contiguous()


def cases():
    g = torch.Generator(device="cuda").manual_seed(0)
    nodes, edges, features = 100_000, 1_000_000, 64

    def gnn(dtype):
        target = torch.randint(0, nodes, (edges,), device="cuda", generator=g)
        return (torch.zeros(nodes, features, device="cuda", dtype=dtype), 0,
                rows(target, (edges, features)),
                torch.randn(edges, features, device="cuda", dtype=dtype, generator=g))

    f32, bf16 = gnn(torch.float32), gnn(torch.bfloat16)
    for reduce, include_self in [("sum", True), ("mean", False), ("amax", False),
                                 ("amin", False), ("prod", True)]:
        yield "GNN 1M edges x 64 -> 100k nodes", "float32", reduce, include_self, f32
    for reduce, include_self in [("sum", True), ("amax", False)]:
        yield "GNN 1M edges x 64 -> 100k nodes", "bfloat16", reduce, include_self, bf16
    # MoE combine: each of T tokens' top-8 expert outputs added back into the token's row.
    tokens, hidden, top_k = 4096, 4096, 8
    token = torch.arange(tokens, device="cuda").repeat_interleave(top_k)
    moe = (torch.zeros(tokens, hidden, device="cuda", dtype=torch.bfloat16), 0,
           rows(token, (tokens * top_k, hidden)),
           torch.randn(tokens * top_k, hidden, device="cuda", dtype=torch.bfloat16, generator=g))
    yield "MoE combine 32k x 4096 -> 4096", "bfloat16", "sum", True, moe
    # Token merging (ToMe-SD): 1024 of 2048 tokens merged into the kept ones by mean, dim -2.
    dst = torch.randn(2, 2048, 640, device="cuda", dtype=torch.float16, generator=g)
    merged = torch.randint(0, 2048, (2, 1024, 1), device="cuda", generator=g)
    tome = (dst, -2, merged.expand(2, 1024, 640).contiguous(),
            torch.randn(2, 1024, 640, device="cuda", dtype=torch.float16, generator=g))
    yield "ToMe 2x1024x640 -> 2x2048x640", "float16", "mean", True, tome
    # A random index along the last dim (each element its own target).
    scores = torch.randn(4096, 4096, device="cuda", generator=g)
    last = (scores, 1, torch.randint(0, 4096, (4096, 4096), device="cuda", generator=g),
            torch.randn(4096, 4096, device="cuda", generator=g))
    yield "4096x4096, random index, dim 1", "float32", "sum", True, last
    yield "4096x4096, random index, dim 1", "float32", "amax", False, last


def main(build):
    autoplugin.torch.load_library(os.path.join(build, "examples", "libautoplugin_examples_torch.so"))
    ours_op = torch.ops.torchtrt_ex.scatter_reduce
    print(f"GPU: {torch.cuda.get_device_name()}, PyTorch {torch.__version__}")
    bandwidth = copy_bandwidth()
    print(f"copy bandwidth {bandwidth / 1e6:.0f} GB/s\n")
    print(f"{'case':<34} {'dtype':<9} {'reduce':<6} {'self':<5} {'ours ms':>8} {'floor%':>7}"
          f" {'torch ms':>9} {'torch/ours':>10}  max error vs exact: ours, torch")
    met = total = mismatches = 0
    for name, dtype, reduce, include_self, (self_, dim, index, src) in cases():
        def ours():
            return ours_op(self_, dim, index, src, reduce=reduce, include_self=include_self)

        def theirs():
            return self_.scatter_reduce(dim, index, src, reduce, include_self=include_self)

        a, e = ours(), theirs()
        # Both reduce with atomics that land in no fixed order, rounding each step in the
        # output's dtype: each is compared with the exact result (in float64), and ours may be
        # off by at most twice PyTorch's own error (plus float32 rounding of the largest value).
        exact = self_.double().scatter_reduce(dim, index, src.double(), reduce,
                                              include_self=include_self)
        ours_error = (a.double() - exact).abs().max().item()
        torch_error = (e.double() - exact).abs().max().item()
        matches = ours_error <= 2 * torch_error + 1e-6 * exact.abs().max().item()
        mismatches += not matches
        ours_ms = timing.median_ms(ours, ITERATIONS)
        torch_ms = timing.median_ms(theirs, ITERATIONS)
        moved = (index.numel() * index.element_size() + index.numel() * src.element_size()
                 + 2 * self_.numel() * self_.element_size())
        floor = moved / bandwidth / ours_ms * 100
        met += torch_ms >= ours_ms
        total += 1
        print(f"{name:<34} {dtype:<9} {reduce:<6} {str(include_self):<5} {ours_ms:>8.4f}"
              f" {floor:>6.1f}% {torch_ms:>9.4f} {torch_ms / ours_ms:>9.2f}x  {ours_error:.2e},"
              f" {torch_error:.2e}{'' if matches else '  MISMATCH'}")
    print(f"\n{met} of {total} rows >= 1.0x torch.scatter_reduce; {mismatches} rows with more than twice"
          " PyTorch's error")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "build"))
