#!/usr/bin/env python3
"""Compiles a @triton.jit kernel ahead of time, and embeds the result in C++.

    triton_aot.py compile --source kernel.py --kernel NAME --signature SIG --name ARTEFACT
                          [--num-warps 4] [--num-stages 3] [--arch 90] --out-dir DIR
                          [--variant SPEC ...] [--autotune] [--specialize] [--jobs N]
                          [--depfile FILE]
    triton_aot.py embed --artefact DIR/ARTEFACT [--namespace NS] --out-dir OUT
    triton_aot.py ship --artefact DIR/ARTEFACT --to SHIPPED_DIR

`compile` (needs Triton) writes DIR/ARTEFACT.cubin, DIR/ARTEFACT.ptx and DIR/ARTEFACT.json (the
metadata the C++ side needs: run-time parameters with their sizes, constexprs, warps, shared
memory, scratch needs); with `--jobs N`, up to N of its compilations (a family's variants, the
specializations) run at once, each in a forked process. FILE, a Makefile-style depfile, lists
what the result depends on besides the kernel source: the Python modules it imported from
outside the installed packages, and the installed Triton.

A FAMILY of variants is compiled when the signature leaves constexprs to the variants (the entry
`constexpr`) or the kernel's @triton.autotune configs are asked for (`--autotune`): each `--variant
"BLOCK=64, EVEN=True|False, num_warps=2"` gives a value to every such constexpr (`a|b`: one
variant per alternative) and optionally its warps and stages; `--autotune` makes one variant per
config (times each --variant, when both are given). DIR/ARTEFACT.json then lists the variants,
each an artefact of its own (DIR/ARTEFACT.0.json, .cubin, .ptx, ...).

`--specialize` compiles the kernel (each variant) again with more divisibility promises, as
Triton's JIT specializes a launch on the values it gets: every address and integer parameter a
multiple of 16 (ARTEFACT.s0), with `--specialize-integers a,b` every address and those integers
(the parameters that hold sizes and strides, which keep the promise where an attribute such as a
seed does not; repeated, one build per set, in order), then every address; the artefact lists
them, and the launch takes the first whose promises its arguments keep (vectorized loads and
stores where the generic build cannot have them), else the generic build.
`--specialize-values "K=4, D=128"` (repeatable) adds, before those, builds with these run-time
parameters compiled as constants (unrolled loops, folded arithmetic: what Triton's JIT compiles
for a constexpr's value), taken where the arguments have exactly these values. A parameter
annotated `tl.constexpr` may also be given a run-time type in SIG: the kernel then takes it at
launch (a kernel that only computes with the value compiles so).

`embed` (Python's standard library only, so that a build from a shipped artefact needs no
Triton: triton_aot_embed.py and triton_aot_family.py beside this file) turns such an artefact
into OUT/ARTEFACT.cpp (the embedded module and its KernelImage) and
OUT/include/triton_kernels/ARTEFACT.h (a struct ARTEFACT with the kernel's constexprs and a typed
launch(); for a family, the variants' values, find()/select() by value and launch(variant, ...)),
after checking that the files belong together. `ship` copies an artefact (a family with its
variants, removing variants it no longer has) into the folder it is shipped in.

SIG lists every parameter of the kernel in order, as Triton's own AOT compiler takes it: a type
(`*fp32`, `i32`, `fp32`, ...) optionally followed by `:16` (the value, or the address, is a
multiple of 16), a constexpr value (`1024`, `0.5`, `True`, `'leaky_relu'`, a Triton dtype such as
`tl.float16`, `None` for an absent tensor), or `constexpr`.
A kernel decorated with @triton.heuristics or @triton.autotune is compiled as the @triton.jit
function under them: a heuristic's constexpr takes its value from the signature or the variants.

The parameter list is read back from the compiled PTX, not assumed: the kernel's real parameter
sizes (an fp32 scalar is 4 bytes, not a double) and the number of trailing scratch pointers
(which differs between Triton versions) come from the compiler's output.
"""
import argparse
import concurrent.futures
import contextlib
import hashlib
import importlib.util
import itertools
import json
import multiprocessing
import os
import re
import site
import sys
import sysconfig
from pathlib import Path
from typing import NamedTuple

# The standard-library half (artefacts, embedded C++) lies beside this file, which may be an
# installed, read-only folder: no __pycache__ there.
sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
from triton_aot_embed import (  # noqa: E402
    ARTEFACT_FORMAT, IDENTIFIER, NONE, POINTER_SIZE, SCALAR_TYPES, DtypeConstexpr, UsageError,
    check_parameter_sizes, generate_header, generate_source, parse_constexpr,
    ptx_entry_parameters, read_artefact, read_manifest, read_specializations,
    remove_variant_files, ship)
from triton_aot_family import (  # noqa: E402
    generate_family_header, generate_family_source, read_family)

VARYING = "constexpr"  # a signature entry whose value each variant of a family gives


def parse_signature(signature, arg_names, kernel):
    """The run-time parameters and the constexprs (value VARYING: given by each variant)."""
    entries = [entry.strip() for entry in signature.split(",")]
    if len(entries) != len(arg_names):
        raise UsageError(f"kernel '{kernel}' has {len(arg_names)} parameters "
                         f"({', '.join(arg_names)}); the signature lists {len(entries)}: {signature!r}")
    parameters, constants = [], []
    for name, entry in zip(arg_names, entries):
        if entry == VARYING:
            constants.append({"name": name, "value": VARYING})
            continue
        value = parse_constexpr(entry)
        if value is not None:
            constants.append({"name": name, "value": entry})
            continue
        type_name, _, hint = entry.partition(":")
        type_name = type_name.strip()
        if not (type_name.startswith("*") or type_name in SCALAR_TYPES):
            raise UsageError(f"parameter '{name}': unknown type {type_name!r} (pointers are "
                             f"'*<element>', scalars one of {', '.join(SCALAR_TYPES)})")
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


class Kernel(NamedTuple):
    jit: object        # the @triton.jit function
    configs: list      # the @triton.autotune configs around it (empty when not autotuned)
    heuristics: dict   # constexpr name -> source of its @triton.heuristics function


# What an import that asks for the GPU fails with where there is none: Triton's driver, and
# torch.cuda (`torch.cuda.get_device_properties("cuda").multi_processor_count` at the top of a
# module, as persistent kernels read the multiprocessor count).
NO_GPU_MESSAGES = ("active drivers", "NVIDIA driver", "CUDA driver", "no CUDA GPUs",
                   "not compiled with CUDA", "CUDA is not available")


def import_source(path, arch):
    """The module at `path`. A module that asks Triton's driver or torch.cuda for the device as
    it is imported (Triton's tutorials: `DEVICE =
    triton.runtime.driver.active.get_active_torch_device()`) is imported again, where no GPU is
    there, with stand-ins that answer as one GPU of compute capability `arch` (its properties
    those of an H100/H200): compiling ahead of time needs no GPU."""
    def load():
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    try:
        return load()
    except (RuntimeError, AssertionError) as error:
        if not any(message in str(error) for message in NO_GPU_MESSAGES):
            raise
    import types

    from triton.runtime import driver
    stand_in = types.SimpleNamespace(
        get_active_torch_device=lambda: __import__("torch").device("cuda", 0),
        get_current_device=lambda: 0, get_current_stream=lambda device=None: 0,
        get_device_capability=lambda device=None: (arch // 10, arch % 10),
        get_current_target=lambda: types.SimpleNamespace(backend="cuda", arch=arch, warp_size=32),
        # As an H100/H200 reports them (the fused-softmax tutorial reads them at import).
        utils=types.SimpleNamespace(get_device_properties=lambda device=None: {
            "multiprocessor_count": 132, "max_shared_mem": 232448, "max_num_regs": 65536,
            "warpSize": 32, "sm_clock_rate": 1980000, "mem_clock_rate": 2619000,
            "mem_bus_width": 5120}))
    original = driver._active
    driver._active = stand_in
    with _torch_cuda_stand_in(arch):
        try:
            return load()
        finally:
            driver._active = original


@contextlib.contextmanager
def _torch_cuda_stand_in(arch):
    """torch.cuda, where torch is installed, answering as one GPU of compute capability `arch`
    with an H100/H200's properties."""
    try:
        import torch
    except ImportError:
        yield
        return
    import types
    properties = types.SimpleNamespace(
        name=f"sm_{arch}", major=arch // 10, minor=arch % 10, multi_processor_count=132,
        total_memory=80 << 30, max_threads_per_multi_processor=2048, warp_size=32,
        regs_per_multiprocessor=65536, shared_memory_per_block_optin=232448)
    replacements = {
        "is_available": lambda: True, "device_count": lambda: 1, "current_device": lambda: 0,
        "get_device_capability": lambda device=None: (arch // 10, arch % 10),
        "get_device_properties": lambda device=None: properties,
        "get_device_name": lambda device=None: f"sm_{arch}",
    }
    saved = {name: getattr(torch.cuda, name) for name in replacements}
    for name, replacement in replacements.items():
        setattr(torch.cuda, name, replacement)
    try:
        yield
    finally:
        for name, original in saved.items():
            setattr(torch.cuda, name, original)


def load_kernel(source, kernel, arch=90):
    """The kernel's @triton.jit function, from under its @triton.autotune and @triton.heuristics
    decorators (in any order), with the autotune configs and the heuristics found on the way."""
    path = Path(source).resolve()
    sys.path.insert(0, str(path.parent))
    module = import_source(path, arch)
    function = getattr(module, kernel, None)
    configs, heuristics = [], {}
    while function is not None and hasattr(function, "fn") and not hasattr(function, "params"):
        configs = list(getattr(function, "configs", None) or configs)
        for name, rule in (getattr(function, "values", None) or {}).items():
            heuristics[name] = heuristic_text(rule)
        function = function.fn
    if function is None or not hasattr(function, "arg_names") or not hasattr(function, "params"):
        raise UsageError(f"{path.name} defines no @triton.jit function '{kernel}'")
    return Kernel(function, configs, heuristics)


def heuristic_text(rule):
    """A heuristic's source, for the generated header's comment (its C++ is the caller's): the
    lambda itself, or the function's name."""
    import ast
    import inspect
    code = getattr(rule, "__code__", None)
    try:
        text = Path(inspect.getsourcefile(rule)).read_text()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno:
                return " ".join(ast.get_source_segment(text, node).split())
    except (OSError, TypeError, SyntaxError, AttributeError):
        pass
    return getattr(rule, "__name__", "?")


def parse_variant(spec, varying, kernel):
    """`NAME=V|W, num_warps=4` -> a list of (constexprs, options), one per combination."""
    choices = []
    for item in filter(None, (part.strip() for part in spec.split(","))):
        name, equals, values = item.partition("=")
        name = name.strip()
        if not equals or not IDENTIFIER.fullmatch(name):
            raise UsageError(f"variant {spec!r}: expected NAME=VALUE entries, got {item!r}")
        alternatives = []
        for text in values.split("|"):
            text = text.strip()
            value = parse_constexpr(text)
            if name in ("num_warps", "num_stages"):
                if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                    raise UsageError(f"variant {spec!r}: {name} must be a positive integer")
            elif name not in varying:
                raise UsageError(f"variant {spec!r}: '{name}' is not a constexpr the signature "
                                 f"leaves to the variants (those: {', '.join(varying) or 'none'})")
            elif value is None:
                raise UsageError(f"variant {spec!r}: {name}={text} is not a bool, integer, float "
                                 "or quoted string")
            alternatives.append((name, text))
        choices.append(alternatives)
    names = [alternatives[0][0] for alternatives in choices]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise UsageError(f"variant {spec!r}: {', '.join(repeated)} given twice")
    return [dict(combination) for combination in itertools.product(*choices)]


def family_variants(args, kernel, constants):
    """One entry per variant: {"constexprs": {name: text}, "config": index or None,
    "num_warps", "num_stages"}, in the order the variants are numbered."""
    varying = [c["name"] for c in constants if c["value"] == VARYING]
    if args.autotune and not kernel.configs:
        raise UsageError("--autotune: the kernel has no @triton.autotune configs")
    config_entries = [(None, {}, args.num_warps, args.num_stages)]
    if args.autotune:
        config_entries = []
        for index, config in enumerate(kernel.configs):
            where = f"@triton.autotune config {index} ({config})"
            unsupported = [what for what, present in [
                ("pre_hook", config.pre_hook is not None),
                ("num_ctas > 1", getattr(config, "num_ctas", 1) not in (None, 1)),
                ("maxnreg", getattr(config, "maxnreg", None) is not None),
                ("ir_override", getattr(config, "ir_override", None) is not None)] if present]
            if unsupported:
                raise UsageError(f"{where}: {', '.join(unsupported)} is not supported ahead "
                                 "of time")
            values = {}
            for name, value in config.kwargs.items():
                if name not in varying:
                    raise UsageError(f"{where}: sets '{name}', which the signature does not leave "
                                     "to the variants (write `constexpr` for it)")
                values[name] = constexpr_text(value)
            config_entries.append((index, values, config.num_warps, config.num_stages))
    specs = [{}]
    if args.variant:
        specs = [combination for spec in args.variant
                 for combination in parse_variant(spec, varying, args.kernel)]
    variants = []
    for config, config_values, num_warps, num_stages in config_entries:
        for spec in specs:
            constexprs = dict(config_values)
            overlap = sorted(set(constexprs) & set(spec))
            if overlap:
                raise UsageError(f"{', '.join(overlap)}: set by an autotune config and by a "
                                 "--variant")
            constexprs.update({k: v for k, v in spec.items()
                               if k not in ("num_warps", "num_stages")})
            missing = [name for name in varying if name not in constexprs]
            if missing:
                raise UsageError(f"a variant gives no value for {', '.join(missing)} "
                                 f"({describe_variant(constexprs, config) or 'no values'})")
            variants.append({
                "constexprs": {name: constexprs[name] for name in varying},
                "config": config,
                "num_warps": int(spec.get("num_warps", num_warps)),
                "num_stages": int(spec.get("num_stages", num_stages)),
            })
    keys = {}
    for index, variant in enumerate(variants):
        key = (variant["config"], tuple(variant["constexprs"].values()))
        if key in keys:
            raise UsageError(f"variants {keys[key]} and {index} have the same constexprs "
                             f"({describe_variant(variant['constexprs'], variant['config'])}); "
                             "variants that differ only in warps or stages are autotune configs")
        keys[key] = index
    return variants


def constexpr_text(value):
    """A Python constexpr value as a signature writes it."""
    if value is None or isinstance(value, bool):
        return str(value)
    if type(value).__name__ == "dtype" and hasattr(value, "name"):  # triton.language.dtype
        return f"tl.{value.name}"
    if isinstance(value, str):
        if parse_constexpr(repr(value)) != value:
            raise UsageError(f"the string constexpr {value!r} has quotes or backslashes")
        return repr(value)
    if isinstance(value, (int, float)):
        text = repr(value)
        if parse_constexpr(text) is None:
            raise UsageError(f"the constexpr {text} is not a finite number")
        return text
    raise UsageError(f"the constexpr {value!r} is not a bool, integer, float, string or Triton "
                     "dtype")


def describe_variant(constexprs, config=None):
    text = ", ".join(f"{name}={value}" for name, value in constexprs.items())
    if config is not None:
        text = f"config {config}" + (", " + text if text else "")
    return text


def _ast_source(kernel, parameters, constants):
    """What Triton compiles: the kernel with the signature's run-time parameters and every
    constexpr's value (a parameter with a "value" is compiled as that constant:
    SPECIALIZE_VALUES)."""
    import triton

    function = kernel.jit
    run_time = [p for p in parameters if "value" not in p]
    signature = {p["name"]: p["type"] for p in run_time}
    signature.update({c["name"]: "constexpr" for c in constants})
    signature.update({p["name"]: "constexpr" for p in parameters if "value" in p})
    signature = {name: signature[name] for name in function.arg_names}
    constexprs = {c["name"]: parse_constexpr(c["value"]) for c in constants}
    constexprs = {name: triton.language.dtype(value) if isinstance(value, DtypeConstexpr)
                  else None if value is NONE else value for name, value in constexprs.items()}
    constexprs.update({p["name"]: p["value"] for p in parameters if "value" in p})
    index = {name: i for i, name in enumerate(function.arg_names)}
    attrs = {(index[p["name"]],): [["tt.divisibility", 16]]
             for p in run_time if p["divisibility"] == 16}
    return triton.compiler.ASTSource(fn=function, signature=signature, constexprs=constexprs,
                                     attrs=attrs)


def largest_block(arch, kernel, parameters, constants, num_warps):
    """The elements of the largest tensor a program of the kernel holds (its block), from
    Triton's front end alone (the kernel's IR, before any lowering: milliseconds where a full
    compilation of a large block takes minutes). Raises Triton's error where the front end
    refuses it (a block past Triton's largest tensor)."""
    from triton._C.libtriton import ir
    from triton.backends.compiler import GPUTarget
    import triton

    target = GPUTarget("cuda", arch, 32)
    backend = triton.compiler.make_backend(target)
    options = backend.parse_options({"num_warps": num_warps})
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    module = _ast_source(kernel, parameters, constants).make_ir(
        target, options, backend.get_codegen_implementation(options), backend.get_module_map(),
        context)
    largest = 1
    # Tensor types as the IR prints them: tensor<64x128xf32>, tensor<1024x!tt.ptr<f16>>.
    for shape in re.findall(r"tensor<((?:\d+x)+)", str(module)):
        elements = 1
        for extent in shape[:-1].split("x"):
            elements *= int(extent)
        largest = max(largest, elements)
    return largest


def compile_variant(args, kernel, parameters, constants, name, num_warps, num_stages):
    """One compilation: the artefact's metadata, cubin and PTX. `constants` holds every
    constexpr's value."""
    import triton
    from triton.backends.compiler import GPUTarget

    run_time = [p for p in parameters if "value" not in p]
    source = _ast_source(kernel, parameters, constants)
    target = GPUTarget("cuda", args.arch, 32)
    backend = triton.compiler.make_backend(target)
    options = backend.parse_options({"num_warps": num_warps, "num_stages": num_stages})
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
    scratch_parameters = len(sizes) - len(run_time)
    if not 0 <= scratch_parameters <= 2 or any(size != POINTER_SIZE for size in sizes[len(run_time):]):
        raise UsageError(f"the compiled kernel has {len(sizes)} parameters for the signature's "
                         f"{len(run_time)}; autoplugin knows up to two trailing scratch pointers")
    check_parameter_sizes(run_time, sizes)
    global_scratch = getattr(metadata, "global_scratch_size", 0)
    profile_scratch = getattr(metadata, "profile_scratch_size", 0)
    if (global_scratch > 0 and scratch_parameters < 1) or (profile_scratch > 0 and scratch_parameters < 2):
        raise UsageError("the kernel needs scratch memory but takes no pointer for it")

    return {
        "format": ARTEFACT_FORMAT,
        "name": name,
        "function": metadata.name,
        "source": Path(args.source).name,
        "source_sha256": hashlib.sha256(Path(args.source).read_bytes()).hexdigest(),
        "kernel": args.kernel,
        "signature": ", ".join(entry.strip() for entry in args.signature.split(",")),
        "num_warps": num_warps,
        # What the kernel was compiled for: warp-specialized kernels use more warps than asked.
        "launch_num_warps": metadata.num_warps,
        "num_stages": num_stages,
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


# Integer parameters Triton's JIT specializes on divisibility by 16, as pointers.
SPECIALIZED_INTEGERS = ("i32", "i64", "u32", "u64")


def specialization_promises(parameters, integer_sets=()):
    """The parameters each specialization also promises to be multiples of 16, most first:
    every address and integer, every address and each set of `integer_sets` (in order), then
    every address (a Triton JIT launch is specialized so for the values it gets; tensors'
    addresses nearly always are)."""
    levels = []
    choices = ([lambda name: True] +
               [lambda name, named=frozenset(names): name in named for names in integer_sets] +
               [lambda name: False])
    for chosen in choices:
        promised = [p["name"] for p in parameters if p["divisibility"] == 1 and (
            p["type"].startswith("*") or (p["type"] in SPECIALIZED_INTEGERS and
                                          chosen(p["name"])))]
        if promised and promised not in levels:
            levels.append(promised)
    return levels


def specialized_integers(args, parameters):
    """--specialize-integers as a list of sets, one per build, each a list of integer parameters
    of the signature."""
    integers = {p["name"] for p in parameters if p["type"] in SPECIALIZED_INTEGERS}
    sets = []
    for listed in getattr(args, "specialize_integers", None) or []:
        names = [n.strip() for n in listed.split(",") if n.strip()]
        unknown = [n for n in names if n not in integers]
        if unknown:
            raise UsageError(f"--specialize-integers: {', '.join(unknown)}: not an integer "
                             "parameter of the signature (integers: "
                             f"{', '.join(sorted(integers)) or 'none'})")
        if names:
            sets.append(names)
    if sets and not args.specialize:
        raise UsageError("--specialize-integers needs --specialize")
    return sets


def specialized_integers_text(args, parameters):
    """--specialize-integers as the artefact records it (and the shipped-artefact check compares
    it with the CMake call): each set's names joined by ", ", the sets by " / "."""
    return " / ".join(", ".join(names) for names in specialized_integers(args, parameters))


def specialized_values(args, parameters, constexprs=()):
    """--specialize-values as a list of ({name: value}, {constexpr: text}), one per build: each
    name a run-time integer or float parameter of the signature, each value of its type; a name
    among `constexprs` (a family's, or fixed) is a condition: the build is made for the variants
    whose constexpr has that value (the variant the values select)."""
    types = {p["name"]: p["type"] for p in parameters}
    builds = []
    for entry in getattr(args, "specialize_values", None) or []:
        values, conditions = {}, {}
        for part in filter(None, (part.strip() for part in entry.split(","))):
            name, equals, text = (item.strip() for item in part.partition("="))
            type_name = types.get(name, "")
            if equals and name in constexprs:
                conditions[name] = text
                continue
            if not equals or not (type_name in SPECIALIZED_INTEGERS or type_name in
                                  ("i8", "i16", "fp32", "fp64")):
                raise UsageError(f"--specialize-values {entry!r}: {part!r} is not NAME=VALUE of "
                                 "a run-time integer or float parameter of the signature (or "
                                 "of a constexpr, for the variants with that value)")
            try:
                values[name] = float(text) if type_name.startswith("fp") else int(text)
            except ValueError:
                raise UsageError(f"--specialize-values {entry!r}: {text!r} is not a "
                                 f"{type_name} value") from None
        if values and (values, conditions) not in builds:
            builds.append((values, conditions))
    if builds and not args.specialize:
        raise UsageError("--specialize-values needs --specialize")
    return builds


def specialized_values_text(args, parameters, constexprs):
    """--specialize-values as the artefact records it (and the shipped-artefact check compares
    it with the CMake call): each entry's NAME=VALUE as written, joined by ", ", the entries by
    " / "."""
    specialized_values(args, parameters, constexprs)  # checked
    return " / ".join(
        ", ".join("=".join(item.strip() for item in part.partition("=")[::2])
                  for part in entry.split(",") if part.strip())
        for entry in getattr(args, "specialize_values", None) or [])


class Build(NamedTuple):
    """One compilation of the kernel, written as the artefact STEM."""
    stem: str
    parameters: list
    constants: list  # every constexpr's value
    num_warps: int
    num_stages: int
    name: str  # the metadata's
    context: str = ""  # what a compile error is prefixed with


def specialization_builds(args, parameters, constants, stem, label, num_warps, num_stages):
    """With --specialize, the builds STEM.s<k> of the kernel with each level of
    specialization_promises: first for each build of --specialize-values (its parameters
    compiled as those values), at each level and at none, then at each level."""
    if not args.specialize:
        return []
    levels = specialization_promises(parameters, specialized_integers(args, parameters))
    builds = []
    constexprs = {c["name"]: c["value"] for c in constants}
    for values, conditions in specialized_values(args, parameters, constexprs):
        if any(parse_constexpr(text) != parse_constexpr(constexprs[name])
               for name, text in conditions.items()):
            continue  # another variant's values
        for promised in levels + [[]]:
            # (a parameter compiled for a value needs no divisibility promise)
            build = (values, [name for name in promised if name not in values])
            if build not in builds:
                builds.append(build)
    builds += [({}, promised) for promised in levels]
    result = []
    for k, (values, promised) in enumerate(builds):
        promising = [dict(p, divisibility=16 if p["name"] in promised else p["divisibility"],
                          **({"value": values[p["name"]]} if p["name"] in values else {}))
                     for p in parameters]
        promises = [f"{', '.join(promised)} multiples of 16"] if promised else []
        promises += [f"{name} = {value}" for name, value in values.items()]
        # Aligned data can make the compiler pipeline deeper: a build may need more shared
        # memory than the generic one; the launch runs the generic build where it does not fit.
        result.append(Build(f"{stem}.s{k}", promising, constants, num_warps, num_stages,
                            f"{stem}.s{k}", f"{label} with {'; '.join(promises)}: "))
    return result


def _compile_build(args, kernel, build):
    try:
        return compile_variant(args, kernel, build.parameters, build.constants, build.name,
                               build.num_warps, build.num_stages)
    except UsageError as error:
        raise UsageError(f"{build.context}{error}") from None


_FORKED = None  # (args, kernel, builds) for the forked compile processes


def _compile_forked(index):
    args, kernel, builds = _FORKED
    try:
        return _compile_build(args, kernel, builds[index])
    except UsageError:
        raise
    except Exception as error:  # noqa: BLE001 - Triton's errors need not survive pickling
        raise UsageError(f"{builds[index].context}{type(error).__name__}: {error}") from None


def compile_builds(args, kernel, builds):
    """(metadata, cubin, ptx) of each build, in order; --jobs of them at once, each in a forked
    process (a family's variants and their specializations are independent compilations, and
    Triton's compiler is not made for threads)."""
    global _FORKED
    jobs = min(getattr(args, "jobs", 1) or 1, len(builds))
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [_compile_build(args, kernel, build) for build in builds]
    _FORKED = (args, kernel, builds)
    try:
        with concurrent.futures.ProcessPoolExecutor(
                jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(_compile_forked, range(len(builds))))
    finally:
        _FORKED = None


def variants_requested(args):
    """The family's settings as the shipped-artefact check compares them: "autotune" and each
    --variant with its entries separated by ", ", joined by " / " (no ';': CMake's list
    separator)."""
    specs = (["autotune"] if args.autotune else []) + [
        ", ".join(filter(None, (part.strip() for part in spec.split(","))))
        for spec in args.variant or []]
    return " / ".join(specs)


def compile_kernel(args):
    """[(file stem, metadata, cubin, ptx)]: one artefact, or a family's manifest (no cubin, no
    PTX) followed by its variants."""
    # No line information: it would embed the compiling machine's absolute source path in the
    # artefact (and artefacts are shipped).
    os.environ["TRITON_DISABLE_LINE_INFO"] = "1"
    import triton

    kernel = load_kernel(args.source, args.kernel, args.arch)
    parameters, constants = parse_signature(args.signature, kernel.jit.arg_names, args.kernel)
    is_family = args.autotune or args.variant or any(c["value"] == VARYING for c in constants)
    if not is_family:
        builds = [Build(args.name, parameters, constants, args.num_warps, args.num_stages,
                        args.name)]
        builds += specialization_builds(args, parameters, constants, args.name, args.name,
                                        args.num_warps, args.num_stages)
        compiled = compile_builds(args, kernel, builds)
        metadata = compiled[0][0]
        metadata["specialize"] = bool(args.specialize)
        metadata["specialize_integers"] = specialized_integers_text(args, parameters)
        metadata["specialize_values"] = specialized_values_text(
            args, parameters, [c["name"] for c in constants])
        if args.specialize:
            metadata["specializations"] = [build.stem for build in builds[1:]]
        return [(build.stem, *result) for build, result in zip(builds, compiled)]
    variants = family_variants(args, kernel, constants)
    per_variant, listed = [], []  # each variant's builds: its own, then its specializations
    for index, variant in enumerate(variants):
        values = [{"name": c["name"], "value": variant["constexprs"].get(c["name"], c["value"])}
                  for c in constants]
        label = f"{args.name}[{describe_variant(variant['constexprs'], variant['config'])}]"
        stem = f"{args.name}.{index}"
        per_variant.append(
            [Build(stem, parameters, values, variant["num_warps"], variant["num_stages"], label,
                   f"variant {index} ({label}): ")] +
            specialization_builds(args, parameters, values, stem, label, variant["num_warps"],
                                  variant["num_stages"]))
        listed.append(dict(variant, artefact=stem))
    compiled = iter(compile_builds(args, kernel, [b for own in per_variant for b in own]))
    results = []
    for own in per_variant:
        mine = [(build.stem, *next(compiled)) for build in own]
        if args.specialize:
            mine[0][1]["specializations"] = [build.stem for build in own[1:]]
        results += mine
    manifest = {
        "format": ARTEFACT_FORMAT,
        "family": True,
        "name": args.name,
        "source": Path(args.source).name,
        "source_sha256": hashlib.sha256(Path(args.source).read_bytes()).hexdigest(),
        "kernel": args.kernel,
        "signature": ", ".join(entry.strip() for entry in args.signature.split(",")),
        "variants_requested": variants_requested(args),
        "num_warps": args.num_warps,
        "num_stages": args.num_stages,
        "arch": args.arch,
        "triton_version": triton.__version__,
        "autotune": bool(args.autotune),
        "specialize": bool(args.specialize),
        "specialize_integers": specialized_integers_text(args, parameters),
        "specialize_values": specialized_values_text(args, parameters,
                                                     [c["name"] for c in constants]),
        "heuristics": kernel.heuristics,
        "variants": listed,
    }
    return [(args.name, manifest, None, None)] + results


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


def embed(artefact, namespace, out_dir):
    """OUT/ARTEFACT.cpp and OUT/include/triton_kernels/ARTEFACT.h for an artefact or a family."""
    name = Path(artefact).name
    if not IDENTIFIER.fullmatch(name):
        raise UsageError(f"the artefact name '{name}' is not a C++ identifier")
    if namespace and not re.fullmatch(r"(::)?[A-Za-z_]\w*(::[A-Za-z_]\w*)*", namespace, re.A):
        raise UsageError(f"the namespace '{namespace}' is not a C++ namespace name")
    manifest, json_path = read_manifest(artefact)
    if manifest.get("family"):
        family = read_family(artefact, manifest, json_path)
        header = generate_family_header(name, namespace, family)
        source = generate_family_source(name, namespace, family)
    else:
        metadata, cubin, ptx = read_artefact(artefact)
        header = generate_header(name, namespace, metadata)
        source = generate_source(name, namespace, metadata, cubin, ptx,
                                 read_specializations(artefact, metadata))
    out = Path(out_dir)
    (out / "include" / "triton_kernels").mkdir(parents=True, exist_ok=True)
    (out / "include" / "triton_kernels" / f"{name}.h").write_bytes(header.encode())
    (out / f"{name}.cpp").write_bytes(source.encode())


def compile_command(args):
    if not IDENTIFIER.fullmatch(args.name):
        sys.exit(f"triton_aot: --name {args.name!r} is not a C++ identifier")
    try:
        artefacts = compile_kernel(args)
    except UsageError as error:
        sys.exit(f"triton_aot: {args.source}: {args.kernel}: {error}")
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    remove_variant_files(out, args.name, keep=[stem for stem, *_ in artefacts])
    # The manifest (or the single artefact's .json) last: the build follows it.
    for stem, metadata, cubin, ptx in reversed(artefacts):
        if cubin is not None:
            (out / f"{stem}.cubin").write_bytes(cubin)
            (out / f"{stem}.ptx").write_text(ptx)
        (out / f"{stem}.json").write_text(json.dumps(metadata, indent=2) + "\n")
    if args.depfile:
        write_depfile(args.depfile, (out / f"{args.name}.json").resolve(),
                      imported_files(sys.modules["triton"]))


def ship_command(args):
    try:
        ship(args.artefact, args.to)
    except (UsageError, OSError) as error:
        sys.exit(f"triton_aot ship: {error}")


def embed_command(args):
    try:
        embed(args.artefact, args.namespace, args.out_dir)
    except UsageError as error:
        sys.exit(f"triton_aot embed: {error}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    compile_parser = commands.add_parser("compile", help="compile a kernel (needs Triton)")
    compile_parser.add_argument("--source", required=True, help="Python file defining the kernel")
    compile_parser.add_argument("--kernel", required=True, help="name of the @triton.jit function")
    compile_parser.add_argument("--signature", required=True)
    compile_parser.add_argument("--name", required=True, help="artefact name (a C++ identifier)")
    compile_parser.add_argument("--num-warps", type=int, default=4)
    compile_parser.add_argument("--num-stages", type=int, default=3)
    compile_parser.add_argument("--arch", type=int, default=90, help="compute capability, e.g. 90")
    compile_parser.add_argument("--variant", action="append",
                                help="a variant of a family: 'NAME=VALUE|VALUE, num_warps=4'")
    compile_parser.add_argument("--autotune", action="store_true",
                                help="one variant per @triton.autotune config of the kernel")
    compile_parser.add_argument("--specialize", action="store_true",
                                help="also compile the kernel (each variant) assuming addresses "
                                     "and integers are multiples of 16, as Triton's JIT does; "
                                     "the launch picks the image the arguments allow")
    compile_parser.add_argument("--specialize-integers", metavar="NAMES", action="append",
                                help="with --specialize, one more build between the two: every "
                                     "address and these integer parameters (comma-separated) "
                                     "multiples of 16 (repeatable: one build each, in order)")
    compile_parser.add_argument("--specialize-values", metavar="NAME=VALUE,...",
                                action="append",
                                help="with --specialize, builds of the kernel with these run-time "
                                     "parameters compiled as these values (a constexpr the "
                                     "signature gives a run-time type), taken where the "
                                     "arguments have them; repeatable, one build each")
    compile_parser.add_argument("--jobs", type=int, default=1,
                                help="compile up to N builds (variants, specializations) at once, "
                                     "each in a process of its own")
    compile_parser.add_argument("--out-dir", required=True)
    compile_parser.add_argument("--depfile", help="write a Makefile-style depfile here")
    compile_parser.set_defaults(run=compile_command)
    embed_parser = commands.add_parser("embed", help="generate the C++ of an artefact")
    embed_parser.add_argument("--artefact", required=True,
                              help="DIR/NAME of NAME.json, NAME.cubin and NAME.ptx")
    embed_parser.add_argument("--namespace", default="", help="C++ namespace of the struct")
    embed_parser.add_argument("--out-dir", required=True)
    embed_parser.set_defaults(run=embed_command)
    ship_parser = commands.add_parser("ship", help="copy an artefact where it is shipped")
    ship_parser.add_argument("--artefact", required=True, help="DIR/NAME of the built artefact")
    ship_parser.add_argument("--to", required=True, help="the folder it is shipped in")
    ship_parser.set_defaults(run=ship_command)
    args = parser.parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    main()
