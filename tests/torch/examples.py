"""The bundled examples' cases (examples/*/cases.json) as PyTorch calls, for the tests and
benchmarks of the PyTorch op library: inputs made as `autoplugin check` makes them, the
references of examples/reference.py, and the tolerances check uses."""
import glob
import importlib.util
import json
import os

import torch

SOURCE = os.environ.get("AUTOPLUGIN_SOURCE_DIR",
                        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
          "int8": torch.int8, "int32": torch.int32, "int64": torch.int64}
TOLERANCES = {"float32": 1e-5, "float16": 1e-3, "bfloat16": 1e-2}


def reference_module():
    spec = importlib.util.spec_from_file_location(
        "reference", os.path.join(SOURCE, "examples", "reference.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cases():
    """(op name, case) for every case of every example that runs (not those expecting an
    error); an absent input's spec is None."""
    for path in sorted(glob.glob(os.path.join(SOURCE, "examples", "*", "cases.json"))):
        with open(path) as f:
            listing = json.load(f)
        for case in listing["cases"]:
            if "expect_error" not in case:  # a refusal check has no outputs to compare
                yield listing["op"], case


def make_input(spec, generator, device):
    if spec is None:  # an absent Tensor? input
        return None
    dtype = DTYPES[spec["dtype"]]
    shape = spec.get("shape") or spec.get("opt")
    if "values" in spec:
        # "nan", "inf" and "-inf" stand for the floats JSON has no literals for.
        values = [float(v) if isinstance(v, str) else v for v in spec["values"]]
        return torch.tensor(values, dtype=dtype, device=device).reshape(shape)
    # As `autoplugin check` makes them: uniform in [low, high), floored for integer dtypes (and
    # with "integers"), so an integer range [0, n) never reaches n.
    low, high = spec.get("range", [-1, 1])
    x = torch.rand(shape, generator=generator, dtype=torch.float64) * (high - low) + low
    if not dtype.is_floating_point or spec.get("integers", False):
        x = torch.floor(x)
    if spec.get("zero_fraction", 0) > 0:
        x[torch.rand(shape, generator=generator) < spec["zero_fraction"]] = 0
    return x.to(dtype).to(device)


def call_arguments(op_info, case, inputs):
    """Positional tensors and shape inputs in schema order up to the first attribute, the rest
    as keywords (a schema may list a tensor after an attribute); a trailing absent input the
    case leaves out is None."""
    args, kwargs = [], dict(case.get("attributes", {}))
    tensors, shape_inputs = iter(inputs), iter(case.get("shape_inputs", []))
    positional = True
    for argument in op_info["arguments"]:
        if argument["kind"] == "tensor":
            value = next(tensors, None)
        elif argument["kind"] == "shape_input":
            value = list(next(shape_inputs))
        else:
            positional = False
            continue
        if positional:
            args.append(value)
        else:
            kwargs[argument["name"]] = value
    return args, kwargs


def assert_close(test, actual, expected, dtype_name, case):
    tolerance = TOLERANCES.get(dtype_name, 0)
    atol = case.get("atol", tolerance)
    rtol = case.get("rtol", tolerance)
    test.assertEqual(tuple(actual.shape), tuple(expected.shape))
    # NaN equals NaN in the same place, as `autoplugin check` compares.
    torch.testing.assert_close(actual, expected.to(actual.dtype), atol=atol, rtol=rtol,
                               equal_nan=True)
