"""Write the generated CMake project of one op: C++ source, CMakeLists.txt, cases.json.

The C++ is meant to be read and kept: a header comment says what it was generated from, the shape
function states each requirement with the guard it came from, and every kernel argument is
annotated with the kernel parameter it fills.
"""
import concurrent.futures
import hashlib
import json
import os
import re
from pathlib import Path

import sympy

from . import kernel_variants
from .aot_tool import triton_aot_script
from .errors import GenerationError
from .fitting import Environment, output_name, point_atoms
from .kernel_source import kernel_file_text
from .records import shape_numel
from .shapes import (allowed_values, copy_point, evaluate_shapes, holds as requirement_holds,
                     point_values, set_text, tie, tied_extents)
from .sympy_to_dim import DimTranslator


CPP_ELEMENT = {"*fp32": "float", "*fp16": "__half", "*bf16": "__nv_bfloat16", "*fp64": "double",
               "*i8": "std::int8_t", "*i16": "std::int16_t", "*i32": "std::int32_t",
               "*i64": "std::int64_t", "*u8": "std::uint8_t",
               "*fp8e4nv": "std::int8_t", "*fp8e5": "std::int8_t"}  # (float8: its bytes, as int8)
# Each scratch buffer starts at a multiple of this many bytes of the workspace.
SCRATCH_ALIGNMENT = 256
DTYPE_ELEMENT = {"float32": "float", "float16": "__half", "bfloat16": "__nv_bfloat16"}
# An input's own dtype (`labels=int64[...]` in an example).
FIXED_ELEMENT = dict(DTYPE_ELEMENT, int8="std::int8_t", int32="std::int32_t",
                     int64="std::int64_t", uint8="std::uint8_t", bool="bool")
DTYPE_SHORT = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}
ATTRIBUTE_TYPES = {"int": "std::int64_t", "float": "double", "bool": "bool",
                   "str": "std::string_view", "int[]": "std::span<const std::int64_t>",
                   "float[]": "std::span<const double>", "bool[]": "std::span<const bool>"}


def attribute_type(argument):
    """The C++ type a launcher and the shape function take an attribute as."""
    cpp = ATTRIBUTE_TYPES[argument.kind]
    return f"std::optional<{cpp}>" if argument.optional else cpp


def _structure_condition(op, example, in_shape_function):
    """C++ condition selecting a structure: each tensor's rank (and whether a `Tensor?` is
    present), each list's length and each string attribute's value (strings are not sampled:
    they may change what the host code does)."""
    parts = []
    for argument in op.arguments:
        if argument.kind == "Tensor" and argument.optional:
            present = f"{argument.name}.has_value()" if in_shape_function else \
                f"{argument.name}.present()"
            if example[argument.name] is None:
                parts.append(f"!{present}")
            else:
                access = "->" if in_shape_function else "."
                parts.append(f"{present} && {argument.name}{access}rank() == "
                             f"{len(example[argument.name])}")
        elif argument.kind == "Tensor":
            parts.append(f"{argument.name}.rank() == {len(example[argument.name])}")
        elif argument.kind.endswith("[]"):
            parts.append(f"{argument.name}.size() == {len(example[argument.name])}")
            if argument.structural:
                parts += [f"{argument.name}[{k}] == {v}"
                          for k, v in enumerate(example[argument.name])]
        elif argument.kind == "str" and argument.optional:
            value = example[argument.name]
            parts.append(f"!{argument.name}.has_value()" if value is None else
                         f"{argument.name}.has_value() && *{argument.name} == {json.dumps(value)}")
        elif argument.kind == "str":
            parts.append(f"{argument.name} == {json.dumps(example[argument.name])}")
        elif argument.optional and example[argument.name] is None:
            parts.append(f"!{argument.name}.has_value()")
        elif argument.optional:
            parts.append(f"{argument.name}.has_value()")
            if argument.structural:
                parts.append(f"*{argument.name} == {example[argument.name]}")
        elif argument.structural and argument.kind == "bool":
            parts.append(argument.name if example[argument.name] else f"!{argument.name}")
        elif argument.structural:
            parts.append(f"{argument.name} == {example[argument.name]}")
    return " && ".join(parts) or "true"


def _structure_text(op, example):
    parts = []
    for argument in op.arguments:
        if argument.kind == "Tensor" and example[argument.name] is None:
            parts.append(f"{argument.name} absent")
        elif example[argument.name] is None:
            parts.append(f"{argument.name} = None")
        elif argument.kind == "str":
            parts.append(f"{argument.name} = '{example[argument.name]}'")
        elif argument.kind != "Tensor" and argument.optional and not argument.structural:
            parts.append(f"{argument.name} given")
        elif argument.kind == "Tensor":
            parts.append(f"{argument.name} of rank {len(example[argument.name])}")
        elif argument.kind.endswith("[]") and argument.structural:
            parts.append(f"{argument.name} = {example[argument.name]}")
        elif argument.kind.endswith("[]"):
            parts.append(f"{argument.name} of length {len(example[argument.name])}")
        elif argument.structural:
            parts.append(f"{argument.name} = {example[argument.name]}")
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


def _shape_parameters(op):
    """The shape function's (and the workspace function's) parameters."""
    parameters = []
    for argument in op.arguments:
        if argument.kind == "Tensor":
            cpp_type = "std::optional<ap::Shape>" if argument.optional else "ap::Shape"
        else:
            cpp_type = attribute_type(argument)
        parameters.append(f"{cpp_type} {argument.name}")
    return parameters


def _symbol_names(traced, used):
    """(C++ names, names as shown in messages, local declarations) of the traced symbols: an
    integer attribute the expressions use becomes an ap::Dim local."""
    names, display = {}, {}
    locals_needed = []
    for symbol, ref in traced.symbols.items():
        names[symbol] = ref.cpp()
        display[symbol] = (f"{ref.name}[{ref.index}]" if ref.index is not None else ref.name)
    for symbol, ref in sorted(traced.symbols.items(), key=lambda item: item[1].cpp()):
        if ref.kind == "attr" and symbol in used:
            source = ref.name if ref.index is None else f"{ref.name}[{ref.index}]"
            target = ref.cpp() if ref.index is not None else f"{ref.name}_dim"
            names[symbol] = target
            locals_needed.append(f"const ap::Dim {target} = {source};")
    return names, display, locals_needed


def _not_generated_for(op, structures):
    generated_for = " or ".join(f"({_structure_text(op, s.example)})" for s in structures)
    values = [a.name for a in op.attributes if a.structural and a.kind != "bool"]
    other = "ranks, lengths or strings" if not values else \
        f"ranks, lengths, strings or values of {', '.join(values)}"
    return ["  throw ap::ShapeError(",
            f"      \"{op.qualname} was generated for {generated_for}; \"",
            f"      \"regenerate with an --example for other {other}\");", "}"]


def shape_function(op, structures):
    name = f"{op.name}_shape"
    parameters = _shape_parameters(op)
    returns = ("ap::Shape" if op.num_outputs == 1 else
               f"std::array<ap::Shape, {op.num_outputs}>")
    lines = []
    for structure in structures:
        traced = structure.traced
        used = set()
        for shape in traced.outputs:
            for extent in shape:
                used |= extent.free_symbols
        for condition in traced.requires:
            used |= condition.free_symbols
        names, display, locals_needed = _symbol_names(traced, used)
        translate = DimTranslator(names)
        show = DimTranslator(display)
        lines.append(f"  if ({_structure_condition(op, structure.example, True)}) {{")
        lines += [f"    {line}" for line in locals_needed]
        required = set()
        for condition in traced.requires:
            required.add(translate.condition(condition))
            lines.append(f"    ap::require({translate.condition(condition)},")
            allowed = allowed_values(condition)
            shown = (set_text(show.dim(allowed[0]), allowed[1]) if allowed else
                     show.condition(condition))
            message = f"{shown} ({traced.reason(condition)})"
            lines.append(f"                {json.dumps(message)});")
        # A family's range that a set of sizes already bounds (`q[3] in {16, ..., 128}`)
        for allowed in filter(None, map(allowed_values, traced.requires)):
            ref = traced.symbols.get(allowed[0])
            if ref is not None:  # as the family writes it: `x[2]`, `group_size`
                bounded = ref.name if ref.kind != "extent" else f"{ref.name}[{ref.index}]"
                required.add(f"{bounded} <= {max(allowed[1])}")
        for condition, message in kernel_variants.requirements(structure.launches):
            if condition in required:  # the fake requires it already
                continue
            lines.append(f"    ap::require({condition},")
            lines.append(f"                \"{message}\");")
        shapes = ["ap::Shape{" + ", ".join(translate.dim(d) for d in shape) + "}"
                  for shape in traced.outputs]
        if op.num_outputs == 1:
            lines.append(f"    return {shapes[0]};")
        else:
            lines.append(f"    return {{{', '.join(shapes)}}};")
        lines.append("  }")
    lines += _not_generated_for(op, structures)
    return "\n".join([_signature(f"{returns} {name}", _unused_unnamed(parameters, lines))] + lines)


class _Extents:
    """A tensor's extents as sympy expressions, read the way a launcher reads them."""

    def __init__(self, extents):
        self.extents = list(extents)

    def size(self, axis):
        return self.extents[axis]

    def numel(self):
        return sympy.Mul(*self.extents)

    def stride(self, axis):
        return sympy.Mul(*self.extents[axis + 1:])


def _launcher_text_as_sympy(op, traced, text):
    """A recovered launcher expression (`ap::triton::cdiv(x.size(0), 4)`, `x.numel()`, ...) over
    the traced symbols, for a function of the shapes."""
    namespace = {"_cdiv": lambda a, b: sympy.ceiling(sympy.sympify(a) / sympy.sympify(b)),
                 "_floor_div": lambda a, b: sympy.floor(sympy.sympify(a) / sympy.sympify(b)),
                 "_min": sympy.Min, "_max": sympy.Max}
    extents, elements = {}, {}
    for symbol, ref in traced.symbols.items():
        if ref.kind == "extent":
            extents.setdefault(ref.name, {})[ref.index] = symbol
        elif ref.index is None:
            namespace[ref.name] = symbol
        else:
            elements.setdefault(ref.name, {})[ref.index] = symbol
    for name, axes in extents.items():
        namespace[name] = _Extents(axes[axis] for axis in sorted(axes))
    for name, indexed in elements.items():
        namespace[name] = [indexed[k] for k in sorted(indexed)]
    for index, shape in enumerate(traced.outputs):
        namespace[output_name(op, index)] = _Extents(shape)
    python = re.sub(r"ap::triton::cdiv\(", "_cdiv(", text)
    python = re.sub(r"(?<![\w:])floor_div\(", "_floor_div(", python)
    python = re.sub(r"std::(min|max)(<std::int64_t>)?\(", r"_\1(", python)
    return sympy.sympify(eval(python, {"__builtins__": {}}, namespace))


def _uses_workspace(structures):
    return any(structure.scratch for structure in structures)


def workspace_function(op, structures):
    """The bytes of the host code's scratch buffers, each aligned, for the largest shapes of a
    profile (TensorRT sizes the workspace with it)."""
    lines = []
    for structure in structures:
        traced = structure.traced
        sizes = [sympy.ceiling(_launcher_text_as_sympy(op, traced, buffer.numel)
                               * buffer.element_bytes / SCRATCH_ALIGNMENT) * SCRATCH_ALIGNMENT
                 for buffer in structure.scratch]
        used = set().union(*(size.free_symbols for size in sizes))
        names, _, locals_needed = _symbol_names(traced, used)
        translate = DimTranslator(names)
        lines.append(f"  if ({_structure_condition(op, structure.example, True)}) {{")
        lines += [f"    {line}" for line in locals_needed]
        for buffer in structure.scratch:
            lines.append(f"    // {buffer.where}: {buffer.line}")
        total = " + ".join(translate.dim(size) for size in sizes) or "0"
        lines.append(f"    return ap::Dim({total});" if not sizes else f"    return {total};")
        lines.append("  }")
    lines += _not_generated_for(op, structures)
    parameters = _shape_parameters(op)
    return "\n".join([_signature(f"ap::Dim {op.name}_workspace",
                                  _unused_unnamed(parameters, lines))] + lines)


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
                    types[argument.cpp] = CPP_ELEMENT[argument.tensor_types[dtype]]
    return types


def _argument_text(argument, dtype):
    if argument.kind in ("input", "output"):
        address = f"{argument.cpp}.data()"
        if CPP_ELEMENT[argument.pointer_types[dtype]] != CPP_ELEMENT[argument.tensor_types[dtype]]:
            # a view in another dtype (`x.view(torch.int32)`): the same address, read so
            constant = "const " if argument.kind == "input" else ""
            address = (f"reinterpret_cast<{constant}{CPP_ELEMENT[argument.pointer_types[dtype]]}*>"
                       f"({address})")
        if argument.offset:
            return f"{address} + {_parenthesized(argument.offset)}"
        return address
    if argument.kind == "workspace":
        element = CPP_ELEMENT[argument.pointer_types[dtype]]
        return f"reinterpret_cast<{element}*>(scratch + scratch{argument.cpp}_offset)"
    if argument.triton_type == "i32":
        if argument.cpp.lstrip("-").isdigit():
            return f"std::int32_t{{{argument.cpp}}}"
        return f"checked_i32({argument.cpp}, \"{argument.name}\")"
    if argument.triton_type == "i1":
        return f"static_cast<bool>({argument.cpp})"
    return argument.cpp


def _parenthesized(expression):
    return expression if re.fullmatch(r"[\w.()]+", expression) else f"({expression})"


def launcher_name(op, dtype, config=None):
    """One launcher per dtype, and per autotune config (the op's tactics)."""
    return f"{op.name}_{dtype}" + ("" if config is None else f"_config{config}")


def launcher(op, structures, dtype, config=None):
    element = DTYPE_ELEMENT[dtype]
    types = _element_types(op, structures, dtype)
    parameters = []
    for argument in op.arguments:
        if argument.kind == "Tensor":
            view = "ap::OptIn" if argument.optional else "ap::In"
            own = FIXED_ELEMENT.get(argument.dtype)
            parameters.append(f"{view}<{types.get(argument.name, own or element)}> "
                              f"{argument.name}")
        else:
            parameters.append(f"{attribute_type(argument)} {argument.name}")
    for index in range(op.num_outputs):
        name = output_name(op, index)
        parameters.append(f"ap::Out<{types.get(name, element)}> {name}")
    if _uses_workspace(structures):
        parameters.append("ap::Workspace workspace")
    parameters.append("ap::Stream stream")
    lines = []
    for index, argument in enumerate(op.mutated):
        out = output_name(op, index)
        lines += [
            f"  // In place: TensorRT passes {argument.name}'s memory as {out}; where it does not,",
            f"  // {out} starts as a copy of {argument.name}.",
            f"  if ({out}.data() != {argument.name}.data()) {{",
            f"    check_cuda(cudaMemcpyAsync({out}.data(), {argument.name}.data(),",
            f"                               {argument.name}.numel() * sizeof(*{out}.data()),",
            "                               cudaMemcpyDeviceToDevice, stream),",
            f"               \"copying {argument.name} into {out}\");",
            "  }"]
    for structure in structures:
        lines.append(f"  if ({_structure_condition(op, structure.example, False)}) {{")
        if structure.scratch:
            lines.append("    // The host code's scratch buffers, in the workspace (each "
                         f"{SCRATCH_ALIGNMENT}-byte aligned).")
            lines.append("    char* const scratch = static_cast<char*>(workspace.data);")
            for index, buffer in enumerate(structure.scratch):
                start = "0" if index == 0 else \
                    f"scratch{index - 1}_offset + scratch_bytes({structure.scratch[index - 1].numel}, " \
                    f"{structure.scratch[index - 1].element_bytes})"
                lines.append(f"    // {buffer.where}: {buffer.line}")
                lines.append(f"    const std::int64_t scratch{index}_offset = {start};")
                if buffer.zeroed:
                    lines.append(f"    check_cuda(cudaMemsetAsync(scratch + scratch{index}_offset, "
                                 f"0, scratch_bytes({buffer.numel}, {buffer.element_bytes}), "
                                 "stream),")
                    lines.append(f"               \"clearing scratch buffer {index}\");")
        for index, source in structure.copied_outputs:
            out = output_name(op, index)
            lines.append(f"    // The host code starts {out} as a copy of {source} (its kernels "
                         "update it): copied first.")
            lines.append(f"    check_cuda(cudaMemcpyAsync({out}.data(), {source}.data(), "
                         f"{source}.numel() * sizeof(*{out}.data()),")
            lines.append("                               cudaMemcpyDeviceToDevice, stream),")
            lines.append(f"               \"copying {source} into {out}\");")
        for index in structure.zeroed_outputs:
            out = output_name(op, index)
            lines.append(f"    // The host code allocates {out} with zeros (its kernels add into "
                         "it): cleared first.")
            lines.append(f"    check_cuda(cudaMemsetAsync({out}.data(), 0, {out}.numel() * "
                         f"sizeof(*{out}.data()), stream),")
            lines.append(f"               \"clearing {out}\");")
        if config is not None:
            # A config whose kernel needs more shared memory than this GPU has (Triton's
            # autotuner prunes it) hands the launch to another config.
            for launch in structure.launches:
                if launch.config and launch.config.index == config:
                    kernel = _kernel_target(op, structures, launch, dtype)
                    image = (f"{kernel}::image({kernel}::select("
                             f"{', '.join(v.cpp for v in launch.varying)}))"
                             if launch.varying else f"{kernel}::image()")
                    lines.append(f"    if (!ap::triton::fits_device({image}, stream)) "
                                 "return ap::Launch::NotApplicable;")
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
                lines.append(f"        {label} {_argument_text(argument, dtype)}{end}")
        lines.append("    return ap::Launch::Launched;" if config is not None else "    return;")
        lines.append("  }")
    lines.append(f"  throw ap::Error(\"{op.qualname}: no launch generated for these ranks or "
                 "lengths\");")
    lines.append("}")
    returned = "ap::Launch" if config is not None else "void"
    header = _signature(f"{returned} {launcher_name(op, dtype, config)}",
                        _unused_unnamed(parameters, lines))
    return "\n".join([header] + lines)


def _uses_floor_div(structures):
    return any("floor_div(" in text and "ap::floor_div(" not in text
               for s in structures
               for text in [b.numel for b in s.scratch] + [t for launch in s.launches
                                                         for t in launch.grid
                                                         + [a.cpp for a in launch.arguments]])


def needs_cuda_runtime(op, structures):
    """In-place copies, outputs copied from inputs and cleared scratch buffers and outputs call
    the CUDA runtime."""
    return bool(op.mutated) or any(b.zeroed for s in structures for b in s.scratch) or \
        any(s.zeroed_outputs or s.copied_outputs for s in structures)


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
    ]
    if any("std::sqrt" in a.cpp for s in structures for launch in s.launches
           for a in launch.arguments):
        out.append("#include <cmath>")
    out += ["#include <cstdint>", "#include <limits>"]
    if any(a.optional for a in op.arguments):
        out.append("#include <optional>")
    out += ["#include <span>", "#include <string>", ""]
    if needs_cuda_runtime(op, structures):
        out += ["#include <cuda_runtime_api.h>", ""]
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
    if needs_cuda_runtime(op, structures):
        out += ["void check_cuda(cudaError_t status, const char* what) {",
                "  if (status != cudaSuccess) {",
                f"    throw ap::Error(std::string(\"{op.qualname}: \") + what + \": \" +",
                "                    cudaGetErrorString(status));",
                "  }",
                "}", ""]
    if _uses_workspace(structures):
        out += [f"// A scratch buffer's bytes in the workspace, rounded up to {SCRATCH_ALIGNMENT}.",
                "std::int64_t scratch_bytes(std::int64_t elements, std::int64_t element_bytes) {",
                f"  return ap::triton::cdiv(elements * element_bytes, {SCRATCH_ALIGNMENT}) * "
                f"{SCRATCH_ALIGNMENT};",
                "}", ""]
    if _uses_floor_div(structures):
        out += ["// Python's //: rounds toward negative infinity.",
                "std::int64_t floor_div(std::int64_t a, std::int64_t b) {",
                "  if (b == 0) {",
                "    throw ap::Error(\"a launch argument divides by a size or attribute that is 0\");",
                "  }",
                "  const std::int64_t q = a / b;",
                "  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;",
                "}", ""]
    out += ["}  // namespace", ""]
    out.append("// Output shapes: the fake implementation, traced with symbolic sizes and "
               "attributes.")
    out.append(shape_function(op, structures))
    out.append("")
    if _uses_workspace(structures):
        out.append("// Workspace: the scratch buffers the host code allocates.")
        out.append(workspace_function(op, structures))
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
    # A str default is quoted in the schema (`str activation=""`): escaped in the literal.
    schema = op.schema.replace("\\", "\\\\").replace('"', '\\"')
    out.append(f"AUTOPLUGIN_OP(\"{schema}\",")
    if _uses_workspace(structures):
        out.append(f"              {op.name}_shape, {launchers})")
        out.append(f"    .workspace({op.name}_workspace);")
    else:
        out.append(f"              {op.name}_shape, {launchers});")
    return "\n".join(out) + "\n"


def _size_integers(op, launch):
    """The launch's integer parameters computed from sizes, strides and element counts alone
    (no attribute: a seed or a group count is rarely a multiple of 16 where the sizes are), a
    stride or element count divided by an attribute (a group's stride, `C * H * W //
    num_groups`: still a product of the other extents), or constant multiples of 16; empty where
    that is every integer parameter or none (the builds SPECIALIZE makes already cover both)."""
    attributes = {a.name for a in op.arguments if a.kind != "Tensor" and "Tensor" not in a.kind}
    integers = [a for a in launch.arguments
                if a.kind == "scalar" and a.triton_type in ("i32", "i64")]
    per_group = re.compile(r"^floor_div\(\w+\.(stride\(\d+\)|numel\(\)), \w+\)$")
    sizes = []
    for argument in integers:
        text = argument.cpp.strip()
        names = set(re.findall(r"(?<![.\w])([A-Za-z_]\w*)", text)) - {"floor_div"}
        if text.isdigit():
            aligned = int(text) % 16 == 0
        elif per_group.match(text):
            aligned = True
        else:
            aligned = (not names & attributes and
                       any(f".{atom}(" in text for atom in ("size", "numel", "stride")))
        if aligned:
            sizes.append(argument.name)
    return sizes if 0 < len(sizes) < len(integers) else []


def _value_builds(op, structures, dtypes):
    """Kernel target -> the SPECIALIZE_VALUES entries ("a=1, b=2") of the launches compiled as
    it, in every structure (a target is shared by the structures that launch it alike)."""
    builds = {}
    for dtype in dtypes:
        for structure in structures:
            for launch in structure.launches:
                entries = builds.setdefault(_kernel_target(op, structures, launch, dtype), [])
                for values in launch.value_builds:
                    entry = ", ".join(f"{name}={value}" for name, value in values.items())
                    if entry not in entries:
                        entries.append(entry)
    return builds


def cmake_lists(op, structures, dtypes, kernel_file_names, arch):
    lines = [
        f"# {op.qualname}: generated by `python3 -m autoplugin.from_torch` from "
        f"{', '.join(kernel_file_names)}.",
        "# Configure with CMAKE_PREFIX_PATH pointing to an installed autoplugin (built with",
        "# TensorRT headers and the CUDA toolkit). Where Python has triton, the kernels are",
        "# compiled ahead of time in the build; elsewhere the artefacts in aot/ are used.",
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
    values_by_target = _value_builds(op, structures, dtypes)
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
                    f"  SOURCE {launch.kernel_file.name} KERNEL {launch.kernel_name}",
                    f"  # {', '.join(a.name for a in launch.arguments)}",
                    f"  SIGNATURE \"{signature}\"",
                ]
                variants = _variants(launch)
                if variants:
                    lines.append("  VARIANTS")
                    lines += [f"    \"{variant}\"" for variant in variants]
                # SPECIALIZE: also built for aligned addresses and sizes, as Triton's JIT
                # specializes the eager launch, so that the plugin's kernel is the same; with
                # the integers that hold sizes named, also where an attribute is not aligned.
                sizes = _size_integers(op, launch)
                values = values_by_target[target]
                lines.append(f"  NUM_WARPS {launch.num_warps} NUM_STAGES {launch.num_stages} "
                             f"ARCH ${{{op.name.upper()}_ARCH}} SPECIALIZE" +
                             (f" SPECIALIZE_INTEGERS {' '.join(sizes)}" if sizes else "") +
                             ("" if values else ")"))
                if values:
                    # The values the run-time constexprs have at the examples, compiled in as
                    # Triton's JIT compiles a constexpr's value.
                    lines.append("  SPECIALIZE_VALUES " +
                                 " ".join(f'"{entry}"' for entry in values) + ")")
    if needs_cuda_runtime(op, structures):
        targets.append("CUDA::cudart")
    lines += ["", f"autoplugin_add_library({op.name}_plugin SOURCES {op.name}.cpp)",
              f"target_link_libraries({op.name}_plugin PRIVATE {' '.join(targets)})", ""]
    return "\n".join(lines)


def _case_value(argument, value):
    return list(value) if isinstance(value, (list, tuple)) else value


def _holds(op, structure, point):
    """Whether the shape function's requirements and the families' ranges accept `point`."""
    values = point_values(structure.traced.symbols, point)
    return (all(requirement_holds(r, values) for r in structure.traced.requires) and
            kernel_variants.within_limits(op, structure.launches, point))


def _profile(op, structure, tensors):
    """Per tensor, the min and max shapes of a dynamic case: each extent halved and doubled
    where the shape function's requirements still hold."""
    example = structure.example
    lows = {t.name: list(example[t.name]) for t in tensors}
    highs = {t.name: list(example[t.name]) for t in tensors}

    def holds(point):
        return _holds(op, structure, point)

    for bound, change in ((lows, lambda e: max(1, e // 2)), (highs, lambda e: 2 * e)):
        for t in tensors:
            for axis, extent in enumerate(example[t.name]):
                if bound[t.name][axis] != extent:
                    continue  # changed with an extent tied to it
                trial = dict(example)
                trial[t.name] = list(bound[t.name])
                trial[t.name][axis] = change(extent)
                if holds(trial):
                    bound[t.name][axis] = change(extent)
                    continue
                # Extents the requirements tie to it (tokens of q, k and positions) change
                # with it, or not at all.
                tied = [(u.name, k) for u in tensors for k, e in enumerate(example[u.name])
                        if e == extent]
                trial = dict(example, **{u.name: list(bound[u.name]) for u in tensors})
                for name, k in tied:
                    trial[name][k] = change(extent)
                if len(tied) > 1 and holds(trial):
                    for name, k in tied:
                        bound[name][k] = change(extent)
    return lows, highs


# A case that runs a family's largest variant keeps its inputs below this many elements.
LARGEST_VARIANT_ELEMENTS = 1 << 23


def _largest_variant_point(op, structure, tensors):
    """The example with one extent grown (and the extents tied to it) so that each family's
    driving size reaches its largest variant: the kernels the example's small sizes never run
    (their most warps, their widest blocks), checked too. None where no extent does it within
    the requirements and LARGEST_VARIANT_ELEMENTS."""
    example = structure.example
    families = [v for launch in structure.launches for v in getattr(launch, "varying", [])
                if v.bounded and v.size_of is not None and v.limit > 1]
    if not families:
        return None
    family = max(families, key=lambda v: v.limit)

    def size(point):
        try:
            return family.size_of(Environment(point_atoms(op, point)))
        except (TypeError, ZeroDivisionError, KeyError, GenerationError):
            return None

    now = size(example)
    if not now or now >= family.limit:
        return None
    for tensor in tensors:
        for axis, extent in enumerate(example[tensor.name]):
            grown = max(extent + 1, extent * family.limit // now)  # at most the limit
            tied = [(t.name, k) for t in tensors for k, e in enumerate(example[t.name])
                    if e == extent]
            for changed in ([(tensor.name, axis)], tied):
                trial = copy_point(example)
                for name, k in changed:
                    trial[name][k] = grown
                reached = size(trial)
                elements = sum(shape_numel(trial[t.name]) for t in tensors)
                if (reached and family.limit // 2 < reached <= family.limit and
                        elements <= LARGEST_VARIANT_ELEMENTS and _holds(op, structure, trial)):
                    return trial
    return None


def _set_points(op, structure, tensors):
    """(label, point) for each value of a set the fake allows (`q.shape[-1] in (16, 32, 64,
    128)`, `group_size in (32, 64)`) other than the example's: the example with that extent or
    int attribute, and what is tied to it, at the value, so that every value's variant is
    checked."""
    traced = structure.traced
    ties = tied_extents(traced.requires, traced.symbols)
    points = []
    for relation in traced.requires:
        allowed = allowed_values(relation)
        ref = traced.symbols.get(allowed[0]) if allowed else None
        if ref is None:
            continue
        for size in allowed[1]:
            if size == ref.value(structure.example):
                continue
            point = copy_point(structure.example)
            ref.assign(point, size)
            tie(point, ties, keep=(ref.name, ref.index))
            label = f"{ref.name}{'' if ref.index is None else ref.index}_{size}".replace("-", "m")
            if (sum(shape_numel(point[t.name]) for t in tensors) <= LARGEST_VARIANT_ELEMENTS and
                    _holds(op, structure, point)):
                points.append((label, point))
    return points


def _case_dtype(tensor, dtype):
    """A case input's dtype; an integer input of its own dtype gets values 0 and 1, which index
    any axis of two or more (labels, indices): widen `range` in cases.json for more."""
    if tensor.dtype and tensor.dtype not in DTYPE_ELEMENT:
        return {"dtype": tensor.dtype, "range": [0, 2]}
    return {"dtype": tensor.dtype or dtype}


def cases(op, structures, dtypes):
    result = []
    for structure in structures:
        example = structure.example
        values = point_values(structure.traced.symbols, example)
        expected = [list(s) for s in evaluate_shapes(structure.traced.outputs, values)]
        attributes = {a.name: _case_value(a, example[a.name]) for a in op.attributes}
        tensors = [a for a in op.arguments if a.kind == "Tensor"]
        lows, highs = _profile(op, structure, [t for t in tensors if example[t.name] is not None])
        tag = "_".join("0" if example[a.name] is None else str(len(example[a.name]))
                       for a in op.arguments if a.kind == "Tensor" or a.kind.endswith("[]"))
        # The family's largest variant (its widest block, most warps), which the example's
        # small sizes never select.
        largest = _largest_variant_point(op, structure,
                                         [t for t in tensors if example[t.name] is not None])
        sizes_of_sets = _set_points(op, structure,
                                    [t for t in tensors if example[t.name] is not None])
        if sizes_of_sets:
            largest = None  # a case per size of the set runs every variant
        largest_shapes = None
        if largest is not None:
            largest_shapes = [list(s) for s in evaluate_shapes(
                structure.traced.outputs, point_values(structure.traced.symbols, largest))]
        for dtype in dtypes:
            # an absent Tensor? is null
            result.append({"name": f"{DTYPE_SHORT[dtype]}_static_{tag}",
                           "inputs": [None if example[t.name] is None else
                                      dict(_case_dtype(t, dtype), shape=example[t.name])
                                      for t in tensors],
                           "attributes": attributes, "expect_shapes": expected})
            dynamic = [None if example[t.name] is None else
                       dict(_case_dtype(t, dtype), min=lows[t.name], opt=example[t.name],
                            max=highs[t.name]) for t in tensors]
            result.append({"name": f"{DTYPE_SHORT[dtype]}_dynamic_{tag}", "inputs": dynamic,
                           "attributes": attributes, "expect_shapes": expected})
            for label, point in sizes_of_sets:
                result.append({"name": f"{DTYPE_SHORT[dtype]}_{label}_{tag}",
                               "inputs": [None if point[t.name] is None else
                                          dict(_case_dtype(t, dtype), shape=point[t.name])
                                          for t in tensors],
                               "attributes": {a.name: _case_value(a, point[a.name])
                                              for a in op.attributes},
                               "expect_shapes": [list(s) for s in evaluate_shapes(
                                   structure.traced.outputs,
                                   point_values(structure.traced.symbols, point))]})
            if largest is not None:
                result.append({"name": f"{DTYPE_SHORT[dtype]}_largest_variant_{tag}",
                               "inputs": [None if largest[t.name] is None else
                                          dict(_case_dtype(t, dtype), shape=largest[t.name])
                                          for t in tensors],
                               "attributes": attributes, "expect_shapes": largest_shapes})
    # Examples that differ only in attributes give cases of one name: numbered apart.
    seen = {}
    for case in result:
        seen[case["name"]] = seen.get(case["name"], 0) + 1
        if seen[case["name"]] > 1:
            case["name"] += f"_{seen[case['name']]}"
    return {"op": op.qualname, "cases": result}


def write_project(op, structures, dtypes, out_dir, provenance, arch, log=print, artefacts=True):
    directory = Path(out_dir) / op.name
    directory.mkdir(parents=True, exist_ok=True)
    launches = [launch for s in structures for launch in s.launches]
    kernel_files = list(dict.fromkeys(launch.kernel_file for launch in launches))  # as launched
    names = [path.name for path in kernel_files]
    for name in sorted({n for n in names if names.count(n) > 1}):
        raise GenerationError(f"op '{op.qualname}': kernels from two files named {name} "
                              f"({', '.join(str(p) for p in kernel_files if p.name == name)}); "
                              "the generated project copies each under its name: rename one")
    for path in kernel_files:
        run_time_globals = {}
        for launch in launches:
            if launch.kernel_file == path:
                run_time_globals.update(launch.kernel_globals)
        (directory / path.name).write_text(kernel_file_text(path, run_time_globals))
    (directory / f"{op.name}.cpp").write_text(cpp_source(op, structures, dtypes, provenance))
    (directory / "CMakeLists.txt").write_text(
        cmake_lists(op, structures, dtypes, names, arch))
    case_file = json.dumps(cases(op, structures, dtypes), indent=1) + "\n"
    (directory / "cases.json").write_text(case_file)
    if artefacts:
        ship_artefacts(op, structures, dtypes, directory, arch, log)
    return directory


def ship_artefacts(op, structures, dtypes, directory, arch, log):
    """Compiles each kernel ahead of time into the project's aot/ folder (what
    autoplugin_add_triton_kernel builds from where Python has no Triton), so that the project
    builds on a machine without Triton."""
    import subprocess
    import sys
    script = triton_aot_script()
    if script is None:
        log(f"{op.qualname}: note: triton_aot.py not found beside the package; the project "
            "compiles its kernels when it is built (Triton needed there)")
        return
    jobs = {}
    for structure in structures:
        for launch in structure.launches:
            for dtype in dtypes:
                target = _kernel_target(op, structures, launch, dtype)
                if target not in jobs:
                    jobs[target] = (launch, dtype)
    # The kernels compile side by side, and each family's variants too, on every core.
    jobs_each = max(1, (os.cpu_count() or 1) // len(jobs))
    values_by_target = _value_builds(op, structures, dtypes)

    def compile_one(target):
        launch, dtype = jobs[target]
        return launch, dtype, subprocess.run(
            [sys.executable, str(script), "compile", "--source",
             str(directory / launch.kernel_file.name), "--kernel", launch.kernel_name,
             "--signature", launch.signature(dtype), "--name", target,
             "--num-warps", str(launch.num_warps), "--num-stages",
             str(launch.num_stages), "--arch", str(arch), "--out-dir",
             str(directory / "aot"), "--specialize", "--jobs", str(jobs_each)] +
            [f"--specialize-integers={name}" for name in
             [",".join(_size_integers(op, launch))] if name] +
            [f"--specialize-values={entry}" for entry in values_by_target[target]] +
            [f"--variant={variant}" for variant in _variants(launch)],
            capture_output=True, text=True)

    # One compile per kernel and dtype, side by side (a family of large blocks takes minutes).
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for launch, dtype, result in pool.map(compile_one, list(jobs)):
            if result.returncode != 0:
                raise GenerationError(
                    f"op '{op.qualname}': Triton could not compile '{launch.kernel_name}' "
                    f"for {launch.signature(dtype)} ({launch.where}): "
                    f"{result.stderr.strip().splitlines()[-1] if result.stderr else ''}")
    for target, (launch, dtype) in jobs.items():
        scratch = _scratch_memory(directory / "aot", target)
        if scratch:
            raise GenerationError(
                f"op '{op.qualname}': kernel '{launch.kernel_name}' ({launch.where}) needs "
                f"{scratch} bytes of Triton's global scratch memory per launch (device-side "
                "tensor descriptors, tl.make_tensor_descriptor with triton.set_allocator), "
                "which from-torch does not generate yet: load through pointers and strides, or "
                "declare the op in C++ with the kernel's launch(grid, stream, scratch, ...) "
                "(docs/triton.md)")


def _scratch_memory(aot, target):
    """The most global scratch memory (bytes per program) a compiled kernel or any variant of
    its family asks for."""
    manifest = json.loads((aot / f"{target}.json").read_text())
    stems = [v["artefact"] for v in manifest["variants"]] if manifest.get("family") else [target]
    return max(json.loads((aot / f"{stem}.json").read_text())
               .get("global_scratch", {}).get("bytes", 0) for stem in stems)


def file_digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
