"""What the tests of the examples' PyTorch op library need, said once: the library CTest names
(AUTOPLUGIN_TORCH_LIBRARY), the reason a test module cannot run here, if any, and graph nodes as
the converters' validators read them."""
import os

LIBRARY = os.environ.get("AUTOPLUGIN_TORCH_LIBRARY", "")


def missing(gpu):
    """The first missing prerequisite (PyTorch, a GPU when `gpu`, the library), or None."""
    try:
        import torch
    except ImportError:
        return "PyTorch is not installed"
    if gpu and not torch.cuda.is_available():
        return "no GPU (the ops' kernels run on CUDA devices)"
    if not os.path.exists(LIBRARY):
        return "the examples' PyTorch op library was not built (needs PyTorch and nvcc)"
    return None


class Node:
    """What the validator reads of an FX node: target, args, kwargs, meta["val"]."""

    def __init__(self, target, args, kwargs=None):
        self.target, self.args, self.kwargs, self.meta = target, args, kwargs or {}, {}


def tensor_node(shape, dtype):
    import torch

    node = Node(None, ())
    node.meta["val"] = torch.empty(shape, dtype=dtype, device="meta")
    return node
