#!/usr/bin/env python3
"""Compiles one @triton.jit kernel ahead of time into an autoplugin artefact.

    triton_aot.py --source kernel.py --kernel NAME --signature SIG --name ARTEFACT
                  [--num-warps 4] [--num-stages 3] [--arch 90] --out-dir DIR [--depfile FILE]

writes DIR/ARTEFACT.cubin, DIR/ARTEFACT.ptx and DIR/ARTEFACT.json (the metadata the C++ side
needs: run-time parameters with their sizes, constexprs, warps, shared memory, scratch needs).
FILE, a Makefile-style depfile, lists what the result depends on besides the kernel source: the
Python modules it imported from outside the installed packages, and the installed Triton.

SIG lists every parameter of the kernel in order, as Triton's own AOT compiler takes it: a type
(`*fp32`, `i32`, `fp32`, ...) optionally followed by `:16` (the value, or the address, is a
multiple of 16), or a constexpr value (`1024`, `0.5`, `True`).

The parameter list is read back from the compiled PTX, not assumed: the kernel's real parameter
sizes (an fp32 scalar is 4 bytes, not a double) and the number of trailing scratch pointers
(which differs between Triton versions) come from the compiler's output.
"""
import argparse
import hashlib
import importlib.util
import json
import math
import os
import re
import site
import sys
import sysconfig
from pathlib import Path

ARTEFACT_FORMAT = 1

SCALAR_SIZES = {
    "i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8,
    "u1": 1, "u8": 1, "u16": 2, "u32": 4, "u64": 8,
    "fp16": 2, "bf16": 2, "fp32": 4, "fp64": 8,
}
PTX_SIZES = {"8": 1, "16": 2, "32": 4, "64": 8}


class UsageError(Exception):
    pass


def parse_constexpr(text):
    """A constexpr value: True/False, a decimal integer that fits in int64, or a finite decimal
    float (so that it is also a valid C++ constant); None when `text` is not one."""
    if text in ("True", "False"):
        return text == "True"
    if re.fullmatch(r"-?0[0-9]+", text):
        raise UsageError(f"constexpr {text}: no leading zeros (C++ would read it as octal)")
    if re.fullmatch(r"-?[0-9]+", text):
        value = int(text)
        if not -2**63 <= value < 2**63:
            raise UsageError(f"constexpr {text} does not fit in 64 bits")
        return value
    if re.fullmatch(r"-?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?|-?[0-9]+[eE][-+]?[0-9]+", text):
        value = float(text)
        if not math.isfinite(value):
            raise UsageError(f"constexpr {text} is not a finite float")
        return value
    return None


def parse_signature(signature, arg_names, kernel):
    entries = [entry.strip() for entry in signature.split(",")]
    if len(entries) != len(arg_names):
        raise UsageError(f"kernel '{kernel}' has {len(arg_names)} parameters "
                         f"({', '.join(arg_names)}); the signature lists {len(entries)}: {signature!r}")
    parameters, constants = [], []
    for name, entry in zip(arg_names, entries):
        value = parse_constexpr(entry)
        if value is not None:
            constants.append({"name": name, "value": entry})
            continue
        type_name, _, hint = entry.partition(":")
        type_name = type_name.strip()
        if not (type_name.startswith("*") or type_name in SCALAR_SIZES):
            raise UsageError(f"parameter '{name}': unknown type {type_name!r} (pointers are "
                             f"'*<element>', scalars one of {', '.join(SCALAR_SIZES)})")
        divisibility = 1
        if hint:
            if hint.strip() != "16":
                raise UsageError(f"parameter '{name}': the only hint is ':16' (got ':{hint}'); "
                                 "write a constexpr value instead of ':1'")
            if type_name in ("fp16", "bf16", "fp32", "fp64"):
                raise UsageError(f"parameter '{name}': ':16' applies to pointers and integers")
            divisibility = 16
        parameters.append({"name": name, "type": type_name, "divisibility": divisibility})
    return parameters, constants


def ptx_entry_parameters(ptx, function):
    """Byte sizes of the .entry's parameters, in order."""
    match = re.search(r"\.entry\s+" + re.escape(function) + r"\s*\((.*?)\)", ptx, re.S)
    if match is None:
        raise UsageError(f"no .entry {function} in the compiled PTX")
    sizes = []
    for line in match.group(1).split(","):
        param = re.search(r"\.param\s+(?:\.align\s+\d+\s+)?\.[bsuf](\d+)\b[^\[]*?(?:\[(\d+)\])?\s*$",
                          line.strip())
        if param is None:
            raise UsageError(f"unrecognised PTX parameter: {line.strip()!r}")
        sizes.append(PTX_SIZES[param.group(1)] * int(param.group(2) or 1))
    return sizes


def load_kernel(source, kernel):
    path = Path(source).resolve()
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    function = getattr(module, kernel, None)
    if function is None or not hasattr(function, "arg_names"):
        raise UsageError(f"{path.name} defines no @triton.jit function '{kernel}'")
    return function


def compile_kernel(args):
    # No line information: it would embed the compiling machine's absolute source path in the
    # artefact (and artefacts are shipped).
    os.environ["TRITON_DISABLE_LINE_INFO"] = "1"
    import triton
    from triton.backends.compiler import GPUTarget

    function = load_kernel(args.source, args.kernel)
    parameters, constants = parse_signature(args.signature, function.arg_names, args.kernel)
    signature = {p["name"]: p["type"] for p in parameters}
    signature.update({c["name"]: "constexpr" for c in constants})
    signature = {name: signature[name] for name in function.arg_names}
    constexprs = {c["name"]: parse_constexpr(c["value"]) for c in constants}
    index = {name: i for i, name in enumerate(function.arg_names)}
    attrs = {(index[p["name"]],): [["tt.divisibility", 16]]
             for p in parameters if p["divisibility"] == 16}

    source = triton.compiler.ASTSource(fn=function, signature=signature, constexprs=constexprs,
                                       attrs=attrs)
    target = GPUTarget("cuda", args.arch, 32)
    backend = triton.compiler.make_backend(target)
    options = backend.parse_options({"num_warps": args.num_warps, "num_stages": args.num_stages})
    compiled = triton.compile(source, target=target, options=options.__dict__)
    metadata = compiled.metadata

    unsupported = []
    if getattr(metadata, "num_ctas", 1) != 1:
        unsupported.append("num_ctas > 1 (thread-block clusters)")
    if getattr(metadata, "launch_cooperative_grid", False):
        unsupported.append("cooperative grid launch")
    if getattr(metadata, "launch_pdl", False):
        unsupported.append("programmatic dependent launch")
    if getattr(metadata, "tensordesc_meta", None):
        unsupported.append("host-side tensor descriptors")
    if unsupported:
        raise UsageError("the compiled kernel needs " + ", ".join(unsupported) +
                         ", which autoplugin's launcher does not support")

    ptx = compiled.asm["ptx"]
    sizes = ptx_entry_parameters(ptx, metadata.name)
    scratch_parameters = len(sizes) - len(parameters)
    if not 0 <= scratch_parameters <= 2 or any(size != 8 for size in sizes[len(parameters):]):
        raise UsageError(f"the compiled kernel has {len(sizes)} parameters for the signature's "
                         f"{len(parameters)}; autoplugin knows up to two trailing scratch pointers")
    for parameter, size in zip(parameters, sizes):
        expected = 8 if parameter["type"].startswith("*") else SCALAR_SIZES[parameter["type"]]
        if size != expected:
            raise UsageError(f"parameter '{parameter['name']}' ({parameter['type']}) is {size} "
                             f"bytes in the compiled kernel, not {expected}")
    global_scratch = getattr(metadata, "global_scratch_size", 0)
    profile_scratch = getattr(metadata, "profile_scratch_size", 0)
    if (global_scratch > 0 and scratch_parameters < 1) or (profile_scratch > 0 and scratch_parameters < 2):
        raise UsageError("the kernel needs scratch memory but takes no pointer for it")

    return {
        "format": ARTEFACT_FORMAT,
        "name": args.name,
        "function": metadata.name,
        "source": Path(args.source).name,
        "source_sha256": hashlib.sha256(Path(args.source).read_bytes()).hexdigest(),
        "kernel": args.kernel,
        "signature": ", ".join(entry.strip() for entry in args.signature.split(",")),
        "num_warps": args.num_warps,
        # What the kernel was compiled for: warp-specialized kernels use more warps than asked.
        "launch_num_warps": metadata.num_warps,
        "num_stages": args.num_stages,
        "arch": args.arch,
        "triton_version": triton.__version__,
        "shared_bytes": metadata.shared,
        "parameters": parameters,
        "constants": constants,
        "scratch_parameters": scratch_parameters,
        "global_scratch": {"bytes": global_scratch,
                           "align": getattr(metadata, "global_scratch_align", 1)},
        "profile_scratch": {"bytes": profile_scratch,
                            "align": getattr(metadata, "profile_scratch_align", 1)},
    }, compiled.asm["cubin"], ptx


def imported_files(triton_module):
    """The files a rebuild should follow: modules imported from outside the Python installation
    (the kernel's own helpers), and Triton's package file, which a reinstall rewrites."""
    paths = sysconfig.get_paths()
    installed = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    installed.update(site.getsitepackages() + [site.getusersitepackages()])
    installed = [Path(directory).resolve() for directory in installed]
    files = {Path(triton_module.__file__).resolve()}
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if not file or not file.endswith(".py"):
            continue
        path = Path(file).resolve()
        if not any(path.is_relative_to(directory) for directory in installed):
            files.add(path)
    return sorted(files)


def write_depfile(depfile, target, files):
    def escaped(path):
        return str(path).replace(" ", "\\ ").replace("#", "\\#").replace("$", "$$")
    lines = [f"{escaped(target)}:"] + [f" {escaped(file)}" for file in files]
    Path(depfile).write_text(" \\\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, help="Python file defining the kernel")
    parser.add_argument("--kernel", required=True, help="name of the @triton.jit function")
    parser.add_argument("--signature", required=True)
    parser.add_argument("--name", required=True, help="artefact name (a C++ identifier)")
    parser.add_argument("--num-warps", type=int, default=4)
    parser.add_argument("--num-stages", type=int, default=3)
    parser.add_argument("--arch", type=int, default=90, help="compute capability, e.g. 90")
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--depfile", help="write a Makefile-style depfile here")
    args = parser.parse_args()
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", args.name):
        parser.error(f"--name {args.name!r} is not a C++ identifier")
    try:
        metadata, cubin, ptx = compile_kernel(args)
    except UsageError as error:
        sys.exit(f"triton_aot: {args.source}: {args.kernel}: {error}")
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{args.name}.cubin").write_bytes(cubin)
    (out / f"{args.name}.ptx").write_text(ptx)
    (out / f"{args.name}.json").write_text(json.dumps(metadata, indent=2) + "\n")
    if args.depfile:
        write_depfile(args.depfile, (out / f"{args.name}.json").resolve(),
                      imported_files(sys.modules["triton"]))


if __name__ == "__main__":
    main()
