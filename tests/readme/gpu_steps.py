"""scripts/gpu, without a GPU: alone it prints its steps and exits 2, an unknown step is refused
naming the steps, and docs/testing.md's table of steps names exactly the steps the script has."""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "gpu")


def run(*args):
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, cwd=ROOT)


def main():
    problems = []
    known = re.search(r'^known=" (.*) "$', open(SCRIPT).read(), re.M).group(1).split()
    usage = run()
    if usage.returncode != 2 or "scripts/gpu STEP..." not in usage.stdout:
        problems.append(f"scripts/gpu alone: exit {usage.returncode}, {usage.stdout[:200]!r}")
    for step in known + ["all"]:
        if not re.search(rf"^ +{re.escape(step)}\b|, {re.escape(step)}\b", usage.stdout, re.M):
            problems.append(f"scripts/gpu's usage does not describe step '{step}'")
    unknown = run("build", "nope")
    if unknown.returncode != 2 or "no step 'nope'" not in unknown.stderr:
        problems.append(f"scripts/gpu nope: exit {unknown.returncode}, {unknown.stderr!r}")
    text = open(os.path.join(ROOT, "docs", "testing.md")).read()
    table = text[text.index("| step | what runs |"):]
    table = table[:table.index("\n\n")]
    documented = [name for row in table.splitlines()[2:]
                  for name in re.findall(r"`([a-z_-]+)`", row.split("|")[1])]
    if sorted(documented) != sorted(known + ["all"]):
        problems.append(f"docs/testing.md's steps {sorted(documented)} != the script's "
                        f"{sorted(known + ['all'])}")
    for problem in problems:
        print(problem)
    print(f"{len(known)} steps, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
