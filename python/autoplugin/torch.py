"""autoplugin ops in PyTorch: eager calls, torch.compile and torch.export.

``load_library(path)`` loads a library built with ``autoplugin_add_torch_library``: each op is
defined with its declaration's schema and a CUDA kernel that calls the op's launcher (both done
by the library as it loads), and gets a fake implementation here, so that torch.compile and
torch.export trace it with symbolic shapes. The fake evaluates the op's own shape function: the
library lowers it, for the call's ranks, dtypes and attributes, to the same expression program
TensorRT's builder receives, and this module evaluates that program over PyTorch's symbolic
integers (``requires`` become ``torch._check``; data-dependent extents unbacked sizes).
"""

import ctypes
import importlib.util
import os
import threading
import types
import warnings
from typing import Any, Dict, Optional, Tuple

import torch

from . import fields as _fields
from . import shape_program as _program
from .library import Library, LibraryError, open_library

_loaded: Dict[str, Library] = {}
_lock = threading.Lock()


def load_library(path: str) -> Library:
    """Loads an autoplugin PyTorch op library and registers its ops' fake implementations.

    Idempotent: loading the same file again returns the same Library. Call it before running,
    compiling or loading (``torch.export.load``) anything that uses the ops.
    """
    key = os.path.realpath(path)
    with _lock:
        if key in _loaded:
            return _loaded[key]
        if not os.path.exists(key):
            raise FileNotFoundError(f"no autoplugin library at {path}")
        torch.ops.load_library(key)
        library = open_library(key)
        for error in library.errors:  # such an op exists in PyTorch but refuses every call
            warnings.warn(f"autoplugin: {path}: {error}", stacklevel=2)
        for name, op in library.ops.items():
            torch.library.register_fake(name, _fake_implementation(library, op))
        _loaded[key] = library
        return library


def set_tactic(library: Library, op: str, tactic: int) -> None:
    """Chooses which launcher later eager calls of ``op`` use, by tactic number (1, 2, ... as
    ``autoplugin describe`` lists them; 0 = the first). The default is the first launcher."""
    fn = getattr(library._dll, "autoplugin_torch_v1_set_tactic", None)
    if fn is None:
        raise LibraryError(f"{library.path} is not a PyTorch op library")
    fn.argtypes = [ctypes.c_char_p, ctypes.c_int32]
    if fn(op.encode(), tactic) != 0:
        raise LibraryError(f"cannot set tactic {tactic} of op '{op}' in {library.path}")


# ---- the direct path of eager calls ---------------------------------------------------------

_eager_modules: Dict[str, Any] = {}


def _eager_module(library: Library) -> Optional[Any]:
    """The module built beside the library (libNAME_eager.so), or None where it was not built.
    With _lock held."""
    if library.path not in _eager_modules:
        base, extension = os.path.splitext(library.path)
        path = base + "_eager" + extension
        module = None
        if os.path.exists(path):
            spec = importlib.util.spec_from_file_location("_autoplugin_eager", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        _eager_modules[library.path] = module
    return _eager_modules[library.path]


def _direct_op(module, call_address, handle, target, name):
    """The op's function from the direct module; torch.compile traces `target` in its place."""
    function = module.op(call_address, handle, target, name)

    def traced(*args, **kwargs):
        return target(*args, **kwargs)

    torch.compiler.substitute_in_graph(function, skip_signature_check=True)(traced)
    return function


_direct_namespaces: Dict[str, types.SimpleNamespace] = {}


class _WithOverloads:
    """An op whose name has overloads too, as torch.ops has it: called, the op; its attributes,
    the overloads."""

    def __init__(self, default, overloads):
        self._default = default
        self.__dict__.update(overloads)

    def __call__(self, *args, **kwargs):
        return self._default(*args, **kwargs)


def direct_ops(library: Library) -> types.SimpleNamespace:
    """The library's ops for eager calls from Python, as ``torch.ops`` names them
    (``direct_ops(lib).my_ns.my_op(x, ...)``), each the op itself where PyTorch's dispatcher would
    only pass the call on to its CUDA kernel: then the call goes straight to the kernel, without
    the dispatcher and the conversion of the arguments against the schema (PyTorch's cost of any
    call through ``torch.ops``). That is a call with positional arguments only, every tensor a
    contiguous ``torch.Tensor`` (or ``nn.Parameter``) on one CUDA device, none needing a gradient
    (or grad mode off), no torch function or dispatch mode, autocast, profiler, vmap or tracer
    active, of an op that writes no input in place, with the signature (dtypes, extents,
    attribute values) of an earlier call through ``torch.ops``. Every other call, and every call
    under torch.compile, is ``torch.ops``' own: results and errors are the same either way.
    Where the library was built without its direct module (``libNAME_eager.so``: it needs
    Python's development headers), or PyTorch is older than 2.5 (no
    ``torch.compiler.substitute_in_graph``), each op is ``torch.ops``'. The same object for the
    same library.
    """
    with _lock:
        if library.path not in _direct_namespaces:
            _direct_namespaces[library.path] = _make_direct_ops(library)
        return _direct_namespaces[library.path]


def _make_direct_ops(library: Library) -> types.SimpleNamespace:
    module = _eager_module(library)
    if not hasattr(torch.compiler, "substitute_in_graph"):
        module = None
    direct_op = getattr(library._dll, "autoplugin_torch_v1_direct_op", None)
    if module is not None and direct_op is not None:
        direct_op.restype = ctypes.c_void_p
        direct_op.argtypes = [ctypes.c_char_p]
        call_address = ctypes.cast(library._dll.autoplugin_torch_v1_direct_call,
                                   ctypes.c_void_p).value
    # ns -> op name -> overload ("" for none) -> function
    functions: Dict[str, Dict[str, Dict[str, Any]]] = {}
    for name in library.ops:
        namespace, op_name = name.split("::", 1)
        base, _, overload = op_name.partition(".")
        packet = getattr(getattr(torch.ops, namespace), base)
        target = getattr(packet, overload) if overload else packet
        handle = direct_op(name.encode()) if module is not None and direct_op is not None else None
        function = (_direct_op(module, call_address, handle, target, op_name)
                    if handle else target)
        functions.setdefault(namespace, {}).setdefault(base, {})[overload] = function
    namespaces = {}
    for namespace, ops in functions.items():
        members = {}
        for base, overloads in ops.items():
            # An op and its overloads as torch.ops has them: ns.name(...), ns.name.overload(...)
            default = overloads.pop("", None)
            if default is None:
                members[base] = types.SimpleNamespace(**overloads)
                continue
            direct = not isinstance(default, torch._ops.OpOverloadPacket)
            members[base] = _WithOverloads(default, overloads) if direct and overloads else default
        namespaces[namespace] = types.SimpleNamespace(**members)
    return types.SimpleNamespace(**namespaces)


def direct_calls(library: Library) -> Optional[int]:
    """How many eager calls of the library's ops took the direct path (``direct_ops``) so far, or
    None where the library has no direct module."""
    with _lock:
        module = _eager_module(library)
    return module.direct_calls() if module is not None else None


# ---- evaluating a shape program over symbolic integers ----------------------------------------

class _Condition:
    """A 0/1 node (TensorRT's EQUAL/LESS, and PROD/MAX/SUB(1, ...) of them) kept as PyTorch's
    (Sym)Bool, so that a requirement reaches torch._check as the comparison itself: torch.export
    then turns it into a guard or a range, which it cannot do with an integer 0/1 form."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _as_int(value) -> Any:
    """A node's integer value: 1 or 0 for a condition."""
    if not isinstance(value, _Condition):
        return value
    if isinstance(value.value, bool):
        return int(value.value)
    return torch.sym_ite(value.value, 1, 0)


def _both(a, b):
    if isinstance(a, bool):
        return b if a else False
    if isinstance(b, bool):
        return a if b else False
    return a & b


def _either(a, b):
    if isinstance(a, bool):
        return True if a else b
    if isinstance(b, bool):
        return True if b else a
    return a | b


def _on_ints(operation):
    return lambda a, b: operation(_as_int(a), _as_int(b))


def _conditions_or(logical, arithmetic):
    """`logical` when both operands are conditions, else `arithmetic` on their integer values."""
    def apply(a, b):
        if isinstance(a, _Condition) and isinstance(b, _Condition):
            return _Condition(logical(a.value, b.value))
        return arithmetic(_as_int(a), _as_int(b))
    return apply


def _subtract(a, b):
    if isinstance(b, _Condition) and not isinstance(a, _Condition) and a == 1:
        return _Condition(torch.sym_not(b.value))  # !b is lowered to 1 - b
    return _as_int(a) - _as_int(b)


_SYMBOLIC_OPERATIONS = {name: _on_ints(operation)
                        for name, operation in _program.INT_OPERATIONS.items()}
_SYMBOLIC_OPERATIONS.update(
    PROD=_conditions_or(_both, lambda a, b: a * b),  # a && b is lowered to a * b
    MAX=_conditions_or(_either, torch.sym_max),  # a || b is lowered to max(a, b)
    MIN=_on_ints(torch.sym_min),
    SUB=_subtract,
    EQUAL=_on_ints(lambda a, b: _Condition(a == b)),
    LESS=_on_ints(lambda a, b: _Condition(a < b)),
)


def _check(condition: Any, message: str, op: str) -> None:
    condition = condition.value if isinstance(condition, _Condition) else condition != 0
    if isinstance(condition, bool):
        if not condition:
            raise RuntimeError(f"op '{op}': requirement failed: {message}")
        return
    torch._check(condition, lambda: f"op '{op}': requirement failed: {message}")


def _call_parts(op: Dict[str, Any], args: Tuple[Any, ...], kwargs: Dict[str, Any]):
    bound = _fields.bind_call(op, args, kwargs)
    tensors, shape_inputs, attributes = [], [], {}
    for argument in op["arguments"]:
        name = argument["name"]
        if argument["kind"] == "tensor":
            tensors.append(bound.get(name))
        elif argument["kind"] == "shape_input":
            value = bound.get(name)
            shape_inputs.append(list(value) if isinstance(value, (list, tuple)) else [value])
        elif name in bound:
            attributes[name] = bound[name]
    return tensors, shape_inputs, attributes


def _fake_implementation(library: Library, op: Dict[str, Any]):
    name = op["name"]
    programs: Dict[Tuple, Dict[str, Any]] = {}

    def fake(*args, **kwargs):
        tensors, shape_inputs, attributes = _call_parts(op, args, kwargs)
        fields = _fields.encode_attributes(op, attributes)
        ranks = [-1 if t is None else t.dim() for t in tensors]
        dtypes = ["" if t is None else _fields.dtype_name(t.dtype) for t in tensors]
        lengths = [len(values) for values in shape_inputs]
        key = (tuple(ranks), tuple(dtypes), tuple(lengths), tuple(fields))
        if key not in programs:
            try:
                programs[key] = library.shape_program(name, ranks, dtypes, lengths, fields)
            except LibraryError as error:
                raise RuntimeError(str(error)) from None
        program = programs[key]
        def size_tensor(index, opt, upper):
            # Only data-dependent ops ask for the context: plain ones also run on meta tensors.
            count = torch.library.get_ctx().new_dynamic_size()
            torch._check(count <= upper)
            return count

        values = _program.evaluate(program, [t.shape if t is not None else () for t in tensors],
                                   shape_inputs, size_tensor, _SYMBOLIC_OPERATIONS)
        for requirement in program["requirements"]:
            _check(values[requirement["condition"]], requirement["message"], name)
        device = next(t.device for t in tensors if t is not None)
        results = []
        for j, output in enumerate(program["outputs"]):
            aliased = op["outputs"][j]["aliases_input"]
            if aliased >= 0:
                results.append(tensors[aliased])
                continue
            shape = [_as_int(extent) for extent in _program.output_shapes(program, values)[j]]
            dtype = getattr(torch, output["dtype"])
            results.append(torch.empty(shape, dtype=dtype, device=device))
        return results[0] if len(results) == 1 else tuple(results)

    fake.__name__ = f"autoplugin_fake_{op['plugin_name']}"
    return fake
