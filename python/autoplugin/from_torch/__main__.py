"""Command line: python3 -m autoplugin.from_torch MODULE.py --out DIR [options]."""
import argparse
import importlib.util
import sys

from . import generate
from .errors import GenerationError


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="autoplugin from-torch",
        description="Generate a TensorRT plugin project (C++, CMake, check cases) from each "
                    "torch.library custom op of a Python module whose host code launches a Triton "
                    "kernel and which has a fake implementation.")
    parser.add_argument("module", help="the Python file defining the custom op(s)")
    parser.add_argument("--out", required=True, help="folder for the generated projects")
    parser.add_argument("--op", action="append", dest="ops", metavar="NS::NAME",
                        help="generate only this op (repeatable; default: every op found)")
    parser.add_argument("--example", action="append", dest="examples",
                        metavar="'NS::NAME(x=[2, 3], k=4)'",
                        help="an example call (a tensor by its shape): the ranks, list lengths "
                             "and strings to generate for (repeatable; default: the module's "
                             "AUTOPLUGIN_EXAMPLES)")
    parser.add_argument("--dtypes", default="float32",
                        help="comma-separated input dtypes, one launcher each (float32, float16, "
                             "bfloat16; default float32)")
    parser.add_argument("--arch", type=int, default=90, help="GPU architecture (default 90)")
    parser.add_argument("--gpu-name", metavar="NAME",
                        help="the GPU's name as torch.cuda.get_device_name() prints it on the GPU "
                             "you deploy to, for host code that picks a configuration per GPU "
                             "by its name (default: sm_<arch>, which names none)")
    parser.add_argument("--no-example-equalities", dest="example_equalities",
                        action="store_false",
                        help="do not require extents of different inputs that are equal in the "
                             "example and that neither the fake nor the host code relates (by "
                             "default they are required equal, and each such requirement is "
                             "reported)")
    parser.add_argument("--no-artefacts", dest="artefacts", action="store_false",
                        help="do not compile the kernels into each project's aot/ folder (the "
                             "project then needs Triton where it is built)")
    parser.add_argument("--max-block", type=int, default=1 << 16, metavar="N",
                        help="a constexpr the host code computes as a power of two of the sizes "
                             "(triton.next_power_of_2) is compiled for each power of two up to N "
                             "(default 65536) whose kernel holds blocks of at most N elements; "
                             "larger sizes are refused by the plugin")
    args = parser.parse_args(argv)
    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    missing = [name for name in ("torch", "triton") if importlib.util.find_spec(name) is None]
    if missing:
        print(f"autoplugin from-torch: {' and '.join(missing)} not installed for "
              f"{sys.executable}: generation imports {args.module}, traces its fake "
              "implementation with PyTorch and compiles its Triton kernels", file=sys.stderr)
        return 1
    try:
        folders = generate(args.module, args.out, examples=args.examples, ops=args.ops,
                           dtypes=dtypes, arch=args.arch,
                           example_equalities=args.example_equalities,
                           artefacts=args.artefacts, max_block=args.max_block,
                           gpu_name=args.gpu_name,
                           log=lambda message: print(message, file=sys.stderr))
    except GenerationError as error:
        print(f"autoplugin from-torch: {error}", file=sys.stderr)
        return 1
    for folder in folders:
        print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
