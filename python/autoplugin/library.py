"""An op library built with autoplugin, opened through the C entry points every such library
exports (``include/autoplugin/backend/library_api.h``): its ops, their attributes and launchers, and the
output-shape program of a call. Works for TensorRT plugin libraries and PyTorch op libraries."""

import ctypes
import json
import os
import threading
from typing import Any, Dict, List, Optional, Sequence

from .fields import FIELD_TYPES, Field


class _CField(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int32), ("data", ctypes.c_void_p),
                ("length", ctypes.c_int32)]


class LibraryError(RuntimeError):
    """A library could not be opened, or answered with an error."""


class Library:
    """One autoplugin library. ``ops`` maps qualified op names to their descriptions."""

    def __init__(self, path: str):
        self.path = os.path.realpath(path)
        try:
            self._dll = ctypes.CDLL(self.path)
        except OSError as error:
            raise LibraryError(f"cannot open {path}: {error}") from None
        try:
            self._ops_fn = self._dll.autoplugin_library_v1_ops
            self._describe_fn = self._dll.autoplugin_library_v1_describe
            self._program_fn = self._dll.autoplugin_library_v1_shape_program
            self._decode_fn = self._dll.autoplugin_library_v1_decode_fields
        except AttributeError:
            raise LibraryError(f"{path} was not built with autoplugin (it does not export "
                               f"autoplugin_library_v1_ops)") from None
        for fn in (self._ops_fn, self._describe_fn, self._program_fn, self._decode_fn):
            fn.restype = ctypes.c_char_p
        self._describe_fn.argtypes = [ctypes.c_char_p]
        self._lock = threading.Lock()
        listing = json.loads(self._ops_fn())
        self.ops: Dict[str, Dict[str, Any]] = {op["name"]: op for op in listing["ops"]}
        self.errors: List[str] = listing["errors"]

    def op(self, name: str) -> Dict[str, Any]:
        if name not in self.ops:
            raise LibraryError(f"no op '{name}' in {self.path} (it has: "
                               f"{', '.join(self.ops) or 'none'})")
        return self.ops[name]

    def describe(self, name: Optional[str] = None) -> str:
        with self._lock:
            return self._describe_fn(name.encode() if name else None).decode()

    @staticmethod
    def _fields(fields: Sequence[Field]):
        array = (_CField * max(len(fields), 1))()
        keep = []
        for i, f in enumerate(fields):
            buffer = ctypes.create_string_buffer(f.data, max(len(f.data), 1))
            keep.append(buffer)
            array[i] = _CField(f.name.encode(), FIELD_TYPES[f.type],
                               ctypes.cast(buffer, ctypes.c_void_p).value if f.data else None,
                               f.length)
        return array, keep

    def shape_program(self, op: str, input_ranks: Sequence[int], input_dtypes: Sequence[str],
                      shape_input_lengths: Sequence[int], fields: Sequence[Field]) -> Dict[str, Any]:
        """The output-shape program of one call (see library_api.h); raises LibraryError."""
        ranks = (ctypes.c_int32 * max(len(input_ranks), 1))(*input_ranks)
        dtypes = (ctypes.c_char_p * max(len(input_dtypes), 1))(*[d.encode() for d in input_dtypes])
        lengths = (ctypes.c_int32 * max(len(shape_input_lengths), 1))(*shape_input_lengths)
        array, keep = self._fields(fields)
        with self._lock:
            answer = json.loads(self._program_fn(
                op.encode(), len(input_ranks), ranks, dtypes, len(shape_input_lengths), lengths,
                len(fields), array))
        del keep
        if not answer["ok"]:
            raise LibraryError(answer["error"])
        return answer

    def decode_fields(self, op: str, fields: Sequence[Field]) -> Dict[str, Any]:
        """What the op's creator decodes from these fields: {"values": {...}, "warnings": [...]}."""
        array, keep = self._fields(fields)
        with self._lock:
            answer = json.loads(self._decode_fn(op.encode(), len(fields), array))
        del keep
        if not answer["ok"]:
            raise LibraryError(answer["error"])
        return answer


_opened: Dict[str, Library] = {}
_opened_lock = threading.Lock()


def open_library(path: str) -> Library:
    """The Library for ``path``, opened once per process."""
    key = os.path.realpath(path)
    with _opened_lock:
        if key not in _opened:
            _opened[key] = Library(path)
        return _opened[key]
