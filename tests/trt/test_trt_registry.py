"""The examples' plugin library inside TensorRT's own plugin registry (no GPU, no engine): the
calls an engine build and a deserialization make, made by TensorRT's code, not by our harness.

TensorRT's lean runtime (PyPI: tensorrt-lean-cu13-libs / -bindings, module
tensorrt_lean_bindings; or a full `tensorrt`) loads the library (`load_library`, as trtexec's
--dynamicPlugins and IPluginRegistry::loadLibrary do), lists its creators, creates every op's
plugin from the fields a converter or the ONNX parser sends (BUILD phase), re-creates it from the
fields the plugin serializes, found by name, version and namespace as a deserializing engine does
(RUNTIME phase), refuses a field of the wrong type with our message, and deregisters and reloads
the library. The fields come from each example's first case (examples/*/cases.json).

Environment: AUTOPLUGIN_PLUGIN_LIBRARY (the examples' TensorRT plugin library), AUTOPLUGIN_SOURCE_DIR.
"""
import glob
import json
import os
import sys
import tempfile
import unittest

ROOT = os.environ.get("AUTOPLUGIN_SOURCE_DIR",
                      os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
sys.path.insert(0, os.path.join(ROOT, "python"))


def tensorrt_module():
    for name in ("tensorrt", "tensorrt_lean_bindings"):
        try:
            return __import__(name)
        except ImportError:
            continue
    return None


def requirements_missing():
    if not os.environ.get("AUTOPLUGIN_PLUGIN_LIBRARY"):
        return ("the examples' TensorRT plugin library was not built (TensorRT headers not "
                "found; configure with -DTensorRT_ROOT=...)")
    if tensorrt_module() is None:
        return ("no TensorRT runtime for Python (pip install tensorrt-lean-cu13-libs "
                "tensorrt-lean-cu13-bindings, as scripts/install-python-deps does)")
    try:
        import numpy  # noqa: F401
    except ImportError:
        return "numpy is needed to pass plugin fields to TensorRT's Python API"
    return None


class CapturedStderr:
    """What native code writes to standard error (TensorRT's logger) while inside."""

    def __enter__(self):
        sys.stderr.flush()
        self.file = tempfile.TemporaryFile(mode="w+")
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.seek(0)
        self.text = self.file.read()
        self.file.close()


class RegistryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import numpy as np
        from autoplugin.fields import encode_attributes
        from autoplugin.library import open_library
        cls.np, cls.encode = np, staticmethod(encode_attributes)
        cls.trt = tensorrt_module()
        cls.path = os.environ["AUTOPLUGIN_PLUGIN_LIBRARY"]
        cls.ops = open_library(cls.path).ops
        cls.registry = cls.trt.get_plugin_registry()
        cls.handle = cls.registry.load_library(cls.path)
        cls.examples = {}  # op -> the attributes of its first case
        for cases in sorted(glob.glob(os.path.join(ROOT, "examples", "*", "cases.json"))):
            with open(cases) as f:
                data = json.load(f)
            cls.examples.setdefault(data["op"], data["cases"][0].get("attributes", {}))

    @classmethod
    def tearDownClass(cls):
        if cls.handle is not None:
            cls.registry.deregister_library(cls.handle)

    def encode_attributes(self, op, values, serialized):
        """The fields a converter or the ONNX parser sends, or, `serialized`, the fields as the
        plugin serializes them (each attribute in its serialized type)."""
        if serialized:
            op = dict(op, attributes=[dict(a, field_type=a.get("serialized_type", a["field_type"]))
                                      for a in op["attributes"]])
        return self.encode(op, values)

    def trt_fields(self, fields):
        """A PluginFieldCollection of autoplugin.fields.Field values (their bytes as sent)."""
        trt, np = self.trt, self.np
        self.keep = [np.frombuffer(f.data, dtype=np.uint8).copy() if f.data else
                     np.zeros(0, dtype=np.uint8) for f in fields]
        collection = []
        for field, data in zip(fields, self.keep):
            item = trt.PluginField(field.name, data, getattr(trt.PluginFieldType, field.type))
            item.size = field.length
            collection.append(item)
        return trt.PluginFieldCollection(collection)

    def our_creators(self):
        ours = {(op["namespace"], op["plugin_name"]) for op in self.ops.values()}
        return {(c.name, c.plugin_version, c.plugin_namespace): c
                for c in self.registry.all_creators if (c.plugin_namespace, c.name) in ours}

    def creator(self, op):
        creator = self.registry.get_creator(op["plugin_name"], op["version"], op["namespace"])
        self.assertIsNotNone(creator, f"TensorRT's registry has no creator for {op['name']}")
        return creator

    def test_the_library_loads_and_lists_every_op_as_describe_does(self):
        self.assertIsNotNone(self.handle, f"load_library({self.path}) failed")
        creators = self.our_creators()
        self.assertEqual(set(creators), {(op["plugin_name"], op["version"], op["namespace"])
                                         for op in self.ops.values()})
        for op in self.ops.values():
            creator = creators[(op["plugin_name"], op["version"], op["namespace"])]
            listed = [(f.name, str(f.type).split(".")[-1]) for f in creator.field_names]
            expected = [(a["name"], a["field_type"]) for a in op["attributes"]]
            with self.subTest(op=op["name"]):
                # The reserved absent-inputs field may follow the attributes.
                self.assertEqual(listed[:len(expected)], expected)
                self.assertEqual(creator.interface_info.kind, "PLUGIN CREATOR_V3ONE")

    def test_every_example_op_in_both_phases_as_an_engine_makes_them(self):
        trt = self.trt
        checked = 0
        for name, op in sorted(self.ops.items()):
            if name not in self.examples:
                continue
            with self.subTest(op=name):
                creator = self.creator(op)
                fields = self.encode_attributes(op, self.examples[name], serialized=False)
                plugin = creator.create_plugin(op["plugin_name"], self.trt_fields(fields),
                                               trt.TensorRTPhase.BUILD)
                self.assertIsNotNone(plugin, f"{name}: createPlugin(BUILD) failed")
                core = plugin.get_capability_interface(trt.PluginCapabilityType.CORE)
                self.assertEqual((core.plugin_name, core.plugin_namespace, core.plugin_version),
                                 (op["plugin_name"], op["namespace"], op["version"]))
                build = plugin.get_capability_interface(trt.PluginCapabilityType.BUILD)
                self.assertEqual(build.num_outputs, len(op["outputs"]))
                # Deserialization: the creator found again by what the engine stores (name,
                # version, namespace) and given the fields as the plugin serializes them (each
                # attribute in its serialized type: TensorRT's Python API does not return a C++
                # plugin's getFieldsToSerialize nor its clone, which the adapter's tests check).
                stored = self.encode_attributes(op, self.examples[name], serialized=True)
                again = self.creator(op).create_plugin(op["plugin_name"], self.trt_fields(stored),
                                                       trt.TensorRTPhase.RUNTIME)
                self.assertIsNotNone(again, f"{name}: createPlugin(RUNTIME) from the serialized "
                                            "fields failed")
                core = again.get_capability_interface(trt.PluginCapabilityType.CORE)
                self.assertEqual((core.plugin_name, core.plugin_namespace, core.plugin_version),
                                 (op["plugin_name"], op["namespace"], op["version"]))
                checked += 1
        self.assertGreaterEqual(checked, 8, "too few example ops had cases to create from")

    def test_a_field_of_the_wrong_type_is_refused_with_our_message(self):
        trt, np = self.trt, self.np
        op = self.ops["torchtrt_ex::circular_pad"]
        wrong = np.array([1.0, 1.0, 2.0, 2.0], dtype=np.float32)
        collection = trt.PluginFieldCollection(
            [trt.PluginField("padding", wrong, trt.PluginFieldType.FLOAT32)])
        with CapturedStderr() as log:
            plugin = self.creator(op).create_plugin("circular_pad", collection,
                                                    trt.TensorRTPhase.BUILD)
        self.assertIsNone(plugin)
        self.assertIn("padding", log.text)
        self.assertIn("circular_pad", log.text)

    def test_deregistered_then_loaded_again(self):
        registry = self.registry
        registry.deregister_library(self.handle)
        type(self).handle = None
        self.assertEqual(self.our_creators(), {})
        type(self).handle = registry.load_library(self.path)
        self.assertIsNotNone(self.handle)
        self.assertEqual(len(self.our_creators()), len(self.ops))


if __name__ == "__main__":
    missing = requirements_missing()
    if missing:
        print(f"SKIPPED: {missing}")
        sys.exit(0)
    unittest.main(verbosity=2)
