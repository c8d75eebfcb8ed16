"""PyTorch references for the example ops, for `autoplugin check --reference`.

Usage: python3 examples/reference.py DIR
       python3 examples/reference.py --serve SOCKET   (every case of a run: tools/reference_server.py)
DIR holds case.json (op, attributes, shape_inputs, inputs (null for an absent one), outputs) and
input<k>.npy; this writes the outputs it lists. bfloat16 travels as uint16 bits, float8_e4m3fn as
uint8 (NumPy has neither). Runs on the GPU when there is one.
"""
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
          "int8": torch.int8, "int32": torch.int32, "int64": torch.int64,
          "float8_e4m3fn": torch.float8_e4m3fn}
# NumPy has no bfloat16 or float8: they travel as their bits, (the file's NumPy type, the NumPy
# type PyTorch reads them from, PyTorch's integer type of their width).
BITS = {"bfloat16": (np.uint16, np.int16, torch.int16),
        "float8_e4m3fn": (np.uint8, np.uint8, torch.uint8)}
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def load(path, dtype):
    array = np.load(path)
    if dtype in BITS:
        stored, readable, _ = BITS[dtype]
        return torch.from_numpy(array.astype(stored).view(readable)).view(DTYPES[dtype]).to(DEVICE)
    return torch.from_numpy(array).to(DEVICE)


def save(path, tensor, dtype):
    tensor = tensor.to(DTYPES[dtype]).contiguous().cpu()
    if dtype in BITS:
        stored, _, carrier = BITS[dtype]
        np.save(path, tensor.view(carrier).numpy().view(stored))
    else:
        np.save(path, tensor.numpy())


def circular_pad(x, attributes, shape_inputs):
    padding = attributes["padding"]
    if all(p >= 0 for p in padding) and len(padding) // 2 < x.dim():
        try:
            return [F.pad(x, padding, mode="circular")]
        except (RuntimeError, NotImplementedError):
            pass  # F.pad covers only some ranks and padding lengths
    # Any rank and padding, negative (cropping) included: gather wrapped indices per dimension.
    out = x
    for i in range(len(padding) // 2):
        dim = x.dim() - 1 - i
        before, after = padding[2 * i], padding[2 * i + 1]
        n = x.shape[dim]
        index = torch.arange(-before, n + after, device=x.device) % n
        out = out.index_select(dim, index)
    return [out]


def gelu_tanh(x, attributes, shape_inputs):
    return [F.gelu(x, approximate="tanh")]


def row_max(x, attributes, shape_inputs):
    values, indices = torch.max(x, dim=-1)
    return [values, indices]


def nonzero(x, attributes, shape_inputs):
    return [torch.nonzero(x)]


def broadcast_to(x, attributes, shape_inputs):
    return [x.broadcast_to(shape_inputs[0])]


def scale_shift(x, attributes, shape_inputs):
    y = x.float() * attributes.get("scale", 1.0) + attributes.get("shift", 0)
    if attributes.get("relu", False):
        y = torch.relu(y)
    rounding = attributes.get("rounding", "none")
    if rounding == "floor":
        y = torch.floor(y)
    elif rounding == "nearest":
        y = torch.round(y)
    return [y.to(x.dtype)]


def embedding_bag(weight, indices, *rest):
    # offsets and per_sample_weights: None when absent, or not listed when trailing.
    *optional, attributes, shape_inputs = rest
    offsets, per_sample_weights = (list(optional) + [None, None])[:2]
    # Attributes the case leaves out come as the plugin serialized them: the bool as 0/1, the
    # optional int as a list (empty for None).
    padding_idx = attributes.get("padding_idx")
    if isinstance(padding_idx, list):
        padding_idx = padding_idx[0] if padding_idx else None
    return [F.embedding_bag(indices, weight, offsets, mode=attributes.get("mode", "sum"),
                            per_sample_weights=per_sample_weights,
                            include_last_offset=bool(attributes.get("include_last_offset", False)),
                            padding_idx=padding_idx)]


def scatter_reduce(self, index, src, attributes, shape_inputs):
    # Out-of-range index values are skipped by the kernel (PyTorch raises): give them no source.
    dim = attributes["dim"]
    reduce = attributes["reduce"]
    include_self = attributes.get("include_self", True)
    extent = self.shape[dim] if self.dim() > 0 else 1
    valid = (index >= 0) & (index < extent)
    if bool(valid.all()):
        return [self.scatter_reduce(dim, index.long(), src, reduce, include_self=include_self)]
    # Send the skipped elements to an extra position along dim, then drop it.
    padded_shape = list(self.shape)
    padded_shape[dim] += 1
    padded = torch.zeros(padded_shape, dtype=self.dtype, device=self.device)
    padded.narrow(dim, 0, extent).copy_(self)
    redirected = torch.where(valid, index.long(), extent)
    out = padded.scatter_reduce(dim, redirected, src, reduce, include_self=include_self)
    return [out.narrow(dim, 0, extent)]


def sort(x, attributes, shape_inputs):
    # The kernel is always stable; stable=False allows any order of ties, the stable one included.
    # (bool fields arrive as 0 or 1)
    values, indices = torch.sort(x, dim=int(attributes.get("dim", -1)),
                                 descending=bool(attributes.get("descending", False)), stable=True)
    return [values, indices]


def row_sum(x, attributes, shape_inputs):
    return [x.sum(dim=-1)]


def bias_act(x, weight, bias, attributes, shape_inputs):
    # weight and bias (None when absent) scale and shift x's dimension 1, in float32 as the kernel.
    per_channel = [1, -1] + [1] * (x.dim() - 2)
    y = x.float()
    if weight is not None:
        y = y * weight.float().reshape(per_channel)
    if bias is not None:
        y = y + bias.float().reshape(per_channel)
    if attributes.get("relu", False):
        y = torch.relu(y)
    return [y.to(x.dtype)]


OPS = {"circular_pad": circular_pad, "circular_pad_triton": circular_pad, "gelu_tanh": gelu_tanh,
       "row_max": row_max, "nonzero": nonzero, "broadcast_to": broadcast_to,
       "scale_shift": scale_shift, "embedding_bag": embedding_bag, "row_sum": row_sum,
       "bias_act": bias_act, "scatter_reduce": scatter_reduce, "sort": sort}


def main(folder):
    """Computes the case in `folder`: its outputs, as case.json names them."""
    with open(os.path.join(folder, "case.json")) as f:
        case = json.load(f)
    name = case["op"].split("::")[-1]
    # An absent input (a Tensor? given None) is null in the manifest.
    inputs = [None if i is None else load(os.path.join(folder, i["file"]), i["dtype"])
              for i in case["inputs"]]
    outputs = OPS[name](*inputs, case.get("attributes", {}), case.get("shape_inputs", []))
    for spec, tensor in zip(case["outputs"], outputs):
        save(os.path.join(folder, spec["file"]), tensor, spec["dtype"])


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        # Every case of a run from one process (tools/reference_server.py): PyTorch and the
        # GPU are set up once.
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                        "tools"))
        import reference_server
        reference_server.serve(sys.argv[2], main)
    else:
        main(sys.argv[1])
