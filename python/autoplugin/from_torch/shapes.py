"""Output shapes from the fake implementation, traced with symbolic sizes and attributes.

The fake runs under PyTorch's FakeTensorMode with a ShapeEnv (as torch.export traces): every
extent of every input tensor and every integer attribute (and list element) is a symbol, so the
output extents come back as sympy expressions and the branches the fake took as guards. The
expressions hold only on the branch that was traced, so the result is checked: the fake is run
again on concrete values (meta tensors) at many sampled points, including extents 0 and 1 and
attributes of either sign. Guards about 0/1 specialisation (which PyTorch records while computing
strides) are dropped; an inequality guard is dropped where the fake accepts sampled points
outside it and gives the traced formula's shape at all of them, else kept as an `ap::require`.
A point inside the kept guards where the formula and the fake disagree is a refusal.
"""
import contextlib
import functools
import math
import random
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

import sympy
import torch
from torch._dynamo.source import ConstantSource
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import (DimDynamic, ShapeEnv,
                                                   StatelessSymbolicContext)
from .errors import GenerationError
from .fake_cuda import cuda_patched
from .records import input_dtype as of_input


TRACE_EXTENTS = [17, 19, 23, 29, 31, 37, 41, 43]


@dataclass
class SymbolRef:
    """What a symbol stands for: an input's extent or an integer attribute (element)."""
    kind: str  # "extent" or "attr"
    name: str  # the argument
    index: object  # the axis, the list element, or None for a scalar attribute
    optional: bool = False  # an extent of a `Tensor?` (std::optional<ap::Shape> in C++)

    def cpp(self):
        if self.kind == "extent":
            return f"(*{self.name})[{self.index}]" if self.optional else f"{self.name}[{self.index}]"
        return self.name if self.index is None else f"{self.name}_{self.index}"

    def value(self, point):
        if self.kind == "extent":
            return point[self.name][self.index]
        return point[self.name] if self.index is None else point[self.name][self.index]

    def assign(self, point, value):
        if self.index is None:
            point[self.name] = value
        else:
            point[self.name][self.index] = value

    def text(self):
        """As a launcher reads it: `x.size(1)`, `group_size`, `padding[2]`."""
        if self.kind == "extent":
            return f"{self.name}.size({self.index})"
        return self.name if self.index is None else f"{self.name}[{self.index}]"


def copy_point(point):
    """A point (argument -> shape or value) whose lists can be changed without changing
    `point`'s."""
    return {name: list(v) if isinstance(v, (list, tuple)) else v for name, v in point.items()}


def set_text(name, values):
    """A set requirement as messages write it: `q[3] in {16, 32, 64, 128}`."""
    return f"{name} in {{{', '.join(map(str, values))}}}"


@dataclass
class TracedShapes:
    outputs: list  # per output, a list of sympy expressions
    requires: list  # sympy relations that must hold
    symbols: dict  # sympy.Symbol -> SymbolRef
    unreachable: list  # sampled points the fake rejects although every require holds
    reasons: dict = None  # relation -> where it comes from (default: a guard of the fake)

    def reason(self, relation):
        return (self.reasons or {}).get(relation, "a guard of the fake implementation")


def fake_call(op, values):
    """(args, kwargs) for the fake as PyTorch calls it: positionally, but for keyword-only
    arguments (a fake may name its parameters differently from the op)."""
    args = [values[a.name] for a in op.arguments if not a.keyword_only]
    kwargs = {a.name: values[a.name] for a in op.arguments if a.keyword_only}
    return args, kwargs


def fake_results(op, values, result):
    """The fake's outputs as a list, as the plugin's: the tensors the op writes in place, then
    what the fake returns (None for an in-place op)."""
    written = [values[a.name] for a in op.mutated]
    if result is None and written:
        return written
    return written + (list(result) if isinstance(result, (tuple, list)) else [result])


def _trace_value(value):
    """An attribute value to trace at: away from 0 and 1, which PyTorch specialises."""
    return value if abs(value) >= 2 else (2 if value >= 0 else -2)


def _equal_in_example(op, example):
    """Tensor extents grouped by their value in the example: [(name, axis), ...] per value that
    two or more extents share."""
    groups = {}
    for argument in op.arguments:
        if argument.kind == "Tensor" and example[argument.name] is not None:
            for axis, extent in enumerate(example[argument.name]):
                groups.setdefault(extent, []).append((argument.name, axis))
    return [group for group in groups.values() if len(group) > 1]


def trace(op, example):
    """Traces with every extent distinct; when the fake refuses that (it requires two extents to
    be equal: a bias matching a dimension), again with the extents the example has equal traced
    equal, so that the equality becomes a requirement; and last at the example's own extents
    (a relation other than equality, `torch._check(cos.shape[1] * 2 == q.shape[3])`, holds there
    and becomes a requirement).

    An int attribute the fake cannot take symbolic (a permutation, `torch._check(dim == -1)`)
    is traced at the example's value and becomes part of the structure
    (`argument.structural`), as a string is. Returns what `_trace` does, with the attributes
    whose guards compare them with numbers (`traced_shapes` makes those part of the structure
    where the traced shapes turn out wrong: `del shape[dim]`)."""
    concrete = {a.name for a in op.attributes if a.structural}
    try:
        result = _trace_tied(op, example, concrete)
    except GenerationError as failed:
        others = {a.name for a in op.attributes if a.kind in ("int", "int[]")} - concrete
        if not others:
            raise
        try:
            result = _trace_tied(op, example, concrete | others)
        except GenerationError:
            raise failed from None
        needed = set(others)
        for name in sorted(others):  # the fewest attributes traced at their values
            try:
                trial = _trace_tied(op, example, concrete | (needed - {name}))
            except GenerationError:
                continue
            if not trial[5]:
                needed.discard(name)
                result = trial
        concrete |= needed
    for argument in op.attributes:
        if argument.name in concrete and not argument.structural:
            argument.structural = True
            op.notes.append(_structural_note(argument.name))
    return result


def _structural_note(name):
    return (f"{name} is part of the structure, as a string is: the fake's shapes depend on its "
            "value, so the plugin takes the values it is generated for: the examples', and a "
            "bool's other value or an axis's others where the op converts there")


def _trace_tied(op, example, concrete):
    try:
        return _trace(op, example, [], concrete)
    except GenerationError as distinct_failed:
        ties = _equal_in_example(op, example)
        for attempt in ([ties] if ties else []) + [None]:
            try:
                return _trace(op, example, attempt, concrete)
            except GenerationError:
                continue
        raise distinct_failed from None


def _trace(op, example, ties, concrete=frozenset()):
    """`ties`: groups of (tensor, axis) traced at one extent; None: every extent at the
    example's. `concrete`: int attributes traced at the example's values (not symbols)."""
    env = ShapeEnv(duck_shape=False)
    mode = FakeTensorMode(shape_env=env)
    symbols = {}
    # Extents well above every integer attribute, so that the trace takes the branch of
    # ordinary inputs (a padding smaller than the dimension it pads, ...).
    largest = max([abs(v) for a in op.attributes if a.kind in ("int", "int[]")
                   for v in (example[a.name] if a.kind == "int[]" else [example[a.name]])
                   if v is not None],
                  default=0)
    extents = iter([2 * largest + e for e in TRACE_EXTENTS] * 4)
    tied_extent = {}  # (name, axis) -> the extent its group is traced at
    fixed = []  # (relation, where) of extents the trace makes constants
    for group in ties or []:
        extent = next(extents)
        for member in group:
            tied_extent[member] = extent
    call = {}

    def symint(value, name):
        symbol = env.create_symbol(value, source=ConstantSource(name),
                                   dynamic_dim=DimDynamic.DYNAMIC, positive=None,
                                   do_not_specialize_zero_one=True)
        return env.create_symintnode(symbol, hint=value, source=ConstantSource(name)), symbol

    for argument in op.arguments:
        value = example[argument.name]
        if value is None and argument.optional:
            call[argument.name] = None
        elif argument.kind == "Tensor":
            shape = list(value) if ties is None else [
                tied_extent.get((argument.name, axis)) or next(extents)
                for axis in range(len(value))]
            context = StatelessSymbolicContext(dynamic_sizes=[DimDynamic.DYNAMIC] * len(shape))
            # On the meta device: the trace's extents (above every int attribute, a seed's
            # too) are never allocated.
            fake = mode.from_tensor(
                torch.empty(shape, device="meta", dtype=input_dtype(argument, torch.float32)),
                symbolic_context=context)
            for axis, extent in enumerate(fake.shape):
                if isinstance(extent, torch.SymInt):
                    symbols[extent.node.expr] = SymbolRef("extent", argument.name, axis,
                                                          argument.optional)
                else:  # an extent of 0 or 1 (traced at the example's, `alpha=[1]`): PyTorch
                    # makes it a constant, which the plugin then requires
                    symbol = sympy.Symbol(f"{argument.name}_extent_{axis}", integer=True)
                    symbols[symbol] = SymbolRef("extent", argument.name, axis, argument.optional)
                    fixed.append((sympy.Eq(symbol, int(extent)), "the example's extent, which "
                                  "PyTorch traces as a constant (an extent of 0 or 1)"))
            call[argument.name] = fake
        elif argument.kind in ("int", "int[]") and argument.name in concrete:
            call[argument.name] = value
        elif argument.kind == "int":
            node, symbol = symint(_trace_value(value), argument.name)
            symbols[symbol] = SymbolRef("attr", argument.name, None)
            call[argument.name] = node
        elif argument.kind == "int[]":
            nodes = []
            for k, element in enumerate(value):
                node, symbol = symint(_trace_value(element), f"{argument.name}_{k}")
                symbols[symbol] = SymbolRef("attr", argument.name, k)
                nodes.append(node)
            call[argument.name] = nodes
        else:
            call[argument.name] = value
    checks = []
    decided = {}  # extent symbol -> where a torch._check decided at the traced sizes pinned it
    # On CUDA tensors, as PyTorch traces a custom op for a GPU (a triton_op's fake is its host
    # code, which may `assert x.is_cuda`).
    with mode, cuda_patched(90, set()), _recording_checks(checks, op, env, decided):
        call = {name: value.to("cuda") if isinstance(value, torch.Tensor) else value
                for name, value in call.items()}
        try:
            args, kwargs = fake_call(op, call)
            result = op.fake(*args, **kwargs)
        except Exception as error:
            raise GenerationError(f"op '{op.qualname}': its fake implementation failed when traced "
                                  f"with symbolic sizes: {type(error).__name__}: {error}") from None
    results = fake_results(op, call, result)
    outputs = [[sympy.sympify(d.node.expr if isinstance(d, torch.SymInt) else d) for d in r.shape]
               for r in results]
    guards = [g.expr for g in env.guards]
    for asserts in env.deferred_runtime_asserts.values():
        guards.extend(a.expr for a in asserts)
    # Input extents the trace made constants: a check it could not keep symbolic
    # (`q.shape[-1] in (16, 32, 64)` compares with each value and keeps the one that holds).
    constants = _pinned_symbols(env)
    pinned = [Pinned(ref, int(env.replacements[symbol]), decided.get(symbol))
              for symbol, ref in symbols.items() if symbol in constants]
    stated = {relation for relation, _ in checks}
    value_dependent = {symbols[symbol].name for guard in guards
                       if isinstance(guard, (sympy.Eq, sympy.Ne)) and guard not in stated
                       and (guard.lhs.is_number or guard.rhs.is_number)
                       for symbol in guard.free_symbols
                       if symbol in symbols and symbols[symbol].kind == "attr"
                       and symbol not in constants}
    return outputs, _candidate_requires(guards), symbols, checks + fixed, pinned, value_dependent


@dataclass
class Pinned:
    """An input extent the trace of the fake made a constant, and the torch._check of the fake
    whose condition did so (None where none did)."""
    ref: SymbolRef
    value: int
    site: object


def _pinned_symbols(env):
    return {symbol for symbol, value in env.replacements.items()
            if getattr(value, "is_Integer", False)}


@contextlib.contextmanager
def _recording_checks(checks, op, env, decided):
    """Records each `torch._check(condition)` of the fake as (relation, reason): PyTorch proves
    some of them from its own assumptions (a size is at least 2) and records no guard, but the
    fake states what the op needs, so each becomes a requirement. A condition that arrives as a
    plain bool was decided at the traced sizes: the extents it made constants (evaluating it,
    just before the call) are recorded in `decided` with the fake's line."""
    original = torch._check
    seen = _pinned_symbols(env)

    def check(condition, *args, **kwargs):
        nonlocal seen
        # (PyTorch's own functions call torch._check too: only the fake's calls count here.)
        direct = Path(sys._getframe(1).f_code.co_filename).resolve() == op.module_path
        if isinstance(condition, bool) and direct:
            now = _pinned_symbols(env)
            for symbol in now - seen:
                decided[symbol] = _fake_site(op)
            seen = now
        elif isinstance(condition, torch.SymBool):
            relation = sympy.sympify(condition.node.expr)
            # `sin.shape == cos.shape` is one And of equalities: each is a requirement (a tie)
            for part in (relation.args if isinstance(relation, sympy.And) else [relation]):
                if part not in (sympy.true, sympy.false):
                    checks.append((part, "torch._check in the fake implementation, "
                                         f"{_fake_site(op)}"))
        return original(condition, *args, **kwargs)

    torch._check = check
    try:
        yield
    finally:
        torch._check = original


def _fake_site(op):
    for frame in reversed(traceback.extract_stack()):
        if Path(frame.filename).resolve() == op.module_path:
            return f"{op.module_path.name}:{frame.lineno}"
    return op.module_path.name


def _between_symbols(guard):
    """An (in)equality between two expressions of sizes, not a size against a constant."""
    return not guard.lhs.is_number and not guard.rhs.is_number


def _candidate_requires(guards):
    kept = []
    for guard in guards:
        if guard in (sympy.true, sympy.false):
            continue
        if isinstance(guard, (sympy.Eq, sympy.Ne)) and not _between_symbols(guard):
            continue  # PyTorch's 0/1 specialisation while computing strides and contiguity
        if isinstance(guard, (sympy.Gt, sympy.Ge)) and isinstance(guard.lhs, sympy.Mul) and \
                guard.rhs in (1, 2):
            continue  # an element count above 1: the same contiguity computations
        if any("Bitwise" in type(f).__name__ for f in guard.atoms(sympy.Function)):
            continue  # a triton_op's host code traced as its fake: next_power_of_2's branches
        if guard not in kept:
            kept.append(guard)
    return kept


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
            if relation.xreplace(values) is sympy.true:
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
    value = _nearest_meeting(lambda v: holds(relation, {unknown: v}), current, lowest)
    if value is not None:
        ref.assign(point, value)
        tie(point, ties, keep=(ref.name, ref.index))


# Distances from the current value tried one by one before the search doubles its steps.
BOUND_STEPS = 16


def _nearest_meeting(meets, current, lowest):
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


def _sample_point(op, example, rng):
    point = {}
    for argument in op.arguments:
        value = example[argument.name]
        if value is None and argument.optional:
            point[argument.name] = None
        elif argument.kind == "Tensor":
            point[argument.name] = [rng.choice([0, 1]) if rng.random() < 0.1 else rng.randint(2, 30)
                                     for _ in value]
        elif argument.structural:
            point[argument.name] = value
        elif argument.kind == "int":
            point[argument.name] = rng.randint(-3, 2 * abs(value) + 4)
        elif argument.kind == "int[]":
            point[argument.name] = [rng.randint(-3, 2 * abs(v) + 4) for v in value]
        elif argument.kind == "bool":
            point[argument.name] = rng.random() < 0.5
        else:
            point[argument.name] = value
    return point


def input_dtype(argument, dtype):
    return of_input(argument, dtype)


def fake_outputs(op, point, dtype=torch.float32):
    """The fake's outputs at a point as fake CUDA tensors (inputs of `dtype`), or None when the
    fake raises."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode(), cuda_patched(90, set()):
        call = {}
        for argument in op.arguments:
            value = point[argument.name]
            call[argument.name] = (
                torch.empty(value, device="cuda", dtype=input_dtype(argument, dtype))
                if argument.kind == "Tensor" and value is not None else value)
        try:
            args, kwargs = fake_call(op, call)
            result = op.fake(*args, **kwargs)
        except Exception:  # the fake rejects these sizes or attributes
            return None
        return fake_results(op, call, result)


def concrete_output_shapes(op, point):
    """The fake's output shapes at a point, or None when the fake raises."""
    results = fake_outputs(op, point)
    return None if results is None else [tuple(int(d) for d in r.shape) for r in results]


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
        return bool(condition.xreplace(values))
    except (ZeroDivisionError, TypeError, ValueError, AssertionError):  # (as in satisfy)
        return False


# A fake's set of allowed sizes (`q.shape[-1] in (16, 32, 64, 128)`, `group_size in (32, 64,
# 128)`) is read by running it at these values (an int attribute's also down to -64); a set of
# more than MAX_ALLOWED_SIZES is not generated (one variant per size).
SET_PROBE_SIZES = sorted(set(range(1, 1025)) | {1 << k for k in range(11, 17)})
SET_PROBE_ATTRIBUTE_VALUES = sorted(set(range(-64, 1)) | set(SET_PROBE_SIZES))
MAX_ALLOWED_SIZES = 16


def _with_size(example, group, ties, size):
    """The example with the extents or int attributes of `group` (Pinned), and those tied to
    them, at `size`."""
    point = copy_point(example)
    for pin in group:
        pin.ref.assign(point, size)
    return tie(point, ties, keep=(group[0].ref.name, group[0].ref.index))


def _sets_of_sizes(op, example, outputs, symbols, pinned, ties):
    """For extents the trace pinned through a check of a set of sizes: ((outputs with each
    pinned value made its extent again where the fake's shapes say so, [(requirement, reason)]),
    ""); (None, why) where a pinned extent is not one of a set of at most MAX_ALLOWED_SIZES (the
    fake accepts its example's size only, or more) or the outputs cannot be told."""
    by_value = {}
    for pin in pinned:
        by_value.setdefault(pin.value, []).append(pin)
    symbol_of = {(ref.name, ref.index): symbol for symbol, ref in symbols.items()}
    requirements = []
    for value, group in by_value.items():
        probed = (SET_PROBE_SIZES if all(pin.ref.kind == "extent" for pin in group) else
                  SET_PROBE_ATTRIBUTE_VALUES)
        shapes_at = {size: concrete_output_shapes(op, _with_size(example, group, ties, size))
                     for size in probed}
        sizes = [size for size in probed if shapes_at[size] is not None]
        if len(sizes) > MAX_ALLOWED_SIZES:
            shown = ", ".join(map(str, sizes[:4] + ["..."] + sizes[-2:]))
            return None, (f"the fake accepts {len(sizes)} sizes there ({shown}), more than the "
                          f"{MAX_ALLOWED_SIZES} of a set that is generated (a variant per size)")
        if len(sizes) < 2 or value not in sizes:
            return None, ""
        symbol = symbol_of[(group[0].ref.name, group[0].ref.index)]
        general = [[sympy.sympify(d).xreplace({sympy.Integer(value): symbol}) for d in shape]
                   for shape in outputs]
        # Each output extent: the pinned value made the extent where that gives the fake's
        # shapes at every allowed size, else as traced.
        for size in sizes:
            concrete = shapes_at[size]
            values = point_values(symbols, _with_size(example, group, ties, size))
            for k, shape in enumerate(outputs):
                for axis, extent in enumerate(shape):
                    try:
                        if int(sympy.sympify(general[k][axis]).xreplace(values)) != \
                                concrete[k][axis]:
                            general[k][axis] = sympy.sympify(extent)
                    except (TypeError, ValueError, ZeroDivisionError):
                        return None, ""
        outputs = general
        relation = sympy.Or(*[sympy.Eq(symbol, size) for size in sizes])
        sites = sorted({pin.site for pin in group if pin.site})
        where = f", {', '.join(sites)}" if sites else ""
        what = "sizes" if group[0].ref.kind == "extent" else "values"
        requirements.append((relation, f"a set of {what} checked in the fake implementation" +
                             where))
        # The others the trace fixed to the same value were probed equal to the first (the
        # fake's `prefix.shape == out.shape` after `out.shape[-1] in (...)`): required so.
        for pin in group[1:]:
            requirements.append((sympy.Eq(symbol_of[(pin.ref.name, pin.ref.index)], symbol),
                                 f"fixed with {_written(group[0].ref)} to the example's "
                                 f"{value} by the fake implementation{where}; the set's "
                                 "sizes were read with them equal"))
    return (outputs, requirements), ""


def _requirement_text(relation, symbols):
    """A relation with its symbols written as the shape function's messages write them."""
    return str(relation.xreplace({s: sympy.Symbol(_written(ref)) for s, ref in symbols.items()
                                  if s in relation.free_symbols}))


def _written(ref):
    """As the shape function's messages write it: `q[3]`, `group_size`."""
    return ref.name if ref.index is None else f"{ref.name}[{ref.index}]"


def _generalized_checks(op, example, checks, symbols, set_requirements, ties):
    """The fake's checks with a set's value, which the trace wrote in place of its extent or
    attribute once the set's check had fixed it (`x.shape[-1] % group_size == 0` after
    `group_size in (32, 64, 128)` traced as `x[1] % 128 == 0`). Each is tried at the set's other
    values with the other size moved to where the two forms differ: where the fake accepts a
    point the general form rejects, the traced form stays; else where it accepts one the traced
    form rejects, the general form replaces it; else both are kept (never looser than either)."""
    result = []
    for relation, reason in checks:
        forms = [relation]
        for set_relation, _ in set_requirements:
            if allowed_values(set_relation) is None:
                continue  # an equality beside the set
            symbol, sizes = allowed_values(set_relation)
            ref = symbols[symbol]
            value = ref.value(example)
            if symbol in relation.free_symbols or not relation.has(sympy.Integer(value)):
                continue
            general = relation.xreplace({sympy.Integer(value): symbol})
            general_wrong = traced_wrong = False
            # Extents the trace fixed to the set's value by other checks (`v.shape[-1] ==
            # k.shape[-1]` after `q.shape[-1] == k.shape[-1]`, both traced as `== 128`) move
            # with it: the fake accepts no point with them left at the value.
            along = [other for other in _pinned_to(checks, value)
                     if other != symbol and other in symbols]
            for size in (s for s in sizes if s != value):
                for other in (s for s in general.free_symbols if s != symbol and s in symbols):
                    for trial in sorted({size * k + d for k in range(1, 6) for d in (0, 1)} |
                                        {value * k for k in range(1, 4)}):
                        point = copy_point(example)
                        ref.assign(point, size)
                        tie(point, ties, keep=(ref.name, ref.index))
                        for moved in along:
                            if moved != other:
                                symbols[moved].assign(point, size)
                        symbols[other].assign(point, trial)
                        tie(point, ties, keep=(symbols[other].name, symbols[other].index))
                        values = point_values(symbols, point)
                        if holds(relation, values) == holds(general, values) or \
                                concrete_output_shapes(op, point) is None:
                            continue  # the forms agree, or the fake rejects (maybe elsewhere)
                        general_wrong = general_wrong or not holds(general, values)
                        traced_wrong = traced_wrong or not holds(relation, values)
            if not general_wrong:
                forms = [general] if traced_wrong else [relation, general]
        result += [(form, reason) for form in forms]
    return result


def _pinned_to(checks, value):
    """The symbols the checks require equal to the number `value` (`128 == k[2]`)."""
    pinned = []
    for relation, _ in checks:
        if isinstance(relation, sympy.Eq):
            left, right = relation.lhs, relation.rhs
            if left == sympy.Integer(value) and isinstance(right, sympy.Symbol):
                pinned.append(right)
            elif right == sympy.Integer(value) and isinstance(left, sympy.Symbol):
                pinned.append(left)
    return pinned


def traced_shapes(op, example, samples=400, seed=0):
    outputs, candidates, symbols, checks, pinned, value_dependent = trace(op, example)
    set_requirements, why_not_a_set = [], ""
    if pinned:
        ties = tied_extents(candidates + [relation for relation, _ in checks], symbols)
        sets, why_not_a_set = _sets_of_sizes(op, example, outputs, symbols, pinned, ties)
        if sets is not None:
            outputs, set_requirements = sets
            checks = _generalized_checks(op, example, checks, symbols, set_requirements,
                                         ties) + set_requirements
            pinned = []
        elif not why_not_a_set:
            # The fake takes the example's value alone, with the example's other sizes
            # (`scales.shape[0] == K // group_size` after `group_size in (32, 64, 128)`): an
            # attribute is then part of the structure (an --example per value), an extent is
            # required to be the example's.
            attributes = {pin.ref.name for pin in pinned if pin.ref.kind == "attr"}
            if attributes:
                for argument in op.attributes:
                    if argument.name in attributes:
                        argument.structural = True
                        op.notes.append(
                            f"{argument.name} is part of the structure, as a string is: the fake "
                            f"fixes it to the example's value ({argument.name} = "
                            f"{example[argument.name]}), and with the example's other sizes "
                            "accepts no other; the plugin takes the examples' values of it only "
                            "(give an --example per value, with sizes that fit it)")
                return traced_shapes(op, example, samples, seed)
            for pin in pinned:
                symbol = next(k for k, ref in symbols.items() if ref == pin.ref)
                where = f", {pin.site}" if pin.site else ""
                checks.append((sympy.Eq(symbol, pin.value),
                               f"the example's; the fake implementation fixes it{where}"))
            pinned = []
    reasons = {}
    for relation, reason in checks:
        reasons[relation] = reason
        if relation not in candidates:
            candidates.append(relation)
    ties = tied_extents(candidates, symbols)
    rng = random.Random(seed)
    points = []
    for _ in range(samples):
        point = tie(_sample_point(op, example, rng), ties)
        if set_requirements:  # a size of the set, not a point the requirement excludes
            satisfy(point, candidates, symbols)
        values = point_values(symbols, point)
        points.append((point, values, concrete_output_shapes(op, point)))

    def agrees(point_values, concrete):
        if concrete is None:
            return False
        try:
            return evaluate_shapes(outputs, point_values) == concrete
        except (TypeError, ValueError, ZeroDivisionError):
            return False

    requires = list(candidates)
    for guard in list(requires):
        if guard in reasons:
            continue  # the fake states it: kept
        others = [g for g in requires if g is not guard]
        # Points the fake rejects say nothing about the formula: the guard goes when the fake
        # accepts points outside it and gives the formula's shape at every one of them.
        outside = [(v, c) for _, v, c in points if c is not None
                   and all(holds(g, v) for g in others) and not holds(guard, v)]
        if outside and all(agrees(v, c) for v, c in outside):
            requires = others
    example_values = point_values(symbols, example)
    broken = [g for g in requires if not holds(g, example_values)]
    # Traced away from 0 and 1, two attributes can meet (`x.transpose(dim0, dim1)` at dims 1 and
    # 2, both traced at 2, records dim0 == dim1): they are then axes, part of the structure.
    axes = [a for a in op.attributes if not a.structural and
            any(symbols[s].name == a.name for g in broken for s in g.free_symbols
                if s in symbols and symbols[s].kind == "attr")]
    if axes:
        for argument in axes:
            argument.structural = True
        op.notes += [_structural_note(a.name) for a in axes]
        return traced_shapes(op, example, samples, seed)
    if broken:
        raise GenerationError(f"op '{op.qualname}': the example {example} does not satisfy "
                              f"what the fake implementation requires: "
                              f"{', '.join(_requirement_text(g, symbols) for g in broken)}")
    unreachable = []
    for point, values, concrete in points:
        if not all(holds(g, values) for g in requires):
            continue
        if concrete is None:
            unreachable.append(point)
            continue
        if not agrees(values, concrete):
            if pinned:
                raise GenerationError(_pinned_message(op, pinned, point, concrete,
                                                      why_not_a_set))
            # The shapes follow an int attribute's value (`del shape[dim]`): traced at the
            # example's, as part of the structure, where that holds.
            axes = [a for a in op.attributes if a.name in value_dependent and not a.structural]
            for argument in axes:
                argument.structural = True
            try:
                if axes:
                    traced = traced_shapes(op, example, samples, seed)
                    op.notes += [_structural_note(a.name) for a in axes]
                    return traced
            except GenerationError:
                for argument in axes:
                    argument.structural = False
            raise GenerationError(
                f"op '{op.qualname}': the output shape traced from the fake implementation "
                f"({_show(outputs)}) does not hold at {point}: the fake gives {concrete}. Its "
                "shape depends on a branch the trace could not see; give an --example on the "
                "branch you need (for a bool such as keepdim, one for each value), or make the "
                "fake branch-free (torch.sym_max, torch.sym_min)")
    return TracedShapes(outputs, requires, symbols, unreachable, reasons)


def _pinned_message(op, pinned, point, concrete, why_not_a_set):
    extents = ", ".join(f"{p.ref.text()} to {p.value}" for p in pinned)
    sites = sorted({p.site for p in pinned if p.site})
    where = (f" (through the condition of torch._check at {', '.join(sites)})" if sites else "")
    first = pinned[0]
    because = f": {why_not_a_set}" if why_not_a_set else ""
    checked = (f"{first.ref.name}.shape[{first.ref.index}]" if first.ref.kind == "extent" else
               first.ref.name)
    return (f"op '{op.qualname}': tracing the fake implementation fixes {extents}, the "
            f"example's{where}: a condition the trace cannot keep symbolic, such as "
            "`x.shape[-1] in (16, 32, 64)`, which compares with each value; at "
            f"{point} the fake gives {concrete}. A set of up to {MAX_ALLOWED_SIZES} sizes is "
            f"generated (a variant per size), not this one{because}. Pin the size in the fake "
            f"(`torch._check({checked} == {first.value})`; the "
            "plugin then takes that size only, one project per size), list fewer sizes, or state "
            "a range that the kernel takes every size of "
            f"(`torch._check({checked} <= ...)`)")


def _show(outputs):
    return ", ".join("[" + ", ".join(str(d) for d in shape) + "]" for shape in outputs)
