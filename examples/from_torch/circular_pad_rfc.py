"""Circular padding written the way the Torch-TensorRT RFC writes a Triton custom op.

A flat-index Triton kernel (one output element per lane) that takes the padding amounts, the
input's dims, the output's dims and both element counts as int32 scalars; host code that builds
NumPy arrays of dims and pads and launches cdiv(numel, 256) programs; a fake implementation that
calls F.pad(..., "circular"). `python3 -m autoplugin.from_torch` turns it into a plugin.
"""
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def circ_pad_kernel(X, all_pads_0, all_pads_2, all_pads_4, all_pads_6, orig_dims_0, orig_dims_1,
                    orig_dims_2, orig_dims_3, Y, Y_shape_1, Y_shape_2, Y_shape_3, X_len, Y_len,
                    BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    i = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask_y = i < Y_len
    i3 = i % Y_shape_3
    i2 = (i // Y_shape_3) % Y_shape_2
    i1 = (i // Y_shape_3 // Y_shape_2) % Y_shape_1
    i0 = i // Y_shape_3 // Y_shape_2 // Y_shape_1
    j0 = (i0 - all_pads_0 + orig_dims_0) % orig_dims_0
    j1 = (i1 - all_pads_2 + orig_dims_1) % orig_dims_1
    j2 = (i2 - all_pads_4 + orig_dims_2) % orig_dims_2
    j3 = (i3 - all_pads_6 + orig_dims_3) % orig_dims_3
    load_idx = (orig_dims_3 * orig_dims_2 * orig_dims_1 * j0 + orig_dims_3 * orig_dims_2 * j1
                + orig_dims_3 * j2 + j3)
    mask_x = load_idx < X_len
    x = tl.load(X + load_idx, mask=mask_x & mask_y)
    tl.store(Y + i, x, mask=mask_y)


@torch.library.custom_op("torchtrt_ex::triton_circular_pad", mutates_args=())
def triton_circular_pad(x: torch.Tensor, padding: Sequence[int]) -> torch.Tensor:
    out_dims = np.ones(len(x.shape), dtype=np.int32)
    for i in range(np.size(padding) // 2):
        out_dims[len(out_dims) - i - 1] = (x.shape[len(out_dims) - i - 1] + padding[i * 2]
                                           + padding[i * 2 + 1])
    N = len(x.shape)
    all_pads = np.zeros((N * 2,), dtype=np.int32)
    orig_dims = np.array(x.shape, dtype=np.int32)
    out_dims = np.array(x.shape, dtype=np.int32)
    for i in range(len(padding) // 2):
        out_dims[N - i - 1] += padding[i * 2] + padding[i * 2 + 1]
        all_pads[N * 2 - 2 * i - 2] = padding[i * 2]
        all_pads[N * 2 - 2 * i - 1] = padding[i * 2 + 1]
    y = torch.empty(tuple(out_dims.tolist()), device=x.device, dtype=x.dtype)
    blockSize = 256
    numBlocks = (int((np.prod(out_dims) + blockSize - 1) // blockSize),)
    circ_pad_kernel[numBlocks](x, all_pads[0], all_pads[2], all_pads[4], all_pads[6],
                               orig_dims[0], orig_dims[1], orig_dims[2], orig_dims[3],
                               y, out_dims[1], out_dims[2], out_dims[3],
                               int(np.prod(orig_dims)), int(np.prod(out_dims)), BLOCK_SIZE=256)
    return y


@torch.library.register_fake("torchtrt_ex::triton_circular_pad")
def _(x: torch.Tensor, padding: Sequence[int]) -> torch.Tensor:
    return F.pad(x, padding, "circular")
