"""The aten embedding_bag converter (python/autoplugin/aten/embedding_bag.py) on a DLRM-style model
(examples/embedding_bag/dlrm.py): torch.export's embedding_bag nodes, before and after
decomposition; the validator's answer for each; the plugin request each becomes, decoded by the
plugin library's creator; and on a GPU, the exported graph with each node replaced by our op
against eager PyTorch. Needs torch and the examples' plugin library; the GPU part a GPU."""
import copy
import operator
import os
import sys
import unittest

from torch_library import LIBRARY, missing

PLUGIN_LIBRARY = os.environ.get("AUTOPLUGIN_PLUGIN_LIBRARY", "")
SOURCE = os.environ.get("AUTOPLUGIN_SOURCE_DIR",
                        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def requirements_missing():
    reason = missing(gpu=False)
    if reason:
        return reason
    if not os.path.exists(PLUGIN_LIBRARY):
        return "the examples' plugin library was not built (needs TensorRT headers)"
    return None


class DLRMExport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import torch

        from autoplugin.aten import embedding_bag
        from autoplugin.library import open_library

        sys.path.insert(0, os.path.join(SOURCE, "examples", "embedding_bag"))
        import dlrm

        cls.torch, cls.dlrm, cls.converters = torch, dlrm, embedding_bag
        cls.library = open_library(PLUGIN_LIBRARY)
        torch.manual_seed(0)
        cls.model = dlrm.DLRM().eval()
        cls.inputs = dlrm.example_inputs()
        cls.program = torch.export.export(cls.model, cls.inputs)

    def nodes(self, graph):
        return [n for n in graph.nodes if n.op == "call_function"
                and str(n.target) in self.converters.TARGETS]

    def expected_values(self, table):
        _, _, mode, padding, _, last_offset = table
        return {"mode": mode, "include_last_offset": last_offset, "padding_idx": padding}

    def check_requests(self, graph, overload):
        nodes = self.nodes(graph)
        self.assertEqual(len(nodes), len(self.dlrm.TABLES))
        for node, table in zip(nodes, self.dlrm.TABLES):
            with self.subTest(node=node.name):
                self.assertEqual(str(node.target), overload)
                self.assertIsNone(self.converters.refusal(self.library, node))
                request = self.converters.plugin_request(
                    self.library.op(self.converters.OP), node.args, node.kwargs, str(node.target))
                self.assertEqual((request.plugin_name, request.plugin_namespace,
                                  request.plugin_version), ("embedding_bag", "torchtrt_ex", "1"))
                decoded = self.library.decode_fields("torchtrt_ex::embedding_bag", request.fields)
                self.assertEqual(decoded["warnings"], [])
                values = {k: decoded["values"][k]
                          for k in ("mode", "include_last_offset", "padding_idx")}
                self.assertEqual(values, self.expected_values(table))
                # The layer's inputs: weight, indices, offsets, and the weights where given.
                weighted = table[4]
                self.assertEqual(len(request.tensor_arguments), 4 if weighted else 3)
                self.assertIs(request.tensor_arguments[0], node.args[0])
                self.assertIs(request.tensor_arguments[1], node.args[1])
                self.assertIs(request.tensor_arguments[2], node.args[2])
                print(f"{node.name}: {node.target} -> accepted, fields {values}, "
                      f"{len(request.tensor_arguments)} inputs")

    def test_exported_nodes_are_accepted_and_decode_to_the_tables(self):
        self.check_requests(self.program.graph, "aten.embedding_bag.padding_idx")

    def test_decomposed_nodes_are_accepted_and_decode_to_the_tables(self):
        decomposed = self.program.run_decompositions()
        self.check_requests(decomposed.graph, "aten._embedding_bag.default")

    def test_refused_nodes_say_why(self):
        torch = self.torch
        F = torch.nn.functional

        class UsesBagSize(torch.nn.Module):
            def forward(self, weight, indices, offsets):
                out = torch.ops.aten._embedding_bag.default(weight, indices, offsets)
                return out[0], out[2]

        class Float64(torch.nn.Module):
            def forward(self, weight, indices, offsets):
                return F.embedding_bag(indices, weight.double(), offsets, mode="sum")

        class MixedIndexDtypes(torch.nn.Module):
            def forward(self, weight, indices, offsets):
                return F.embedding_bag(indices.int(), weight, offsets, mode="sum")

        args = (torch.randn(10, 4), torch.tensor([1, 2, 3]), torch.tensor([0, 1]))
        for model, reason in ((UsesBagSize(), "output 2 (bag_size) is used"),
                              (Float64(), "float64"),
                              (MixedIndexDtypes(), "indices and offsets of different dtypes")):
            with self.subTest(model=type(model).__name__):
                graph = torch.export.export(model, args).graph
                (node,) = self.nodes(graph)
                refusal = self.converters.refusal(self.library, node)
                print(f"{type(model).__name__}: refused: {refusal}")
                self.assertIn(reason, refusal or "")

    def replaced_module(self, model, inputs):
        """The exported model with every embedding_bag node replaced by our op."""
        import autoplugin.torch

        autoplugin.torch.load_library(LIBRARY)
        module = self.torch.export.export(model, inputs).module()
        replaced = self.converters.replace_nodes(module, self.library)
        self.assertEqual(len(replaced), len(self.dlrm.TABLES))
        self.assertFalse(self.nodes(module.graph))
        calls = [n for n in module.graph.nodes if n.op == "call_function"]
        self.assertFalse([n for n in calls if n.target is operator.getitem])
        ours = [n for n in calls if str(n.target) == "torchtrt_ex.embedding_bag.default"]
        self.assertEqual(len(ours), len(self.dlrm.TABLES))
        return module, ours

    def test_replacement_calls_our_op_with_the_shapes_of_the_tables(self):
        _, ours = self.replaced_module(self.model, self.inputs)
        batch = self.inputs[0].shape[0]
        for node, table in zip(ours, self.dlrm.TABLES):
            self.assertEqual(tuple(node.meta["val"].shape), (batch, table[1]))
            self.assertEqual(node.kwargs["mode"], table[2])
            self.assertEqual(node.kwargs["padding_idx"], table[3])
            self.assertEqual(node.kwargs["per_sample_weights"] is not None, table[4])

    def test_replaced_graph_equals_eager_on_the_gpu(self):
        torch = self.torch
        if not torch.cuda.is_available():
            self.skipTest("no GPU (the plugin's PyTorch kernel runs on CUDA devices)")
        for index_dtype in (torch.int64, torch.int32):
            with self.subTest(index_dtype=index_dtype):
                model = copy.deepcopy(self.model).cuda()
                inputs = self.dlrm.example_inputs(batch=64, index_dtype=index_dtype,
                                                  device="cuda")
                module, replaced = self.replaced_module(model, inputs)
                with torch.no_grad():
                    expected = model(*inputs)
                    actual = module(*inputs)
                torch.testing.assert_close(actual, expected, atol=1e-5, rtol=1e-5)
                print(f"DLRM ({index_dtype}): {len(replaced)} embedding_bag nodes replaced; "
                      f"max |replaced - eager| = {(actual - expected).abs().max().item():.3g} "
                      f"over {expected.numel()} outputs")


if __name__ == "__main__":
    unittest.main()
