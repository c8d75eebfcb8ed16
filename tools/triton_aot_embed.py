"""The artefacts of tools/triton_aot.py and the C++ embedded from them, with Python's standard
library only (a build from shipped artefacts needs no Triton).

An artefact DIR/NAME is NAME.json (the metadata: run-time parameters with their sizes, constexprs,
warps, shared memory, scratch needs), NAME.cubin and NAME.ptx; a family's NAME.json lists its
variants, each an artefact DIR/NAME.<k>. generate_header() and generate_source() give one
artefact's NAME.h (struct NAME with the constexprs and a typed launch()) and NAME.cpp (the
embedded modules and their KernelImages); triton_aot_family.py, on top of this module, gives a
family's, with its selection by value; triton_aot.py's embed picks one or the other. ship()
copies an artefact into the folder it is shipped in.
"""
import json
import math
import re
import shutil
import struct
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

# Triton's dtypes by the names a signature may give them (`tl.float16`, `tl.fp16`): their
# Triton names.
TRITON_DTYPES = {"float16": "fp16", "float32": "fp32", "float64": "fp64", "bfloat16": "bf16",
                 "int1": "int1", "int8": "int8", "int16": "int16", "int32": "int32",
                 "int64": "int64", "uint8": "uint8", "uint16": "uint16", "uint32": "uint32",
                 "uint64": "uint64", "float8e4nv": "fp8e4nv", "float8e5": "fp8e5"}
TRITON_DTYPES.update({name: name for name in list(TRITON_DTYPES.values())})
DTYPE_CONSTEXPR = re.compile(r"(?:tl|triton\.language)\.(\w+)")


class NoneConstexpr:
    """A constexpr that is None: what Triton's JIT makes of a None argument (an absent optional
    tensor passed to a pointer parameter the kernel does not touch then)."""

    def __repr__(self):
        return "None"


NONE = NoneConstexpr()


class DtypeConstexpr(str):
    """A constexpr that is a Triton dtype (`OUT_DTYPE: tl.constexpr` given `tl.float16`), by
    its Triton name ("fp16"); compiled as that dtype, a string in the C++ header."""


def parse_constexpr(text):
    """A constexpr value: True/False, a decimal integer that fits in int64, a finite decimal
    float (so that it is also a valid C++ constant), a quoted string without quotes or
    backslashes in it, a Triton dtype (`tl.float16`), or None (NONE); None when `text` is not
    one."""
    if text in ("True", "False"):
        return text == "True"
    if text == "None":
        return NONE
    dtype = DTYPE_CONSTEXPR.fullmatch(text)
    if dtype is not None and dtype.group(1) in TRITON_DTYPES:
        return DtypeConstexpr(TRITON_DTYPES[dtype.group(1)])
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
        raise UsageError(f"constexpr {name} = {value}: not a bool, integer, float, quoted "
                         "string, Triton dtype (tl.float16) or None")
    if parsed is NONE:
        return f"  // {name} = None: an absent tensor\n"
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
        if "value" in entry and (isinstance(entry["value"], bool) or not isinstance(
                entry["value"], float if entry["type"].startswith("fp") else int)):
            raise UsageError(f"{json_path}: parameter '{entry['name']}': the value it was "
                             f"compiled for, {entry['value']!r}, is not a {entry['type']}")
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
    run_time = [p for p in metadata["parameters"] if "value" not in p]  # not compiled for a value
    described = len(run_time) + metadata["scratch_parameters"]
    if len(sizes) != described:
        raise UsageError(f"{artefact}: the kernel {metadata['function']} in the PTX takes "
                         f"{len(sizes)} parameters; the .json describes {described} (the files "
                         "are from different compilations: regenerate the artefact)")
    try:
        check_parameter_sizes(run_time, sizes)
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


def parameter_table(parameters, table_name="kParameters"):
    """The array (`table_name`) of a kernel's launch parameters, and the span naming it ("{}"
    when the kernel has none)."""
    if not parameters:
        return "", "{}"
    table = f"const autoplugin::triton::Parameter {table_name}[] = {{\n"
    for parameter in parameters:
        param_type, _ = launch_parameter_type(parameter["type"])
        compiled = ("true", f"{value_bits(parameter):#x}u") if "value" in parameter else ("false", 0)
        table += (f"    {{{c_string(parameter['name'])}, {c_string(parameter['type'])}, "
                  f"autoplugin::triton::ParamType::{param_type}, "
                  f"{parameter['divisibility']}, {compiled[0]}, {compiled[1]}}},\n")
    return table + "};\n", table_name


def value_bits(parameter):
    """The bits autoplugin::triton::Argument holds for the value a parameter was compiled for
    (a float's pattern; an integer two's complement in 64 bits)."""
    value = parameter["value"]
    if parameter["type"] == "fp32":
        return struct.unpack("<I", struct.pack("<f", value))[0]
    if parameter["type"] == "fp64":
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    return int(value) % (1 << 64)


def image_fields(label, metadata, suffix, parameters_span, constants_span, specializations):
    """The initializer of a KernelImage whose arrays are kCubin<suffix> and kPtx<suffix>."""
    return [c_string(label), c_string(metadata["function"]), c_string(metadata["signature"]),
            metadata["arch"], f"kCubin{suffix}", f"kPtx{suffix}", parameters_span,
            constants_span, metadata["launch_num_warps"], metadata["shared_bytes"],
            metadata["scratch_parameters"], metadata["global_scratch"]["bytes"],
            metadata["global_scratch"]["align"], metadata["profile_scratch"]["bytes"],
            metadata["profile_scratch"]["align"], specializations]


def code_arrays(suffix, cubin, ptx):
    return (f"alignas(64) const unsigned char kCubin{suffix}[{len(cubin)}] = {{\n"
            f"    {bytes_initializer(cubin)}}};\n"
            f"alignas(64) const char kPtx{suffix}[{len(ptx)} + 1] = {{\n"
            f"    {bytes_initializer(ptx)}0}};\n")


def specialization_images(label, suffix, specializations, constants_span):
    """The arrays and KernelImages of an image's specializations (read_specializations), and
    the span that lists them ("{}" when there are none)."""
    if not specializations:
        return "", "{}"
    text, pointers = "", []
    for k, (metadata, cubin, ptx) in enumerate(specializations):
        own = f"{suffix}_s{k}"
        promised = ", ".join(p["name"] for p in metadata["parameters"] if p["divisibility"] > 1)
        promises = [f"multiples of 16: {promised}"] if promised else []
        promises += [f"{p['name']} = {p['value']}" for p in metadata["parameters"] if "value" in p]
        table, parameters_span = parameter_table(metadata["parameters"], f"kParameters{own}")
        fields = image_fields(f"{label}[{'; '.join(promises)}]", metadata, own,
                              parameters_span, constants_span, "{}")
        text += (code_arrays(own, cubin, ptx) + table +
                 f"const autoplugin::triton::KernelImage kImage{own}{{\n" +
                 ",\n".join(f"    {field}" for field in fields) + "};\n")
        pointers.append(f"&kImage{own}")
    text += (f"const autoplugin::triton::KernelImage* const kSpecializations{suffix}[] = "
             f"{{{', '.join(pointers)}}};\n")
    return text, f"kSpecializations{suffix}"


def generate_source(name, namespace, metadata, cubin, ptx, specializations=()):
    """NAME.cpp: the cubin and PTX as arrays, the parameter and constant tables, the KernelImage
    (with its specializations')."""
    constants_span = "{}"
    tables, parameters_span = parameter_table(metadata["parameters"])
    if metadata["constants"]:
        constants_span = "kConstants"
        tables += "const autoplugin::triton::Constant kConstants[] = {\n"
        for constant in metadata["constants"]:
            tables += f"    {{{c_string(constant['name'])}, {c_string(constant['value'])}}},\n"
        tables += "};\n"
    specialized, specializations_span = specialization_images(name, "", specializations,
                                                              constants_span)
    fields = image_fields(name, metadata, "", parameters_span, constants_span,
                          specializations_span)
    namespace_open, namespace_close = namespace_lines(namespace)
    return (f"// {generated_by(name)}\n"
            f'#include "triton_kernels/{name}.h"\n\n'
            f"{namespace_open}\n"
            "namespace {\n\n"
            f"{code_arrays('', cubin, ptx)}"
            f"{tables}"
            f"{specialized}\n"
            "}  // namespace\n\n"
            f"const autoplugin::triton::KernelImage& {name}::image() noexcept {{\n"
            "  static const autoplugin::triton::KernelImage kImage{\n"
            + ",\n".join(f"      {value}" for value in fields) + "};\n"
            "  return kImage;\n"
            "}\n\n"
            f"{namespace_close}")


def generated_by(name):
    return f"Generated by autoplugin_add_triton_kernel from {name}.json: do not edit."


def namespace_lines(namespace):
    if not namespace:
        return "", ""
    return f"namespace {namespace} {{\n", f"}}  // namespace {namespace}\n"


def read_specializations(artefact, metadata):
    """[(metadata, cubin, ptx)] of the artefacts DIR/NAME.s<k> that `metadata` (of DIR/NAME)
    lists: the same kernel with more promises (divisibility, parameters compiled for a value)."""
    stems = metadata.get("specializations", [])
    if not isinstance(stems, list):
        raise UsageError(f"{artefact}.json: specializations is not a list")
    result = []
    for k, stem in enumerate(stems):
        if stem != f"{Path(artefact).name}.s{k}":
            raise UsageError(f"{artefact}.json: specializations[{k}] is {stem!r}, not "
                             f"'{Path(artefact).name}.s{k}'")
        specialized = read_artefact(Path(artefact).parent / stem)
        same = (
            [(p["name"], p["type"]) for p in specialized[0]["parameters"]] ==
            [(p["name"], p["type"]) for p in metadata["parameters"]] and
            specialized[0]["constants"] == metadata["constants"] and
            not specialized[0].get("specializations"))
        if not same:
            raise UsageError(f"{Path(artefact).parent / stem}: not the kernel of {artefact} with "
                             "more promises (the files are from different "
                             "compilations: regenerate the artefact)")
        result.append(specialized)
    return result


def remove_variant_files(directory, name, keep):
    """Removes the files of variants NAME.<k> and specializations NAME[.<k>].s<j> that are not
    in `keep` (a family that shrank, a family that became a single artefact, a kernel no longer
    specialized)."""
    for path in Path(directory).glob(f"{glob_escape(name)}.*.*"):
        stem = path.name.rsplit(".", 1)[0]
        if re.fullmatch(re.escape(name) + r"(\.[0-9]+)?(\.s[0-9]+)?", stem) and stem not in keep:
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
    for stem in list(stems):
        specialized, _ = read_manifest(source.parent / stem)
        stems = list(specialized.get("specializations", [])) + stems
    target = Path(to)
    target.mkdir(parents=True, exist_ok=True)
    remove_variant_files(target, source.name, keep=stems)
    for stem in stems:
        for extension in ("cubin", "ptx", "json"):
            path = source.parent / f"{stem}.{extension}"
            if path.exists():
                shutil.copyfile(path, target / path.name)
