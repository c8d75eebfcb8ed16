"""ONNX export of autoplugin ops: each call becomes the custom node that TensorRT's ONNX parser
turns into the op's plugin, derived from the op's declaration (nothing is written per op).

    import torch, autoplugin.torch, autoplugin.onnx
    library = autoplugin.torch.load_library("libmy_ops_torch.so")
    program = torch.onnx.export(model, args, dynamo=True, dynamic_shapes=...,
                                custom_translation_table=autoplugin.onnx.translation_table(library))

A call becomes one node: op_type the plugin name, domain the namespace (``plugin_version`` when
the version is not "1"); attributes with the ONNX types the parser converts to the fields the
creator lists (``int``/``bool`` as INT, ``float`` as FLOAT, ``str`` and ``ScalarType`` as
STRING, lists as INTS/FLOATS); ``SymInt``/``SymInt[]`` arguments as 1-D INT64 inputs listed in
``tensorrt_plugin_shape_input_indices``; absent ``Tensor?`` inputs left out (trailing ones) or
listed in ``autoplugin_absent_inputs``; one output per plugin output: the schema's returns, then
a 0-d INT32 size tensor per data-dependent extent (the parser names every output of the layer).

``plugin_node`` and ``parser_fields`` are pure functions of the op's description (no torch, no
onnx); ``translation_table`` needs torch and onnxscript. ``aten_translation_table`` exports
aten's ``embedding_bag`` as the examples' embedding_bag plugin the same way.
"""

import struct
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

from . import fields as _fields
from .library import Library, open_library

# ONNX Runtime's TensorRT execution providers register every TensorRT plugin as a custom op of
# this domain; the namespace then travels in the node's plugin_namespace attribute.
ORT_TENSORRT_DOMAIN = "trt.plugins"

SHAPE_INPUT_INDICES = "tensorrt_plugin_shape_input_indices"

# TensorProto.DataType codes -> autoplugin's dtype names (torch.onnx hands a torch.dtype
# argument to a translation function as its ONNX code).
_ONNX_DTYPES = {1: "float32", 10: "float16", 16: "bfloat16", 3: "int8", 6: "int32", 7: "int64"}


class OnnxAttribute(NamedTuple):
    """A node attribute: ``type`` is an ONNX AttributeType name (INT, INTS, FLOAT, FLOATS,
    STRING, STRINGS)."""

    name: str
    type: str
    value: Any


class PluginNode(NamedTuple):
    """The node for one call: ``inputs`` are the call's arguments that become node inputs, in
    node order (present tensors and shape inputs, in schema order); ``shape_inputs`` says which
    of them are shape inputs; the node has ``num_outputs`` outputs, of which the first
    ``num_returns`` are the schema's returns and the rest 0-d INT32 size tensors."""

    op_type: str
    domain: str
    inputs: List[Any]
    shape_inputs: List[bool]
    attributes: List[OnnxAttribute]
    num_returns: int
    num_outputs: int


class OnnxExportError(ValueError):
    """A call the ONNX node cannot express; the message names the op and the argument."""


def _attribute(op: Dict[str, Any], attribute: Dict[str, Any],
               value: Any) -> Optional[OnnxAttribute]:
    """The ONNX attribute for one schema attribute, or None to leave it out (its default)."""
    name, base, onnx_type = attribute["name"], attribute["base"], attribute["onnx"]
    where = f"op '{op['name']}': attribute '{name}'"
    if value is None:
        if "default" in attribute and attribute["default"] is None:
            return None  # the creator's default is None already
        if attribute["list"] and attribute["fixed_size"] is None:
            raise OnnxExportError(
                f"{where}: None cannot be sent through ONNX: the parser makes an empty INTS or "
                f"FLOATS the empty list, and the schema default ({attribute.get('default')!r}) "
                f"is not None")
        # A length-0 field is None: an empty list attribute of the element's type gives one.
        return OnnxAttribute(name, {"INT": "INTS", "FLOAT": "FLOATS", "STRING": "STRINGS"}
                             .get(onnx_type, onnx_type), [])
    if base == "ScalarType":
        return OnnxAttribute(name, "STRING", _dtype_name(value, where))
    if base == "str":
        return OnnxAttribute(name, "STRING", value)
    items = list(value) if attribute["list"] else [value]
    # int and bool as INT/INTS (the parser narrows them to INT32: encode_attributes checked
    # that they fit), float as FLOAT/FLOATS.
    items = [float(v) if base == "float" else int(v) for v in items]
    return OnnxAttribute(name, onnx_type, items if attribute["list"] else items[0])


def _dtype_name(value: Any, where: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        if value not in _ONNX_DTYPES:
            raise OnnxExportError(f"{where}: ONNX dtype code {value} has no autoplugin "
                                  f"equivalent ({', '.join(_ONNX_DTYPES.values())})")
        return _ONNX_DTYPES[value]
    try:
        return _fields.dtype_name(value)
    except ValueError as error:
        raise OnnxExportError(f"{where}: {error}") from None


def _is_constant(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return all(_is_constant(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, str)) or (
        type(value).__module__ == "torch" and type(value).__name__ == "dtype")


def plugin_node(op: Dict[str, Any], args: Sequence[Any], kwargs: Dict[str, Any],
                domain: Optional[str] = None) -> PluginNode:
    """The ONNX node for one call ``op(*args, **kwargs)`` (``op`` from ``Library.ops``).

    ``domain`` None puts the node in the op's namespace; another domain (such as
    ``ORT_TENSORRT_DOMAIN``) keeps the namespace in the attribute ``plugin_namespace``.
    Raises ``OnnxExportError`` or ``FieldEncodingError`` naming the op and the argument.
    """
    bound = _fields.bind_call(op, args, kwargs)
    tensors: List[Any] = []  # by input index; None for an absent one
    arguments: List[Tuple[bool, Any]] = []  # (is a shape input, value) in schema order
    values: Dict[str, Any] = {}
    for argument in op["arguments"]:
        name, value = argument["name"], bound.get(argument["name"])
        if argument["kind"] == "tensor":
            if value is None and not argument["type"].endswith("?"):
                raise OnnxExportError(f"op '{op['name']}': argument '{name}' "
                                      f"({argument['type']}) is required, got None")
            tensors.append(value)
            arguments.append((False, value))
        elif argument["kind"] == "shape_input":
            if value is None:
                raise OnnxExportError(f"op '{op['name']}': argument '{name}' "
                                      f"({argument['type']}) is a shape input and cannot be None")
            arguments.append((True, value))
        elif name in bound:
            if not _is_constant(value):
                raise OnnxExportError(
                    f"op '{op['name']}': attribute '{name}' is {value!r}, a value computed "
                    f"in the graph; an ONNX attribute (a plugin field) must be a constant")
            values[name] = value
    # Every value checked as the creator's fields would hold it (types, lengths, INT32).
    _fields.encode_attributes(op, {k: _dtype_name(v, f"op '{op['name']}': attribute '{k}'")
                                   if _is_scalar_type(op, k) and v is not None else v
                                   for k, v in values.items()})
    attributes = []
    for attribute in op["attributes"]:
        if attribute["name"] in values:
            encoded = _attribute(op, attribute, values[attribute["name"]])
            if encoded is not None:
                attributes.append(encoded)
    # Absent inputs: trailing ones left out of the node, the others listed in the reserved field.
    present_count = len(tensors)
    while present_count > 0 and tensors[present_count - 1] is None:
        present_count -= 1
    declared = [k for k in range(present_count) if tensors[k] is None]
    if declared:
        attributes.append(OnnxAttribute(_fields.ABSENT_INPUTS_FIELD, "INTS", declared))
    inputs = [value for _, value in arguments if value is not None]
    shape_flags = [is_shape for is_shape, value in arguments if value is not None]
    shape_indices = [k for k, is_shape in enumerate(shape_flags) if is_shape]
    if shape_indices:
        attributes.append(OnnxAttribute(SHAPE_INPUT_INDICES, "INTS", shape_indices))
    if op["version"] != "1":
        attributes.append(OnnxAttribute("plugin_version", "STRING", op["version"]))
    node_domain = op["namespace"] if domain is None else domain
    if node_domain != op["namespace"]:
        attributes.append(OnnxAttribute("plugin_namespace", "STRING", op["namespace"]))
    return PluginNode(op["plugin_name"], node_domain, inputs, shape_flags, attributes,
                      op["num_returns"], len(op["outputs"]))


def _is_scalar_type(op: Dict[str, Any], name: str) -> bool:
    return any(a["name"] == name and a["base"] == "ScalarType" for a in op["attributes"])


def parser_fields(op: Dict[str, Any], attributes: Sequence[OnnxAttribute]) -> List[_fields.Field]:
    """The plugin fields TensorRT's ONNX parser makes of a node's attributes: only those the
    creator lists (``getFieldNames``), INT/INTS narrowed to INT32, FLOAT/FLOATS as FLOAT32,
    STRING as CHAR with the NUL counted, STRINGS as NUL-terminated CHARs."""
    listed = [a["name"] for a in op["attributes"]]
    if any(a["kind"] == "tensor" and a["type"].endswith("?") for a in op["arguments"]):
        listed.append(_fields.ABSENT_INPUTS_FIELD)
    by_name = {a.name: a for a in attributes}
    result = []
    for name in listed:
        if name not in by_name:
            continue
        kind, value = by_name[name].type, by_name[name].value
        if kind in ("INT", "INTS"):
            items = [value] if kind == "INT" else list(value)
            wrapped = [(v + (1 << 31)) % (1 << 32) - (1 << 31) for v in items]  # as the cast does
            result.append(_fields.Field(name, "INT32", struct.pack(f"<{len(items)}i", *wrapped),
                                        len(items)))
        elif kind in ("FLOAT", "FLOATS"):
            items = [value] if kind == "FLOAT" else list(value)
            result.append(_fields.Field(name, "FLOAT32", struct.pack(f"<{len(items)}f", *items),
                                        len(items)))
        elif kind in ("STRING", "STRINGS"):
            items = [value] if kind == "STRING" else list(value)
            data = b"".join((s.encode() if isinstance(s, str) else bytes(s)) + b"\0"
                            for s in items)
            result.append(_fields.Field(name, "CHAR", data, len(data)))
        else:
            raise OnnxExportError(f"op '{op['name']}': attribute '{name}' of ONNX type {kind}: "
                                  f"not a type this module writes")
    return result


def node_attributes(node: Any) -> List[OnnxAttribute]:
    """The attributes of an ``onnx.NodeProto`` as ``OnnxAttribute``s (INT, INTS, FLOAT, FLOATS,
    STRING and STRINGS; others are left out)."""
    import onnx

    kinds = {onnx.AttributeProto.INT: "INT", onnx.AttributeProto.INTS: "INTS",
             onnx.AttributeProto.FLOAT: "FLOAT", onnx.AttributeProto.FLOATS: "FLOATS",
             onnx.AttributeProto.STRING: "STRING", onnx.AttributeProto.STRINGS: "STRINGS"}
    result = []
    for attribute in node.attribute:
        if attribute.type in kinds:
            value = onnx.helper.get_attribute_value(attribute)
            if attribute.type == onnx.AttributeProto.STRING:
                value = value.decode()
            elif attribute.type == onnx.AttributeProto.STRINGS:
                value = [v.decode() for v in value]
            result.append(OnnxAttribute(attribute.name, kinds[attribute.type], value))
    return result


# ---- torch.onnx (dynamo) translation ---------------------------------------------------------

def _op_schema(node: PluginNode):
    """An ONNX OpSchema for this one node, so that onnxscript records it (the op's domain has no
    registered schemas, and registering them would change what onnx.checker checks elsewhere)."""
    import onnx

    parameter = onnx.defs.OpSchema.FormalParameter
    any_tensor = [f"tensor({t})" for t in ("float", "float16", "bfloat16", "double", "int8",
                                           "int16", "int32", "int64", "uint8", "bool")]
    inputs = [parameter(f"input{k}", "tensor(int64)" if is_shape else f"T{k}")
              for k, is_shape in enumerate(node.shape_inputs)]
    constraints = [(f"T{k}", any_tensor, "")
                   for k, is_shape in enumerate(node.shape_inputs) if not is_shape]
    outputs = [parameter(f"output{j}", f"R{j}") for j in range(node.num_returns)]
    constraints += [(f"R{j}", any_tensor, "") for j in range(node.num_returns)]
    outputs += [parameter(f"size{j}", "tensor(int32)")
                for j in range(node.num_outputs - node.num_returns)]
    kinds = {"INT": onnx.AttributeProto.INT, "INTS": onnx.AttributeProto.INTS,
             "FLOAT": onnx.AttributeProto.FLOAT, "FLOATS": onnx.AttributeProto.FLOATS,
             "STRING": onnx.AttributeProto.STRING, "STRINGS": onnx.AttributeProto.STRINGS}
    attributes = [onnx.defs.OpSchema.Attribute(a.name, kinds[a.type], "", required=False)
                  for a in node.attributes]
    return onnx.defs.OpSchema(node.op_type, node.domain, 1, inputs=inputs, outputs=outputs,
                              type_constraints=constraints, attributes=attributes)


def _ir_attribute(attribute: OnnxAttribute):
    from onnxscript import ir

    make = {"INT": ir.AttrInt64, "INTS": ir.AttrInt64s, "FLOAT": ir.AttrFloat32,
            "FLOATS": ir.AttrFloat32s, "STRING": ir.AttrString, "STRINGS": ir.AttrStrings}
    return make[attribute.type](attribute.name, attribute.value)


def _emit(node: PluginNode) -> List[Any]:
    """Records the node in the graph being exported; its outputs that are the schema's returns."""
    from onnxscript import ir
    from onnxscript.values import Op, Opset

    # A SymInt is a shape input of one value: 1-D, like a SymInt[]'s.
    inputs = [[v] if is_shape and not isinstance(v, (list, tuple)) else v
              for v, is_shape in zip(node.inputs, node.shape_inputs)]
    call = Op(Opset(node.domain, 1), node.op_type, _op_schema(node))
    outputs = call(*inputs, **{a.name: _ir_attribute(a) for a in node.attributes})
    outputs = list(outputs) if isinstance(outputs, Sequence) else [outputs]
    for size in outputs[node.num_returns:]:
        size.dtype = ir.DataType.INT32
        size.shape = ir.Shape([])
    return outputs[:node.num_returns]


def _translation(op: Dict[str, Any], domain: Optional[str]):
    import inspect

    def translate(*args, **kwargs):
        returns = _emit(plugin_node(op, args, kwargs, domain))
        return returns[0] if len(returns) == 1 else tuple(returns)

    translate.__name__ = f"autoplugin_onnx_{op['plugin_name']}"
    translate.__qualname__ = translate.__name__
    # The exporter infers an ONNX signature from the function's: one untyped parameter per
    # schema argument (the node itself is built above, from the call).
    translate.__signature__ = inspect.Signature([
        inspect.Parameter(a["name"], inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)
        for a in op["arguments"]])
    return translate


def _torch_op(name: str):
    import torch

    namespace, op_name = name.split("::", 1)
    base, _, overload = op_name.partition(".")
    try:
        return getattr(getattr(getattr(torch.ops, namespace), base), overload or "default")
    except (AttributeError, RuntimeError):
        raise OnnxExportError(f"op '{name}' is not defined in PyTorch: load its op library "
                              f"first (autoplugin.torch.load_library)") from None


def translation_table(library: Union[Library, str], domain: Optional[str] = None) -> Dict[Any, Any]:
    """``custom_translation_table`` for ``torch.onnx.export(..., dynamo=True)``: every op of an
    autoplugin library (a ``Library`` or the path of the PyTorch op library or the TensorRT
    plugin library; the ops must be defined in PyTorch) mapped to the function that emits its
    plugin node. ``domain`` as for ``plugin_node``: ``ORT_TENSORRT_DOMAIN`` for ONNX Runtime's
    TensorRT execution providers."""
    if not isinstance(library, Library):
        library = open_library(library)
    return {_torch_op(name): _translation(op, domain) for name, op in library.ops.items()}


def aten_translation_table(library: Union[Library, str], domain: Optional[str] = None,
                           op_name: str = "torchtrt_ex::embedding_bag") -> Dict[Any, Any]:
    """``custom_translation_table`` entries that export aten's ``embedding_bag`` (which ONNX
    export otherwise writes as a ``Loop`` over bags) as the plugin node of ``op_name``, an op of
    ``library`` with the examples' embedding_bag schema; merge them with ``translation_table``.
    The node's arguments are the Torch-TensorRT converter's (``autoplugin.aten.embedding_bag``):
    ``mode`` by name, ``padding_idx`` as PyTorch means it, the training-only arguments dropped.
    aten's op has three more outputs (``offset2bag``, ``bag_size``, ``max_indices``) that only
    its backward reads: they are exported as empty int64 tensors, so a model that reads them
    must not use this table."""
    import inspect

    import torch
    from onnxscript import opset18

    from .aten.embedding_bag import ARGUMENTS, arguments

    if not isinstance(library, Library):
        library = open_library(library)
    if op_name not in library.ops:
        raise OnnxExportError(f"op '{op_name}' is not in {library.path}: aten's embedding_bag is "
                              "exported as the examples' embedding_bag plugin")
    op = library.ops[op_name]

    def translation(overload: str):
        def translate(*args, **kwargs):
            bound = arguments(overload, args, kwargs)
            (output,) = _emit(plugin_node(op, [], bound, domain))
            unused = opset18.Constant(value_ints=[])  # offset2bag, bag_size, max_indices
            return output, unused, unused, unused

        translate.__name__ = f"autoplugin_onnx_{overload.replace('.', '_')}"
        translate.__qualname__ = translate.__name__
        translate.__signature__ = inspect.Signature([
            inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)
            for name in ARGUMENTS])
        return translate

    aten = torch.ops.aten
    overloads = {"aten.embedding_bag.padding_idx": aten.embedding_bag.padding_idx,
                 "aten.embedding_bag.default": aten.embedding_bag.default,
                 "aten._embedding_bag.default": aten._embedding_bag.default,
                 "aten._embedding_bag_forward_only.default":
                     aten._embedding_bag_forward_only.default}
    return {target: translation(name) for name, target in overloads.items()}
