"""The generation pipeline: discover the ops, trace shapes, recover launches, write projects."""
import contextlib
import inspect
import logging
from dataclasses import dataclass
from pathlib import Path

from . import emit
from .discover import find_ops, parse_example
from .domain import equal_extents_of_inputs, learn_domain
from .errors import UNRECOVERED, GenerationError, UnrecoveredConstexpr
from .fake_cuda import gpu_named
from .kernel_bounds import keep_kernels_in_bounds
from .kernel_domain import hold_constexpr, keep_to_example_kernels
from .launches import DTYPES, recover_launches
from .probes import runs_at_example
from .shapes import fake_outputs, traced_shapes
from .sympy_to_dim import TranslationError


SUPPORTED_DTYPES = ("float32", "float16", "bfloat16")


@dataclass
class Structure:
    example: dict  # argument -> shape (tensors) or value (attributes)
    traced: object  # shapes.TracedShapes
    launches: list  # records.RecoveredLaunch
    scratch: list  # records.ScratchBuffer: the workspace's buffers
    zeroed_outputs: tuple = ()  # output indices the launcher clears first
    copied_outputs: tuple = ()  # (output index, input name): the launcher copies it first


def _mark_structural_bools(op, examples):
    """A bool that changes the rank of an output (keepdim), given both values by the examples,
    is part of the structure, as a string is: each value its own shape function branch."""
    for argument in op.arguments:
        if argument.kind != "bool" or len({e[argument.name] for e in examples}) < 2:
            continue
        for example in examples:
            flipped = dict(example, **{argument.name: not example[argument.name]})
            ranks = [[len(t.shape) for t in outputs or []]
                     for outputs in (fake_outputs(op, example), fake_outputs(op, flipped))]
            if ranks[0] != ranks[1]:
                argument.structural = True
                break


def _check_output_dtypes(op, structures, dtypes):
    """One launcher per dtype serves every structure: its outputs' dtypes must not change with
    the structure (a reduction string that makes the output a float32 scalar)."""
    for dtype in dtypes:
        seen = {}
        for structure in structures:
            outputs = fake_outputs(op, structure.example, DTYPES[dtype]) or []
            for index, tensor in enumerate(outputs):
                text = str(tensor.dtype).replace("torch.", "")
                first = seen.setdefault(index, (text, structure.example))
                if first[0] != text:
                    raise GenerationError(
                        f"op '{op.qualname}': with {dtype} inputs, output {index} is {first[0]} "
                        f"at {first[1]} but {text} at {structure.example}; the plugin's launcher "
                        f"for {dtype} serves both: generate for the dtypes where they agree "
                        "(--dtypes), or split the op where its output's dtype changes")


def _fix_input_dtypes(op, examples):
    """Gives each tensor the dtype its examples write (`labels=int64[2, 37]`)."""
    tensors = {a.name: a for a in op.tensors}
    for text, dtypes in examples:
        for name, dtype in dtypes.items():
            if name not in tensors:
                raise GenerationError(f"--example {text!r}: '{name}' is not a tensor argument "
                                      f"of {op.qualname}: only tensors take a dtype")
            if tensors[name].dtype and tensors[name].dtype != dtype:
                raise GenerationError(f"--example {text!r}: '{name}' is {dtype} here but "
                                      f"{tensors[name].dtype} in another example")
            tensors[name].dtype = dtype


def _plugin_dtypes(op, dtypes, log):
    """The --dtypes an op is generated for: the first only where every tensor input has a dtype
    of its own (float8 weights and their float32 scales), whose launchers would be the same for
    each."""
    if len(dtypes) > 1 and op.tensors and all(a.dtype for a in op.tensors):
        log(f"{op.qualname}: note: every tensor input has a dtype of its own ("
            + ", ".join(f"{a.name} {a.dtype}" for a in op.tensors) + f"): one launcher, "
            f"generated as for --dtypes {dtypes[0]} (another would launch the same)")
        return dtypes[:1]
    return dtypes


def _complete_example(op, text, values):
    missing = [a.name for a in op.arguments
               if a.name not in values and a.default is None and not a.optional]
    unknown = sorted(set(values) - {a.name for a in op.arguments})
    if missing or unknown:
        raise GenerationError(f"--example {text!r}: "
                              + (f"missing {', '.join(missing)}" if missing else "")
                              + ("; " if missing and unknown else "")
                              + (f"no argument {', '.join(unknown)}" if unknown else ""))
    example = {}
    for argument in op.arguments:
        value = values.get(argument.name, argument.default)
        if value is None and argument.optional:
            example[argument.name] = None  # absent: the structure without it
            continue
        if argument.kind == "Tensor" and not (isinstance(value, list) and
                                              all(isinstance(e, int) for e in value)):
            raise GenerationError(f"--example {text!r}: tensor '{argument.name}' is given by its "
                                  "shape, a list of integers"
                                  + (" (or None: absent)" if argument.optional else ""))
        example[argument.name] = list(value) if isinstance(value, (list, tuple)) else value
    return example


def _with_axis_attributes(op, trace_and_recover, log):
    """trace_and_recover(); where a launch value is not recovered (a refusal of kind UNRECOVERED:
    a launch argument, or a block size, that follows an int attribute in a way no expression
    recovers, `x.shape[dim]`, the next power of two of `W + pad_left + pad_right`), again with an
    int attribute (then all of them) part of the structure: a dim whose axis the host code reads
    (`x.shape[dim]` of a softmax whose fake keeps the shape) is then a value per example."""
    try:
        return trace_and_recover()
    except GenerationError as refusal:
        if refusal.kind != UNRECOVERED:
            raise
        candidates = [a for a in op.attributes if a.kind in ("int", "int[]") and
                      not a.structural]
        trials = [[a] for a in candidates] + ([candidates] if len(candidates) > 1 else [])
        later = None  # a refusal past the attribute's (held, the op fails for another reason)
        for chosen in trials:
            for argument in chosen:
                argument.structural = True
            try:
                result = trace_and_recover()
            except GenerationError as other:
                if other.kind != UNRECOVERED:
                    later = later or other
                for argument in chosen:
                    argument.structural = False
                op.notes.clear()
                continue
            for argument in chosen:
                log(f"{op.qualname}: note: {argument.name} is part of the structure, as a "
                    "string is: the host code's launches follow its value, so the plugin takes "
                    "the values it is generated for (the examples', and an axis's others where "
                    "the op converts there)")
            return result
        raise (later or refusal) from None


def _with_structural_bools(op, trace_and_recover, log):
    """trace_and_recover(); where it is refused and the op has bool attributes the samples set
    both ways, again with them part of the structure (each example's value only): a branch of
    the host code the examples do not take (SGLang's `column_major_scales=True`, a transposed
    view) then does not refuse the op."""
    try:
        return trace_and_recover()
    except GenerationError as refusal:
        bools = [a for a in op.attributes if a.kind == "bool" and not a.structural]
        if not bools:
            raise
        for argument in bools:
            argument.structural = True
        op.notes.clear()
        try:
            result = trace_and_recover()
        except GenerationError:
            for argument in bools:
                argument.structural = False
            raise refusal from None
        for argument in bools:
            log(f"{op.qualname}: note: {argument.name} is part of the structure, as a string "
                f"is: with it set otherwise than the examples do, the op is refused "
                f"({str(refusal)[:300]}); the plugin takes the values it is generated for "
                "(the examples', and the other where the op converts there)")
        return result


# Structures added for the values of structural attributes that no example gives, at most, per
# op (each is traced and recovered as an example is).
MOST_OTHER_VALUES = 12


def _attribute_values(op, name, examples):
    """The values a structural attribute can take: a bool both; an int whose examples' values
    are all axes of their tensors (in [-rank, rank)) one value per axis, the axes no example
    gives counted as the examples count (from the end where one gives a negative value);
    otherwise the examples' values only."""
    argument = next(a for a in op.attributes if a.name == name)
    given = []
    for example in examples:
        if example[name] not in given:  # lists are values too (int[])
            given.append(example[name])
    if argument.kind == "bool" and not argument.optional:
        return given + [v for v in (False, True) if v not in given]
    ranks = [max((len(e[t.name]) for t in op.tensors if e[t.name] is not None), default=0)
             for e in examples]
    if argument.kind != "int" or argument.optional or not all(
            isinstance(e[name], int) and -r <= e[name] < r for e, r in zip(examples, ranks)):
        return given
    rank = min(ranks)
    covered = {v % rank for v in given}
    axes = range(-rank, 0) if any(v < 0 for v in given) else range(rank)
    return given + [v for v in axes if v % rank not in covered]


def _other_values(op, examples, given_structural):
    """(example, attribute, value): for each example, each value of an attribute that became
    part of the structure during generation (not by its type) that no example gives with the
    example's other values."""
    added = {a.name for a in op.attributes if a.structural} - given_structural
    seen = [dict(e) for e in examples]
    others = []
    for name in sorted(added):
        values = _attribute_values(op, name, examples)
        for example in examples:
            for value in values:
                other = dict(example, **{name: value})
                if other not in seen:
                    seen.append(other)
                    others.append((example, name, value))
    return others[:MOST_OTHER_VALUES]


def _example_text(op, example):
    """An example as --example writes it (`ns::op(x=[4, 8], keepdim=True)`)."""
    values = []
    for argument in op.arguments:
        value = example[argument.name]
        if argument.kind == "Tensor" and value is not None and argument.dtype:
            values.append(f"{argument.name}={argument.dtype}{value!r}")
        else:
            values.append(f"{argument.name}={value!r}")
    return f"{op.qualname}({', '.join(values)})"


# Constexprs held at the example's value, at most, before the op is refused.
MOST_HELD = 4


def _with_held_constexprs(held, trace_and_recover):
    """trace_and_recover(); where a constexpr takes values no rule recovers (UnrecoveredConstexpr),
    again with it in `held` (which trace_and_recover holds at the example's value, requiring the
    sizes where the host code gives it): the structure choices above, which keep every size the
    kernel takes, are tried first."""
    while True:
        try:
            return trace_and_recover()
        except UnrecoveredConstexpr as refusal:
            if len(held) == MOST_HELD or any(
                    (h.position, h.name) == (refusal.position, refusal.name) for h in held):
                raise
            held.append(refusal)


def _log_notes(op, log):
    for note in op.notes:
        log(f"{op.qualname}: note: {note}")
    op.notes.clear()


def _where(function):
    try:
        return f"{Path(inspect.getsourcefile(function)).name}:{inspect.getsourcelines(function)[1]}"
    except (OSError, TypeError):
        return "?"


@contextlib.contextmanager
def _quiet_fake_tensors():
    """PyTorch logs every failed meta function with its traceback; sampling the fake runs it at
    points it rejects on purpose (F.pad's reflection at a padding too long), hundreds of times."""
    logger = logging.getLogger("torch._subclasses.fake_tensor")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def generate(module, out, examples=None, ops=None, dtypes=("float32",), arch=90, log=print,
             example_equalities=True, artefacts=True, max_block=1 << 16, gpu_name=None):
    with _quiet_fake_tensors(), gpu_named(gpu_name):
        return _generate(module, out, examples, ops, dtypes, arch, log, example_equalities,
                         artefacts, max_block)


def _generate(module, out, examples, ops, dtypes, arch, log, example_equalities, artefacts,
              max_block):
    import torch
    import triton


    unknown = [d for d in dtypes if d not in SUPPORTED_DTYPES]
    if unknown or not dtypes:
        raise GenerationError(f"--dtypes {','.join(dtypes)}: expected some of "
                              f"{', '.join(SUPPORTED_DTYPES)}")
    found = find_ops(module, ops)
    if not examples:
        import sys
        examples = []
        for module_path in dict.fromkeys(op.module_path for op in found):
            module_object = next((m for m in sys.modules.values()
                                  if getattr(m, "__file__", None) and
                                  Path(m.__file__).resolve() == module_path), None)
            examples += list(getattr(module_object, "AUTOPLUGIN_EXAMPLES", []))
    parsed = [(text, *parse_example(text)) for text in examples]
    folders = []
    for op in found:
        mine = [(text, values) for text, qualname, values, _ in parsed
                if qualname == op.qualname]
        _fix_input_dtypes(op, [(text, d) for text, qualname, _, d in parsed
                               if qualname == op.qualname])
        op_dtypes = _plugin_dtypes(op, dtypes, log)
        _mark_structural_bools(op, [_complete_example(op, text, values) for text, values in mine])
        if not mine:
            raise GenerationError(
                f"op '{op.qualname}': no example. Pass --example '{op.qualname}("
                + ", ".join(f"{a.name}=..." for a in op.arguments)
                + ")' (tensors by shape): the ranks and list lengths to generate for")

        def trace_and_recover_at(example, held):
            traced = traced_shapes(op, example)
            runs_at_example(op, example, DTYPES[op_dtypes[0]], arch)
            assumed = (equal_extents_of_inputs(op, example, traced) if example_equalities
                       else [])
            learn_domain(op, example, traced, DTYPES[op_dtypes[0]], arch, assumed)
            keep_to_example_kernels(op, example, traced, DTYPES[op_dtypes[0]], arch, assumed)
            for refusal in held:
                if not hold_constexpr(op, example, traced, refusal.position, refusal.kernel,
                                      refusal.name, DTYPES[op_dtypes[0]], arch, assumed):
                    raise refusal
            _log_notes(op, log)
            if traced.unreachable:
                log(f"{op.qualname}: note: the fake implementation rejects "
                    f"{len(traced.unreachable)} sampled point(s) that the generated shape "
                    f"function accepts, e.g. {traced.unreachable[0]}")
            log(f"{op.qualname}: recovering the launches of the host code")
            recovered = recover_launches(op, example, traced, op_dtypes, arch=arch,
                                         example_equalities=example_equalities, log=log,
                                         max_block=max_block)
            # Last, on the domain the recovery settled (the equalities it kept): only what
            # generates pays for the kernels run interpreted.
            keep_kernels_in_bounds(op, example, traced, DTYPES[op_dtypes[0]], arch)
            _log_notes(op, log)
            return traced, recovered

        structures = []
        given_structural = {a.name for a in op.attributes if a.structural}
        for text, values in mine:
            example = _complete_example(op, text, values)
            log(f"{op.qualname}: tracing the fake implementation for {text}")

            held = []
            traced, recovered = _with_held_constexprs(
                held, lambda: _with_structural_bools(
                    op, lambda: _with_axis_attributes(
                        op, lambda: trace_and_recover_at(example, held), log), log))
            if not recovered.launches:
                raise GenerationError(f"op '{op.qualname}': its host code launches no Triton "
                                      f"kernel for {text}")
            structures.append(Structure(example, traced, recovered.launches, recovered.scratch,
                                        tuple(recovered.zeroed_outputs),
                                        tuple(recovered.copied_outputs)))
        # An attribute that became part of the structure (keepdim, a dim the host code reads)
        # gets a structure for each value it can take beside the examples' (a bool's other
        # value, a dim's other axes), where the op converts there: one --example per value,
        # written for the user.
        for example, name, value in _other_values(op, [s.example for s in structures],
                                                  given_structural):
            other = dict(example, **{name: value})
            text = _example_text(op, other)
            log(f"{op.qualname}: tracing the fake implementation for {text} ({name} is part of "
                "the structure: each of its values is a structure)")
            try:
                held = []
                traced, recovered = _with_held_constexprs(
                    held, lambda: trace_and_recover_at(other, held))
            except GenerationError as refusal:
                log(f"{op.qualname}: note: not generated for {name} = {value!r}: "
                    f"{str(refusal)[:300]}")
                op.notes.clear()
                continue
            if not recovered.launches:
                continue
            structures.append(Structure(other, traced, recovered.launches, recovered.scratch,
                                        tuple(recovered.zeroed_outputs),
                                        tuple(recovered.copied_outputs)))
            mine.append((text, other))
        _check_output_dtypes(op, structures, op_dtypes)
        module_path = op.module_path
        provenance = [
            f"Generated from {module_path.name} (sha256 {emit.file_digest(module_path)}...) with "
            f"PyTorch {torch.__version__} and Triton {triton.__version__}:",
            f"  host code     {op.body.__name__} ({_where(op.body)})",
            f"  fake          {op.fake.__name__} ({_where(op.fake)})",
            f"  schema        {op.torch_schema}",
        ]
        if op.torch_schema != op.schema:
            provenance.append("  (SymInt declared int: in a plugin these are attributes, not shape "
                              "inputs)")
        for text, _ in mine:
            provenance.append(f"  generated for {text}")
        try:
            folder = emit.write_project(op, structures, list(op_dtypes), out, provenance, arch, log,
                                        artefacts)
        except TranslationError as error:
            raise GenerationError(f"op '{op.qualname}': an output shape has no ap::Dim form: "
                                  f"{error}") from None
        log(f"{op.qualname}: wrote {folder}")
        folders.append(folder)
    return folders
