"""Writes the ONNX models that test `autoplugin onnx` (tests/tools/onnx/models/*.onnx).

The models are committed, so the tests need no `onnx` package; run this (with `pip install
onnx`) after changing a model. IR version and opset are fixed, so that the bytes do not depend
on the installed onnx version.

    python3 tests/tools/onnx/make_models.py [OUT_DIR]
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

EXAMPLES = "torchtrt_ex"


def save(out_dir, name, nodes, inputs=("x",)):
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info(i, TensorProto.FLOAT, None) for i in inputs],
        [helper.make_tensor_value_info(nodes[-1].output[0], TensorProto.FLOAT, None)],
    )
    model = helper.make_model(
        graph,
        ir_version=9,
        producer_name="autoplugin tests",
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(EXAMPLES, 1)],
    )
    path = os.path.join(out_dir, name + ".onnx")
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    return path


def node(op, inputs, output, name, domain=EXAMPLES, **attributes):
    return helper.make_node(op, list(inputs), [output], name=name, domain=domain, **attributes)


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "models")
    os.makedirs(out_dir, exist_ok=True)
    # Every example op used as the parser expects, next to a standard node (not a plugin).
    good = save(out_dir, "examples", [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        node("circular_pad", ["r"], "p", "pad", padding=[1, 1, 2, 2]),
        node("scale_shift", ["p"], "s", "affine", scale=0.5, shift=3, relu=1, rounding="none",
             plugin_version="1"),
        node("broadcast_to", ["s", "size"], "b", "expand", tensorrt_plugin_shape_input_indices=[1]),
        node("scale_shift", ["b"], "t", "by_namespace", domain="my.domain",
             plugin_namespace=EXAMPLES, scale=helper.make_tensor("scale", TensorProto.FLOAT, [], [2.0])),
    ], inputs=("x", "size"))
    save(out_dir, "wrong_version", [node("scale_shift", ["x"], "y", "v2", plugin_version="2")])
    save(out_dir, "wrong_domain", [node("circular_pad", ["x"], "y", "pad", domain="torchtrt",
                                        padding=[1, 1])])
    save(out_dir, "misspelled_op", [node("circular_padd", ["x"], "y", "pad", padding=[1, 1])])
    save(out_dir, "qualified_op", [node("torchtrt_ex::scale_shift", ["x"], "y", "affine")])
    save(out_dir, "float_for_int", [node("scale_shift", ["x"], "y", "affine", shift=2.5)])
    save(out_dir, "unlisted_attribute", [node("scale_shift", ["x"], "y", "affine", scael=2.0)])
    save(out_dir, "int_overflow", [node("scale_shift", ["x"], "y", "affine", shift=2**32 + 7)])
    save(out_dir, "bad_shape_input", [node("broadcast_to", ["x", "size"], "y", "expand",
                                           tensorrt_plugin_shape_input_indices=[2])],
         inputs=("x", "size"))
    save(out_dir, "int64_tensor", [node("circular_pad", ["x"], "y", "pad",
                                        padding=numpy_helper.from_array(np.array([1, 1], np.int64)))])
    # Absent optional inputs of bias_act(x, weight?, bias?): empty names (the parser passes a
    # null tensor for each), and the two forms a plugin made by autoplugin understands.
    save(out_dir, "absent_inputs", [
        node("bias_act", ["x", "w", ""], "a", "trailing_empty"),
        node("bias_act", ["a", "", "b"], "c", "middle_empty"),
        node("bias_act", ["c", "w"], "d", "left_out"),
        node("bias_act", ["d", "b"], "e", "declared", autoplugin_absent_inputs=[1]),
    ], inputs=("x", "w", "b"))
    # A hand-written plugin (tests/tools/check/planted_bugs.cpp) that reads a string by its length,
    # which counts the NUL the parser appends.
    save(out_dir, "planted_string", [
        node("correct", ["x"], "y", "reads_to_nul", domain="planted", alpha=0.5, mode="linear"),
        node("string_by_length", ["y"], "z", "reads_by_length", domain="planted", alpha=0.5,
             mode="linear"),
    ])
    # Plugins inside an If's branches, and a call of a model-local function (not a plugin).
    then_branch = helper.make_graph(
        [node("scale_shift", ["x"], "t", "inner", shfit=1)], "then",
        [], [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)])
    else_branch = helper.make_graph(
        [node("circular_pad", ["x"], "e", "inner_pad", padding=[1, 1])], "else",
        [], [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)])
    local = helper.make_function(EXAMPLES, "local_block", ["a"], ["b"],
                                 [helper.make_node("Relu", ["a"], ["b"])],
                                 [helper.make_opsetid("", 17)])
    graph = helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then_branch,
                          else_branch=else_branch),
         node("local_block", ["y"], "z", "block")],
        "subgraphs",
        [helper.make_tensor_value_info("c", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, ir_version=9, producer_name="autoplugin tests",
                              opset_imports=[helper.make_opsetid("", 17),
                                             helper.make_opsetid(EXAMPLES, 1)],
                              functions=[local])
    with open(os.path.join(out_dir, "subgraphs.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    with open(good, "rb") as f:
        data = f.read()
    # Cut inside a node: a length that claims more bytes than remain.
    with open(os.path.join(out_dir, "truncated.onnx"), "wb") as f:
        f.write(data[: len(data) * 2 // 3])
    # A field tag whose wire type protobuf never writes (7), at the start.
    with open(os.path.join(out_dir, "corrupt.onnx"), "wb") as f:
        f.write(b"\x3f" + data[1:])


if __name__ == "__main__":
    main()
