"""autoplugin.onnx's node for a call, without torch or onnx: the attributes it writes, converted
as TensorRT's ONNX parser converts them, decode in the creator (the library's decode_fields) to
the values of the call. Needs the test op library (AUTOPLUGIN_TEST_OPS_LIBRARY)."""
import os
import unittest

from autoplugin import fields
from autoplugin import onnx as ap_onnx
from autoplugin.library import Library

LIBRARY = os.environ.get("AUTOPLUGIN_TEST_OPS_LIBRARY", "")


def requirements_missing():
    if not os.path.exists(LIBRARY):
        return f"the test op library was not built (AUTOPLUGIN_TEST_OPS_LIBRARY={LIBRARY!r})"
    return None


REQUIRED = {"i": -7, "il": [1, -2, 2**31 - 1], "f": 0.5, "fl": [1.5, -2.25], "b": True,
            "bl": [True, False], "s": "reflect", "t": "float16"}


class PluginNode(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.library = Library(LIBRARY)
        cls.every = cls.library.op("pytest::every_attribute")
        cls.optional = cls.library.op("pytest::optional_inputs")

    def node(self, values, domain=None):
        return ap_onnx.plugin_node(self.every, ["x"], values, domain)

    def decoded(self, op, attributes):
        answer = self.library.decode_fields(op["name"], ap_onnx.parser_fields(op, attributes))
        self.assertEqual(answer["warnings"], [])
        return answer["values"]

    def test_attributes_have_the_onnx_types_describe_lists(self):
        node = self.node(dict(REQUIRED, oi=3, oil=[4], os="x"))
        types = {a.name: a.type for a in node.attributes}
        listed = {a["name"]: a["onnx"] for a in self.every["attributes"]}
        for name, kind in types.items():
            self.assertEqual(kind, listed[name], name)
        self.assertEqual(types["b"], "INT")
        self.assertEqual(types["bl"], "INTS")
        self.assertEqual(types["t"], "STRING")

    def test_the_parser_fields_decode_to_the_call_values(self):
        values = dict(REQUIRED, oi=3, oil=[4, 5], dl=[], os="x")
        self.assertEqual(self.decoded(self.every, self.node(values).attributes), values)

    def test_none_is_left_out_or_an_empty_list(self):
        node = self.node(dict(REQUIRED, oi=None, oil=None, os=None))
        by_name = {a.name: a for a in node.attributes}
        self.assertNotIn("oi", by_name)  # default None: the creator's default
        self.assertNotIn("oil", by_name)
        self.assertEqual(by_name["os"], ap_onnx.OnnxAttribute("os", "STRINGS", []))
        values = self.decoded(self.every, node.attributes)
        self.assertIsNone(values["oi"])
        self.assertIsNone(values["oil"])
        self.assertIsNone(values["os"])  # and not its default "hi"

    def test_none_for_a_list_whose_default_is_not_none_is_refused(self):
        # int[]? oil=[4] (the test library declares oil=None): an empty INTS is the empty list.
        op = dict(self.every, attributes=[dict(a, default=[4]) if a["name"] == "oil" else a
                                          for a in self.every["attributes"]])
        with self.assertRaisesRegex(ap_onnx.OnnxExportError,
                                    r"op 'pytest::every_attribute': attribute 'oil': None cannot "
                                    r"be sent through ONNX.*default \(\[4\]\) is not None"):
            ap_onnx.plugin_node(op, ["x"], dict(REQUIRED, oil=None))
        with self.assertRaisesRegex(fields.FieldEncodingError,
                                    r"attribute 'dl': None given, but the schema type int\[\] is "
                                    r"not optional"):
            self.node(dict(REQUIRED, dl=None))

    def test_an_int_beyond_int32_is_refused_naming_the_attribute(self):
        with self.assertRaisesRegex(fields.FieldEncodingError, r"attribute 'i': 2147483648 "
                                                               r"does not fit"):
            self.node(dict(REQUIRED, i=2**31))

    def test_a_dtype_travels_as_its_name(self):
        # torch.onnx hands a translation function a torch.dtype as its ONNX code (BFLOAT16: 16).
        node = self.node(dict(REQUIRED, t=16))
        (t,) = [a for a in node.attributes if a.name == "t"]
        self.assertEqual(t, ap_onnx.OnnxAttribute("t", "STRING", "bfloat16"))
        self.assertEqual(ap_onnx.parser_fields(self.every, [t]),
                         [fields.Field("t", "CHAR", b"bfloat16\0", 9)])

    def test_the_domain_is_the_namespace_or_plugin_namespace_says_it(self):
        own = self.node(REQUIRED)
        self.assertEqual((own.op_type, own.domain), ("every_attribute", "pytest"))
        self.assertNotIn("plugin_namespace", [a.name for a in own.attributes])
        ort = self.node(REQUIRED, domain=ap_onnx.ORT_TENSORRT_DOMAIN)
        self.assertEqual(ort.domain, "trt.plugins")
        self.assertIn(ap_onnx.OnnxAttribute("plugin_namespace", "STRING", "pytest"),
                      ort.attributes)
        self.assertNotIn("plugin_version", [a.name for a in ort.attributes])  # version "1"

    def test_absent_inputs_are_left_out_or_declared(self):
        def node(*args):
            return ap_onnx.plugin_node(self.optional, args, {})

        trailing = node("x", "w", None)
        self.assertEqual(trailing.inputs, ["x", "w"])
        self.assertEqual(trailing.attributes, [])
        middle = node("x", None, "b")
        self.assertEqual(middle.inputs, ["x", "b"])
        self.assertEqual(middle.attributes,
                         [ap_onnx.OnnxAttribute("autoplugin_absent_inputs", "INTS", [1])])
        self.assertEqual(self.decoded(self.optional, middle.attributes), {})
        with self.assertRaisesRegex(ap_onnx.OnnxExportError,
                                    r"argument 'x' \(Tensor\) is required, got None"):
            node(None, "w", "b")

    def test_outputs_count_size_tensors(self):
        count = self.library.op("pytest::count")
        node = ap_onnx.plugin_node(count, ["x"], {})
        self.assertEqual((node.num_returns, node.num_outputs), (1, 2))  # the output, its count

    def test_an_attribute_computed_in_the_graph_is_refused(self):
        class Symbolic:
            pass

        with self.assertRaisesRegex(ap_onnx.OnnxExportError,
                                    r"attribute 'i' is .*a value computed in the graph"):
            self.node(dict(REQUIRED, i=Symbolic()))


if __name__ == "__main__":
    unittest.main()
