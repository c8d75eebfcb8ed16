"""The reference of a copy, for `autoplugin check --reference`: writes each output as its input.

Usage: python3 identity_reference.py DIR (DIR holds case.json and input<k>.npy).
"""
import json
import os
import shutil
import sys


def main(folder):
    with open(os.path.join(folder, "case.json")) as f:
        case = json.load(f)
    for source, target in zip(case["inputs"], case["outputs"]):
        shutil.copyfile(os.path.join(folder, source["file"]), os.path.join(folder, target["file"]))


if __name__ == "__main__":
    main(sys.argv[1])
