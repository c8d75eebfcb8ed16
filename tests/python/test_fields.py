"""The Python package's field encoding against the C++ creator's decoding, and the shape
programs a library hands out, evaluated over ints. Needs only the Python standard library and
the test op library (AUTOPLUGIN_TEST_OPS_LIBRARY)."""
import os
import unittest

from autoplugin import fields, shape_program
from autoplugin.library import Library, LibraryError

LIBRARY = os.environ.get("AUTOPLUGIN_TEST_OPS_LIBRARY", "")


def requirements_missing():
    if not os.path.exists(LIBRARY):
        return f"the test op library was not built (AUTOPLUGIN_TEST_OPS_LIBRARY={LIBRARY!r})"
    return None


class Encoding(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.library = Library(LIBRARY)
        cls.op = cls.library.op("pytest::every_attribute")

    def round_trip(self, values):
        encoded = fields.encode_attributes(self.op, values)
        return self.library.decode_fields(self.op["name"], encoded)

    def test_every_type_decodes_to_the_value_given(self):
        values = {"i": -7, "il": [1, -2, 2**31 - 1], "f": 0.5, "fl": [1.5, -2.25], "b": True,
                  "bl": [True, False, True], "s": "reflect", "t": "float16", "oi": 3,
                  "oil": [4, 5], "dl": [], "os": None}
        answer = self.round_trip(values)
        self.assertEqual(answer["values"], values)
        self.assertEqual(answer["warnings"], [])

    def test_fields_have_the_types_the_creator_lists(self):
        encoded = {f.name: f for f in fields.encode_attributes(
            self.op, {"i": 1, "il": [1], "f": 1.0, "fl": [1.0, 2.0], "b": False, "bl": [],
                      "s": "x", "t": "int64"})}
        listed = {a["name"]: a["field_type"] for a in self.op["attributes"]}
        for name, field in encoded.items():
            self.assertEqual(field.type, listed[name], name)
        self.assertEqual(encoded["s"].data, b"x\0")  # NUL counted, as the ONNX parser sends it

    def test_omitted_attributes_take_their_defaults(self):
        answer = self.round_trip({"i": 1, "il": [], "f": 2.0, "fl": [0.0, 0.0], "b": False,
                                  "bl": [], "s": "", "t": "bfloat16"})
        self.assertEqual(answer["values"]["oi"], None)
        self.assertEqual(answer["values"]["oil"], None)
        self.assertEqual(answer["values"]["dl"], [1, 2])
        self.assertEqual(answer["values"]["os"], "hi")

    def test_none_of_a_variable_list_is_not_the_empty_list(self):
        none = self.round_trip({"i": 1, "il": [], "f": 2.0, "fl": [0.0, 0.0], "b": False,
                                "bl": [], "s": "", "t": "int8", "oil": None})
        empty = self.round_trip({"i": 1, "il": [], "f": 2.0, "fl": [0.0, 0.0], "b": False,
                                 "bl": [], "s": "", "t": "int8", "oil": []})
        self.assertIsNone(none["values"]["oil"])
        self.assertEqual(empty["values"]["oil"], [])

    def test_a_torch_dtype_name_is_accepted(self):
        answer = self.round_trip({"i": 1, "il": [], "f": 2.0, "fl": [0.0, 0.0], "b": False,
                                  "bl": [], "s": "", "t": "torch.float16"})
        self.assertEqual(answer["values"]["t"], "float16")

    def test_values_the_fields_cannot_carry_are_refused_with_every_problem_named(self):
        with self.assertRaises(fields.FieldEncodingError) as caught:
            fields.encode_attributes(self.op, {"i": 2**40, "fl": [1.0], "b": 1, "s": 3,
                                               "t": "complex64", "il": None})
        message = str(caught.exception)
        self.assertIn("op 'pytest::every_attribute': attribute 'i': 1099511627776 does not fit "
                      "the field type INT32", message)
        self.assertIn("attribute 'fl': expected 2 values (schema type float[2])", message)
        self.assertIn("attribute 'b': expected a bool (schema type bool), got int 1", message)
        self.assertIn("attribute 's': expected a str", message)
        self.assertIn("attribute 't': dtype complex64 has no autoplugin equivalent", message)
        self.assertIn("attribute 'il': None given, but the schema type int[] is not optional",
                      message)

    def test_a_call_binds_positional_and_keyword_arguments_by_schema_name(self):
        bound = fields.bind_call(self.op, ["x", 1], {"s": "a"})
        self.assertEqual(bound, {"x": "x", "i": 1, "s": "a"})
        with self.assertRaisesRegex(TypeError, "has no argument 'nope'"):
            fields.bind_call(self.op, [], {"nope": 1})


class ShapePrograms(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.library = Library(LIBRARY)

    def evaluate(self, op, sizes, attributes=None, dtypes=None, size_tensor=None):
        encoded = fields.encode_attributes(self.library.op(op), attributes or {})
        program = self.library.shape_program(op, [len(s) for s in sizes],
                                             dtypes or ["float32"] * len(sizes), [], encoded)
        values = shape_program.evaluate(program, sizes, [], size_tensor or (lambda *a: None))
        return program, values

    def test_every_operation_evaluates_as_the_shape_function_computes(self):
        for x, y, k in [((7, 9), (3, 2), 0), ((1, 5), (4, 8), 2), ((12, 3), (12, 3), 5)]:
            program, values = self.evaluate("pytest::arithmetic", [x, y], {"k": k})
            a, b = shape_program.output_shapes(program, values)
            self.assertEqual(a, [-(-x[0] // 3) + k, x[1] % 4 + max(x[0], y[0]) - min(x[1], y[1])])
            self.assertEqual(b, [(x[0] if x[0] < y[0] else y[0]) * 2, x[1] // 2])
            self.assertEqual(shape_program.failed_requirements(program, values), [])
            self.assertEqual([o["dtype"] for o in program["outputs"]], ["float32", "int64"])

    def test_a_requirement_that_fails_is_reported_by_its_message(self):
        program, values = self.evaluate("pytest::arithmetic", [(0, 4), (1, 1)])
        self.assertEqual(shape_program.failed_requirements(program, values), ["x has a row"])

    def test_data_dependent_extents_come_from_the_size_tensor(self):
        seen = []

        def size_tensor(index, opt, upper):
            seen.append((index, opt, upper))
            return 5

        program, values = self.evaluate("pytest::count", [(3, 4)], size_tensor=size_tensor)
        self.assertEqual(seen, [(0, 6, 12)])
        self.assertEqual(shape_program.output_shapes(program, values), [[5, 1]])

    def test_dtypes_without_a_launcher_are_refused_with_the_launchers_listed(self):
        with self.assertRaises(LibraryError) as caught:
            self.evaluate("pytest::arithmetic", [(1, 1), (1, 1)], dtypes=["int64", "float32"])
        self.assertIn("no launcher for dtypes (int64, float32, int64, int64)",
                      str(caught.exception))
        self.assertIn("(int32, float32, int32, int64)  arithmetic<std::int32_t>",
                      str(caught.exception))

    def test_none_for_a_tensor_input_is_an_absent_one(self):
        op = "pytest::optional_inputs"

        def shapes(ranks, sizes, dtypes):
            program = self.library.shape_program(op, ranks, dtypes, [], [])
            values = shape_program.evaluate(program, sizes, [], lambda *a: None)
            return shape_program.output_shapes(program, values)

        self.assertEqual(shapes([2, 1, 1], [(4, 5), (3,), (6,)], ["float32"] * 3), [[4, 3, 16]])
        self.assertEqual(shapes([2, -1, 1], [(4, 5), (), (6,)], ["float32", "", "float32"]),
                         [[4, 1, 16]])
        self.assertEqual(shapes([2, -1, -1], [(4, 5), (), ()], ["float32", "", ""]), [[4, 1, 2]])
        with self.assertRaisesRegex(LibraryError, r"argument 'x' \(Tensor\) is required, got None"):
            shapes([-1, 1, 1], [(), (3,), (6,)], ["", "float32", "float32"])

    def test_a_converter_leaves_out_trailing_absent_inputs_and_declares_the_others(self):
        from autoplugin import torch_tensorrt

        op = self.library.op("pytest::optional_inputs")
        request = torch_tensorrt.plugin_request(op, ["x", None, "b"], {})
        self.assertEqual(request.tensor_arguments, ["x", "b"])
        self.assertEqual(request.absent_inputs, [1])
        self.assertEqual(request.fields, [fields.absent_inputs_field([1])])
        self.assertEqual(self.library.decode_fields(op["name"], request.fields)["warnings"], [])
        request = torch_tensorrt.plugin_request(op, ["x", "w"], {})
        self.assertEqual((request.tensor_arguments, request.fields), (["x", "w"], []))
        with self.assertRaisesRegex(ValueError, r"argument 'x' \(Tensor\) is required"):
            torch_tensorrt.plugin_request(op, [None], {})

    def test_an_unknown_op_names_the_ops_there_are(self):
        with self.assertRaisesRegex(LibraryError, "no op 'pytest::nope'.*pytest::arithmetic"):
            self.library.op("pytest::nope")
