"""The launcher's values as typed expressions: what recovery finds (a kernel argument, a grid
axis, a view's start, a scratch buffer's element count, a family's constexpr) is built from
these nodes, asked what it reads and which helpers it calls, and printed to C++ once, when the
project is written. An integer expression also gives its sympy form over the atoms (the symbols
named as the launcher reads them), what the floors above compute with.

An atom is what a launcher reads from its parameters: an extent, element count or stride of a
tensor (`x.size(1)`, `x.numel()`, `x.stride(0)`), an attribute (`slope`), an element of a list
attribute (`padding[2]`) or an optional attribute's value (`*scale`).
"""
from dataclasses import dataclass

import sympy


# C++ operator precedence (lower binds tighter), for the parentheses a printed operand needs.
_PRIMARY, _UNARY, _MULTIPLICATIVE, _ADDITIVE, _RELATIONAL, _EQUALITY, _CONDITIONAL = \
    0, 3, 5, 6, 9, 10, 16
_BINARY = {"*": _MULTIPLICATIVE, "/": _MULTIPLICATIVE, "%": _MULTIPLICATIVE,
           "+": _ADDITIVE, "-": _ADDITIVE, "<=": _RELATIONAL, ">": _RELATIONAL,
           "==": _EQUALITY, "!=": _EQUALITY}

# The helpers a launcher calls, by the C++ function an expression names.
CDIV = "ap::triton::cdiv"
FLOOR_DIV = "floor_div"  # the generated file's Python `//` (rounds toward negative infinity)
NEXT_POWER_OF_2 = "ap::triton::next_power_of_2"
MIN, MAX = "std::min", "std::max"
MIN_INT64, MAX_INT64 = "std::min<std::int64_t>", "std::max<std::int64_t>"
SQRT = "std::sqrt"
TO_FLOAT, TO_DOUBLE = "static_cast<float>", "static_cast<double>"


class Expression:
    """A node; subclasses print themselves (cpp), list their operands and give sympy."""
    precedence = _PRIMARY

    def operands(self):
        return ()

    def nodes(self):
        yield self
        for operand in self.operands():
            yield from operand.nodes()

    def calls(self, function):
        """Whether the expression calls the C++ function `function` (FLOOR_DIV, SQRT, ...)."""
        return any(isinstance(node, Call) and node.function == function for node in self.nodes())

    def parameters(self):
        """The launcher's parameters the expression reads (by name)."""
        return {node.parameter for node in self.nodes() if isinstance(node, Atom)}

    def cpp(self):
        raise NotImplementedError

    def sympy(self):
        raise TypeError(f"{self.cpp()} has no sympy form")

    def operand_cpp(self, operand, right=False):
        """`operand` printed inside this node: parenthesized where C++ would bind it otherwise."""
        text = operand.cpp()
        looser = operand.precedence > self.precedence or (
            right and operand.precedence == self.precedence and operand.precedence != _PRIMARY)
        return f"({text})" if looser else text

    def __str__(self):
        return self.cpp()


@dataclass(frozen=True)
class Atom(Expression):
    """What a launcher reads from its parameters; `text` is its C++ and its name everywhere."""
    text: str
    parameter: str  # the launcher parameter it reads
    kind: str  # "size", "numel", "stride" (of a tensor) or "attribute"
    axis: int = None  # a size's or stride's axis; a list attribute's element

    def cpp(self):
        return self.text

    def sympy(self):
        return atom_symbol(self.text)


def tensor_atom(tensor, kind, axis=None):
    text = f"{tensor}.numel()" if kind == "numel" else f"{tensor}.{kind}({axis})"
    return Atom(text, tensor, kind, axis)


def attribute_atom(name, index=None, optional=False):
    text = f"*{name}" if optional else name if index is None else f"{name}[{index}]"
    return Atom(text, name, "attribute", index)


def atom_symbol(name):
    """An atom as a sympy symbol named by its C++ (`x.size(1)`, `padding[2]`)."""
    return sympy.Symbol(name, integer=True)


@dataclass(frozen=True)
class Integer(Expression):
    value: int
    typed: bool = False  # printed as `std::int64_t{value}` (one branch of a conditional)

    def cpp(self):
        return f"std::int64_t{{{self.value}}}" if self.typed else str(self.value)

    def sympy(self):
        return sympy.Integer(self.value)


@dataclass(frozen=True)
class Literal(Expression):
    """A float or bool constant, or a named one (`std::numeric_limits<...>::max()`), as C++."""
    text: str

    def cpp(self):
        return self.text


def float_literal(value, suffix="f"):
    """A float constant as C++: `0.5f` (`suffix` "" for a double)."""
    text = repr(float(value))
    if "e" not in text and "." not in text:
        text += ".0"
    return Literal(text + suffix)


@dataclass(frozen=True)
class Binary(Expression):
    operator: str
    left: Expression
    right: Expression

    @property
    def precedence(self):
        return _BINARY[self.operator]

    def operands(self):
        return (self.left, self.right)

    def cpp(self):
        return (f"{self.operand_cpp(self.left)} {self.operator} "
                f"{self.operand_cpp(self.right, right=True)}")

    def sympy(self):
        left, right = self.left.sympy(), self.right.sympy()
        if self.operator == "+":
            return left + right
        if self.operator == "-":
            return left - right
        if self.operator == "*":
            return left * right
        raise TypeError(f"{self.cpp()} has no sympy form")


@dataclass(frozen=True)
class Negated(Expression):
    """`-x` or `!x`."""
    operator: str
    operand: Expression
    precedence = _UNARY

    def operands(self):
        return (self.operand,)

    def cpp(self):
        return f"{self.operator}{self.operand_cpp(self.operand)}"


@dataclass(frozen=True)
class Call(Expression):
    function: str
    arguments: tuple

    def operands(self):
        return self.arguments

    def cpp(self):
        return f"{self.function}({', '.join(a.cpp() for a in self.arguments)})"

    def sympy(self):
        values = [sympy.sympify(a.sympy()) for a in self.arguments]
        if self.function == CDIV:
            return sympy.ceiling(values[0] / values[1])
        if self.function == FLOOR_DIV:
            return sympy.floor(values[0] / values[1])
        if self.function in (MIN, MIN_INT64):
            return sympy.Min(*values)
        if self.function in (MAX, MAX_INT64):
            return sympy.Max(*values)
        raise TypeError(f"{self.cpp()} has no sympy form")


def call(function, *arguments):
    return Call(function, tuple(arguments))


@dataclass(frozen=True)
class Conditional(Expression):
    """`(condition ? then : otherwise)`; a conditional as `otherwise` continues the chain inside
    the same parentheses."""
    condition: Expression
    then: Expression
    otherwise: Expression

    def operands(self):
        return (self.condition, self.then, self.otherwise)

    def chain(self):
        otherwise = (self.otherwise.chain() if isinstance(self.otherwise, Conditional)
                     else self.otherwise.cpp())
        return f"{self.condition.cpp()} ? {self.then.cpp()} : {otherwise}"

    def cpp(self):
        return f"({self.chain()})"


@dataclass(frozen=True)
class Table(Expression):
    """A value per value of `key` (a family's variant): an immediately called lambda over a
    switch, `default` for any other key."""
    key: Expression
    cases: tuple  # (key value, Expression)
    default: Expression

    def operands(self):
        return (self.key, *(value for _, value in self.cases), self.default)

    def cpp(self):
        cases = " ".join(f"case {key}: return {value.cpp()};" for key, value in self.cases)
        return (f"[&]() -> std::int64_t {{ switch ({self.key.cpp()}) {{ {cases} default: return "
                f"{self.default.cpp()}; }} }}()")


INT64_MAX = Literal("std::numeric_limits<std::int64_t>::max()")
