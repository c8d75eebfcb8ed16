"""Trial compilations of a recorded launch by the build's own compile step (tools/triton_aot.py):
whether its kernel compiles with a constexpr taken at run time instead, and the largest block a
program of it holds (Triton's front end alone, milliseconds). Each launch is described as the
compile step takes it: its run-time parameters with Triton's types, its constexprs' values."""
import types

import numpy as np
import torch

from .aot_tool import triton_aot_module
from .errors import GenerationError
from .records import plain_value


TRITON_POINTER_TYPES = {
    torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16", torch.float64: "fp64",
    torch.int8: "i8", torch.int16: "i16", torch.int32: "i32", torch.int64: "i64",
    torch.uint8: "u8", torch.bool: "i1", torch.float8_e4m3fn: "fp8e4nv",
}


def scalar_type(values, name, where, line):
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
                          f"{', '.join(kinds)} have no kernel scalar type: pass an int, float, "
                          "bool, NumPy scalar, or None for an absent tensor")


def _parameters(record, run_time=None):
    """(parameters, constants) of the recorded launch as the compile step takes them;
    `run_time`: (name, Triton type) of a constexpr compiled as a run-time argument instead."""
    aot = triton_aot_module()
    parameters, constants = [], []
    for parameter, value in record.arguments.items():
        value = value if isinstance(value, torch.Tensor) else plain_value(value)
        if run_time and parameter == run_time[0]:
            type_name = run_time[1]
        elif value is None or any(p.name == parameter and p.is_constexpr
                                  for p in record.kernel.params):
            # (an absent tensor passed as None is a constexpr, as the generated kernel has it)
            constants.append({"name": parameter, "value": aot.constexpr_text(value)})
            continue
        elif isinstance(value, torch.Tensor):
            type_name = "*" + TRITON_POINTER_TYPES.get(value.dtype, "fp32")
        else:
            type_name = scalar_type([value], parameter, record.where, record.line)
        parameters.append({"name": parameter, "type": type_name, "divisibility": 1})
    return parameters, constants


def _error_line(error):
    text = str(error).strip()
    return text.splitlines()[-1] if text else type(error).__name__


def compile_problem(record, name, triton_type, arch):
    """Why the recorded launch's kernel does not compile with constexpr `name` as a run-time
    argument of `triton_type` ("" when it does): one trial compilation, the other constexprs at
    their recorded values."""
    aot = triton_aot_module()
    parameters, constants = _parameters(record, (name, triton_type))
    function = record.kernel
    args = types.SimpleNamespace(  # what the compile step's metadata records
        arch=arch, source=function.fn.__code__.co_filename, kernel=function.fn.__name__,
        signature=", ".join(p["type"] for p in parameters))
    try:
        aot.compile_variant(args, aot.Kernel(function, [], {}), parameters, constants,
                            function.fn.__name__,
                            int(record.options.get("num_warps", 4)),
                            int(record.options.get("num_stages", 3)))
    except Exception as error:  # noqa: BLE001 - Triton's compile errors have no common base
        return _error_line(error)
    return ""


def largest_block(record, arch):
    """(elements of the largest block a program of the recorded launch's kernel holds, "") or
    (None, Triton's error) where Triton's front end refuses the kernel at these values."""
    aot = triton_aot_module()
    parameters, constants = _parameters(record)
    try:
        return aot.largest_block(arch, aot.Kernel(record.kernel, [], {}), parameters, constants,
                                 int(record.options.get("num_warps", 4))), ""
    except Exception as error:  # noqa: BLE001 - Triton's compile errors have no common base
        return None, _error_line(error)
