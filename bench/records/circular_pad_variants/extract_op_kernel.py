"""Writes the CUDA circular_pad op's kernel code (examples/circular_pad/circular_pad.cu, from its
PadGeometry to the end of its anonymous namespace) to OUT_FILE, launches rewritten as
PAD_LAUNCH, so that variants.cu times, and host_check.cpp checks, the op's own kernel.

  python3 extract_op_kernel.py OUT_FILE
"""
import os
import re
import sys

source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples",
                      "circular_pad", "circular_pad.cu")
text = open(source).read()
start = text.index("struct PadGeometry {")
end = text.index("}  // namespace", start)
code = text[start:end]
launch = re.compile(r"(\w+<[^<>;]*>)\s*<<<\s*([^,]+),\s*([^,]+),\s*0,\s*(\w+)\s*>>>\(", re.S)
code, count = launch.subn(r"PAD_LAUNCH((\1), \2, \3, \4, ", code)
if count == 0:
    sys.exit(f"no kernel launch found in {source}")
with open(sys.argv[1], "w") as f:
    f.write(f"// Generated from {os.path.relpath(source)} by extract_op_kernel.py\n{code}")
