"""Translate sympy size expressions (as PyTorch's symbolic shapes produce them) into ap::Dim C++.

Needs sympy only, never torch: PyTorch's own sympy functions (``FloorDiv``, ``CeilDiv``,
``PythonMod``, ``Mod``, ``Max``, ``Min``, ``CeilToInt``, ``FloorToInt``, ``IntTrueDiv``...) are
recognised by their class name, so expressions from any PyTorch version, and the stand-ins the
tests build, translate the same way.

Semantics kept exactly: ``//`` rounds toward negative infinity (``ap::floor_div``), ``%`` takes the
divisor's sign (``ap::Dim``'s ``%`` is Python's), ceiling division is ``ap::ceil_div`` whether it
arrives as ``CeilDiv``, ``ceiling(a/b)`` or ``-((-a)//b)``; ``Max``/``Min`` keep every argument;
``Piecewise`` becomes nested ``ap::select``; relations and their ``And``/``Or``/``Not`` become
``ap::Bool`` expressions for ``ap::require``.
"""
import sympy

FLOOR_DIV_NAMES = {"FloorDiv"}
CEIL_DIV_NAMES = {"CeilDiv"}
MOD_NAMES = {"Mod", "PythonMod"}
MAX_NAMES = {"Max"}
MIN_NAMES = {"Min"}
# Integer-valued wrappers PyTorch puts around an exact integer expression.
IDENTITY_NAMES = {"Identity", "TruncToInt"}


class TranslationError(ValueError):
    """An expression that has no exact ap::Dim form; the message names the sub-expression."""


def _name(expr):
    return type(expr).__name__


def _as_quotient(expr):
    """(numerator, denominator) when `expr` is a/b with an integer-valued b, else None."""
    numerator, denominator = sympy.fraction(sympy.together(expr))
    if denominator == 1:
        return None
    return numerator, denominator


class DimTranslator:
    """Translates expressions over known symbols into C++ text.

    `names` maps each sympy Symbol to the C++ expression that denotes it (an ap::Dim, e.g.
    ``x[2]`` or a local ``padding_1``). An unknown symbol is an error naming it.
    """

    def __init__(self, names):
        self.names = dict(names)

    def _sorted(self, args):
        """Arguments in a readable order: names before compound terms, tensor extents (`x[1]`)
        before attributes, then by C++ text; constants last."""
        renamed = {symbol: sympy.Symbol(text) for symbol, text in self.names.items()}

        def key(arg):
            extent = any("[" in self.names.get(s, "") for s in arg.free_symbols)
            return (arg.is_Number, not arg.is_Symbol, not extent, str(arg.xreplace(renamed)))
        return sorted(args, key=key)

    # -- integers ------------------------------------------------------------------------------
    def dim(self, expr):
        return self._dim(sympy.sympify(expr), top=True)

    def _dim(self, expr, top):
        if expr.is_Integer:
            value = int(expr)
            return str(value) if value >= 0 or top else f"({value})"
        if expr.is_Rational or expr.is_Float:
            raise TranslationError(f"{expr}: a non-integer constant has no ap::Dim form")
        if expr.is_Symbol:
            if expr not in self.names:
                raise TranslationError(f"{expr}: a symbol that is neither an input extent nor an "
                                       "integer attribute")
            return self.names[expr]
        name = _name(expr)
        if name in FLOOR_DIV_NAMES:
            return f"ap::floor_div({self.dim(expr.args[0])}, {self.dim(expr.args[1])})"
        if name in CEIL_DIV_NAMES:
            return f"ap::ceil_div({self.dim(expr.args[0])}, {self.dim(expr.args[1])})"
        if name in MOD_NAMES:
            return self._wrap(f"{self._operand(expr.args[0])} % {self._operand(expr.args[1])}", top)
        if name in MAX_NAMES or name in MIN_NAMES:
            function = "ap::max" if name in MAX_NAMES else "ap::min"
            args = [self.dim(a) for a in self._sorted(expr.args)]
            text = args[-1]
            for arg in reversed(args[:-1]):
                text = f"{function}({arg}, {text})"
            return text
        if name in IDENTITY_NAMES:
            return self._dim(expr.args[0], top)
        if isinstance(expr, sympy.floor) or name == "FloorToInt":
            quotient = _as_quotient(expr.args[0])
            if quotient is None:
                return self._dim(expr.args[0], top)
            return f"ap::floor_div({self.dim(quotient[0])}, {self.dim(quotient[1])})"
        if isinstance(expr, sympy.ceiling) or name == "CeilToInt":
            quotient = _as_quotient(expr.args[0])
            if quotient is None:
                return self._dim(expr.args[0], top)
            return f"ap::ceil_div({self.dim(quotient[0])}, {self.dim(quotient[1])})"
        if isinstance(expr, sympy.Piecewise):
            return self._piecewise(expr.args)
        if isinstance(expr, sympy.Add):
            return self._wrap(self._sum(expr), top)
        if isinstance(expr, sympy.Mul):
            return self._wrap(self._product(expr), top)
        if isinstance(expr, sympy.Pow):
            base, exponent = expr.args
            if exponent.is_Integer and int(exponent) >= 1:
                return self._wrap(" * ".join([self._operand(base)] * int(exponent)), top)
            raise TranslationError(f"{expr}: only positive integer powers have an ap::Dim form")
        raise TranslationError(f"{expr}: {name} has no ap::Dim form")

    def _wrap(self, text, top):
        return text if top else f"({text})"

    def _operand(self, expr):
        """An operand of a binary operator: sums and products are parenthesised."""
        return self._dim(expr, top=False)

    def _sum(self, expr):
        positive, negative = [], []
        for term in self._sorted(expr.args):
            coefficient, rest = term.as_coeff_Mul()
            if coefficient.is_Number and coefficient < 0:
                negative.append(-term)
            else:
                positive.append(term)
        pieces = [self._term(t) for t in positive]
        text = " + ".join(pieces) if pieces else ""
        for term in negative:
            ceiling = _negated_floor_div(-term)
            if ceiling is not None:
                piece = ceiling.format_with(self)
                text = f"{text} + {piece}" if text else piece
            else:
                text = f"{text} - {self._term(term)}" if text else f"-{self._operand(term)}"
        return text

    def _term(self, term):
        """A summand: products print without parentheses."""
        if isinstance(term, sympy.Mul):
            return self._product(term)
        return self._dim(term, top=False) if isinstance(term, sympy.Add) else self._dim(term, True)

    def _product(self, expr):
        ceiling = _negated_floor_div(expr)
        if ceiling is not None:
            return ceiling.format_with(self)
        coefficient, rest = expr.as_coeff_Mul()
        if not coefficient.is_Integer:
            raise TranslationError(f"{expr}: a non-integer coefficient ({coefficient}) has no "
                                   "ap::Dim form (write the division with //)")
        factors = [self._operand(f) for f in self._sorted(sympy.Mul.make_args(rest))]
        if coefficient == -1:
            product = " * ".join(factors)
            return f"-{product}" if len(factors) == 1 else f"-({product})"
        if coefficient != 1:
            factors.insert(0, str(int(coefficient)) if coefficient > 0 else f"({int(coefficient)})")
        return " * ".join(factors)

    def _piecewise(self, pieces):
        value, condition = pieces[0]
        if condition == sympy.true or len(pieces) == 1:
            if condition != sympy.true:
                raise TranslationError(f"Piecewise without a default: {pieces}")
            return self.dim(value)
        return (f"ap::select({self.condition(condition)}, {self.dim(value)}, "
                f"{self._piecewise(pieces[1:])})")

    # -- conditions ----------------------------------------------------------------------------
    def condition(self, expr):
        return self._condition(sympy.sympify(expr), top=True)

    def _condition(self, expr, top):
        if expr == sympy.true:
            return "ap::Bool(true)"
        if expr == sympy.false:
            return "ap::Bool(false)"
        relations = {sympy.Eq: "==", sympy.Ne: "!=", sympy.Lt: "<", sympy.Le: "<=",
                     sympy.Gt: ">", sympy.Ge: ">="}
        for kind, operator in relations.items():
            if isinstance(expr, kind):
                text = f"{self.dim(expr.lhs)} {operator} {self.dim(expr.rhs)}"
                return text if top else f"({text})"
        if isinstance(expr, (sympy.And, sympy.Or)):
            operator = " && " if isinstance(expr, sympy.And) else " || "
            text = operator.join(self._condition(a, False) for a in self._sorted(expr.args))
            return text if top else f"({text})"
        if isinstance(expr, sympy.Not):
            return f"!{self._condition(expr.args[0], False)}"
        raise TranslationError(f"{expr}: {_name(expr)} is not a condition ap::Bool can express")


class _CeilDivText:
    """-(FloorDiv(-a, b)), PyTorch's and Python's idiom for ceiling division."""

    def __init__(self, numerator, denominator):
        self.numerator, self.denominator = numerator, denominator

    def format_with(self, translator):
        return f"ap::ceil_div({translator.dim(self.numerator)}, {translator.dim(self.denominator)})"


def _negated_floor_div(expr):
    """For -FloorDiv(-a, b), or -FloorDiv(a, -b) (Python's `-(a // -b)`), the pair (a, b) as
    _CeilDivText, else None."""
    if not isinstance(expr, sympy.Mul):
        return None
    coefficient, rest = expr.as_coeff_Mul()
    if coefficient != -1 or _name(rest) not in FLOOR_DIV_NAMES:
        return None
    numerator, denominator = rest.args
    if denominator.could_extract_minus_sign():
        return _CeilDivText(numerator, -denominator)
    return _CeilDivText(-numerator, denominator)


def ap_dim(expr, names):
    """C++ text of an ap::Dim expression for `expr`; `names` maps symbols to C++ expressions."""
    return DimTranslator(names).dim(expr)


def ap_condition(expr, names):
    """C++ text of an ap::Bool expression for the relation `expr`."""
    return DimTranslator(names).condition(expr)
