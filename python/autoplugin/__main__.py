"""``python -m autoplugin``: the ``autoplugin`` command and its CMake package, as a wheel installs them.

    python -m autoplugin --cmake-dir   the folder of autopluginConfig.cmake (for CMAKE_PREFIX_PATH)
    python -m autoplugin ARGS...       the ``autoplugin`` command (what the ``autoplugin`` script runs)

A wheel (``pip install .`` at the repository's root) puts the C++ install (``bin/``, ``include/``,
``lib/``, ``share/``) inside this package. A CMake build has its own ``tools/autoplugin`` and
install prefix instead.
"""
import os
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
CMAKE_DIR = PACKAGE_DIR / "lib" / "cmake" / "autoplugin"
TOOL = PACKAGE_DIR / "bin" / "autoplugin"


def _installed(path):
    if not path.exists():
        sys.exit(f"autoplugin: {path} is missing: this package was not installed from a wheel "
                 "(pip install <autoplugin source folder>)")
    return path


def run_tool():
    """Becomes the C++ tool; its from-torch then runs this Python, which imports this package."""
    tool = str(_installed(TOOL))
    os.environ["AUTOPLUGIN_PYTHON"] = sys.executable
    os.execv(tool, [tool, *sys.argv[1:]])


def main():
    if sys.argv[1:] == ["--cmake-dir"]:
        print(_installed(CMAKE_DIR))
    else:
        run_tool()


if __name__ == "__main__":
    main()
