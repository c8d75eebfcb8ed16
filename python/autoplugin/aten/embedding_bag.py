"""aten's ``embedding_bag`` as the examples' ``torchtrt_ex::embedding_bag`` plugin: Torch-TensorRT
converters, registered above Torch-TensorRT's own (which unrolls it into a layer per bag, a loop
over bags, or a graph break).

    import autoplugin.aten.embedding_bag
    autoplugin.aten.embedding_bag.register_converters("libautoplugin_examples_plugins.so")
    trt_model = torch_tensorrt.compile(model, ir="dynamo", inputs=[...])

``torch.export`` writes ``F.embedding_bag`` and ``nn.EmbeddingBag`` as
``aten.embedding_bag.padding_idx``; decompositions (Torch-TensorRT's lowering,
``run_decompositions``) make it ``aten._embedding_bag`` or ``aten._embedding_bag_forward_only``.
Each of these overloads gets the converter. A node the plugin cannot take (dtypes it has no
launcher for, indices and offsets of different dtypes, a use of the outputs other than the
first: ``offset2bag``, ``bag_size``, ``max_indices``) is left to Torch-TensorRT.

Everything but the TensorRT calls is a plain function of the node, tested without TensorRT:
``arguments`` (aten's arguments as the plugin op's), ``refusal`` (the validator's answer, with
its reason) and ``plugin_request`` (the plugin's name, fields and inputs). ``replace_nodes``
rewrites a graph with the same functions, so that the replacement runs in PyTorch too (our op's
PyTorch kernel: ``autoplugin.torch``).
"""

import operator
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..library import Library
from ..torch_tensorrt import node_target
from .conversion import Conversion, bind

OP = "torchtrt_ex::embedding_bag"

# The aten overloads (as str(target) names them) and their arguments, in schema order.
ARGUMENTS = ("weight", "indices", "offsets", "scale_grad_by_freq", "mode", "sparse",
             "per_sample_weights", "include_last_offset", "padding_idx")
TARGETS = ("aten.embedding_bag.default", "aten.embedding_bag.padding_idx",
           "aten._embedding_bag.default", "aten._embedding_bag_forward_only.default")
_MODES = {0: "sum", 1: "mean", 2: "max"}


def arguments(overload: str, args: Sequence[Any], kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """The plugin op's arguments for one aten embedding_bag call: ``overload`` is str(target),
    e.g. "aten.embedding_bag.padding_idx". scale_grad_by_freq and sparse only change gradients,
    so they are dropped; mode 0/1/2 becomes "sum"/"mean"/"max"; padding_idx keeps PyTorch's
    meaning: the ``padding_idx`` overload's value as given (None, or negative counting from the
    end), ``_embedding_bag``'s already wrapped one with negative for none."""
    if overload not in TARGETS:
        raise ValueError(f"{overload} is not an embedding_bag overload (they are: "
                         f"{', '.join(TARGETS)})")
    bound = bind(overload, ARGUMENTS, args, kwargs, required=ARGUMENTS[:2])
    mode = bound.get("mode", 0)
    if mode not in _MODES:
        raise ValueError(f"{overload}: mode is 0 (sum), 1 (mean) or 2 (max), not {mode!r}")
    padding_idx = bound.get("padding_idx")
    if overload == "aten.embedding_bag.default":
        padding_idx = None
    elif overload != "aten.embedding_bag.padding_idx" and padding_idx is not None \
            and padding_idx < 0:
        padding_idx = None  # _embedding_bag compares indices with it: a negative one is none
    return {"weight": bound["weight"], "indices": bound["indices"],
            "offsets": bound.get("offsets"), "mode": _MODES[mode],
            "per_sample_weights": bound.get("per_sample_weights"),
            "include_last_offset": bool(bound.get("include_last_offset", False)),
            "padding_idx": padding_idx}


def _unused_outputs_refusal(node: Any) -> Optional[str]:
    """The plugin computes embedding_bag's first output only: any other use is refused."""
    for user in getattr(node, "users", {}):
        if user.target is not operator.getitem:
            return f"{node_target(node)}: its result is used whole by {user.name}, not through [0]"
        if user.args[1] != 0 and len(user.users) > 0:
            kind = ("offset2bag", "bag_size", "max_indices")[user.args[1] - 1]
            return (f"{node_target(node)}: output {user.args[1]} ({kind}) is used; the plugin "
                    f"computes output 0 only")
    return None


def _own_refusal(node: Any) -> Optional[str]:
    try:
        bound = arguments(node_target(node), node.args, node.kwargs)
    except ValueError as error:
        return str(error)
    refusal = _unused_outputs_refusal(node)
    if refusal:
        return refusal
    index_dtypes = {str(getattr(t, "meta", {}).get("val").dtype)
                    for t in (bound["indices"], bound["offsets"])
                    if t is not None and getattr(t, "meta", {}).get("val") is not None}
    if len(index_dtypes) > 1:
        return (f"{node_target(node)}: indices and offsets of different dtypes "
                f"({', '.join(sorted(index_dtypes))}); the plugin takes one index dtype")
    return None


def _plugin_call(node: Any) -> Tuple[List[Any], Dict[str, Any]]:
    return [], arguments(node_target(node), node.args, node.kwargs)


def _converter_result(outputs: List[Any]) -> Any:
    (output,) = outputs
    return output, None, None, None  # offset2bag, bag_size, max_indices: unused (validator)


CONVERSION = Conversion(OP, TARGETS, _own_refusal, _plugin_call, _converter_result)


def refusal(library: Library, node: Any) -> Optional[str]:
    """Why the plugin cannot replace this aten embedding_bag node (an FX node whose inputs carry
    ``meta["val"]``), or None when it can. The capability validator is ``refusal is None``."""
    return CONVERSION.refusal(library, node)


# The plugin (name, version, namespace, fields) and its inputs for one aten call:
# plugin_request(op, args, kwargs, overload), ``op`` the library's description of OP.
plugin_request = CONVERSION.request
# Registers a converter for each aten embedding_bag overload, above Torch-TensorRT's own, whose
# validator accepts the nodes the plugin can take; loads the plugin library into TensorRT's
# registry (once).
register_converters = CONVERSION.register


def replace_nodes(graph_module: Any, library: Library) -> List[str]:
    """Replaces, in an FX graph module (``ExportedProgram.graph_module``), every aten
    embedding_bag node the plugin can take by a call of the plugin's PyTorch op
    (``torch.ops.torchtrt_ex.embedding_bag``, loaded with ``autoplugin.torch.load_library``);
    returns the names of the nodes replaced. Nodes it refuses stay."""
    import torch

    namespace, name = OP.split("::")
    target = getattr(getattr(torch.ops, namespace), name).default
    graph = graph_module.graph
    replaced = []
    for node in list(graph.nodes):
        if node.op != "call_function" or node_target(node) not in TARGETS:
            continue
        if refusal(library, node) is not None:
            continue
        bound = arguments(node_target(node), node.args, node.kwargs)
        with graph.inserting_before(node):
            call = graph.call_function(target, (), bound)
        call.meta["val"] = target(**{
            k: (v.meta["val"] if hasattr(v, "meta") else v) for k, v in bound.items()})
        for user in list(node.users):
            if user.args[1] == 0:
                user.replace_all_uses_with(call)
            graph.erase_node(user)
        graph.erase_node(node)
        replaced.append(node.name)
    graph.lint()
    graph_module.recompile()
    return replaced
