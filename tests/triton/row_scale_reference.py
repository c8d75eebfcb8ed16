"""The reference of autoplugin_test::row_scale_relu for `autoplugin check --reference`:
max(scale * x, 0).

Usage: python3 row_scale_reference.py DIR (DIR holds case.json and input<k>.npy).
"""
import json
import os
import sys

import numpy as np


def main(folder):
    with open(os.path.join(folder, "case.json")) as f:
        case = json.load(f)
    x = np.load(os.path.join(folder, case["inputs"][0]["file"]))
    scale = np.float32(case["attributes"]["scale"])
    np.save(os.path.join(folder, case["outputs"][0]["file"]),
            np.maximum(scale * x, np.float32(0)).astype(np.float32))


if __name__ == "__main__":
    main(sys.argv[1])
