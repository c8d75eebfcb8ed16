"""Where the example's kernels stay inside their tensors: the domain's requirements that keep a
plugin from sizes its kernels read or write past.

The fake and the host code may take sizes at which a kernel runs off a tensor: Liger's Llama 4
RoPE reads a pair of reals per frequency through a row stride alone, so a `freqs` of one real
per frequency, or of fewer frequencies than half the head size, is read past, and nothing but
the kernel says so. `keep_kernels_in_bounds` runs the host code and its kernels in Triton's
interpreter (kernel_accesses) at small points inside the requirements learnt so far, and where
one strays off a tensor, measures the smallest extent each of that tensor's axes can have at
several points, the outer axis first (memory is flat: a row too narrow reads into the next one,
which is there while the outer axis has rows to spare, so the outer axes are made exact first),
and requires each axis at least what fits every measurement: a constant (`freqs[2] >= 2`), or
another size, a multiple of it or its count of blocks (`x[1] <= table[1]`), confirmed at points
of its own. Each is a `require` naming the kernel and the tensor, and a note; a stray access
nothing explains is noted, and the plugin keeps the host code's domain there.

With the tensor at its example's shape, flat memory can also hide what an outer axis needs: a
`cos` of 3 sections (Liger's M-RoPE), each read at an offset the other inputs' sizes give, is
not read past with 1 section while its inner axes are the example's long ones. Where the
example's shape teaches nothing, the smallest extents are measured at the points' own shapes
instead; and where what an axis needs varies with something no candidate states (the sections
read follow an attribute), an axis of at most SMALL_EXTENT at the example (sections, pairs) is
required at least the example's extent, which every measurement fits under.
"""
import random

import sympy

from .domain import moved_point, shown
from .errors import GenerationError
from .host import HostFailure, run_body, sample_points
from .kernel_accesses import NoVerdict, stray_access
from .points import copy_point, holds, point_values, relation_text

POINTS = 12
# Points an axis's smallest extent is measured at.
MEASURED = 6
# Small points inside the new requirements with no stray access before they stand unnoted.
CONFIRMING = 12
# Points measured, at most, to tell apart bounds that fit every measurement so far.
DISAMBIGUATING = 8
# Points measured besides to confirm the one bound that fits.
CONFIRMATIONS = 3
FACTORS = range(2, 9)
# Counts of blocks of a power of two from 16 to 4096 (a scale per 128 elements). Not of 2 to 8:
# measured extents of a tensor read in flat memory (a block's padding read unmasked) fit halves
# of unrelated sizes by chance.
DIVISORS = [1 << k for k in range(4, 13)]
# The largest extent the small points draw (host.sample_points): an axis no larger at the
# example counts things (sections, pairs), and may be held at least at the example's count.
SMALL_EXTENT = 4


def keep_kernels_in_bounds(op, example, traced, dtype, arch, seed=13):
    """Adds to `traced.requires` the lower bounds on extents that keep the kernels' accesses
    inside their tensors, with a reason each and a note in `op.notes`."""
    rng = random.Random(seed)
    if not traced.symbols:
        return
    points = _small_points(op, example, traced.requires, traced.symbols, rng, POINTS)
    points += _at_one(op, traced, points[:1])
    strays = [(point, stray) for point, stray in ((p, _verdict(op, p, dtype, arch))
                                                   for p in points) if stray]
    if not strays:
        return
    tensors = list(dict.fromkeys(stray.tensor for _, stray in strays if stray.tensor in example))
    bases = _small_points(op, example, traced.requires, traced.symbols, rng, MEASURED)
    added = []
    learnt = set()
    left = strays[0]
    while tensors:
        name = tensors.pop(0)
        learnt.add(name)
        taught = next(pair for pair in strays if pair[1].tensor == name)
        for relation, needs in _lower_bounds(op, example, traced, name, bases, dtype, arch, rng):
            traced.requires.append(relation)
            added.append((relation, needs, taught))
        if not tensors and added:
            # A bound on one tensor can leave another strayed off at the same points (M-RoPE's
            # sin beside its cos): the first stray left is learnt from too.
            left = _first_stray(op, example, traced, dtype, arch, rng)
            if left is not None and left[1].tensor in example and left[1].tensor not in learnt:
                strays.append(left)
                tensors.append(left[1].tensor)
    if left is not None:
        point, stray = left
        op.notes.append(f"at {shown(op, point)} {stray.text} (run in Triton's interpreter); no "
                        "lower bound on its extents explains it, so the plugin takes such sizes "
                        "as the host code does: state what the kernel needs in the fake "
                        "implementation (torch._check)")
    if added and traced.reasons is None:
        traced.reasons = {}
    for relation, needs, (point, stray) in added:
        traced.reasons[relation] = (f"kernel '{stray.kernel}' {stray.access} past "
                                    f"{stray.tensor} otherwise")
        held = "" if needs is None else (
            f"; what it needs varies with what no size states ({needs} at the points measured), "
            "and the example's extent is required, the least known to suffice")
        op.notes.append(f"requires {relation_text(relation, traced.symbols)}, which neither the "
                        f"fake implementation nor the host code states: without it {stray.text} "
                        f"(at {shown(op, point)}, run in Triton's interpreter){held}")


def _small_points(op, example, requires, symbols, rng, count):
    """Small points inside `requires`; none where too few meet them."""
    try:
        return sample_points(op, example, requires, symbols, count, rng, small=True)
    except GenerationError:
        return []


def _at_one(op, traced, bases):
    """A small point with each extent in turn at 1 (what is tied to it following): the smallest
    a size can be, where a kernel that reads a fixed count from it runs past."""
    return [point for ref in traced.symbols.values() if ref.kind == "extent"
            for base in bases for point in [moved_point(op, base, traced, ref, 1)]
            if point is not None]


def _verdict(op, point, dtype, arch):
    """The point's first stray access, or None (in bounds, or no verdict)."""
    try:
        return _stray(op, point, dtype, arch)
    except NoVerdict:
        return None


def _stray(op, point, dtype, arch):
    """The point's first stray access, or None; NoVerdict where the host code fails there or
    its kernels cannot be interpreted."""
    try:
        run = run_body(op, point, dtype, arch)
    except HostFailure:
        raise NoVerdict() from None
    return stray_access(run)


def _lower_bounds(op, example, traced, name, bases, dtype, arch, rng):
    """[(bound, needs)]: the lower bounds on input `name`'s extents that fit the smallest extents
    measured at `bases`, each with the input at its example's shape or, where that teaches none,
    at the point's own; not already implied, the example holds each. `needs` is None, or for an
    axis held at its example's extent (no bound fits what it needs), the range measured."""
    return (_bounds_measured(op, example, traced, name, bases, dtype, arch, rng, True) or
            _bounds_measured(op, example, traced, name, bases, dtype, arch, rng, False))


def _bounds_measured(op, example, traced, name, bases, dtype, arch, rng, at_example):
    """_lower_bounds with the input at its example's shape (`at_example`) or the point's own.
    Where several bounds fit every measurement, more points are measured where they disagree,
    until one is left."""
    symbols = traced.symbols
    own = {(ref.name, ref.index): symbol for symbol, ref in symbols.items()
           if ref.kind == "extent" and ref.name == name}

    def measure(points):
        return [found for found in (_measured(op, example, traced, name, base, dtype, arch,
                                              at_example) for base in points) if found]

    measured = measure(bases)
    if len(measured) < 2:
        return []
    example_values = point_values(symbols, example)
    others = [s for s in symbols if s not in own.values()]
    bounds = []
    for axis in range(len(example[name])):
        symbol = own.get((name, axis))
        if symbol is None or max(smallest[axis] for _, smallest in measured) <= 1:
            continue
        fits = _fitting(symbol, axis, measured, others)
        for base in _small_points(op, example, traced.requires, symbols, rng, DISAMBIGUATING):
            if len(fits) < 2:
                break
            values = point_values(symbols, base)
            if len({_least(bound).xreplace(values) for bound in fits}) < 2:
                continue  # they agree here: nothing to tell them apart
            measured += measure([base])
            fits = _fitting(symbol, axis, measured, others)
        if len(fits) == 1:
            # Confirmed at points of its own: few measurements may fit a bound by chance (a
            # kernel that reads a block's padding unmasked needs a product of extents).
            measured += measure(_small_points(op, example, traced.requires, symbols, rng,
                                              CONFIRMATIONS))
            fits = _fitting(symbol, axis, measured, others)
        needs = None
        if not fits:
            fits, needs = _held_at_example(symbol, axis, measured, example[name][axis])
        if len(fits) != 1:
            continue
        bound = fits[0]
        if not holds(bound, example_values) or bound in traced.requires or \
                _implied(op, example, traced, bound):
            continue
        bounds.append((bound, needs))
    return bounds


def _held_at_example(symbol, axis, measured, extent):
    """([symbol >= extent], the needs measured) where an axis of at most SMALL_EXTENT at the
    example (a count of sections or pairs) needs, at every point measured, at most the example's
    extent and not the same everywhere (what it needs follows something no bound states);
    else ([], None)."""
    needed = sorted({smallest[axis] for _, smallest in measured})
    if len(needed) < 2 or not 1 < extent <= SMALL_EXTENT or needed[-1] > extent:
        return [], None
    return [sympy.Ge(symbol, extent)], f"from {needed[0]} to {needed[-1]}"


def _least(bound):
    """The least extent a bound allows: `x[1]` of `x[1] <= table[1]`, 2 of `freqs[2] >= 2`."""
    return bound.rhs if isinstance(bound, sympy.GreaterThan) else bound.lhs


def _measured(op, example, traced, name, base, dtype, arch, at_example):
    """(the point's values, the smallest extents of input `name` there), `name` set to its
    example's shape (`at_example`) or left at the point's; None where it cannot be measured."""
    point = copy_point(base)
    if at_example:
        point[name] = list(example[name])
    smallest = _smallest_extents(op, point, name, dtype, arch)
    return None if smallest is None else (point_values(traced.symbols, point), smallest)


def _smallest_extents(op, point, name, dtype, arch):
    """The smallest extent of each axis of input `name` at which the point's kernels stay inside
    it, the outer axes first and each left at its smallest; None where the point itself strays,
    or a probe gives no verdict. Sizes are moved alone (what requirements tie to them stays):
    the point only has to run."""
    try:
        if _stray(op, point, dtype, arch) is not None:
            return None
        point = copy_point(point)
        for axis, extent in enumerate(list(point[name])):
            low, high = 1, extent  # the smallest in bounds is in [low, high]; high is
            while low < high:
                middle = (low + high) // 2
                point[name][axis] = middle
                if _stray(op, point, dtype, arch) is None:
                    high = middle
                else:
                    low = middle + 1
            point[name][axis] = high
        return list(point[name])
    except NoVerdict:
        return None


def _fitting(symbol, axis, measured, others):
    """The lower bounds on `symbol` (the extent of `axis`) that give every measurement's
    smallest extent: another size (it must vary), a multiple or a count of blocks of it, as
    `bound <= symbol`; or `symbol >= c` where every measurement needs the same c."""
    needed = [smallest[axis] for _, smallest in measured]
    fits = []
    for other in others:
        seen = [values[other] for values, _ in measured]
        if len(set(seen)) < 2:
            continue
        for bound in [other] + [k * other for k in FACTORS] + \
                [sympy.ceiling(other / k) for k in DIVISORS]:
            if all(bound.xreplace({other: v}) == n for v, n in zip(seen, needed)):
                fits.append(sympy.Le(bound, symbol))
    if not fits and len(set(needed)) == 1:
        fits.append(sympy.Ge(symbol, needed[0]))
    return fits


def _implied(op, example, traced, bound):
    """Whether every small point inside the requirements already meets `bound` (`x[0] <=
    table[0]` beside `x[0] == table[0]`)."""
    points = _small_points(op, example, traced.requires, traced.symbols, random.Random(0),
                           CONFIRMING)
    return bool(points) and all(holds(bound, point_values(traced.symbols, p)) for p in points)


def _first_stray(op, example, traced, dtype, arch, rng):
    """(point, StrayAccess) of the first small point inside the requirements whose kernels
    stray, or None."""
    for point in _small_points(op, example, traced.requires, traced.symbols, rng, CONFIRMING):
        stray = _verdict(op, point, dtype, arch)
        if stray is not None:
            return point, stray
    return None
