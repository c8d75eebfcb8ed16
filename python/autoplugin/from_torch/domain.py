"""The op's domain, learnt from where its fake and its host code fail.

Library code rarely states in its fake what its host code asserts (`assert dim < x.ndim`,
`X.view(batch, num_groups, -1)` with `num_channels == X.shape[1]`, `assert N % group_size == 0`,
`assert seq_len <= cos.shape[0]`). Sizes and attributes sampled independently then fail there;
such a point is outside the op's domain, not a fault of the op. This module samples points
inside what the fake requires, runs the fake and the host code (on fake tensors) at each, and
looks for requirements that separate the points that fail from those that work: relations
between extents and int attributes that hold in the example (equal, a factor apart, one
dividing the other, one at most the other, below it, or at most a factor of it, an extent the
count of blocks of a power of two in another (`cdiv(K, 128) == As.shape[-1]`), an attribute
within an input's rank, at least 0 or 1, or at most a power of two, a size a multiple of a power
of two or at least 2, a run of an input's extents a multiple of a size or equal to one, and
last an extent at most a power of two, or a power of two within bounds). It adds them the one
that explains the most failures first, until every failing point breaks one, samples again
inside them, and stops when a round of points all work; then drops each learnt requirement that
points outside it show unneeded (or replaces it by a weaker candidate inside which they work),
weakens each multiple-of-a-power-of-two to the smallest power the host code takes, states a
multiple or a bound another implies once, narrows a set of values by the other requirements on
its extent in their place, and states a requirement over a size another pins to a constant at
that value (dropped where that makes it always true). What it learns becomes the plugin's
`require` (with a failure it alone explains, else the one that taught it), and a note; where
no candidate explains a failure it stops, and the refusal comes from the launch recovery as
before, naming the host line.
"""
import contextlib
import functools
import random

import sympy

from .host import HostFailure, failure_location, run_body, sample_points
from .points import (allowed_values, copy_point, holds, point_values, relation_text, satisfy,
                     tie, tied_extents)
from .shapes import fake_outputs


ROUNDS = 8
POINTS_PER_ROUND = 24
# A learnt requirement is dropped when this many points outside it (inside the others) all work.
UNNEEDED_AFTER = 6
FACTORS = range(2, 9)
POWERS_OF_TWO = [1 << k for k in range(1, 11)]
ATTRIBUTE_CAPS = [1 << k for k in range(0, 17)]
EXTENT_CAPS = [1 << k for k in range(4, 17)]
# Sets of powers of two an extent may be required to be in: up to 2^16.
SET_EXPONENTS = 17
# Candidates this simple or less (sets of values) are tried last (_best_candidate).
LAST_RESORT = 8
# Errors of the code itself rather than of the sizes: never a requirement.
CODE_ERRORS = (NameError, AttributeError, ImportError, TypeError)


class _Candidate:
    def __init__(self, relation, simplicity):
        self.relation = relation
        self.simplicity = simplicity  # lower first among candidates explaining as many failures


def equal_extents_of_inputs(op, example, traced):
    """Extents that are equal in the example, where they belong to two inputs or more, as
    equalities (each group of equal ones whole): the launch recovery requires such extents
    equal unless the host code shows it takes them unequal, so the domain is learnt with them
    held (a view that merely fits unequal extents teaches nothing then)."""
    by_axis = _extent_symbols(traced.symbols)
    groups = {}
    for argument in op.tensors:
        for axis, extent in enumerate(example[argument.name] or []):
            symbol = by_axis.get((argument.name, axis))
            if symbol is not None:
                groups.setdefault(extent, []).append((argument.name, symbol))
    equalities = []
    for (_, first), *others in (g for g in groups.values() if len({n for n, _ in g}) > 1):
        equalities += [sympy.Eq(first, symbol) for _, symbol in others]
    return equalities


def _extent_symbols(symbols):
    """(input, axis) -> its extent's symbol."""
    return {(ref.name, ref.index): symbol for symbol, ref in symbols.items()
            if ref.kind == "extent"}


@contextlib.contextmanager
def assuming(traced, assumed):
    """`traced.requires` with `assumed` too, for the sampling and the probes inside."""
    added = [relation for relation in assumed if relation not in traced.requires]
    traced.requires.extend(added)
    try:
        yield set(added)
    finally:
        for relation in added:
            traced.requires.remove(relation)


def learn_domain(op, example, traced, dtype, arch, assumed=(), seed=7):
    """Adds to `traced.requires` what the host code and the fake need beyond what the fake
    states and the `assumed` relations (held while learning, not added); notes each
    requirement learnt in `op.notes`."""
    with assuming(traced, assumed) as held:
        _learn_domain(op, example, traced, dtype, arch, held, seed)


def _learn_domain(op, example, traced, dtype, arch, held, seed):
    symbols = traced.symbols
    if not symbols or _failure(op, example, dtype, arch) is not None:
        return  # the example itself fails: the launch recovery says where
    rng = random.Random(seed)
    working = [point_values(symbols, example)]
    failed = []  # the values of every failing point, for _drop_unneeded
    candidates = [c for c in _candidates(symbols, example, op)
                  if c.relation not in traced.requires and
                  not (isinstance(c.relation, sympy.Eq) and
                       sympy.Eq(c.relation.rhs, c.relation.lhs) in held)]
    learnt = {}  # relation -> (point, failure) that taught it
    every_failure = []  # (point, failure) of each failing point, for the reasons
    for round_index in range(ROUNDS):
        points = _points(op, example, traced, rng, first=round_index == 0)
        failures = []
        for point in points:
            failure = _failure(op, point, dtype, arch)
            if failure is None:
                working.append(point_values(symbols, point))
            else:
                failures.append((point, failure))
                every_failure.append((point, failure))
                failed.append(point_values(symbols, point))
        if not failures:
            break
        candidates = [c for c in candidates if all(holds(c.relation, v) for v in working)]
        # The fewest candidates that every failing point breaks one of, greedily.
        while failures:
            best = _best_candidate(candidates, failures, symbols)
            if best is None:
                break
            explained = [(p, f) for p, f in failures
                         if not holds(best.relation, point_values(symbols, p))]
            learnt[best.relation] = explained[0]
            traced.requires.append(best.relation)
            candidates.remove(best)
            failures = [pf for pf in failures if pf not in explained]
        if failures:
            break
    else:
        failures = True  # still failing after every round
    if failures:
        # What no relation explains (or still fails after every round) is refused where the
        # launches are recovered, naming the host line; nothing learnt stays.
        for relation in learnt:
            traced.requires.remove(relation)
        return
    _drop_unneeded(op, example, traced, learnt, candidates, (working, failed), dtype, arch, rng)
    _weaken_multiples(op, example, traced, learnt, dtype, arch, rng)
    _drop_implied_multiples(traced, learnt)
    _drop_implied_bounds(traced, learnt)
    _merge_into_sets(traced, learnt)
    _fold_pinned(traced, learnt, held)
    _attribute_failures(traced, learnt, every_failure)
    if traced.reasons is None:
        traced.reasons = {}
    for relation, (point, failure) in learnt.items():
        text = relation_text(relation, symbols)
        traced.reasons[relation] = failure.reason
        op.notes.append(f"requires {text}, which the fake implementation does not state: "
                        f"without it {failure.text} (e.g. at {shown(op, point)})")


class _Failure:
    """Where a point fails: `text` for a note, `reason` for the `require`'s message."""

    def __init__(self, text, reason):
        self.text, self.reason = text, reason


def _failure(op, point, dtype, arch):
    """None where the fake and the host code take the point, else a _Failure."""
    if fake_outputs(op, point, dtype) is None:
        return _Failure("the fake implementation raises", "the fake implementation checks it")
    try:
        run_body(op, point, dtype, arch)
    except HostFailure as failure:
        if isinstance(failure.error, CODE_ERRORS):
            return None  # not the sizes' fault: the launch recovery reports it
        return _Failure(f"the host code fails{failure.where}: {type(failure.error).__name__}",
                        f"the host code checks it, {failure_location(op, failure.error)}")
    except Exception:  # noqa: BLE001 - refusals of the op itself: the recovery reports them
        return None
    return None


def shown(op, point):
    return ", ".join(f"{a.name}={point[a.name]}" for a in op.arguments
                     if a.kind == "Tensor" or not a.structural)


def _points(op, example, traced, rng, first):
    """Points inside the requirements: sampled, and the example with one extent or attribute
    moved (what is tied to it following), which tells which sizes move freely."""
    points = sample_points(op, example, traced.requires, traced.symbols, POINTS_PER_ROUND, rng)
    return points + moved_one_at_a_time(op, example, traced, first)


def moved_one_at_a_time(op, example, traced, first):
    """The example with one extent or attribute moved: in the first round to several values
    (1, half, double, ...; an attribute also to 0 and below), after it to double."""
    points = []
    for ref in traced.symbols.values():
        value = ref.value(example)
        moved = {2 * value}
        if first:
            moved |= {value + 1, max(1, value // 2), 1, 3 * value + 1}
            if ref.kind == "attr":
                moved |= {0, -1, -value}
        for new in sorted(moved - {value}):
            point = moved_point(op, example, traced, ref, new)
            if point is not None:
                points.append(point)
    return points


def moved_point(op, example, traced, ref, value):
    """The example with the extent or attribute `ref` set to `value` (what is tied to it
    following, the other requirements made to hold), or None where that cannot be."""
    if ref.kind == "extent" and value < 1:
        return None
    point = copy_point(example)
    ref.assign(point, value)
    keep = (ref.name, ref.index)
    ties = tied_extents(traced.requires, traced.symbols)
    satisfy(tie(point, ties, keep=keep), traced.requires, traced.symbols, keep=keep)
    values = point_values(traced.symbols, point)
    if ref.value(point) != value or not _extents_positive(op, point) or \
            not all(holds(r, values) for r in traced.requires):
        return None
    return point


def _extents_positive(op, point):
    """Every extent of every input at least 1 (an attribute tied to an extent may have moved
    it below)."""
    return all(extent >= 1 for a in op.tensors if point[a.name] is not None
               for extent in point[a.name])


def _best_candidate(candidates, failures, symbols):
    """The candidate that the most failing points break (the simplest among equals), or None
    where none breaks any; a last resort (a set of values) only where no other candidate breaks
    any: a set breaks most failures of its extent, and would otherwise win over the weaker
    relations the host code needs (`% 4` and `<= 256`)."""
    failing = [point_values(symbols, point) for point, _ in failures]
    for pool in ([c for c in candidates if c.simplicity < LAST_RESORT], candidates):
        scored = [(sum(not holds(c.relation, v) for v in failing), -c.simplicity, -index)
                  for index, c in enumerate(pool)]
        scored = [s for s in scored if s[0] > 0]
        if scored:
            return pool[-max(scored)[2]]
    return None


@functools.lru_cache(maxsize=None)
def _powers_of_two(symbol, low, high):
    """`symbol` in {2^low, ..., 2^high}, built once: sympy sorts an Or's arguments as it makes
    one, and the candidates are drawn again on every round of learning."""
    return sympy.Or(*[sympy.Eq(symbol, 1 << k) for k in range(low, high + 1)])


def _candidates(symbols, example, op):
    """Relations between the extents and int attributes that hold in the example, simplest
    first."""
    atoms = [(symbol, ref, ref.value(example)) for symbol, ref in symbols.items()]
    ranks = sorted({len(example[a.name]) for a in op.tensors if example[a.name] is not None})
    found = []
    for a, a_ref, a_value in atoms:
        for b, b_ref, b_value in atoms:
            if a == b:
                continue
            if a_value == b_value and str(a) < str(b):
                found.append(_Candidate(sympy.Eq(a, b), 0))
            for factor in FACTORS:
                if a_value == factor * b_value:
                    found.append(_Candidate(sympy.Eq(a, factor * b), 1))
                if factor * b_value <= a_value:
                    found.append(_Candidate(sympy.Le(factor * b, a), 3))
            # A divisor of 1 in the example too (one group of heads: `nheads % ngroups`).
            if b_value >= 1 and a_value % b_value == 0 and a_value != b_value:
                found.append(_Candidate(sympy.Eq(sympy.Mod(a, b), 0), 2))
            if a_value <= b_value and a_value != b_value:
                found.append(_Candidate(sympy.Le(a, b), 3))
                # Strictly (`assert num_indices < num_rows`): where equal sizes fail too.
                found.append(_Candidate(sympy.Lt(a, b), 3))
            # A count of blocks (`triton.cdiv(K, block_k) == As.shape[-1]`: a scale per block of
            # 128 elements): an extent the ceiling of another over a power of two it exceeds.
            if b_ref.kind == "extent" and b_value >= 1:
                for power in POWERS_OF_TWO:
                    if power < a_value and -(-a_value // power) == b_value:
                        found.append(_Candidate(sympy.Eq(b, sympy.ceiling(a / power)), 2))
        if a_ref.kind == "attr":
            for rank in ranks:
                if -rank <= a_value < rank:
                    found += [_Candidate(sympy.Lt(a, rank), 1), _Candidate(sympy.Ge(a, -rank), 1)]
            for bound in (1, 0):
                if a_value >= bound:
                    found.append(_Candidate(sympy.Ge(a, bound), 2))
            # A cap on an attribute (`assert topk <= 32`) at a power of two.
            for power in ATTRIBUTE_CAPS:
                if a_value <= power:
                    found.append(_Candidate(sympy.Le(a, power), 6))
        else:
            # A cap on an extent (`assert D <= 256`, a head size).
            for power in EXTENT_CAPS:
                if a_value <= power:
                    found.append(_Candidate(sympy.Le(a, power), 7))
            # A power of two within bounds (`assert D in {16, 32, 64, 128, 256}`), the widest
            # first: a last resort.
            if a_value & (a_value - 1) == 0:
                exponent = a_value.bit_length() - 1
                bounds = sorted(((low, high) for low in range(exponent + 1)
                                 for high in range(exponent, SET_EXPONENTS)),
                                key=lambda b: b[0] - b[1])
                for low, high in bounds:
                    found.append(_Candidate(_powers_of_two(a, low, high), 8))
        if a_value >= 2:
            found.append(_Candidate(sympy.Ge(a, 2), 2))
        for power in POWERS_OF_TWO:
            if a_value > 0 and a_value % power == 0:
                found.append(_Candidate(sympy.Eq(sympy.Mod(a, power), 0), 4))
    # A view of a run of an input's extents as (rows, groups, -1): their product a multiple of
    # an extent or attribute, or equal to one.
    for products, value in runs_of_extents(symbols, example, op):
        for b, _, b_value in atoms:
            if b in products.free_symbols:
                continue
            if b_value >= 2 and value % b_value == 0:
                found.append(_Candidate(sympy.Eq(sympy.Mod(products, b), 0), 5))
            if value == b_value:
                found.append(_Candidate(sympy.Eq(products, b), 5))
    unique = {}
    for candidate in found:
        unique.setdefault(candidate.relation, candidate)
    return list(unique.values())


def runs_of_extents(symbols, example, op):
    """(product, its value in the example) for each run of two or more adjacent extents of an
    input."""
    by_axis = _extent_symbols(symbols)
    runs = []
    for argument in op.tensors:
        shape = example[argument.name]
        if shape is None:
            continue
        for first in range(len(shape)):
            for last in range(first + 2, len(shape) + 1):
                axes = [by_axis.get((argument.name, axis)) for axis in range(first, last)]
                if None in axes:
                    continue
                value = 1
                for axis in range(first, last):
                    value *= shape[axis]
                runs.append((sympy.Mul(*axes), value))
    return runs


def _outside(op, example, traced, relation, rng, count):
    """Up to `count` points inside the other requirements that break `relation`."""
    others = [r for r in traced.requires if r != relation]
    found = []
    for _ in range(8):
        for point in sample_points(op, example, others, traced.symbols, POINTS_PER_ROUND, rng):
            if not holds(relation, point_values(traced.symbols, point)):
                found.append(point)
        if len(found) >= count:
            break
    return found[:count]


def _drop_unneeded(op, example, traced, learnt, candidates, seen, dtype, arch, rng):
    """Drops each learnt requirement that points outside it show the host code does not need
    (an earlier pick the later ones made redundant), and a cap on an attribute that a lower one
    learnt later implies; a requirement that stays may give way to a weaker one (_weaken).
    `seen`: the values of the points that worked and failed while learning."""
    for relation in list(learnt):
        if isinstance(relation, sympy.Le) and any(
                isinstance(other, sympy.Le) and other.lhs == relation.lhs and
                other.rhs < relation.rhs for other in learnt):
            traced.requires.remove(relation)
            del learnt[relation]
    for relation in reversed(list(learnt)):
        outside = _outside(op, example, traced, relation, rng, UNNEEDED_AFTER)
        if len(outside) < UNNEEDED_AFTER:
            continue
        outcomes = [(point, _failure(op, point, dtype, arch)) for point in outside]
        if all(failure is None for _, failure in outcomes):
            traced.requires.remove(relation)
            del learnt[relation]
        else:
            _weaken(op, example, traced, learnt, relation, candidates, seen, outcomes, dtype,
                    arch, rng)


def _weaken(op, example, traced, learnt, relation, candidates, seen, outcomes, dtype, arch, rng):
    """Replaces `relation` (some points outside it fail: `outcomes`) by the simplest candidate
    that holds at every point that worked, that every failure it alone explained breaks, and
    inside which points outside `relation` all work: where the greedy pick took a relation
    stronger than the host code needs (`w.size(0) % w.size(1) == 0`, which a [4096, 512]
    example's powers of two keep true, for an `assert w.size(0) % 128 == 0`)."""
    symbols = traced.symbols
    index = traced.requires.index(relation)
    others = traced.requires[:index] + traced.requires[index + 1:]
    worked = seen[0] + [point_values(symbols, p) for p, failure in outcomes if failure is None]
    failed = seen[1] + [point_values(symbols, p) for p, failure in outcomes if failure is not None]
    explained = [values for values in failed if all(holds(r, values) for r in others)]
    options = [c for c in candidates if c.relation not in traced.requires and
               all(holds(c.relation, values) for values in worked) and
               not any(holds(c.relation, values) for values in explained)]
    for option in sorted(options, key=lambda c: c.simplicity):
        traced.requires[index] = option.relation
        # Points inside the option and the others, outside `relation` (no longer required).
        outside = _outside(op, example, traced, relation, rng, UNNEEDED_AFTER)
        if len(outside) >= UNNEEDED_AFTER and \
                all(_failure(op, point, dtype, arch) is None for point in outside):
            learnt[option.relation] = learnt.pop(relation)
            return
    traced.requires[index] = relation


def _weaken_multiples(op, example, traced, learnt, dtype, arch, rng):
    """A learnt `s % 2^k == 0` becomes the smallest power of two whose multiples all work."""
    for relation in list(learnt):
        power = _constant_modulus(relation)
        if power is None:
            continue
        symbol = next(iter(relation.free_symbols))
        for weaker in (p for p in POWERS_OF_TWO if p < power):
            candidate = sympy.Eq(sympy.Mod(symbol, weaker), 0)
            index = traced.requires.index(relation)
            traced.requires[index] = candidate
            points = sample_points(op, example, traced.requires, traced.symbols,
                                   UNNEEDED_AFTER, rng)
            if all(_failure(op, point, dtype, arch) is None for point in points):
                learnt[candidate] = learnt.pop(relation)
                break
            traced.requires[index] = relation


def _drop_implied_multiples(traced, learnt):
    """Drops a learnt `s % p == 0` that another requirement `s % q == 0` implies (p divides q),
    and a second copy of one: each multiple is weakened with the others in place, so one can
    weaken down to what another already says (`% 2` beside `% 128`)."""
    for relation in list(learnt):
        modulus = _constant_modulus(relation)
        if modulus is None:
            continue
        while traced.requires.count(relation) > 1:
            traced.requires.remove(relation)
        others = [other for other in traced.requires if other != relation]
        if any(_constant_modulus(other) is not None and
               other.lhs.args[0] == relation.lhs.args[0] and
               _constant_modulus(other) % modulus == 0 for other in others):
            traced.requires.remove(relation)
            del learnt[relation]


def _drop_implied_bounds(traced, learnt):
    """Drops a learnt `a <= b` where `a < b` is required too (both separate failures where `a`
    passes `b`; only the strict one those where they are equal)."""
    for relation in list(learnt):
        if isinstance(relation, sympy.Le) and sympy.Lt(relation.lhs, relation.rhs) in \
                traced.requires:
            traced.requires.remove(relation)
            del learnt[relation]


def _merge_into_sets(traced, learnt):
    """A set a learnt requirement gives an extent, narrowed by the others learnt on that extent
    alone and stated in their place (`q[3] % 16 == 0`, `q[3] <= 256` and `q[3]` a power of two:
    `q[3] in {16, 32, 64, 128, 256}`)."""
    for relation in list(learnt):
        allowed = allowed_values(relation)
        if allowed is None or relation not in learnt:
            continue
        symbol, values = allowed
        others = [other for other in learnt
                  if other != relation and other.free_symbols == {symbol}]
        kept = [value for value in values
                if all(holds(other, {symbol: value}) for other in others)]
        if not others or not kept:
            continue
        merged = sympy.Or(*[sympy.Eq(symbol, value) for value in kept])
        traced.requires[traced.requires.index(relation)] = merged
        learnt[merged] = learnt.pop(relation)
        for other in others:
            traced.requires.remove(other)
            del learnt[other]


def _attribute_failures(traced, learnt, every_failure):
    """Each learnt requirement's reason: a failing point that breaks it alone among the
    requirements, where one did (the point that taught it may break another one too, and fail
    at that one's check: `x[1] <= cos[0]` was taught by a point whose head size the host code
    refused first)."""
    for relation in learnt:
        others = [r for r in traced.requires if r != relation]
        alone = next((pair for pair in every_failure
                      if not holds(relation, point_values(traced.symbols, pair[0])) and
                      all(holds(r, point_values(traced.symbols, pair[0])) for r in others)),
                     None)
        if alone is not None:
            learnt[relation] = alone


def _pin(relation):
    """(symbol, value) of a requirement that pins a size to a constant (`bias[0] == 1`)."""
    if isinstance(relation, sympy.Eq):
        for symbol, value in ((relation.lhs, relation.rhs), (relation.rhs, relation.lhs)):
            if symbol.is_Symbol and value.is_Integer:
                return symbol, value
    return None


def _fold_pinned(traced, learnt, held):
    """A learnt requirement over a size another requirement pins (not one `held` while
    learning) is stated at that value (`weight[0] == 3 * bias[0]` beside `bias[0] == 1`:
    `weight[0] == 3`), and dropped where that makes it always true (`x[0] % bias[0] == 0`):
    the same points pass, stated as plainly as the learner's picks allow."""
    folded = True
    while folded:
        folded = False
        pins = dict(filter(None, (_pin(r) for r in traced.requires if r not in held)))
        for relation in list(learnt):
            values = {s: pins[s] for s in relation.free_symbols if s in pins}
            if not values or _pin(relation) is not None:
                continue
            plain = relation.xreplace(values)
            if plain is sympy.false:
                continue  # (the example holds every requirement: not met)
            folded = True
            if plain is sympy.true or plain in traced.requires:
                traced.requires.remove(relation)
                del learnt[relation]
                continue
            traced.requires[traced.requires.index(relation)] = plain
            learnt[plain] = learnt.pop(relation)


def _constant_modulus(relation):
    if isinstance(relation, sympy.Eq) and relation.rhs == 0 and \
            isinstance(relation.lhs, sympy.Mod) and relation.lhs.args[1].is_Integer:
        return int(relation.lhs.args[1])
    return None
