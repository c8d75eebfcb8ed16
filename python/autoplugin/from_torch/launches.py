"""Kernel launches recovered from the op's host code, run at sampled points (host.py).

Each tensor a kernel receives is identified by its storage (a view of an output is the output):
an input, an output (shapes and dtypes as the fake implementation gives them, which is what
TensorRT allocates), or a buffer the host code allocates (the plugin's workspace). Each scalar
argument and each grid extent is identified across the samples (fitting.py) as a size, a product
of sizes, an attribute (element) or a constant, and checked on further samples; a constexpr that
changes with the sizes is a family of compiled variants (kernel_variants.py).
"""
import random
from pathlib import Path

import numpy as np
import torch

from . import fitting, kernel_variants
from .aot_tool import triton_aot_module
from .errors import GenerationError, UnrecoveredConstexpr
from .host import (ALLOCATIONS, HostFailure, MAX_SAMPLE_ELEMENTS, ZERO_ALLOCATIONS,
                   broken_requirement, error_text, point_elements, run_body, sample_points,
                   storage_key)
from .records import (RecoveredArgument, RecoveredLaunch, RecoveredLaunches, ScratchBuffer,
                      constexpr_text, plain_value)
from .shapes import allowed_values, copy_point, fake_outputs, satisfy, set_text, tie, tied_extents


TRITON_POINTER_TYPES = {
    torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16", torch.float64: "fp64",
    torch.int8: "i8", torch.int16: "i16", torch.int32: "i32", torch.int64: "i64",
    torch.uint8: "u8", torch.bool: "i1",
}
# Dtypes a kernel may read a tensor as (a view), not the op's own: float8 bytes held as int8
# (TensorRT plugins here have no float8 tensors), written through `x_q.view(torch.float8_e4m3fn)`.
VIEW_POINTER_TYPES = {torch.float8_e4m3fn: "fp8e4nv", torch.float8_e5m2: "fp8e5"}
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def _tensor_role(op, value, run):
    """("input", name), ("output", index), ("workspace", storage key) or (None, why)."""
    key = storage_key(value)
    for index, tensor in enumerate(run.outputs):
        if storage_key(tensor) == key:
            return "output", index
    for name, tensor in run.inputs.items():
        if storage_key(tensor) == key:
            return "input", name
    made = run.made.get(key)
    if made and made[0] in ALLOCATIONS:
        return "workspace", key
    if made:
        return None, (f"a tensor the host code computes with '{made[0]}' ({made[1]}: {made[2]}); "
                      "a plugin passes its kernels only the op's inputs, outputs and scratch "
                      "memory (torch.empty/zeros): compute it inside a kernel, or make it an "
                      "input of the op")
    return None, ("a tensor that is neither an input nor an output of the op, nor a buffer the "
                  "host code allocates (torch.empty/zeros): pass the kernel the op's tensors, "
                  "views of them, or buffers the host code allocates")


def recover_launches(op, example, traced, dtypes, samples=12, seed=1, arch=90,
                     example_equalities=True, log=print,
                     max_block=kernel_variants.DEFAULT_MAX_BLOCK):
    """The launches of the op's host code for one structure (ranks, list lengths); a constexpr
    that changes with the shapes becomes a family of powers of two up to `max_block`."""
    rng = random.Random(seed)
    notes = set()
    # Samples run in the first dtype asked for (a launch that changes with the dtype is refused
    # below, so each dtype's launcher is right).
    sample = DTYPES[dtypes[0]]
    _relations_between_inputs(op, example, traced, rng, arch, example_equalities, notes, log,
                              sample)
    # Fitted on the points with one long axis each, the edge points the host code takes and
    # `samples` others; checked on the rest.
    points = sample_points(op, example, traced.requires, traced.symbols, 0, rng, long_axes=True)
    others = sample_points(op, example, traced.requires, traced.symbols,
                            2 * (samples + len(points)), rng)
    runs = [_checked_run(op, point, sample, arch, notes, sample) for point in points + others]
    _kernels_do_the_writing(op, runs[0])
    for run in runs[1:]:
        _same_launches(op, runs[0].records, run.records, run.point)
    edges, edge_runs = _edge_points(op, example, traced, rng, arch, runs[0].records, notes,
                                    sample)
    samples += len(points) + len(edges)
    runs = runs[:len(points)] + edge_runs + runs[len(points):]
    points = points + edges + others
    plugin_shapes = [_plugin_outputs(op, point, sample) for point in points]
    _note_host_allocations(op, runs[0], plugin_shapes[0], dtypes, arch, notes)
    envs = [fitting.environment(op, point, {k: list(t.shape) for k, t in run.inputs.items()},
                                [list(t.shape) for t in outputs])
            for point, run, outputs in zip(points, runs, plugin_shapes)]
    dtype_runs = {d: _checked_run(op, points[0], DTYPES[d], arch, notes, sample)
                  for d in dtypes}
    _other_dtypes_at(op, points[1:], runs[1:], dtypes, arch)
    plugin_dtypes = {d: [t.dtype for t in _plugin_outputs(op, points[0], DTYPES[d])]
                     for d in dtypes}
    scratch = _scratch_buffers(op, runs, envs, samples, dtype_runs)
    launches = []
    for position, record in enumerate(runs[0].records):
        recorded = [run.records[position] for run in runs]

        probe = _Prober(op, example, traced, position, arch, points, runs[0].records, sample)
        launches.append(_recover_launch(op, position, record, recorded, envs, runs, samples,
                                        dtype_runs, scratch, plugin_dtypes, probe, max_block,
                                        arch, notes))
    for note in sorted(notes):
        log(f"{op.qualname}: note: {note}")
    return RecoveredLaunches(launches, [buffer for buffer, _ in scratch.values()], sorted(notes),
                             _zeroed_outputs(op, runs[0]), _copied_outputs(op, runs[0]))


def _kernels_do_the_writing(op, run):
    """Refuses host code whose outputs, or buffers its kernels use, PyTorch computes or writes
    (`loss = torch.sum(loss_1d)`, `losses += lse`): a plugin runs the kernels only. A buffer
    cleared (`zero_()`) before the first kernel is as if allocated with zeros."""
    kernel_tensors = {storage_key(v) for r in run.records for v in r.arguments.values()
                      if isinstance(v, torch.Tensor)}
    for index, tensor in enumerate(run.outputs):
        key = storage_key(tensor)
        if key not in kernel_tensors:
            made = run.made.get(key)
            how = f" ({made[0]} at {made[1]}: {made[2]})" if made else ""
            raise GenerationError(
                f"op '{op.qualname}': output {index} is written by none of its kernels: the "
                f"host code computes it with PyTorch{how}, and a plugin runs the kernels only: "
                "compute it in a kernel, or make the op return what its kernels write (and "
                "finish in PyTorch)")
    outputs = {storage_key(t) for t in run.outputs}
    copied = _copied_outputs(op, run)
    for index, tensor in enumerate(run.outputs):
        made = run.made.get(storage_key(tensor))
        if (made and made[0] not in ALLOCATIONS and
                index not in dict(copied) and index >= len(op.mutated)):
            raise GenerationError(
                f"op '{op.qualname}': output {index} starts as what PyTorch computes "
                f"({made[0]} at {made[1]}: {made[2]}) before its kernels, and a plugin runs the "
                "kernels only (an output starts as torch.empty; a copy of an input, `x.clone()`, "
                "is copied by the launcher): compute it in a kernel")
    for key, name, where, line, launches_before in run.writes:
        if key not in kernel_tensors and key not in outputs:
            continue
        if name == "zero_" and launches_before == 0 and key in run.made:
            continue  # run_body took it for an allocation with zeros
        if name == "copy_" and launches_before == 0 and key in run.copies:
            continue  # a copy of an input: the launcher copies it
        raise GenerationError(
            f"op '{op.qualname}': the host code writes a tensor its kernels use with PyTorch "
            f"({name} at {where}: {line}), and a plugin runs the kernels only: do that in a "
            "kernel (a buffer to clear: allocate it with torch.zeros)")


def _copied_outputs(op, run):
    """(output index, input name) of the outputs the host code starts as a copy of an input of
    the same shape and dtype (`out = x.clone()`, then a kernel updating `out`): the launcher
    copies the input into the output first."""
    inputs = {storage_key(t): (name, t) for name, t in run.inputs.items()}
    copied = []
    for index, tensor in enumerate(run.outputs):
        source = inputs.get(run.copies.get(storage_key(tensor)))
        if (source is not None and source[1].shape == tensor.shape and
                source[1].dtype == tensor.dtype):
            copied.append((index, source[0]))
    return copied


def _edge_points(op, example, traced, rng, arch, launches, notes, dtype):
    """Points a value may change at that random samples seldom reach, kept where the host code
    takes them with the same kernels: each float attribute at 0 and 1 (a feature a value turns
    off: `DO_SOFTCAPPING = softcap != 0`), and each axis very long (16K to 100K, 2^16 and
    2^16 + 1: tiles of the largest blocks, `cdiv(n, 2048)`), the others short. (points, their
    runs)"""
    ties = tied_extents(traced.requires, traced.symbols)
    candidates = []
    for argument in op.arguments:
        if argument.kind == "float" and example[argument.name] is not None:
            for value in (0.0, 1.0):
                if example[argument.name] != value:
                    point = {name: list(v) if isinstance(v, list) else v
                             for name, v in example.items()}
                    candidates.append(({**point, argument.name: value}, None))
    tensors = {a.name for a in op.tensors}

    def accepted(point):
        return (point_elements(op, point) <= 4 * MAX_SAMPLE_ELEMENTS and
                broken_requirement(traced.requires, traced.symbols, point) is None)

    for argument in op.tensors:
        for axis in range(len(example[argument.name] or [])):
            # A random length, and 2^16 and 2^16 + 1: a multiple of every block and one past
            # it, where tiles of sizes a little apart part (`cdiv(T, 256)` and `cdiv(T + 1,
            # 256)`, `cdiv(n, 2048)` and `cdiv(n // 2, 1024)`), which random lengths seldom
            # tell apart.
            # At 2^16 and 2^16 + 1 the other tensors keep the example's extents (a kernel
            # size of 4 that makes `T + 1` an output's length), the long one's others short.
            # At 2^22, more tiles than multiprocessors of the largest blocks: a persistent
            # kernel's grid, `min(NUM_SMS, cdiv(n, 1024))`, reaches its cap.
            for length, others in ((lambda: rng.randint(16384, 100000), False),
                                   (lambda: 65536, True), (lambda: 65537, True),
                                   (lambda: 1 << 22, False)):
                for _ in range(64):  # until the fake's requirements hold (an even extent, ...)
                    point = {name: ([rng.randint(1, 2) for _ in v] if name in tensors and
                                    v is not None and (name == argument.name or not others)
                                    else list(v) if isinstance(v, list) else v)
                             for name, v in example.items()}
                    point[argument.name][axis] = length()
                    keep = (argument.name, axis)
                    satisfy(tie(point, ties, keep=keep), traced.requires, traced.symbols,
                            keep=keep)
                    if accepted(point):
                        candidates.append((point, keep))
                        break
    points, runs = [], []
    for point, keep in candidates:
        if not accepted(point):
            continue
        try:
            run = run_body(op, point, dtype, arch)
        except HostFailure:
            continue  # the host code refuses it: so does the plugin, or a family limit
        if [r.kernel for r in run.records] != [r.kernel for r in launches]:
            notes.add(f"at {_show_point(op, point)} the host code launches "
                      f"{[r.kernel.fn.__name__ for r in run.records]}, not "
                      f"{[r.kernel.fn.__name__ for r in launches]}: the plugin runs the "
                      "example's kernels at every size it accepts")
            continue
        points.append(point)
        runs.append(run)
    return points, runs


def _show_point(op, point):
    return ", ".join(f"{a.name}={point[a.name]}" for a in op.arguments
                     if point[a.name] is not None)


def _zeroed_outputs(op, run):
    """The outputs the host code allocates with zeros (a kernel that adds into its output
    atomically relies on it): the launcher clears them, as TensorRT's memory is not cleared.
    The outputs written in place are inputs: not allocated."""
    return [index for index, tensor in enumerate(run.outputs)
            if index >= len(op.mutated)
            and run.made.get(storage_key(tensor), ("",))[0] in ZERO_ALLOCATIONS]


# A probe may set one extent to 65536 with the example's others: no memory is allocated.
PROBE_MAX_ELEMENTS = 1 << 28


class _Prober:
    """Runs the host code at chosen sizes, to read a family's launch per variant: called with a
    launcher atom (an input's extent or an int attribute) and a value, or through `reach` with a
    size the sizes compute (`C * H * W // num_groups`)."""

    def __init__(self, op, example, traced, position, arch, points, launches,
                 dtype=torch.float32):
        self.op, self.example, self.traced = op, example, traced
        self.position, self.arch, self.dtype = position, arch, dtype
        self.kernels = [r.kernel for r in launches]  # what the host code launches at the example
        self.bases = [example] + points  # where `reach` starts from, the example first
        self.launched = []  # the points run, with the example's kernels

    def __call__(self, atom, value):
        """The launch with `atom` set to `value`, the other sizes as in the example, and the
        atoms of that point's inputs and attributes; a GenerationError when the host code
        refuses it."""
        point = self._point_with(self.example, atom, value)
        self._check_requirements(point)
        return self._launch_at(point), fitting.point_atoms(self.op, point)

    def at_example(self):
        """The launch at the example's own sizes."""
        return self._launch_at(self.example)

    def reach(self, size_of, value, exact=True):
        """As __call__, at a point where `size_of` (a function of a fitting.Environment) gives
        `value` (with `exact` False: its next power of two is `value`), found by moving one
        extent or int attribute of the example, else of a sampled point; None where none is
        found. The host
        code's refusal at the first point found is raised."""
        for base in self.bases:
            for atom in self._settable(base):
                point = self._search(base, atom, size_of, value, exact)
                if point is not None:
                    return self._launch_at(point), fitting.point_atoms(self.op, point)
        return None

    def size_at(self, size_of, point):
        try:
            return size_of(fitting.Environment(fitting.point_atoms(self.op, point)))
        except (KeyError, TypeError, ZeroDivisionError):
            return None

    def _settable(self, base):
        atoms = []
        for argument in self.op.arguments:
            value = base[argument.name]
            if argument.kind == "Tensor" and value is not None:
                atoms += [f"{argument.name}.size({axis})" for axis in reversed(range(len(value)))]
            elif argument.kind == "int" and not isinstance(value, bool) and not argument.structural:
                atoms.append(argument.name)
        return atoms

    def _search(self, base, atom, size_of, value, exact):
        """A point from `base` with `atom` moved so that `size_of` reaches `value`: doubling, then
        bisection (sizes grow with an extent), then the next settings the op accepts (a size
        that must be even); None where there is none."""
        def size_with(setting):
            return self.size_at(size_of, self._point_with(base, atom, setting))

        high = 1
        while True:
            size = size_with(high)
            if size is None or high > 1 << 22:
                return None
            if size >= value:
                break
            high *= 2
        low = high // 2 + 1 if high > 1 else 1
        while low < high:
            middle = (low + high) // 2
            size = size_with(middle)
            if size is None:
                return None
            if size >= value:
                high = middle
            else:
                low = middle + 1
        for setting in range(low, low + 64):
            point = self._point_with(base, atom, setting)
            size = self.size_at(size_of, point)
            if size is None or size > value:
                return None
            if (size == value or not exact and
                    kernel_variants.next_power_of_2(size) == value) and self._accepted(point):
                return point
        return None

    def _check_requirements(self, point):
        import sympy
        relation = broken_requirement(self.traced.requires, self.traced.symbols, point)
        if relation is not None:
            names = {s: sympy.Symbol(self.traced.symbols[s].cpp())
                     for s in relation.free_symbols if s in self.traced.symbols}
            allowed = allowed_values(relation)
            if allowed is not None:  # one of a set: `q[3] in {16, 32, 64, 128}`
                raise kernel_variants.OutsideRequirements(
                    set_text(names.get(allowed[0], allowed[0]), allowed[1]))
            raise kernel_variants.OutsideRequirements(str(relation.xreplace(names)))

    def _accepted(self, point):
        return (point_elements(self.op, point) <= PROBE_MAX_ELEMENTS and
                broken_requirement(self.traced.requires, self.traced.symbols, point) is None)

    def _point_with(self, base, atom, value):
        point = copy_point(base)
        keep = None
        if ".size(" in atom:
            tensor, axis = atom.split(".size(")
            keep = (tensor, int(axis.rstrip(")")))
            point[tensor][keep[1]] = value
        else:
            point[atom] = value
            keep = (atom, None)  # an int attribute: the other sizes follow it
        tie(point, tied_extents(self.traced.requires, self.traced.symbols), keep=keep)
        satisfy(point, self.traced.requires, self.traced.symbols, keep=keep)
        return point

    def _launch_at(self, point):
        try:
            records = run_body(self.op, point, self.dtype, self.arch).records
        except HostFailure as failure:
            raise GenerationError(f"{failure.where.strip()}: {type(failure.error).__name__}: "
                                  f"{failure.error}") from None
        if [r.kernel for r in records] != self.kernels:
            # Another path (Unsloth's chunked cross entropy for long rows): not the plugin's.
            raise GenerationError(f"at {_show_point(self.op, point)} it launches "
                                  f"{[r.kernel.fn.__name__ for r in records]} instead")
        self.launched.append(point)
        return records[self.position]


def _checked_run(op, point, dtype, arch, notes, sample=torch.float32):
    """The host code's run at a point the plugin accepts: a failure there is a refusal (`sample`:
    the dtype the points are sampled in; another dtype that fails is the dtype's refusal)."""
    try:
        return run_body(op, point, dtype, arch, notes)
    except HostFailure as failure:
        if dtype != sample:
            raise GenerationError(
                f"op '{op.qualname}': its host code rejects {str(dtype).replace('torch.', '')} "
                f"inputs {failure.shapes}{failure.where}: {type(failure.error).__name__}: "
                f"{failure.error}. Generate with --dtypes that it takes; or, where the check depends on the "
                "dtype (through element_size()) and the sizes would suit it, state in the fake "
                "a condition on the sizes that holds for every dtype (the fake is traced in "
                "float32)") from None
        if isinstance(failure.error, (NameError, AttributeError, ImportError, TypeError)):
            raise GenerationError(
                f"op '{op.qualname}': its host code fails at {failure.shapes}{failure.where}: "
                f"{error_text(failure.error)}: an error in the code rather "
                "than a check of the sizes: fix the host code (if it runs eagerly on a GPU as "
                "it is, from-torch's fake tensors miss something: report it)") from None
        raise GenerationError(
            f"op '{op.qualname}': its host code rejects sizes the plugin would accept, "
            f"{failure.shapes}{failure.where}: {error_text(failure.error)}. "
            "State that condition in the fake implementation (torch._check(...)) so that the "
            "plugin requires it") from None


def _plugin_outputs(op, point, dtype):
    """The outputs TensorRT allocates: the fake implementation's (meta tensors)."""
    outputs = fake_outputs(op, point, dtype)
    if outputs is None:
        raise GenerationError(f"op '{op.qualname}': its fake implementation rejects {point}, "
                              "which its traced requirements accept")
    return outputs


def _note_host_allocations(op, run, plugin_outputs, dtypes, arch, notes):
    """Notes each output the host code allocates otherwise than the fake says (the plugin's
    output is the fake's: its kernels get the fake's shape and dtype)."""
    differences = {}  # output -> the first dtype where the host code allocates otherwise
    for dtype in dtypes:
        host = run.outputs if dtype == "float32" else \
            _checked_run(op, run.point, DTYPES[dtype], arch, notes).outputs
        plugin = plugin_outputs if dtype == "float32" else \
            _plugin_outputs(op, run.point, DTYPES[dtype])
        for index, (mine, theirs) in enumerate(zip(host, plugin)):
            if list(mine.shape) != list(theirs.shape) or mine.dtype != theirs.dtype:
                differences.setdefault(index, (dtype, mine, theirs))
    for index, (dtype, mine, theirs) in differences.items():
        made = run.made.get(storage_key(run.outputs[index]))
        at = f" ({made[1]}: {made[2]})" if made else ""
        notes.add(f"output {index}: the host code allocates {list(mine.shape)} "
                  f"{str(mine.dtype).replace('torch.', '')}{at} where the fake implementation "
                  f"gives {list(theirs.shape)} {str(theirs.dtype).replace('torch.', '')} "
                  f"(inputs {dtype}); the plugin's output is the fake's, and its kernels get "
                  "that shape and dtype")


def _relations_between_inputs(op, example, traced, rng, arch, keep_assumed, notes, log,
                              dtype=torch.float32):
    """Extents of different inputs equal in the example that the fake does not relate (y and x of
    a vector add). Each pair is tried unequal, with the other extents equal in the example split
    every way around it ([64, 64] and [64, 64]: x[0] against y[1] with x[0] == y[0] and x[1] ==
    y[1] kept); where the host code fails at every split, it checks the equality (a requirement,
    with the line). Where it does not, nothing says the kernel can take unequal extents, so the
    equality is assumed (dropped with keep_assumed=False), unless one of the two is checked
    equal to another extent of the other's tensor (then the example's values only coincide), or
    the equalities required already imply it."""
    import sympy
    symbol_of = {(ref.name, ref.index): symbol for symbol, ref in traced.symbols.items()
                 if ref.kind == "extent"}
    group = {key: key for key in symbol_of}

    def find(key):
        while group[key] != key:
            key = group[key]
        return key

    for a, b in tied_extents(traced.requires, traced.symbols):
        if a in group and b in group:  # two extents, not an extent and an attribute
            group[find(a)] = find(b)
    key_of = {symbol: key for key, symbol in symbol_of.items()}
    # What each requirement relates, as classes of tied extents.
    related = [{find(key_of[symbol]) for symbol in relation.free_symbols if symbol in key_of}
               for relation in traced.requires]
    # Points of the fake's requirements alone: a pair equal at every one is implied by them
    # (`scales[0] == K // 16` and `zeros[0] == K // 16`).
    # (Their own random numbers: the samples drawn after this step stay those of ops without
    # such extents.)
    inside = sample_points(op, example, traced.requires, traced.symbols, 8, random.Random(0))
    candidates = []
    keys = list(symbol_of)
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            if a[0] == b[0] or example[a[0]][a[1]] != example[b[0]][b[1]] or find(a) == find(b):
                continue
            if any({find(a), find(b)} <= classes for classes in related):
                continue  # the fake relates them otherwise (`q.shape[2] <= cos.shape[0]`)
            if inside and all(p[a[0]][a[1]] == p[b[0]][b[1]] for p in inside):
                continue  # the fake's requirements make them equal
            candidates.append((a, b))
    if not candidates:
        return
    # Classes of extents the candidates connect (the ones a split may separate).
    linked = {key: key for pair in candidates for key in pair}

    def root(key):
        while linked[key] != key:
            key = linked[key]
        return key

    for a, b in candidates:
        linked[root(a)] = root(b)
    checked = {}  # pair -> the host code's failure at every split
    for a, b in candidates:
        members = [key for key in linked if root(key) == root(a) and key not in (a, b)]
        # The other classes' extents stay equal, as in the example.
        held = [sympy.Eq(symbol_of[x], symbol_of[y]) for x, y in candidates
                if root(x) != root(a)]
        failure = _separable(op, example, traced.requires + held, traced, symbol_of, a, b,
                             members, rng, arch, dtype)
        if failure is not None:
            checked[(a, b)] = failure
    partners = {}
    for a, b in checked:
        partners.setdefault(a, set()).add(b)
        partners.setdefault(b, set()).add(a)

    def coincide(a, b):
        """a is checked equal to another extent of b's tensor, or b to one of a's."""
        return any(p[0] == b[0] for p in partners.get(a, ())) or \
            any(p[0] == a[0] for p in partners.get(b, ()))

    traced.reasons = dict(traced.reasons or {})
    for a, b in candidates:
        relation = sympy.Eq(symbol_of[a], symbol_of[b])
        text = f"{a[0]}[{a[1]}] == {b[0]}[{b[1]}]"
        if find(a) == find(b):
            continue  # the equalities required already make them equal
        if (a, b) in checked:
            site = checked[(a, b)].where.split(" (")[0].replace(" at ", "", 1)
            traced.reasons[relation] = f"the host code checks it, {site}"
        elif coincide(a, b):
            continue  # the host code checks them equal to others: the values coincide
        elif _pinned(traced, symbol_of[a]) and _pinned(traced, symbol_of[b]):
            continue  # the fake fixes both (`x.shape[1] == 4`): equal already, nothing to add
        elif keep_assumed:
            traced.reasons[relation] = ("equal in the example; nothing in the fake or the host "
                                        "code says so")
            log(f"{op.qualname}: note: requiring {text}: the example has them equal and neither "
                "the fake implementation nor the host code says whether the kernel takes them "
                "unequal (add torch._check to the fake to say so, or --no-example-equalities to "
                "drop such assumptions)")
        else:
            log(f"{op.qualname}: note: not requiring {text} (--no-example-equalities)")
            continue
        traced.requires.append(relation)
        group[find(a)] = find(b)


# The splits of the other equal extents tried per pair (2^(n - 2) for n extents equal in the
# example): the smallest sides first.
MAX_SPLITS = 32


def _separable(op, example, requires, traced, symbol_of, a, b, members, rng, arch, dtype):
    """None where the host code runs with extents a and b unequal at some split of `members`
    (the other extents equal to them in the example) into a's side and b's side, each side equal
    within, inside `requires`; else the host code's first failure."""
    import itertools
    import sympy
    splits = [side for size in range(len(members) + 1)
              for side in itertools.combinations(members, size)][:MAX_SPLITS]
    first_failure = None
    for side in splits:
        with_a = [a, *side]
        with_b = [b, *[key for key in members if key not in side]]
        equal = [sympy.Eq(symbol_of[x], symbol_of[y]) for keys in (with_a, with_b)
                 for x, y in zip(keys, keys[1:])]
        points = [p for p in sample_points(op, example, requires + equal, traced.symbols, 6,
                                            rng)
                  if p[a[0]][a[1]] != p[b[0]][b[1]]]
        if not points and _pinned(traced, symbol_of[a]) and _pinned(traced, symbol_of[b]):
            return None
        failure = None
        for point in points:
            try:
                run_body(op, point, dtype, arch)
            except HostFailure as error:
                failure = error
                break
        if points and failure is None:
            return None
        first_failure = first_failure or failure
    return first_failure


def _pinned(traced, symbol):
    """Whether the fake's requirements fix the extent `symbol` to a constant."""
    import sympy
    return any(isinstance(r, sympy.Eq) and symbol in r.free_symbols and
               len(r.free_symbols) == 1 for r in traced.requires)


def _same_launches(op, first, second, point=None):
    """The same kernels at every sampled point (or a refusal naming what differs, and where)."""
    if [r.kernel for r in first] != [r.kernel for r in second]:
        where = f" (at {_show_point(op, point)})" if point is not None else ""
        empty = ("; where no kernel runs, the host code likely returns early for empty sizes: "
                 "state in the fake implementation the sizes it takes (torch._check(... >= 1)),"
                 " so that the plugin requires them" if not second else "")
        raise GenerationError(f"op '{op.qualname}': the kernels launched change with the shapes "
                              f"or attributes ({[r.kernel.fn.__name__ for r in first]} vs "
                              f"{[r.kernel.fn.__name__ for r in second]}{where}); a plugin needs "
                              "one launch sequence per structure: launch the same kernels at "
                              f"every size, or split the op where the sequence changes{empty}")


def _fit(op, *args):
    """fitting.fit, its refusal naming the op."""
    try:
        return fitting.fit(*args)
    except GenerationError as error:
        raise GenerationError(f"op '{op.qualname}': {error}") from None


def _scalar_type(values, name, where, line):
    """Triton's type for a scalar argument, as its launcher would specialise it."""
    if all(isinstance(v, (bool, np.bool_)) for v in values):
        return "i1"
    if all(isinstance(v, (np.floating, float)) for v in values):
        return "fp32"  # Triton passes Python floats as fp32
    if all(isinstance(v, (int, np.integer)) for v in values):
        if any(isinstance(v, (np.int64, np.uint64)) for v in values):
            return "i64"
        if all(-2**31 <= int(v) < 2**31 for v in values):
            return "i32"
        return "i64"
    kinds = sorted({type(v).__name__ for v in values})
    raise GenerationError(f"argument '{name}' ({where}: {line}): values of type "
                          f"{', '.join(kinds)} have no kernel scalar type: pass an int, float, "
                          "bool, NumPy scalar, or None for an absent tensor")


def _other_dtypes_at(op, points, runs, dtypes, arch):
    """Runs the host code in each dtype of --dtypes after the first at every sampled point, and
    refuses where another dtype's host code refuses a point the first's takes, or launches other
    kernels there: a limit or a choice that follows the element size (`MAX_FUSED_SIZE = 65536 //
    x.element_size()` choosing between a one-block and a looping kernel), which the samples,
    taken in the first dtype, would give every dtype's launcher. (A block that follows the
    element size in one kernel is the first dtype's for all: a launch eager runs at other sizes.)"""
    for point, run in zip(points, runs):
        _same_kernels_in_every_dtype(op, point, [r.kernel for r in run.records], dtypes, arch)


def _family_same_for_every_dtype(op, probe, dtypes, arch):
    """As _other_dtypes_at, at the sizes probed for a family (Liger's softmax: one block up to
    `65536 // x.element_size()` columns, 16384 in float32 and 32768 in float16, a looping kernel
    past it): the probes run in the first dtype."""
    for point in probe.launched:
        _same_kernels_in_every_dtype(op, point, probe.kernels, dtypes, arch)


def _same_kernels_in_every_dtype(op, point, kernels, dtypes, arch):
    """Refuses where the host code in a dtype after the first refuses `point` or launches other
    than `kernels` there."""
    for dtype in dtypes[1:]:
        try:
            records = run_body(op, point, DTYPES[dtype], arch).records
            why = (None if [r.kernel for r in records] == kernels else
                   f"launches {[r.kernel.fn.__name__ for r in records]}, not "
                   f"{[kernel.fn.__name__ for kernel in kernels]}")
        except HostFailure as failure:
            why = f"refuses it ({failure})"
        if why is not None:
            raise GenerationError(
                f"op '{op.qualname}': at {_show_point(op, point)} the host code runs in "
                f"{dtypes[0]} but in {dtype} {why}: its limits or kernels follow the dtype "
                "(`65536 // x.element_size()`), and launches are recovered from samples in "
                f"{dtypes[0]}, the first of --dtypes, so the {dtype} launcher would run what "
                f"eager {dtype} does not: generate each dtype in a project of its own "
                f"(--dtypes {dtype})")


def _recover_launch(op, position, first, recorded, envs, runs, samples, dtype_runs, scratch,
                    plugin_dtypes, probe, max_block, arch, notes):
    kernel = first.kernel
    kernel_name = kernel.fn.__name__
    fit_envs, check_envs = envs[:samples], envs[samples:]
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
        before = family and kernel_variants.Family(list(family.varying), dict(family.options))
        try:
            family, argument = kernel_variants.add_varying(
                family, op, name, first, recorded, constexprs, envs, context, probe, max_block)
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
                argument = _run_time_constexpr(op, name, first, values, fit_envs, check_envs,
                                               context, refusal, arch, notes, probe)
            except GenerationError as final:
                raise UnrecoveredConstexpr(str(final), position, kernel_name, name) from None
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
            arguments.append(_recover_pointer(op, name, context, position, recorded, runs,
                                              dtype_runs, scratch, plugin_dtypes, envs[:samples],
                                              envs[samples:]))
            continue
        try:
            triton_type = _scalar_type(values, name, first.where, first.line)
        except GenerationError as error:
            raise GenerationError(f"op '{op.qualname}': {error}") from None
        # An integer annotated `tl.int64` (or `tl.int32`) is compiled with that type, as
        # Triton's JIT compiles it (vLLM's strides: products with them do not overflow).
        annotated = annotation_types.get(name, "")
        if triton_type in ("i32", "i64") and annotated in ("i32", "i64"):
            triton_type = annotated
        cpp = _fit(op, values, fit_envs, check_envs, context, triton_type,
                   [c for c in (plain_value(first.arguments[n]) for n in constexprs)
                    if isinstance(c, int) and not isinstance(c, bool)])
        if cpp == "1" and triton_type in ("i32", "i64") and _specialized_on_one(kernel, name):
            # Triton's JIT compiles an integer that is 1 as the constant 1 (a contiguous
            # tensor's last stride): the kernel then vectorizes its accesses; so does ours.
            arguments.append(RecoveredArgument(name, "constexpr", constexpr="1"))
            continue
        arguments.append(RecoveredArgument(name, "scalar", cpp=cpp, triton_type=triton_type))
    for position_in_arguments, name, context in following:
        arguments[position_in_arguments] = add_varying(name, context)
    order = list(first.arguments)  # the signature's, as the variants' select() takes them
    if family is not None:
        family.varying.sort(key=lambda v: order.index(v.name))
        _family_same_for_every_dtype(op, probe, list(dtype_runs), arch)
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
            tiles = _grid_of_variant_tiles(recorded, values, envs, family) if stepped else ""
            grid.append(tiles or _fit(op, values, fit_envs, check_envs, context, "i64",
                                      block_sizes))
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
                           first.config, value_builds, kernel.fn.__globals__)


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
    compared = [axis for axis, text in enumerate(grid)
                if not text.startswith("std::min<std::int64_t>(")]
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
    `BLOCK_M = 128 if head_dim <= 64 else 64`): `ap::triton::cdiv(size, <the constexpr's C++>)`
    where that gives every sample's value; "" where none does."""
    for varying in (family.varying if family else []):
        tiles = [plain_value(r.arguments[varying.name]) for r in recorded]
        if not all(isinstance(t, int) and not isinstance(t, bool) and t > 0 for t in tiles):
            continue
        for text, function in fitting.candidates(envs, ()):
            try:
                if all(-(-fitting.integral_value(function(env)) // tile) == value
                       for env, tile, value in zip(envs, tiles, values)):
                    return f"ap::triton::cdiv({text}, {varying.cpp})"
            except (KeyError, TypeError, ZeroDivisionError):
                continue
    return ""


def _grid_capped_per_variant(recorded, values, envs, family, probe, axis, constants, refusal):
    """A grid of `min(programs, rows)` whose program count depends on the family's variant
    (Triton's fused-softmax tutorial: multiprocessors x the occupancy of each compiled block
    size): C++ picking each variant's count, read where the samples show it and else by
    running the host code at that variant with many rows; `refusal` where it is not that."""
    powers = next((v for v in (family.varying if family else []) if v.bounded), None)
    if powers is None or powers.steps:  # (a step function: its variants are not its powers)
        raise refusal
    variants = [plain_value(r.arguments[powers.name]) for r in recorded]
    kept = [(env, value, variant) for env, value, variant in zip(envs, values, variants)
            if str(variant) in powers.values]
    for text, function in fitting.candidates([env for env, _, _ in kept], constants):
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
            point = next((found for atom in probe._settable(base) for found in
                          [probe._search(base, atom, powers.size_of, power, False)]
                          if found is not None), None)
            if point is None:
                continue
            record = probe._launch_at(point)
            size = probe.size_at(function, point)
            if axis < len(record.grid) and size is not None and record.grid[axis] < size:
                caps[power] = int(record.grid[axis])
                break
    cases = " ".join(f"case {power}: return {caps[power]};" for power in sorted(caps))
    table = (f"[&]() -> std::int64_t {{ switch ({powers.cpp}) {{ {cases} default: return "
             "std::numeric_limits<std::int64_t>::max(); } }()")
    return f"std::min<std::int64_t>({table}, {text})"


def _specialized_on_one(kernel, name):
    """Whether Triton's JIT compiles parameter `name` as the constant 1 when it is passed 1: an
    integer parameter without do_not_specialize or a type annotation (which keeps its type)."""
    parameter = next((p for p in kernel.params if p.name == name), None)
    return (parameter is not None and not parameter.do_not_specialize
            and not getattr(parameter, "annotation_type", ""))


def _run_time_constexpr(op, name, first, values, fit_envs, check_envs, context, refusal, arch,
                        notes, probe):
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
        cpp = fitting.fit(plain, fit_envs, check_envs, context, triton_type)
    except GenerationError:
        raise refusal from None
    # Tried at the example's sizes: a sampled extent of 1 may leave another constexpr at a
    # value the kernel cannot compile with (`tl.arange(0, pad_hd // 2)`).
    problem = _compile_problem(probe.at_example(), name, triton_type, arch)
    if problem:
        advice = ("make the kernel take it as one, or compute it as a power of two of a size"
                  if triton_type != "fp32" else "make it a run-time argument (no tl.constexpr)")
        raise GenerationError(f"{refusal}; nor does the kernel compile with '{name}' as a run-time "
                              f"argument ({problem}): {advice}") from None
    notes.add(f"constexpr '{name}' of kernel '{first.kernel.fn.__name__}' ({first.where}) takes "
              f"every {what} ({cpp}); it is compiled as a run-time {triton_type} argument, which "
              "the kernel only computes with, and compiled in for the value each example gives "
              "it (SPECIALIZE_VALUES: give examples of the values you deploy)")
    return RecoveredArgument(name, "scalar", cpp=cpp, triton_type=triton_type)


def _compile_problem(record, name, triton_type, arch):
    """Why the recorded launch's kernel does not compile with constexpr `name` as a run-time
    argument of `triton_type` ("" when it does): one trial compilation by the build's own compile
    step (tools/triton_aot.py), the other constexprs at their recorded values."""
    import types
    aot = triton_aot_module()
    function = record.kernel
    parameters, constants = [], []
    for parameter, value in record.arguments.items():
        value = value if isinstance(value, torch.Tensor) else plain_value(value)
        if parameter == name:
            type_name = triton_type
        elif value is None or any(p.name == parameter and p.is_constexpr
                                  for p in function.params):
            # (an absent tensor passed as None is a constexpr, as the generated kernel has it)
            constants.append({"name": parameter, "value": aot.constexpr_text(value)})
            continue
        elif isinstance(value, torch.Tensor):
            type_name = "*" + TRITON_POINTER_TYPES.get(value.dtype, "fp32")
        else:
            type_name = _scalar_type([value], parameter, record.where, record.line)
        parameters.append({"name": parameter, "type": type_name, "divisibility": 1})
    args = types.SimpleNamespace(  # what the compile step's metadata records
        arch=arch, source=function.fn.__code__.co_filename, kernel=function.fn.__name__,
        signature=", ".join(p["type"] for p in parameters))
    try:
        aot.compile_variant(args, aot.Kernel(function, [], {}), parameters, constants,
                            function.fn.__name__,
                            int(record.options.get("num_warps", 4)),
                            int(record.options.get("num_stages", 3)))
    except Exception as error:  # noqa: BLE001 - Triton's compile errors have no common base
        return str(error).strip().splitlines()[-1] if str(error).strip() else type(error).__name__
    return ""


# Launch options a kernel compiled ahead of time takes at these values, whoever passes them.
_TRITON_OPTION_DEFAULTS = {"num_ctas": 1}
# Options that only let a kernel overlap the one before it: launched without them, it computes
# the same (a grid-dependency wait returns at once when the grid before has finished).
_OVERLAP_OPTIONS = {"launch_pdl": "the plugin launches the kernel without programmatic "
                                  "dependent launch, which computes the same without the overlap "
                                  "with the kernel before it"}
_NO_DEFAULT = object()


def _workspace_order(op, run):
    """The storages of the buffers the host code allocates, in the order kernels first get them."""
    order = []
    for record in run.records:
        for value in record.arguments.values():
            if isinstance(value, torch.Tensor):
                role, key = _tensor_role(op, value, run)
                if role == "workspace" and key not in order:
                    order.append(key)
    return order


def _scratch_buffers(op, runs, envs, samples, dtype_runs):
    """index -> (ScratchBuffer, its storage key in each run)."""
    orders = [_workspace_order(op, run) for run in runs]
    if len({len(order) for order in orders}) != 1:
        raise GenerationError(f"op '{op.qualname}': its host code allocates a different number "
                              "of scratch buffers at different sizes; a plugin needs one "
                              "workspace layout per structure")
    dtype_orders = {d: _workspace_order(op, run) for d, run in dtype_runs.items()}
    buffers = {}
    for index in range(len(orders[0])):
        made = [run.made[order[index]] for run, order in zip(runs, orders)]
        function, where, line, _ = made[0]
        context = f"the scratch buffer the host code allocates at {where} ({line})"
        numel = _fit(op, [m[3].numel() for m in made], envs[:samples], envs[samples:],
                     f"the element count of {context}", "i64")
        element_bytes = max(dtype_runs[d].made[dtype_orders[d][index]][3].element_size()
                            for d in dtype_runs)
        buffers[index] = (ScratchBuffer(numel, element_bytes, function in ZERO_ALLOCATIONS,
                                        where, line),
                          [order[index] for order in orders])
    return buffers


def _recover_pointer(op, name, context, position, recorded, runs, dtype_runs, scratch,
                     plugin_dtypes, fit_envs, check_envs):
    roles = set()
    offsets = []
    for position_in_runs, (record, run) in enumerate(zip(recorded, runs)):
        value = record.arguments[name]
        role, which = _tensor_role(op, value, run)
        if role is None:
            raise GenerationError(f"op '{op.qualname}': {context} is {which}")
        offsets.append(_view_offset(op, context, value, role, which, run))
        if role == "workspace":
            which = next(index for index, (_, keys) in scratch.items()
                         if keys[position_in_runs] == which)
        roles.add((role, which))
    if len(roles) != 1:
        raise GenerationError(f"op '{op.qualname}': {context} is a different tensor at different "
                              f"sizes ({sorted(map(str, roles))})")
    kind, which = roles.pop()
    pointer_types, tensor_types = {}, {}
    for dtype in plugin_dtypes:
        tensor = dtype_runs[dtype].records[position].arguments[name]
        role, what = _tensor_role(op, tensor, dtype_runs[dtype])
        if role is None:
            raise GenerationError(f"op '{op.qualname}': {context} is, for {dtype} inputs, {what}")
        if role != kind or (role != "workspace" and what != which):
            raise GenerationError(f"op '{op.qualname}': {context} is {kind} {which} for the first "
                                  f"dtype's inputs but {role} {what} for {dtype} inputs; a plugin "
                                  "passes each kernel parameter the same tensor")
        # The tensor's own dtype (an output's is the fake's), and the kernel's: a view in another
        # dtype (`out.view(torch.int32)`) is the same address, read as that dtype.
        whole = _whole(dtype_runs[dtype], role, what, tensor)
        own = plugin_dtypes[dtype][which] if kind == "output" else whole.dtype
        element = tensor.dtype if tensor.dtype != whole.dtype else own
        pointer_types[dtype] = _pointer_type(op, context, kind, element, view=element != own)
        tensor_types[dtype] = _pointer_type(op, context, kind, own)
        if _view_offset(op, context, tensor, role, what, dtype_runs[dtype]) != offsets[0]:
            raise GenerationError(f"op '{op.qualname}': {context} is a view whose start changes "
                                  f"with the dtype ({dtype} inputs); a plugin passes each "
                                  "dtype's kernel the same view")
    cpp = {"input": which, "output": fitting.output_name(op, which) if kind == "output" else "",
           "workspace": str(which)}[kind]
    offset = ""
    if any(offsets):
        # A view partway into the tensor (`a, b = x.chunk(2, dim=-1)`): its start is an
        # expression of the sizes, as its strides are.
        offset = _fit(op, offsets, fit_envs, check_envs,
                      f"the start of {context} (a view, in elements from its tensor's start)",
                      "i64", [])
    return RecoveredArgument(name, kind, cpp=cpp, pointer_types=pointer_types, offset=offset,
                             tensor_types=tensor_types)


def _pointer_type(op, context, kind, element, view=False):
    """Triton's pointer type of a tensor of dtype `element` (`view`: a view of the op's tensor
    in that dtype), or a refusal naming it."""
    if view and element in VIEW_POINTER_TYPES:
        return "*" + VIEW_POINTER_TYPES[element]
    if not view and kind in ("input", "output") and element in (torch.uint8, torch.bool):
        whose = "its output's dtype (the fake's)" if kind == "output" else "its dtype"
        raise GenerationError(
            f"op '{op.qualname}': {context}: {whose} is {element}, and TensorRT plugins cannot "
            "have bool or uint8 tensors: give that tensor int8 in the op (float8 bytes as int8, "
            "the kernel given `.view(torch.float8_e4m3fn)` of it; a mask as int8)")
    if element not in TRITON_POINTER_TYPES:
        whose = "its output's dtype (the fake's)" if kind == "output" else "its dtype"
        raise GenerationError(
            f"op '{op.qualname}': {context}: {whose} is {element}, which from-torch does not "
            "generate (float32, float16, bfloat16, float64, int8/16/32/64, uint8 and bool "
            "are; uint8 and bool only inside the op): give that tensor one of these dtypes (e.g. "
            "float8 bytes as int8 in the op's schema and its fake, the kernel given "
            "`.view(torch.float8_e4m3fn)` of it)")
    return "*" + TRITON_POINTER_TYPES[element]


def _whole(run, role, which, value):
    """The op's input or output a kernel argument `value` is (or views); a scratch buffer's
    view is itself."""
    return (run.inputs[which] if role == "input" else run.outputs[which] if role == "output"
            else value)


def _view_offset(op, context, value, role, which, run):
    """Elements from the start of the op's tensor (or scratch buffer) `value` views to where
    the view starts."""
    if role == "workspace":
        if value.storage_offset() != 0:
            raise GenerationError(f"op '{op.qualname}': {context} is a view that starts "
                                  f"{value.storage_offset()} elements into a scratch buffer (at "
                                  f"{_show_point(op, run.point)}); a plugin passes whole scratch "
                                  "buffers: pass the buffer and the offset")
        return 0
    whole = _whole(run, role, which, value)
    if value.dtype != whole.dtype:
        if value.storage_offset() * value.element_size() != \
                whole.storage_offset() * whole.element_size():
            raise GenerationError(f"op '{op.qualname}': {context} is a {value.dtype} view "
                                  f"partway into a {whole.dtype} tensor (at "
                                  f"{_show_point(op, run.point)}); a plugin passes such a view "
                                  "from its tensor's start only")
        return 0
    offset = value.storage_offset() - whole.storage_offset()
    if offset < 0:
        raise GenerationError(f"op '{op.qualname}': {context} starts {-offset} elements before "
                              f"the {role} it views (at {_show_point(op, run.point)}); a plugin "
                              f"passes the {role} TensorRT gives it, from its start")
    return offset
