"""The aten embedding_bag converter's plain parts (python/autoplugin/aten/embedding_bag.py) on
stand-in graph nodes, without PyTorch or TensorRT: aten's arguments as the plugin op's, the
validator's answers with their reasons, and the plugin request decoded by the examples' plugin
library (AUTOPLUGIN_PLUGIN_LIBRARY)."""
import operator
import os
import unittest

from autoplugin.aten import embedding_bag as converters
from autoplugin.library import open_library

LIBRARY = os.environ.get("AUTOPLUGIN_PLUGIN_LIBRARY", "")


def requirements_missing():
    if not os.path.exists(LIBRARY):
        return f"the examples' plugin library was not built (AUTOPLUGIN_PLUGIN_LIBRARY={LIBRARY!r})"
    return None


class Value:
    """What an FX node's meta["val"] offers the validator: rank and dtype."""

    def __init__(self, rank, dtype):
        self.rank, self.dtype = rank, dtype

    def dim(self):
        return self.rank


class Node:
    def __init__(self, name, target=None, args=(), kwargs=None, value=None):
        self.name, self.target, self.args, self.kwargs = name, target, tuple(args), kwargs or {}
        self.meta = {"val": value} if value is not None else {}
        self.users = {}

    def use(self, user):
        self.users[user] = None
        return user


def tensor(name, rank, dtype):
    return Node(name, value=Value(rank, f"torch.{dtype}"))


def embedding_bag(overload, args, kwargs=None, outputs_used=(0,)):
    node = Node("embedding_bag", overload, args, kwargs)
    for k in range(4):  # torch.export writes a getitem per output; the unused ones have no users
        item = node.use(Node(f"getitem_{k}", operator.getitem, (node, k)))
        if k in outputs_used:
            item.use(Node(f"user_{k}", "aten.relu.default"))
    return node


WEIGHT = tensor("weight", 2, "float32")
INDICES = tensor("indices", 1, "int64")
OFFSETS = tensor("offsets", 1, "int64")
SAMPLE_WEIGHTS = tensor("per_sample_weights", 1, "float32")


class Arguments(unittest.TestCase):
    def test_each_overload_maps_to_the_op_arguments(self):
        base = (WEIGHT, INDICES, OFFSETS, True, 1, True, None, True)
        cases = [
            ("aten.embedding_bag.default", base, None),
            ("aten.embedding_bag.padding_idx", base + (-1,), -1),  # wrapped by the op, as aten
            ("aten.embedding_bag.padding_idx", base + (None,), None),
            ("aten._embedding_bag.default", base + (-1,), None),  # _embedding_bag: negative = none
            ("aten._embedding_bag.default", base + (3,), 3),
            ("aten._embedding_bag_forward_only.default", base + (5,), 5),
        ]
        for overload, args, padding_idx in cases:
            with self.subTest(overload=overload, args=args[8:]):
                mapped = converters.arguments(overload, args, {})
                self.assertEqual(mapped, {"weight": WEIGHT, "indices": INDICES,
                                          "offsets": OFFSETS, "mode": "mean",
                                          "per_sample_weights": None,
                                          "include_last_offset": True,
                                          "padding_idx": padding_idx})

    def test_defaults_and_keywords(self):
        mapped = converters.arguments(
            "aten._embedding_bag.default", (WEIGHT, INDICES, OFFSETS),
            {"mode": 2, "per_sample_weights": None})
        self.assertEqual((mapped["mode"], mapped["include_last_offset"], mapped["padding_idx"]),
                         ("max", False, None))

    def test_a_mode_aten_does_not_have_is_refused(self):
        with self.assertRaisesRegex(ValueError, "mode is 0 .sum., 1 .mean. or 2 .max., not 3"):
            converters.arguments(
                "aten.embedding_bag.default", (WEIGHT, INDICES, OFFSETS, False, 3), {})


class Validator(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.library = open_library(LIBRARY)

    def refusal(self, node):
        return converters.refusal(self.library, node)

    def test_the_plugin_takes_every_dtype_pair_it_has_launchers_for(self):
        for weight_dtype in ("float32", "float16", "bfloat16"):
            for index_dtype in ("int64", "int32"):
                with self.subTest(weight=weight_dtype, index=index_dtype):
                    node = embedding_bag("aten.embedding_bag.padding_idx", (
                        tensor("w", 2, weight_dtype), tensor("i", 1, index_dtype),
                        tensor("o", 1, index_dtype), False, 0, False,
                        tensor("psw", 1, weight_dtype), False, 2))
                    self.assertIsNone(self.refusal(node))

    def test_refusals_name_the_reason(self):
        cases = [
            (embedding_bag("aten._embedding_bag.default", (WEIGHT, INDICES, OFFSETS),
                           outputs_used=(0, 1)), "output 1 (offset2bag) is used"),
            (embedding_bag("aten._embedding_bag.default", (WEIGHT, INDICES, OFFSETS, False, 2),
                           outputs_used=(3,)), "output 3 (max_indices) is used"),
            (embedding_bag("aten.embedding_bag.default", (
                WEIGHT, INDICES, OFFSETS, False, 1, False, SAMPLE_WEIGHTS)),
             'per_sample_weights is only supported with mode "sum"'),
            (embedding_bag("aten.embedding_bag.default", (
                tensor("w", 2, "float64"), INDICES, OFFSETS)), "float64"),
            (embedding_bag("aten.embedding_bag.default", (
                WEIGHT, tensor("i", 1, "int32"), OFFSETS)),
             "indices and offsets of different dtypes (torch.int32, torch.int64)"),
            (embedding_bag("aten.embedding_bag.default", (
                WEIGHT, tensor("i", 2, "int64"), OFFSETS)),
             "with offsets, indices and offsets are 1-D"),
        ]
        for node, reason in cases:
            with self.subTest(reason=reason):
                refusal = self.refusal(node)
                self.assertIsNotNone(refusal)
                self.assertIn(reason, refusal)

    def test_a_use_of_the_whole_result_is_refused(self):
        node = Node("embedding_bag", "aten.embedding_bag.default", (WEIGHT, INDICES, OFFSETS))
        node.use(Node("output", "output", (node,)))
        self.assertIn("used whole by output", self.refusal(node))


class Request(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.library = open_library(LIBRARY)

    def test_the_creator_decodes_the_call_and_the_inputs_are_the_tensors(self):
        args = (WEIGHT, INDICES, OFFSETS, False, 0, False, SAMPLE_WEIGHTS, True, -3)
        request = converters.plugin_request(
            self.library.op(converters.OP), args, {}, "aten.embedding_bag.padding_idx")
        self.assertEqual((request.plugin_name, request.plugin_namespace, request.plugin_version),
                         ("embedding_bag", "torchtrt_ex", "1"))
        self.assertEqual(request.tensor_arguments, [WEIGHT, INDICES, OFFSETS, SAMPLE_WEIGHTS])
        self.assertEqual(request.num_outputs, 1)
        decoded = self.library.decode_fields("torchtrt_ex::embedding_bag", request.fields)
        self.assertEqual(decoded["warnings"], [])
        self.assertEqual(decoded["values"], {"mode": "sum", "include_last_offset": True,
                                             "padding_idx": -3})

    def test_no_per_sample_weights_is_one_input_fewer(self):
        request = converters.plugin_request(
            self.library.op(converters.OP), (WEIGHT, INDICES, OFFSETS, False, 2), {}, "aten._embedding_bag.default")
        self.assertEqual(request.tensor_arguments, [WEIGHT, INDICES, OFFSETS])
        self.assertEqual(request.absent_inputs, [3])
        decoded = self.library.decode_fields("torchtrt_ex::embedding_bag", request.fields)
        self.assertEqual(decoded["values"], {"mode": "max", "include_last_offset": False,
                                             "padding_idx": None})


if __name__ == "__main__":
    unittest.main()
