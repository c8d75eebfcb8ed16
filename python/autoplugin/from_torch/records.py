"""What a run of the host code records and what recovery makes of it: the launches (recorded, and
recovered as expressions), the workspace's scratch buffers, and the small value helpers the
floors above share."""
import functools
import linecache
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import triton.language as tl


@dataclass
class RecordedLaunch:
    kernel: object  # the JITFunction
    grid: tuple
    arguments: dict  # parameter name -> value, in the kernel's parameter order
    options: dict  # num_warps, num_stages, ...
    where: str  # "module.py:57"
    line: str
    config: object = None  # autotune.AutotuneConfig of an autotuned launch


@dataclass
class RecoveredArgument:
    name: str
    kind: str  # "input", "output", "workspace", "scalar", "constexpr"
    # scalars: the value (expressions.py); a family's constexpr: the value its variant is
    # selected by
    value: object = None
    tensor: str = ""  # pointers: the launcher's tensor; the workspace: the scratch buffer's index
    triton_type: str = ""  # "i32", "fp32", ...; pointers: the element type per dtype
    pointer_types: dict = field(default_factory=dict)  # dtype -> "*fp32"
    constexpr: str = ""
    constexpr_by_dtype: dict = field(default_factory=dict)  # dtype -> value, where they differ
    offset: object = None  # a view partway into a tensor: the expression of its start, in elements
    # dtype -> the tensor's own "*fp32" (pointer_types differs where the kernel reads a view
    # of it in another dtype, `x.view(torch.int32)`)
    tensor_types: dict = field(default_factory=dict)
    # integer scalars: a multiple of 16 in the example's launch, where Triton's JIT compiles the
    # kernel with that promise (kernel_builds.size_integers makes a build promise it too)
    aligned_at_example: bool = False


@dataclass
class RecoveredLaunch:
    kernel_name: str
    kernel_file: Path
    grid: list  # expressions, one per axis
    arguments: list  # RecoveredArgument per kernel parameter
    num_warps: int
    num_stages: int
    where: str
    line: str
    family: object = None  # families.Family when constexprs change with the shapes
    config: object = None  # autotune.AutotuneConfig: launched by that config's tactic
    # Builds for the values the run-time constexprs have at the example (SPECIALIZE_VALUES), each
    # {name: value as the signature writes it}, with the family's constexprs there (the variant).
    value_builds: list = field(default_factory=list)
    # The kernel's globals as it ran (a library may bind names its file does not: kernel_source),
    # and the names a kernel defined inside a function reads from it
    kernel_globals: dict = field(default_factory=dict, compare=False, repr=False)
    # A kernel defined inside a function: its definition at the top level (kernel_source)
    kernel_hoisted: str = field(default="", compare=False, repr=False)

    @property
    def varying(self):
        return self.family.varying if self.family else []

    def signature(self, dtype):
        entries = []
        for argument in self.arguments:
            if argument.kind in ("input", "output", "workspace"):
                entries.append(argument.pointer_types[dtype])
            elif argument.kind == "constexpr":
                entries.append(argument.constexpr_by_dtype.get(dtype, argument.constexpr))
            else:
                entries.append(argument.triton_type)
        return ", ".join(entries)


@dataclass
class ScratchBuffer:
    """A buffer the host code allocates and a kernel uses: a slice of the plugin's workspace."""
    numel: object  # the expression of the launcher's shapes and attributes
    element_bytes: int  # the largest over the generated dtypes
    zeroed: bool  # allocated with zeros: the launcher clears it before the first launch
    where: str
    line: str


@dataclass
class Recovery:
    """What a structure's launches are recovered from, shared by each launch's recovery: the
    host code's runs at the sampled points (those fitted first, then those checked) and each
    point's atoms, each dtype's run at the first point, the scratch buffers, and the notes."""
    op: object
    runs: list
    envs: list  # fitting.Environment per run
    samples: int  # how many runs are fitted; the others check
    dtype_runs: dict  # dtype -> the run at the first point
    plugin_dtypes: dict  # dtype -> the outputs' dtypes there
    scratch: dict  # index -> (ScratchBuffer, its storage key in each run)
    arch: int
    max_block: int
    notes: set

    @property
    def fit_envs(self):
        return self.envs[:self.samples]

    @property
    def check_envs(self):
        return self.envs[self.samples:]


@dataclass
class RecoveredLaunches:
    launches: list  # RecoveredLaunch
    scratch: list  # ScratchBuffer, indexed by the workspace arguments' tensor
    notes: list  # what the user should know: host allocations the plugin replaces, ...
    zeroed_outputs: list = field(default_factory=list)  # indices the host code allocates zeroed
    copied_outputs: list = field(default_factory=list)  # (index, input): out = input.clone()


def launch_site(module_path):
    """(file:line, source line) of the innermost frame in the op's module. Called for every
    launch and tensor the host code makes (a library's autotuner: every config, at every point
    probed), so it walks the frames without formatting the stack."""
    frame = sys._getframe(1)
    while frame is not None:
        if _resolved(frame.f_code.co_filename) == module_path:
            line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
            if line.count("(") > line.count(")"):
                line += " ..."  # the first line of a call written over several
            return f"{module_path.name}:{frame.f_lineno}", line
        frame = frame.f_back
    return f"{module_path.name}:?", ""


@functools.lru_cache(maxsize=None)
def _resolved(filename):
    return Path(filename).resolve()


def plain_value(value):
    if isinstance(value, (np.integer, np.bool_)):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, torch.Tensor):
        return ("tensor", tuple(value.shape))
    return value


def constexpr_text(value):
    """A constexpr value as a signature writes it: `True`, `1024`, `'gelu'`, `tl.fp16`."""
    value = plain_value(value)
    if isinstance(value, tl.dtype):
        return f"tl.{value.name}"
    return "True" if value is True else "False" if value is False else repr(value)


def shape_numel(shape):
    total = 1
    for extent in shape:
        total *= extent
    return total


def input_dtype(argument, dtype):
    """The dtype of a tensor input when the plugin's dtype is `dtype`: its own where the
    examples give it one (int64 labels)."""
    return getattr(torch, argument.dtype) if argument.dtype else dtype


# A plugin dtype's C++ element type, and its short name in kernel targets and case names.
DTYPE_ELEMENT = {"float32": "float", "float16": "__half", "bfloat16": "__nv_bfloat16"}
DTYPE_SHORT = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}
