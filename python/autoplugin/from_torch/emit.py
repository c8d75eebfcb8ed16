"""Write the generated CMake project of one op: C++ source, CMakeLists.txt, cases.json.

The C++ is meant to be read and kept: a header comment says what it was generated from, the shape
function states each requirement with the guard it came from, and every kernel argument is
annotated with the kernel parameter it fills.
"""
import hashlib
import json
from pathlib import Path

import sympy

from . import autotune, families
from .cases import cases
from .errors import GenerationError
from .expressions import FLOOR_DIV, SQRT, Atom, Integer
from .fitting import atom_expressions, output_name
from .kernel_builds import cmake_lists, kernel_target, needs_cuda_runtime, ship_artefacts
from .kernel_source import kernel_file_text
from .points import allowed_values, set_text
from .records import DTYPE_ELEMENT
from .sympy_to_dim import DimTranslator


CPP_ELEMENT = {"*fp32": "float", "*fp16": "__half", "*bf16": "__nv_bfloat16", "*fp64": "double",
               "*i8": "std::int8_t", "*i16": "std::int16_t", "*i32": "std::int32_t",
               "*i64": "std::int64_t", "*u8": "std::uint8_t",
               "*fp8e4nv": "__nv_fp8_e4m3", "*fp8e5": "__nv_fp8_e5m2"}
# Each scratch buffer starts at a multiple of this many bytes of the workspace.
SCRATCH_ALIGNMENT = 256
# An input's own dtype (`labels=int64[...]` in an example).
FIXED_ELEMENT = dict(DTYPE_ELEMENT, int8="std::int8_t", int32="std::int32_t",
                     int64="std::int64_t", uint8="std::uint8_t", bool="bool",
                     float8_e4m3fn="__nv_fp8_e4m3")
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


def _shape_parameters(op):
    """The shape function's (and the workspace function's) parameters: (C++ type, name)."""
    parameters = []
    for argument in op.arguments:
        if argument.kind == "Tensor":
            cpp_type = "std::optional<ap::Shape>" if argument.optional else "ap::Shape"
        else:
            cpp_type = attribute_type(argument)
        parameters.append((cpp_type, argument.name))
    return parameters


def _structure_parameters(op):
    """The parameters _structure_condition reads: tensors, lists, strings, optional and
    structural attributes."""
    return {a.name for a in op.arguments if a.kind == "Tensor" or a.kind.endswith("[]") or
            a.kind == "str" or a.optional or a.structural}


def _symbol_parameters(traced, symbols):
    """The parameters the traced `symbols` are read from."""
    return {traced.symbols[symbol].name for symbol in symbols if symbol in traced.symbols}


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
    read = _structure_parameters(op)
    for structure in structures:
        traced = structure.traced
        used = set()
        for shape in traced.outputs:
            for extent in shape:
                used |= extent.free_symbols
        for condition in traced.requires:
            used |= condition.free_symbols
        read |= _symbol_parameters(traced, used)
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
        for condition, message, reads in families.requirements(structure.launches):
            if condition in required:  # the fake requires it already
                continue
            read |= reads
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
    return "\n".join([_signature(f"{returns} {name}", parameters, read)] + lines)


def _atoms_traced(op, traced):
    """The launcher's atoms (fitting.atom_symbol()s: `x.size(1)`, `x.numel()`, `x.stride(0)`,
    `num_groups`, `padding[2]`, an output's extents) as sympy over the traced symbols: what a
    recovered expression is, as a function of the shapes."""
    atoms, extents = {}, {}
    for symbol, ref in traced.symbols.items():
        if ref.kind == "extent":
            extents.setdefault(ref.name, {})[ref.index] = symbol
        elif ref.index is None:
            atoms[ref.name] = symbol
        else:
            atoms[f"{ref.name}[{ref.index}]"] = symbol
    shapes = {name: [axes[axis] for axis in sorted(axes)] for name, axes in extents.items()}
    shapes.update({output_name(op, index): list(shape)
                   for index, shape in enumerate(traced.outputs)})
    return atom_expressions(shapes, atoms)


def _traced_expression(op, traced, expression, what):
    """A recovered expression over the launcher's atoms as a function of the traced shapes."""
    atoms = _atoms_traced(op, traced)
    unknown = sorted(str(s) for s in expression.free_symbols if s not in atoms)
    if unknown:
        raise GenerationError(f"op '{op.qualname}': {what} reads {', '.join(unknown)}, which the "
                              "shape function is not given")
    return expression.xreplace(atoms)


def _uses_workspace(structures):
    return any(structure.scratch for structure in structures)


def workspace_function(op, structures):
    """The bytes of the host code's scratch buffers, each aligned, for the largest shapes of a
    profile (TensorRT sizes the workspace with it)."""
    lines = []
    read = _structure_parameters(op)
    for structure in structures:
        traced = structure.traced
        sizes = [sympy.ceiling(_traced_expression(op, traced, buffer.numel.sympy(),
                                                  f"the scratch buffer at {buffer.where}")
                               * buffer.element_bytes / SCRATCH_ALIGNMENT) * SCRATCH_ALIGNMENT
                 for buffer in structure.scratch]
        used = set().union(*(size.free_symbols for size in sizes))
        read |= _symbol_parameters(traced, used)
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
    return "\n".join([_signature(f"ap::Dim {op.name}_workspace", _shape_parameters(op), read)]
                     + lines)


def _signature(start, parameters, read):
    """`start(parameters) {`, wrapped at 100 columns with the parameters aligned; `parameters`
    (C++ type, name), those not in `read` unnamed (their name a comment: no unused warnings)."""
    declared = [f"{cpp_type} {name}" if name in read else f"{cpp_type} /*{name}*/"
                for cpp_type, name in parameters]
    line = f"{start}({', '.join(declared)}) {{"
    if len(line) <= 100:
        return line
    indent = " " * (len(start) + 1)
    return f"{start}(" + (",\n" + indent).join(declared) + ") {"


def _element_types(op, structures, dtype):
    """C++ element type of each tensor (inputs by name, outputs by index) for one dtype."""
    types = {}
    for structure in structures:
        for launch in structure.launches:
            for argument in launch.arguments:
                if argument.kind in ("input", "output"):
                    types[argument.tensor] = CPP_ELEMENT[argument.tensor_types[dtype]]
    return types


def _argument_text(argument, dtype):
    if argument.kind in ("input", "output"):
        address = f"{argument.tensor}.data()"
        if CPP_ELEMENT[argument.pointer_types[dtype]] != CPP_ELEMENT[argument.tensor_types[dtype]]:
            # a view in another dtype (`x.view(torch.int32)`): the same address, read so
            constant = "const " if argument.kind == "input" else ""
            address = (f"reinterpret_cast<{constant}{CPP_ELEMENT[argument.pointer_types[dtype]]}*>"
                       f"({address})")
        if argument.offset is not None:
            return f"{address} + {_parenthesized(argument.offset)}"
        return address
    if argument.kind == "workspace":
        element = CPP_ELEMENT[argument.pointer_types[dtype]]
        return f"reinterpret_cast<{element}*>(scratch + scratch{argument.tensor}_offset)"
    value = argument.value.cpp()
    if argument.triton_type == "i32":
        if isinstance(argument.value, Integer):
            return f"std::int32_t{{{value}}}"
        return f"checked_i32({value}, \"{argument.name}\")"
    if argument.triton_type == "i1":
        return f"static_cast<bool>({value})"
    return value


def _parenthesized(expression):
    """An operand of the launcher's own arithmetic: a plain size or number as it is, anything
    else in parentheses."""
    plain = isinstance(expression, Atom) or (isinstance(expression, Integer) and
                                             expression.value >= 0)
    return expression.cpp() if plain else f"({expression.cpp()})"


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
            parameters.append((f"{view}<{types.get(argument.name, own or element)}>",
                               argument.name))
        else:
            parameters.append((attribute_type(argument), argument.name))
    for index in range(op.num_outputs):
        name = output_name(op, index)
        parameters.append((f"ap::Out<{types.get(name, element)}>", name))
    if _uses_workspace(structures):
        parameters.append(("ap::Workspace", "workspace"))
    parameters.append(("ap::Stream", "stream"))
    read = _structure_parameters(op) | {"stream"}
    lines = []
    for index, argument in enumerate(op.mutated):
        out = output_name(op, index)
        read |= {out, argument.name}
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
            read.add("workspace")
            read |= set().union(*(buffer.numel.parameters() for buffer in structure.scratch))
            for index, buffer in enumerate(structure.scratch):
                start = "0" if index == 0 else \
                    f"scratch{index - 1}_offset + " \
                    f"scratch_bytes({structure.scratch[index - 1].numel.cpp()}, " \
                    f"{structure.scratch[index - 1].element_bytes})"
                lines.append(f"    // {buffer.where}: {buffer.line}")
                lines.append(f"    const std::int64_t scratch{index}_offset = {start};")
                if buffer.zeroed:
                    lines.append(f"    check_cuda(cudaMemsetAsync(scratch + scratch{index}_offset, "
                                 f"0, scratch_bytes({buffer.numel.cpp()}, {buffer.element_bytes}), "
                                 "stream),")
                    lines.append(f"               \"clearing scratch buffer {index}\");")
        for index, source in structure.copied_outputs:
            out = output_name(op, index)
            read |= {out, source}
            lines.append(f"    // The host code starts {out} as a copy of {source} (its kernels "
                         "update it): copied first.")
            lines.append(f"    check_cuda(cudaMemcpyAsync({out}.data(), {source}.data(), "
                         f"{source}.numel() * sizeof(*{out}.data()),")
            lines.append("                               cudaMemcpyDeviceToDevice, stream),")
            lines.append(f"               \"copying {source} into {out}\");")
        for index in structure.zeroed_outputs:
            out = output_name(op, index)
            read.add(out)
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
                    kernel = kernel_target(op, structures, launch, dtype)
                    image = (f"{kernel}::image({kernel}::select("
                             f"{', '.join(v.value.cpp() for v in launch.varying)}))"
                             if launch.varying else f"{kernel}::image()")
                    lines.append(f"    if (!ap::triton::fits_device({image}, stream)) "
                                 "return ap::Launch::NotApplicable;")
        for position, launch in enumerate(structure.launches):
            if launch.config and launch.config.index != config:
                continue
            kernel = kernel_target(op, structures, launch, dtype)
            read |= _launch_parameters(launch)
            lines.append(f"    // {launch.where}: {launch.line}")
            if launch.config:
                lines.append(f"    // @triton.autotune config {launch.config.index}: "
                             f"{launch.config.text}")
            grid = ", ".join(axis.cpp() for axis in launch.grid)
            lines.append(f"    {kernel}::launch(")
            if launch.varying:
                # The family's variant for the constexprs the host code computes here.
                keys = ", ".join(v.value.cpp() for v in launch.varying)
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
    header = _signature(f"{returned} {launcher_name(op, dtype, config)}", parameters, read)
    return "\n".join([header] + lines)


def _launch_parameters(launch):
    """The launcher's parameters a launch reads: its tensors and what its values compute with
    (the variant's constexprs too)."""
    read = {a.tensor for a in launch.arguments if a.kind in ("input", "output")}
    for value in list(launch.grid) + [v.value for v in launch.varying] + \
            [v for a in launch.arguments for v in (a.value, a.offset) if v is not None]:
        read |= value.parameters()
    return read


def _launcher_values(structures):
    """Every expression the launchers compute: scratch sizes, grids, arguments, views' starts."""
    for structure in structures:
        yield from (buffer.numel for buffer in structure.scratch)
        for launch in structure.launches:
            yield from launch.grid
            for argument in launch.arguments:
                yield from (v for v in (argument.value, argument.offset) if v is not None)


def _calls(structures, function):
    return any(value.calls(function) for value in _launcher_values(structures))


def cpp_source(op, structures, dtypes, provenance):
    kernels = sorted({kernel_target(op, structures, launch, dtype) for s in structures
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
    if _calls(structures, SQRT):
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
    if _calls(structures, FLOOR_DIV):
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
    configs = autotune.tactic_configs(structures)
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
        run_time_globals, hoisted = {}, {}
        for launch in launches:
            if launch.kernel_file == path:
                run_time_globals.update(launch.kernel_globals)
                if launch.kernel_hoisted:
                    hoisted[launch.kernel_name] = launch.kernel_hoisted
        (directory / path.name).write_text(kernel_file_text(path, run_time_globals, hoisted))
    (directory / f"{op.name}.cpp").write_text(cpp_source(op, structures, dtypes, provenance))
    (directory / "CMakeLists.txt").write_text(
        cmake_lists(op, structures, dtypes, names, arch))
    case_file = json.dumps(cases(op, structures, dtypes), indent=1) + "\n"
    (directory / "cases.json").write_text(case_file)
    if artefacts:
        ship_artefacts(op, structures, dtypes, directory, arch, log)
    return directory


def file_digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
