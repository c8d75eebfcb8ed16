"""The kernel file a generated project compiles: the file the kernels were defined in, plus
imports for the names its functions find in their globals only at run time, and the kernels
the file defines inside a function, at its top level.

Some libraries load a kernel file and then give it names it does not bind itself: FlagGems
writes each pointwise kernel to a file, imports it, and copies its scalar function's globals
into the module (`tanh`, `pow` from its own shims). Compiled from a copy of the file, such a
kernel fails with `NameError('tanh is not defined')`. The names its functions read that the
file does not bind at its top level, and that the running kernel's globals hold, are imported at
the end of the copy from a module that holds the same object.

Others define their kernels inside a function that builds them on first use (torchao's
blockwise float8 kernels, under `_build_triton_impls()`, which imports Triton itself): the
build finds no kernel of that name at the file's top level. Such a kernel is written again at
the end of the copy, at the top level, under `@triton.jit` (its other decorators are the
generator's business: autotune configs are recovered from the launches), and the names it reads
from the enclosing function (`tl`) are imported as the names it reads from its globals are.
"""
import ast
import builtins
import inspect
import sys
import textwrap
import types
from pathlib import Path

_UNSET = object()


def run_time_names(function):
    """The names a kernel's Python function finds as it runs: its globals, and the variables
    of the function it is defined in (a closure)."""
    names = dict(function.__globals__)
    for name, cell in zip(function.__code__.co_freevars, function.__closure__ or ()):
        try:
            names[name] = cell.cell_contents
        except ValueError:  # a variable the enclosing function has not bound yet
            continue
    return names


def hoisted_definition(function):
    """A kernel defined inside a function: its definition at the top level, under
    `@triton.jit` ("" for a kernel defined at the top level of its file)."""
    if "<locals>" not in function.__qualname__:
        return ""
    try:
        source = textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):  # no source file to read it from: the build says so
        return ""
    definition = ast.parse(source).body[0]
    body = source.splitlines()[definition.lineno - 1:]  # without the decorators
    return "\n".join(["@triton.jit"] + body) + "\n"


def kernel_file_text(path, run_time_globals, hoisted=None):
    """The text of `path` for the generated project, with an import block for the names its
    functions read that only `run_time_globals` (the launched kernels' globals) bind, and the
    `hoisted` kernel definitions ({kernel name: hoisted_definition()}) after it."""
    text = Path(path).read_text()
    tree = ast.parse(text)
    bound = _top_level_names(tree)
    hoisted = [definition for name, definition in (hoisted or {}).items()
               if bound is None or name not in bound]
    if bound is None:  # a star import: whatever it binds is there in the copy too
        return _with_hoisted(text, hoisted)
    free = _free_names(tree)
    for definition in hoisted:
        free |= _free_names(ast.parse(definition))
    if hoisted:
        bound = bound | {"triton"}  # the hoisted block imports it
    imports = {}
    for name in sorted(free - bound):
        value = run_time_globals.get(name, _UNSET)
        if value is _UNSET or value is getattr(builtins, name, _UNSET):
            continue
        if isinstance(value, types.ModuleType):
            imports[name] = (f"import {value.__name__}" if value.__name__ == name else
                             f"import {value.__name__} as {name}")
            continue
        found = _module_holding(name, value)
        if found is not None:
            module, attribute = found
            alias = "" if attribute == name else f" as {name}"
            imports[name] = f"from {module} import {attribute}{alias}"
    if not imports:
        return _with_hoisted(text, hoisted)
    lines = ["", "",
             "# Bound at run time by the code that loaded the original of this file, not by the",
             "# file itself: imported here so that its kernels compile from this copy."]
    lines += [line for _, line in sorted(imports.items())]
    return _with_hoisted(text.rstrip("\n") + "\n" + "\n".join(lines) + "\n", hoisted)


def _with_hoisted(text, hoisted):
    if not hoisted:
        return text
    lines = ["", "",
             "# Defined inside a function of the original file, which builds them when first",
             "# used: at the top level here, so that the project's build finds them.",
             "import triton"]
    for definition in hoisted:
        lines += ["", "", definition.rstrip("\n")]
    return text.rstrip("\n") + "\n" + "\n".join(lines) + "\n"


def _top_level_names(tree):
    """The names the module binds at its top level (in if/try/with blocks too, not inside its
    functions, classes or comprehensions); None where a star import binds unknown ones."""
    names = set()
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                             ast.GeneratorExp)):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    return None
                names.add(alias.asname or alias.name.split(".")[0])
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        pending.extend(ast.iter_child_nodes(node))
    return names


def _free_names(tree):
    """The names the module's functions read without binding them (parameters and assignments
    inside a function are its own)."""
    free = set()
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        arguments = function.args
        local = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
        local.update(a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None)
        loads = set()
        for node in ast.walk(function):
            if isinstance(node, ast.Name):
                (local.add if isinstance(node.ctx, ast.Store) else loads.add)(node.id)
        free |= loads - local
    return free


def _module_holding(name, value):
    """(module, attribute) of an imported module that holds `value`: under `name` where one
    does (the value's own module first), else under another name. Modules named with a leading
    underscore (loaded privately) are passed over."""
    preferred = getattr(value, "__module__", None)
    same_name, other_name = [], []
    for module_name, module in list(sys.modules.items()):
        if module is None or any(part.startswith("_") for part in module_name.split(".")):
            continue
        namespace = getattr(module, "__dict__", {})
        if namespace.get(name, _UNSET) is value:
            same_name.append((module_name != preferred, len(module_name), module_name, name))
        elif not same_name:
            other_name.extend((module_name != preferred, len(module_name), module_name, attribute)
                              for attribute, held in list(namespace.items())
                              if held is value and not attribute.startswith("_"))
    if same_name or other_name:
        _, _, module_name, attribute = min(same_name or other_name)
        return module_name, attribute
    return None
