"""docs/architecture.md's layout table names what the tree holds: every top-level folder, every
folder under src/, tools/ and tests/, every script of scripts/ and every module of the Python
package. Prints "layout table: N missing" and the names it lacks; exits non-zero where any is.

A name counts as named where a `code span` of the table holds it as a whole word (`tools/onnx/`,
`onnx/`, `autoplugin.from_torch`, `aten_*` for the aten_ modules).
"""
import fnmatch
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def tracked_paths():
    """The files git tracks (a fresh clone's tree, without build folders)."""
    result = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True,
                            check=True)
    return [Path(line) for line in result.stdout.splitlines()]


def expected_names(paths):
    """(name, path): folders by their path (`src/`, `tools/onnx`, or in a group
    `tests/tools/{check,onnx}`); scripts and Python modules by their names (path None)."""
    names = set()
    for path in paths:
        parts = path.parts
        if len(parts) > 1 and not parts[0].startswith("."):
            names.add((parts[0], parts[0]))
        if len(parts) > 2 and parts[0] in ("src", "tools", "tests"):
            names.add((parts[1], f"{parts[0]}/{parts[1]}"))
        if len(parts) == 2 and parts[0] == "scripts":
            names.add((parts[1], None))
        if len(parts) >= 3 and parts[:2] == ("python", "autoplugin") and \
                not parts[2].startswith("_"):
            names.add((Path(parts[2]).stem, None))
    return names


def table_spans(text):
    start = text.index("| path | what |")
    end = text.find("\n\n", start)
    return re.findall(r"`([^`]+)`", text[start:end if end != -1 else None])


def named(name, path, spans):
    for span in spans:
        if path is not None:
            parent, _, last = path.rpartition("/")
            prefix = r"(^|[^/\w])" + (re.escape(parent + "/") if parent else "")
            if re.search(rf"{prefix}{re.escape(last)}(/|$)", span) or re.search(
                    rf"{prefix}\{{[^}}]*\b{re.escape(last)}\b", span):
                return True
            continue
        for word in re.split(r"[^A-Za-z0-9_.*\-]+", span):
            for piece in {word, *word.split(".")}:
                if piece == name or ("*" in piece and fnmatch.fnmatchcase(name, piece)):
                    return True
    return False


def main():
    spans = table_spans((ROOT / "docs" / "architecture.md").read_text())
    missing = sorted(path or name for name, path in expected_names(tracked_paths())
                     if not named(name, path, spans))
    print(f"layout table: {len(missing)} missing" +
          (": " + ", ".join(missing) if missing else ""))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
