"""Torch-TensorRT converters that turn PyTorch's sorts into the example plugin
``torchtrt_ex::sort`` (examples/sort) instead of a graph break.

``torch.export`` (with the default decompositions, as Torch-TensorRT lowers) gives
``aten.sort.default(self, dim=-1, descending=False)`` for ``torch.sort``, ``torch.argsort`` and
``torch.msort``, and ``aten.sort.stable(self, *, stable, dim=-1, descending=False)`` when
``stable=True`` is passed. Torch-TensorRT has no converter for ``sort.stable`` (every stable
sort, such as the ``argsort(expert_ids, stable=True)`` of mixture-of-experts routing, breaks the
graph), and refuses ``sort.default`` when the sorted dimension is dynamic or longer than
TensorRT's TopK takes (3840): token merging over 4096 tokens, top-p sampling over a vocabulary.

    import autoplugin.aten.sort
    autoplugin.aten.sort.register_converters("libautoplugin_examples_plugins.so")

Everything but the TensorRT calls is a pure function of the graph node: ``refusal`` (why the
plugin cannot take a node, or None), ``sort_arguments`` and ``plugin_request``, tested without
TensorRT.
"""

from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from .. import torch_tensorrt as _torch_tensorrt
from .conversion import Conversion, bind

OP = "torchtrt_ex::sort"
VALUE_DTYPES = ("float32", "float16", "bfloat16", "int32", "int64")
TARGETS = ("aten.sort.default", "aten.sort.stable")


class SortArguments(NamedTuple):
    """One call, in the plugin's schema (the kernel is always stable; ``stable`` is recorded)."""

    self: Any
    dim: int
    descending: bool
    stable: bool


target_name = _torch_tensorrt.node_target


def sort_arguments(node: Any) -> SortArguments:
    """The plugin's arguments for a sort.default or sort.stable node."""
    target = target_name(node)
    if target == "aten.sort.default":
        names = ["self", "dim", "descending"]
    elif target == "aten.sort.stable":
        names = ["self"]  # stable, dim and descending are keyword-only
    else:
        raise ValueError(f"{target} is not one of {', '.join(TARGETS)}")
    bound = bind(target, names, node.args, dict(node.kwargs), required=["self"])
    return SortArguments(bound["self"], bound.get("dim", -1), bool(bound.get("descending", False)),
                         bool(bound.get("stable", False)))


_value = _torch_tensorrt.node_value
_dtype = _torch_tensorrt.value_dtype


def refusal(node: Any) -> Optional[str]:
    """Why the plugin cannot take this node (Torch-TensorRT then runs it in PyTorch), or None
    when it can. Needs the node's tensor metadata (``meta["val"]``), as torch.export gives."""
    try:
        call = sort_arguments(node)
    except ValueError as error:
        return str(error)
    if not isinstance(call.dim, int):
        return f"dim is an int, not {call.dim!r}"
    value = _value(call.self)
    if value is None or not hasattr(value, "dim"):
        return "no tensor metadata for self"
    if _dtype(value) not in VALUE_DTYPES:
        return f"self is {_dtype(value)}; the plugin takes {', '.join(VALUE_DTYPES)}"
    rank = value.dim()
    if not -max(rank, 1) <= call.dim < max(rank, 1):
        return f"dim {call.dim} is out of range for {rank} dimensions"
    return None


def supports(node: Any, settings: Any = None) -> bool:
    """Capability validator: True when the plugin takes this node."""
    return refusal(node) is None


def _plugin_call(node: Any) -> Tuple[List[Any], Dict[str, Any]]:
    call = sort_arguments(node)
    return [call.self], {"dim": call.dim, "descending": call.descending, "stable": call.stable}


CONVERSION = Conversion(OP, TARGETS, refusal, _plugin_call)

# The plugin for one converter call: plugin_request(op, args, kwargs, target), ``op`` the plugin
# library's description of OP.
plugin_request = CONVERSION.request
# Registers converters for aten.sort.default and aten.sort.stable onto OP of a TensorRT plugin
# library that has it (the examples' plugin library); Torch-TensorRT's TopK-based converter of
# sort.default then never takes a node ours accepts.
register_converters = CONVERSION.register
