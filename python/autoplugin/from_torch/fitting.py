"""Identify a launch argument's value as an expression of shapes and attributes.

Pure Python (no torch): the values an argument took at sampled points, and per point the
"atoms" a launcher can read (an input's or output's extent, element count and stride, an
attribute or an attribute's element). Candidates are tried from the simplest: a constant, an atom,
an atom plus a constant, a multiple, a sum, difference, minimum or maximum of two atoms, a
ceiling or floor division by a constant, a product of two atoms, and products of ceiling
divisions by the launch's integer constexprs (tiles over two extents). The first candidate that matches
every fitting sample must also match every checking sample, else the argument is refused: it is
never guessed. An integer's value is also kept as a sympy expression over the atoms
(atom_symbol), what the floors above compute with, where they need more than its C++.
"""
from dataclasses import dataclass
from itertools import combinations, product

import sympy

from .discover import output_names
from .errors import UNRECOVERED, GenerationError


@dataclass
class Environment:
    """The atoms at one sampled point, in order of preference: C++ text -> value."""
    atoms: dict


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
    atoms = {}

    def tensor_atoms(name, shape):
        for axis, extent in enumerate(shape):
            atoms[f"{name}.size({axis})"] = extent
        numel = 1
        for extent in shape:
            numel *= extent
        atoms[f"{name}.numel()"] = numel
        stride = 1
        for axis in reversed(range(len(shape))):
            if axis < len(shape) - 1:
                atoms[f"{name}.stride({axis})"] = stride
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
                atoms[f"*{argument.name}"] = value
        elif argument.kind in ("int", "float", "bool"):
            atoms[argument.name] = value
        elif argument.kind in ("int[]", "float[]", "bool[]"):
            for k, element in enumerate(value):
                atoms[f"{argument.name}[{k}]"] = element
    return Environment(atoms)


def atom_symbol(name):
    """An atom as a sympy symbol named by its C++ text (`x.size(1)`, `padding[2]`): what a
    recovered value's expression is over."""
    return sympy.Symbol(name, integer=True)


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


def atom_kind(symbol):
    """What an atom_symbol() reads: "size", "numel" or "stride" of a tensor (an input or an
    output), else "attribute" (an attribute or an element of one)."""
    for kind in ("size", "numel", "stride"):
        if f".{kind}(" in symbol.name:
            return kind
    return "attribute"


def _cdiv(a, b):
    return sympy.ceiling(sympy.sympify(a) / sympy.sympify(b))


def _floor_div(a, b):
    return sympy.floor(sympy.sympify(a) / sympy.sympify(b))


def candidates(envs, constants, cap=None):
    """(C++ text, function of an environment, its expression over atom_symbol()s as a function
    of nothing: built for the one that fits) from the simplest; then each size, element count
    or ceiling division capped at `cap` (a grid of at most one program per multiprocessor); last,
    quotients of two sizes and sums of two sizes divided by an attribute."""
    names = list(envs[0].atoms)
    A = atom_symbol
    for name in names:
        yield name, lambda env, n=name: env.atoms[n], lambda n=name: A(n)
    for name in names:
        for offset in range(-64, 65):
            if offset:
                yield (f"{name} + {offset}" if offset > 0 else f"{name} - {-offset}",
                       lambda env, n=name, c=offset: env.atoms[n] + c,
                       lambda n=name, c=offset: A(n) + c)
    for name in names:
        for factor in range(-16, 17):
            if factor not in (0, 1):
                yield (f"{factor} * {name}", lambda env, n=name, c=factor: c * env.atoms[n],
                       lambda n=name, c=factor: c * A(n))
    for a, b in combinations(names, 2):
        yield (f"{a} + {b}", lambda env, a=a, b=b: env.atoms[a] + env.atoms[b],
               lambda a=a, b=b: A(a) + A(b))
    for a, b in product(names, names):
        if a != b:
            yield (f"{a} - {b}", lambda env, a=a, b=b: env.atoms[a] - env.atoms[b],
                   lambda a=a, b=b: A(a) - A(b))
    for a, b in combinations(names, 2):
        yield (f"std::min({a}, {b})", lambda env, a=a, b=b: min(env.atoms[a], env.atoms[b]),
               lambda a=a, b=b: sympy.Min(A(a), A(b)))
        yield (f"std::max({a}, {b})", lambda env, a=a, b=b: max(env.atoms[a], env.atoms[b]),
               lambda a=a, b=b: sympy.Max(A(a), A(b)))
    divisors = sorted({c for c in constants if c > 1} | {2 ** k for k in range(1, 17)})
    for name in names:
        for divisor in divisors:
            yield (f"ap::triton::cdiv({name}, {divisor})",
                   lambda env, n=name, d=divisor: -(-env.atoms[n] // d),
                   lambda n=name, d=divisor: _cdiv(A(n), d))
            yield (f"floor_div({name}, {divisor})",
                   lambda env, n=name, d=divisor: env.atoms[n] // d,
                   lambda n=name, d=divisor: _floor_div(A(n), d))
    for a, b in combinations(names, 2):
        yield (f"{a} * {b}", lambda env, a=a, b=b: env.atoms[a] * env.atoms[b],
               lambda a=a, b=b: A(a) * A(b))
    for a, b, c in combinations(names, 3):  # rows of a [Z, H, N, D] input: Z * H * N
        yield (f"{a} * {b} * {c}",
               lambda env, a=a, b=b, c=c: env.atoms[a] * env.atoms[b] * env.atoms[c],
               lambda a=a, b=b, c=c: A(a) * A(b) * A(c))
    # A size divided by an int attribute (a group's stride: C * H * W // num_groups).
    attributes = [n for n in names if "." not in n and all(
        isinstance(env.atoms[n], int) and not isinstance(env.atoms[n], bool) for env in envs)]
    for name in names:
        for attribute in attributes:
            if name != attribute:
                yield (f"floor_div({name}, {attribute})",
                       lambda env, n=name, d=attribute: env.atoms[n] // env.atoms[d],
                       lambda n=name, d=attribute: _floor_div(A(n), A(d)))
    # Tiles over two extents in one axis (Triton's matmul tutorial:
    # cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)), or a batch of tiled rows: by the launch's constants.
    launch_divisors = sorted({c for c in constants if c > 1})
    for a, b in product(names, names):
        for d in launch_divisors:
            yield (f"{a} * ap::triton::cdiv({b}, {d})",
                   lambda env, a=a, b=b, d=d: env.atoms[a] * -(-env.atoms[b] // d),
                   lambda a=a, b=b, d=d: A(a) * _cdiv(A(b), d))
    for a, b in combinations(names, 2):
        for d in launch_divisors:  # tiles over the rows of a flattened batch: cdiv(B * S, BM)
            yield (f"ap::triton::cdiv({a} * {b}, {d})",
                   lambda env, a=a, b=b, d=d: -(-(env.atoms[a] * env.atoms[b]) // d),
                   lambda a=a, b=b, d=d: _cdiv(A(a) * A(b), d))
    for a, b, c in combinations(names, 3):  # the rows of a [B, S, H, D] input flattened
        for d in launch_divisors:
            yield (f"ap::triton::cdiv({a} * {b} * {c}, {d})",
                   lambda env, a=a, b=b, c=c, d=d:
                   -(-(env.atoms[a] * env.atoms[b] * env.atoms[c]) // d),
                   lambda a=a, b=b, c=c, d=d: _cdiv(A(a) * A(b) * A(c), d))
    for (a, d), (b, e) in combinations(product(names, launch_divisors), 2):
        yield (f"ap::triton::cdiv({a}, {d}) * ap::triton::cdiv({b}, {e})",
               lambda env, a=a, b=b, d=d, e=e: -(-env.atoms[a] // d) * -(-env.atoms[b] // e),
               lambda a=a, b=b, d=d, e=e: _cdiv(A(a), d) * _cdiv(A(b), e))
    if cap is not None:
        for name in names:
            yield (f"std::min<std::int64_t>({cap}, {name})",
                   lambda env, n=name: min(cap, env.atoms[n]),
                   lambda n=name: sympy.Min(cap, A(n)))
            for divisor in divisors:
                yield (f"std::min<std::int64_t>({cap}, ap::triton::cdiv({name}, {divisor}))",
                       lambda env, n=name, d=divisor: min(cap, -(-env.atoms[n] // d)),
                       lambda n=name, d=divisor: sympy.Min(cap, _cdiv(A(n), d)))
        for a, b in combinations(names, 2):  # the rows of an input flattened to 2-D
            yield (f"std::min<std::int64_t>({cap}, {a} * {b})",
                   lambda env, a=a, b=b: min(cap, env.atoms[a] * env.atoms[b]),
                   lambda a=a, b=b: sympy.Min(cap, A(a) * A(b)))
    # One size divided by another (GQA's query heads per key head: q.shape[1] // k.shape[1]).
    for a, b in product(names, names):
        if a != b and b not in attributes:
            yield (f"floor_div({a}, {b})", lambda env, a=a, b=b: env.atoms[a] // env.atoms[b],
                   lambda a=a, b=b: _floor_div(A(a), A(b)))
    # Heads of two inputs (a rotary embedding over query and key heads: q.shape[-1] // head_size
    # + k.shape[-1] // head_size).
    for a, b in combinations(names, 2):
        for attribute in attributes:
            if attribute not in (a, b):
                yield (f"floor_div({a}, {attribute}) + floor_div({b}, {attribute})",
                       lambda env, a=a, b=b, d=attribute:
                       env.atoms[a] // env.atoms[d] + env.atoms[b] // env.atoms[d],
                       lambda a=a, b=b, d=attribute:
                       _floor_div(A(a), A(d)) + _floor_div(A(b), A(d)))


def fit(values, fit_envs, check_envs, context, triton_type, constants=()):
    """C++ text computing `values` (one per environment: the fitting ones, then the checking
    ones), or GenerationError naming `context` and why."""
    if triton_type == "fp32":
        return _fit_float(values, fit_envs + check_envs, context)
    if triton_type == "i1":
        if len({bool(v) for v in values}) == 1:
            return "true" if bool(values[0]) else "false"
        for name in fit_envs[0].atoms:
            if all(bool(env.atoms[name]) == bool(v) and isinstance(env.atoms[name], bool)
                   for env, v in zip(fit_envs + check_envs, values)):
                return name
        raise GenerationError(f"{context}: a bool that is neither constant nor a bool attribute; "
                              "make it a bool attribute of the op, or a constexpr")
    return fit_integer(values, fit_envs, check_envs, context, constants)[0]


def fit_integer(values, fit_envs, check_envs, context, constants=()):
    """(C++ text, its expression over atom_symbol()s) computing the integer `values` (one per
    environment: the fitting ones, then the checking ones), or GenerationError naming `context`
    and why."""
    fit_values = [int(v) for v in values[:len(fit_envs)]]
    check_values = [int(v) for v in values[len(fit_envs):]]
    # What to change: a kernel argument can be computed in the kernel; a grid cannot.
    advice = ("Launch a grid of a simple combination (cdiv(n, BLOCK) per axis) and loop in the "
              "kernel over the rest" if context.startswith("grid axis") else
              "Compute it in the kernel from the sizes and attributes it is given")
    if len(set(fit_values + check_values)) == 1:
        return str(fit_values[0]), sympy.Integer(fit_values[0])
    for text, function, expression in candidates(fit_envs, constants,
                                                 max(fit_values + check_values)):
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
            f"by a constant or an int attribute, product of two, tiles over two extents). {advice}",
            UNRECOVERED)
    for env, value in zip(check_envs, check_values):
        if integral_value(function(env)) != value:
            raise GenerationError(
                f"{context} cannot be recovered: '{text}' matches the fitting samples but gives "
                f"{function(env)} where the host code passes {value} "
                f"(at {describe_environment(env)}). {advice}", UNRECOVERED)
    return text, expression()


def integral_value(value):
    if isinstance(value, bool) or not float(value).is_integer():
        raise TypeError("not an integer")
    return int(value)


def _fit_float(values, envs, context):
    floats = [float(v) for v in values]
    if len(set(floats)) == 1:
        return _float_literal(floats[0])
    for name in envs[0].atoms:
        if all(isinstance(env.atoms[name], float) and env.atoms[name] == v
               for env, v in zip(envs, floats)):
            return f"static_cast<float>({name})"
    # The reciprocal of a size (a mean's scale: 1.0 / BT), as float32 computes it.
    for name in envs[0].atoms:
        if all(isinstance(env.atoms[name], int) and not isinstance(env.atoms[name], bool) and
               env.atoms[name] != 0 and _close(1.0 / env.atoms[name], v)
               for env, v in zip(envs, floats)):
            return f"static_cast<float>(1.0 / static_cast<double>({name}))"
    # The reciprocal of a float attribute (`1.0 / temperature`), or of a size's square root
    # (attention's `sm_scale = 1 / sqrt(head_dim)`), as float32 computes it.
    for name in envs[0].atoms:
        if all(isinstance(env.atoms[name], float) and env.atoms[name] != 0 and
               _close(1.0 / env.atoms[name], v) for env, v in zip(envs, floats)):
            return f"static_cast<float>(1.0 / {name})"
    for name in envs[0].atoms:
        if all(isinstance(env.atoms[name], int) and not isinstance(env.atoms[name], bool) and
               env.atoms[name] > 0 and _close(env.atoms[name] ** -0.5, v)
               for env, v in zip(envs, floats)):
            return f"static_cast<float>(1.0 / std::sqrt(static_cast<double>({name})))"
    # A float attribute a bool attribute switches off (`p if training else 0.0`).
    for name in envs[0].atoms:
        for flag in envs[0].atoms:
            if not all(isinstance(env.atoms[name], float) and isinstance(env.atoms[flag], bool)
                       for env in envs):
                continue
            for on, text in ((True, flag), (False, f"!{flag}")):
                if all((env.atoms[name] if env.atoms[flag] == on else 0.0) == v
                       for env, v in zip(envs, floats)):
                    return f"({text} ? static_cast<float>({name}) : 0.0f)"
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
    """C++ text for `floats` as an affine function of one number atom (`1 + eps`, `sm_scale *
    LOG2E`, `float(n - 1)`), as its reciprocal (`1 / (1 - p)`, `1 / (n - 1)`), or as the product of
    two float attributes; "" when none fits at every point."""
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
                body = _affine_text(slope, intercept, name)
                return (f"static_cast<float>(1.0 / ({body}))" if reciprocal else
                        f"static_cast<float>({body})")
    floats_only = [n for n in numbers if all(isinstance(env.atoms[n], float) for env in envs)]
    for first in floats_only:
        for second in floats_only:
            if first <= second and all(_close(env.atoms[first] * env.atoms[second], y)
                                       for env, y in zip(envs, floats)):
                return f"static_cast<float>({first} * {second})"
    return ""


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


def _affine_text(slope, intercept, name):
    term = name if slope == 1 else f"-{name}" if slope == -1 else f"{slope!r} * {name}"
    if intercept == 0:
        return term
    if term.startswith("-"):
        return f"{intercept!r} - {term[1:]}"
    return f"{term} {'-' if intercept < 0 else '+'} {abs(intercept)!r}"


def _close(expected, value):
    """Equal as the float32 the kernel receives."""
    return abs(expected - value) <= 1e-6 * abs(expected)


def _float_literal(value):
    text = repr(float(value))
    if "e" not in text and "." not in text:
        text += ".0"
    return text + "f"


def describe_environment(env):
    return ", ".join(f"{k}={v}" for k, v in env.atoms.items() if ".size(" in k or "[" in k
                     or "(" not in k)
