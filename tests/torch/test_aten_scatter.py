"""The Torch-TensorRT converters of python/autoplugin/aten/scatter.py without TensorRT: a
GNN-style model exported with torch.export gives aten.scatter_reduce.two and
aten.scatter_add.default nodes; the validator accepts each and refuses what the plugin cannot
take, with the reason; each node's plugin request decodes, in the examples' op library, to the
node's attributes and passes the op's shape function. On a GPU, the exported graph with those
nodes replaced by torchtrt_ex::scatter_reduce gives eager PyTorch's outputs."""
import unittest

from torch_library import LIBRARY, Node, missing, tensor_node


def requirements_missing():
    return missing(gpu=False)


def gnn_model():
    import torch

    class Aggregate(torch.nn.Module):
        """One message-passing layer: messages along edges, reduced into the target nodes."""

        def forward(self, x, source, target):
            messages = x.index_select(0, source) * 2.0
            index = target.view(-1, 1).expand(-1, x.shape[1])
            peak = torch.zeros_like(x).scatter_reduce(0, index, messages, "amax",
                                                      include_self=False)
            total = torch.zeros_like(x)
            total.scatter_add_(0, index, messages)
            average = x.scatter_reduce(0, index, messages, "mean")
            lowest = x.scatter_reduce(-2, index, messages, reduce="amin", include_self=False)
            return peak, total, average, lowest

    return Aggregate()


class Validator(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import torch

        import autoplugin.aten.scatter
        import autoplugin.torch

        cls.torch = torch
        cls.scatter = autoplugin.aten.scatter
        cls.library = autoplugin.torch.load_library(LIBRARY)
        nodes, edges, features = 50, 300, 16
        generator = torch.Generator().manual_seed(0)
        cls.inputs = (torch.randn(nodes, features, generator=generator),
                      torch.randint(0, nodes, (edges,), generator=generator),
                      torch.randint(0, nodes, (edges,), generator=generator))
        cls.model = gnn_model()
        cls.program = torch.export.export(cls.model, cls.inputs).run_decompositions({})

    def scatter_nodes(self):
        return [n for n in self.program.graph.nodes
                if n.op == "call_function" and self.scatter.target_name(n) in self.scatter.TARGETS]

    def test_export_gives_the_two_overloads_and_each_is_accepted(self):
        nodes = self.scatter_nodes()
        targets = sorted(self.scatter.target_name(n) for n in nodes)
        self.assertEqual(targets, ["aten.scatter_add.default"] + ["aten.scatter_reduce.two"] * 3)
        for node in nodes:
            print(f"exported {node.format_node()}\n  validator: "
                  f"{self.scatter.refusal(node) or 'accepted'}")
            self.assertIsNone(self.scatter.refusal(node))
            self.assertTrue(self.scatter.supports(node, None))

    def test_each_request_decodes_to_the_node_attributes(self):
        op = self.library.op(self.scatter.OP)
        expected = {"aten.scatter_add.default": [(0, "sum", True)],
                    "aten.scatter_reduce.two": [(0, "amax", False), (0, "mean", True),
                                                (-2, "amin", False)]}
        seen = {}
        for node in self.scatter_nodes():
            target = self.scatter.target_name(node)
            request = self.scatter.plugin_request(op, node.args, node.kwargs, target)
            self.assertEqual((request.plugin_name, request.plugin_namespace),
                             ("scatter_reduce", "torchtrt_ex"))
            self.assertEqual(request.tensor_arguments, [node.args[0], node.args[2], node.args[3]])
            values = self.library.decode_fields(self.scatter.OP, request.fields)["values"]
            seen.setdefault(target, []).append(
                (values["dim"], values["reduce"], values["include_self"]))
            ranks = [t.meta["val"].dim() for t in request.tensor_arguments]
            dtypes = [str(t.meta["val"].dtype).replace("torch.", "")
                      for t in request.tensor_arguments]
            program = self.library.shape_program(self.scatter.OP, ranks, dtypes, [],
                                                 request.fields)
            self.assertTrue(program["ok"])
        self.assertEqual({k: sorted(v) for k, v in seen.items()},
                         {k: sorted(v) for k, v in expected.items()})

    def test_refusals_name_the_reason(self):
        torch = self.torch
        two = torch.ops.aten.scatter_reduce.two
        add = torch.ops.aten.scatter_add.default

        def call(target, self_dtype=torch.float32, index_dtype=torch.int64, src_dtype=None,
                 shapes=((4, 3), (2, 3), (2, 3)), dim=0, reduce="sum", **kwargs):
            self_, index, src = (tensor_node(shapes[0], self_dtype),
                                 tensor_node(shapes[1], index_dtype),
                                 tensor_node(shapes[2], src_dtype or self_dtype))
            args = (self_, dim, index, src) + ((reduce,) if target is two else ())
            return self.scatter.refusal(Node(target, args, kwargs))

        self.assertIsNone(call(add))
        self.assertIsNone(call(two, reduce="prod", include_self=False))
        self.assertIsNone(call(two, torch.bfloat16, torch.int32, reduce="amin"))
        self.assertIsNone(call(two, torch.int64, dim=-1, reduce="mean"))
        self.assertIn("reduce is one of", call(two, reduce="max"))
        self.assertIn("self is float64", call(two, torch.float64))
        self.assertIn("src is float16, self float32", call(add, src_dtype=torch.float16))
        self.assertIn("index is int16", call(add, index_dtype=torch.int16))
        self.assertIn("index.size(0) = 3 > src.size(0) = 2",
                      call(add, shapes=((4, 3), (3, 3), (2, 3))))
        self.assertIn("index.size(1) = 4 > self.size(1) = 3",
                      call(add, shapes=((4, 3), (2, 4), (2, 4))))
        self.assertIn("dim 2 is out of range", call(add, dim=2))
        self.assertIn("different numbers of dimensions",
                      call(add, shapes=((4, 3), (2,), (2, 3))))
        self.assertIn("at most 8", call(add, shapes=((1,) * 9,) * 3))
        self.assertIn("is not one of", self.scatter.refusal(Node(torch.ops.aten.scatter.src, ())))
        missing_metadata = Node(add, (Node(None, ()), 0, Node(None, ()), Node(None, ())))
        self.assertIn("no tensor metadata", self.scatter.refusal(missing_metadata))

    def test_the_replaced_graph_matches_eager_on_the_gpu(self):
        torch = self.torch
        if not torch.cuda.is_available():
            self.skipTest("no GPU: the replaced graph's kernels run on CUDA devices")
        module = self.program.module()
        replaced = 0
        for node in module.graph.nodes:
            target = self.scatter.target_name(node)
            if node.op != "call_function" or target not in self.scatter.TARGETS:
                continue
            call = self.scatter.scatter_arguments(node)
            node.target = torch.ops.torchtrt_ex.scatter_reduce.default
            node.args = (call.self, call.dim, call.index, call.src)
            node.kwargs = {"reduce": call.reduce, "include_self": call.include_self}
            replaced += 1
        module.recompile()
        self.assertEqual(replaced, 4)
        inputs = [t.cuda() for t in self.inputs]
        expected = self.model(*inputs)
        actual = module(*inputs)
        for name, a, e in zip(("amax", "scatter_add", "mean", "amin"), actual, expected):
            # Float sums land in whatever order the atomics do, in PyTorch's kernel as in ours.
            torch.testing.assert_close(a, e, atol=1e-5, rtol=1e-5)
            print(f"eager: {name} equal to PyTorch within 1e-5 (max |diff| "
                  f"{(a - e).abs().max().item():.2e})")


if __name__ == "__main__":
    unittest.main()
