"""Kernel launches recovered from the op's host code, run at sampled points (host.py).

Each tensor a kernel receives is identified by its storage (a view of an output is the output):
an input, an output (shapes and dtypes as the fake implementation gives them, which is what
TensorRT allocates), or a buffer the host code allocates (the plugin's workspace). Each scalar
argument and each grid extent is identified across the samples (fitting.py) as a size, a product
of sizes, an attribute (element) or a constant, and checked on further samples; a constexpr that
changes with the sizes is a family of compiled variants (kernel_variants.py). The host code's
runs at chosen points are in probes.py, the tensors a kernel receives (roles, scratch buffers,
pointers and views) in pointers.py.
"""
import random
from pathlib import Path

import torch

from . import families, fitting, kernel_variants
from .errors import GenerationError, UnrecoveredConstexpr
from .expressions import CDIV, INT64_MAX, MIN_INT64, Call, Integer, Table, call
from .host import sample_points
from .kernel_source import hoisted_definition, run_time_names
from .pointers import (copied_outputs, kernels_do_the_writing, naming_op, recover_pointer,
                       scratch_buffers, zeroed_outputs)
from .probes import (DTYPES, Prober, checked_run, edge_points, family_same_for_every_dtype,
                     note_host_allocations, other_dtypes_at, plugin_outputs,
                     relations_between_inputs, same_launches)
from .records import (RecoveredArgument, RecoveredLaunch, RecoveredLaunches, Recovery,
                      constexpr_text, plain_value)
from .trials import compile_problem, scalar_type


def recover_launches(op, example, traced, dtypes, samples=12, seed=1, arch=90,
                     example_equalities=True, log=print,
                     max_block=families.DEFAULT_MAX_BLOCK):
    """The launches of the op's host code for one structure (ranks, list lengths); a constexpr
    that changes with the shapes becomes a family of powers of two up to `max_block`."""
    rng = random.Random(seed)
    notes = set()
    # Samples run in the first dtype asked for (a launch that changes with the dtype is refused
    # below, so each dtype's launcher is right).
    sample = DTYPES[dtypes[0]]
    relations_between_inputs(op, example, traced, rng, arch, example_equalities, notes, log,
                              sample)
    # Fitted on the points with one long axis each, the edge points the host code takes and
    # `samples` others; checked on the rest.
    points = sample_points(op, example, traced.requires, traced.symbols, 0, rng, long_axes=True)
    others = sample_points(op, example, traced.requires, traced.symbols,
                            2 * (samples + len(points)), rng)
    runs = [checked_run(op, point, sample, arch, notes, sample) for point in points + others]
    kernels_do_the_writing(op, runs[0])
    for run in runs[1:]:
        same_launches(op, runs[0].records, run.records, run.point)
    edges, edge_runs = edge_points(op, example, traced, rng, arch, runs[0].records, notes,
                                    sample)
    samples += len(points) + len(edges)
    runs = runs[:len(points)] + edge_runs + runs[len(points):]
    points = points + edges + others
    plugin_shapes = [plugin_outputs(op, point, sample) for point in points]
    note_host_allocations(op, runs[0], plugin_shapes[0], dtypes, arch, notes)
    envs = [fitting.environment(op, point, {k: list(t.shape) for k, t in run.inputs.items()},
                                [list(t.shape) for t in outputs])
            for point, run, outputs in zip(points, runs, plugin_shapes)]
    dtype_runs = {d: checked_run(op, points[0], DTYPES[d], arch, notes, sample)
                  for d in dtypes}
    other_dtypes_at(op, points[1:], runs[1:], dtypes, arch)
    plugin_dtypes = {d: [t.dtype for t in plugin_outputs(op, points[0], DTYPES[d])]
                     for d in dtypes}
    scratch = scratch_buffers(op, runs, envs, samples, dtype_runs)
    recovery = Recovery(op, runs, envs, samples, dtype_runs, plugin_dtypes, scratch, arch,
                        max_block, notes)
    launches = []
    for position, record in enumerate(runs[0].records):
        recorded = [run.records[position] for run in runs]
        probe = Prober(op, example, traced, position, arch, points, runs[0].records, sample)
        launches.append(_recover_launch(recovery, position, record, recorded, probe))
    for note in sorted(notes):
        log(f"{op.qualname}: note: {note}")
    return RecoveredLaunches(launches, [buffer for buffer, _ in scratch.values()], sorted(notes),
                             zeroed_outputs(op, runs[0]), copied_outputs(op, runs[0]))


def _recover_launch(recovery, position, first, recorded, probe):
    """The launch the host code makes `position`-th (`first` at the first point, `recorded` at
    every point), probed with `probe`."""
    op, envs, dtype_runs, arch, notes = (recovery.op, recovery.envs, recovery.dtype_runs,
                                         recovery.arch, recovery.notes)
    kernel = first.kernel
    kernel_name = kernel.fn.__name__
    fit_envs, check_envs = recovery.fit_envs, recovery.check_envs
    constexprs = {p.name for p in kernel.params if p.is_constexpr}
    annotation_types = {p.name: getattr(p, "annotation_type", "") for p in kernel.params}
    arguments = []
    family = None
    run_time_constexprs = []
    # Constexprs that may follow a power of two the signature lists after them (Mamba's
    # BLOCK_SIZE_M before its BLOCK_SIZE_DSTATE): (position in arguments, name, context)
    following = []

    def add_varying(name, context, power_after=False):
        """The constexpr's argument, its family added; None where it is left to follow a power
        of two the signature lists after it (`power_after`: where one is)."""
        nonlocal family
        values = [r.arguments[name] for r in recorded]
        before = family and families.Family(list(family.varying), dict(family.options))
        try:
            family, argument = kernel_variants.add_varying(
                family, op, name, first, recorded, constexprs, envs, context, probe,
                recovery.max_block)
            if power_after and family.varying[-1].steps:
                # (a step function of a size, where it may follow the power of two instead)
                family = before
                following.append((len(arguments), name, context))
                return None
        except GenerationError as refusal:
            if power_after:  # (it may follow that power of two)
                following.append((len(arguments), name, context))
                return None
            try:
                argument = _run_time_constexpr(recovery, name, first, values, context, refusal,
                                               probe)
            except GenerationError as final:
                raise UnrecoveredConstexpr(str(final), position, kernel_name, name,
                                           final.kind) from None
            run_time_constexprs.append(name)
        return argument

    varying = [n for n in first.arguments if n in constexprs and
               len({repr(plain_value(r.arguments[n])) for r in recorded}) != 1]
    powers = [n for n in varying if kernel_variants.is_power_of_a_size(n, recorded, envs)]
    for name in first.arguments:
        values = [r.arguments[name] for r in recorded]
        context = f"argument '{name}' of kernel '{kernel_name}' ({first.where}: {first.line})"
        if name in varying:
            power_after = name not in powers and any(varying.index(p) > varying.index(name)
                                                     for p in powers)
            arguments.append(add_varying(name, context, power_after))
            continue
        if name in constexprs:
            # A constexpr the host code picks per dtype (`OUT_DTYPE=tl.float16` for half inputs)
            by_dtype = {d: constexpr_text(run.records[position].arguments[name])
                        for d, run in dtype_runs.items()}
            text = constexpr_text(values[0])
            arguments.append(RecoveredArgument(
                name, "constexpr", constexpr=text,
                constexpr_by_dtype={d: t for d, t in by_dtype.items() if t != text}))
            continue
        if all(v is None for v in values):
            # An absent optional tensor passed as is: Triton's JIT compiles None as a constexpr.
            arguments.append(RecoveredArgument(name, "constexpr", constexpr="None"))
            continue
        if isinstance(values[0], torch.Tensor):
            arguments.append(recover_pointer(recovery, name, context, position, recorded))
            continue
        try:
            triton_type = scalar_type(values, name, first.where, first.line)
        except GenerationError as error:
            raise error.naming(f"op '{op.qualname}': ") from None
        # An integer annotated `tl.int64` (or `tl.int32`) is compiled with that type, as
        # Triton's JIT compiles it (vLLM's strides: products with them do not overflow).
        annotated = annotation_types.get(name, "")
        if triton_type in ("i32", "i64") and annotated in ("i32", "i64"):
            triton_type = annotated
        constants = [c for c in (plain_value(first.arguments[n]) for n in constexprs)
                     if isinstance(c, int) and not isinstance(c, bool)]
        if triton_type in ("i32", "i64"):
            value = naming_op(op, fitting.fit_integer, values, fit_envs, check_envs, context,
                              constants)
        else:
            value = naming_op(op, fitting.fit, values, fit_envs, check_envs, context, triton_type)
        if value == Integer(1) and triton_type in ("i32", "i64") and \
                _specialized_on_one(kernel, name):
            # Triton's JIT compiles an integer that is 1 as the constant 1 (a contiguous
            # tensor's last stride): the kernel then vectorizes its accesses; so does ours.
            arguments.append(RecoveredArgument(name, "constexpr", constexpr="1"))
            continue
        # Triton's JIT compiles the kernel for the integers that are multiples of 16 in the
        # launch it gets: the example's (the sizes the user deploys) are promised in a build.
        example_value = plain_value(probe.at_example().arguments[name])
        aligned = (triton_type in ("i32", "i64") and isinstance(example_value, int) and
                   example_value % 16 == 0 and _specialized(kernel, name))
        arguments.append(RecoveredArgument(name, "scalar", value=value, triton_type=triton_type,
                                           aligned_at_example=aligned))
    for position_in_arguments, name, context in following:
        arguments[position_in_arguments] = add_varying(name, context)
    order = list(first.arguments)  # the signature's, as the variants' select() takes them
    if family is not None:
        family.varying.sort(key=lambda v: order.index(v.name))
        family_same_for_every_dtype(op, probe, list(dtype_runs), arch)
    run_time_constexprs.sort(key=order.index)
    grid = []
    block_sizes = [v for v in (plain_value(first.arguments[n]) for n in constexprs)
                   if isinstance(v, int) and not isinstance(v, bool)]
    # A block that is a step function of a size (DyT's 1024 below 4096 columns, 2048 from
    # there): the samples may miss a step, where tiles of a constant block fit them as well as
    # tiles of the block itself, and only the latter is right in every step.
    stepped = family is not None and any(v.steps for v in family.varying)
    for axis in range(max(len(r.grid) for r in recorded)):
        values = [r.grid[axis] if axis < len(r.grid) else 1 for r in recorded]
        context = f"grid axis {axis} of kernel '{kernel_name}' ({first.where}: {first.line})"
        try:
            tiles = _grid_of_variant_tiles(recorded, values, envs, family) if stepped else None
            grid.append(tiles or naming_op(op, fitting.fit, values, fit_envs, check_envs,
                                           context, "i64", block_sizes))
        except GenerationError as refusal:
            tiles = _grid_of_variant_tiles(recorded, values, envs, family)
            grid.append(tiles or _grid_capped_per_variant(recorded, values, envs, family, probe,
                                                          axis, block_sizes, refusal))
    options = {k: plain_value(v) for k, v in first.options.items()}
    for record in recorded:
        # A family's warps and stages follow its power of two (read per variant by probing).
        probed = family is not None and family.options
        if not probed and {k: plain_value(v) for k, v in record.options.items()} != options:
            seen = sorted({", ".join(f"{k}={plain_value(v)}" for k, v in sorted(r.options.items()))
                           for r in recorded})
            raise GenerationError(f"op '{op.qualname}': the launch options of '{kernel_name}' "
                                  f"({first.where}) change with the shapes or attributes "
                                  f"({'; '.join(seen)}), other than with a power-of-two block "
                                  "the host code computes; a kernel is compiled ahead of time "
                                  "with one num_warps and num_stages per variant: fix them")
    # An option at Triton's default changes nothing (the layer-norm tutorial passes num_ctas=1).
    unknown = sorted(f"{k}={options[k]}" for k in set(options) - {"num_warps", "num_stages"}
                     if options[k] != _TRITON_OPTION_DEFAULTS.get(k, _NO_DEFAULT) and
                     k not in _OVERLAP_OPTIONS)
    for name in sorted(k for k in options if k in _OVERLAP_OPTIONS and options[k]):
        notes.add(f"launch option {name}={options[name]} of '{kernel_name}' ({first.where}) is "
                  f"not generated: {_OVERLAP_OPTIONS[name]}")
    if unknown:
        raise GenerationError(f"op '{op.qualname}': launch option(s) {', '.join(unknown)} of "
                              f"'{kernel_name}' ({first.where}) are not generated: launch with "
                              "num_warps and num_stages only (other options at Triton's "
                              "defaults)")
    _same_for_every_dtype(op, position, first, arguments, grid, family, dtype_runs)
    value_builds = []
    if run_time_constexprs:
        # Triton's JIT compiles each value of a constexpr: the generic build takes it at run
        # time, and a build for the example's values (the sizes the user deploys) folds them.
        example = probe.at_example().arguments
        value_builds.append({name: constexpr_text(example[name]) for name in
                             run_time_constexprs +
                             [v.name for v in (family.varying if family else [])]})
    return RecoveredLaunch(kernel_name, Path(kernel.fn.__code__.co_filename).resolve(), grid,
                           arguments, int(options.get("num_warps", 4)),
                           int(options.get("num_stages", 3)), first.where, first.line, family,
                           first.config, value_builds, run_time_names(kernel.fn),
                           hoisted_definition(kernel.fn))


def _same_for_every_dtype(op, position, first, arguments, grid, family, dtype_runs):
    """Refuses a launch whose grid, scalars, family constexprs or options change with the dtype
    at one point (`BLOCK = 1024 if x.dtype == torch.float32 else 2048`, `16 // element_size()`):
    they are recovered from the samples in the first dtype, so another dtype's launcher would
    run the first's grid with its own block (half the output unwritten). Constexprs the host
    code picks per dtype without the grid changing (`OUT_DTYPE=tl.float16`) are generated per
    dtype. A grid axis capped at a number of programs (`min(programs, rows)`: a persistent
    kernel, which loops over the rest) may differ: the tutorial's occupancy differs by dtype,
    and any count serves."""
    varying = {v.name for v in family.varying} if family else set()
    compared = [axis for axis, value in enumerate(grid) if not _capped(value)]
    checked = [a.name for a in arguments if a.kind == "scalar" or a.name in varying]
    sampled = next(iter(dtype_runs))  # the dtype the points were sampled in
    for dtype, run in dtype_runs.items():
        record = run.records[position]
        what = None
        if [record.grid[a] if a < len(record.grid) else 1 for a in compared] != \
                [first.grid[a] if a < len(first.grid) else 1 for a in compared]:
            what = ("the grid", list(first.grid), list(record.grid))
        for name in checked:
            if what is None and plain_value(record.arguments[name]) != plain_value(first.arguments[name]):
                what = (f"argument '{name}'", plain_value(first.arguments[name]),
                        plain_value(record.arguments[name]))
        if what is None and ({k: plain_value(v) for k, v in record.options.items()} !=
                             {k: plain_value(v) for k, v in first.options.items()}):
            what = ("the launch options", dict(first.options), dict(record.options))
        if what is not None:
            raise GenerationError(
                f"op '{op.qualname}': {what[0]} of kernel '{first.kernel.fn.__name__}' "
                f"({first.where}: {first.line}) changes with the dtype ({sampled}: {what[1]}, "
                f"{dtype}: {what[2]}, at the same sizes): launches are recovered from the "
                f"samples in {sampled}, the first of --dtypes, so the other dtypes' launchers "
                "would be wrong: make it the same for every dtype, or generate each dtype in a "
                f"project of its own (--dtypes {dtype})")


def _grid_of_variant_tiles(recorded, values, envs, family):
    """A grid axis of tiles of a family's integer constexpr (`cdiv(n_ctx, BLOCK_M)` where
    `BLOCK_M = 128 if head_dim <= 64 else 64`): `ap::triton::cdiv(size, <the constexpr>)`
    where that gives every sample's value; None where none does."""
    for varying in (family.varying if family else []):
        tiles = [plain_value(r.arguments[varying.name]) for r in recorded]
        if not all(isinstance(t, int) and not isinstance(t, bool) and t > 0 for t in tiles):
            continue
        for size, function in fitting.candidates(envs, ()):
            try:
                if all(-(-fitting.integral_value(function(env)) // tile) == value
                       for env, tile, value in zip(envs, tiles, values)):
                    return call(CDIV, size, varying.value)
            except (KeyError, TypeError, ZeroDivisionError):
                continue
    return None


def _grid_capped_per_variant(recorded, values, envs, family, probe, axis, constants, refusal):
    """A grid of `min(programs, rows)` whose program count depends on the family's variant
    (Triton's fused-softmax tutorial: multiprocessors x the occupancy of each compiled block
    size): a table of each variant's count, read where the samples show it and else by
    running the host code at that variant with many rows; `refusal` where it is not that."""
    powers = next((v for v in (family.varying if family else []) if v.bounded), None)
    if powers is None or powers.steps:  # (a step function: its variants are not its powers)
        raise refusal
    variants = [plain_value(r.arguments[powers.name]) for r in recorded]
    kept = [(env, value, variant) for env, value, variant in zip(envs, values, variants)
            if str(variant) in powers.values]
    for size_expression, function in fitting.candidates([env for env, _, _ in kept], constants):
        try:
            sizes = [fitting.integral_value(function(env)) for env, _, _ in kept]
        except (KeyError, TypeError, ZeroDivisionError):
            continue
        caps = {}
        for size, (_, value, variant) in zip(sizes, kept):
            if value < size and caps.setdefault(variant, value) != value:
                break
        else:
            # min(cap, size) at every sample, the size itself at some
            if caps and any(value == size for size, (_, value, _) in zip(sizes, kept)) and all(
                    value == min(caps.get(variant, size), size)
                    for size, (_, value, variant) in zip(sizes, kept)):
                break
    else:
        raise refusal
    # The bases with the most rows first (those with 2^22 rows may find no variant within
    # the probe's sizes: eight, so that some do).
    rows_first = sorted(probe.bases, reverse=True,
                        key=lambda base: probe.size_at(function, base) or 0)[:8]
    for power in (int(p) for p in powers.values):
        if power in caps:
            continue
        for base in rows_first:
            point = next((found for atom in probe.settable(base) for found in
                          [probe.search(base, atom, powers.size_of, power, False)]
                          if found is not None), None)
            if point is None:
                continue
            record = probe.launch_at(point)
            size = probe.size_at(function, point)
            if axis < len(record.grid) and size is not None and record.grid[axis] < size:
                caps[power] = int(record.grid[axis])
                break
    table = Table(powers.value, tuple((power, Integer(caps[power])) for power in sorted(caps)),
                  INT64_MAX)
    return call(MIN_INT64, table, size_expression)


def _capped(value):
    """Whether a grid axis is capped at a number of programs (a persistent kernel's)."""
    return isinstance(value, Call) and value.function == MIN_INT64


def _specialized(kernel, name):
    """Whether Triton's JIT specializes parameter `name` on its value (no do_not_specialize)."""
    return not getattr(_parameter(kernel, name), "do_not_specialize", True)


def _specialized_on_one(kernel, name):
    """Whether Triton's JIT compiles parameter `name` as the constant 1 when it is passed 1: an
    integer parameter without do_not_specialize or a type annotation (which keeps its type)."""
    return _specialized(kernel, name) and not getattr(_parameter(kernel, name),
                                                      "annotation_type", "")


def _parameter(kernel, name):
    """The kernel's parameter `name` (Triton's KernelParam), or None."""
    return next((p for p in kernel.params if p.name == name), None)


def _run_time_constexpr(recovery, name, first, values, context, refusal, probe):
    """A constexpr whose values are a size with no family to compile (Liger's `n_cols:
    tl.constexpr`, any row length) or a float (a float attribute): compiled as a run-time
    argument of the recovered expression
    where the kernel compiles that way (it computes with the value, not shapes or static loops
    over it); otherwise `refusal`, the family's, with why."""
    plain = [plain_value(v) for v in values]
    if all(isinstance(v, int) and not isinstance(v, bool) for v in plain):
        triton_type, what = "i32" if all(-2**31 <= v < 2**31 for v in plain) else "i64", "size"
    elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in plain):
        triton_type, what = "fp32", "value"  # Unsloth's `SOFTCAP: tl.constexpr`, a float
        plain = [float(v) for v in plain]
    else:
        raise refusal
    try:
        if triton_type == "fp32":
            value = fitting.fit(plain, recovery.fit_envs, recovery.check_envs, context,
                                triton_type)
        else:
            value = fitting.fit_integer(plain, recovery.fit_envs, recovery.check_envs, context)
    except GenerationError:
        raise refusal from None
    # Tried at the example's sizes: a sampled extent of 1 may leave another constexpr at a
    # value the kernel cannot compile with (`tl.arange(0, pad_hd // 2)`).
    problem = compile_problem(probe.at_example(), name, triton_type, recovery.arch)
    if problem:
        advice = ("make the kernel take it as one, or compute it as a power of two of a size"
                  if triton_type != "fp32" else "make it a run-time argument (no tl.constexpr)")
        raise refusal.extended(f"; nor does the kernel compile with '{name}' as a run-time "
                               f"argument ({problem}): {advice}") from None
    recovery.notes.add(
        f"constexpr '{name}' of kernel '{first.kernel.fn.__name__}' ({first.where}) takes every "
        f"{what} ({value.cpp()}); it is compiled as a run-time {triton_type} argument, which the "
        "kernel only computes with, and compiled in for the value each example gives it "
        "(SPECIALIZE_VALUES: give examples of the values you deploy)")
    return RecoveredArgument(name, "scalar", value=value, triton_type=triton_type)


# Launch options a kernel compiled ahead of time takes at these values, whoever passes them.
_TRITON_OPTION_DEFAULTS = {"num_ctas": 1}
# Options that only let a kernel overlap the one before it: launched without them, it computes
# the same (a grid-dependency wait returns at once when the grid before has finished).
_OVERLAP_OPTIONS = {"launch_pdl": "the plugin launches the kernel without programmatic "
                                  "dependent launch, which computes the same without the overlap "
                                  "with the kernel before it"}
_NO_DEFAULT = object()


