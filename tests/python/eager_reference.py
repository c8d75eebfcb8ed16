"""A from-torch module's own op as the reference, for `autoplugin check --reference`: calls the
custom op eagerly (on the GPU: its Triton kernels, an autotuned one with Triton's own pick).

Usage: python3 eager_reference.py MODULE.py DIR (DIR holds case.json and input<k>.npy; this writes
the outputs case.json lists).
"""
import importlib.util
import json
import os
import sys

import numpy as np
import torch

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.float32,
          "int64": torch.int64, "int32": torch.int32, "int8": torch.int8, "uint8": torch.uint8,
          "bool": torch.bool}


def main(module_path, folder):
    spec = importlib.util.spec_from_file_location("reference_module", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with open(os.path.join(folder, "case.json")) as f:
        case = json.load(f)
    namespace, name = case["op"].split("::")
    op = getattr(getattr(torch.ops, namespace), name)
    inputs = [torch.from_numpy(np.load(os.path.join(folder, i["file"]))).cuda()
              if i and i.get("file") else None for i in case["inputs"]]
    returned = op(*inputs, **case.get("attributes", {}))
    returned = [] if returned is None else list(returned) if isinstance(
        returned, (tuple, list)) else [returned]
    # The plugin's outputs: the inputs the op writes in place, in order, then what it returns.
    written = [k for k, argument in enumerate(op.default._schema.arguments)
               if argument.alias_info and argument.alias_info.is_write]
    outputs = [inputs[k] for k in written] + returned
    for spec, output in zip(case["outputs"], outputs):
        np.save(os.path.join(folder, spec["file"]),
                output.to(DTYPES[spec["dtype"]]).cpu().numpy())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
