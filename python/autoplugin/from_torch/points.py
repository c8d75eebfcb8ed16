"""Points of an op's domain: argument name -> an input's shape or an attribute's value. The
requirements the fake implementation states (sympy relations over the symbols of extents and int
attributes, each symbol's SymbolRef saying where in a point it lives) evaluated at a point, and
made to hold there: ties (extents that must be equal), equalities solved for one extent,
divisibility met at the nearest multiple, bounds walked to; random points drawn around an
example for the sampler."""
import functools
import math

import sympy

from .exact import evaluate


def copy_point(point):
    """A point (argument -> shape or value) whose lists can be changed without changing
    `point`'s."""
    return {name: list(v) if isinstance(v, (list, tuple)) else v for name, v in point.items()}


def set_text(name, values):
    """A set requirement as messages write it: `q[3] in {16, 32, 64, 128}`."""
    return f"{name} in {{{', '.join(map(str, values))}}}"


def tied_extents(requires, symbols):
    """Pairs of what an equality requirement ties, ((name, index), (name, index)): two inputs'
    extents, or an extent and an int attribute (element; index None for a scalar), the attribute
    second (it follows the extent: `normalized_shape[0] == x[2]`)."""
    pairs = []
    for relation in requires:
        if isinstance(relation, sympy.Eq) and relation.lhs in symbols and relation.rhs in symbols:
            a, b = symbols[relation.lhs], symbols[relation.rhs]
            if a.kind == "attr" and b.kind == "extent":
                a, b = b, a
            pairs.append(((a.name, a.index), (b.name, b.index)))
    return pairs


def _at(point, key):
    name, index = key
    return point[name] if index is None else point[name][index]


def tie(point, pairs, keep=None):
    """Makes the tied extents and attributes of a sampled point equal: each group of what the
    pairs tie (chains included: k[1] == q[1] == cos[1]) takes `keep`'s value when it is one of
    them, else its first extent's."""
    group = {}

    def find(key):
        while group.setdefault(key, key) != key:
            key = group[key]
        return key

    for a, b in pairs:
        group[find(b)] = find(a)
    members = {}
    for key in group:
        members.setdefault(find(key), []).append(key)
    for keys in members.values():
        source = keep if keep in keys else keys[0]
        value = _at(point, source)
        for name, index in keys:
            if index is None:
                point[name] = value
            else:
                point[name][index] = value
    return point


@functools.lru_cache(maxsize=None)
def _solved_for(relation, unknown):
    """`relation` solved for `unknown` in terms of its other symbols (solved once: sampling and
    probing satisfy the same relations thousands of times); none where sympy cannot
    (`Eq(Mod(s, 2), 0)`, left to the sampling)."""
    if relation.has(sympy.Mod):
        return ()
    try:
        return tuple(sympy.solve(relation, unknown))
    except (NotImplementedError, ValueError, TypeError, ZeroDivisionError):
        return ()


def _multiple_for(relation, unknown, known, current):
    """For a divisibility `Eq(Mod(c * unknown + r, m), 0)` (`q[1] % head_size == 0`), the value
    of `unknown` nearest above `current` that satisfies it, given the other symbols' values;
    None where the relation is not one or has no solution."""
    if not isinstance(relation, sympy.Eq) or 0 not in (relation.lhs, relation.rhs):
        return None
    mod = relation.rhs if relation.lhs == 0 else relation.lhs
    if type(mod).__name__ not in ("Mod", "PythonMod") or len(mod.args) != 2:
        return None
    try:
        known = {symbol: sympy.Integer(value) for symbol, value in known.items()}
        expression = sympy.sympify(mod.args[0].xreplace(known))
        divisor = sympy.sympify(mod.args[1].xreplace(known))
        coefficient = sympy.sympify(sympy.diff(expression, unknown))
        rest = sympy.sympify(expression.xreplace({unknown: sympy.Integer(0)}))
        if not (divisor.is_Integer and coefficient.is_Integer and rest.is_Integer) or \
                int(divisor) <= 0:
            return None
    except (TypeError, ValueError, ZeroDivisionError, AttributeError):
        return None
    c, r, m = int(coefficient), int(rest), int(divisor)
    g = math.gcd(c, m)
    if g == 0 or r % g:
        return None
    step = m // g
    first = (-r // g) * pow(c // g, -1, step) % step if step > 1 else 0
    value = first + step * max(0, -(-(current - first) // step))
    return value if value > 0 else value + step


def satisfy(point, requires, symbols, keep=None):
    """Makes the equality requirements that are not plain ties hold at a point (`2 * cos[1] ==
    Q[3]`, `q[3] == 64`): each one solved for an extent or int attribute other than `keep`
    ((name, index)) where that gives an integer, positive for an extent; what is tied to the
    value set follows it. A relation it cannot satisfy is left for the caller's check."""
    ties = tied_extents(requires, symbols)
    # Bounds on one size first too: an equality solved for another size then meets them
    # (`q[3] >= 128` beside `q[3] == 2 * freqs[1]`: freqs[1] follows the raised q[3]).
    for relation in requires:
        _raise_to_bound(point, relation, symbols, ties, keep)
    # The sets first: the other relations may divide by a value the set gives.
    for relation in sorted(requires, key=lambda r: allowed_values(r) is None):
        allowed = allowed_values(relation)
        if allowed is not None:
            symbol, values = allowed
            ref = symbols.get(symbol)
            if ref is None or (ref.name, ref.index) == keep or ref.value(point) in values:
                continue
            # A value of the set that the sampled one picks: the samples spread over the set.
            ref.assign(point, values[abs(ref.value(point)) % len(values)])
            tie(point, ties, keep=(ref.name, ref.index))
            continue
        if not isinstance(relation, sympy.Eq) or (relation.lhs in symbols and
                                                  relation.rhs in symbols):
            continue  # ties: tie() makes them hold
        free = relation.free_symbols
        if not free or not all(s in symbols for s in free):
            continue
        values = {s: symbols[s].value(point) for s in free}
        try:
            known = evaluate(relation, values)
            if known if known is not None else relation.xreplace(values) is sympy.true:
                continue
        # C % num_groups at num_groups = 0, or below 0 (PyTorch's Mod asserts its divisor > 0)
        except (ZeroDivisionError, TypeError, ValueError, AssertionError):
            continue
        # Solved for each other unknown; the first whose value keeps the bounds on it
        # (`q_size >= 1` beside `q_size + 2 * kv_size == qkv[1]`: solve for qkv[1]), else the
        # first at all.
        choices = []
        for unknown in sorted(free, key=str):
            ref = symbols[unknown]
            if (ref.name, ref.index) == keep:
                continue
            known = {s: v for s, v in values.items() if s is not unknown}
            value = _solution(relation, unknown, known, ref, values[unknown])
            if value is not None:
                choices.append((ref, value, unknown))
        bounded = [(ref, value) for ref, value, unknown in choices
                   if all(holds(bound, {**point_values(symbols, point), unknown: value})
                          for bound in requires if bound is not relation and
                          not isinstance(bound, sympy.Eq) and unknown in bound.free_symbols)]
        for ref, value in (bounded or [(ref, value) for ref, value, _ in choices])[:1]:
            ref.assign(point, value)
            tie(point, ties, keep=(ref.name, ref.index))
    for relation in requires:
        _raise_to_bound(point, relation, symbols, ties, keep)
    return point


# How far a bound on one size is searched for a value that meets it (`x[2] > 4`: F.pad's
# reflection needs each padded extent longer than its padding).
BOUND_SEARCH = 4096


def _raise_to_bound(point, relation, symbols, ties, keep):
    """Where an inequality on one extent or int attribute (other than `keep`) fails at the point,
    sets it to the nearest value above (else below) that meets it; what is tied follows."""
    if isinstance(relation, (sympy.Eq, sympy.Or, sympy.And)) or \
            not isinstance(relation, sympy.core.relational.Relational):
        return
    free = relation.free_symbols
    if len(free) != 1:
        return
    (unknown,) = free
    ref = symbols.get(unknown)
    if ref is None or (ref.name, ref.index) == keep:
        return
    current = ref.value(point)
    if holds(relation, {unknown: current}):
        return
    lowest = 1 if ref.kind == "extent" else -BOUND_SEARCH
    value = nearest_meeting(lambda v: holds(relation, {unknown: v}), current, lowest)
    if value is not None:
        ref.assign(point, value)
        tie(point, ties, keep=(ref.name, ref.index))


# Distances from the current value tried one by one before the search doubles its steps.
BOUND_STEPS = 16


def nearest_meeting(meets, current, lowest):
    """The value nearest `current`, not below `lowest` and within BOUND_SEARCH of it, for which
    `meets` holds (above first at equal distance), or None. Value by value near `current`;
    further out the distance doubles and is then bisected, which finds the nearest value of a
    region that, on each side, starts at some distance and goes on: a bound (`x[1] <= 64` at
    x[1] = 4000 takes about 20 evaluations where every value in between took 8000)."""
    def nearest_on(side, first, limit):
        for distance in range(first, min(first + BOUND_STEPS, limit + 1)):
            if meets(current + side * distance):
                return distance
        inside = first + BOUND_STEPS - 1  # every distance up to here fails on this side
        while inside < limit:
            outside = min(2 * inside, limit)
            if meets(current + side * outside):
                while outside - inside > 1:
                    middle = (inside + outside) // 2
                    inside, outside = (inside, middle) if meets(current + side * middle) \
                        else (middle, outside)
                return outside
            inside = outside
        return None

    above = nearest_on(1, max(1, lowest - current), BOUND_SEARCH - 1)
    below = nearest_on(-1, 1, min(BOUND_SEARCH - 1, current - lowest))
    if below is not None and (above is None or below < above):
        return current - below
    return None if above is None else current + above


def allowed_values(relation):
    """(symbol, sorted values) for a requirement that a size is one of a set (`Eq(s, 16) |
    Eq(s, 32) | ...`), else None."""
    if not isinstance(relation, sympy.Or):
        return None
    symbol, values = None, []
    for part in relation.args:
        if not isinstance(part, sympy.Eq):
            return None
        lhs, rhs = (part.lhs, part.rhs) if part.rhs.is_Integer else (part.rhs, part.lhs)
        if not rhs.is_Integer or not isinstance(lhs, sympy.Symbol) or symbol not in (None, lhs):
            return None
        symbol = lhs
        values.append(int(rhs))
    return symbol, sorted(values)


def point_like(op, example, sample):
    """A point with the example's absent optional arguments and structural values, and
    `sample(argument, the example's value)` for each other argument, in the op's order."""
    point = {}
    for argument in op.arguments:
        value = example[argument.name]
        if value is None and argument.optional:
            point[argument.name] = None
        elif argument.structural and argument.kind != "Tensor":
            point[argument.name] = value
        else:
            point[argument.name] = sample(argument, value)
    return point


def sample_point(op, example, rng):
    """A point near the example to check a traced shape on: extents 0 to 30, int attributes
    from -3 to about twice the example's."""
    def sample(argument, value):
        if argument.kind == "Tensor":
            return [rng.choice([0, 1]) if rng.random() < 0.1 else rng.randint(2, 30)
                    for _ in value]
        if argument.kind == "int":
            return rng.randint(-3, 2 * abs(value) + 4)
        if argument.kind == "int[]":
            return [rng.randint(-3, 2 * abs(v) + 4) for v in value]
        if argument.kind == "bool":
            return rng.random() < 0.5
        return value
    return point_like(op, example, sample)


def _solution(relation, unknown, known, ref, current):
    """An integer value of `unknown` (now `current`) that makes `relation` hold with the other
    symbols `known` (positive for an extent), or None."""
    multiple = _multiple_for(relation, unknown, known, current)
    if multiple is not None and (multiple > 0 or ref.kind != "extent"):
        return multiple
    try:
        solved = [v.xreplace(known) for v in _solved_for(relation, unknown)]
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    solutions = [v for v in solved if v.is_integer and (v > 0 or ref.kind != "extent")]
    return int(solutions[0]) if solutions else None


def point_values(symbols, point):
    return {symbol: ref.value(point) for symbol, ref in symbols.items()}


def evaluate_shapes(outputs, values):
    return [tuple(int(sympy.sympify(d).xreplace(values)) for d in shape) for shape in outputs]


def holds(condition, values):
    """Whether a requirement holds at a point; False where it cannot be evaluated there (a
    division or remainder by an attribute that is 0)."""
    try:
        known = evaluate(condition, values)
        return known if known is not None else bool(condition.xreplace(values))
    except (ZeroDivisionError, TypeError, ValueError, AssertionError):  # (as in satisfy)
        return False


RELATION_SIGNS = {sympy.Eq: "==", sympy.Le: "<=", sympy.Lt: "<", sympy.Ge: ">=", sympy.Gt: ">"}


def relation_text(relation, symbols):
    """`x.size(1)*x.size(2) % num_groups == 0`, as the host code reads the sizes; a set,
    `x.size(3) in {16, 32, 64}`."""
    allowed = allowed_values(relation)
    if allowed is not None and allowed[0] in symbols:
        return set_text(symbols[allowed[0]].text(), allowed[1])
    renamed = {symbol: sympy.Symbol(ref.text()) for symbol, ref in symbols.items()}
    lhs, rhs = relation.lhs.xreplace(renamed), relation.rhs.xreplace(renamed)
    if isinstance(lhs, sympy.Mod):
        lhs = f"{lhs.args[0]} % {lhs.args[1]}"
    return f"{lhs} {RELATION_SIGNS[type(relation)]} {rhs}"
