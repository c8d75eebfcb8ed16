"""What the aten converters share: binding a node's arguments by aten's schema, and one
``Conversion`` per aten family that answers the capability validator, builds the plugin request
and registers the converters."""

from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from ..library import Library, open_library
from ..torch_tensorrt import (ConverterCall, PluginRequest, add_plugin_layer, call_refusal,
                              plugin_request, register_aten_converters)


def bind(target: str, names: Sequence[str], args: Sequence[Any], kwargs: Dict[str, Any],
         required: Sequence[str] = ()) -> Dict[str, Any]:
    """aten's arguments by name: the positional ones in schema order (``names``), then the
    keywords; raises naming the overload when there are too many or a required one is missing."""
    if len(args) > len(names):
        raise ValueError(f"{target}: {len(args)} positional arguments, it takes at most "
                         f"{len(names)}")
    bound = dict(zip(names, args))
    bound.update(kwargs)
    missing = [name for name in required if name not in bound]
    if missing:
        raise ValueError(f"{target}: missing argument{'s' if len(missing) > 1 else ''} "
                         f"{', '.join(missing)}")
    return bound


def overload(target: str) -> Any:
    """The torch.ops object of an overload named as a graph prints it ("aten.sort.stable")."""
    import torch

    namespace, name, variant = target.split(".")
    return getattr(getattr(getattr(torch.ops, namespace), name), variant)


def _first_or_tuple(outputs: List[Any]) -> Any:
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


_registered: Dict[Tuple[str, str], Library] = {}


class Conversion(NamedTuple):
    """One family of aten overloads onto one plugin op."""

    op_name: str  # the plugin op, "namespace::name"
    targets: Tuple[str, ...]  # the overloads, as str(node.target) names them
    own_refusal: Callable[[Any], Optional[str]]  # the aten-side reasons, from a graph node
    call: Callable[[Any], Tuple[List[Any], Dict[str, Any]]]  # the plugin op's args and kwargs
    outputs: Callable[[List[Any]], Any] = _first_or_tuple  # the converter's result

    def refusal(self, library: Library, node: Any) -> Optional[str]:
        """Why the plugin cannot take this node (a graph node with ``meta["val"]`` on its
        inputs), or None: the aten-side reasons first, then the library's creator and launcher
        table on the plugin call."""
        reason = self.own_refusal(node)
        if reason is not None:
            return reason
        args, kwargs = self.call(node)
        return call_refusal(library, library.op(self.op_name), args, kwargs)

    def request(self, op: Dict[str, Any], args: Sequence[Any], kwargs: Dict[str, Any],
                target: str) -> PluginRequest:
        """The plugin (name, version, namespace, fields) and its inputs for one converter call
        (TensorRT tensors or graph nodes in the tensor positions); ``op`` is the library's
        description of the plugin op."""
        plugin_args, plugin_kwargs = self.call(ConverterCall(target, args, kwargs))
        return plugin_request(op, plugin_args, plugin_kwargs)

    def register(self, plugin_library: str) -> Library:
        """Registers a converter for each overload, at a priority above Torch-TensorRT's own and
        without its decompositions of them, onto the plugin op of a library that has it; loads
        the library into TensorRT's plugin registry. Once per library and op."""
        library = open_library(plugin_library)
        key = (library.path, self.op_name)
        if key in _registered:
            return library
        op = library.op(self.op_name)  # raises naming the library's ops when it lacks this one

        def validator(node, settings=None):
            return self.refusal(library, node) is None

        def converter(ctx, target, args, kwargs, name):
            return self.outputs(add_plugin_layer(ctx, self.request(op, args, kwargs, str(target)),
                                                 name))

        register_aten_converters(library, [overload(t) for t in self.targets], validator,
                                 converter)
        _registered[key] = library
        return library
