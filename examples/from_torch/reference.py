"""PyTorch references for the from-torch examples, for `autoplugin check --reference`.

Usage: python3 examples/from_torch/reference.py DIR (DIR holds case.json and input<k>.npy; this
writes the outputs case.json lists). The custom ops themselves are not the references: the RFC
module's launch passes numpy.int32 values, which Triton 3.6 refuses, so each op is computed
with plain PyTorch instead (circular pad as F.pad(mode="circular")).
"""
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
DTYPES = {"float32": torch.float32, "float16": torch.float16}


def triton_circular_pad(x, attributes):
    return F.pad(x, attributes["padding"], mode="circular")


def scaled_leaky_relu(x, attributes):
    # fp32 arithmetic in the kernel's order: (x or x * slope) * scale, rounded once to the dtype
    slope = torch.tensor(attributes["negative_slope"], dtype=torch.float32)
    scale = torch.tensor(attributes["scale"], dtype=torch.float32)
    y = x.float()
    return (torch.where(y > 0, y, y * slope.to(DEVICE)) * scale.to(DEVICE)).to(x.dtype)


def row_window_max(x, attributes):
    width = min(attributes["window"], x.shape[1])
    return x.unfold(1, width, 1).amax(-1)


# The focused modules of tests/python (from_torch_optional_inplace.py, from_torch_scratch.py),
# in fp32 arithmetic rounded once to the dtype, as their kernels compute.
def scale_bias(x, bias, attributes):
    y = x.float() * attributes["alpha"]
    return (y if bias is None else y + bias.float()).to(x.dtype)


def axpy_(x, y, attributes):
    return (x.float() + attributes["alpha"] * y.float()).to(x.dtype)


def rms_norm_stats(x, attributes):
    y = x.float()
    rstd = torch.rsqrt((y * y).mean(-1) + attributes["eps"])
    return (y * rstd[:, None]).to(x.dtype), rstd


def rms_norm(x, attributes):
    return rms_norm_stats(x, attributes)[0]


OPS = {"triton_circular_pad": triton_circular_pad, "scaled_leaky_relu": scaled_leaky_relu,
       "row_window_max": row_window_max, "scale_bias": scale_bias, "axpy_": axpy_,
       "rms_norm": rms_norm, "rms_norm_stats": rms_norm_stats}


def main(folder):
    with open(os.path.join(folder, "case.json")) as f:
        case = json.load(f)
    # an absent optional input is null
    inputs = [None if i is None else
              torch.from_numpy(np.load(os.path.join(folder, i["file"]))).to(DEVICE)
              for i in case["inputs"]]
    outputs = OPS[case["op"].split("::")[-1]](*inputs, case.get("attributes", {}))
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    for spec, output in zip(case["outputs"], outputs):
        np.save(os.path.join(folder, spec["file"]),
                output.to(DTYPES[spec["dtype"]]).cpu().numpy())


if __name__ == "__main__":
    main(sys.argv[1])
