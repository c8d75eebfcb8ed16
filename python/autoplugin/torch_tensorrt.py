"""Torch-TensorRT converters for autoplugin ops: each call of an op in a graph Torch-TensorRT
compiles becomes the op's native TensorRT plugin (IPluginV3, no Python at run time).

    import autoplugin.torch, autoplugin.torch_tensorrt
    autoplugin.torch.load_library("libmy_ops_torch.so")            # the ops in PyTorch
    autoplugin.torch_tensorrt.register_converters("libmy_ops.so")  # their TensorRT plugins

Everything except the TensorRT calls is a pure function of the op's description and the call
(``plugin_request``), tested without TensorRT.
"""

from typing import Any, Dict, List, NamedTuple, Optional, Sequence

from . import fields as _fields
from .library import Library, open_library


class PluginRequest(NamedTuple):
    """What a converter asks TensorRT for: the creator's (name, version, namespace), the fields
    to create the plugin with, the graph arguments that are its inputs and shape inputs, and how
    many of its outputs the graph uses (the schema's returns; size tensors stay inside)."""

    plugin_name: str
    plugin_version: str
    plugin_namespace: str
    fields: List[_fields.Field]
    tensor_arguments: List[Any]  # the layer's inputs: the present tensors, in order
    shape_input_arguments: List[Any]
    num_outputs: int
    absent_inputs: List[int]  # input indices of the Tensor? arguments given None


def plugin_request(op: Dict[str, Any], args: Sequence[Any], kwargs: Dict[str, Any]) -> PluginRequest:
    """The plugin for one call of ``op`` (from ``Library.ops``); raises on arguments it refuses."""
    bound = _fields.bind_call(op, args, kwargs)
    tensors, shape_inputs, attributes = [], [], {}
    for argument in op["arguments"]:
        name = argument["name"]
        if argument["kind"] == "tensor":
            if bound.get(name) is None and not argument["type"].endswith("?"):
                raise ValueError(f"op '{op['name']}': argument '{name}' ({argument['type']}) is "
                                 f"required, got None")
            tensors.append(bound.get(name))
        elif argument["kind"] == "shape_input":
            shape_inputs.append(bound.get(name))
        elif name in bound:
            attributes[name] = bound[name]
    # Absent inputs: trailing ones are left out of the layer, the others declared in the field.
    absent = [k for k, t in enumerate(tensors) if t is None]
    passed = len(tensors)
    while passed > 0 and tensors[passed - 1] is None:
        passed -= 1
    fields = _fields.encode_attributes(op, attributes)
    declared = [k for k in absent if k < passed]
    if declared:
        fields.append(_fields.absent_inputs_field(declared))
    return PluginRequest(op["plugin_name"], op["version"], op["namespace"], fields,
                         [t for t in tensors if t is not None], shape_inputs, op["num_returns"],
                         absent)


def _dtype_of(node: Any) -> Optional[str]:
    value = getattr(node, "meta", {}).get("val")
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        return None
    try:
        return _fields.dtype_name(dtype)
    except ValueError:
        return ""


def call_refusal(library: Library, op: Dict[str, Any], args: Sequence[Any],
                 kwargs: Dict[str, Any]) -> Optional[str]:
    """Why the plugin cannot take this call (graph nodes as arguments, with ``meta["val"]``),
    or None when it can: its dtypes have a launcher and its attributes decode, as the library's
    creator and launcher table decide."""
    try:
        request = plugin_request(op, args, kwargs)
        names = [a["name"] for a in op["arguments"] if a["kind"] == "tensor"]
        ranks, dtypes = [], []
        present = iter(request.tensor_arguments)
        for k in range(len(request.tensor_arguments) + len(request.absent_inputs)):
            if k in request.absent_inputs:  # None: rank -1
                ranks.append(-1)
                dtypes.append("")
                continue
            tensor = next(present)
            value = getattr(tensor, "meta", {}).get("val")
            if value is None:
                return (f"op '{op['name']}': argument '{names[k]}' has no example value "
                        f"(meta['val'])")
            dtype = _dtype_of(tensor)
            if not dtype:
                return (f"op '{op['name']}': argument '{names[k]}' is {value.dtype}, a dtype "
                        f"autoplugin plugins do not take")
            ranks.append(value.dim())
            dtypes.append(dtype)
        lengths = [len(values) if isinstance(values, (list, tuple)) else 1
                   for values in request.shape_input_arguments]
        attributes = [f for f in request.fields if f.name != _fields.ABSENT_INPUTS_FIELD]
        library.shape_program(op["name"], ranks, dtypes, lengths, attributes)
        return None
    except Exception as error:  # noqa: BLE001 - any refusal means: not this plugin
        return str(error)


def supports_call(library: Library, op: Dict[str, Any], node: Any) -> bool:
    """Capability validator: True when the plugin takes this call's dtypes and attributes;
    False lets Torch-TensorRT run the op in PyTorch instead."""
    return call_refusal(library, op, node.args, node.kwargs) is None


def _trt_fields(trt, request: PluginRequest):
    import numpy as np

    types = {"INT32": np.int32, "INT64": np.int64, "FLOAT32": np.float32, "FLOAT64": np.float64,
             "INT8": np.int8, "CHAR": np.int8, "UNKNOWN": np.int8}
    out = []
    for f in request.fields:
        array = np.frombuffer(f.data, dtype=types[f.type]).copy() if f.data else np.zeros(
            0, dtype=types[f.type])
        out.append(trt.PluginField(f.name, array, getattr(trt.PluginFieldType, f.type)))
    return trt.PluginFieldCollection(out)


_registered_libraries: Dict[str, Library] = {}


def register_converters(plugin_library: str) -> Library:
    """Registers a Torch-TensorRT converter for every op of a TensorRT plugin library built with
    ``autoplugin_add_library``, and loads that library into TensorRT's plugin registry (once).
    The ops must already exist in PyTorch (``autoplugin.torch.load_library``)."""
    import torch
    from torch_tensorrt.dynamo.conversion import dynamo_tensorrt_converter

    library = open_library(plugin_library)
    if library.path in _registered_libraries:
        return library
    load_into_tensorrt(library)

    for name, op in library.ops.items():
        namespace, op_name = name.split("::", 1)
        target = getattr(getattr(torch.ops, namespace), op_name.split(".")[0])
        target = getattr(target, op_name.split(".")[1] if "." in op_name else "default")

        def validator(node, settings=None, _op=op):
            return supports_call(library, _op, node)

        @dynamo_tensorrt_converter(target, capability_validator=validator,
                                   supports_dynamic_shapes=True)
        def converter(ctx, target, args, kwargs, name, _op=op):
            outputs = add_plugin_layer(ctx, plugin_request(_op, args, kwargs), name)
            return outputs[0] if len(outputs) == 1 else tuple(outputs)

    _registered_libraries[library.path] = library
    return library


_loaded_into_tensorrt: Dict[str, bool] = {}


def load_into_tensorrt(library: Library) -> None:
    """Loads a plugin library into TensorRT's plugin registry, once per process."""
    import tensorrt as trt

    if library.path not in _loaded_into_tensorrt:
        trt.get_plugin_registry().load_library(library.path)
        _loaded_into_tensorrt[library.path] = True


def add_plugin_layer(ctx, request: PluginRequest, name: str) -> List[Any]:
    """Adds the requested plugin to a Torch-TensorRT conversion context's network; returns the
    layer's outputs that the graph uses."""
    import tensorrt as trt
    from torch_tensorrt.dynamo.conversion.converter_utils import get_trt_tensor

    creator = trt.get_plugin_registry().get_creator(
        request.plugin_name, request.plugin_version, request.plugin_namespace)
    plugin = creator.create_plugin(name, _trt_fields(trt, request), trt.TensorRTPhase.BUILD)
    inputs = [get_trt_tensor(ctx, t, f"{name}_input{k}")
              for k, t in enumerate(request.tensor_arguments)]
    shape_inputs = [get_trt_tensor(ctx, s, f"{name}_shape{k}")
                    for k, s in enumerate(request.shape_input_arguments)]
    layer = ctx.net.add_plugin_v3(inputs, shape_inputs, plugin)
    return [layer.get_output(j) for j in range(request.num_outputs)]


def node_target(node: Any) -> str:
    """A graph node's target as torch.export prints it, e.g. "aten.sort.stable"."""
    return str(getattr(node, "target", None))


def node_value(node: Any) -> Any:
    """The tensor metadata torch.export records on a node (``meta["val"]``), or None."""
    return getattr(node, "meta", {}).get("val")


def value_dtype(value: Any) -> str:
    """A tensor's dtype as "float32", "int64", ...; "" for no tensor."""
    return str(getattr(value, "dtype", "")).replace("torch.", "")


class ConverterCall(NamedTuple):
    """A converter's call as a node (target, args, kwargs): what argument binders read, from a
    graph node or from the converter's own arguments alike."""

    target: Any
    args: Any
    kwargs: Any


def register_aten_converters(library: Library, targets: Sequence[Any], validator: Any,
                             converter: Any) -> None:
    """Registers ``converter(ctx, target, args, kwargs, name)`` for each aten overload of
    ``targets`` at ConverterPriority.HIGH (tried before Torch-TensorRT's own converters) with
    ``validator``, after removing Torch-TensorRT's decompositions of them (which would replace
    the nodes before any converter is asked); loads the plugin library into TensorRT's registry
    (once)."""
    from torch_tensorrt.dynamo.conversion import ConverterPriority, dynamo_tensorrt_converter
    from torch_tensorrt.dynamo.lowering import TORCH_TRT_DECOMPOSITIONS

    load_into_tensorrt(library)
    for target in targets:
        TORCH_TRT_DECOMPOSITIONS.pop(target, None)
        dynamo_tensorrt_converter(target, capability_validator=validator,
                                  priority=ConverterPriority.HIGH,
                                  supports_dynamic_shapes=True)(converter)
