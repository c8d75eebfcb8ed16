"""Write the generated CMake project of one op: C++ source, CMakeLists.txt, cases.json.

The C++ is meant to be read and kept: a header comment says what it was generated from, the shape
function states each requirement with the guard it came from, and every kernel argument is
annotated with the kernel parameter it fills.
"""
import hashlib
import json
import re
import shutil
from pathlib import Path

from . import kernel_variants
from .fitting import output_name
from .sympy_to_dim import DimTranslator

CPP_ELEMENT = {"*fp32": "float", "*fp16": "__half", "*bf16": "__nv_bfloat16", "*i8": "std::int8_t",
               "*i32": "std::int32_t", "*i64": "std::int64_t"}
DTYPE_ELEMENT = {"float32": "float", "float16": "__half", "bfloat16": "__nv_bfloat16"}
DTYPE_SHORT = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}
ATTRIBUTE_TYPES = {"int": "std::int64_t", "float": "double", "bool": "bool",
                   "str": "std::string_view", "int[]": "std::span<const std::int64_t>",
                   "float[]": "std::span<const double>", "bool[]": "std::span<const bool>"}


def _structure_condition(op, example, access):
    """C++ condition selecting a structure: each tensor's rank, each list's length and each
    string attribute's value (strings are not sampled: they may change what the host code
    does)."""
    parts = []
    for argument in op.arguments:
        if argument.kind == "Tensor":
            parts.append(f"{access(argument.name)}rank() == {len(example[argument.name])}")
        elif argument.kind.endswith("[]"):
            parts.append(f"{argument.name}.size() == {len(example[argument.name])}")
        elif argument.kind == "str":
            parts.append(f"{argument.name} == {json.dumps(example[argument.name])}")
    return " && ".join(parts) or "true"


def _structure_text(op, example):
    parts = []
    for argument in op.arguments:
        if argument.kind == "Tensor":
            parts.append(f"{argument.name} of rank {len(example[argument.name])}")
        elif argument.kind.endswith("[]"):
            parts.append(f"{argument.name} of length {len(example[argument.name])}")
        elif argument.kind == "str":
            parts.append(f"{argument.name} = '{example[argument.name]}'")
    return ", ".join(parts) or "every input"


def _kernel_target(op, structures, launch, dtype):
    """The kernel's CMake target and header name for one dtype: one per compiled variant (a
    kernel launched with other constexprs, scalar types or warps in another structure is another
    variant, `_v2`, ...)."""
    def settings(other):
        return (other.signature(dtype), other.num_warps, other.num_stages,
                tuple(_variants(other)))

    variants = []
    for structure in structures:
        for other in structure.launches:
            if other.kernel_name == launch.kernel_name and settings(other) not in variants:
                variants.append(settings(other))
    index = variants.index(settings(launch))
    suffix = "" if index == 0 else f"_v{index + 1}"
    return f"{op.name}_{launch.kernel_name}_{DTYPE_SHORT[dtype]}{suffix}"


def _variants(launch):
    """autoplugin_add_triton_kernel's VARIANTS for a launch whose constexprs change (none for
    one compiled kernel)."""
    return launch.family.variants(launch.num_warps, launch.num_stages) if launch.family else []


def shape_function(op, structures):
    name = f"{op.name}_shape"
    parameters = []
    for argument in op.arguments:
        cpp_type = "ap::Shape" if argument.kind == "Tensor" else ATTRIBUTE_TYPES[argument.kind]
        parameters.append(f"{cpp_type} {argument.name}")
    returns = ("ap::Shape" if op.num_outputs == 1 else
               f"std::array<ap::Shape, {op.num_outputs}>")
    lines = []
    for structure in structures:
        traced = structure.traced
        names, display = {}, {}
        locals_needed = []
        for symbol, ref in traced.symbols.items():
            names[symbol] = ref.cpp()
            display[symbol] = (f"{ref.name}[{ref.index}]" if ref.index is not None else ref.name)
        used = set()
        for shape in traced.outputs:
            for extent in shape:
                used |= extent.free_symbols
        for condition in traced.requires:
            used |= condition.free_symbols
        for symbol, ref in sorted(traced.symbols.items(), key=lambda item: item[1].cpp()):
            if ref.kind == "attr" and symbol in used:
                source = ref.name if ref.index is None else f"{ref.name}[{ref.index}]"
                target = ref.cpp() if ref.index is not None else f"{ref.name}_dim"
                names[symbol] = target
                locals_needed.append(f"const ap::Dim {target} = {source};")
        translate = DimTranslator(names)
        show = DimTranslator(display)
        lines.append(f"  if ({_structure_condition(op, structure.example, lambda n: n + '.')}) {{")
        lines += [f"    {line}" for line in locals_needed]
        for condition in traced.requires:
            lines.append(f"    ap::require({translate.condition(condition)},")
            lines.append(f"                \"{show.condition(condition)} (a guard of the fake "
                         "implementation)\");")
        for condition, message in kernel_variants.requirements(structure.launches):
            lines.append(f"    ap::require({condition},")
            lines.append(f"                \"{message}\");")
        shapes = ["ap::Shape{" + ", ".join(translate.dim(d) for d in shape) + "}"
                  for shape in traced.outputs]
        if op.num_outputs == 1:
            lines.append(f"    return {shapes[0]};")
        else:
            lines.append(f"    return {{{', '.join(shapes)}}};")
        lines.append("  }")
    generated_for = " or ".join(f"({_structure_text(op, s.example)})" for s in structures)
    lines.append("  throw ap::ShapeError(")
    lines.append(f"      \"{op.qualname} was generated for {generated_for}; \"")
    lines.append("      \"regenerate with an --example for other ranks, lengths or strings\");")
    lines.append("}")
    return "\n".join([_signature(f"{returns} {name}", _unused_unnamed(parameters, lines))] + lines)


def _signature(start, parameters):
    """`start(parameters) {`, wrapped at 100 columns with the parameters aligned."""
    line = f"{start}({', '.join(parameters)}) {{"
    if len(line) <= 100:
        return line
    indent = " " * (len(start) + 1)
    return f"{start}(" + (",\n" + indent).join(parameters) + ") {"


def _unused_unnamed(parameters, body):
    """Parameters the body does not use keep their name as a comment (no unused warnings)."""
    text = "\n".join(body)
    named = []
    for parameter in parameters:
        cpp_type, _, name = parameter.rpartition(" ")
        used = re.search(rf"(?<![\w.]){re.escape(name)}\b", text) is not None
        named.append(parameter if used else f"{cpp_type} /*{name}*/")
    return named


def _element_types(op, structures, dtype):
    """C++ element type of each tensor (inputs by name, outputs by index) for one dtype."""
    types = {}
    for structure in structures:
        for launch in structure.launches:
            for argument in launch.arguments:
                if argument.kind in ("input", "output"):
                    types[argument.cpp] = CPP_ELEMENT[argument.pointer_types[dtype]]
    return types


def _argument_text(argument):
    if argument.kind in ("input", "output"):
        return f"{argument.cpp}.data()"
    if argument.triton_type == "i32":
        if argument.cpp.lstrip("-").isdigit():
            return f"std::int32_t{{{argument.cpp}}}"
        return f"checked_i32({argument.cpp}, \"{argument.name}\")"
    if argument.triton_type == "i1":
        return f"static_cast<bool>({argument.cpp})"
    return argument.cpp


def launcher_name(op, dtype, config=None):
    """One launcher per dtype, and per autotune config (the op's tactics)."""
    return f"{op.name}_{dtype}" + ("" if config is None else f"_config{config}")


def launcher(op, structures, dtype, config=None):
    element = DTYPE_ELEMENT[dtype]
    types = _element_types(op, structures, dtype)
    parameters = []
    for argument in op.arguments:
        if argument.kind == "Tensor":
            parameters.append(f"ap::In<{types.get(argument.name, element)}> {argument.name}")
        else:
            parameters.append(f"{ATTRIBUTE_TYPES[argument.kind]} {argument.name}")
    for index in range(op.num_outputs):
        name = output_name(op, index)
        parameters.append(f"ap::Out<{types.get(name, element)}> {name}")
    parameters.append("ap::Stream stream")
    lines = []
    for structure in structures:
        lines.append(f"  if ({_structure_condition(op, structure.example, lambda n: n + '.')}) {{")
        for position, launch in enumerate(structure.launches):
            if launch.config and launch.config.index != config:
                continue
            kernel = _kernel_target(op, structures, launch, dtype)
            lines.append(f"    // {launch.where}: {launch.line}")
            if launch.config:
                lines.append(f"    // @triton.autotune config {launch.config.index}: "
                             f"{launch.config.text}")
            grid = ", ".join(launch.grid)
            lines.append(f"    {kernel}::launch(")
            if launch.varying:
                # The family's variant for the constexprs the host code computes here.
                keys = ", ".join(v.cpp for v in launch.varying)
                lines.append(f"        {kernel}::select({keys}),")
            lines.append(f"        ap::triton::make_grid({grid}), stream,")
            runtime = [a for a in launch.arguments if a.kind != "constexpr"]
            width = max(len(a.name) for a in runtime)
            for k, argument in enumerate(runtime):
                end = ");" if k == len(runtime) - 1 else ","
                label = f"/* {argument.name:<{width}} */"
                lines.append(f"        {label} {_argument_text(argument)}{end}")
        lines.append("    return;")
        lines.append("  }")
    lines.append(f"  throw ap::Error(\"{op.qualname}: no launch generated for these ranks or "
                 "lengths\");")
    lines.append("}")
    header = _signature(f"void {launcher_name(op, dtype, config)}",
                        _unused_unnamed(parameters, lines))
    return "\n".join([header] + lines)


def _uses_floor_div(structures):
    return any("floor_div(" in text and "ap::floor_div(" not in text
               for s in structures for launch in s.launches
               for text in launch.grid + [a.cpp for a in launch.arguments])


def cpp_source(op, structures, dtypes, provenance):
    kernels = sorted({_kernel_target(op, structures, launch, dtype) for s in structures
                      for launch in s.launches for dtype in dtypes})
    out = [f"// {op.qualname}: a TensorRT plugin generated by `python3 -m autoplugin.from_torch`"]
    out += [f"// {line}" for line in provenance]
    out += [
        "//",
        "// The launchers replay the op's host code with each kernel argument computed from the",
        "// shapes and attributes (recovered from the host code run at sampled sizes, checked on",
        "// others); the shape function is the fake implementation traced with symbolic sizes.",
        "// This file is ordinary autoplugin C++: it may be kept and edited.",
        "#include <autoplugin/autoplugin.h>",
        "#include <autoplugin/triton.h>",
        "",
        "#include <algorithm>",
        "#include <array>",
        "#include <cstdint>",
        "#include <limits>",
        "#include <span>",
        "#include <string>",
        "",
    ]
    out += [f"#include \"triton_kernels/{k}.h\"" for k in kernels]
    out += ["", "namespace ap = autoplugin;", "", "namespace {", "",
            "// The host code passes this argument as a 32-bit integer: refused, never truncated.",
            "std::int32_t checked_i32(std::int64_t value, const char* argument) {",
            "  if (value < std::numeric_limits<std::int32_t>::min() ||",
            "      value > std::numeric_limits<std::int32_t>::max()) {",
            f"    throw ap::Error(\"{op.qualname}: kernel argument \" + std::string(argument) +",
            "                    \" = \" + std::to_string(value) +",
            "                    \" does not fit the kernel's int32 parameter\");",
            "  }",
            "  return static_cast<std::int32_t>(value);",
            "}", ""]
    if _uses_floor_div(structures):
        out += ["// Python's //: rounds toward negative infinity.",
                "std::int64_t floor_div(std::int64_t a, std::int64_t b) {",
                "  const std::int64_t q = a / b;",
                "  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;",
                "}", ""]
    out += ["}  // namespace", ""]
    out.append("// Output shapes: the fake implementation, traced with symbolic sizes and "
               "attributes.")
    out.append(shape_function(op, structures))
    out.append("")
    configs = kernel_variants.tactic_configs(structures)
    if configs == [None]:
        out.append("// Launchers, one per dtype, each with its own kernel compiled ahead of time.")
    else:
        out.append("// Launchers, one per dtype and @triton.autotune config, each with its own "
                   "kernel compiled")
        out.append("// ahead of time: the configs of a dtype are tactics, which TensorRT times.")
    for dtype in dtypes:
        for config in configs:
            out.append(launcher(op, structures, dtype, config))
            out.append("")
    launchers = ", ".join(launcher_name(op, dtype, config) for dtype in dtypes
                          for config in configs)
    out.append(f"AUTOPLUGIN_OP(\"{op.schema}\",")
    out.append(f"              {op.name}_shape, {launchers});")
    return "\n".join(out) + "\n"


def cmake_lists(op, structures, dtypes, kernel_file_name, arch):
    lines = [
        f"# {op.qualname}: generated by `python3 -m autoplugin.from_torch` from "
        f"{kernel_file_name}.",
        "# Configure with CMAKE_PREFIX_PATH pointing to an installed autoplugin (built with",
        "# TensorRT headers and the CUDA toolkit); Python with triton compiles the kernels ahead",
        "# of time.",
        "cmake_minimum_required(VERSION 3.25)",
        f"project({op.name}_plugin LANGUAGES CXX)",
        "set(CMAKE_CXX_STANDARD 20)",
        "set(CMAKE_CXX_STANDARD_REQUIRED ON)",
        "find_package(autoplugin REQUIRED)",
        f"set({op.name.upper()}_ARCH {arch} CACHE STRING "
        "\"GPU architecture the kernels are compiled for\")",
        "",
    ]
    targets = []
    seen = set()
    for structure in structures:
        for launch in structure.launches:
            for dtype in dtypes:
                target = _kernel_target(op, structures, launch, dtype)
                signature = launch.signature(dtype)
                if target in seen:
                    continue
                seen.add(target)
                targets.append(target)
                lines += [
                    f"autoplugin_add_triton_kernel({target}",
                    f"  SOURCE {kernel_file_name} KERNEL {launch.kernel_name}",
                    f"  # {', '.join(a.name for a in launch.arguments)}",
                    f"  SIGNATURE \"{signature}\"",
                ]
                variants = _variants(launch)
                if variants:
                    lines.append("  VARIANTS")
                    lines += [f"    \"{variant}\"" for variant in variants]
                lines.append(f"  NUM_WARPS {launch.num_warps} NUM_STAGES {launch.num_stages} "
                             f"ARCH ${{{op.name.upper()}_ARCH}})")
    lines += ["", f"autoplugin_add_library({op.name}_plugin SOURCES {op.name}.cpp)",
              f"target_link_libraries({op.name}_plugin PRIVATE {' '.join(targets)})", ""]
    return "\n".join(lines)


def _case_value(argument, value):
    return list(value) if isinstance(value, (list, tuple)) else value


def _profile(op, structure, tensors):
    """Per tensor, the min and max shapes of a dynamic case: each extent halved and doubled
    where the shape function's requirements still hold."""
    from .shapes import _values
    example = structure.example
    lows = {t.name: list(example[t.name]) for t in tensors}
    highs = {t.name: list(example[t.name]) for t in tensors}

    def holds(point):
        values = _values(structure.traced.symbols, point)
        return (all(bool(r.xreplace(values)) for r in structure.traced.requires) and
                kernel_variants.within_limits(structure.launches, point))

    for bound, change in ((lows, lambda e: max(1, e // 2)), (highs, lambda e: 2 * e)):
        for t in tensors:
            for axis, extent in enumerate(example[t.name]):
                trial = dict(example)
                trial[t.name] = list(bound[t.name])
                trial[t.name][axis] = change(extent)
                if holds(trial):
                    bound[t.name][axis] = change(extent)
    return lows, highs


def cases(op, structures, dtypes):
    from .shapes import evaluate_shapes, _values
    result = []
    for structure in structures:
        example = structure.example
        values = _values(structure.traced.symbols, example)
        expected = [list(s) for s in evaluate_shapes(structure.traced.outputs, values)]
        attributes = {a.name: _case_value(a, example[a.name]) for a in op.attributes}
        tensors = [a for a in op.arguments if a.kind == "Tensor"]
        lows, highs = _profile(op, structure, tensors)
        tag = "_".join(str(len(example[a.name])) for a in op.arguments
                       if a.kind == "Tensor" or a.kind.endswith("[]"))
        for dtype in dtypes:
            result.append({"name": f"{DTYPE_SHORT[dtype]}_static_{tag}",
                           "inputs": [{"dtype": dtype, "shape": example[t.name]} for t in tensors],
                           "attributes": attributes, "expect_shapes": expected})
            dynamic = [{"dtype": dtype, "min": lows[t.name], "opt": example[t.name],
                        "max": highs[t.name]} for t in tensors]
            result.append({"name": f"{DTYPE_SHORT[dtype]}_dynamic_{tag}", "inputs": dynamic,
                           "attributes": attributes, "expect_shapes": expected})
    return {"op": op.qualname, "cases": result}


def write_project(op, structures, dtypes, out_dir, provenance, arch):
    directory = Path(out_dir) / op.name
    directory.mkdir(parents=True, exist_ok=True)
    kernel_files = {launch.kernel_file for s in structures for launch in s.launches}
    if len(kernel_files) != 1:
        raise ValueError(f"op '{op.qualname}': kernels from several files ({kernel_files}) are "
                         "not generated")
    kernel_file = kernel_files.pop()
    shutil.copyfile(kernel_file, directory / kernel_file.name)
    (directory / f"{op.name}.cpp").write_text(cpp_source(op, structures, dtypes, provenance))
    (directory / "CMakeLists.txt").write_text(
        cmake_lists(op, structures, dtypes, kernel_file.name, arch))
    case_file = json.dumps(cases(op, structures, dtypes), indent=1) + "\n"
    (directory / "cases.json").write_text(case_file)
    return directory


def file_digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
