#!/usr/bin/env python3
"""Compiles a @triton.jit kernel ahead of time, and embeds the result in C++.

    triton_aot.py compile --source kernel.py --kernel NAME --signature SIG --name ARTEFACT
                          [--num-warps 4] [--num-stages 3] [--arch 90] --out-dir DIR
                          [--depfile FILE]
    triton_aot.py embed --artefact DIR/ARTEFACT [--namespace NS] --out-dir OUT

`compile` (needs Triton) writes DIR/ARTEFACT.cubin, DIR/ARTEFACT.ptx and DIR/ARTEFACT.json (the
metadata the C++ side needs: run-time parameters with their sizes, constexprs, warps, shared
memory, scratch needs). FILE, a Makefile-style depfile, lists what the result depends on besides
the kernel source: the Python modules it imported from outside the installed packages, and the
installed Triton.

`embed` (Python's standard library only, so that a build from a shipped artefact needs no
Triton) turns such an artefact into OUT/ARTEFACT.cpp (the embedded module and its KernelImage)
and OUT/include/triton_kernels/ARTEFACT.h (a struct ARTEFACT with the kernel's constexprs and a
typed launch()), after checking that its three files belong together.

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
    """A constexpr argument as a static constexpr member: bool, std::int64_t or double."""
    if re.match(r"-?0[0-9]", value):
        raise UsageError(f"constexpr {name} = {value}: a leading zero makes a C++ integer octal")
    parsed = parse_constexpr(value)
    if parsed is None:
        raise UsageError(f"constexpr {name} = {value}: not a bool, integer or float")
    if isinstance(parsed, bool):
        return f"  static constexpr bool {name} = {value.lower()};\n"
    if isinstance(parsed, int):
        return f"  static constexpr std::int64_t {name} = {value};\n"
    return f"  static constexpr double {name} = {value};\n"


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def bytes_initializer(data):
    """Bytes as the elements of a C array initializer, 16 to a line."""
    return "".join(f"0x{byte:02x}," + ("\n    " if i % 16 == 15 else "")
                   for i, byte in enumerate(data))


def read_artefact(artefact):
    """The metadata of `artefact` (DIR/NAME), checked against its PTX; also its cubin and PTX."""
    json_path, cubin_path, ptx_path = (Path(f"{artefact}.{ext}") for ext in ("json", "cubin", "ptx"))
    try:
        metadata = json.loads(json_path.read_text())
        cubin, ptx = cubin_path.read_bytes(), ptx_path.read_bytes()
    except (OSError, ValueError) as error:
        raise UsageError(str(error))
    if not isinstance(metadata, dict) or metadata.get("format") != ARTEFACT_FORMAT:
        raise UsageError(f"{json_path}: not an autoplugin Triton artefact of format "
                         f"{ARTEFACT_FORMAT}")

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
            "#include <cstdint>\n\n"
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
    compile_parser.add_argument("--out-dir", required=True)
    compile_parser.add_argument("--depfile", help="write a Makefile-style depfile here")
    compile_parser.set_defaults(run=compile_command)
    embed_parser = commands.add_parser("embed", help="generate the C++ of an artefact")
    embed_parser.add_argument("--artefact", required=True,
                              help="DIR/NAME of NAME.json, NAME.cubin and NAME.ptx")
    embed_parser.add_argument("--namespace", default="", help="C++ namespace of the struct")
    embed_parser.add_argument("--out-dir", required=True)
    embed_parser.set_defaults(run=embed_command)
    args = parser.parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    main()
