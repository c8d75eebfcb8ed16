"""How the generated project builds its kernels: a CMake target per kernel, dtype and compiled
variant (autoplugin_add_triton_kernel with its signature, the family's VARIANTS, the builds
SPECIALIZE makes), the project's CMakeLists.txt, and the kernels compiled ahead of time into
its aot/ folder (the build's own compile step, tools/triton_aot.py)."""
import concurrent.futures
import json
import os

from .aot_tool import triton_aot_script
from .errors import GenerationError
from .expressions import FLOOR_DIV, Atom, Call, Integer
from .records import DTYPE_SHORT


def kernel_target(op, structures, launch, dtype):
    """The kernel's CMake target and header name for one dtype: one per compiled variant (a
    kernel launched with other constexprs, scalar types or warps in another structure is another
    variant, `_v2`, ...)."""
    def settings(other):
        return (other.signature(dtype), other.num_warps, other.num_stages,
                tuple(variant_specs(other)))

    variants = []
    for structure in structures:
        for other in structure.launches:
            if other.kernel_name == launch.kernel_name and settings(other) not in variants:
                variants.append(settings(other))
    index = variants.index(settings(launch))
    suffix = "" if index == 0 else f"_v{index + 1}"
    return f"{op.name}_{launch.kernel_name}_{DTYPE_SHORT[dtype]}{suffix}"


def variant_specs(launch):
    """autoplugin_add_triton_kernel's VARIANTS for a launch whose constexprs change (none for
    one compiled kernel)."""
    return launch.family.variants(launch.num_warps, launch.num_stages) if launch.family else []


def size_integers(op, launch):
    """The SPECIALIZE_INTEGERS sets of the launch, each a build promising those integers: its
    integer parameters computed from sizes, strides and element counts alone (no attribute: a
    seed or a group count is rarely a multiple of 16 where the sizes are), a stride or element
    count divided by an attribute (a group's stride, `C * H * W // num_groups`: still a product
    of the other extents), or constant multiples of 16; then those of them that are multiples of
    16 at the example, as Triton's JIT specializes that launch (with 257 rows of 1024 columns,
    the columns and strides but not the rows). A set that is every integer parameter or none is
    left out (the builds SPECIALIZE makes already cover both)."""
    integers = [a for a in launch.arguments
                if a.kind == "scalar" and a.triton_type in ("i32", "i64")]
    sizes = []
    for argument in integers:
        value = argument.value
        kinds = {node.kind for node in value.nodes() if isinstance(node, Atom)}
        if isinstance(value, Integer):
            aligned = value.value >= 0 and value.value % 16 == 0
        elif _per_group(value):
            aligned = True
        else:
            aligned = "attribute" not in kinds and bool(kinds)
        if aligned:
            sizes.append(argument)
    at_example = [a for a in sizes if a.aligned_at_example]
    sets = []
    for chosen in (sizes, at_example):
        names = [a.name for a in chosen]
        if 0 < len(names) < len(integers) and names not in sets:
            sets.append(names)
    return sets


def _specialize_integers(sets):
    """SPECIALIZE_INTEGERS as the CMake call takes it: one set as its names, several as quoted
    lists joined by commas."""
    if not sets:
        return ""
    if len(sets) == 1:
        return f" SPECIALIZE_INTEGERS {' '.join(sets[0])}"
    return " SPECIALIZE_INTEGERS " + " ".join(f'"{", ".join(names)}"' for names in sets)


def _value_builds(op, structures, dtypes):
    """Kernel target -> the SPECIALIZE_VALUES entries ("a=1, b=2") of the launches compiled as
    it, in every structure (a target is shared by the structures that launch it alike)."""
    builds = {}
    for dtype in dtypes:
        for structure in structures:
            for launch in structure.launches:
                entries = builds.setdefault(kernel_target(op, structures, launch, dtype), [])
                for values in launch.value_builds:
                    entry = ", ".join(f"{name}={value}" for name, value in values.items())
                    if entry not in entries:
                        entries.append(entry)
    return builds


def needs_cuda_runtime(op, structures):
    """In-place copies, outputs copied from inputs and cleared scratch buffers and outputs call
    the CUDA runtime."""
    return bool(op.mutated) or any(b.zeroed for s in structures for b in s.scratch) or \
        any(s.zeroed_outputs or s.copied_outputs for s in structures)


def _per_group(value):
    """Whether `value` is a stride or element count divided by an atom or a constant
    (`floor_div(X.stride(0), num_groups)`)."""
    if not (isinstance(value, Call) and value.function == FLOOR_DIV):
        return False
    numerator, denominator = value.arguments
    return (isinstance(numerator, Atom) and numerator.kind in ("stride", "numel") and
            isinstance(denominator, (Atom, Integer)))


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
                target = kernel_target(op, structures, launch, dtype)
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
                variants = variant_specs(launch)
                if variants:
                    lines.append("  VARIANTS")
                    lines += [f"    \"{variant}\"" for variant in variants]
                # SPECIALIZE: also built for aligned addresses and sizes, as Triton's JIT
                # specializes the eager launch, so that the plugin's kernel is the same; with
                # the integers that hold sizes named, also where an attribute is not aligned,
                # and where a size is not (those aligned at the example).
                values = values_by_target[target]
                lines.append(f"  NUM_WARPS {launch.num_warps} NUM_STAGES {launch.num_stages} "
                             f"ARCH ${{{op.name.upper()}_ARCH}} SPECIALIZE" +
                             _specialize_integers(size_integers(op, launch)) +
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
                target = kernel_target(op, structures, launch, dtype)
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
            [f"--specialize-integers={','.join(names)}"
             for names in size_integers(op, launch)] +
            [f"--specialize-values={entry}" for entry in values_by_target[target]] +
            [f"--variant={variant}" for variant in variant_specs(launch)],
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
