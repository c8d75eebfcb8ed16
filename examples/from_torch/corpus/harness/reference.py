"""The eager PyTorch side of the corpus's GPU checks, for `autoplugin check --reference`.

    python3 reference.py MODULE.py COMPARE FUNCTION DIR
    python3 reference.py MODULE.py COMPARE FUNCTION --serve SOCKET

The second form imports PyTorch, the module and its kernels once and answers every case of a
`check` run: `tools/reference_server.py SOCKET` is then the reference command (a case costs
milliseconds instead of a Python start with PyTorch, Triton and a CUDA context each).

DIR holds case.json and input<k>.npy (autoplugin check's reference protocol); this writes the
outputs case.json lists. The module is imported (registering its op) and the case's inputs and
attributes are passed by the op's parameter names to FUNCTION, the module's eager PyTorch
reference, or with COMPARE "eager" to the op itself (its Triton kernel, launched by its own host
code). The RFC's module has no reference of its own: F.pad(mode="circular") is its reference.
An in-place op's output is the value of its mutated input after the call. Arrays are read and
written as examples/reference.py does (bfloat16 as its uint16 bits: NumPy has no bfloat16).
"""
import importlib.util
import json
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path, name=None):
    name = name or os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The examples' reference: its load and save are check's array codec, bfloat16 included.
arrays = load(os.path.join(HERE, "..", "..", "..", "reference.py"), "examples_reference")


def main(module_path, compare, function, folder):
    compute(load(module_path), compare, function, folder)


def compute(module, compare, function, folder):
    with open(os.path.join(folder, "case.json")) as f:
        case = json.load(f)
    namespace, name = case["op"].split("::")
    op = getattr(getattr(torch.ops, namespace), name).default
    inputs = iter(case["inputs"])
    attributes = case.get("attributes", {})
    arguments, mutated = {}, []
    for argument in op._schema.arguments:
        if str(argument.type) in ("Tensor", "Optional[Tensor]"):  # as PyTorch writes Tensor?
            spec = next(inputs)
            arguments[argument.name] = None if spec is None else arrays.load(
                os.path.join(folder, spec["file"]), spec["dtype"]).cuda()
            if argument.alias_info is not None and argument.alias_info.is_write:
                mutated.append(argument.name)
        elif argument.name in attributes:
            arguments[argument.name] = attributes[argument.name]
    if name == "triton_circular_pad" and function == "-":
        outputs = F.pad(arguments["x"], attributes["padding"], mode="circular")
    elif compare == "eager":
        outputs = op(**arguments)
    else:
        outputs = getattr(module, function)(**arguments)
    # The plugin's outputs: the inputs the op writes in place, then what it returns.
    returned = [] if outputs is None else [outputs] if isinstance(outputs, torch.Tensor) \
        else list(outputs)
    outputs = [arguments[n] for n in mutated] + returned
    for spec, output in zip(case["outputs"], outputs):
        arrays.save(os.path.join(folder, spec["file"]), output, spec["dtype"])


def serve(module_path, compare, function, path):
    """Answers cases on the Unix socket `path` (tools/reference_server.py), the module imported
    once."""
    sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "tools"))
    import reference_server
    module = load(module_path)
    reference_server.serve(path, lambda folder: compute(module, compare, function, folder))


if __name__ == "__main__":
    if sys.argv[4] == "--serve":
        serve(*sys.argv[1:4], sys.argv[5])
    else:
        main(*sys.argv[1:5])
