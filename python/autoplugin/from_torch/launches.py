"""Kernel launches recovered from the op's host code.

The host code (the custom op's body) is run on CPU tensors at sampled shapes and attribute
values, with every `kernel[grid](...)` intercepted: the launch is recorded and the kernel does not
run, so no GPU is needed and NumPy scalars are accepted wherever they appear. Each kernel argument
and each grid extent is then identified across the samples (fitting.py) as an input or output
tensor, a size, a product of sizes, an attribute (element) or a constant, and checked on further
samples. Each sample runs twice with different tensor contents: a value that changes with the
contents cannot be computed from shapes and attributes, and is refused.
"""
import contextlib
import random
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from . import fitting, kernel_variants
from .discover import GenerationError

TRITON_POINTER_TYPES = {
    torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16", torch.float64: "fp64",
    torch.int8: "i8", torch.int16: "i16", torch.int32: "i32", torch.int64: "i64",
    torch.uint8: "u8", torch.bool: "i1",
}
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


@dataclass
class RecordedLaunch:
    kernel: object  # the JITFunction
    grid: tuple
    arguments: dict  # parameter name -> value, in the kernel's parameter order
    options: dict  # num_warps, num_stages, ...
    where: str  # "module.py:57"
    line: str
    config: object = None  # kernel_variants.AutotuneConfig of an autotuned launch


@dataclass
class RecoveredArgument:
    name: str
    kind: str  # "input", "output", "scalar", "constexpr"
    cpp: str = ""  # C++ expression (scalars), tensor name (pointers)
    triton_type: str = ""  # "i32", "fp32", ...; pointers: the element type per dtype
    pointer_types: dict = field(default_factory=dict)  # dtype -> "*fp32"
    constexpr: str = ""


@dataclass
class RecoveredLaunch:
    kernel_name: str
    kernel_file: Path
    grid: list  # C++ expressions, one per axis
    arguments: list  # RecoveredArgument per kernel parameter
    num_warps: int
    num_stages: int
    where: str
    line: str
    family: object = None  # kernel_variants.Family when constexprs change with the shapes
    config: object = None  # kernel_variants.AutotuneConfig: launched by that config's tactic

    @property
    def varying(self):
        return self.family.varying if self.family else []

    def signature(self, dtype):
        entries = []
        for argument in self.arguments:
            if argument.kind in ("input", "output"):
                entries.append(argument.pointer_types[dtype])
            elif argument.kind == "constexpr":
                entries.append(argument.constexpr)
            else:
                entries.append(argument.triton_type)
        return ", ".join(entries)


def _launch_site(module_path):
    """(file:line, source line) of the innermost frame in the op's module."""
    for frame in reversed(traceback.extract_stack()):
        if Path(frame.filename).resolve() == module_path:
            return f"{module_path.name}:{frame.lineno}", (frame.line or "").strip()
    return f"{module_path.name}:?", ""


@contextlib.contextmanager
def intercepted_launches(records, module_path):
    from triton.runtime.jit import JITFunction
    original = JITFunction.run

    def run(self, *args, grid, warmup, **kwargs):
        where, line = _launch_site(module_path)
        names = [p.name for p in self.params]
        options = {k: v for k, v in kwargs.items() if k not in names}
        bound = self.signature.bind_partial(*args, **{k: v for k, v in kwargs.items()
                                                      if k in names})
        bound.apply_defaults()
        arguments = {name: bound.arguments[name] for name in names if name in bound.arguments}
        missing = [name for name in names if name not in arguments]
        if missing:
            raise GenerationError(f"{where}: launch of '{self.fn.__name__}' passes no value for "
                                  f"{', '.join(missing)}")
        if callable(grid):
            grid = grid(dict(arguments))
        grid = tuple(grid) if isinstance(grid, (tuple, list)) else (grid,)
        records.append(RecordedLaunch(self, grid, arguments, options, where, line))

    from triton.runtime.autotuner import Autotuner
    original_autotuner = Autotuner.run

    def autotuned(self, *args, **kwargs):
        kernel_variants.launch_each_config(self, args, kwargs, records, module_path)

    JITFunction.run = run
    Autotuner.run = autotuned
    try:
        yield
    finally:
        JITFunction.run = original
        Autotuner.run = original_autotuner


def _run_body(op, point, dtype, seed):
    """Runs the op's host code at `point`; returns (recorded launches, inputs, outputs)."""
    generator = torch.Generator().manual_seed(seed)
    call, inputs = {}, {}
    for argument in op.arguments:
        value = point[argument.name]
        if argument.kind == "Tensor":
            tensor = torch.randn(value, generator=generator).to(dtype)
            call[argument.name] = inputs[argument.name] = tensor
        else:
            call[argument.name] = value
    records = []
    with intercepted_launches(records, op.module_path):
        try:
            result = op.body(**call)
        except GenerationError as error:  # from the intercepted launch: name the op
            if str(error).startswith("op '"):
                raise
            raise GenerationError(f"op '{op.qualname}': {error}") from None
        except Exception as error:
            frames = [f for f in traceback.extract_tb(error.__traceback__)
                      if Path(f.filename).resolve() == op.module_path]
            at = f" at {op.module_path.name}:{frames[-1].lineno} ({frames[-1].line.strip()})" \
                if frames else ""
            raise GenerationError(f"op '{op.qualname}': its host code failed on CPU tensors "
                                  f"{ {k: list(v.shape) for k, v in inputs.items()} }{at}: "
                                  f"{type(error).__name__}: {error}") from None
    outputs = list(result) if isinstance(result, (tuple, list)) else [result]
    return records, inputs, outputs


def _tensor_role(op, value, inputs, outputs):
    for name, tensor in inputs.items():
        if value is tensor:
            return "input", name
    for index, tensor in enumerate(outputs):
        if value is tensor or value._base is tensor or (tensor._base is not None and
                                                         value._base is tensor._base):
            return "output", index
    for name, tensor in inputs.items():
        if value.data_ptr() == tensor.data_ptr():
            return "input", name
    return None, None


MAX_SAMPLE_ELEMENTS = 1 << 21


def _sample_int(rng, example_value, largest):
    """Small values and values up to `largest` (log-uniform), with the example's sign."""
    if rng.random() < 0.5:
        value = rng.randint(0, 2 * abs(example_value) + 6)
    else:
        value = int(round(2 ** rng.uniform(0, largest.bit_length())))
    return -value if example_value < 0 and rng.random() < 0.5 else value


def _sample_points(op, example, requires, symbols, count, rng, long_axes=False):
    """Points inside the traced shape requirements, every extent at least 1. With `long_axes`,
    one point per tensor axis with that axis long (1000-5000) and the others short, so that every
    grid extent and argument sees its axis grow."""
    from .shapes import _values, tie, tied_extents
    ties = tied_extents(requires, symbols)
    targets = [None] * count
    if long_axes:
        targets = [(a.name, axis) for a in op.tensors for axis in range(len(example[a.name]))]
    points = []
    for target in targets:
        for _ in range(2000):
            point = {}
            for argument in op.arguments:
                value = example[argument.name]
                if argument.kind == "Tensor":
                    if target is None:
                        shape = [rng.randint(1, 16) if rng.random() < 0.5 else
                                 int(round(2 ** rng.uniform(0, 10))) for _ in value]
                    else:
                        shape = [rng.randint(1000, 5000) if (argument.name, axis) == target
                                 else rng.randint(1, 4) for axis in range(len(value))]
                    point[argument.name] = shape
                elif argument.kind == "int":
                    point[argument.name] = _sample_int(rng, value, 1024)
                elif argument.kind == "int[]":
                    point[argument.name] = [_sample_int(rng, v, 1024) for v in value]
                elif argument.kind == "float":
                    point[argument.name] = round(rng.uniform(-2.0, 2.0), 3)
                elif argument.kind == "float[]":
                    point[argument.name] = [round(rng.uniform(-2.0, 2.0), 3) for _ in value]
                elif argument.kind == "bool":
                    point[argument.name] = rng.random() < 0.5
                elif argument.kind == "bool[]":
                    point[argument.name] = [rng.random() < 0.5 for _ in value]
                else:
                    point[argument.name] = value
            tie(point, ties, keep=target)
            elements = sum(_numel(point[a.name]) for a in op.tensors)
            values = _values(symbols, point)
            if elements <= MAX_SAMPLE_ELEMENTS and all(bool(r.xreplace(values)) for r in requires):
                points.append(point)
                break
        else:
            if target is None:
                raise GenerationError(
                    f"op '{op.qualname}': found too few sizes and attributes that satisfy its "
                    "fake implementation's requirements to sample the host code")
    return points


def _numel(shape):
    total = 1
    for extent in shape:
        total *= extent
    return total


def recover_launches(op, example, traced, dtypes, samples=12, seed=1,
                     max_block=kernel_variants.DEFAULT_MAX_BLOCK):
    """The launches of the op's host code for one structure (ranks, list lengths); a constexpr
    that changes with the shapes becomes a family of powers of two up to `max_block`."""
    rng = random.Random(seed)
    points = _sample_points(op, example, traced.requires, traced.symbols, 2 * samples, rng)
    points += _sample_points(op, example, traced.requires, traced.symbols, 0, rng, long_axes=True)
    runs = []  # per point: (records, inputs, outputs)
    for index, point in enumerate(points):
        first = _run_body(op, point, torch.float32, seed=2 * index)
        second = _run_body(op, point, torch.float32, seed=2 * index + 1)
        _same_launches(op, point, first[0], second[0], content_changed=True)
        runs.append(first)
    for point, run in zip(points[1:], runs[1:]):
        _same_launches(op, point, runs[0][0], run[0], content_changed=False)
    envs = [fitting.environment(op, point, {k: list(t.shape) for k, t in run[1].items()},
                                [list(t.shape) for t in run[2]])
            for point, run in zip(points, runs)]
    launches = []
    for position, record in enumerate(runs[0][0]):
        recorded = [run[0][position] for run in runs]

        def probe(atom, value, position=position):
            return _probe(op, example, traced, position, atom, value)

        launches.append(_recover_launch(op, position, record, recorded, envs, runs, samples,
                                        dtypes, points, probe, max_block))
    return launches


def _probe(op, example, traced, position, atom, value):
    """The launch at `position` when the host code runs with launcher atom `atom` (an input's
    extent or an int attribute) set to `value`, the other sizes as in the example."""
    from .shapes import tie, tied_extents
    point = {name: list(v) if isinstance(v, list) else v for name, v in example.items()}
    keep = None
    if ".size(" in atom:
        tensor, axis = atom.split(".size(")
        keep = (tensor, int(axis.rstrip(")")))
        point[tensor][keep[1]] = value
    else:
        point[atom] = value
    tie(point, tied_extents(traced.requires, traced.symbols), keep=keep)
    records, _, _ = _run_body(op, point, torch.float32, seed=0)
    if position >= len(records):
        raise GenerationError(f"the host code launches {len(records)} kernels at {point}")
    return records[position]


def _same_launches(op, point, first, second, content_changed):
    """The same kernels with the same scalar values (or a refusal naming what differs)."""
    if [r.kernel for r in first] != [r.kernel for r in second]:
        why = ("the kernels launched change with the tensor contents" if content_changed else
               "the kernels launched change with the shapes or attributes")
        raise GenerationError(f"op '{op.qualname}': {why} ({[r.kernel.fn.__name__ for r in first]} "
                              f"vs {[r.kernel.fn.__name__ for r in second]}); a plugin needs one "
                              "launch sequence per structure")
    if not content_changed:
        return
    for a, b in zip(first, second):
        for name, value in a.arguments.items():
            other = b.arguments[name]
            if isinstance(value, torch.Tensor):
                continue
            if _plain(value) != _plain(other):
                raise GenerationError(
                    f"op '{op.qualname}': argument '{name}' of kernel '{a.kernel.fn.__name__}' "
                    f"({a.where}: {a.line}) cannot be recovered: its value depends on the tensor "
                    f"contents ({_plain(value)} and {_plain(other)} for the same sizes and "
                    f"attributes {point}), and a plugin computes launch arguments from shapes and "
                    "attributes only")
        if [_plain(g) for g in a.grid] != [_plain(g) for g in b.grid]:
            raise GenerationError(f"op '{op.qualname}': the grid of kernel "
                                  f"'{a.kernel.fn.__name__}' ({a.where}: {a.line}) depends on the "
                                  "tensor contents")


def _plain(value):
    if isinstance(value, (np.integer, np.bool_)):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, torch.Tensor):
        return ("tensor", tuple(value.shape))
    return value


def _scalar_type(values, name, where, line):
    """Triton's type for a scalar argument, as its launcher would specialise it."""
    if all(isinstance(v, (bool, np.bool_)) for v in values):
        return "i1"
    if all(isinstance(v, (np.floating, float)) for v in values):
        return "fp32"  # Triton passes Python floats as fp32
    if all(isinstance(v, (int, np.integer)) for v in values):
        if any(isinstance(v, (np.int64, np.uint64)) for v in values):
            return "i64"
        if all(-2**31 <= int(v) < 2**31 for v in values):
            return "i32"
        return "i64"
    kinds = sorted({type(v).__name__ for v in values})
    raise GenerationError(f"argument '{name}' ({where}: {line}): values of type "
                          f"{', '.join(kinds)} have no kernel scalar type (expected int, float, "
                          "bool or a NumPy scalar)")


def _recover_launch(op, position, first, recorded, envs, runs, samples, dtypes, points, probe,
                    max_block):
    kernel = first.kernel
    kernel_name = kernel.fn.__name__
    fit_envs, check_envs = envs[:samples], envs[samples:]
    constexprs = {p.name for p in kernel.params if p.is_constexpr}
    arguments = []
    family = None
    for name in first.arguments:
        values = [r.arguments[name] for r in recorded]
        context = f"argument '{name}' of kernel '{kernel_name}' ({first.where}: {first.line})"
        if name in constexprs:
            plain = {repr(_plain(v)) for v in values}
            if len(plain) != 1:
                family, argument = kernel_variants.add_varying(
                    family, op, name, first, recorded, constexprs, envs, context, probe,
                    max_block)
                arguments.append(argument)
                continue
            value = _plain(values[0])
            text = "True" if value is True else "False" if value is False else repr(value)
            arguments.append(RecoveredArgument(name, "constexpr", constexpr=text))
            continue
        if isinstance(values[0], torch.Tensor):
            arguments.append(_recover_pointer(op, name, context, position, recorded, runs,
                                              points, dtypes))
            continue
        triton_type = _scalar_type(values, name, first.where, first.line)
        cpp = fitting.fit(values, fit_envs, check_envs, context, triton_type,
                          [c for c in (_plain(first.arguments[n]) for n in constexprs)
                           if isinstance(c, int) and not isinstance(c, bool)])
        arguments.append(RecoveredArgument(name, "scalar", cpp=cpp, triton_type=triton_type))
    grid = []
    block_sizes = [v for v in (_plain(first.arguments[n]) for n in constexprs)
                   if isinstance(v, int) and not isinstance(v, bool)]
    for axis in range(max(len(r.grid) for r in recorded)):
        values = [r.grid[axis] if axis < len(r.grid) else 1 for r in recorded]
        context = f"grid axis {axis} of kernel '{kernel_name}' ({first.where}: {first.line})"
        grid.append(fitting.fit(values, fit_envs, check_envs, context, "i64", block_sizes))
    options = {k: _plain(v) for k, v in first.options.items()}
    for record in recorded:
        # A family's warps and stages follow its power of two (read per variant by probing).
        probed = family is not None and family.options
        if not probed and {k: _plain(v) for k, v in record.options.items()} != options:
            raise GenerationError(f"op '{op.qualname}': the launch options of '{kernel_name}' "
                                  f"({first.where}) change with the shapes or attributes")
    unknown = sorted(set(options) - {"num_warps", "num_stages"})
    if unknown:
        raise GenerationError(f"op '{op.qualname}': launch option(s) {', '.join(unknown)} of "
                              f"'{kernel_name}' ({first.where}) are not generated")
    return RecoveredLaunch(kernel_name, Path(kernel.fn.__code__.co_filename).resolve(), grid,
                           arguments, int(options.get("num_warps", 4)),
                           int(options.get("num_stages", 3)), first.where, first.line, family,
                           first.config)


def _recover_pointer(op, name, context, position, recorded, runs, points, dtypes):
    roles = set()
    for record, (_, inputs, outputs) in zip(recorded, runs):
        role = _tensor_role(op, record.arguments[name], inputs, outputs)
        if role[0] is None:
            raise GenerationError(f"op '{op.qualname}': {context} is a tensor that is neither an "
                                  "input nor an output of the op (a buffer the host code "
                                  "allocates); generated plugins pass only the op's tensors")
        roles.add(role)
    if len(roles) != 1:
        raise GenerationError(f"op '{op.qualname}': {context} is a different tensor at different "
                              f"sizes ({sorted(map(str, roles))})")
    kind, which = roles.pop()
    pointer_types = {}
    for dtype in dtypes:
        records, _, _ = _run_body(op, points[0], DTYPES[dtype], seed=0)
        tensor = records[position].arguments[name]
        if tensor.dtype not in TRITON_POINTER_TYPES:
            raise GenerationError(f"op '{op.qualname}': {context} has dtype {tensor.dtype}, which "
                                  "has no Triton pointer type here")
        pointer_types[dtype] = "*" + TRITON_POINTER_TYPES[tensor.dtype]
    cpp = which if kind == "input" else fitting.output_name(op, which)
    return RecoveredArgument(name, kind, cpp=cpp, pointer_types=pointer_types)
