"""The op's host code run on fake CUDA tensors: every `kernel[grid](...)` intercepted and recorded
(the kernel does not run), each tensor's creation and each write by PyTorch noted, failures
located in the user's code, and the points (shapes and attribute values) to run it at sampled.

The host code (the custom op's body) runs on PyTorch's FakeTensorMode (shapes, dtypes and device
"cuda", no memory and no GPU), with `torch.cuda`'s device queries answered as a GPU of the target
architecture would (fake_cuda.py). Host code that asserts it is on a GPU runs as it would there;
host code that reads tensor contents (`.item()`, `float(t)`) is refused, since a plugin computes
its launches from shapes and attributes only.
"""
import contextlib
import re
import subprocess
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import torch
import triton
from torch._library.custom_ops import _maybe_get_opdef

from . import autotune, layout_copy
from .discover import library_kernel
from .errors import GenerationError
from .fake_cuda import MAX_SHARED_MEMORY, cuda_patched
from .points import holds, point_like, point_values, satisfy, tie, tied_extents
from .records import RecordedLaunch, input_dtype, launch_site, shape_numel


class Site(NamedTuple):
    """A line the host code ran: its file (as shown to the user), number and text."""
    path: str
    lineno: int
    code: str

    @property
    def location(self):
        return f"{self.path}:{self.lineno}"


def sites_text(sites):
    """` at glue.py:12 (Y = forward(X)), in flag_gems/ops/softmax.py:276 (assert ...)`, or ""."""
    return (" at " + ", in ".join(f"{s.location} ({s.code})" for s in sites)) if sites else ""


class HostFailure(Exception):
    """The host code raised at a sampled point (an assertion about the sizes, ...); `sites`:
    the line of the op's module and the library line it failed at (failure_sites)."""

    def __init__(self, shapes, sites, error):
        super().__init__(f"{shapes}{sites_text(sites)}: {error_text(error)}")
        self.shapes, self.sites, self.error = shapes, sites, error

    @property
    def where(self):
        return sites_text(self.sites)


def error_text(error):
    """`AssertionError: text`, or the type alone where the error has no text (`assert a <= b`)."""
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


# The recorder of the host code's run in progress: a kernel warmed up in an earlier run and kept
# by the host code (the tutorial caches them per block size) records into the current run.
_RECORDERS = []


@contextlib.contextmanager
def intercepted_launches(records, module_path):
    from triton.runtime.jit import JITFunction
    original = JITFunction.run

    def record(function, args, kwargs, grid, options):
        args = tuple(_as_tensor(value) for value in args)
        kwargs = {name: _as_tensor(value) for name, value in kwargs.items()}
        where, line = launch_site(module_path)
        names = [p.name for p in function.params]
        bound = function.signature.bind_partial(*args, **{k: v for k, v in kwargs.items()
                                                          if k in names})
        bound.apply_defaults()
        arguments = {name: bound.arguments[name] for name in names if name in bound.arguments}
        missing = [name for name in names if name not in arguments]
        if missing:
            raise GenerationError(f"{where}: launch of '{function.fn.__name__}' passes no value "
                                  f"for {', '.join(missing)}: pass every parameter that has no "
                                  "default")
        described = [n for n, v in arguments.items() if type(v).__name__ == "TensorDescriptor"]
        if described:
            raise GenerationError(f"{where}: launch of '{function.fn.__name__}' passes "
                                  f"{', '.join(described)} as a tensor descriptor made on the "
                                  "host (TensorDescriptor.from_tensor), which is not generated: "
                                  "pass the tensor, its shape and strides, and make the "
                                  "descriptor in the kernel (tl.make_tensor_descriptor)")
        if callable(grid):
            grid = grid(dict(arguments))
        grid = tuple(grid) if isinstance(grid, (tuple, list)) else (grid,)
        records.append(RecordedLaunch(function, grid, arguments, options, where, line))

    def run(self, *args, grid, warmup, **kwargs):
        names = [p.name for p in self.params]
        options = {k: v for k, v in kwargs.items() if k not in names}
        if warmup:
            # Triton's fused-softmax tutorial: compiled, its registers and shared memory read
            # (the occupancy), then launched through the compiled kernel.
            compiled = original(self, *args, grid=grid, warmup=True, **kwargs)
            return _WarmedUpKernel(self, args, kwargs, options, compiled)
        record(self, args, kwargs, grid, options)
        return _LaunchedKernel(self, args, kwargs, options)

    from triton.runtime.autotuner import Autotuner

    def autotuned(self, *args, **kwargs):
        autotune.launch_each_config(self, args, kwargs, records, module_path)
        # (what Triton's autotuner leaves for host code that reads it: FlagGems' LibEntry)
        self.best_config = self.configs[0]

    replaced = [(cls, "run", cls.__dict__["run"]) for cls in _with_subclasses(Autotuner)
                if "run" in cls.__dict__]
    for cls, _, _ in replaced:
        cls.run = autotuned
    replaced += _uncached_launch_entries()
    JITFunction.run = run
    _RECORDERS.append(record)
    try:
        yield
    finally:
        _RECORDERS.pop()
        JITFunction.run = original
        for cls, name, function in replaced:
            setattr(cls, name, function)


def _with_subclasses(cls):
    """`cls` and its subclasses, theirs too: a library's autotuner (FlagGems' LibTuner, fla's
    CachedAutotuner) runs its configs as Triton's does."""
    found = [cls]
    for subclass in cls.__subclasses__():
        found += _with_subclasses(subclass)
    return found


def _uncached_launch_entries():
    """A library's own launch entry (a triton.KernelInterface outside Triton, as FlagGems'
    LibEntry) keeps the kernel its first launch compiled per argument key and relaunches it at
    later calls with the autotuner's best config; while the host code is sampled, each call
    must go through the autotuner (one launch per config), so its caches are emptied first.
    Returns (class, "run", the original) for each patched."""
    from triton.runtime.jit import KernelInterface
    patched = []
    for cls in _with_subclasses(KernelInterface):
        if cls.__module__.startswith("triton.") or "run" not in cls.__dict__:
            continue
        original_run = cls.__dict__["run"]

        def uncached(self, *args, _run=original_run, **kwargs):
            for name, value in vars(self).items():
                if "cache" in name:
                    for cache in (value if isinstance(value, (tuple, list)) else [value]):
                        if isinstance(cache, dict):
                            cache.clear()
            return _run(self, *args, **kwargs)

        cls.run = uncached
        patched.append((cls, "run", original_run))
    return patched


def _as_tensor(value):
    """A buffer object that Triton takes as a pointer (anything with `data_ptr()` and a dtype:
    FlagGems' StridedBuffer) made over one tensor, as that tensor's view with the object's
    shape, strides and offset, so that its launch is recovered as the tensor's; anything else
    as it is."""
    if isinstance(value, torch.Tensor) or not (callable(getattr(value, "data_ptr", None)) and
                                               isinstance(getattr(value, "dtype", None),
                                                          torch.dtype)):
        return value
    bases = [v for v in vars(value).values() if isinstance(v, torch.Tensor)]
    if len(bases) != 1:
        return value
    base = bases[0]
    try:
        shape = tuple(value.shape)
        strides = tuple(value.stride())
        offset = int(getattr(value, "offset", 0) or 0)
        typed = base if value.dtype == base.dtype else base.view(value.dtype)
        return typed.as_strided(shape, strides, typed.storage_offset() + offset)
    except (AttributeError, RuntimeError, TypeError, ValueError):
        return value


class _LaunchedKernel:
    """What a launch gives host code traced without a GPU (Triton's: the compiled kernel), for
    host code that keeps it and launches it again (FlagGems' LibEntry cache:
    `kernel[grid](*arguments_but_the_constexprs)`): recorded as a launch of the kernel with the
    first launch's constexprs and options."""

    def __init__(self, function, args, kwargs, options):
        names = [p.name for p in function.params]
        bound = function.signature.bind_partial(
            *args, **{k: v for k, v in kwargs.items() if k in names})
        bound.apply_defaults()
        self._constexprs = {p.name: bound.arguments[p.name] for p in function.params
                            if p.is_constexpr and p.name in bound.arguments}
        self._function, self._options = function, options

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            runtime = [p.name for p in self._function.params if not p.is_constexpr]
            if len(args) == len(runtime) and len(runtime) < len(self._function.params):
                kwargs = {**dict(zip(runtime, args)), **self._constexprs, **kwargs}
                args = ()
            _RECORDERS[-1](self._function, args, kwargs, grid, dict(self._options))
        return launch


class _WarmedUpKernel(_LaunchedKernel):
    """What `kernel.warmup(...)` gives host code traced without a GPU: the kernel compiled for
    the GPU generated for, with the register count loading it would report (`n_regs`, read from
    the cubin by Triton's cuobjdump), and `kernel[grid](...)` recorded as a launch of the kernel
    with the warmup's launch options."""

    def __init__(self, function, args, kwargs, options, compiled):
        super().__init__(function, args, kwargs, options)
        self._compiled = compiled
        self.metadata = compiled.metadata
        self.name = compiled.name
        self.asm = compiled.asm
        self.n_regs = _register_count(compiled)
        self.n_spills = 0

    def _init_handles(self):
        # As Triton's own: a kernel that needs more shared memory than the GPU has does not load
        # (the tutorial's 65,536-wide float32 rows with 4 stages), so the host code refuses that
        # size rather than computing an occupancy of 0 programs from it.
        from triton.runtime.errors import OutOfResources
        if self.metadata.shared > MAX_SHARED_MEMORY:
            raise OutOfResources(self.metadata.shared, MAX_SHARED_MEMORY, "shared memory")


def _register_count(compiled):
    """Registers per thread of a compiled kernel, as `cuobjdump --dump-resource-usage` (Triton's
    own) reads them from its cubin."""
    import tempfile
    import triton.backends.nvidia as nvidia
    tool = Path(nvidia.__file__).parent / "bin" / "cuobjdump"
    with tempfile.NamedTemporaryFile(suffix=".cubin") as cubin:
        cubin.write(compiled.asm["cubin"])
        cubin.flush()
        result = subprocess.run([str(tool), "--dump-resource-usage", cubin.name],
                                capture_output=True, text=True)
    found = re.search(r"REG:(\d+)", result.stdout)
    if found is None:
        raise GenerationError(f"the register count of '{compiled.name}' could not be read "
                              f"({tool}: {result.stderr.strip() or 'no REG: line'})")
    return int(found.group(1))


EMPTY_ALLOCATIONS = {"empty", "empty_like", "new_empty", "empty_strided", "new_empty_strided"}


# Views that move axes: a contiguous tensor of their values is a copy in another layout.
PERMUTING_VIEWS = {"transpose", "permute", "movedim", "moveaxis", "swapaxes", "swapdims", "t",
                   "transpose_", "t_"}


# What copies a view in another layout into a new contiguous buffer (a reshape where PyTorch
# copies): the plugin's layout_copy kernel does, into its workspace. Such a buffer is an
# allocation its kernel fills.
LAYOUT_COPYING = {"contiguous", "reshape", "flatten"}


ZERO_ALLOCATIONS = {"zeros", "zeros_like", "new_zeros"}


# What makes a storage the plugin allocates (in its workspace, or an output) and its kernels fill.
ALLOCATIONS = EMPTY_ALLOCATIONS | ZERO_ALLOCATIONS | LAYOUT_COPYING


def moves_axes(func, source, args, kwargs):
    """Whether a permuting view (`permute`, `transpose`, ...) called so moves an axis of `source`:
    FlagGems' `dim_compress` reducing a matrix's last axis permutes it as `(0, 1)`, which keeps
    the layout (and its `.contiguous()` copies nothing). Decided on a tensor of `source`'s rank
    whose extents are all different, so that the answer is the same at every size."""
    extents = tuple(range(2, source.dim() + 2))
    moved = func(torch.empty(extents, device="meta"), *args[1:], **(kwargs or {}))
    return tuple(moved.shape) != extents


def storage_key(tensor):
    return tensor.untyped_storage()._cdata


# Python's in-place operators on tensors (`losses += lse`, `out[mask] = 0`)
IN_PLACE_OPERATORS = {"__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__",
                      "__imod__", "__ipow__", "__iand__", "__ior__", "__ixor__", "__setitem__"}


# Methods named like in-place ops that write no elements
NOT_WRITES = {"requires_grad_", "share_memory_", "resize_", "as_strided_", "record_stream_"}


def python_implementation(func):
    """The Python function a library's op runs on CUDA tensors, for `func` an overload of one or
    the op itself (`torch.ops.ns.name`): an op defined with `torch.library.custom_op` (the
    function registered for CUDA, else for every device), or one whose Python kernel an imported
    module registered with `Library.impl` (discover.library_kernel); None for any other
    function (an ATen op, an op implemented in C++) and for an op with no Python for CUDA."""
    if isinstance(func, torch._ops.OpOverloadPacket):
        name = func._qualified_op_name
    elif isinstance(func, torch._ops.OpOverload):
        name = func._name
    else:
        return None
    definition = _maybe_get_opdef(name)
    if definition is None:
        return library_kernel(name)
    return definition._backend_fns.get("cuda") or definition._backend_fns.get(None)


class _Creations(torch.overrides.TorchFunctionMode):
    """Which torch function, at which line of the op's module, first made each storage, and
    which wrote into one (`out.zero_()`, `losses += lse`, `out=`): a plugin runs the kernels
    only."""

    def __init__(self, module_path, records):
        super().__init__()
        self.module_path = module_path
        self.records = records  # the launches so far
        # storage key -> (function name, where, line, tensor); holding the tensor keeps its
        # storage, so that no key is reused during the run
        self.made = {}
        self.writes = []  # (storage key, function name, where, line, launches before it)
        self.copies = {}  # storage key -> the storage it is a copy of (clone, copy_ before launches)
        self.permuted = {}  # id -> tensor: views whose axes are not in their storage's order
        self.layout_copies = []  # (output index or None, where, line) of each copy recorded

    def __torch_function__(self, func, types, args=(), kwargs=None):
        implementation = python_implementation(func)
        if implementation is not None:
            # A library op the host code calls through torch.ops (torchao's blockwise FP8
            # GEMM): its Python implementation runs, not its fake, so that its kernels and
            # allocations are the host code's own.
            with self:
                return implementation(*args, **(kwargs or {}))
        name = getattr(func, "__name__", str(func))
        written = list((kwargs or {}).get("out") or []) if isinstance(
            (kwargs or {}).get("out"), (tuple, list)) else [(kwargs or {}).get("out")]
        if args and isinstance(args[0], torch.Tensor) and (
                name in IN_PLACE_OPERATORS or name.endswith("_") and not name.startswith("_")
                and name not in NOT_WRITES):
            written.append(args[0])
        for tensor in written:
            if isinstance(tensor, torch.Tensor):
                where, line = launch_site(self.module_path)
                self.writes.append((storage_key(tensor), name, where, line, len(self.records)))
        source = args[0] if args and isinstance(args[0], torch.Tensor) else None
        if name == "contiguous" and source is not None and self.needs_layout_copy(source) and \
                (kwargs or {}).get("memory_format", torch.contiguous_format) is \
                torch.contiguous_format:
            return self.copied_layout(name, source, torch.empty(
                source.shape, dtype=source.dtype, device=source.device))
        result = func(*args, **(kwargs or {}))
        if name in LAYOUT_COPYING and source is not None and isinstance(result, torch.Tensor) \
                and storage_key(result) != storage_key(source):
            return self.copied_layout(name, source, result)
        if source is not None and isinstance(result, torch.Tensor) and (
                id(source) in self.permuted or
                name in PERMUTING_VIEWS and moves_axes(func, source, args, kwargs)) and \
                storage_key(result) == storage_key(source):
            self.permuted[id(result)] = result
        if name == "clone" and args and isinstance(args[0], torch.Tensor) and isinstance(
                result, torch.Tensor):
            self.copies[storage_key(result)] = storage_key(args[0])
        if (name == "copy_" and len(args) > 1 and isinstance(args[1], torch.Tensor) and
                not self.records):
            self.copies[storage_key(args[0])] = storage_key(args[1])
        tensors = result if isinstance(result, (tuple, list)) else [result]
        for tensor in tensors:
            if isinstance(tensor, torch.Tensor):
                key = storage_key(tensor)
                if key not in self.made:
                    where, line = launch_site(self.module_path)
                    self.made[key] = (getattr(func, "__name__", str(func)), where, line,
                                      tensor)
        return result

    def needs_layout_copy(self, tensor):
        """Whether a contiguous tensor of `tensor`'s values is a copy in another layout: it is
        not contiguous, or it is a permuted view (contiguous only because an axis it moved has
        one element: at other sizes it is not, and the launches must be the same at every
        size)."""
        return not tensor.is_contiguous() or id(tensor) in self.permuted

    def copied_layout(self, name, source, result, site=None, output=None):
        """`x.contiguous()` (or a reshape that copies, or output `output` returned as a view in
        another layout) of `source`: `result`, a new contiguous buffer made by `name` at `site`
        (where, line; default the op's line running), filled by a recorded launch of
        `layout_copy` (the plugin's kernel does that copy)."""
        where, line = site or launch_site(self.module_path)
        grid, arguments = layout_copy.launch_arguments(source, result.view(source.shape))
        self.records.append(RecordedLaunch(layout_copy.layout_copy, grid, arguments,
                                           {"num_warps": 4}, where, line))
        self.layout_copies.append((output, where, line))
        self.made[storage_key(result)] = (name, where, line, result)
        return result


@dataclass(eq=False)
class HostRun:
    records: list  # RecordedLaunch
    inputs: dict  # name -> tensor (absent optional inputs left out)
    outputs: list  # what the host code returns (for an in-place op: the inputs it writes)
    made: dict  # storage key -> (function, where, line, tensor) of what the host code made
    writes: list  # (storage key, function, where, line, launches before) of torch's writes
    copies: dict  # storage key -> the storage it copies (x.clone(), out.copy_(x) first)
    point: dict  # the sizes and attributes it ran at


def run_body(op, point, dtype, arch=90, notes=None):
    """Runs the op's host code at `point` on fake CUDA tensors of `dtype`."""
    from torch._subclasses.fake_tensor import (DataDependentOutputException,
                                               DynamicOutputShapeException, FakeTensorMode)
    records = []
    creations = _Creations(op.module_path, records)
    notes = set() if notes is None else notes
    with FakeTensorMode(), cuda_patched(arch, notes):
        call, inputs = {}, {}
        for argument in op.arguments:
            value = point[argument.name]
            if argument.kind == "Tensor" and value is not None:
                call[argument.name] = inputs[argument.name] = torch.empty(
                    value, dtype=input_dtype(argument, dtype), device="cuda")
            else:
                call[argument.name] = value
        shapes = {k: list(v.shape) for k, v in inputs.items()}
        attributes = {a.name: point[a.name] for a in op.attributes}
        with intercepted_launches(records, op.module_path), creations:
            try:
                # As PyTorch calls it: positional arguments by position (a wrapper such as
                # Liger's `ensure_contiguous` may rename them), keyword-only ones by name.
                result = op.body(*[call[a.name] for a in op.arguments if not a.keyword_only],
                                 **{a.name: call[a.name] for a in op.arguments if a.keyword_only})
            except GenerationError as error:  # from the intercepted launch: name the op
                if str(error).startswith("op '"):
                    raise
                raise error.naming(f"op '{op.qualname}': ") from None
            except (DataDependentOutputException, DynamicOutputShapeException) as error:
                raise GenerationError(
                    f"op '{op.qualname}': its host code reads the tensor contents"
                    f"{sites_text(failure_sites(op, error))}, and a plugin computes its launches "
                    "from shapes and attributes only: compute that value inside the kernel, or "
                    "pass it as an attribute of the op") from None
            except Exception as error:
                raise HostFailure(f"{shapes} {attributes}" if attributes else f"{shapes}",
                                  failure_sites(op, error), error) from None
        # The inputs it writes in place, then what it returns (an in-place op returns None).
        returned = [] if result is None and op.mutated else (
            list(result) if isinstance(result, (tuple, list)) else [result])
        outputs = [inputs[a.name] for a in op.mutated] + returned
        if len(outputs) != op.num_outputs or not all(isinstance(t, torch.Tensor)
                                                     for t in returned):
            raise GenerationError(f"op '{op.qualname}': its host code returns "
                                  f"{[type(t).__name__ for t in returned]}; the schema "
                                  f"declares {op.num_outputs - len(op.mutated)} tensor(s)")
        for index, tensor in enumerate(returned, start=len(op.mutated)):
            if creations.needs_layout_copy(tensor):
                # A view in another layout (a permuted buffer its kernel wrote: NHWC returned
                # as NCHW): TensorRT hands the plugin the output contiguous in its shape, so
                # the plugin copies the view into it with its own kernel, the buffer in its
                # workspace.
                made = creations.made.get(storage_key(tensor))
                where, line = (made[1], made[2]) if made else (f"{op.module_path.name}:?", "")
                outputs[index] = creations.copied_layout(
                    "empty", tensor, torch.empty(tensor.shape, dtype=tensor.dtype, device="cuda"),
                    (where, line), index)
    for output, where, line in creations.layout_copies:
        notes.add(f"{where} ({line}) makes a contiguous copy of a view in another layout: the "
                  "plugin copies it with its own kernel (from_torch/layout_copy.py) into its "
                  "workspace" if output is None else
                  f"output {output} is returned as a view in another layout of the buffer made "
                  f"at {where} ({line}); TensorRT's outputs are contiguous in their shape, so "
                  "that buffer is in the plugin's workspace and the plugin copies it into the "
                  "output with its own kernel (from_torch/layout_copy.py): one more pass over "
                  "its elements")
    for key, name, _, _, launches_before in creations.writes:
        if name == "zero_" and launches_before == 0 and key in creations.made:
            creations.made[key] = ("zeros",) + creations.made[key][1:]
    return HostRun(records, inputs, outputs, creations.made, creations.writes, creations.copies,
                   point)


def failure_sites(op, error):
    """Where the host code failed: the line of the op's module, and the innermost line of the
    code it calls there (a library's host function) when that is elsewhere, outside PyTorch and
    Triton (glue.py:12, then flag_gems/ops/softmax.py:276); Sites."""
    frames = traceback.extract_tb(error.__traceback__)
    own = [f for f in frames if Path(f.filename).resolve() == op.module_path]
    called = _innermost_of_user_code(frames[frames.index(own[-1]) + 1 if own else 0:])
    sites = [Site(op.module_path.name, own[-1].lineno, own[-1].line.strip())] if own else []
    if called:
        sites.append(Site(_shown_path(called.filename), called.lineno,
                          (called.line or "").strip()))
    return sites


def failure_location(op, error):
    """`file:line` of the innermost line of the op's module, or of the code it calls outside
    PyTorch and Triton, that the host code failed at."""
    frame = _innermost_of_user_code(traceback.extract_tb(error.__traceback__))
    return f"{_shown_path(frame.filename)}:{frame.lineno}" if frame else op.module_path.name


def _innermost_of_user_code(frames):
    """The innermost of `frames` outside PyTorch, Triton, the standard library and autoplugin
    (the op's module or a library it calls), or None."""
    return next((f for f in reversed(frames) if not _framework_file(f.filename)), None)


FRAMEWORK_DIRECTORIES = tuple(str(Path(module.__file__).resolve().parent) + "/"
                              for module in (torch, triton, contextlib)) + (
    str(Path(__file__).resolve().parent.parent) + "/",)  # autoplugin


def _framework_file(filename):
    """A frame of PyTorch, Triton, the standard library or autoplugin itself."""
    return str(Path(filename).resolve()).startswith(FRAMEWORK_DIRECTORIES)


def _shown_path(filename):
    """An installed package's file from its package folder (`flag_gems/ops/softmax.py`)."""
    parts = Path(filename).parts
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            return "/".join(parts[parts.index(marker) + 1:])
    return Path(filename).name


MAX_SAMPLE_ELEMENTS = 1 << 21


def point_elements(op, point):
    return sum(shape_numel(point[a.name]) for a in op.tensors if point[a.name] is not None)


def broken_requirement(requires, symbols, point):
    """The first of the requirements `point` breaks, or None."""
    values = point_values(symbols, point)
    return next((r for r in requires if not holds(r, values)), None)


def _sample_int(rng, example_value, largest):
    """Small values and values up to `largest` (log-uniform), with the example's sign."""
    if rng.random() < 0.5:
        value = rng.randint(0, 2 * abs(example_value) + 6)
    else:
        value = int(round(2 ** rng.uniform(0, largest.bit_length())))
    return -value if example_value < 0 and rng.random() < 0.5 else value


def _sample_float(rng, example_value):
    """The example's value at times (a flag computed from it, `softcap != 0`, takes the
    example's branch), else one near it with its sign (0 to 1 for 0): a probability or an eps
    stays in the range its host code asserts."""
    if rng.random() < 0.25:
        return example_value
    if example_value == 0:
        return round(rng.uniform(0.0, 1.0), 3)
    # Six significant digits: an eps of 1e-6 must vary too.
    return float(f"{example_value * rng.uniform(0.5, 1.5):.6g}")


def sample_points(op, example, requires, symbols, count, rng, long_axes=False, small=False):
    """Points inside the traced shape requirements, every extent at least 1. With `long_axes`,
    one point per tensor axis with that axis long (1000-5000) and the others short, so that every
    grid extent and argument sees its axis grow; with `small`, every extent drawn from 1 to 4
    or left at the example's (a bound between two sizes is met at times), for kernels to run
    interpreted."""
    ties = tied_extents(requires, symbols)
    targets = [None] * count
    if long_axes:
        targets = [(a.name, axis) for a in op.tensors if example[a.name] is not None
                   for axis in range(len(example[a.name]))]
    def sample(argument, value, target):
        if argument.kind == "Tensor":
            if small:
                return [rng.randint(1, 4) if rng.random() < 0.75 else extent
                        for extent in value]
            if target is None:
                return [rng.randint(1, 16) if rng.random() < 0.5 else
                        int(round(2 ** rng.uniform(0, 10))) for _ in value]
            return [rng.randint(1000, 5000) if (argument.name, axis) == target
                    else rng.randint(1, 4) for axis in range(len(value))]
        if argument.kind == "int":
            return _sample_int(rng, value, 1024)
        if argument.kind == "int[]":
            return [_sample_int(rng, v, 1024) for v in value]
        if argument.kind == "float":
            return _sample_float(rng, value)
        if argument.kind == "float[]":
            return [_sample_float(rng, v) for v in value]
        if argument.kind == "bool":
            return rng.random() < 0.5
        if argument.kind == "bool[]":
            return [rng.random() < 0.5 for _ in value]
        return value

    points = []
    for target in targets:
        for _ in range(2000):
            point = point_like(op, example,
                               lambda argument, value, t=target: sample(argument, value, t))
            satisfy(tie(point, ties, keep=target), requires, symbols, keep=target)
            if (point_elements(op, point) <= MAX_SAMPLE_ELEMENTS and
                    broken_requirement(requires, symbols, point) is None):
                points.append(point)
                break
        else:
            if target is None:
                raise GenerationError(
                    f"op '{op.qualname}': found too few sizes and attributes that satisfy its "
                    "fake implementation's requirements to sample the host code")
    return points
