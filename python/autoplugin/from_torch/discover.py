"""Find the custom ops of a Python module: their schema, host code (body) and fake implementation.

Two kinds are found: ``torch.library.custom_op`` objects at the module's top level, and ops a
``torch.library.Library`` defines whose implementation was registered with ``Library.impl`` while
the module was imported (the registration is observed during the import) and which have a fake.
"""
import ast
import contextlib
import importlib.util
import inspect
import re
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import torch

from .errors import GenerationError
from .fake_cuda import cuda_patched


@dataclass
class Argument:
    name: str
    kind: str  # "Tensor", "int", "float", "bool", "str", "int[]", "float[]", "bool[]"
    default: object = None
    optional: bool = False  # `Tensor?`, `float?`, `int?`, `bool?`: may be None
    keyword_only: bool = False
    mutated: bool = False  # `Tensor(a!)`: the op writes it in place
    dtype: str = ""  # a tensor of one dtype whatever --dtypes says ("int64" labels), from the example
    structural: bool = False  # a bool the examples give both values: part of the structure


@dataclass
class CustomOp:
    qualname: str  # ns::name
    schema: str  # as declared in the plugin (SymInt written int: an attribute, not a shape input)
    torch_schema: str  # as PyTorch reports it
    arguments: list
    num_outputs: int  # the plugin's: the inputs the op writes in place, then its returns
    body: object  # the host code: allocates outputs, computes a grid, launches
    fake: object
    module_path: Path
    notes: list = field(default_factory=list)

    @property
    def namespace(self):
        return self.qualname.split("::")[0]

    @property
    def name(self):
        return self.qualname.split("::")[1].replace(".", "_")

    @property
    def tensors(self):
        return [a for a in self.arguments if a.kind == "Tensor"]

    @property
    def mutated(self):
        """The inputs the op writes in place: the plugin's first outputs, each aliasing its
        input (the op's returns, if any, follow them)."""
        return [a for a in self.arguments if a.mutated]

    @property
    def attributes(self):
        return [a for a in self.arguments if a.kind != "Tensor"]


TYPE_KINDS = {
    "Tensor": "Tensor", "int": "int", "SymInt": "int", "float": "float", "bool": "bool",
    "str": "str", "List[int]": "int[]", "List[SymInt]": "int[]", "List[float]": "float[]",
    "List[bool]": "bool[]",
}
# Optional scalars: None is part of the structure, as an absent Tensor? is.
OPTIONAL_KINDS = {"Optional[int]": "int", "Optional[SymInt]": "int", "Optional[float]": "float",
                  "Optional[bool]": "bool", "Optional[str]": "str"}


# Names an argument cannot have in the generated C++: C++ keywords a Python name may be, and the
# names the generated launcher and shape function declare themselves.
CPP_RESERVED = frozenset("""
    alignas alignof asm auto bool case catch char char8_t char16_t char32_t class concept const
    consteval constexpr constinit const_cast co_await co_return co_yield decltype default delete
    do double dynamic_cast enum explicit export extern float friend goto inline int long mutable
    namespace new noexcept nullptr operator private protected public register reinterpret_cast
    requires short signed sizeof static static_assert static_cast struct switch template this
    thread_local throw typedef typeid typename union unsigned using virtual void volatile
    wchar_t xor bitand bitor compl not_eq or_eq and_eq xor_eq
    stream workspace scratch checked_i32 check_cuda ap std
""".split())


def _arguments(qualname, schema):
    arguments = []
    for argument in schema.arguments:
        type_name = str(argument.type)
        optional = type_name == "Optional[Tensor]" or type_name in OPTIONAL_KINDS
        kind = ("Tensor" if type_name == "Optional[Tensor]" else
                OPTIONAL_KINDS.get(type_name) or TYPE_KINDS.get(type_name))
        if kind is None:
            raise GenerationError(f"op '{qualname}': argument '{argument.name}' has type "
                                  f"{argument.type}, which from-torch does not generate "
                                  "(supported: Tensor, int, float, bool, str, their Optional, "
                                  "int[], float[], bool[]); change it to one of these")
        if argument.name in CPP_RESERVED:
            raise GenerationError(f"op '{qualname}': argument '{argument.name}' has a name that "
                                  "the generated C++ cannot use for it (a C++ keyword or a name "
                                  "of the generated launcher); rename the argument")
        default = argument.default_value if argument.has_default_value() else None
        mutated = bool(argument.alias_info and argument.alias_info.is_write)
        if mutated and (kind != "Tensor" or optional):
            raise GenerationError(f"op '{qualname}': argument '{argument.name}' is mutated "
                                  f"({argument.type}); only a Tensor (not Optional) can be "
                                  "written in place by a plugin (a plugin's outputs are always "
                                  "there): declare it a Tensor the caller always passes")
        # An Optional[int] may be an axis or a size the fake reads: its values are part of the
        # structure (the plugin takes the examples' values), as a pinned int's are.
        arguments.append(Argument(argument.name, kind, default, optional, argument.kwarg_only,
                                  mutated, structural=kind == "int" and optional))
    for returned in schema.returns:
        if str(returned.type) != "Tensor":
            raise GenerationError(f"op '{qualname}': returns {returned.type}; only Tensor returns "
                                  "are generated: return a Tensor or a tuple of Tensors")
    if not schema.returns and not any(a.mutated for a in arguments):
        raise GenerationError(f"op '{qualname}' returns nothing and mutates nothing "
                              "(mutates_args is empty): a plugin needs an output")
    return arguments


def plugin_schema(schema):
    """The schema string for AUTOPLUGIN_OP: PyTorch infers `SymInt[]` for a Python `list[int]`
    argument, which in a plugin would be a shape input (a tensor); the op's host code takes it as
    numbers, so it is declared `int[]` (an attribute); a fixed-size list whose default is empty
    (`int[2] stride=[]`) is declared `int[]`. The tensors an op writes in place are its first
    outputs, each aliasing its input (`Tensor(a!)`), as TensorRT's in-place plugins do; the op's
    own returns follow them (`(Tensor(a!) cache, Tensor x) -> Tensor` becomes
    `-> (Tensor(a!), Tensor)`)."""
    text = re.sub(r"\bSymInt\b", "int", str(schema))
    # `int[2] stride=[]` (aten's pooling ops: empty means "as the kernel size"): a list of any
    # length, as the host code reads it.
    text = re.sub(r"\b(int|float|bool)\[\d+\] (\w+)=\[\]", r"\1[] \2=[]", text)
    written = [argument.alias_info for argument in schema.arguments
               if argument.alias_info and argument.alias_info.is_write]
    if written:
        head, returns = text.rsplit(" -> ", 1)
        listed = returns[1:-1] if returns.startswith("(") else returns
        types = [f"Tensor({sorted(info.before_set)[0]}!)" for info in written] + \
            [t.strip() for t in listed.split(",") if t.strip()]
        text = f"{head} -> " + (types[0] if len(types) == 1 else f"({', '.join(types)})")
    # The returns are named where an argument has a name the plugin gives unnamed returns
    # (`out`: vLLM's ops take their output so).
    head, returns = text.rsplit(" -> ", 1)
    listed = returns[1:-1] if returns.startswith("(") else returns
    types = [t.strip() for t in listed.split(",")]
    names = output_names([argument.name for argument in schema.arguments], len(types))
    if names[0] not in ("out", "out0"):
        named = [f"{t} {name}" for t, name in zip(types, names)]
        text = f"{head} -> " + (named[0] if len(named) == 1 else f"({', '.join(named)})")
    return text


def output_names(argument_names, count):
    """The names of an op's `count` outputs: `out` (`out0`, `out1`, ... for several), or
    `result` where an argument has such a name."""
    for base in ("out", "result", "output_"):
        names = [base] if count == 1 else [f"{base}{i}" for i in range(count)]
        if set(argument_names).isdisjoint(names):
            return names
    raise GenerationError(f"arguments {', '.join(argument_names)}: no free name for the outputs")


def _num_outputs(schema):
    return len(schema.returns) + sum(1 for a in schema.arguments
                                     if a.alias_info and a.alias_info.is_write)


# The Python kernels registered with `Library.impl` while modules were imported (vLLM's and
# SGLang's `direct_register_custom_op`): op -> dispatch key -> function. Host code that calls
# such an op through torch.ops runs its kernel for CUDA (host.python_implementation).
_LIBRARY_KERNELS = {}


def library_kernel(qualname):
    """The Python function an imported module registered with `Library.impl` for op `qualname`
    (`ns::name`) on CUDA tensors: for CUDA, else for every backend; None where there is none, and
    for ATen's ops (a library that overrides them, as FlagGems' `enable()`, patches PyTorch)."""
    if qualname.startswith("aten::"):
        return None
    return _for_cuda(_LIBRARY_KERNELS.get(qualname, {}))


def _for_cuda(kernels):
    """Of an op's Python kernels by dispatch key, the one CUDA tensors run: for CUDA, else for
    every backend; None where neither is."""
    return kernels.get("CUDA") or kernels.get("CompositeExplicitAutograd")


@contextlib.contextmanager
def _recording_library_impls(recorded, module_path):
    """Records the `Library.impl` registrations that the module at `module_path` makes (directly
    or through `torch.library`'s decorators), not those of the libraries it imports, which
    define ops of their own (kept for library_kernel)."""
    original = torch.library.Library.impl

    def impl(self, op_name, fn=None, dispatch_key="", *args, **kwargs):
        name = op_name if isinstance(op_name, str) else getattr(op_name, "__name__", str(op_name))
        if callable(fn) and not kwargs.get("with_keyset"):
            qualname = (name if "::" in name else f"{self.ns}::{name}").split(".")[0]
            _LIBRARY_KERNELS.setdefault(qualname, {})[dispatch_key] = fn
            if _registered_by(module_path):
                recorded.setdefault(qualname, {})[dispatch_key] = fn
        return original(self, op_name, fn, dispatch_key, *args, **kwargs)

    torch.library.Library.impl = impl
    try:
        yield
    finally:
        torch.library.Library.impl = original


_TORCH_FOLDER = str(Path(torch.__file__).resolve().parent) + "/"


def _registered_by(module_path):
    """Whether the innermost caller outside PyTorch is the module at `module_path`."""
    for frame in reversed(traceback.extract_stack()[:-2]):
        filename = str(Path(frame.filename).resolve())
        if not filename.startswith(_TORCH_FOLDER):
            return Path(filename) == module_path
    return False


_IMPORTED = {}  # path -> (module, its Library.impl registrations): ops register once a process


def import_module(path):
    path = Path(path).resolve()
    if not path.is_file():
        raise GenerationError(f"{path}: no such file")
    if path in _IMPORTED:
        return _IMPORTED[path]
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(f"_autoplugin_from_torch_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    library_impls = {}
    # Module-level code may ask for the GPU (Triton's tutorials: DEVICE =
    # triton.runtime.driver.active.get_active_torch_device()): it gets the one sampling uses.
    with _recording_library_impls(library_impls, path), cuda_patched(90, set()):
        spec.loader.exec_module(module)
    _IMPORTED[path] = module, library_impls
    return module, library_impls


def _fake_of(qualname):
    from torch._library.simple_registry import singleton
    entry = singleton.find(qualname)
    kernel = entry.fake_impl.kernel
    return None if kernel is None else kernel.func


def _cuda_body(definition):
    """The host code a custom op runs on CUDA tensors: the kernel registered for "cuda"
    (`@op.register_kernel("cuda")`, beside a default body for other devices), else its body."""
    backend = getattr(definition, "_backend_fns", {}).get("cuda")
    if backend is None:
        return definition._init_fn
    # PyTorch wraps the function it was given (to fall back to the body when it is disabled);
    # the user's function keeps the file and line that messages cite.
    wrapper = inspect.unwrap(backend)
    cells = dict(zip(wrapper.__code__.co_freevars, wrapper.__closure__ or ()))
    given = cells.get("fn")
    return given.cell_contents if given is not None and callable(given.cell_contents) else backend


def find_ops(path, wanted=None):
    """The module's custom ops (only those named in `wanted`, if given), in definition order."""
    from torch._library.custom_ops import CustomOpDef
    module, library_impls = import_module(path)
    ops = []
    for value in vars(module).values():
        if isinstance(value, CustomOpDef):
            if value._abstract_fn is None:
                raise GenerationError(f"op '{value._qualname}' has no fake implementation "
                                      "(register one with @<op>.register_fake)")
            schema = value._opoverload._schema
            ops.append(CustomOp(value._qualname, plugin_schema(schema), str(schema),
                                _arguments(value._qualname, schema), _num_outputs(schema),
                                _cuda_body(value), value._abstract_fn, Path(path).resolve()))
    for qualname, impls in library_impls.items():
        if any(op.qualname == qualname for op in ops):
            continue
        body = _for_cuda(impls) or next(iter(impls.values()))
        fake = _fake_of(qualname)
        if fake is None:
            raise GenerationError(f"op '{qualname}' has no fake implementation (register one "
                                  "with torch.library.register_fake)")
        namespace, name = qualname.split("::")
        schema = getattr(getattr(torch.ops, namespace), name).default._schema
        ops.append(CustomOp(qualname, plugin_schema(schema), str(schema),
                            _arguments(qualname, schema), _num_outputs(schema), body, fake,
                            Path(path).resolve()))
    if wanted:
        missing = [w for w in wanted if w not in {op.qualname for op in ops}]
        if missing:
            raise GenerationError(f"{Path(path).name} defines no custom op {', '.join(missing)} "
                                  f"(found: {', '.join(op.qualname for op in ops) or 'none'})")
        ops = [op for op in ops if op.qualname in wanted]
    if not ops:
        raise GenerationError(f"{Path(path).name} defines no torch.library custom op with a fake "
                              "implementation")
    return ops


# The dtypes an input may be given in an example (`labels=int64[2, 37]`): it then has that dtype
# in every launcher, whatever --dtypes says.
FIXED_DTYPES = ("int8", "int32", "int64", "uint8", "bool", "float32", "float16", "bfloat16",
                "float8_e4m3fn")


def parse_example(text):
    """`ns::op(x=[2, 3, 8, 8], labels=int64[2, 3], padding=[1, 1, 2, 2])` -> (qualname,
    {argument: value}, {argument: dtype}); a Tensor argument is given by its shape, prefixed by a
    dtype where it has one whatever --dtypes says."""
    match = re.fullmatch(r"\s*([A-Za-z_][\w]*::[A-Za-z_][\w.]*)\s*\((.*)\)\s*", text, re.S)
    if match is None:
        raise GenerationError(f"--example {text!r}: expected NS::NAME(arg=value, ...)")
    values, dtypes = {}, {}
    try:
        call = ast.parse(f"f({match.group(2)})", mode="eval").body
        for keyword in call.keywords:
            node = keyword.value
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
                if node.value.id not in FIXED_DTYPES:
                    raise ValueError(f"{keyword.arg}={node.value.id}[...]: expected a dtype of "
                                     f"{', '.join(FIXED_DTYPES)}")
                dtypes[keyword.arg] = node.value.id
                shape = ast.literal_eval(node.slice)
                values[keyword.arg] = list(shape) if isinstance(shape, tuple) else [shape]
                continue
            values[keyword.arg] = ast.literal_eval(node)
    except (SyntaxError, ValueError) as error:
        raise GenerationError(f"--example {text!r}: {error}") from None
    if call.args:
        raise GenerationError(f"--example {text!r}: name every argument (x=[2, 3], ...)")
    return match.group(1), values, dtypes
