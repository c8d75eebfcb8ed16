"""Plugin fields for an autoplugin op's attributes, in pure Python (no TensorRT, no PyTorch).

The fields are what TensorRT's ONNX parser would send, i.e. exactly the types the op's creator
lists in ``getFieldNames`` (``int``/``bool`` as INT32, ``float`` as FLOAT32, ``str`` and
``ScalarType`` as NUL-terminated CHAR, lists as arrays of the element type). ``None`` is a
length-0 field; for a list of no fixed size that would be the empty list, so its ``None`` is an
UNKNOWN field of length 0, as autoplugin serializes it.
"""

import struct
from typing import Any, Dict, Iterable, List, NamedTuple, Optional

# nvinfer1::PluginFieldType numbering.
FIELD_TYPES = {
    "FLOAT16": 0, "FLOAT32": 1, "FLOAT64": 2, "INT8": 3, "INT16": 4, "INT32": 5, "CHAR": 6,
    "DIMS": 7, "UNKNOWN": 8, "BF16": 9, "INT64": 10, "FP8": 11, "INT4": 12, "FP4": 13,
}

_PACK = {"INT8": "b", "INT16": "h", "INT32": "i", "INT64": "q", "FLOAT32": "f", "FLOAT64": "d"}
_INT_RANGE = {"INT8": 7, "INT16": 15, "INT32": 31, "INT64": 63}

# PyTorch's dtype names -> autoplugin's (which are also the names the creators decode).
DTYPE_NAMES = {
    "torch.float32": "float32", "torch.float": "float32", "torch.float16": "float16",
    "torch.half": "float16", "torch.bfloat16": "bfloat16", "torch.int8": "int8",
    "torch.int32": "int32", "torch.int": "int32", "torch.int64": "int64", "torch.long": "int64",
    "torch.float8_e4m3fn": "float8_e4m3fn",
}


class Field(NamedTuple):
    """One plugin field: ``type`` is a PluginFieldType name, ``data`` its bytes (little-endian)."""

    name: str
    type: str
    data: bytes
    length: int


# The reserved field listing a plugin's absent ``Tensor?`` inputs by input index (see the C++
# autoplugin::kAbsentInputsField): trailing absent inputs are left out by passing fewer tensors.
ABSENT_INPUTS_FIELD = "autoplugin_absent_inputs"


def absent_inputs_field(indices: List[int]) -> "Field":
    """The reserved field declaring these input indices absent (INT32, as the ONNX parser sends)."""
    return Field(ABSENT_INPUTS_FIELD, "INT32", struct.pack("<" + "i" * len(indices), *indices),
                 len(indices))


class FieldEncodingError(ValueError):
    """An attribute value the op's fields cannot carry; the message names the op and attribute."""


def dtype_name(value: Any) -> str:
    """autoplugin's name for a dtype given as a torch.dtype, a string or an autoplugin name."""
    text = str(value)
    if text in DTYPE_NAMES:
        return DTYPE_NAMES[text]
    if text in DTYPE_NAMES.values():
        return text
    raise ValueError(f"dtype {text} has no autoplugin equivalent "
                     f"(float32, float16, bfloat16, int8, int32, int64, float8_e4m3fn)")


def _pack(field_type: str, values: List[Any], where: str) -> bytes:
    code = _PACK[field_type]
    if field_type in _INT_RANGE:
        bits = _INT_RANGE[field_type]
        for v in values:
            if not -(1 << bits) <= v < (1 << bits):
                raise FieldEncodingError(f"{where}: {v} does not fit the field type {field_type}")
    return struct.pack("<" + code * len(values), *values)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def encode_attribute(op_name: str, attribute: Dict[str, Any], value: Any) -> Field:
    """The field for one attribute, as described by the library (``Library.ops[...]``)."""
    name = attribute["name"]
    where = f"op '{op_name}': attribute '{name}'"
    base, is_list = attribute["base"], attribute["list"]
    field_type = attribute["field_type"]
    fixed: Optional[int] = attribute["fixed_size"]
    if value is None:
        if not attribute["optional"]:
            raise FieldEncodingError(f"{where}: None given, but the schema type {attribute['type']} "
                                  f"is not optional")
        variable_list = is_list and fixed is None
        return Field(name, "UNKNOWN" if variable_list else field_type, b"", 0)

    def expected(what: str) -> FieldEncodingError:
        return FieldEncodingError(f"{where}: expected {what} (schema type {attribute['type']}), "
                               f"got {type(value).__name__} {value!r}")

    if base == "str":
        if not isinstance(value, str):
            raise expected("a str")
        data = value.encode() + b"\0"  # the trailing NUL counts, as the ONNX parser sends it
        return Field(name, "CHAR", data, len(data))
    if base == "ScalarType":
        try:
            text = dtype_name(value)
        except ValueError as error:
            raise FieldEncodingError(f"{where}: {error}") from None
        data = text.encode() + b"\0"
        return Field(name, "CHAR", data, len(data))

    items = list(value) if is_list else [value]
    if is_list and isinstance(value, (str, bytes)):
        raise expected(f"a list of {base}")
    if fixed is not None and len(items) != fixed:
        raise expected(f"{fixed} values")
    if base == "int":
        if not all(_is_int(v) or hasattr(v, "__index__") and not isinstance(v, bool)
                   for v in items):
            raise expected("a list of int" if is_list else "an int")
        items = [int(v) for v in items]
    elif base == "float":
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
            raise expected("a list of float" if is_list else "a float")
        items = [float(v) for v in items]
    elif base == "bool":
        if not all(isinstance(v, bool) for v in items):
            raise expected("a list of bool" if is_list else "a bool")
        items = [int(v) for v in items]
    else:
        raise expected("a value of a known attribute type")
    return Field(name, field_type, _pack(field_type, items, where), len(items))


def bind_call(op: Dict[str, Any], args: Iterable[Any], kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """Schema argument name -> value for a call ``op(*args, **kwargs)`` (missing ones left out)."""
    names = [a["name"] for a in op["arguments"]]
    args = list(args)
    if len(args) > len(names):
        raise TypeError(f"op '{op['name']}' takes {len(names)} arguments, {len(args)} given")
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise TypeError(f"op '{op['name']}' has no argument '{key}' (it has: "
                            f"{', '.join(names)})")
        if key in bound:
            raise TypeError(f"op '{op['name']}': argument '{key}' given twice")
        bound[key] = value
    return bound


def encode_attributes(op: Dict[str, Any], values: Dict[str, Any]) -> List[Field]:
    """Fields for the attributes among ``values`` (name -> value), in the creator's order.

    Attributes not in ``values`` are left out: the creator gives them their schema defaults.
    Raises ``FieldEncodingError`` naming the op and each attribute it cannot encode.
    """
    fields, problems = [], []
    for attribute in op["attributes"]:
        if attribute["name"] not in values:
            continue
        try:
            fields.append(encode_attribute(op["name"], attribute, values[attribute["name"]]))
        except FieldEncodingError as error:
            problems.append(str(error))
    if problems:
        raise FieldEncodingError("\n".join(problems))
    return fields
