"""autoplugin's Python side: used at build and generation time and by PyTorch users, never by a
plugin at run time.

- ``autoplugin.torch``: load an autoplugin op library into PyTorch (ops and fake implementations).
- ``autoplugin.torch_tensorrt``: Torch-TensorRT converters that insert the ops' TensorRT plugins.
- ``autoplugin.onnx``: ONNX export (torch.onnx, dynamo) of the ops as the nodes TensorRT's ONNX
  parser makes their plugins of.
- ``autoplugin.from_torch``: a Python custom op with a Triton kernel becomes a native plugin.
"""

__version__ = "0.1.0"
