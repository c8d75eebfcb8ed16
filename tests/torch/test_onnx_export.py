"""torch.onnx.export(dynamo=True) of models calling the examples' ops, with autoplugin.onnx's
translation table, on the CPU (the export traces with fake tensors): each model passes
onnx.checker and `autoplugin onnx` against the examples' plugin library, and each plugin node's
attributes, converted as TensorRT's ONNX parser converts them, decode in the creator to the
values of the call. Needs torch, onnx and onnxscript, the plugin library and the tool; the ops
come from the PyTorch op library when it was built, else from the plugin library's schemas
with the same fake implementations (all that tracing uses)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

PLUGIN_LIBRARY = os.environ.get("AUTOPLUGIN_PLUGIN_LIBRARY", "")
TORCH_LIBRARY = os.environ.get("AUTOPLUGIN_TORCH_LIBRARY", "")
TOOL = os.environ.get("AUTOPLUGIN_TOOL", "")


def requirements_missing():
    for module in ("torch", "onnx", "onnxscript"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} is not installed"
    if not os.path.exists(PLUGIN_LIBRARY):
        return (f"the examples' TensorRT plugin library was not built (needs TensorRT headers "
                f"and nvcc; AUTOPLUGIN_PLUGIN_LIBRARY={PLUGIN_LIBRARY!r})")
    if not os.path.exists(TOOL):
        return f"the autoplugin tool was not built with check (AUTOPLUGIN_TOOL={TOOL!r})"
    return None


_scopes = []  # keeps ops defined here alive


def load_ops():
    """The examples' ops in PyTorch, and the Library describing them."""
    import torch

    import autoplugin.torch
    from autoplugin.library import open_library

    if os.path.exists(TORCH_LIBRARY):
        return autoplugin.torch.load_library(TORCH_LIBRARY)
    library = open_library(PLUGIN_LIBRARY)
    for name, op in library.ops.items():
        namespace, rest = op["schema"].split("::", 1)
        scope = torch.library.Library(namespace, "FRAGMENT")
        scope.define(rest)
        torch.library.register_fake(name, autoplugin.torch._fake_implementation(library, op),
                                    lib=scope)
        _scopes.append(scope)
    return library


def run_tool(path, *extra):
    return subprocess.run([TOOL, "onnx", path, PLUGIN_LIBRARY, *extra], capture_output=True,
                          text=True, timeout=300)


class Export(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import onnx
        import torch

        import autoplugin.onnx

        cls.torch, cls.onnx, cls.ap_onnx = torch, onnx, autoplugin.onnx
        cls.library = load_ops()
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import onnx_export_models

        cls.models = {m[0]: m[1:] for m in onnx_export_models.models()}
        cls.folder = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def export(self, name, domain=None):
        """The exported model of `name`, checked by onnx.checker and `autoplugin onnx`, and its
        plugin nodes."""
        model, inputs, dynamic, calls = self.models[name]
        table = self.ap_onnx.translation_table(self.library, domain)
        program = self.torch.onnx.export(model, inputs, dynamo=True, dynamic_shapes=dynamic,
                                         custom_translation_table=table, verbose=False)
        proto = program.model_proto
        self.onnx.checker.check_model(proto, full_check=True)
        path = os.path.join(self.folder.name, f"{name}_{domain or 'own'}.onnx")
        self.onnx.save(proto, path)
        text = run_tool(path)
        print(text.stdout)
        self.assertEqual(text.returncode, 0, text.stdout + text.stderr)
        report = json.loads(run_tool(path, "--json").stdout)
        nodes = [n for n in proto.graph.node if n.domain not in ("", "ai.onnx")]
        self.assertEqual([n["node"] for n in report["nodes"]], [n.name for n in nodes])
        for entry in report["nodes"]:
            self.assertTrue(entry["created"], entry)
            self.assertEqual(entry["problems"], [])
        self.assertEqual(len(nodes), len(calls))
        for node, (op_name, values) in zip(nodes, calls):
            self.assert_decodes_as_called(node, op_name, values)
        return proto, nodes

    def assert_decodes_as_called(self, node, op_name, values):
        from autoplugin import fields

        op = self.library.op(op_name)
        self.assertEqual(node.op_type, op["plugin_name"])
        sent = self.ap_onnx.parser_fields(op, self.ap_onnx.node_attributes(node))
        from_node = self.library.decode_fields(op_name, sent)
        eager = self.library.decode_fields(op_name, fields.encode_attributes(op, values))
        self.assertEqual(from_node, eager)
        for key, value in values.items():
            self.assertEqual(from_node["values"][key], value, key)

    def dims(self, value_info):
        return [d.dim_param or d.dim_value for d in value_info.type.tensor_type.shape.dim]

    def value_info(self, proto, name):
        for v in list(proto.graph.value_info) + list(proto.graph.output):
            if v.name == name:
                return v
        self.fail(f"no type for {name}")

    def test_circular_pad_keeps_the_batch_symbolic(self):
        proto, (node,) = self.export("circular_pad")
        self.assertEqual(node.domain, "torchtrt_ex")
        batch = self.dims(proto.graph.input[0])[0]
        self.assertIsInstance(batch, str)
        self.assertEqual(self.dims(proto.graph.output[0]), [batch, 3, 12, 10])
        self.assertEqual([a.name for a in node.attribute], ["padding"])
        self.assertEqual(node.attribute[0].type, self.onnx.AttributeProto.INTS)

    def test_nonzero_names_its_size_tensor_and_a_symbolic_count(self):
        proto, (node,) = self.export("nonzero")
        self.assertEqual(len(node.output), 2)  # the indices, then the 0-d INT32 count
        count = self.value_info(proto, node.output[1]).type.tensor_type
        self.assertEqual(count.elem_type, self.onnx.TensorProto.INT32)
        self.assertEqual(len(count.shape.dim), 0)
        rows, columns = self.dims(proto.graph.output[0])
        self.assertRegex(rows, r"^u\d+$")
        self.assertEqual(columns, 2)

    def test_broadcast_to_takes_its_size_as_a_shape_input(self):
        proto, (node,) = self.export("broadcast_to")
        attributes = {a.name: a for a in node.attribute}
        self.assertEqual(list(attributes["tensorrt_plugin_shape_input_indices"].ints), [1])
        self.assertEqual(len(node.input), 2)
        producer = [n for n in proto.graph.node if node.input[1] in n.output]
        self.assertEqual([n.op_type for n in producer], ["Concat"])  # [like.shape[0], 2, 3]
        batch = self.dims(proto.graph.input[1])[0]
        self.assertEqual(self.dims(proto.graph.output[0]), [batch, 2, 3])

    def test_bias_act_leaves_absent_inputs_out(self):
        proto, (middle, trailing) = self.export("bias_act")
        self.assertEqual(len(middle.input), 2)
        self.assertEqual({a.name: list(a.ints) for a in middle.attribute
                          if a.name == "autoplugin_absent_inputs"},
                         {"autoplugin_absent_inputs": [1]})
        self.assertEqual(len(trailing.input), 2)
        self.assertNotIn("autoplugin_absent_inputs", [a.name for a in trailing.attribute])
        self.assertTrue(all(name for n in (middle, trailing) for name in n.input))

    def test_scale_shift_sends_every_attribute_type(self):
        proto, (node,) = self.export("scale_shift")
        kinds = {a.name: self.onnx.AttributeProto.AttributeType.Name(a.type)
                 for a in node.attribute}
        self.assertEqual(kinds, {"scale": "FLOAT", "shift": "INT", "relu": "INT",
                                 "rounding": "STRING"})

    def test_onnx_runtime_domain_keeps_the_namespace_in_an_attribute(self):
        proto, (node,) = self.export("scale_shift", domain=self.ap_onnx.ORT_TENSORRT_DOMAIN)
        self.assertEqual(node.domain, "trt.plugins")
        namespace = [a.s for a in node.attribute if a.name == "plugin_namespace"]
        self.assertEqual(namespace, [b"torchtrt_ex"])
        self.assertIn("trt.plugins", [o.domain for o in proto.opset_import])

    def test_dlrm_embedding_bags_become_plugin_nodes(self):
        """aten's embedding_bag (a Loop over bags in plain ONNX export) as the plugin node, with
        aten_translation_table: one node per table of the DLRM-style model, decoding to the
        table's mode, include_last_offset and padding_idx."""
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                        "examples", "embedding_bag"))
        from dlrm import DLRM, TABLES, example_inputs

        table = dict(self.ap_onnx.translation_table(self.library))
        table.update(self.ap_onnx.aten_translation_table(self.library))
        model = DLRM().eval()
        program = self.torch.onnx.export(model, example_inputs(batch=8), dynamo=True,
                                         custom_translation_table=table, verbose=False)
        proto = program.model_proto
        self.onnx.checker.check_model(proto, full_check=True)
        path = os.path.join(self.folder.name, "dlrm.onnx")
        self.onnx.save(proto, path)
        text = run_tool(path)
        print(text.stdout)
        self.assertEqual(text.returncode, 0, text.stdout + text.stderr)
        report = json.loads(run_tool(path, "--json").stdout)
        self.assertTrue(all(entry["created"] and not entry["problems"]
                            for entry in report["nodes"]), report)
        self.assertNotIn("Loop", [n.op_type for n in proto.graph.node])
        nodes = [n for n in proto.graph.node if n.domain == "torchtrt_ex"]
        self.assertEqual(len(nodes), len(TABLES))
        for node, (_, _, mode, padding, weighted, last_offset) in zip(nodes, TABLES):
            self.assert_decodes_as_called(node, "torchtrt_ex::embedding_bag",
                                          {"mode": mode, "include_last_offset": last_offset,
                                           "padding_idx": padding})
            # weight, indices, offsets, and the per-sample weights where the table takes them
            self.assertEqual(len(node.input), 4 if weighted else 3)

    def test_an_op_not_in_pytorch_is_named(self):
        with self.assertRaisesRegex(self.ap_onnx.OnnxExportError,
                                    r"op 'nowhere::op' is not defined in PyTorch"):
            self.ap_onnx._torch_op("nowhere::op")


if __name__ == "__main__":
    unittest.main()
