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
        return torch.tensor(spec["values"], dtype=dtype, device=device).reshape(shape)
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
    """Tensors and shape inputs positional, in schema order; attributes as keywords, except those
    before a tensor, which are positional where the schema puts them (scatter_reduce's dim)."""
    attributes = dict(case.get("attributes", {}))
    arguments = op_info["arguments"]
    positional = [k for k, a in enumerate(arguments) if a["kind"] in ("tensor", "shape_input")]
    last = positional[-1] if positional else -1
    args, tensors, shape_inputs = [], iter(inputs), iter(case.get("shape_inputs", []))
    for k, argument in enumerate(arguments):
        if argument["kind"] == "tensor":
            args.append(next(tensors))
        elif argument["kind"] == "shape_input":
            args.append(list(next(shape_inputs)))
        elif k < last:
            args.append(attributes.pop(argument["name"]))
    return args, attributes


def assert_close(test, actual, expected, dtype_name, case):
    tolerance = TOLERANCES.get(dtype_name, 0)
    atol = case.get("atol", tolerance)
    rtol = case.get("rtol", tolerance)
    test.assertEqual(tuple(actual.shape), tuple(expected.shape))
    torch.testing.assert_close(actual, expected.to(actual.dtype), atol=atol, rtol=rtol)
