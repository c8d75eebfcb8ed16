"""from-torch's refusals as data (python/autoplugin/from_torch/errors.py): a refusal's kind, which
the pipeline's retries switch on, survives the floors above that name the op or add to the
message. Standard library only; milliseconds."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from autoplugin.from_torch.errors import (  # noqa: E402
    UNRECOVERED, GenerationError, UnrecoveredConstexpr)


class RefusalKindTest(unittest.TestCase):
    def test_naming_the_op_keeps_the_kind(self):
        refusal = GenerationError("argument 'n' cannot be recovered", UNRECOVERED)
        named = refusal.naming("op 'ns::op': ")
        self.assertEqual(str(named), "op 'ns::op': argument 'n' cannot be recovered")
        self.assertEqual(named.kind, UNRECOVERED)
        self.assertEqual(str(refusal), "argument 'n' cannot be recovered")

    def test_a_refusal_without_a_kind_has_none(self):
        self.assertIsNone(GenerationError("no").naming("op 'ns::op': ").kind)

    def test_extending_a_constexpr_refusal_keeps_its_class_and_fields(self):
        refusal = UnrecoveredConstexpr("BLOCK changes", 1, "kernel", "BLOCK", UNRECOVERED)
        extended = refusal.extended("; nor does it compile at run time")
        self.assertIsInstance(extended, UnrecoveredConstexpr)
        self.assertEqual((extended.position, extended.kernel, extended.name, extended.kind),
                         (1, "kernel", "BLOCK", UNRECOVERED))
        self.assertEqual(str(extended), "BLOCK changes; nor does it compile at run time")


if __name__ == "__main__":
    sys.exit(unittest.main(verbosity=2))
