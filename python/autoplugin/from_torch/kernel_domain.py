"""Where the example's kernels run: the domain's requirements that keep a plugin to them.

Host code may launch other kernels at other sizes (`if D <= 512:` one kernel, else another), and
a constexpr no family recovers (a bucket of the rows, a filter width the kernel unrolls over)
takes other values elsewhere. `keep_to_example_kernels` requires the side of a threshold the
example is on, where one threshold on one size (or a run of an input's extents) rules out every
sampled point of the other kernels and the sizes on either side of it confirm it;
`hold_constexpr` holds such a constexpr at the example's value by bounds on the sizes it
follows. Both sample points and run the host code as the domain learner (`domain`) does, and
write what they require in its words.
"""
import random

import sympy

from .domain import (POINTS_PER_ROUND, assuming, moved_one_at_a_time, moved_point,
                     runs_of_extents, shown)
from .errors import GenerationError
from .host import run_body, sample_points
from .points import allowed_values, holds, point_values, relation_text
from .records import shape_numel
from .shapes import fake_outputs


# Points of other kernels a threshold is confirmed from, besides the example.
CONFIRMING = 3
# Powers of two a launch-sequence threshold is looked for at (`if D <= 512:`).
THRESHOLDS = [1 << k for k in range(0, 23)]


def keep_to_example_kernels(op, example, traced, dtype, arch, assumed=(), seed=11):
    """Where the host code launches other kernels at some sizes (`if D <= 512:` one kernel, else
    another), requires the side of a threshold the example is on, when one threshold on one
    size (or a run of an input's extents) rules out every sampled point of the other kernels
    (keeping the most of the example's) and the sizes on either side of it confirm it.
    Returns whether it added one. The `assumed` relations are held while looking, not added."""
    with assuming(traced, assumed):
        return _keep_to_example_kernels(op, example, traced, dtype, arch, seed)


def _keep_to_example_kernels(op, example, traced, dtype, arch, seed):
    symbols = traced.symbols
    first = _kernels(op, example, dtype, arch)
    if not symbols or first is None:
        return False
    rng = random.Random(seed)
    points = sample_points(op, example, traced.requires, symbols, 2 * POINTS_PER_ROUND, rng)
    points += moved_one_at_a_time(op, example, traced, True)
    same, other = [point_values(symbols, example)], []
    for point in points:
        kernels = _kernels(op, point, dtype, arch)
        if kernels is not None:
            (same if kernels == first else other).append((point_values(symbols, point), kernels, point))
            if kernels == first:
                same[-1] = same[-1][0]
    if not other:
        return False
    others = [values for values, _, _ in other]
    # Thresholds that rule out every point of other kernels, the one keeping the most points of
    # the example's first: where a condition on two sizes chooses the kernels (`BLOCK > 256 or
    # rows < 32768`), the side of one of them that always gives the example's.
    separating = [(relation, size) for relation, size in
                  _thresholds(symbols, example, op) + _members(traced, example)
                  if holds(relation, same[0]) and not any(holds(relation, v) for v in others)]
    separating.sort(key=lambda found: -sum(holds(found[0], v) for v in same))
    for relation, size in separating:
        if not any(_confirmed(op, base, traced, relation, size, first, dtype, arch)
                   for base in [example] + [point for _, _, point in other[:CONFIRMING]]):
            continue
        _, kernels, point = other[0]
        traced.requires.append(relation)
        if traced.reasons is None:
            traced.reasons = {}
        text = relation_text(relation, symbols)
        elsewhere = "at its other values" if isinstance(relation, sympy.Eq) else "past it"
        traced.reasons[relation] = (f"the host code launches {_names(kernels)} instead of "
                                    f"{_names(first)} {elsewhere}")
        op.notes.append(f"requires {text}: {elsewhere} the host code launches {_names(kernels)} "
                        f"instead of the example's {_names(first)} (e.g. at {shown(op, point)});"
                        " a plugin runs one launch sequence per structure")
        return True
    return False


def _kernels(op, point, dtype, arch):
    """The names of the kernels the host code launches at `point`, or None where it fails."""
    if fake_outputs(op, point, dtype) is None:
        return None
    try:
        run = run_body(op, point, dtype, arch)
    except Exception:  # noqa: BLE001 - the launch recovery reports failures
        return None
    return [record.kernel.fn.__name__ for record in run.records]


def _names(kernels):
    return ", ".join(dict.fromkeys(kernels))


def _thresholds(symbols, example, op):
    """(relation, the size it bounds) for each power-of-two threshold on an extent, an int
    attribute or a run of an input's extents, each side of it the example is on (at or past
    it, or not), size before product."""
    sizes = [(symbol, ref.value(example)) for symbol, ref in symbols.items()]
    sizes += runs_of_extents(symbols, example, op)
    found = []
    for size, value in sizes:
        for threshold in THRESHOLDS:
            # `if K >= 1024:` as well as `if K > 1024:`: the boundary on either side of it.
            for relation in (sympy.Le, sympy.Gt, sympy.Lt, sympy.Ge):
                if relation(value, threshold) == sympy.true:
                    found.append((relation(size, threshold), size))
    return found


def _members(traced, example):
    """(size == the example's value, size) for each size a requirement keeps to a set (`assert
    A.shape[-1] in [16, 32, 64]`, fla's solve_tril launching other kernels per member): no
    threshold's far side is inside the set, the example's member is."""
    found = []
    for relation in traced.requires:
        allowed = allowed_values(relation)
        if allowed is not None and allowed[0] in traced.symbols:
            symbol = allowed[0]
            found.append((sympy.Eq(symbol, traced.symbols[symbol].value(example)), symbol))
    return found


def _confirmed(op, base, traced, relation, size, first, dtype, arch):
    """Whether the point `base` (the example, or a point of other kernels: where a condition on
    two sizes chooses them, only there does the threshold show) moved to the threshold launches
    the example's kernels and moved past it launches others (for a run of extents, its first
    extent moved)."""
    threshold = int(relation.rhs)
    symbol = next(iter(size.free_symbols)) if not size.is_Symbol else size
    ref = traced.symbols[symbol]
    if isinstance(relation, sympy.Eq):
        # A member of a set: the example's kernels there, the others' at its nearest member.
        allowed = next(values for values in map(allowed_values, traced.requires)
                       if values is not None and values[0] == symbol)[1]
        nearest = sorted((v for v in allowed if v != threshold), key=lambda v: abs(v - threshold))
        moved = [moved_point(op, base, traced, ref, v) for v in [threshold] + nearest[:1]]
        verdicts = [None if point is None else _kernels(op, point, dtype, arch) for point in moved]
        return len(verdicts) == 2 and verdicts[0] == first and verdicts[1] not in (None, first)
    rest = size.xreplace({symbol: 1}) if not size.is_Symbol else 1
    rest = int(rest.xreplace(point_values(traced.symbols, base))) if rest != 1 else 1
    # The sizes either side of the boundary: the nearest that meets the relation, and not.
    inside, outside = next((a, b) for a, b in ((threshold, threshold + 1),
                                               (threshold + 1, threshold),
                                               (threshold - 1, threshold),
                                               (threshold, threshold - 1))
                           if relation.func(a, threshold) and not relation.func(b, threshold))
    verdicts = []
    for target in (inside, outside):
        if target % rest:
            return False
        point = moved_point(op, base, traced, ref, target // rest)
        if point is None:
            return False
        verdicts.append(_kernels(op, point, dtype, arch))
    return verdicts[0] == first and verdicts[1] is not None and verdicts[1] != first
# How far a held constexpr's sizes are moved from the example looking for where it changes.
HOLD_REACH = 1 << 24
# Nor to a tensor of more elements than an int32 counts: the launchers pass sizes as int32 (a
# plugin refuses such tensors), and a library may switch to other code there and keep it
# (FlagGems regenerates its pointwise kernels with int64 indices, without stride orders).
HOLD_ELEMENTS = 1 << 31


def hold_constexpr(op, example, traced, position, kernel, name, dtype, arch, assumed=(),
                   seed=13):
    """Where constexpr `name` of the host code's `position`-th launch (of `kernel`) takes values
    no rule recovers (fla's `NB = cdiv(T, 65536)`, an autotune bucket; a filter width `W` the
    kernel unrolls over), requires the sizes around the example where it keeps the example's
    value, so that the kernel is compiled for that value: bounds on extents, int attributes or
    runs of an input's extents, each found by moving that size from the example until the value
    changes (an equality where any move changes it: a model's width), taken the one that rules
    out the most sampled points of other values first until none is left, then confirmed on
    points sampled inside them. Returns whether it added any (each noted in `op.notes`)."""
    with assuming(traced, assumed):
        return _hold_constexpr(op, example, traced, (position, kernel, name), dtype, arch,
                               random.Random(seed))


def _hold_constexpr(op, example, traced, which, dtype, arch, rng):
    symbols = traced.symbols
    held = _constexpr_at(op, example, which, dtype, arch)
    if held is None or not symbols:
        return False
    same, others = [], []
    for point in sample_points(op, example, traced.requires, symbols, 2 * POINTS_PER_ROUND,
                               rng) + moved_one_at_a_time(op, example, traced, True):
        value = _constexpr_at(op, point, which, dtype, arch)
        if value is not None:
            (same if value == held else others).append((point_values(symbols, point), value, point))
    if not others:
        return False
    candidates, moving = _held_bounds(op, example, traced, which, held, dtype, arch)
    # (in the trace's order, not the set's: a tie between tied extents, `cos[1]` and `sin[1]`,
    # goes to the same one in every run)
    candidates += [bound for bound in _separating_bounds(
        {symbol: ref for symbol, ref in symbols.items() if symbol in moving}, example, same,
        others)
                   if bound[0] not in {relation for relation, _ in candidates}]
    chosen, left = [], list(others)
    while left:
        scored = [(sum(not holds(r, v) for v, _, _ in left), -simplicity,
                   sum(holds(r, v) for v, _, _ in same), -index)
                  for index, (r, simplicity) in enumerate(candidates) if r not in chosen]
        best = max(scored, default=(0,))
        if best[0] == 0:
            return False
        relation = candidates[-best[3]][0]
        chosen.append(relation)
        left = [o for o in left if holds(relation, o[0])]
    traced.requires.extend(chosen)
    try:
        inside = sample_points(op, example, traced.requires, symbols, 2 * POINTS_PER_ROUND, rng)
    except GenerationError:
        inside = None  # (too narrow to sample: held too tightly)
    if inside is None or any(_constexpr_at(op, point, which, dtype, arch) not in (None, held)
                             for point in inside):
        for relation in chosen:
            traced.requires.remove(relation)
        return False
    _, kernel, name = which
    if traced.reasons is None:
        traced.reasons = {}
    for relation in chosen:
        _, value, point = next(o for o in others if not holds(relation, o[0]))
        traced.reasons[relation] = (f"kernel '{kernel}' is compiled for {name} = {held}, which "
                                    "the host code gives only there")
        op.notes.append(f"requires {relation_text(relation, symbols)}: kernel '{kernel}' is "
                        f"compiled for its constexpr {name} = {held}, the example's value; the "
                        f"host code gives it others at other sizes ({value} at "
                        f"{shown(op, point)}), which "
                        "no family of compiled variants recovered covers and the kernel does not "
                        "take at run time: generate with an example at the sizes you deploy")
    return True


def _constexpr_at(op, point, which, dtype, arch):
    """The text of constexpr `name` of the `position`-th launch (of `kernel`) at `point`, or None
    where the fake or the host code fails there or launches another kernel in its place."""
    position, kernel, name = which
    if fake_outputs(op, point, dtype) is None:
        return None
    try:
        records = run_body(op, point, dtype, arch).records
    except Exception:  # noqa: BLE001 - outside the domain: no value there
        return None
    if position >= len(records) or records[position].kernel.fn.__name__ != kernel:
        return None
    value = records[position].arguments.get(name)
    return repr(getattr(value, "value", value))


def _held_bounds(op, example, traced, which, held, dtype, arch):
    """(relation, simplicity) bounding each size on either side of the example where moving it
    there changes the constexpr: `s <= hi`, `s >= lo`, or `s == e` where any move changes it;
    for a run of an input's extents, where moving each of its extents bounds the product. And
    the extents and attributes whose moves change it."""
    sizes = [(symbol, ref.value(example)) for symbol, ref in traced.symbols.items()]
    sizes += runs_of_extents(traced.symbols, example, op)
    found = {}

    def edges(symbol):  # (low, high) of one extent or attribute moved alone
        if symbol not in found:
            ref = traced.symbols[symbol]

            def keeps(target):
                point = moved_point(op, example, traced, ref, target)
                if point is None or any(shape_numel(point[a.name]) >= HOLD_ELEMENTS
                                        for a in op.tensors if point[a.name] is not None):
                    return None
                there = _constexpr_at(op, point, which, dtype, arch)
                return None if there is None else there == held

            start, lowest = ref.value(example), 1 if ref.kind == "extent" else 0
            found[symbol] = (_last_kept(keeps, start, -1, lowest),
                             _last_kept(keeps, start, 1, lowest))
        return found[symbol]

    bounds = []
    for size, value in sizes:
        factors = sorted(size.free_symbols, key=str)
        lows, highs = [], []
        for factor in factors:
            rest = value // traced.symbols[factor].value(example)
            low, high = edges(factor)
            lows.append(None if low is None else low * rest)
            highs.append(None if high is None else high * rest)
        # (each factor's bound is at most the product's own, at its granularity: the closest)
        low = None if None in lows else min(lows)
        high = None if None in highs else max(highs)
        simplicity = 0 if size.is_Symbol else 1
        if high is not None and high == low:
            bounds.append((sympy.Eq(size, high), simplicity))
            continue
        if high is not None:
            bounds.append((sympy.Le(size, high), simplicity))
        if low is not None:
            bounds.append((sympy.Ge(size, low), simplicity))
    return bounds, {symbol for symbol, edge in found.items() if edge != (None, None)}


def _separating_bounds(symbols, example, same, others):
    """(relation, simplicity) for each of `symbols` (the sizes whose moves change the
    constexpr) whose sampled values where the constexpr keeps its value lie below (or above)
    every value where it changes above (below) the example's: the bound at the last value kept
    (a move alone may leave the domain first: `2 * R <= D` with D at the example's)."""
    bounds = []
    for symbol, ref in symbols.items():
        start = ref.value(example)
        kept = [start] + [values[symbol] for values, _, _ in same]
        changed = [values[symbol] for values, _, _ in others]
        above = [v for v in changed if v > start]
        if above and any(v < min(above) for v in kept):
            bounds.append((sympy.Le(symbol, max(v for v in kept if v < min(above))), 0))
        below = [v for v in changed if v < start]
        if below and any(v > max(below) for v in kept):
            bounds.append((sympy.Ge(symbol, min(v for v in kept if v > max(below))), 0))
    return bounds


def _last_kept(keeps, start, direction, lowest):
    """The farthest value from `start` in `direction` (+1 or -1) up to which `keeps` holds at
    every value probed, where a value past it is found at which it does not; None where none is
    found (the size reaches HOLD_REACH or `lowest`, or leaves the domain, first)."""
    inside, step = start, 1
    while True:
        candidate = inside + direction * step
        if candidate < lowest or candidate > HOLD_REACH:
            return None
        verdict = keeps(candidate)
        if verdict is None:
            return None
        if not verdict:
            break
        inside, step = candidate, 2 * step
    outside = candidate
    while abs(outside - inside) > 1:
        middle = (inside + outside) // 2
        verdict = keeps(middle)
        if verdict is None:
            return None
        inside, outside = (middle, outside) if verdict else (inside, middle)
    return inside
