"""aten ops as the examples' plugins: Torch-TensorRT converters, registered above Torch-TensorRT's
own, that put a plugin of the examples' library where Torch-TensorRT would unroll the op, loop
over it or break the graph.

    import autoplugin.aten.embedding_bag, autoplugin.aten.scatter, autoplugin.aten.sort
    autoplugin.aten.embedding_bag.register_converters("libautoplugin_examples_plugins.so")
    autoplugin.aten.scatter.register_converters("libautoplugin_examples_plugins.so")
    autoplugin.aten.sort.register_converters("libautoplugin_examples_plugins.so")

Each module maps one family of aten overloads onto one plugin op with a ``Conversion``
(``conversion.py``): the overloads, the module's own refusals, and the plugin call for a node.
Everything but the TensorRT calls is a plain function of the graph node, tested without
TensorRT. Converters for an autoplugin op of your own come from
``autoplugin.torch_tensorrt.register_converters``; these are for aten's ops.
"""
