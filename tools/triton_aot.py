#!/usr/bin/env python3
"""Compiles a @triton.jit kernel ahead of time, and embeds the result in C++.

    triton_aot.py compile --source kernel.py --kernel NAME --signature SIG --name ARTEFACT
                          [--num-warps 4] [--num-stages 3] [--arch 90] --out-dir DIR
                          [--variant SPEC ...] [--autotune] [--depfile FILE]
    triton_aot.py embed --artefact DIR/ARTEFACT [--namespace NS] --out-dir OUT
    triton_aot.py ship --artefact DIR/ARTEFACT --to SHIPPED_DIR

`compile` (needs Triton) writes DIR/ARTEFACT.cubin, DIR/ARTEFACT.ptx and DIR/ARTEFACT.json (the
metadata the C++ side needs: run-time parameters with their sizes, constexprs, warps, shared
memory, scratch needs). FILE, a Makefile-style depfile, lists what the result depends on besides
the kernel source: the Python modules it imported from outside the installed packages, and the
installed Triton.

A FAMILY of variants is compiled when the signature leaves constexprs to the variants (the entry
`constexpr`) or the kernel's @triton.autotune configs are asked for (`--autotune`): each `--variant
"BLOCK=64, EVEN=True|False, num_warps=2"` gives a value to every such constexpr (`a|b`: one
variant per alternative) and optionally its warps and stages; `--autotune` makes one variant per
config (times each --variant, when both are given). DIR/ARTEFACT.json then lists the variants,
each an artefact of its own (DIR/ARTEFACT.0.json, .cubin, .ptx, ...).

`embed` (Python's standard library only, so that a build from a shipped artefact needs no
Triton) turns such an artefact into OUT/ARTEFACT.cpp (the embedded module and its KernelImage)
and OUT/include/triton_kernels/ARTEFACT.h (a struct ARTEFACT with the kernel's constexprs and a
typed launch(); for a family, the variants' values, find()/select() by value and launch(variant,
...)), after checking that the files belong together. `ship` copies an artefact (a family with
its variants, removing variants it no longer has) into the folder it is shipped in.

SIG lists every parameter of the kernel in order, as Triton's own AOT compiler takes it: a type
(`*fp32`, `i32`, `fp32`, ...) optionally followed by `:16` (the value, or the address, is a
multiple of 16), a constexpr value (`1024`, `0.5`, `True`, `'leaky_relu'`), or `constexpr`.
A kernel decorated with @triton.heuristics or @triton.autotune is compiled as the @triton.jit
function under them: a heuristic's constexpr takes its value from the signature or the variants.

The parameter list is read back from the compiled PTX, not assumed: the kernel's real parameter
sizes (an fp32 scalar is 4 bytes, not a double) and the number of trailing scratch pointers
(which differs between Triton versions) come from the compiler's output.
"""
import argparse
import hashlib
import importlib.util
import itertools
import json
import math
import os
import re
import shutil
import site
import sys
import sysconfig
from pathlib import Path
from typing import NamedTuple

ARTEFACT_FORMAT = 1


class ScalarType(NamedTuple):
    size: int         # bytes in the kernel's parameter list
    param_type: str   # the autoplugin::triton::ParamType enumerator
    cpp_type: str     # what the generated launch() takes


# Triton's scalar types, for the signature check, the PTX check and the generated C++.
SCALAR_TYPES = {
    "i1": ScalarType(1, "I1", "bool"),
    "i8": ScalarType(1, "I8", "std::int8_t"),
    "i16": ScalarType(2, "I16", "std::int16_t"),
    "i32": ScalarType(4, "I32", "std::int32_t"),
    "i64": ScalarType(8, "I64", "std::int64_t"),
    "u1": ScalarType(1, "U1", "bool"),
    "u8": ScalarType(1, "U8", "std::uint8_t"),
    "u16": ScalarType(2, "U16", "std::uint16_t"),
    "u32": ScalarType(4, "U32", "std::uint32_t"),
    "u64": ScalarType(8, "U64", "std::uint64_t"),
    "fp16": ScalarType(2, "FP16", "autoplugin::triton::Float16Arg"),
    "bf16": ScalarType(2, "BF16", "autoplugin::triton::BFloat16Arg"),
    "fp32": ScalarType(4, "FP32", "float"),
    "fp64": ScalarType(8, "FP64", "double"),
}
POINTER_SIZE = 8
# Pointer element types launch() checks at compile time (PointerArg<T>); others take any pointer.
POINTER_ELEMENT_TYPES = {
    "fp32": "float",
    "fp16": "autoplugin::half_storage",
    "bf16": "autoplugin::bfloat16_storage",
    "i8": "std::int8_t",
    "i32": "std::int32_t",
    "i64": "std::int64_t",
    "u8": "std::uint8_t",
    "i1": "bool",
}
PTX_SIZES = {"8": 1, "16": 2, "32": 4, "64": 8}


class UsageError(Exception):
    pass


STRING_CONSTEXPR = re.compile(r"""'([^'"\\]*)'|"([^'"\\]*)\"""")


def parse_constexpr(text):
    """A constexpr value: True/False, a decimal integer that fits in int64, a finite decimal
    float (so that it is also a valid C++ constant), or a quoted string without quotes or
    backslashes in it; None when `text` is not one."""
    if text in ("True", "False"):
        return text == "True"
    string = STRING_CONSTEXPR.fullmatch(text)
    if string is not None:
        return string.group(1) if string.group(1) is not None else string.group(2)
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


def ptx_entry_parameters(ptx, function):
    """Byte sizes of the .entry's parameters, in order."""
    match = re.search(r"\.entry\s+" + re.escape(function) + r"\s*\((.*?)\)", ptx, re.S)
    if match is None:
        raise UsageError(f"no .entry {function} in the compiled PTX")
    sizes = []
    for line in filter(str.strip, match.group(1).split(",")):
        param = re.search(r"\.param\s+(?:\.align\s+\d+\s+)?\.[bsuf](\d+)\b[^\[]*?(?:\[(\d+)\])?\s*$",
                          line.strip())
        if param is None:
            raise UsageError(f"unrecognised PTX parameter: {line.strip()!r}")
        sizes.append(PTX_SIZES[param.group(1)] * int(param.group(2) or 1))
    return sizes


def check_parameter_sizes(parameters, sizes):
    """Each described parameter has its type's size in the compiled kernel's parameter list."""
    for parameter, size in zip(parameters, sizes):
        type_name = parameter["type"]
        expected = POINTER_SIZE if type_name.startswith("*") else SCALAR_TYPES[type_name].size
        if size != expected:
            raise UsageError(f"parameter '{parameter['name']}' ({type_name}) is {size} "
                             f"bytes in the compiled kernel, not {expected}")


class Kernel(NamedTuple):
    jit: object        # the @triton.jit function
    configs: list      # the @triton.autotune configs around it (empty when not autotuned)
    heuristics: dict   # constexpr name -> source of its @triton.heuristics function


def load_kernel(source, kernel):
    """The kernel's @triton.jit function, from under its @triton.autotune and @triton.heuristics
    decorators (in any order), with the autotune configs and the heuristics found on the way."""
    path = Path(source).resolve()
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
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
                raise UsageError(f"{where}: {', '.join(unsupported)} is not supported ahead of time")
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
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, str):
        if parse_constexpr(repr(value)) != value:
            raise UsageError(f"the string constexpr {value!r} has quotes or backslashes")
        return repr(value)
    if isinstance(value, (int, float)):
        text = repr(value)
        if parse_constexpr(text) is None:
            raise UsageError(f"the constexpr {text} is not a finite number")
        return text
    raise UsageError(f"the constexpr {value!r} is not a bool, integer, float or string")


def describe_variant(constexprs, config=None):
    text = ", ".join(f"{name}={value}" for name, value in constexprs.items())
    if config is not None:
        text = f"config {config}" + (", " + text if text else "")
    return text


def compile_variant(args, kernel, parameters, constants, name, num_warps, num_stages):
    """One compilation: the artefact's metadata, cubin and PTX. `constants` holds every
    constexpr's value."""
    import triton
    from triton.backends.compiler import GPUTarget

    function = kernel.jit
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
    scratch_parameters = len(sizes) - len(parameters)
    if not 0 <= scratch_parameters <= 2 or any(size != POINTER_SIZE for size in sizes[len(parameters):]):
        raise UsageError(f"the compiled kernel has {len(sizes)} parameters for the signature's "
                         f"{len(parameters)}; autoplugin knows up to two trailing scratch pointers")
    check_parameter_sizes(parameters, sizes)
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


def variants_requested(args):
    """The family's settings as the shipped-artefact check compares them: "autotune" and each
    --variant with its entries separated by ", ", joined by "; "."""
    specs = (["autotune"] if args.autotune else []) + [
        ", ".join(filter(None, (part.strip() for part in spec.split(","))))
        for spec in args.variant or []]
    return "; ".join(specs)


def compile_kernel(args):
    """[(file stem, metadata, cubin, ptx)]: one artefact, or a family's manifest (no cubin, no
    PTX) followed by its variants."""
    # No line information: it would embed the compiling machine's absolute source path in the
    # artefact (and artefacts are shipped).
    os.environ["TRITON_DISABLE_LINE_INFO"] = "1"
    import triton

    kernel = load_kernel(args.source, args.kernel)
    parameters, constants = parse_signature(args.signature, kernel.jit.arg_names, args.kernel)
    is_family = args.autotune or args.variant or any(c["value"] == VARYING for c in constants)
    if not is_family:
        return [(args.name, *compile_variant(args, kernel, parameters, constants, args.name,
                                             args.num_warps, args.num_stages))]
    variants = family_variants(args, kernel, constants)
    results, listed = [], []
    for index, variant in enumerate(variants):
        values = [{"name": c["name"], "value": variant["constexprs"].get(c["name"], c["value"])}
                  for c in constants]
        label = f"{args.name}[{describe_variant(variant['constexprs'], variant['config'])}]"
        try:
            metadata, cubin, ptx = compile_variant(args, kernel, parameters, values, label,
                                                   variant["num_warps"], variant["num_stages"])
        except UsageError as error:
            raise UsageError(f"variant {index} ({label}): {error}")
        stem = f"{args.name}.{index}"
        results.append((stem, metadata, cubin, ptx))
        listed.append(dict(variant, artefact=stem))
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


# C++ keywords, macros of the C library and of GNU C++, and the names launch() and its struct use:
# a Python name that is one of them gets a trailing underscore in the generated C++.
CPP_RESERVED_NAMES = frozenset("""
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
    char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
    co_return co_yield decltype default delete do double dynamic_cast else enum explicit export
    extern false float for friend goto if inline int long mutable namespace new noexcept not
    not_eq nullptr operator or or_eq private protected public register reinterpret_cast requires
    return short signed sizeof static static_assert static_cast struct switch template this
    thread_local throw true try typedef typeid typename union unsigned using virtual void volatile
    wchar_t while xor xor_eq
    NULL errno assert linux unix stdin stdout stderr EOF
    grid stream scratch image launch scratch_bytes
""".split())
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def cpp_identifier(python_name, struct_name):
    """`python_name` as a member or parameter of the generated struct `struct_name`."""
    if python_name in CPP_RESERVED_NAMES or python_name == struct_name:
        return python_name + "_"
    return python_name


def launch_parameter_type(triton_type):
    """The ParamType enumerator and the C++ type launch() takes for a Triton type."""
    if triton_type.startswith("*"):
        element = POINTER_ELEMENT_TYPES.get(triton_type[1:], "")
        return "Pointer", f"autoplugin::triton::PointerArg<{element}>"
    scalar = SCALAR_TYPES.get(triton_type)
    if scalar is None:
        raise UsageError(f"unknown Triton type '{triton_type}'")
    return scalar.param_type, scalar.cpp_type


def constant_member(name, value):
    """A constexpr argument as a static constexpr member: bool, std::int64_t, double or
    std::string_view."""
    if re.match(r"-?0[0-9]", value):
        raise UsageError(f"constexpr {name} = {value}: a leading zero makes a C++ integer octal")
    parsed = parse_constexpr(value)
    if parsed is None:
        raise UsageError(f"constexpr {name} = {value}: not a bool, integer, float or quoted "
                         "string")
    if isinstance(parsed, bool):
        return f"  static constexpr bool {name} = {value.lower()};\n"
    if isinstance(parsed, int):
        return f"  static constexpr std::int64_t {name} = {value};\n"
    if isinstance(parsed, str):
        return f"  static constexpr std::string_view {name} = {c_string(parsed)};\n"
    return f"  static constexpr double {name} = {value};\n"


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def bytes_initializer(data):
    """Bytes as the elements of a C array initializer, 16 to a line."""
    return "".join(f"0x{byte:02x}," + ("\n    " if i % 16 == 15 else "")
                   for i, byte in enumerate(data))


def read_manifest(artefact):
    """The parsed DIR/NAME.json of an artefact or a family, and its path."""
    json_path = Path(f"{artefact}.json")
    try:
        metadata = json.loads(json_path.read_text())
    except (OSError, ValueError) as error:
        raise UsageError(str(error))
    if not isinstance(metadata, dict) or metadata.get("format") != ARTEFACT_FORMAT:
        raise UsageError(f"{json_path}: not an autoplugin Triton artefact of format "
                         f"{ARTEFACT_FORMAT}")
    return metadata, json_path


class Family(NamedTuple):
    manifest: dict
    variants: list     # per variant: (its manifest entry, metadata, cubin, ptx)
    varying: list      # the constexprs the variants give, in signature order
    keys: list         # what find() takes: the varying constexprs that no autotune config sets
    types: dict        # varying constexpr -> its C++ type


def constexpr_cpp_type(name, texts):
    parsed = [parse_constexpr(text) for text in texts]
    if any(value is None for value in parsed):
        raise UsageError(f"constexpr {name}: {texts} are not all bools, numbers or strings")
    kinds = {bool if isinstance(v, bool) else int if isinstance(v, int) else type(v)
             for v in parsed}
    if kinds == {bool}:
        return "bool"
    if kinds == {int}:
        return "std::int64_t"
    if kinds <= {int, float}:
        return "double"
    if kinds == {str}:
        return "std::string_view"
    raise UsageError(f"constexpr {name} takes values of different kinds across the variants: "
                     f"{', '.join(texts)}")


def constexpr_literal(text, cpp_type):
    value = parse_constexpr(text)
    if cpp_type == "bool":
        return "true" if value else "false"
    if cpp_type == "std::string_view":
        return c_string(value)
    if cpp_type == "double" and isinstance(value, int):
        return f"{text}.0"
    if re.match(r"-?0[0-9]", text):
        raise UsageError(f"constexpr {text}: a leading zero makes a C++ integer octal")
    return text


def read_family(artefact, manifest, json_path):
    variants_field = manifest.get("variants")
    if not isinstance(variants_field, list) or not variants_field:
        raise UsageError(f"{json_path}: a family lists its variants")
    directory = Path(artefact).parent
    variants = []
    for index, entry in enumerate(variants_field):
        if not (isinstance(entry, dict) and isinstance(entry.get("artefact"), str) and
                isinstance(entry.get("constexprs"), dict) and
                entry.get("artefact") == f"{Path(artefact).name}.{index}"):
            raise UsageError(f"{json_path}: variants[{index}] needs its artefact "
                             f"{Path(artefact).name}.{index} and its constexprs")
        metadata, cubin, ptx = read_artefact(directory / entry["artefact"])
        variants.append((entry, metadata, cubin, ptx))
    first = variants[0][1]
    for entry, metadata, _, _ in variants[1:]:
        if metadata["parameters"] != first["parameters"] or \
                [c["name"] for c in metadata["constants"]] != [c["name"] for c in first["constants"]]:
            raise UsageError(f"{json_path}: variant {entry['artefact']} takes other parameters "
                             "than the first (regenerate the family)")
    varying = list(variants[0][0]["constexprs"])
    for entry, metadata, _, _ in variants:
        recorded = {c["name"]: c["value"] for c in metadata["constants"]}
        if list(entry["constexprs"]) != varying or any(
                recorded.get(name) != value for name, value in entry["constexprs"].items()):
            raise UsageError(f"{json_path}: variant {entry['artefact']}'s constexprs differ from "
                             "those it was compiled with (regenerate the family)")
    autotune = manifest.get("autotune") is True
    set_by_config = set()
    if autotune:
        # A constexpr set by the configs is what the config index selects.
        set_by_config = {name for name in varying
                         if len({(e["config"], e["constexprs"][name]) for e, *_ in variants}) ==
                         len({e["config"] for e, *_ in variants})}
    keys = [name for name in varying if name not in set_by_config]
    types = {name: constexpr_cpp_type(name, [e["constexprs"][name] for e, *_ in variants])
             for name in varying}
    return Family(manifest, variants, varying, keys, types)


FAMILY_MEMBERS = frozenset("Variant variants find select config num_warps num_stages".split())


def family_identifier(python_name, struct_name):
    if python_name in FAMILY_MEMBERS:
        return python_name + "_"
    return cpp_identifier(python_name, struct_name)


def variant_label(family, entry):
    parts = [f"config {entry['config']}"] if family.manifest.get("autotune") else []
    parts += [f"{name}={entry['constexprs'][name]}" for name in family.keys]
    return ", ".join(parts)


def generate_family_header(name, namespace, family):
    manifest = family.manifest
    first = family.variants[0][1]
    autotune = manifest.get("autotune") is True
    fixed = "".join(
        constant_member(family_identifier(c["name"], name), c["value"])
        for c in first["constants"] if c["name"] not in family.varying)
    fields = (["    int config;  // its index in the kernel's @triton.autotune configs\n"]
              if autotune else [])
    fields += [f"    {family.types[n]} {family_identifier(n, name)};\n" for n in family.varying]
    fields += ["    int num_warps;\n", "    int num_stages;\n"]
    rows = []
    for entry, metadata, _, _ in family.variants:
        values = ([str(entry["config"])] if autotune else []) + [
            constexpr_literal(entry["constexprs"][n], family.types[n]) for n in family.varying]
        values += [str(metadata["num_warps"]), str(metadata["num_stages"])]
        rows.append("      {" + ", ".join(values) + "},\n")
    key_parameters = (["int config"] if autotune else []) + [
        f"{family.types[n]} {family_identifier(n, name)}" for n in family.keys]
    key_tests = (["variants[i].config == config"] if autotune else []) + [
        f"variants[i].{family_identifier(n, name)} == {family_identifier(n, name)}"
        for n in family.keys]
    launch_parameters, arguments = "", []
    for parameter in first["parameters"]:
        _, cpp_type = launch_parameter_type(parameter["type"])
        cpp_name = family_identifier(parameter["name"], name)
        launch_parameters += f",\n      {cpp_type} {cpp_name}"
        arguments.append(cpp_name)
    argument_list = ", ".join(arguments)
    needs_scratch = any(
        (m["scratch_parameters"] >= 1 and m["global_scratch"]["bytes"] > 0) or
        (m["scratch_parameters"] == 2 and m["profile_scratch"]["bytes"] > 0)
        for _, m, _, _ in family.variants)
    if needs_scratch:
        launch = (
            "  // Device memory variant `variant` needs for `grid`: declare it as the op's "
            "workspace\n  // (the largest over the variants the op may launch).\n"
            "  static std::size_t scratch_bytes(std::size_t variant, autoplugin::triton::Grid "
            "grid) {\n"
            "    return autoplugin::triton::scratch_bytes(image(variant), grid);\n  }\n"
            "  static autoplugin::Dim scratch_bytes(std::size_t variant, const autoplugin::Dim& "
            "programs) {\n"
            "    return autoplugin::triton::scratch_bytes(image(variant), programs);\n  }\n"
            "  // Launches variant `variant` on `stream`; throws autoplugin::Error naming the "
            "kernel on any failure.\n"
            "  static void launch(\n"
            "      std::size_t variant, autoplugin::triton::Grid grid, autoplugin::Stream stream,\n"
            f"      autoplugin::Workspace scratch{launch_parameters}) {{\n"
            f"    autoplugin::triton::launch(image(variant), grid, stream, {{{argument_list}}}, "
            "scratch);\n  }\n")
    else:
        launch = (
            "  // Launches variant `variant` on `stream`; throws autoplugin::Error naming the "
            "kernel on any failure.\n"
            "  static void launch(\n"
            "      std::size_t variant, autoplugin::triton::Grid grid, autoplugin::Stream stream"
            f"{launch_parameters}) {{\n"
            f"    autoplugin::triton::launch(image(variant), grid, stream, {{{argument_list}}});\n"
            "  }\n")
    heuristics = "".join(f"//   {n}: {text}\n" for n, text in
                         (manifest.get("heuristics") or {}).items())
    if heuristics:
        heuristics = ("// The kernel's @triton.heuristics (select() takes their values: compute "
                      "them in C++):\n" + heuristics)
    selected_by = ", ".join((["the autotune config"] if autotune else []) + family.keys)
    namespace_open, namespace_close = namespace_lines(namespace)
    return (f"// {generated_by(name)}\n"
            f"// Triton {first['triton_version']} kernel {first['function']} for "
            f"sm_{first['arch']}, {len(family.variants)} variants: {manifest['signature']}\n"
            f"{heuristics}"
            "#pragma once\n\n"
            "#include <autoplugin/triton.h>\n\n"
            "#include <array>\n#include <cstddef>\n#include <cstdint>\n#include <optional>\n"
            "#include <string_view>\n\n"
            f"{namespace_open}\n"
            f"struct {name} {{\n"
            "  // The constexpr arguments every variant was compiled with.\n"
            f"{fixed}\n"
            "  // What each variant was compiled with.\n"
            "  struct Variant {\n"
            f"{''.join(fields)}"
            "  };\n"
            f"  static constexpr std::array<Variant, {len(family.variants)}> variants{{{{\n"
            f"{''.join(rows)}"
            "  }};\n\n"
            f"  // The variant compiled for these values ({selected_by}), if any.\n"
            f"  static constexpr std::optional<std::size_t> find({', '.join(key_parameters)}) "
            "noexcept {\n"
            "    for (std::size_t i = 0; i < variants.size(); ++i) {\n"
            f"      if ({' && '.join(key_tests) or 'true'}) return i;\n"
            "    }\n"
            "    return std::nullopt;\n"
            "  }\n"
            "  // The same; throws autoplugin::Error naming the kernel, these values and those "
            "compiled.\n"
            f"  static std::size_t select({', '.join(key_parameters)});\n\n"
            "  // Throws autoplugin::Error when there is no variant `variant`.\n"
            "  static const autoplugin::triton::KernelImage& image(std::size_t variant);\n"
            f"{launch}}};\n\n"
            f"{namespace_close}")


def value_text_expression(cpp_name, cpp_type):
    """C++ that prints a select() argument as the signature would write it."""
    if cpp_type == "bool":
        return f'std::string({cpp_name} ? "True" : "False")'
    if cpp_type == "std::string_view":
        return f"\"'\" + std::string({cpp_name}) + \"'\""
    return f"std::to_string({cpp_name})"


def generate_family_source(name, namespace, family):
    first = family.variants[0][1]
    autotune = family.manifest.get("autotune") is True
    arrays, images = "", []
    parameters_span = "{}"
    if first["parameters"]:
        parameters_span = "kParameters"
        arrays += "const autoplugin::triton::Parameter kParameters[] = {\n"
        for parameter in first["parameters"]:
            param_type, _ = launch_parameter_type(parameter["type"])
            arrays += (f"    {{{c_string(parameter['name'])}, {c_string(parameter['type'])}, "
                       f"autoplugin::triton::ParamType::{param_type}, "
                       f"{parameter['divisibility']}}},\n")
        arrays += "};\n"
    for index, (entry, metadata, cubin, ptx) in enumerate(family.variants):
        arrays += (f"alignas(64) const unsigned char kCubin{index}[{len(cubin)}] = {{\n"
                   f"    {bytes_initializer(cubin)}}};\n"
                   f"alignas(64) const char kPtx{index}[{len(ptx)} + 1] = {{\n"
                   f"    {bytes_initializer(ptx)}0}};\n")
        constants_span = "{}"
        if metadata["constants"]:
            constants_span = f"kConstants{index}"
            arrays += f"const autoplugin::triton::Constant kConstants{index}[] = {{\n"
            for constant in metadata["constants"]:
                arrays += f"    {{{c_string(constant['name'])}, {c_string(constant['value'])}}},\n"
            arrays += "};\n"
        fields = [c_string(f"{name}[{variant_label(family, entry)}]"),
                  c_string(metadata["function"]), c_string(metadata["signature"]),
                  metadata["arch"], f"kCubin{index}", f"kPtx{index}", parameters_span,
                  constants_span, metadata["launch_num_warps"], metadata["shared_bytes"],
                  metadata["scratch_parameters"], metadata["global_scratch"]["bytes"],
                  metadata["global_scratch"]["align"], metadata["profile_scratch"]["bytes"],
                  metadata["profile_scratch"]["align"]]
        images.append("      {" + ", ".join(str(field) for field in fields) + "},\n")
    compiled = "; ".join(variant_label(family, entry) for entry, *_ in family.variants)
    key_parameters = (["int config"] if autotune else []) + [
        f"{family.types[n]} {family_identifier(n, name)}" for n in family.keys]
    key_names = (["config"] if autotune else []) + [family_identifier(n, name)
                                                    for n in family.keys]
    asked = ' + ", " + '.join(
        ([f'"config " + std::to_string(config)'] if autotune else []) +
        [f'"{n}=" + ' + value_text_expression(family_identifier(n, name), family.types[n])
         for n in family.keys]) or '""'
    namespace_open, namespace_close = namespace_lines(namespace)
    return (f"// {generated_by(name)}\n"
            f'#include "triton_kernels/{name}.h"\n\n'
            "#include <string>\n\n"
            f"{namespace_open}\n"
            "namespace {\n\n"
            f"{arrays}\n"
            "}  // namespace\n\n"
            f"const autoplugin::triton::KernelImage& {name}::image(std::size_t variant) {{\n"
            "  static const autoplugin::triton::KernelImage kImages[] = {\n"
            f"{''.join(images)}"
            "  };\n"
            "  if (variant >= variants.size()) {\n"
            f"    autoplugin::triton::throw_no_variant({c_string(name)}, \"variant \" + "
            "std::to_string(variant),\n"
            f"                                         {c_string(compiled)});\n"
            "  }\n"
            "  return kImages[variant];\n"
            "}\n\n"
            f"std::size_t {name}::select({', '.join(key_parameters)}) {{\n"
            f"  if (const auto found = find({', '.join(key_names)})) return *found;\n"
            f"  autoplugin::triton::throw_no_variant({c_string(name)}, {asked},\n"
            f"                                       {c_string(compiled)});\n"
            "}\n\n"
            f"{namespace_close}")


def read_artefact(artefact):
    """The metadata of `artefact` (DIR/NAME), checked against its PTX; also its cubin and PTX."""
    metadata, json_path = read_manifest(artefact)
    if metadata.get("family"):
        raise UsageError(f"{json_path}: a family of variants, not one artefact")
    cubin_path, ptx_path = (Path(f"{artefact}.{ext}") for ext in ("cubin", "ptx"))
    try:
        cubin, ptx = cubin_path.read_bytes(), ptx_path.read_bytes()
    except OSError as error:
        raise UsageError(str(error))

    def field(kind, *keys):
        value = metadata
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        if not isinstance(value, kind) or isinstance(value, bool) != (kind is bool):
            raise UsageError(f"{json_path}: {'.'.join(keys)} is missing or not a {kind.__name__}")
        return value

    for key in ("function", "signature", "triton_version"):
        field(str, key)
    for key in ("arch", "launch_num_warps", "shared_bytes", "scratch_parameters"):
        field(int, key)
    for scratch in ("global_scratch", "profile_scratch"):
        field(int, scratch, "bytes")
        alignment = field(int, scratch, "align")
        if alignment < 1 or alignment & (alignment - 1):
            raise UsageError(f"{json_path}: {scratch}.align {alignment} is not a power of two")
    if not 0 <= metadata["scratch_parameters"] <= 2:
        raise UsageError(f"{json_path}: {metadata['scratch_parameters']} scratch parameters; "
                         "at most 2")
    for i, entry in enumerate(field(list, "parameters")):
        if not (isinstance(entry, dict) and isinstance(entry.get("name"), str) and
                isinstance(entry.get("type"), str) and entry.get("divisibility") in (1, 16)):
            raise UsageError(f"{json_path}: parameters[{i}] needs a name, a type and a "
                             "divisibility of 1 or 16")
        try:
            launch_parameter_type(entry["type"])
        except UsageError as error:
            raise UsageError(f"{json_path}: parameter '{entry['name']}': {error}")
    for i, entry in enumerate(field(list, "constants")):
        if not (isinstance(entry, dict) and isinstance(entry.get("name"), str) and
                isinstance(entry.get("value"), str)):
            raise UsageError(f"{json_path}: constants[{i}] needs a name and a value")
    for name in [metadata["function"]] + [entry["name"] for entry in
                                          metadata["parameters"] + metadata["constants"]]:
        if not IDENTIFIER.fullmatch(name):
            raise UsageError(f"{json_path}: '{name}' is not a C++ identifier")

    # The kernel in the PTX (compiled with the cubin) must take exactly the parameters described:
    # the launch passes that many, of these sizes.
    try:
        sizes = ptx_entry_parameters(ptx.decode("utf-8", "replace"), metadata["function"])
    except UsageError as error:
        raise UsageError(f"{ptx_path}: {error}")
    described = len(metadata["parameters"]) + metadata["scratch_parameters"]
    if len(sizes) != described:
        raise UsageError(f"{artefact}: the kernel {metadata['function']} in the PTX takes "
                         f"{len(sizes)} parameters; the .json describes {described} (the files "
                         "are from different compilations: regenerate the artefact)")
    try:
        check_parameter_sizes(metadata["parameters"], sizes)
    except UsageError as error:
        raise UsageError(f"{artefact}: {error} (the files are from different compilations: "
                         "regenerate the artefact)")
    return metadata, cubin, ptx


def generate_header(name, namespace, metadata):
    """triton_kernels/NAME.h: struct NAME with the constexprs, image() and a typed launch()."""
    constant_members = "".join(
        constant_member(cpp_identifier(constant["name"], name), constant["value"])
        for constant in metadata["constants"])
    launch_parameters, launch_arguments = "", []
    for parameter in metadata["parameters"]:
        _, cpp_type = launch_parameter_type(parameter["type"])
        cpp_name = cpp_identifier(parameter["name"], name)
        launch_parameters += f",\n      {cpp_type} {cpp_name}"
        launch_arguments.append(cpp_name)
    arguments = ", ".join(launch_arguments)
    scratch_parameters = metadata["scratch_parameters"]
    scratch_needed = ((scratch_parameters >= 1 and metadata["global_scratch"]["bytes"] > 0) or
                      (scratch_parameters == 2 and metadata["profile_scratch"]["bytes"] > 0))
    if scratch_needed:
        launch_members = (
            "  // Device memory the kernel needs for `grid`: declare it as the op's workspace.\n"
            "  static std::size_t scratch_bytes(autoplugin::triton::Grid grid) {\n"
            "    return autoplugin::triton::scratch_bytes(image(), grid);\n"
            "  }\n"
            "  // The same for the op's .workspace function: `programs`, the grid's size, from the "
            "shapes.\n"
            "  static autoplugin::Dim scratch_bytes(const autoplugin::Dim& programs) {\n"
            "    return autoplugin::triton::scratch_bytes(image(), programs);\n"
            "  }\n"
            "  // Launches on `stream`; throws autoplugin::Error naming the kernel on any failure.\n"
            "  static void launch(\n"
            "      autoplugin::triton::Grid grid, autoplugin::Stream stream,\n"
            f"      autoplugin::Workspace scratch{launch_parameters}) {{\n"
            f"    autoplugin::triton::launch(image(), grid, stream, {{{arguments}}}, scratch);\n"
            "  }\n")
    else:
        launch_members = (
            "  // Launches on `stream`; throws autoplugin::Error naming the kernel on any failure.\n"
            "  static void launch(\n"
            f"      autoplugin::triton::Grid grid, autoplugin::Stream stream{launch_parameters}) {{\n"
            f"    autoplugin::triton::launch(image(), grid, stream, {{{arguments}}});\n"
            "  }\n")
    namespace_open, namespace_close = namespace_lines(namespace)
    return (f"// {generated_by(name)}\n"
            f"// Triton {metadata['triton_version']} kernel {metadata['function']} for "
            f"sm_{metadata['arch']}: {metadata['signature']}\n"
            "#pragma once\n\n"
            "#include <autoplugin/triton.h>\n\n"
            "#include <cstddef>\n"
            "#include <cstdint>\n"
            "#include <string_view>\n\n"
            f"{namespace_open}\n"
            f"struct {name} {{\n"
            "  // The constexpr arguments the kernel was compiled with.\n"
            f"{constant_members}\n"
            "  static const autoplugin::triton::KernelImage& image() noexcept;\n"
            f"{launch_members}}};\n\n"
            f"{namespace_close}")


def generate_source(name, namespace, metadata, cubin, ptx):
    """NAME.cpp: the cubin and PTX as arrays, the parameter and constant tables, the KernelImage."""
    parameters_span = constants_span = "{}"
    tables = ""
    if metadata["parameters"]:
        parameters_span = "kParameters"
        tables += "const autoplugin::triton::Parameter kParameters[] = {\n"
        for parameter in metadata["parameters"]:
            param_type, _ = launch_parameter_type(parameter["type"])
            tables += (f"    {{{c_string(parameter['name'])}, {c_string(parameter['type'])}, "
                       f"autoplugin::triton::ParamType::{param_type}, "
                       f"{parameter['divisibility']}}},\n")
        tables += "};\n"
    if metadata["constants"]:
        constants_span = "kConstants"
        tables += "const autoplugin::triton::Constant kConstants[] = {\n"
        for constant in metadata["constants"]:
            tables += f"    {{{c_string(constant['name'])}, {c_string(constant['value'])}}},\n"
        tables += "};\n"
    image_fields = [c_string(name), c_string(metadata["function"]),
                    c_string(metadata["signature"]), metadata["arch"], "kCubin", "kPtx",
                    parameters_span, constants_span, metadata["launch_num_warps"],
                    metadata["shared_bytes"], metadata["scratch_parameters"],
                    metadata["global_scratch"]["bytes"], metadata["global_scratch"]["align"],
                    metadata["profile_scratch"]["bytes"], metadata["profile_scratch"]["align"]]
    namespace_open, namespace_close = namespace_lines(namespace)
    return (f"// {generated_by(name)}\n"
            f'#include "triton_kernels/{name}.h"\n\n'
            f"{namespace_open}\n"
            "namespace {\n\n"
            f"alignas(64) const unsigned char kCubin[{len(cubin)}] = {{\n"
            f"    {bytes_initializer(cubin)}}};\n"
            f"alignas(64) const char kPtx[{len(ptx)} + 1] = {{\n"
            f"    {bytes_initializer(ptx)}0}};\n"
            f"{tables}\n"
            "}  // namespace\n\n"
            f"const autoplugin::triton::KernelImage& {name}::image() noexcept {{\n"
            "  static const autoplugin::triton::KernelImage kImage{\n"
            + ",\n".join(f"      {value}" for value in image_fields) + "};\n"
            "  return kImage;\n"
            "}\n\n"
            f"{namespace_close}")


def generated_by(name):
    return f"Generated by autoplugin_add_triton_kernel from {name}.json: do not edit."


def namespace_lines(namespace):
    if not namespace:
        return "", ""
    return f"namespace {namespace} {{\n", f"}}  // namespace {namespace}\n"


def embed(artefact, namespace, out_dir):
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
        source = generate_source(name, namespace, metadata, cubin, ptx)
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


def remove_variant_files(directory, name, keep):
    """Removes the files of variants NAME.<k> that are not in `keep` (a family that shrank, or
    a family that became a single artefact)."""
    for path in Path(directory).glob(f"{glob_escape(name)}.*.*"):
        stem = path.name.rsplit(".", 1)[0]
        if re.fullmatch(re.escape(name) + r"\.[0-9]+", stem) and stem not in keep:
            path.unlink()


def glob_escape(text):
    return re.sub(r"([*?\[])", r"[\1]", text)


def ship(artefact, to):
    """Copies the artefact DIR/NAME (with a family's variants) into `to`."""
    source = Path(artefact)
    metadata, _ = read_manifest(source)
    stems = [source.name]
    if metadata.get("family"):
        stems = [variant["artefact"] for variant in metadata["variants"]] + stems
    target = Path(to)
    target.mkdir(parents=True, exist_ok=True)
    remove_variant_files(target, source.name, keep=stems)
    for stem in stems:
        for extension in ("cubin", "ptx", "json"):
            path = source.parent / f"{stem}.{extension}"
            if path.exists():
                shutil.copyfile(path, target / path.name)


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
