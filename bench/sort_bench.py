"""torchtrt_ex::sort (examples/sort) against torch.sort, measured in one run on a GPU, at the
sizes of the models that sort.

  python3 bench/sort_bench.py BUILD_DIR

Both are eager out-of-place calls on the same tensor (values and indices allocated per call),
timed as medians of CUDA events (bench/timing.py). Each row is also checked against PyTorch:
values equal, indices equal for stable sorts, and for the others indices that pick PyTorch's
values (ties may come in either order); a row that fails is marked, and the exit status is then
1. The floor is the bytes a call must move (self read, values and int64 indices written) at the
bandwidth of a device copy measured in the same run.
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


def cases():
    """(name, tensor, dim, descending, stable)."""
    g = torch.Generator(device="cuda").manual_seed(0)
    # Mixture-of-experts routing: 8192 tokens x top-8 expert ids grouped by expert
    # (argsort(expert_ids, stable=True)), 256 experts.
    ids = torch.randint(0, 256, (65536,), device="cuda", generator=g)
    yield "MoE routing: argsort 65536 expert ids", ids, -1, False, True
    # Token merging (tomesd): each image's 4096 token scores, most similar first.
    scores = torch.randn(2, 4096, device="cuda", generator=g)
    yield "ToMe-SD: argsort 2 x 4096 scores", scores, -1, True, False
    # Top-p / min-p sampling: 16 sequences' probabilities over a 128256-token vocabulary.
    probs = torch.randn(16, 128256, device="cuda", generator=g).softmax(-1)
    yield "top-p sampling: 16 x 128256 probs", probs, -1, True, False
    yield "top-p sampling: 16 x 128256 probs", probs.to(torch.bfloat16), -1, True, False
    # PyG group_argsort / sort_edge_index: one stable sort of a million keys.
    keys = torch.randn(1, 1_000_000, device="cuda", generator=g)
    yield "PyG-style: stable sort 1 x 1e6", keys, -1, False, True
    # Detection pre-NMS: each image's anchor scores, best first.
    anchors = torch.rand(8, 12000, device="cuda", generator=g)
    yield "pre-NMS: sort 8 x 12000 scores", anchors, -1, True, False
    # Many short rows, and a sort along a dim that is not the last.
    short = torch.randn(4096, 256, device="cuda", generator=g, dtype=torch.float16)
    yield "rows: 4096 x 256", short, -1, False, False
    yield "dim 0: 256 x 4096", short.t().contiguous(), 0, False, True


def matches(x, dim, descending, stable, ours, theirs):
    values, indices = ours
    expected_values, expected_indices = theirs
    if not torch.equal(values, expected_values):
        return False
    if stable:
        return torch.equal(indices, expected_indices)
    return torch.equal(x.gather(dim, indices), expected_values)


def main(build):
    autoplugin.torch.load_library(os.path.join(build, "examples", "libautoplugin_examples_torch.so"))
    ours_op = torch.ops.torchtrt_ex.sort
    print(f"GPU: {torch.cuda.get_device_name()}, PyTorch {torch.__version__}")
    bandwidth = copy_bandwidth()
    print(f"copy bandwidth {bandwidth / 1e6:.0f} GB/s\n")
    print(f"{'case':<38} {'dtype':<9} {'desc':<5} {'stable':<6} {'ours ms':>8} {'floor%':>7}"
          f" {'torch ms':>9} {'torch/ours':>10}")
    met = total = mismatches = 0
    for name, x, dim, descending, stable in cases():
        def ours():
            return ours_op(x, dim, descending, stable)

        def theirs():
            return torch.sort(x, dim=dim, descending=descending, stable=stable)

        good = matches(x, dim, descending, stable, ours(), theirs())
        mismatches += not good
        ours_ms = timing.median_ms(ours, ITERATIONS)
        torch_ms = timing.median_ms(theirs, ITERATIONS)
        moved = x.numel() * (2 * x.element_size() + 8)
        floor = moved / bandwidth / ours_ms * 100
        met += torch_ms >= ours_ms
        total += 1
        dtype = str(x.dtype).replace("torch.", "")
        print(f"{name:<38} {dtype:<9} {str(descending):<5} {str(stable):<6} {ours_ms:>8.4f}"
              f" {floor:>6.1f}% {torch_ms:>9.4f} {torch_ms / ours_ms:>9.2f}x"
              f"{'' if good else '  MISMATCH'}")
    print(f"\n{met} of {total} rows >= 1.0x torch.sort; {mismatches} rows not equal to PyTorch")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "build"))
