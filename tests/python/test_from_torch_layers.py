"""The floors of python/autoplugin/from_torch: each module imports only modules of the floors below
its own (no cycle, no arrow running back up), at the top of the file (no function-local import
to dodge a cycle), and no private name (`_name`) of another module. Standard library only."""
import ast
import os
import sys
import unittest

PACKAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python",
                       "autoplugin", "from_torch")

# Bottom to top, as docs/from-torch.md draws them.
FLOORS = [
    ["errors"],  # the refusals
    ["records", "expressions", "fake_cuda", "sympy_to_dim", "exact", "kernel_source", "aot_tool",
     "layout_copy"],  # the models and tools
    ["trials"],  # a recorded launch compiled on trial: run-time constexprs, block sizes
    ["discover"],  # the op: schema, host code, fake
    ["fitting", "points"],  # expressions fitted to samples; points that meet the requirements
    ["shapes"],  # the fake traced, its requirements, the points sampled
    ["families", "autotune"],  # the model of a constexpr family; autotune configs
    ["step_families"],  # a power of two that is a step function of a size
    ["kernel_variants"],  # constexpr families recovered: powers of two, sets, bools, heuristics
    ["host"],  # the host code run on fake CUDA tensors, its launches intercepted
    ["probes", "kernel_accesses"],  # the host code run at chosen points: samples, edges, the
    # prober, relations; its kernels run in Triton's interpreter, their accesses checked
    ["pointers"],  # the tensors a kernel receives: roles, scratch buffers, pointers and views
    ["launches"],  # the launches recovered
    ["domain"],  # the domain learnt from the host code's failures
    ["kernel_domain", "kernel_bounds"],  # the domain kept to the example's kernels and
    # constexprs, and the kernels inside their tensors
    ["cases", "kernel_builds"],  # the project's cases; its kernels' CMake targets and artefacts
    ["emit"],  # the project written
    ["pipeline"],  # generation, from the examples to the projects
    ["__init__"],  # the package's API
    ["__main__"],  # the command line
]
FLOOR = {module: level for level, modules in enumerate(FLOORS) for module in modules}
# The package's API imports its pipeline when called: `import autoplugin.from_torch` needs
# neither torch nor triton.
LAZY = {("__init__", "pipeline")}


def imports(module):
    """(imported module, names, at the top?) for each relative import of `module`."""
    with open(os.path.join(PACKAGE, f"{module}.py")) as f:
        tree = ast.parse(f.read())
    top = set(id(node) for node in tree.body)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [alias.name for alias in node.names]
            if node.module:
                found.append((node.module, names, id(node) in top))
            else:  # from . import a, b: modules, or names of the package (__init__)
                found += [(name, [], id(node) in top) if name in FLOOR else
                          ("__init__", [name], id(node) in top) for name in names]
    return found


class FloorsTest(unittest.TestCase):
    def test_every_module_has_a_floor(self):
        modules = {name[:-3] for name in os.listdir(PACKAGE) if name.endswith(".py")}
        self.assertEqual(modules, set(FLOOR), "add a new module to FLOORS (and to the docs)")

    def test_imports_go_down_only_and_at_the_top(self):
        for module in FLOOR:
            for imported, names, at_top in imports(module):
                with self.subTest(module=module, imported=imported):
                    self.assertLess(FLOOR[imported], FLOOR[module],
                                    f"{module} imports {imported}, on its floor or above")
                    if (module, imported) not in LAZY:
                        self.assertTrue(at_top, f"{module} imports {imported} inside a function")
                    private = [name for name in names if name.startswith("_")]
                    self.assertEqual(private, [], f"{module} imports private names of "
                                                  f"{imported}")

    def test_the_writers_read_no_text_back(self):
        # Values are typed expressions (expressions.py), printed once: nothing that writes the
        # project parses what it or recovery wrote.
        for module in ("emit", "kernel_builds", "cases", "expressions", "fitting", "launches",
                       "kernel_variants", "step_families", "families"):
            with open(os.path.join(PACKAGE, f"{module}.py")) as f:
                tree = ast.parse(f.read())
            imported = {alias.name for node in ast.walk(tree)
                        if isinstance(node, (ast.Import, ast.ImportFrom))
                        for alias in node.names} | {
                node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
            with self.subTest(module=module):
                self.assertNotIn("re", imported)
                self.assertNotIn("eval", {node.func.id for node in ast.walk(tree)
                                          if isinstance(node, ast.Call) and
                                          isinstance(node.func, ast.Name)})


if __name__ == "__main__":
    sys.exit(unittest.main(verbosity=2))
