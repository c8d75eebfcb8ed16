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
from .points import (allowed_values, copy_point, evaluate_shapes, holds, point_values,
                     sample_point, satisfy, tie, tied_extents)
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
        # (and its negation: a ceiling division is traced as `-(n // -value)`)
        made_symbol = {sympy.Integer(value): symbol, sympy.Integer(-value): -symbol}
        general = [[sympy.sympify(d).xreplace(made_symbol) for d in shape] for shape in outputs]
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
        point = tie(sample_point(op, example, rng), ties)
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
