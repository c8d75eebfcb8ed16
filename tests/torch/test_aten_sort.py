"""The Torch-TensorRT converters of python/autoplugin/aten/sort.py without TensorRT: a model with
the sorts real models call (mixture-of-experts routing's stable argsort of expert ids, token
merging's descending argsort of scores, top-p sampling's descending sort of probabilities over a
vocabulary, a stable sort along dim 0), exported with torch.export and Torch-TensorRT's kind of
decompositions, gives aten.sort.default and aten.sort.stable nodes; the validator accepts each and
refuses what the plugin cannot take, with the reason; each node's plugin request decodes, in the
examples' op library, to the node's attributes and passes the op's shape function. On a GPU, the
exported graph with those nodes replaced by torchtrt_ex::sort gives eager PyTorch's outputs."""
import unittest

from torch_library import LIBRARY, Node, missing, tensor_node


def requirements_missing():
    return missing(gpu=False)


def routing_model():
    import torch

    class Route(torch.nn.Module):
        def forward(self, logits, expert_ids, scores):
            grouped = torch.argsort(expert_ids, stable=True)  # tokens grouped by expert
            merge_order = scores.argsort(dim=-1, descending=True)  # most similar tokens first
            probs, vocabulary = torch.sort(logits.softmax(-1), dim=-1, descending=True)
            columns = torch.sort(scores, dim=0, stable=True)
            return grouped, merge_order, probs, vocabulary, columns.values, columns.indices

    return Route()


class Validator(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import torch

        import autoplugin.aten.sort
        import autoplugin.torch

        cls.torch = torch
        cls.sort = autoplugin.aten.sort
        cls.library = autoplugin.torch.load_library(LIBRARY)
        generator = torch.Generator().manual_seed(0)
        # A vocabulary above TensorRT's TopK limit (3840), as top-p sampling sorts.
        cls.inputs = (torch.randn(2, 5000, generator=generator),
                      torch.randint(0, 8, (256,), generator=generator),
                      torch.randn(2, 64, generator=generator))
        cls.model = routing_model()
        # The default decompositions, as Torch-TensorRT lowers: argsort becomes sort.
        cls.program = torch.export.export(cls.model, cls.inputs).run_decompositions()

    def sort_nodes(self):
        return [n for n in self.program.graph.nodes
                if n.op == "call_function" and self.sort.target_name(n) in self.sort.TARGETS]

    def test_export_gives_the_two_overloads_and_each_is_accepted(self):
        nodes = self.sort_nodes()
        targets = sorted(self.sort.target_name(n) for n in nodes)
        self.assertEqual(targets, ["aten.sort.default"] * 2 + ["aten.sort.stable"] * 2)
        for node in nodes:
            print(f"exported {node.format_node()}\n  validator: "
                  f"{self.sort.refusal(node) or 'accepted'}")
            self.assertIsNone(self.sort.refusal(node))
            self.assertTrue(self.sort.supports(node, None))

    def test_each_request_decodes_to_the_node_attributes(self):
        op = self.library.op(self.sort.OP)
        expected = {"aten.sort.default": [(-1, True, False), (-1, True, False)],
                    "aten.sort.stable": [(-1, False, True), (0, False, True)]}
        seen = {}
        for node in self.sort_nodes():
            target = self.sort.target_name(node)
            request = self.sort.plugin_request(op, node.args, node.kwargs, target)
            self.assertEqual((request.plugin_name, request.plugin_namespace),
                             ("sort", "torchtrt_ex"))
            self.assertEqual(request.tensor_arguments, [node.args[0]])
            self.assertEqual(request.num_outputs, 2)
            values = self.library.decode_fields(self.sort.OP, request.fields)["values"]
            seen.setdefault(target, []).append(
                (values["dim"], values["descending"], values["stable"]))
            value = node.args[0].meta["val"]
            program = self.library.shape_program(
                self.sort.OP, [value.dim()], [str(value.dtype).replace("torch.", "")], [],
                request.fields)
            self.assertTrue(program["ok"])
        self.assertEqual({k: sorted(v) for k, v in seen.items()},
                         {k: sorted(v) for k, v in expected.items()})

    def test_refusals_name_the_reason(self):
        torch = self.torch
        default = torch.ops.aten.sort.default
        stable = torch.ops.aten.sort.stable

        def call(target, dtype=torch.float32, shape=(4, 5000), args=(), **kwargs):
            return self.sort.refusal(Node(target, (tensor_node(shape, dtype),) + args, kwargs))

        self.assertIsNone(call(default))
        self.assertIsNone(call(default, torch.bfloat16, args=(0, True)))
        self.assertIsNone(call(stable, torch.int64, shape=(65536,), stable=True))
        self.assertIsNone(call(stable, torch.float16, stable=None, dim=-2, descending=True))
        self.assertIsNone(call(default, torch.int32, shape=()))
        self.assertIn("self is float64", call(default, torch.float64))
        self.assertIn("self is bool", call(stable, torch.bool, stable=True))
        self.assertIn("dim 2 is out of range for 2 dimensions", call(default, args=(2,)))
        self.assertIn("dim -3 is out of range", call(stable, stable=True, dim=-3))
        self.assertIn("dim is an int", call(default, args=(Node(None, ()),)))
        self.assertIn("is not one of", self.sort.refusal(Node(torch.ops.aten.topk.default, ())))
        self.assertIn("no tensor metadata", self.sort.refusal(Node(default, (Node(None, ()),))))
        self.assertIn("missing argument self", self.sort.refusal(Node(stable, (), {"dim": 0})))

    def test_the_replaced_graph_matches_eager_on_the_gpu(self):
        torch = self.torch
        if not torch.cuda.is_available():
            self.skipTest("no GPU: the replaced graph's kernels run on CUDA devices")
        module = self.program.module()
        replaced = 0
        for node in module.graph.nodes:
            target = self.sort.target_name(node)
            if node.op != "call_function" or target not in self.sort.TARGETS:
                continue
            call = self.sort.sort_arguments(node)
            node.target = torch.ops.torchtrt_ex.sort.default
            node.args = (call.self,)
            node.kwargs = {"dim": call.dim, "descending": call.descending, "stable": call.stable}
            replaced += 1
        module.recompile()
        self.assertEqual(replaced, 4)
        inputs = [t.cuda() for t in self.inputs]
        expected = self.model(*inputs)
        actual = module(*inputs)
        logits, _, scores = inputs
        sources = {"merge_order": scores, "vocabulary": logits.softmax(-1)}
        names = ("grouped", "merge_order", "probs", "vocabulary", "columns.values",
                 "columns.indices")
        for name, a, e in zip(names, actual, expected):
            if name in sources:
                # sort.default may order ties either way: our indices pick eager's values and
                # are a permutation of each row.
                source = sources[name]
                self.assertTrue(torch.equal(source.gather(-1, a), source.gather(-1, e)), name)
                rows = torch.arange(a.shape[-1], device=a.device).expand_as(a)
                self.assertTrue(torch.equal(a.sort(dim=-1).values, rows), name)
            else:
                self.assertTrue(torch.equal(a, e), name)  # values, and stable sorts' indices
            print(f"eager: {name} equal to PyTorch")

if __name__ == "__main__":
    unittest.main()
