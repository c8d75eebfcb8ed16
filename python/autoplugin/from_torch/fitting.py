"""Identify a launch argument's value as an expression of shapes and attributes.

Pure Python (no torch): the values an argument took at sampled points, and per point the
"atoms" a launcher can read (an input's or output's extent, element count and stride, an
attribute or an attribute's element). Candidates are tried from the simplest: a constant, an atom,
an atom plus a constant, a multiple, a sum, difference, minimum or maximum of two atoms, a
ceiling or floor division by a constant, a product of two atoms, and products of ceiling
divisions by the launch's integer constexprs (tiles over two extents); then products of up to
four sizes (one repeated: B * H * S * S) and of a tile count with two sizes. The first candidate that matches
every fitting sample must also match every checking sample, else the argument is refused: it is
never guessed. What fits is an expression (expressions.py), printed to C++ when the project is
written; an integer one also gives its sympy form over the atoms (atom_symbol), what the floors
above compute with.
"""
import math
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement, product

import sympy

from .discover import output_names
from .errors import UNRECOVERED, GenerationError
from .expressions import (CDIV, FLOOR_DIV, MAX, MIN, MIN_INT64, SQRT, TO_DOUBLE, TO_FLOAT,
                          Binary, Conditional, Integer, Literal, Negated, atom_symbol,
                          attribute_atom, call, float_literal, tensor_atom)


@dataclass
class Environment:
    """The atoms at one sampled point, in order of preference: C++ text -> value; and each
    atom's expression (expressions.Atom) by its text."""
    atoms: dict
    nodes: dict = None


def point_atoms(op, point):
    """The atoms of a point's inputs and attributes (no outputs): what a family's size is
    computed from."""
    shapes = {a.name: point[a.name] for a in op.tensors if point[a.name] is not None}
    return environment(op, point, shapes, []).atoms


def output_name(op, index):
    """The C++ name of the op's output `index` (discover.output_names)."""
    return output_names([argument.name for argument in op.arguments], op.num_outputs)[index]


def environment(op, point, input_shapes, output_shapes):
    """Atoms for a launcher of `op`: `x.size(1)`, `out.numel()`, `padding[2]`, `slope`, ..."""
    atoms, nodes = {}, {}

    def add(atom, value):
        atoms[atom.text] = value
        nodes[atom.text] = atom

    def tensor_atoms(name, shape):
        for axis, extent in enumerate(shape):
            add(tensor_atom(name, "size", axis), extent)
        numel = 1
        for extent in shape:
            numel *= extent
        add(tensor_atom(name, "numel"), numel)
        stride = 1
        for axis in reversed(range(len(shape))):
            if axis < len(shape) - 1:
                add(tensor_atom(name, "stride", axis), stride)
            stride *= shape[axis]

    for argument in op.arguments:
        if argument.kind == "Tensor" and argument.name in input_shapes:  # not an absent Tensor?
            tensor_atoms(argument.name, input_shapes[argument.name])
    for index, shape in enumerate(output_shapes):
        tensor_atoms(output_name(op, index), shape)
    for argument in op.arguments:
        value = point[argument.name]
        if argument.kind in ("int", "float", "bool") and argument.optional:
            if value is not None:  # a structure where it is given: its value
                add(attribute_atom(argument.name, optional=True), value)
        elif argument.kind in ("int", "float", "bool"):
            add(attribute_atom(argument.name), value)
        elif argument.kind in ("int[]", "float[]", "bool[]"):
            for k, element in enumerate(value):
                add(attribute_atom(argument.name, k), element)
    return Environment(atoms, nodes)


def atom_expressions(shapes, attributes):
    """{atom_symbol(): its sympy value} for tensors of these extents (`shapes`: name -> sympy
    extents; each one's sizes, strides and element count, as a launcher reads a contiguous
    tensor) and `attributes` (atom name -> sympy value): what a recovered expression is over,
    as a function of other symbols."""
    atoms = dict(attributes)
    for name, shape in shapes.items():
        for axis, extent in enumerate(shape):
            atoms[f"{name}.size({axis})"] = extent
            atoms[f"{name}.stride({axis})"] = sympy.Mul(*shape[axis + 1:])
        atoms[f"{name}.numel()"] = sympy.Mul(*shape)
    return {atom_symbol(name): sympy.sympify(value) for name, value in atoms.items()}


def _cdiv(a, b):
    return call(CDIV, a, b)


def _floor_div(a, b):
    return call(FLOOR_DIV, a, b)


def candidates(envs, constants, cap=None):
    """(expression, function of an environment) from the simplest; then each size, element
    count or ceiling division capped at `cap` (a grid of at most one program per
    multiprocessor); last, quotients of two sizes and sums of two sizes divided by an
    attribute."""
    names = list(envs[0].atoms)
    A = envs[0].nodes.__getitem__
    for name in names:
        yield A(name), lambda env, n=name: env.atoms[n]
    for name in names:
        for offset in range(-64, 65):
            if offset:
                yield (Binary("+", A(name), Integer(offset)) if offset > 0 else
                       Binary("-", A(name), Integer(-offset)),
                       lambda env, n=name, c=offset: env.atoms[n] + c)
    for name in names:
        for factor in range(-16, 17):
            if factor not in (0, 1):
                yield (Binary("*", Integer(factor), A(name)),
                       lambda env, n=name, c=factor: c * env.atoms[n])
    for a, b in combinations(names, 2):
        yield Binary("+", A(a), A(b)), lambda env, a=a, b=b: env.atoms[a] + env.atoms[b]
    for a, b in product(names, names):
        if a != b:
            yield Binary("-", A(a), A(b)), lambda env, a=a, b=b: env.atoms[a] - env.atoms[b]
    for a, b in combinations(names, 2):
        yield call(MIN, A(a), A(b)), lambda env, a=a, b=b: min(env.atoms[a], env.atoms[b])
        yield call(MAX, A(a), A(b)), lambda env, a=a, b=b: max(env.atoms[a], env.atoms[b])
    divisors = sorted({c for c in constants if c > 1} | {2 ** k for k in range(1, 17)})
    for name in names:
        for divisor in divisors:
            yield (_cdiv(A(name), Integer(divisor)),
                   lambda env, n=name, d=divisor: -(-env.atoms[n] // d))
            yield (_floor_div(A(name), Integer(divisor)),
                   lambda env, n=name, d=divisor: env.atoms[n] // d)
    for a, b in combinations(names, 2):
        yield Binary("*", A(a), A(b)), lambda env, a=a, b=b: env.atoms[a] * env.atoms[b]
    for a, b, c in combinations(names, 3):  # rows of a [Z, H, N, D] input: Z * H * N
        yield (Binary("*", Binary("*", A(a), A(b)), A(c)),
               lambda env, a=a, b=b, c=c: env.atoms[a] * env.atoms[b] * env.atoms[c])
    # A size divided by an int attribute (a group's stride: C * H * W // num_groups).
    attributes = [n for n in names if "." not in n and all(
        isinstance(env.atoms[n], int) and not isinstance(env.atoms[n], bool) for env in envs)]
    for name in names:
        for attribute in attributes:
            if name != attribute:
                yield (_floor_div(A(name), A(attribute)),
                       lambda env, n=name, d=attribute: env.atoms[n] // env.atoms[d])
    # Tiles over two extents in one axis (Triton's matmul tutorial:
    # cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)), or a batch of tiled rows: by the launch's constants.
    launch_divisors = sorted({c for c in constants if c > 1})
    for a, b in product(names, names):
        for d in launch_divisors:
            yield (Binary("*", A(a), _cdiv(A(b), Integer(d))),
                   lambda env, a=a, b=b, d=d: env.atoms[a] * -(-env.atoms[b] // d))
    for a, b in combinations(names, 2):
        for d in launch_divisors:  # tiles over the rows of a flattened batch: cdiv(B * S, BM)
            yield (_cdiv(Binary("*", A(a), A(b)), Integer(d)),
                   lambda env, a=a, b=b, d=d: -(-(env.atoms[a] * env.atoms[b]) // d))
    for a, b, c in combinations(names, 3):  # the rows of a [B, S, H, D] input flattened
        for d in launch_divisors:
            yield (_cdiv(Binary("*", Binary("*", A(a), A(b)), A(c)), Integer(d)),
                   lambda env, a=a, b=b, c=c, d=d:
                   -(-(env.atoms[a] * env.atoms[b] * env.atoms[c]) // d))
    for (a, d), (b, e) in combinations(product(names, launch_divisors), 2):
        yield (Binary("*", _cdiv(A(a), Integer(d)), _cdiv(A(b), Integer(e))),
               lambda env, a=a, b=b, d=d, e=e: -(-env.atoms[a] // d) * -(-env.atoms[b] // e))
    if cap is not None:
        for name in names:
            yield (call(MIN_INT64, Integer(cap), A(name)),
                   lambda env, n=name: min(cap, env.atoms[n]))
            for divisor in divisors:
                yield (call(MIN_INT64, Integer(cap), _cdiv(A(name), Integer(divisor))),
                       lambda env, n=name, d=divisor: min(cap, -(-env.atoms[n] // d)))
        for a, b in combinations(names, 2):  # the rows of an input flattened to 2-D
            yield (call(MIN_INT64, Integer(cap), Binary("*", A(a), A(b))),
                   lambda env, a=a, b=b: min(cap, env.atoms[a] * env.atoms[b]))
    # One size divided by another (GQA's query heads per key head: q.shape[1] // k.shape[1]).
    for a, b in product(names, names):
        if a != b and b not in attributes:
            yield (_floor_div(A(a), A(b)), lambda env, a=a, b=b: env.atoms[a] // env.atoms[b])
    # Heads of two inputs (a rotary embedding over query and key heads: q.shape[-1] // head_size
    # + k.shape[-1] // head_size).
    for a, b in combinations(names, 2):
        for attribute in attributes:
            if attribute not in (a, b):
                yield (Binary("+", _floor_div(A(a), A(attribute)),
                              _floor_div(A(b), A(attribute))),
                       lambda env, a=a, b=b, d=attribute:
                       env.atoms[a] // env.atoms[d] + env.atoms[b] // env.atoms[d])
    # Products of up to four sizes or int attributes, one may repeat (attention's scores:
    # B * H * S * S), and of two with a tile count (fla's chunks: cdiv(T, BT) * B * H).
    factors = _distinct_factors(envs, names, attributes)
    for count in (2, 3, 4):
        for chosen in combinations_with_replacement(factors, count):
            if len(set(chosen)) < count - 1 or (count < 4 and len(set(chosen)) == count):
                continue  # more than one repeat; or a product without repeats yielded above
            yield (_product_of(A, chosen),
                   lambda env, chosen=chosen: _value_of_product(env, chosen))
    for chosen in combinations(factors, 3):
        for tiled, d in product(chosen, launch_divisors):
            rest = [name for name in chosen if name != tiled]
            yield (Binary("*", _product_of(A, rest), _cdiv(A(tiled), Integer(d))),
                   lambda env, rest=rest, t=tiled, d=d:
                   _value_of_product(env, rest) * -(-env.atoms[t] // d))


def _distinct_factors(envs, names, attributes):
    """The sizes and int attributes that may multiply, one per distinct list of values over
    `envs` (extents that requirements tie are one factor)."""
    seen, factors = set(), []
    for name in names:
        if envs[0].nodes[name].kind == "size" or name in attributes:
            values = tuple(env.atoms[name] for env in envs)
            if values not in seen:
                seen.add(values)
                factors.append(name)
    return factors


def _product_of(A, names):
    expression = A(names[0])
    for name in names[1:]:
        expression = Binary("*", expression, A(name))
    return expression


def _value_of_product(env, names):
    return math.prod(env.atoms[name] for name in names)


def fit(values, fit_envs, check_envs, context, triton_type, constants=()):
    """The expression computing `values` (one per environment: the fitting ones, then the
    checking ones), or GenerationError naming `context` and why."""
    if triton_type == "fp32":
        return _fit_float(values, fit_envs + check_envs, context)
    if triton_type == "i1":
        if len({bool(v) for v in values}) == 1:
            return Literal("true" if bool(values[0]) else "false")
        for name in fit_envs[0].atoms:
            if all(bool(env.atoms[name]) == bool(v) and isinstance(env.atoms[name], bool)
                   for env, v in zip(fit_envs + check_envs, values)):
                return fit_envs[0].nodes[name]
        raise GenerationError(f"{context}: a bool that is neither constant nor a bool attribute; "
                              "make it a bool attribute of the op, or a constexpr")
    return fit_integer(values, fit_envs, check_envs, context, constants)


def fit_integer(values, fit_envs, check_envs, context, constants=()):
    """The expression computing the integer `values` (one per environment: the fitting ones,
    then the checking ones), or GenerationError naming `context` and why."""
    fit_values = [int(v) for v in values[:len(fit_envs)]]
    check_values = [int(v) for v in values[len(fit_envs):]]
    # What to change: a kernel argument can be computed in the kernel; a grid cannot.
    advice = ("Launch a grid of a simple combination (cdiv(n, BLOCK) per axis) and loop in the "
              "kernel over the rest" if context.startswith("grid axis") else
              "Compute it in the kernel from the sizes and attributes it is given")
    if len(set(fit_values + check_values)) == 1:
        return Integer(fit_values[0])
    for expression, function in candidates(fit_envs, constants, max(fit_values + check_values)):
        try:
            if all(integral_value(function(env)) == v for env, v in zip(fit_envs, fit_values)):
                break
        except (TypeError, ZeroDivisionError):
            continue
    else:
        raise GenerationError(
            f"{context} cannot be recovered: its values {fit_values} at the sampled points are not "
            "a constant, a size, an element count, a stride, an attribute (element), or a simple "
            "combination of these (sum, difference, min, max, multiple, ceiling or floor division "
            "by a constant or an int attribute, product of up to four sizes, tiles over two "
            f"extents or over one beside other sizes). {advice}",
            UNRECOVERED)
    for env, value in zip(check_envs, check_values):
        if integral_value(function(env)) != value:
            raise GenerationError(
                f"{context} cannot be recovered: '{expression.cpp()}' matches the fitting samples "
                f"but gives {function(env)} where the host code passes {value} "
                f"(at {describe_environment(env)}). {advice}", UNRECOVERED)
    return expression


def integral_value(value):
    if isinstance(value, bool) or not float(value).is_integer():
        raise TypeError("not an integer")
    return int(value)


def _to_float(expression):
    return call(TO_FLOAT, expression)


def _reciprocal(expression):
    return Binary("/", Literal("1.0"), expression)


def _fit_float(values, envs, context):
    floats = [float(v) for v in values]
    if len(set(floats)) == 1:
        return float_literal(floats[0])
    nodes = envs[0].nodes
    for name in envs[0].atoms:
        if all(isinstance(env.atoms[name], float) and env.atoms[name] == v
               for env, v in zip(envs, floats)):
            return _to_float(nodes[name])
    # The reciprocal of a size (a mean's scale: 1.0 / BT), as float32 computes it.
    for name in envs[0].atoms:
        if all(isinstance(env.atoms[name], int) and not isinstance(env.atoms[name], bool) and
               env.atoms[name] != 0 and _close(1.0 / env.atoms[name], v)
               for env, v in zip(envs, floats)):
            return _to_float(_reciprocal(call(TO_DOUBLE, nodes[name])))
    # The reciprocal of a float attribute (`1.0 / temperature`), or of a size's square root
    # (attention's `sm_scale = 1 / sqrt(head_dim)`), as float32 computes it.
    for name in envs[0].atoms:
        if all(isinstance(env.atoms[name], float) and env.atoms[name] != 0 and
               _close(1.0 / env.atoms[name], v) for env, v in zip(envs, floats)):
            return _to_float(_reciprocal(nodes[name]))
    for name in envs[0].atoms:
        if all(isinstance(env.atoms[name], int) and not isinstance(env.atoms[name], bool) and
               env.atoms[name] > 0 and _close(env.atoms[name] ** -0.5, v)
               for env, v in zip(envs, floats)):
            return _to_float(_reciprocal(call(SQRT, call(TO_DOUBLE, nodes[name]))))
    # A float attribute a bool attribute switches off (`p if training else 0.0`).
    for name in envs[0].atoms:
        for flag in envs[0].atoms:
            if not all(isinstance(env.atoms[name], float) and isinstance(env.atoms[flag], bool)
                       for env in envs):
                continue
            for on, condition in ((True, nodes[flag]), (False, Negated("!", nodes[flag]))):
                if all((env.atoms[name] if env.atoms[flag] == on else 0.0) == v
                       for env, v in zip(envs, floats)):
                    return Conditional(condition, _to_float(nodes[name]), Literal("0.0f"))
    affine = _fit_affine_float(floats, envs)
    if affine:
        return affine
    raise GenerationError(f"{context} cannot be recovered: a float that is neither constant, a "
                          f"float attribute or its reciprocal, one a bool attribute switches to "
                          f"0, the reciprocal of a size or of its square root, an affine "
                          f"function of an attribute or size (`1 + eps`, `1 / (1 - p)`, "
                          f"`sm_scale * 1.4427`) nor a product of two float attributes (values "
                          f"{floats[:4]}...); compute it in the kernel from the attributes it is "
                          "given", UNRECOVERED)


def _fit_affine_float(floats, envs):
    """The expression of `floats` as an affine function of one number atom (`1 + eps`,
    `sm_scale * LOG2E`, `float(n - 1)`), as its reciprocal (`1 / (1 - p)`, `1 / (n - 1)`), or
    as the product of two float attributes; None when none fits at every point."""
    numbers = [name for name, value in envs[0].atoms.items()
               if isinstance(value, (int, float)) and not isinstance(value, bool) and
               all(isinstance(env.atoms[name], (int, float)) for env in envs)]
    for name in numbers:
        xs = [float(env.atoms[name]) for env in envs]
        for reciprocal in (False, True):
            if reciprocal and any(y == 0 for y in floats):
                continue
            ys = [1.0 / y for y in floats] if reciprocal else floats
            line = _line_through(xs, ys)
            if line is None:
                continue
            slope, intercept = line
            if all(_close(y, 1.0 / (slope * x + intercept) if reciprocal else
                          slope * x + intercept) for x, y in zip(xs, floats)
                   if not reciprocal or slope * x + intercept != 0):
                body = _affine(slope, intercept, envs[0].nodes[name])
                return _to_float(_reciprocal(body) if reciprocal else body)
    floats_only = [n for n in numbers if all(isinstance(env.atoms[n], float) for env in envs)]
    for first in floats_only:
        for second in floats_only:
            if first <= second and all(_close(env.atoms[first] * env.atoms[second], y)
                                       for env, y in zip(envs, floats)):
                return _to_float(Binary("*", envs[0].nodes[first], envs[0].nodes[second]))
    return None


def _line_through(xs, ys):
    """(slope, intercept) of the line through the first two points with different x, rounded to
    9 significant digits (a constant as written: 1.0, not 1.0000000000000002), or None."""
    other = next((i for i, x in enumerate(xs) if x != xs[0]), None)
    if other is None:
        return None
    slope = (ys[other] - ys[0]) / (xs[other] - xs[0])
    intercept = ys[0] - slope * xs[0]
    if abs(intercept) <= 1e-9 * max(abs(y) for y in ys):
        intercept = 0.0  # rounding left over from the division
    if slope == 0:
        return None
    return float(f"{slope:.9g}"), float(f"{intercept:.9g}")


def _affine(slope, intercept, atom):
    """`slope * atom + intercept`, the constants as Python writes them (`1 - p`, `2.0 * n +
    1.0`)."""
    def scaled(factor):
        return (atom if factor == 1 else Negated("-", atom) if factor == -1 else
                Binary("*", Literal(repr(factor)), atom))
    if intercept == 0:
        return scaled(slope)
    if slope < 0:
        return Binary("-", Literal(repr(intercept)), scaled(-slope))
    return Binary("-" if intercept < 0 else "+", scaled(slope), Literal(repr(abs(intercept))))


def _close(expected, value):
    """Equal as the float32 the kernel receives."""
    return abs(expected - value) <= 1e-6 * abs(expected)


def describe_environment(env):
    return ", ".join(f"{k}={v}" for k, v in env.atoms.items()
                     if env.nodes[k].kind in ("size", "attribute"))
