"""The kernels of a host-code run executed in Triton's interpreter on the CPU, every load, store
and atomic checked against the tensors the launch was given.

The host code runs on fake tensors (host.py) and a kernel's launch is recorded, not run; nothing
in the fake or the host code then tells a plugin that a size must not shrink below what the
kernel reads (Liger's Llama 4 RoPE reads a pair of reals per frequency, `freqs[..., 2]`, through
a row stride alone). Run at small sizes, a launch's kernel here reads and writes zero-filled CPU
copies of its tensors (one per storage, views sharing it), and an address outside all of them is
a stray access, named by the tensor it runs past. A run whose launches have too many programs to
interpret quickly, or that the interpreter cannot run (an extern library call, a kernel defined
in a closure), gives no verdict: never a failure.
"""
import ast
import contextlib
import math
import warnings
from dataclasses import dataclass

import numpy as np
import torch
import triton.language as tl
from triton.runtime import interpreter
from triton.runtime.jit import JITFunction

from .host import storage_key

# Programs (summed over a run's launches) interpreted at most; a run with more gives no verdict.
MAX_PROGRAMS = 256
# Bytes of tensors a run's launches are given at most.
MAX_BYTES = 1 << 26


@dataclass
class StrayAccess:
    """A kernel's access outside every tensor of its launch."""
    kernel: str
    where: str  # the launch's line in the op's module
    access: str  # "reads", "writes"
    tensor: str  # what it runs past: an input's name, "output 0", or a buffer the host makes
    element: int  # the first stray element, counted from the tensor's start
    elements: int  # the tensor's elements

    @property
    def text(self):
        return (f"kernel '{self.kernel}' ({self.where}) {self.access} element {self.element} of "
                f"{self.tensor}, which has {self.elements}")


class _Stray(Exception):
    def __init__(self, address, access):
        super().__init__(address, access)
        self.address, self.access = address, access


class NoVerdict(Exception):
    """A run too large to interpret, or with a kernel the interpreter cannot run."""


def stray_access(run):
    """The first access of `run`'s kernels (a host.HostRun) outside the tensors each launch is
    given, a StrayAccess; None where every access is inside. Raises NoVerdict where the run
    cannot be judged."""
    launches = _interpreted_launches(run.records)
    if sum(math.prod(int(g) for g in r.grid) for r in launches) > MAX_PROGRAMS:
        raise NoVerdict()
    storages = {}
    for record in launches:
        for value in record.arguments.values():
            if isinstance(value, torch.Tensor):
                storages.setdefault(storage_key(value), value)
    if sum(t.untyped_storage().nbytes() for t in storages.values()) > MAX_BYTES:
        raise NoVerdict()
    buffers = {key: torch.zeros(max(1, t.untyped_storage().nbytes()), dtype=torch.uint8)
               for key, t in storages.items()}
    names = _tensor_names(run, storages)
    for record in launches:
        arguments = {name: _on_cpu(value, buffers) for name, value in record.arguments.items()}
        ranges = sorted((buffers[key].data_ptr(), buffers[key].data_ptr() + buffers[key].numel(),
                         key) for key in {storage_key(v) for v in record.arguments.values()
                                          if isinstance(v, torch.Tensor)})
        try:
            with _checked_accesses(ranges):
                _interpret(record, arguments)
        except Exception as error:  # noqa: BLE001 - what the interpreter cannot run: no verdict
            stray = _stray_cause(error)
            if stray is None:
                raise NoVerdict() from error
            return _described(stray, record, ranges, storages, names)
    return None


def _stray_cause(error):
    """The _Stray an error of the interpreter wraps (it re-raises what a kernel raises as an
    InterpreterError from it), or None."""
    while error is not None and not isinstance(error, _Stray):
        error = error.__cause__ or error.__context__
    return error


def _interpreted_launches(records):
    """The launches to interpret: each autotuned launch by its first config (every config's
    accesses follow the same sizes; interpreting each would multiply the cost)."""
    return [record for record in records if record.config is None or record.config.index == 0]


def _tensor_names(run, storages):
    """storage key -> what the user knows the tensor by."""
    names = {}
    for name, tensor in run.inputs.items():
        names.setdefault(storage_key(tensor), name)
    for index, tensor in enumerate(run.outputs):
        names.setdefault(storage_key(tensor), f"output {index}")
    for key, made in run.made.items():
        names.setdefault(key, f"the buffer made at {made[1]} ({made[2]})")
    return {key: names.get(key, "a tensor of the launch") for key in storages}


def _on_cpu(value, buffers):
    """A fake tensor as a CPU view of its storage's buffer (same offset, shape and strides)."""
    if not isinstance(value, torch.Tensor):
        return value
    view = torch.empty(0, dtype=value.dtype)
    view.set_(buffers[storage_key(value)].untyped_storage(), value.storage_offset(),
              tuple(value.shape), tuple(value.stride()))
    return view


@contextlib.contextmanager
def _checked_accesses(ranges):
    """The interpreter's memory operations check each unmasked address against `ranges`
    ((start, end, key), sorted) before they run."""
    builder = interpreter.interpreter_builder
    starts = np.array([start for start, _, _ in ranges], dtype=np.uint64)
    ends = np.array([end for _, end, _ in ranges], dtype=np.uint64)

    def check(pointers, mask, size, access):
        addresses = np.asarray(pointers, dtype=np.uint64).ravel()
        if mask is not None:
            addresses = addresses[np.broadcast_to(np.asarray(mask, dtype=bool),
                                                  np.shape(pointers)).ravel()]
        if addresses.size == 0:
            return
        index = np.searchsorted(starts, addresses, side="right").astype(np.int64) - 1
        inside = (index >= 0) & (addresses + np.uint64(size) <=
                                 ends[np.maximum(index, 0)])
        if not inside.all():
            raise _Stray(int(addresses[~inside][0]), access)

    def load(ptrs, mask, other, *rest):
        check(ptrs.data, mask.data, ptrs.get_element_ty().itemsize, "reads")
        return original_load(ptrs, mask, other, *rest)

    def store(ptrs, value, mask, *rest):
        check(ptrs.data, mask.data, value.data.dtype.itemsize, "writes")
        return original_store(ptrs, value, mask, *rest)

    def atomic_rmw(op, ptr, val, mask, *rest):
        check(ptr.data, mask.data, val.data.dtype.itemsize, "writes")
        return original_rmw(op, ptr, val, mask, *rest)

    def atomic_cas(ptr, cmp, val, *rest):
        check(ptr.data, None, val.data.dtype.itemsize, "writes")
        return original_cas(ptr, cmp, val, *rest)

    original_load, original_store = builder.create_masked_load, builder.create_masked_store
    original_rmw, original_cas = builder.create_atomic_rmw, builder.create_atomic_cas
    builder.create_masked_load, builder.create_masked_store = load, store
    builder.create_atomic_rmw, builder.create_atomic_cas = atomic_rmw, atomic_cas
    try:
        # Zero-filled inputs make NaNs and empty reductions that warn, which say nothing here.
        with np.errstate(all="ignore"), warnings.catch_warnings(), _helpers_interpreted(), \
                _language_kept():
            warnings.simplefilter("ignore")
            yield
    finally:
        for name in ("create_masked_load", "create_masked_store", "create_atomic_rmw",
                     "create_atomic_cas"):
            builder.__dict__.pop(name, None)


@contextlib.contextmanager
def _language_kept():
    """triton.language as it was before: the interpreter patches its functions and classes for a
    kernel and restores them, but not those it patches for a helper it calls, and a kernel
    compiled later (trials.py) would get the interpreter's."""
    patched = [tl, tl.core, tl.math, tl.core.tensor, tl.core.dtype, tl.core.condition,
               tl.core.tensor_descriptor_base]
    before = [dict(vars(space)) for space in patched]
    try:
        yield
    finally:
        for space, names in zip(patched, before):
            for name in [n for n in vars(space) if n not in names]:
                delattr(space, name)
            for name, value in names.items():
                if vars(space).get(name, _ABSENT) is not value:
                    setattr(space, name, value)


_ABSENT = object()


@contextlib.contextmanager
def _helpers_interpreted():
    """A @triton.jit helper the kernel calls runs interpreted too (outside the interpreter a
    JITFunction refuses a call from Python)."""
    original = JITFunction.__call__
    interpreted = {}  # by id: a JITFunction's hash compiles its source's dependencies

    def call(self, *args, **kwargs):
        if id(self) not in interpreted:
            interpreted[id(self)] = _interpreted(self.fn)
        return interpreted[id(self)](*args, **kwargs)

    JITFunction.__call__ = call
    try:
        yield
    finally:
        JITFunction.__call__ = original


def _interpreted(fn):
    """Triton's interpreted function of `fn`, its `and`, `or` and `not` read as Triton's compiler
    reads them."""
    function = interpreter.InterpretedFunction(fn)
    function.rewriter.ast_transformer = _BooleanOperators()
    fn.__globals__.update(_BOOLEAN_HELPERS)
    return function


class _BooleanOperators(interpreter.ASTTransformer):
    """`a and b`, `a or b` and `not a` on tensors element-wise, as Triton's compiler reads them
    (Python's take a tensor of several elements as true: FlagGems' mask `offset_c < C and
    offset_d < D` would lose its first half)."""

    def visit_BoolOp(self, node):
        node = self.generic_visit(node)
        helper = "_autoplugin_and" if isinstance(node.op, ast.And) else "_autoplugin_or"
        no_arguments = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[],
                                     defaults=[])
        thunks = [ast.Lambda(args=no_arguments, body=value) for value in node.values]
        return ast.copy_location(ast.Call(func=ast.Name(id=helper, ctx=ast.Load()), args=thunks,
                                          keywords=[]), node)

    def visit_UnaryOp(self, node):
        node = self.generic_visit(node)
        if not isinstance(node.op, ast.Not):
            return node
        return ast.copy_location(ast.Call(func=ast.Name(id="_autoplugin_not", ctx=ast.Load()),
                                          args=[node.operand], keywords=[]), node)


def _boolean(combine, stops):
    """`and` (stops at a false value) or `or` (at a true one) over thunks: a tensor operand
    combines the rest element-wise, as Triton's compiler does (no short circuit past it)."""
    def apply(*thunks):
        result = thunks[0]()
        for thunk in thunks[1:]:
            if isinstance(result, tl.tensor):
                result = combine(result, thunk())
            elif bool(result) == stops:
                return result
            else:
                result = thunk()
        return result
    return apply


_BOOLEAN_HELPERS = {
    "_autoplugin_and": _boolean(lambda a, b: a.logical_and(b), False),
    "_autoplugin_or": _boolean(lambda a, b: a.logical_or(b), True),
    "_autoplugin_not": lambda value: value.__not__() if isinstance(value, tl.tensor) else not value,
}


def _interpret(record, arguments):
    _interpreted(record.kernel.fn).run(grid=tuple(int(g) for g in record.grid), warmup=False,
                                       **arguments)


def _described(stray, record, ranges, storages, names):
    """The StrayAccess of an address: past the end of the tensor that starts below it nearest
    (before the first: the first)."""
    below = [r for r in ranges if r[0] <= stray.address]
    start, _, key = below[-1] if below else ranges[0]
    tensor = storages[key]
    size = tensor.element_size()
    return StrayAccess(record.kernel.fn.__name__, record.where, stray.access, names[key],
                       (stray.address - start - tensor.storage_offset() * size) // size,
                       tensor.numel())
