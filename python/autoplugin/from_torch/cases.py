"""The generated project's cases.json, for `autoplugin check`: per example and dtype, the
example's shapes; a profile from half to twice them (extents a requirement ties changing
together); where a kernel is a family of block sizes, the example grown until the family's
largest variant runs; for a set of sizes the fake allows, the example at each size of the set."""
import torch

from . import families
from .errors import GenerationError
from .fitting import Environment, point_atoms
from .points import (allowed_values, copy_point, evaluate_shapes, holds as requirement_holds,
                     point_values, tie, tied_extents)
from .records import DTYPE_SHORT, shape_numel


def _case_value(argument, value):
    return list(value) if isinstance(value, (list, tuple)) else value


def _holds(op, structure, point):
    """Whether the shape function's requirements and the families' ranges accept `point`."""
    values = point_values(structure.traced.symbols, point)
    return (all(requirement_holds(r, values) for r in structure.traced.requires) and
            families.within_limits(op, structure.launches, point))


def _profile(op, structure, tensors):
    """Per tensor, the min and max shapes of a dynamic case: each extent halved and doubled
    where the shape function's requirements still hold."""
    example = structure.example
    lows = {t.name: list(example[t.name]) for t in tensors}
    highs = {t.name: list(example[t.name]) for t in tensors}

    def holds(point):
        return _holds(op, structure, point)

    for bound, change in ((lows, lambda e: max(1, e // 2)), (highs, lambda e: 2 * e)):
        for t in tensors:
            for axis, extent in enumerate(example[t.name]):
                if bound[t.name][axis] != extent:
                    continue  # changed with an extent tied to it
                trial = dict(example)
                trial[t.name] = list(bound[t.name])
                trial[t.name][axis] = change(extent)
                if holds(trial):
                    bound[t.name][axis] = change(extent)
                    continue
                # Extents the requirements tie to it (tokens of q, k and positions) change
                # with it, or not at all.
                tied = [(u.name, k) for u in tensors for k, e in enumerate(example[u.name])
                        if e == extent]
                trial = dict(example, **{u.name: list(bound[u.name]) for u in tensors})
                for name, k in tied:
                    trial[name][k] = change(extent)
                if len(tied) > 1 and holds(trial):
                    for name, k in tied:
                        bound[name][k] = change(extent)
    return lows, highs


# A case that runs a family's largest variant keeps its inputs below this many elements.
LARGEST_VARIANT_ELEMENTS = 1 << 23


def _largest_variant_point(op, structure, tensors):
    """The example with one extent grown (and the extents tied to it) so that each family's
    driving size reaches its largest variant: the kernels the example's small sizes never run
    (their most warps, their widest blocks), checked too. None where no extent does it within
    the requirements and LARGEST_VARIANT_ELEMENTS."""
    example = structure.example
    families = [v for launch in structure.launches for v in getattr(launch, "varying", [])
                if v.bounded and v.size_of is not None and v.limit > 1]
    if not families:
        return None
    family = max(families, key=lambda v: v.limit)

    def size(point):
        try:
            return family.size_of(Environment(point_atoms(op, point)))
        except (TypeError, ZeroDivisionError, KeyError, GenerationError):
            return None

    now = size(example)
    if not now or now >= family.limit:
        return None
    for tensor in tensors:
        for axis, extent in enumerate(example[tensor.name]):
            grown = max(extent + 1, extent * family.limit // now)  # at most the limit
            tied = [(t.name, k) for t in tensors for k, e in enumerate(example[t.name])
                    if e == extent]
            for changed in ([(tensor.name, axis)], tied):
                trial = copy_point(example)
                for name, k in changed:
                    trial[name][k] = grown
                reached = size(trial)
                elements = sum(shape_numel(trial[t.name]) for t in tensors)
                if (reached and family.limit // 2 < reached <= family.limit and
                        elements <= LARGEST_VARIANT_ELEMENTS and _holds(op, structure, trial)):
                    return trial
    return None


def _set_points(op, structure, tensors):
    """(label, point) for each value of a set the fake allows (`q.shape[-1] in (16, 32, 64,
    128)`, `group_size in (32, 64)`) other than the example's: the example with that extent or
    int attribute, and what is tied to it, at the value, so that every value's variant is
    checked."""
    traced = structure.traced
    ties = tied_extents(traced.requires, traced.symbols)
    points = []
    for relation in traced.requires:
        allowed = allowed_values(relation)
        ref = traced.symbols.get(allowed[0]) if allowed else None
        if ref is None:
            continue
        for size in allowed[1]:
            if size == ref.value(structure.example):
                continue
            point = copy_point(structure.example)
            ref.assign(point, size)
            tie(point, ties, keep=(ref.name, ref.index))
            label = f"{ref.name}{'' if ref.index is None else ref.index}_{size}".replace("-", "m")
            if (sum(shape_numel(point[t.name]) for t in tensors) <= LARGEST_VARIANT_ELEMENTS and
                    _holds(op, structure, point)):
                points.append((label, point))
    return points


def _case_dtype(tensor, dtype):
    """A case input's dtype; an integer input of its own dtype gets values 0 and 1, which index
    any axis of two or more (labels, indices): widen `range` in cases.json for more (`[0,
    "in0[0]"]`: the rows of input 0), with `"distinct": true` where a kernel writes through
    the index without atomics."""
    if tensor.dtype and not getattr(torch, tensor.dtype).is_floating_point:
        return {"dtype": tensor.dtype, "range": [0, 2]}
    return {"dtype": tensor.dtype or dtype}


def cases(op, structures, dtypes):
    result = []
    for structure in structures:
        example = structure.example
        values = point_values(structure.traced.symbols, example)
        expected = [list(s) for s in evaluate_shapes(structure.traced.outputs, values)]
        attributes = {a.name: _case_value(a, example[a.name]) for a in op.attributes}
        tensors = [a for a in op.arguments if a.kind == "Tensor"]
        lows, highs = _profile(op, structure, [t for t in tensors if example[t.name] is not None])
        tag = "_".join("0" if example[a.name] is None else str(len(example[a.name]))
                       for a in op.arguments if a.kind == "Tensor" or a.kind.endswith("[]"))
        # The family's largest variant (its widest block, most warps), which the example's
        # small sizes never select.
        largest = _largest_variant_point(op, structure,
                                         [t for t in tensors if example[t.name] is not None])
        sizes_of_sets = _set_points(op, structure,
                                    [t for t in tensors if example[t.name] is not None])
        if sizes_of_sets:
            largest = None  # a case per size of the set runs every variant
        largest_shapes = None
        if largest is not None:
            largest_shapes = [list(s) for s in evaluate_shapes(
                structure.traced.outputs, point_values(structure.traced.symbols, largest))]
        for dtype in dtypes:
            # an absent Tensor? is null
            result.append({"name": f"{DTYPE_SHORT[dtype]}_static_{tag}",
                           "inputs": [None if example[t.name] is None else
                                      dict(_case_dtype(t, dtype), shape=example[t.name])
                                      for t in tensors],
                           "attributes": attributes, "expect_shapes": expected})
            dynamic = [None if example[t.name] is None else
                       dict(_case_dtype(t, dtype), min=lows[t.name], opt=example[t.name],
                            max=highs[t.name]) for t in tensors]
            result.append({"name": f"{DTYPE_SHORT[dtype]}_dynamic_{tag}", "inputs": dynamic,
                           "attributes": attributes, "expect_shapes": expected})
            for label, point in sizes_of_sets:
                result.append({"name": f"{DTYPE_SHORT[dtype]}_{label}_{tag}",
                               "inputs": [None if point[t.name] is None else
                                          dict(_case_dtype(t, dtype), shape=point[t.name])
                                          for t in tensors],
                               "attributes": {a.name: _case_value(a, point[a.name])
                                              for a in op.attributes},
                               "expect_shapes": [list(s) for s in evaluate_shapes(
                                   structure.traced.outputs,
                                   point_values(structure.traced.symbols, point))]})
            if largest is not None:
                result.append({"name": f"{DTYPE_SHORT[dtype]}_largest_variant_{tag}",
                               "inputs": [None if largest[t.name] is None else
                                          dict(_case_dtype(t, dtype), shape=largest[t.name])
                                          for t in tensors],
                               "attributes": attributes, "expect_shapes": largest_shapes})
    # Examples that differ only in attributes give cases of one name: numbered apart.
    seen = {}
    for case in result:
        seen[case["name"]] = seen.get(case["name"], 0) + 1
        if seen[case["name"]] > 1:
            case["name"] += f"_{seen[case['name']]}"
    return {"op": op.qualname, "cases": result}
