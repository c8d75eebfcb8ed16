"""Requirements evaluated at a point with Python integers and fractions, giving sympy's answer
without substituting into the expression: the domain learner and the point sampler ask whether
a relation holds tens of thousands of times per op (FlagGems' attention: 64,000 times in 150 s,
almost all of them spent in `xreplace`).

A relation is compiled once into nested closures over its symbols. Where it holds a node this
evaluator does not reproduce exactly (floats; functions other than floor, ceiling, Min, Max,
Mod, Abs and PyTorch's FloorDiv, PythonMod, Mod, Max, Min), where a point gives a symbol
something other than an integer, or where a value divides by 0 (sympy's zoo and nan have rules
of their own: zoo equals zoo, an inequality on one raises, a remainder by 0 raises), the caller
substitutes as before."""
import math
import operator
from fractions import Fraction

import sympy

_UNSUPPORTED = object()
_compiled = {}


class _LeftToSympy(Exception):
    """A value this evaluator does not reproduce at this point (PyTorch's Mod of a negative)."""


def evaluate(relation, values):
    """The relation's truth at `values` ({symbol: value}) as sympy gives it, or None where this
    evaluator cannot say (the caller substitutes instead)."""
    compiled = _compiled.get(relation)
    if compiled is None:
        compiled = _compiled[relation] = (_compile_boolean(relation),
                                          tuple(relation.free_symbols))
    function, symbols = compiled
    if function is _UNSUPPORTED:
        return None
    for symbol in symbols:
        if type(values.get(symbol)) is not int:
            return None
    try:
        return function(values)
    except (ZeroDivisionError, _LeftToSympy):
        return None


_RELATIONS = {sympy.Le: operator.le, sympy.Lt: operator.lt, sympy.Ge: operator.ge,
              sympy.Gt: operator.gt}


def _compile_boolean(node):
    if node is sympy.true or node is sympy.false:
        value = bool(node)
        return lambda values: value
    if isinstance(node, (sympy.And, sympy.Or)):
        parts = [_compile_boolean(a) for a in node.args]
        if any(p is _UNSUPPORTED for p in parts):
            return _UNSUPPORTED
        combine = all if isinstance(node, sympy.And) else any
        # Every part evaluated, as sympy evaluates every argument before combining them.
        return lambda values: combine([p(values) for p in parts])
    if isinstance(node, sympy.Not):
        part = _compile_boolean(node.args[0])
        return _UNSUPPORTED if part is _UNSUPPORTED else (lambda values: not part(values))
    if isinstance(node, sympy.Eq):
        lhs, rhs = _compile_number(node.lhs), _compile_number(node.rhs)
        if _UNSUPPORTED in (lhs, rhs):
            return _UNSUPPORTED
        return lambda values: lhs(values) == rhs(values)
    compare = _RELATIONS.get(type(node))
    if compare is not None:
        lhs, rhs = _compile_number(node.lhs), _compile_number(node.rhs)
        if _UNSUPPORTED in (lhs, rhs):
            return _UNSUPPORTED
        return lambda values: compare(lhs(values), rhs(values))
    return _UNSUPPORTED


def _compile_number(node):
    if isinstance(node, sympy.Symbol):
        return lambda values: values[node]
    if isinstance(node, sympy.Integer):
        value = int(node)
        return lambda values: value
    if isinstance(node, sympy.Rational):
        value = Fraction(int(node.p), int(node.q))
        return lambda values: value
    if isinstance(node, sympy.Pow):
        base, exponent = node.args
        if not isinstance(exponent, sympy.Integer):
            return _UNSUPPORTED
        base_function, power = _compile_number(base), int(exponent)
        if base_function is _UNSUPPORTED:
            return _UNSUPPORTED
        if power >= 0:
            return lambda values: base_function(values) ** power
        return lambda values: Fraction(1) / Fraction(base_function(values)) ** -power
    parts = [_compile_number(a) for a in node.args]
    if not parts or any(p is _UNSUPPORTED for p in parts):
        return _UNSUPPORTED
    if isinstance(node, sympy.Add):
        return lambda values: _integral(sum(p(values) for p in parts))
    if isinstance(node, sympy.Mul):
        return lambda values: _integral(math.prod(p(values) for p in parts))
    if isinstance(node, sympy.Mod):
        dividend, divisor = parts
        return lambda values: _integral(Fraction(dividend(values)) % Fraction(divisor(values)))
    if isinstance(node, sympy.floor):
        return lambda values: math.floor(parts[0](values))
    if isinstance(node, sympy.ceiling):
        return lambda values: math.ceil(parts[0](values))
    if isinstance(node, sympy.Min):
        return lambda values: min(p(values) for p in parts)
    if isinstance(node, sympy.Max):
        return lambda values: max(p(values) for p in parts)
    if isinstance(node, sympy.Abs):
        return lambda values: abs(parts[0](values))
    return _compile_torch_function(type(node).__name__, parts)


def _compile_torch_function(name, parts):
    """PyTorch's own sympy functions, which the fake's guards hold, recognised by name as
    sympy_to_dim recognises them (this module imports no torch)."""
    if name == "FloorDiv" and len(parts) == 2:
        dividend, divisor = parts
        return lambda values: math.floor(Fraction(dividend(values)) / Fraction(divisor(values)))
    if name == "PythonMod" and len(parts) == 2:
        dividend, divisor = parts
        return lambda values: _integral(Fraction(dividend(values)) % Fraction(divisor(values)))
    if name == "Mod" and len(parts) == 2:  # PyTorch's Mod: non-negative operands only
        dividend, divisor = parts

        def remainder(values):
            a, b = dividend(values), divisor(values)
            if a < 0 or b <= 0:
                raise _LeftToSympy(name)
            return _integral(Fraction(a) % Fraction(b))
        return remainder
    if name in ("Max", "Min"):
        pick = max if name == "Max" else min
        return lambda values: pick(p(values) for p in parts)
    return _UNSUPPORTED


def _integral(value):
    """A Fraction that is a whole number as an int (ints compare and hash alike either way;
    this keeps the arithmetic on ints where it can be)."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    return value
