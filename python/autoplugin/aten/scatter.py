"""Torch-TensorRT converters that turn PyTorch's scatter reductions into the example plugin
``torchtrt_ex::scatter_reduce`` (examples/scatter_reduce) instead of a graph break.

``torch.export`` gives ``aten.scatter_reduce.two`` for ``Tensor.scatter_reduce(_)`` and
``aten.scatter_add.default`` for ``Tensor.scatter_add(_)`` (the in-place forms once
functionalized). Torch-TensorRT has no converter for either: it decomposes them into a loop
unrolled per element along ``dim``, which refuses ``include_self=False`` and truncates ``mean``.

    import autoplugin.aten.scatter
    autoplugin.aten.scatter.register_converters("libautoplugin_examples_plugins.so")

Everything but the TensorRT calls is a pure function of the graph node: ``refusal`` (why the
plugin cannot take a node, or None), ``scatter_arguments`` and ``plugin_request``, tested
without TensorRT.
"""

from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from .. import torch_tensorrt as _torch_tensorrt
from .conversion import Conversion, bind

OP = "torchtrt_ex::scatter_reduce"
REDUCES = ("sum", "prod", "mean", "amax", "amin")
VALUE_DTYPES = ("float32", "float16", "bfloat16", "int32", "int64")
INDEX_DTYPES = ("int64", "int32")
MAX_RANK = 8
TARGETS = ("aten.scatter_reduce.two", "aten.scatter_add.default")


class ScatterArguments(NamedTuple):
    """One call, in the plugin's schema: scatter_add is reduce "sum" with include_self."""

    self: Any
    dim: int
    index: Any
    src: Any
    reduce: str
    include_self: bool


target_name = _torch_tensorrt.node_target


def scatter_arguments(node: Any) -> ScatterArguments:
    """The plugin's arguments for a scatter_reduce.two or scatter_add.default node."""
    target = target_name(node)
    names = ["self", "dim", "index", "src"]
    if target == "aten.scatter_reduce.two":
        names.append("reduce")  # include_self is keyword-only
    elif target != "aten.scatter_add.default":
        raise ValueError(f"{target} is not one of {', '.join(TARGETS)}")
    bound = bind(target, names, node.args, dict(node.kwargs), required=names)
    return ScatterArguments(bound["self"], bound["dim"], bound["index"], bound["src"],
                            bound.get("reduce", "sum"), bool(bound.get("include_self", True)))


_value = _torch_tensorrt.node_value
_dtype = _torch_tensorrt.value_dtype


def refusal(node: Any) -> Optional[str]:
    """Why the plugin cannot take this node (Torch-TensorRT then runs it in PyTorch), or None
    when it can. Needs the node's tensor metadata (``meta["val"]``), as torch.export gives."""
    try:
        call = scatter_arguments(node)
    except ValueError as error:
        return str(error)
    if call.reduce not in REDUCES:
        return f"reduce is one of {', '.join(REDUCES)}, not {call.reduce!r}"
    if not isinstance(call.dim, int):
        return f"dim is an int, not {call.dim!r}"
    values = {name: _value(getattr(call, name)) for name in ("self", "index", "src")}
    for name, value in values.items():
        if value is None or not hasattr(value, "dim"):
            return f"no tensor metadata for {name}"
    self_value, index_value, src_value = values["self"], values["index"], values["src"]
    if _dtype(self_value) not in VALUE_DTYPES:
        return f"self is {_dtype(self_value)}; the plugin takes {', '.join(VALUE_DTYPES)}"
    if _dtype(src_value) != _dtype(self_value):
        return f"src is {_dtype(src_value)}, self {_dtype(self_value)}: the same dtype is expected"
    if _dtype(index_value) not in INDEX_DTYPES:
        return f"index is {_dtype(index_value)}; the plugin takes {', '.join(INDEX_DTYPES)}"
    rank = self_value.dim()
    if index_value.dim() != rank or src_value.dim() != rank:
        return "self, index and src have different numbers of dimensions"
    if rank > MAX_RANK:
        return f"self has {rank} dimensions; the plugin takes at most {MAX_RANK}"
    if not -max(rank, 1) <= call.dim < max(rank, 1):
        return f"dim {call.dim} is out of range for {rank} dimensions"
    # Extents known at export time must follow PyTorch's rule (symbolic ones are checked by the
    # plugin when the engine's shapes are known).
    axis = call.dim % max(rank, 1)
    for d in range(rank):
        index_extent, src_extent, self_extent = (
            index_value.shape[d], src_value.shape[d], self_value.shape[d])
        known = all(isinstance(e, int) for e in (index_extent, src_extent))
        if known and index_extent > src_extent:
            return f"index.size({d}) = {index_extent} > src.size({d}) = {src_extent}"
        if (d != axis and all(isinstance(e, int) for e in (index_extent, self_extent))
                and index_extent > self_extent):
            return f"index.size({d}) = {index_extent} > self.size({d}) = {self_extent}"
    return None


def supports(node: Any, settings: Any = None) -> bool:
    """Capability validator: True when the plugin takes this node."""
    return refusal(node) is None


def _plugin_call(node: Any) -> Tuple[List[Any], Dict[str, Any]]:
    call = scatter_arguments(node)
    return ([call.self, call.dim, call.index, call.src],
            {"reduce": call.reduce, "include_self": call.include_self})


CONVERSION = Conversion(OP, TARGETS, refusal, _plugin_call)

# The plugin for one converter call: plugin_request(op, args, kwargs, target), ``op`` the plugin
# library's description of OP.
plugin_request = CONVERSION.request
# Registers converters for aten.scatter_reduce.two and aten.scatter_add.default onto OP of a
# TensorRT plugin library that has it (the examples' plugin library); Torch-TensorRT's own
# decompositions of the two, which would unroll them before any converter is asked, are removed.
register_converters = CONVERSION.register
