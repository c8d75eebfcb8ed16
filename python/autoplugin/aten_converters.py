"""aten ops as autoplugin plugins: Torch-TensorRT converters, registered above Torch-TensorRT's
own, that turn PyTorch's ``embedding_bag`` into the examples' ``torchtrt_ex::embedding_bag``
plugin (Torch-TensorRT unrolls it into a layer per bag, a loop over bags, or a graph break).

    import autoplugin.aten_converters
    autoplugin.aten_converters.register_embedding_bag("libautoplugin_examples_plugins.so")
    trt_model = torch_tensorrt.compile(model, ir="dynamo", inputs=[...])

``torch.export`` writes ``F.embedding_bag`` and ``nn.EmbeddingBag`` as
``aten.embedding_bag.padding_idx``; decompositions (Torch-TensorRT's lowering,
``run_decompositions``) make it ``aten._embedding_bag`` or ``aten._embedding_bag_forward_only``.
Each of these overloads gets the converter. A node the plugin cannot take (dtypes it has no
launcher for, indices and offsets of different dtypes, a use of the outputs other than the
first: ``offset2bag``, ``bag_size``, ``max_indices``) is left to Torch-TensorRT.

Everything but the TensorRT calls is a plain function of the node, tested without TensorRT:
``embedding_bag_arguments`` (aten's arguments as the plugin op's), ``embedding_bag_refusal``
(the validator's answer, with its reason) and ``embedding_bag_request`` (the plugin's name,
fields and inputs). ``replace_embedding_bags`` rewrites a graph with the same functions, so
that the replacement runs in PyTorch too (our op's PyTorch kernel: ``autoplugin.torch``).
"""

import operator
from typing import Any, Dict, List, Optional, Sequence

from .library import Library, open_library
from .torch_tensorrt import PluginRequest, call_refusal, plugin_request

EMBEDDING_BAG_OP = "torchtrt_ex::embedding_bag"

# The aten overloads (as str(target) names them) and their arguments, in schema order.
_EMBEDDING_BAG_ARGUMENTS = ("weight", "indices", "offsets", "scale_grad_by_freq", "mode",
                            "sparse", "per_sample_weights", "include_last_offset", "padding_idx")
EMBEDDING_BAG_OVERLOADS = ("aten.embedding_bag.default", "aten.embedding_bag.padding_idx",
                           "aten._embedding_bag.default",
                           "aten._embedding_bag_forward_only.default")
_MODES = {0: "sum", 1: "mean", 2: "max"}


def _bind(overload: str, args: Sequence[Any], kwargs: Dict[str, Any]) -> Dict[str, Any]:
    if overload not in EMBEDDING_BAG_OVERLOADS:
        raise ValueError(f"{overload} is not an embedding_bag overload (they are: "
                         f"{', '.join(EMBEDDING_BAG_OVERLOADS)})")
    if len(args) > len(_EMBEDDING_BAG_ARGUMENTS):
        raise ValueError(f"{overload}: {len(args)} arguments, it takes at most "
                         f"{len(_EMBEDDING_BAG_ARGUMENTS)}")
    bound = dict(zip(_EMBEDDING_BAG_ARGUMENTS, args))
    bound.update(kwargs)
    return bound


def embedding_bag_arguments(overload: str, args: Sequence[Any],
                            kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """The plugin op's arguments for one aten embedding_bag call: ``overload`` is str(target),
    e.g. "aten.embedding_bag.padding_idx". scale_grad_by_freq and sparse only change gradients,
    so they are dropped; mode 0/1/2 becomes "sum"/"mean"/"max"; padding_idx keeps PyTorch's
    meaning: the ``padding_idx`` overload's value as given (None, or negative counting from the
    end), ``_embedding_bag``'s already wrapped one with negative for none."""
    bound = _bind(overload, args, kwargs)
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


def _overload(node: Any) -> str:
    return str(node.target)


def _unused_outputs_refusal(node: Any) -> Optional[str]:
    """The plugin computes embedding_bag's first output only: any other use is refused."""
    for user in getattr(node, "users", {}):
        if user.target is not operator.getitem:
            return f"{_overload(node)}: its result is used whole by {user.name}, not through [0]"
        if user.args[1] != 0 and len(user.users) > 0:
            kind = ("offset2bag", "bag_size", "max_indices")[user.args[1] - 1]
            return (f"{_overload(node)}: output {user.args[1]} ({kind}) is used; the plugin "
                    f"computes output 0 only")
    return None


def embedding_bag_refusal(library: Library, node: Any, op_name: str = EMBEDDING_BAG_OP
                          ) -> Optional[str]:
    """Why the plugin cannot replace this aten embedding_bag node (an FX node whose inputs carry
    ``meta["val"]``), or None when it can. The capability validator is ``refusal is None``."""
    try:
        arguments = embedding_bag_arguments(_overload(node), node.args, node.kwargs)
    except ValueError as error:
        return str(error)
    refusal = _unused_outputs_refusal(node)
    if refusal:
        return refusal
    indices, offsets = arguments["indices"], arguments["offsets"]
    index_dtypes = {str(getattr(t, "meta", {}).get("val").dtype) for t in (indices, offsets)
                    if t is not None and getattr(t, "meta", {}).get("val") is not None}
    if len(index_dtypes) > 1:
        return (f"{_overload(node)}: indices and offsets of different dtypes "
                f"({', '.join(sorted(index_dtypes))}); the plugin takes one index dtype")
    return call_refusal(library, library.op(op_name), (), arguments)


def embedding_bag_request(library: Library, node_args: Sequence[Any], node_kwargs: Dict[str, Any],
                          overload: str, op_name: str = EMBEDDING_BAG_OP) -> PluginRequest:
    """The plugin (name, version, namespace, fields) and its inputs for one aten call."""
    return plugin_request(library.op(op_name), (),
                          embedding_bag_arguments(overload, node_args, node_kwargs))


def replace_embedding_bags(graph_module: Any, library: Library,
                           op_name: str = EMBEDDING_BAG_OP) -> List[str]:
    """Replaces, in an FX graph module (``ExportedProgram.graph_module``), every aten
    embedding_bag node the plugin can take by a call of the plugin's PyTorch op
    (``torch.ops.torchtrt_ex.embedding_bag``, loaded with ``autoplugin.torch.load_library``);
    returns the names of the nodes replaced. Nodes it refuses stay."""
    import torch

    namespace, name = op_name.split("::")
    target = getattr(getattr(torch.ops, namespace), name).default
    graph = graph_module.graph
    replaced = []
    for node in list(graph.nodes):
        if node.op != "call_function" or _overload(node) not in EMBEDDING_BAG_OVERLOADS:
            continue
        if embedding_bag_refusal(library, node, op_name) is not None:
            continue
        arguments = embedding_bag_arguments(_overload(node), node.args, node.kwargs)
        with graph.inserting_before(node):
            call = graph.call_function(target, (), arguments)
        call.meta["val"] = target(**{
            k: (v.meta["val"] if hasattr(v, "meta") else v) for k, v in arguments.items()})
        for user in list(node.users):
            if user.args[1] == 0:
                user.replace_all_uses_with(call)
            graph.erase_node(user)
        graph.erase_node(node)
        replaced.append(node.name)
    graph.lint()
    graph_module.recompile()
    return replaced


_registered: Dict[str, Library] = {}


def register_embedding_bag(plugin_library: str, op_name: str = EMBEDDING_BAG_OP) -> Library:
    """Registers, for each aten embedding_bag overload, a Torch-TensorRT converter at
    ConverterPriority.HIGH (tried before Torch-TensorRT's own) whose validator accepts the nodes
    the plugin can take; loads the plugin library into TensorRT's registry (once)."""
    import torch
    from torch_tensorrt.dynamo.conversion._ConverterRegistry import (ConverterPriority,
                                                                      dynamo_tensorrt_converter)

    from .torch_tensorrt import add_plugin_layer, load_into_tensorrt

    library = open_library(plugin_library)
    if _registered.get(op_name) is library:
        return library
    library.op(op_name)  # raises naming the library's ops when it lacks this one
    load_into_tensorrt(library)
    aten = torch.ops.aten
    targets = (aten.embedding_bag.default, aten.embedding_bag.padding_idx,
               aten._embedding_bag.default, aten._embedding_bag_forward_only.default)

    def validator(node, settings=None):
        return embedding_bag_refusal(library, node, op_name) is None

    def converter(ctx, target, args, kwargs, name):
        request = embedding_bag_request(library, args, kwargs, str(target), op_name)
        (output,) = add_plugin_layer(ctx, request, name)
        return output, None, None, None  # offset2bag, bag_size, max_indices: unused (validator)

    for target in targets:
        dynamo_tensorrt_converter(target, capability_validator=validator,
                                  priority=ConverterPriority.HIGH,
                                  supports_dynamic_shapes=True)(converter)
    _registered[op_name] = library
    return library
