"""The C++ of a family of variants of a Triton kernel (triton_aot_embed.py for one artefact):
the variants' values, find() and select() by value (by autotune config and value), image() and
launch() by index. Python's standard library only.
"""
import re
from pathlib import Path
from typing import NamedTuple

from triton_aot_embed import (UsageError, c_string, constant_member,
                              cpp_identifier, generated_by, launch_parameter_type,
                              image_fields, code_arrays, namespace_lines, parameter_table,
                              parse_constexpr, read_artefact, read_specializations,
                              specialization_images)

class Family(NamedTuple):
    manifest: dict
    variants: list     # per variant: (its manifest entry, metadata, cubin, ptx)
    varying: list      # the constexprs the variants give, in signature order
    keys: list         # what find() takes: the varying constexprs that no autotune config sets
    types: dict        # varying constexpr -> its C++ type
    specializations: list  # per variant: read_specializations of its artefact


def constexpr_cpp_type(name, texts):
    parsed = [parse_constexpr(text) for text in texts]
    if any(value is None for value in parsed):
        raise UsageError(f"constexpr {name}: {texts} are not all bools, numbers or strings")
    kinds = {bool if isinstance(v, bool) else int if isinstance(v, int) else
             str if isinstance(v, str) else type(v) for v in parsed}
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
    variants, specializations = [], []
    for index, entry in enumerate(variants_field):
        if not (isinstance(entry, dict) and isinstance(entry.get("artefact"), str) and
                isinstance(entry.get("constexprs"), dict) and
                entry.get("artefact") == f"{Path(artefact).name}.{index}"):
            raise UsageError(f"{json_path}: variants[{index}] needs its artefact "
                             f"{Path(artefact).name}.{index} and its constexprs")
        metadata, cubin, ptx = read_artefact(directory / entry["artefact"])
        variants.append((entry, metadata, cubin, ptx))
        specializations.append(read_specializations(directory / entry["artefact"], metadata))
    first = variants[0][1]
    for entry, metadata, _, _ in variants[1:]:
        names = [c["name"] for c in metadata["constants"]]
        if metadata["parameters"] != first["parameters"] or \
                names != [c["name"] for c in first["constants"]]:
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
    return Family(manifest, variants, varying, keys, types, specializations)


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
    images = []
    arrays, parameters_span = parameter_table(first["parameters"])
    for index, (entry, metadata, cubin, ptx) in enumerate(family.variants):
        arrays += code_arrays(index, cubin, ptx)
        constants_span = "{}"
        if metadata["constants"]:
            constants_span = f"kConstants{index}"
            arrays += f"const autoplugin::triton::Constant kConstants{index}[] = {{\n"
            for constant in metadata["constants"]:
                arrays += f"    {{{c_string(constant['name'])}, {c_string(constant['value'])}}},\n"
            arrays += "};\n"
        label = f"{name}[{variant_label(family, entry)}]"
        specialized, specializations_span = specialization_images(
            label, index, family.specializations[index], constants_span)
        arrays += specialized
        fields = image_fields(label, metadata, index, parameters_span, constants_span,
                              specializations_span)
        images.append("      {" + ", ".join(str(field) for field in fields) + "},\n")
    compiled = "; ".join(variant_label(family, entry) for entry, *_ in family.variants)
    key_parameters = (["int config"] if autotune else []) + [
        f"{family.types[n]} {family_identifier(n, name)}" for n in family.keys]
    key_names = (["config"] if autotune else []) + [family_identifier(n, name)
                                                    for n in family.keys]
    asked = ' + ", " + '.join(
        (['"config " + std::to_string(config)'] if autotune else []) +
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
            f"    autoplugin::triton::throw_no_variant({c_string(name)}, \"index \" + "
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
