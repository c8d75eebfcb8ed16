"""The op's host code run at chosen points for the launch recovery (launches.py): the samples
checked (the same kernels everywhere, each dtype's too), the edge points random samples seldom
reach, the prober that reads a family's launch per variant, and the relations between inputs'
extents that the host code needs (an equality the example has and nothing states).
"""
import random

import torch

from . import fitting
from .errors import GenerationError
from .families import OutsideRequirements, next_power_of_2
from .host import (HostFailure, MAX_SAMPLE_ELEMENTS, broken_requirement, error_text,
                   point_elements, run_body, sample_points, storage_key)
from .points import (allowed_values, copy_point, relation_text, satisfy, set_text, tie,
                     tied_extents)
from .shapes import fake_outputs


DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def edge_points(op, example, traced, rng, arch, launches, notes, dtype):
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
            notes.add(f"at {show_point(op, point)} the host code launches "
                      f"{[r.kernel.fn.__name__ for r in run.records]}, not "
                      f"{[r.kernel.fn.__name__ for r in launches]}: the plugin runs the "
                      "example's kernels at every size it accepts")
            continue
        points.append(point)
        runs.append(run)
    return points, runs


def show_point(op, point):
    return ", ".join(f"{a.name}={point[a.name]}" for a in op.arguments
                     if point[a.name] is not None)


# A probe may set one extent to 65536 with the example's others: no memory is allocated.
PROBE_MAX_ELEMENTS = 1 << 28


class Prober:
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
        self._example_launch = None

    def __call__(self, atom, value):
        """The launch with `atom` set to `value`, the other sizes as in the example, and the
        atoms of that point's inputs and attributes; a GenerationError when the host code
        refuses it."""
        point = self._point_with(self.example, atom, value)
        self._check_requirements(point)
        return self.launch_at(point), fitting.point_atoms(self.op, point)

    def at_example(self):
        """The launch at the example's own sizes (run once)."""
        if self._example_launch is None:
            self._example_launch = self.launch_at(self.example)
        return self._example_launch

    def reach(self, size_of, value, exact=True):
        """As __call__, at a point where `size_of` (a function of a fitting.Environment) gives
        `value` (with `exact` False: its next power of two is `value`), found by moving one
        extent or int attribute of the example, else of a sampled point; None where none is
        found. The host
        code's refusal at the first point found is raised."""
        for base in self.bases:
            for atom in self.settable(base):
                point = self.search(base, atom, size_of, value, exact)
                if point is not None:
                    return self.launch_at(point), fitting.point_atoms(self.op, point)
        return None

    def size_at(self, size_of, point):
        try:
            return size_of(fitting.Environment(fitting.point_atoms(self.op, point)))
        except (KeyError, TypeError, ZeroDivisionError):
            return None

    def settable(self, base):
        """The launcher atoms a probe may move from `base`: each input's extents (the last
        first) and the int attributes that are not part of the structure."""
        atoms = []
        for argument in self.op.arguments:
            value = base[argument.name]
            if argument.kind == "Tensor" and value is not None:
                atoms += [f"{argument.name}.size({axis})" for axis in reversed(range(len(value)))]
            elif argument.kind == "int" and not isinstance(value, bool) and not argument.structural:
                atoms.append(argument.name)
        return atoms

    def search(self, base, atom, size_of, value, exact):
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
                    next_power_of_2(size) == value) and self._accepted(point):
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
                raise OutsideRequirements(
                    set_text(names.get(allowed[0], allowed[0]), allowed[1]))
            raise OutsideRequirements(str(relation.xreplace(names)))

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

    def launch_at(self, point):
        """The probed launch as the host code makes it at `point`; GenerationError where the
        host code fails there or launches other kernels."""
        try:
            records = run_body(self.op, point, self.dtype, self.arch).records
        except HostFailure as failure:
            raise GenerationError(f"{failure.where.strip()}: {type(failure.error).__name__}: "
                                  f"{failure.error}") from None
        if [r.kernel for r in records] != self.kernels:
            # Another path (Unsloth's chunked cross entropy for long rows): not the plugin's.
            raise GenerationError(f"at {show_point(self.op, point)} it launches "
                                  f"{[r.kernel.fn.__name__ for r in records]} instead")
        self.launched.append(point)
        return records[self.position]


def runs_at_example(op, example, dtype, arch):
    """Refuses an op whose host code fails at its own example, before anything is learnt from
    where it fails (xFormers' split-K attention takes no float32, nor any input where its C++
    extension did not load): it names the example and the dtype, not a sampled point."""
    try:
        run_body(op, example, dtype, arch)
    except HostFailure as failure:
        raise GenerationError(
            f"op '{op.qualname}': its host code fails at the example itself, "
            f"{show_point(op, example)} "
            f"in {str(dtype).replace('torch.', '')}{failure.where}: "
            f"{error_text(failure.error)}. from-torch converts what the host code runs: give an "
            "--example it takes, and first in --dtypes a dtype it takes (the host code is "
            "sampled in the first)") from None


def checked_run(op, point, dtype, arch, notes, sample=torch.float32):
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


def plugin_outputs(op, point, dtype):
    """The outputs TensorRT allocates: the fake implementation's (meta tensors)."""
    outputs = fake_outputs(op, point, dtype)
    if outputs is None:
        raise GenerationError(f"op '{op.qualname}': its fake implementation rejects {point}, "
                              "which its traced requirements accept")
    return outputs


def note_host_allocations(op, run, outputs_at_run, dtypes, arch, notes):
    """Notes each output the host code allocates otherwise than the fake says (the plugin's
    output is the fake's: its kernels get the fake's shape and dtype); `outputs_at_run`: the
    plugin's outputs at the run's point, in the dtype it ran in."""
    differences = {}  # output -> the first dtype where the host code allocates otherwise
    for dtype in dtypes:
        host = run.outputs if dtype == "float32" else \
            checked_run(op, run.point, DTYPES[dtype], arch, notes).outputs
        plugin = outputs_at_run if dtype == "float32" else \
            plugin_outputs(op, run.point, DTYPES[dtype])
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


def relations_between_inputs(op, example, traced, rng, arch, keep_assumed, notes, log,
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
        if failure is not None and _reattributed(op, example, traced, held, symbol_of, a, b,
                                                 members, arch, dtype, log):
            failure = None
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
            sites = checked[(a, b)].sites
            traced.reasons[relation] = "the host code checks it" + (
                f", {sites[0].location}" if sites else "")
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


def _reattributed(op, example, traced, held, symbol_of, a, b, members, arch, dtype, log):
    """Whether a learnt requirement was stated on the wrong one of extents equal in the example,
    and now is on the right one. The domain is learnt with such extents held equal, where a
    relation on one holds on the others too: with [16, 7168] activations and [16, 56] weight
    scales, `cdiv(B.shape[0], 128) == Bs.shape[0]` may be learnt as `A[0] == cdiv(B[0], 128)`,
    and then every split of A[0] from Bs[0] fails. The relation moves onto another extent of the
    class (with its reason, and a note) where then a split works."""
    keys = [a, b, *members]
    symbols = {symbol_of[key] for key in keys}
    # Own random numbers: the samples drawn after this step stay those of other ops.
    rng = random.Random(0)
    for relation in [r for r in traced.requires if r in (traced.reasons or {})]:
        if not relation.free_symbols - symbols:
            continue  # between extents of the class: a tie, which the split tests
        for symbol in sorted(relation.free_symbols & symbols, key=str):
            for other in sorted(symbols - {symbol}, key=str):
                moved = relation.xreplace({symbol: other})
                if moved in traced.requires:
                    continue
                requires = [moved if r is relation else r for r in traced.requires]
                if _separable(op, example, requires + held, traced, symbol_of, a, b, members,
                              rng, arch, dtype) is None:
                    index = traced.requires.index(relation)
                    traced.requires[index] = moved
                    traced.reasons[moved] = traced.reasons.pop(relation)
                    log(f"{op.qualname}: note: requires {relation_text(moved, traced.symbols)} "
                        f"rather than {relation_text(relation, traced.symbols)} (learnt with "
                        "the extents equal in the example held equal): so stated, the host code "
                        "takes those extents unequal")
                    return True
    return False


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


def same_launches(op, first, second, point=None):
    """The same kernels at every sampled point (or a refusal naming what differs, and where)."""
    if [r.kernel for r in first] != [r.kernel for r in second]:
        where = f" (at {show_point(op, point)})" if point is not None else ""
        empty = ("; where no kernel runs, the host code likely returns early for empty sizes: "
                 "state in the fake implementation the sizes it takes (torch._check(... >= 1)),"
                 " so that the plugin requires them" if not second else "")
        raise GenerationError(f"op '{op.qualname}': the kernels launched change with the shapes "
                              f"or attributes ({[r.kernel.fn.__name__ for r in first]} vs "
                              f"{[r.kernel.fn.__name__ for r in second]}{where}); a plugin needs "
                              "one launch sequence per structure: launch the same kernels at "
                              f"every size, or split the op where the sequence changes{empty}")


def other_dtypes_at(op, points, runs, dtypes, arch):
    """Runs the host code in each dtype of --dtypes after the first at every sampled point, and
    refuses where another dtype's host code refuses a point the first's takes, or launches other
    kernels there: a limit or a choice that follows the element size (`MAX_FUSED_SIZE = 65536 //
    x.element_size()` choosing between a one-block and a looping kernel), which the samples,
    taken in the first dtype, would give every dtype's launcher. (A block that follows the
    element size in one kernel is the first dtype's for all: a launch eager runs at other sizes.)"""
    for point, run in zip(points, runs):
        _same_kernels_in_every_dtype(op, point, [r.kernel for r in run.records], dtypes, arch)


def family_same_for_every_dtype(op, probe, dtypes, arch):
    """As other_dtypes_at, at the sizes probed for a family (Liger's softmax: one block up to
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
                f"op '{op.qualname}': at {show_point(op, point)} the host code runs in "
                f"{dtypes[0]} but in {dtype} {why}: its limits or kernels follow the dtype "
                "(`65536 // x.element_size()`), and launches are recovered from samples in "
                f"{dtypes[0]}, the first of --dtypes, so the {dtype} launcher would run what "
                f"eager {dtype} does not: generate each dtype in a project of its own "
                f"(--dtypes {dtype})")
