"""Evaluating an op's output-shape program (``Library.shape_program``): a list of nodes (constants,
input extents, shape-input values, data-dependent extents, and TensorRT's nine dimension
operations over earlier nodes). The same program TensorRT's builder receives, evaluated here over
Python ints or, with other operations, over PyTorch's symbolic integers."""

from typing import Any, Callable, Dict, List, Sequence

Operations = Dict[str, Callable[[Any, Any], Any]]

# TensorRT's semantics over Python ints: EQUAL/LESS give 0/1, FLOOR_DIV rounds toward negative
# infinity, CEIL_DIV toward positive infinity.
INT_OPERATIONS: Operations = {
    "SUM": lambda a, b: a + b,
    "PROD": lambda a, b: a * b,
    "MAX": max,
    "MIN": min,
    "SUB": lambda a, b: a - b,
    "EQUAL": lambda a, b: int(a == b),
    "LESS": lambda a, b: int(a < b),
    "FLOOR_DIV": lambda a, b: a // b,
    "CEIL_DIV": lambda a, b: -((-a) // b),
}


def evaluate(program: Dict[str, Any], input_sizes: Sequence[Sequence[Any]],
             shape_values: Sequence[Sequence[Any]], size_tensor: Callable[[int, Any, Any], Any],
             operations: Operations = INT_OPERATIONS) -> List[Any]:
    """Every node's value. ``size_tensor(index, opt, upper)`` gives a data-dependent extent."""
    values: List[Any] = []
    for node in program["nodes"]:
        if "const" in node:
            values.append(node["const"])
        elif "input" in node:
            k, axis = node["input"]
            values.append(input_sizes[k][axis])
        elif "shape_input" in node:
            k, index = node["shape_input"]
            values.append(shape_values[k][index])
        elif "size_tensor" in node:
            values.append(size_tensor(node["size_tensor"], values[node["opt"]],
                                      values[node["upper"]]))
        else:
            values.append(operations[node["op"]](values[node["a"]], values[node["b"]]))
    return values


def output_shapes(program: Dict[str, Any], values: Sequence[Any]) -> List[List[Any]]:
    return [[values[node] for node in output["shape"]] for output in program["outputs"]]


def failed_requirements(program: Dict[str, Any], values: Sequence[Any]) -> List[str]:
    """Messages of the requirements that evaluate to 0 (for int values)."""
    return [r["message"] for r in program["requirements"] if values[r["condition"]] == 0]
