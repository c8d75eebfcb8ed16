"""Constexprs that change with the shapes or attributes (a family of compiled variants), and
@triton.autotune configs (one launcher per config: TensorRT tactics).

A kernel is compiled ahead of time for each constexpr value, so a constexpr the host code
computes from the sizes (``BLOCK_SIZE = triton.next_power_of_2(n_cols)``, with ``num_warps``
chosen from it, as in Triton's softmax and layer-norm tutorials) or takes from a bool attribute
becomes a family (autoplugin_add_triton_kernel's VARIANTS): every value the recovered expression
takes over the op's range, each compiled with the warps and stages the host code gives it, and
the launcher selects the variant from the same expression at enqueue.

The range of a power-of-two constexpr is bounded: values up to ``max_block`` (the CLI's
``--max-block``), fewer where the host code refuses larger sizes. Each value's warps and stages
are read by running the host code at a size that gives that value. Extents past the range become
a requirement of the shape function, whose message says how to raise the limit.

An autotuned launch runs once per config while the host code is sampled (through the heuristics
the autotuner wraps, if any), each recorded with its config; the generated op has one launcher
per dtype and config, which TensorRT times as tactics. PyTorch eager keeps running the Python op,
with Triton's own pick.
"""
import re
from dataclasses import dataclass, field

from .errors import GenerationError
from .fitting import (Environment, candidates as expression_candidates, describe_environment,
                      point_atoms)
from .records import RecoveredArgument, constexpr_text, launch_site, plain_value
from .shapes import allowed_values, set_text
from .trials import largest_block


DEFAULT_MAX_BLOCK = 1 << 16


class OutsideRequirements(GenerationError):
    """A probed size the fake implementation's requirements exclude (`x.shape[-1] <= 8192`)."""
VARYING = "constexpr"  # the signature entry of a constexpr the variants give


@dataclass
class VaryingConstexpr:
    name: str
    cpp: str  # C++ computing the value in the launcher
    values: list  # the family's values, as the signature writes them
    # A power of two of a size (an input extent, an int attribute, or a combination such as
    # `C * H * W // num_groups`): the shape function's requirement.
    bounded: str = ""  # the shape function's C++ for the driving size, e.g. "x[1]"
    limit: int = 0  # the largest value compiled
    limit_reason: str = ""
    capped: bool = False  # the host code caps it (min(MAX_FUSED_SIZE, ...)): no size limit
    size_of: object = None  # the driving size, a function of a fitting.Environment
    # (the recorded launch, the point's atoms) where the driving size is a value; None where no
    # size gives it; GenerationError where the host code refuses it
    reach: object = None
    # A constexpr that follows the power of two (`BLOCK_N = 64 if HEAD_DIM <= 64 else 32`): its
    # value per variant (the power of two's value -> its own)
    per_variant: dict = None
    # A step function of the size (a cap that changes with it): (the largest size of the step,
    # its value or None where it is the size's next power of two), in order; the last step
    # reaches every larger size
    steps: list = None
    of_set: bool = False  # a variant per size of a set the fake allows: one size each


@dataclass
class Family:
    varying: list  # VaryingConstexpr
    options: dict = field(default_factory=dict)  # value of the power-of-two constexpr -> (warps, stages)

    def variants(self, num_warps, num_stages):
        """VARIANTS entries: one per value of the power-of-two constexpr (its warps and stages),
        with the alternatives of the others."""
        powers = next((v for v in self.varying if v.bounded), None)
        rows = []
        for value in (powers.values if powers else [None]):
            warps, stages = self.options.get(value, (num_warps, num_stages))
            parts = []
            for varying in self.varying:
                if varying is powers:
                    parts.append(f"{varying.name}={value}")
                elif varying.per_variant:
                    parts.append(f"{varying.name}={varying.per_variant[value]}")
                else:
                    parts.append(f"{varying.name}={'|'.join(varying.values)}")
            rows.append(", ".join(parts + [f"num_warps={warps}", f"num_stages={stages}"]))
        return rows


def next_power_of_2(value):
    return 1 if value <= 1 else 1 << (int(value) - 1).bit_length()


def _shape_function_text(atom, op):
    """The shape function's C++ for a launcher atom, or "" when it has none there."""
    if ".size(" in atom:
        tensor, axis = atom.split(".size(")
        if any(a.name == tensor for a in op.tensors):
            return f"{tensor}[{axis.rstrip(')')}]"
        return ""
    if any(a.name == atom and a.kind == "int" for a in op.arguments):
        return atom
    return ""


def _bool_candidates(atoms, others):
    """(C++, function of (atoms, the others' values)) of the bool conditions a heuristic
    typically computes: a bool attribute or its negation, a size divisible by, or equal to, a
    power of two or another integer constexpr of the launch (`others`: their C++), the launch's
    power of two first, or at most another (FlagGems' `ONE_TILE_PER_CTA = TILE_N >= N`)."""
    for atom in atoms:
        if isinstance(atoms[atom], bool):
            yield atom, lambda a, o, n=atom: a[n]
            yield f"!{atom}", lambda a, o, n=atom: not a[n]
    for atom in atoms:  # a feature a float attribute turns on (Unsloth's softcap != 0)
        if isinstance(atoms[atom], float):
            yield f"{atom} != 0", lambda a, o, n=atom: a[n] != 0
            yield f"{atom} == 0", lambda a, o, n=atom: a[n] == 0
    divisors = [(cpp, lambda o, k=k: o[k]) for k, cpp in enumerate(others)]
    divisors += [(str(2 ** k), lambda o, d=2 ** k: d) for k in range(1, 17)]
    for atom in atoms:
        if not isinstance(atoms[atom], int) or isinstance(atoms[atom], bool):
            continue
        for cpp, divisor in divisors:
            yield (f"{atom} % {cpp} == 0",
                   lambda a, o, n=atom, d=divisor: d(o) != 0 and a[n] % d(o) == 0)
        for k, cpp in enumerate(others):
            yield f"{atom} == {cpp}", lambda a, o, n=atom, k=k: a[n] == o[k]
            yield f"{atom} <= {cpp}", lambda a, o, n=atom, k=k: a[n] <= o[k]
            yield f"{atom} > {cpp}", lambda a, o, n=atom, k=k: a[n] > o[k]


def _telling_apart(candidates, cpps, values, name, others, probe):
    """(atoms, the others' values, the bool's value) of the host code run with each candidate's
    size at the value it is compared with (`K % 128 == 0` -> K = 128), where the host code
    takes it."""
    probes, tried = [], set()
    for cpp, _ in candidates:
        found = re.match(r"(\S+) (?:%|==|<=|>) (\S+)", cpp)
        if not found:
            continue
        atom, right = found.groups()
        value = int(right) if right.isdigit() else (
            values[cpps.index(right)] if right in cpps else None)
        if not isinstance(value, int) or value < 1 or (atom, value) in tried:
            continue
        tried.add((atom, value))
        try:
            record, atoms = probe(atom, value)
        except (GenerationError, KeyError):  # (refused there; an output's extent, not set)
            continue
        probes.append((atoms, [plain_value(record.arguments[n]) for _, n in others],
                       plain_value(record.arguments[name])))
    return probes


def _holds(function, atoms, others):
    try:
        return function(atoms, others)
    except (KeyError, TypeError, ZeroDivisionError):
        return None


def add_varying(family, op, name, first, recorded, constexprs, envs, context, probe, max_block):
    """Constexpr `name` of a launch (`first`, and `recorded` at every sampled point) changes:
    returns the launch's Family with it added, and the RecoveredArgument of it."""
    family = family or Family([])
    # What a bool may be compared with: the launch's other integer constexprs, as recovered.
    others = [(v.cpp, v.name) for v in family.varying if v.bounded]
    for other in first.arguments:
        value = plain_value(first.arguments[other])
        if (other in constexprs and other != name and isinstance(value, int) and
                not isinstance(value, bool) and
                all(plain_value(r.arguments[other]) == value for r in recorded)):
            others.append((repr(value), other))
    driving = next((v for v in family.varying if v.bounded), None)
    following = _per_variant(name, recorded, driving, envs)
    if following is not None:
        family.varying.append(following)
        return family, RecoveredArgument(name, "constexpr", cpp=following.cpp, constexpr=VARYING)
    varying, options = recover(op, name, recorded, envs, context, probe, max_block, others,
                               driving)
    if options and any(v.bounded for v in family.varying):
        raise GenerationError(f"op '{op.qualname}': {context}: a second constexpr that is a "
                              "power of two of the sizes; one per launch is generated (their "
                              "variants would multiply): loop over the other size at run time "
                              "in the kernel, or split the launch")
    family.varying.append(varying)
    family.options.update(options or {})
    return family, RecoveredArgument(name, "constexpr", cpp=varying.cpp, constexpr=VARYING)


def _per_variant(name, recorded, driving, envs):
    """Integer constexpr `name` as a value per variant of the launch's power-of-two constexpr
    (`BLOCK_N = 64 if HEAD_DIM <= 64 else 32`): read by running the host code where it gives
    each variant, and the same at every sample; None where it is not that (no power of two
    before it, another size changes it too, or it is a size itself: Liger's `n_cols:
    tl.constexpr` beside its block, which a sample per variant would not tell apart)."""
    if driving is None or driving.reach is None:
        return None
    values = [plain_value(record.arguments[name]) for record in recorded]
    # (a variant of a set is one size, so a size there follows it: SGLang's BLOCK_DV beside
    # BLOCK_DMODEL, with `v.shape[-1] == k.shape[-1]`)
    if not driving.of_set and any(all(env.atoms.get(atom) == value
                                      for env, value in zip(envs, values))
                                  for atom in envs[0].atoms):
        return None
    seen = {}  # the samples first: one value per variant, or it follows something else too
    for record in recorded:
        if seen.setdefault(constexpr_text(record.arguments[driving.name]),
                           constexpr_text(record.arguments[name])) != \
                constexpr_text(record.arguments[name]):
            return None
    table = {}
    for value in driving.values:
        try:
            reached = driving.reach(int(value))
        except GenerationError:
            return None
        got = None if reached is None else plain_value(reached[0].arguments[name])
        if not isinstance(got, int) or isinstance(got, bool):
            return None
        table[value] = str(got)
    # (samples past the family's largest variant are sizes the plugin refuses)
    if any(table.get(variant, value) != value for variant, value in seen.items()):
        return None
    cases = " ".join(f"case {value}: return {table[value]};" for value in driving.values)
    cpp = (f"[&]() -> std::int64_t {{ switch ({driving.cpp}) {{ {cases} default: return "
           f"{table[driving.values[-1]]}; }} }}()")
    return VaryingConstexpr(name, cpp, sorted(set(table.values()), key=int), per_variant=table)


def is_power_of_a_size(name, recorded, envs):
    """Whether constexpr `name` is, at every sample, the next power of two of one input extent
    or int attribute (floored and capped at the samples' least and largest values): a
    launch's power of two, which the others may follow."""
    plain = [plain_value(r.arguments[name]) for r in recorded]
    return (all(_is_power(v) for v in plain) and
            next(_powers_of_atoms(plain, envs), None) is not None)


def _powers_of_atoms(plain, envs):
    """The atoms whose next power of two, floored and capped at the samples' least and largest
    values, gives `plain` (powers of two) at every sample."""
    floor, top = min(plain), max(plain)  # top: a cap where samples exceed it (probed)
    for atom in envs[0].atoms:
        sizes = [env.atoms[atom] for env in envs]
        if all(isinstance(s, int) and not isinstance(s, bool) for s in sizes) and \
                all(min(max(next_power_of_2(s), floor), top) == v for s, v in zip(sizes, plain)):
            yield atom


def recover(op, name, recorded, envs, context, probe, max_block, others=(), driving=None):
    """The VaryingConstexpr for `name`, whose values in `recorded` (one launch per sampled point,
    `envs` alike) change; `probe(atom, value)` runs the host code with that launcher atom set to
    `value` and returns (the recorded launch, the atoms of its inputs and attributes), or raises
    GenerationError when the host code refuses it. `others`: (C++, name) of the launch's integer
    constexprs recovered before; `driving`: its power-of-two constexpr, if any, whose sizes are
    probed to tell apart bool conditions that the samples cannot."""
    plain = [plain_value(r.arguments[name]) for r in recorded]
    if all(isinstance(v, bool) for v in plain):
        cpps = [cpp for cpp, _ in others]
        per_point = [[plain_value(r.arguments[n]) for _, n in others] for r in recorded]
        probes = []
        if driving is not None:
            for size in (2, 3, 8, 9, 64, 65):
                try:
                    reached = driving.reach(size)
                except GenerationError:
                    continue
                if reached is None:
                    continue
                record, atoms = reached
                probes.append((atoms, [plain_value(record.arguments[n]) for _, n in others],
                               plain_value(record.arguments[name])))
        fitting = [(cpp, function) for cpp, function in _bool_candidates(envs[0].atoms, cpps)
                   if all(_holds(function, env.atoms, o) == v
                          for env, o, v in zip(envs, per_point, plain)) and
                   all(_holds(function, atoms, o) == v for atoms, o, v in probes)]
        if len(fitting) > 1:
            # (`K % BLOCK_K == 0` and `K % BLOCK_M == 0` agree at sizes that are multiples of
            # neither: the host code run at each divisor tells them apart)
            probes = _telling_apart(fitting, cpps, per_point[0], name, others, probe)
            fitting = [(cpp, function) for cpp, function in fitting
                       if all(_holds(function, atoms, o) == v for atoms, o, v in probes)]
        if fitting:
            return VaryingConstexpr(name, fitting[0][0], ["True", "False"]), None
        raise GenerationError(f"op '{op.qualname}': {context}: a bool constexpr that changes with "
                              f"the shapes or attributes ({sorted(set(plain))}) and is neither a "
                              "bool attribute nor a size divisible by, or equal to, a power of "
                              "two or another constexpr")
    # An extent from a set the fake allows, the constexpr that extent at every size of the set
    # (a power of two fitted to samples of some of its sizes would miss the others).
    of_set = _size_of_a_set(op, name, plain, envs, probe)
    if of_set:
        return of_set
    if all(isinstance(v, int) and not isinstance(v, bool) and v > 0 and v & (v - 1) == 0
           for v in plain):
        floor, top = min(plain), max(plain)
        for atom in _powers_of_atoms(plain, envs):
            sizes = [env.atoms[atom] for env in envs]
            bounded = _shape_function_text(atom, op)
            if not bounded:
                continue
            floored = any(next_power_of_2(s) < floor for s in sizes)
            cpp = f"ap::triton::next_power_of_2({atom})"
            if floored:
                cpp = f"std::max<std::int64_t>({cpp}, {floor})"
            try:
                found = _powers_of_two(op, name, cpp, bounded, floor if floored else 1,
                                       lambda env, a=atom: env.atoms[a],
                                       lambda value, exact=True, a=atom: probe(a, value),
                                       max_block, context,
                                       _block_check(name, probe, max_block))
                _family_fits_samples(op, found[0], sizes, plain, context)
                return found
            except GenerationError as refusal:
                # (probed, a step function: the samples did not reach its other steps)
                stepped = _steps_of_a_size(op, name, plain, envs, probe, max_block,
                                           context)
                if stepped:
                    return stepped
                raise refusal
        try:
            derived = _power_of_derived_size(op, name, plain, floor, top, envs, probe,
                                             max_block, context)
        except GenerationError:
            derived = None  # (a step function of the size, below, or the refusal after it)
        if derived:
            return derived
        stepped = _steps_of_a_size(op, name, plain, envs, probe, max_block, context)
        if stepped:
            return stepped
    zero = next((env for env, v in zip(envs, plain) if v == 0), None)
    if zero is not None and all(isinstance(v, int) and not isinstance(v, bool) and
                                v & (v - 1) == 0 for v in plain):
        raise GenerationError(
            f"op '{op.qualname}': {context}: a power of two of the sizes that is 0 where a size "
            f"is 0 or 1 (at {describe_environment(zero)}: triton.next_power_of_2(0) is 0, and no kernel "
            "compiles for a block of 0), so the sizes it comes from could not be told: state in "
            "the fake implementation that the size is at least 2 (torch._check(... >= 2)), or "
            "floor the block in the host code (max(triton.next_power_of_2(n), 16))")
    raise GenerationError(
        f"op '{op.qualname}': {context}: a constexpr that changes with the shapes or attributes "
        f"({', '.join(map(repr, sorted(set(plain), key=_order)))}); generated: the next power "
        "of two of a size (an input extent, element count or stride, an int attribute, or a "
        "simple combination of these, as the fitter recovers arguments), at least a constant "
        "and at most one cap (min(max(next_power_of_2(n), floor), cap), or a cap that changes "
        "with an input extent or int attribute, such as 1024 below n = 4096 and 2048 above), a "
        "value per size of a set the fake allows, and bool attributes")


def _order(value):
    """Numbers in order, then anything else by its text."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return (0, value, "") if number else (1, 0, repr(value))


def _size_of_a_set(op, name, plain, envs, probe):
    """The family of an extent or int attribute the fake allows from a set (`q.shape[-1] in (64,
    80, 96, 128)`, head sizes that are not all powers of two; `group_size in (32, 64, 128)`)
    where the constexpr is that value: a variant per value of the set, each with the warps and
    stages the host code gives it; None where it is not that."""
    traced = getattr(probe, "traced", None)
    if traced is None or not all(isinstance(v, int) and not isinstance(v, bool) for v in plain):
        return None
    for relation in traced.requires:
        allowed = allowed_values(relation)
        ref = traced.symbols.get(allowed[0]) if allowed else None
        if ref is None:
            continue
        atom = ref.text()
        if not _shape_function_text(atom, op):
            continue  # (an element of an int[] attribute)
        if not all(env.atoms.get(atom) == v for env, v in zip(envs, plain)):
            continue
        options = {}
        for size in allowed[1]:
            try:
                record, _ = probe(atom, size)
            except GenerationError:
                return None
            if plain_value(record.arguments[name]) != size:
                return None
            options[str(size)] = (int(record.options.get("num_warps", 4)),
                                  int(record.options.get("num_stages", 3)))
        reason = f"the fake implementation requires {set_text(atom, allowed[1])}"
        varying = VaryingConstexpr(name, atom, [str(v) for v in allowed[1]],
                                   _shape_function_text(atom, op), max(allowed[1]), reason,
                                   False, lambda env, a=atom: env.atoms[a],
                                   lambda value, exact=True, a=atom: probe(a, value),
                                   of_set=True)
        return varying, options
    return None


def _power_of_derived_size(op, name, plain, floor, top, envs, probe, max_block, context):
    """The family of `triton.next_power_of_2(size)` where the size is computed from several
    (Liger's group norm: `C * H * W // num_groups`; `x.numel() // x.shape[-1]`): the first
    combination the fitter knows whose powers of two match every sample and, probed at each
    power, give that power; None when none does."""
    refusal = None
    for text, function in expression_candidates(envs, ()):
        bounded = _shape_function_expression(text, op, envs[0].atoms)
        if not bounded:
            continue
        try:
            sizes = [function(env) for env in envs]
        except (KeyError, TypeError, ZeroDivisionError):
            continue
        if not all(isinstance(s, int) and s >= 0 and min(max(next_power_of_2(s), floor), top) == v
                   for s, v in zip(sizes, plain)):
            continue
        floored = any(next_power_of_2(s) < floor for s in sizes)
        cpp = f"ap::triton::next_power_of_2({text})"
        if floored:
            cpp = f"std::max<std::int64_t>({cpp}, {floor})"
        try:
            found = _powers_of_two(op, name, cpp, bounded, floor if floored else 1, function,
                                   lambda value, exact=True, f=function: probe.reach(f, value,
                                                                                      exact),
                                   max_block, context,
                                   _block_check(name, probe, max_block))
            _family_fits_samples(op, found[0], sizes, plain, context)
            return found
        except GenerationError as error:  # probed, another size: a candidate that only fit
            refusal = refusal or error
    if refusal:
        raise refusal
    return None


# The largest size a step function is probed at (beyond it, the last step's value holds).
STEP_PROBE_LIMIT = 1 << 22


def _steps_of_a_size(op, name, plain, envs, probe, max_block, context):
    """The family of a power of two that is a step function of one input extent or int
    attribute: a cap that changes with the size (`min(next_power_of_2(n), 1024 if n < 4096 else
    2048)`; FlagGems' softmax: `next_power_of_2(n)` up to 32768, 4096 above), found by running
    the host code at each power of two of the size and one past it, and by bisection between two
    that differ. The launcher computes it as a chain of comparisons; None where no size's
    samples fit such a function."""
    for atom in envs[0].atoms:
        sizes = [env.atoms[atom] for env in envs]
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in sizes):
            continue
        bounded = _shape_function_text(atom, op)
        if not bounded or len(set(sizes)) < 2 or \
                len(set(zip(sizes, plain))) != len(set(sizes)):  # not a function of it
            continue
        probed = {}  # size -> the constexpr's value, or the refusal there

        def value_at(n, a=atom):
            if n not in probed:
                try:
                    probed[n] = plain_value(probe(a, n)[0].arguments[name])
                except GenerationError as error:
                    probed[n] = error
            return probed[n]

        if any(value_at(n) != v for n, v in zip(sizes, plain)):
            continue  # another size changes it too
        found = _steps(value_at, max_block)
        if found is None:
            continue
        steps, limit, reason = found
        values = sorted({value_at(n) for n in probed if _is_power(value_at(n))
                         and (not limit or n <= limit)})
        if not all(str(v) in map(str, values) for v in plain):
            continue
        options = {}
        for value in values:
            n = min(n for n in probed if value_at(n) == value)
            record, _ = probe(atom, n)
            options[str(value)] = (int(record.options.get("num_warps", 4)),
                                   int(record.options.get("num_stages", 3)))
        cpp = _steps_text(atom, steps)

        def reach(value, exact=True, a=atom):
            sizes_giving = [n for n in probed if value_at(n) == value]
            return probe(a, min(sizes_giving)) if sizes_giving else None

        largest = min(n for n in probed if value_at(n) == values[-1])
        return VaryingConstexpr(name, cpp, [str(v) for v in values], bounded,
                                limit or largest, reason, not limit,
                                lambda env, a=atom: env.atoms[a], reach,
                                steps=steps), options
    return None


def _is_power(value):
    return isinstance(value, int) and not isinstance(value, bool) and value > 0 and \
        value & (value - 1) == 0


def _steps(value_at, max_block):
    """(steps, the largest size taken or 0, why) of the step function `value_at` over sizes
    from the first one the op takes: its values powers of two; the sizes past a value above
    `max_block`, or past a refusal of the host code, are not taken. None where it is not such a
    function."""
    probes, n = [], 1
    while n <= STEP_PROBE_LIMIT:
        probes += [n, n + 1] if n > 1 else [n]
        n *= 2
    taken, limit, reason = [], 0, ""
    for n in probes:
        value = value_at(n)
        if isinstance(value, OutsideRequirements):
            if taken:
                break  # the fake's own limit: nothing larger reaches the plugin
            continue
        if isinstance(value, GenerationError) or (_is_power(value) and value > max_block):
            if not taken:
                return None
            limit = _last_before(value_at, taken[-1], n, max_block)
            reason = (f"the host code refuses sizes above it ({value})"
                      if isinstance(value, GenerationError) else
                      f"variants are compiled up to {max_block}; regenerate with --max-block "
                      f"{2 * max_block} (or larger) for larger sizes")
            break
        if not _is_power(value):
            return None
        taken.append(n)
    if len(taken) < 2:
        return None
    ends = []  # the largest size of each value
    for low, high in zip(taken, taken[1:]):
        _changes(value_at, low, high, ends)
    ends.append(limit or taken[-1])
    steps = []
    for end in ends:
        start = steps[-1][0] + 1 if steps else taken[0]
        value = value_at(end)
        power = value == next_power_of_2(end) == next_power_of_2(start)
        entry = (end, None if power else value)
        if steps and steps[-1][1] is None and entry[1] is None:
            steps[-1] = entry  # one run of next powers of two
        else:
            steps.append(entry)
    return steps, limit, reason


def _changes(value_at, low, high, ends):
    """Appends to `ends` the largest size of each value between sizes `low` and `high`, by
    bisection (equal values at both ends are taken to hold between: host code picks a block by
    a few thresholds, and the probes are at most twice apart)."""
    if value_at(low) == value_at(high):
        return
    if high == low + 1:
        ends.append(low)
        return
    middle = (low + high) // 2
    _changes(value_at, low, middle, ends)
    _changes(value_at, middle, high, ends)


def _last_before(value_at, low, high, max_block):
    """The largest size between `low` (taken) and `high` (not: refused, or above max_block)
    that is taken."""
    def taken(n):
        value = value_at(n)
        return _is_power(value) and value <= max_block
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if taken(middle) else (low, middle)
    return low


def _steps_text(atom, steps):
    """The launcher's C++ of a step function: `n <= 1024 ? next_power_of_2(n) : n <= 4095 ?
    1024 : 2048`."""
    def value_text(value):
        return (f"ap::triton::next_power_of_2({atom})" if value is None
                else f"std::int64_t{{{value}}}")
    text = value_text(steps[-1][1])
    for end, value in reversed(steps[:-1]):
        text = f"{atom} <= {end} ? {value_text(value)} : {text}"
    return f"({text})"


_LAUNCHER_TO_SHAPE = [(re.compile(r"\bfloor_div\("), "ap::floor_div("),
                      (re.compile(r"ap::triton::cdiv\("), "ap::ceil_div("),
                      (re.compile(r"std::min\("), "ap::min("),
                      (re.compile(r"std::max\("), "ap::max(")]


def _shape_function_expression(text, op, atoms):
    """The shape function's C++ for a launcher expression over inputs' extents, element counts
    and strides and int attributes (`floor_div(X.stride(0), num_groups)` ->
    `ap::floor_div(X[1] * X[2] * X[3], num_groups)`); "" where it reads anything else (an
    output, a float)."""
    inputs = {a.name for a in op.tensors}
    integers = {a.name for a in op.arguments if a.kind in ("int", "int[]")}

    def atom_text(match):
        tensor, member, index = match.group(1), match.group(2), match.group(3)
        if tensor not in inputs:
            raise KeyError(tensor)
        rank = sum(1 for key in atoms if key.startswith(f"{tensor}.size("))
        if member == "size":
            return f"{tensor}[{index}]"
        first = 0 if member == "numel" else int(index) + 1
        extents = [f"{tensor}[{axis}]" for axis in range(first, rank)]
        return "(" + " * ".join(extents or ["1"]) + ")"

    try:
        result = re.sub(r"\b(\w+)\.(size|numel|stride)\((\d*)\)", atom_text, text)
    except KeyError:
        return ""
    for pattern, replacement in _LAUNCHER_TO_SHAPE:
        result = pattern.sub(replacement, result)
    for word in re.findall(r"\b([A-Za-z_]\w*)\b(?!\s*\()(?!\[)", result):
        if word not in inputs and word not in integers and word != "ap":
            return ""
    return result


def _family_fits_samples(op, varying, sizes, plain, context):
    """Refuses a family whose value at a sampled size is not what the host code launched there:
    a cap probed below a size where it changes (DyT's 1024 below 4096 columns, 2048 from there,
    read as a cap of 1024 at 2048 columns) then goes to the step functions."""
    lowest, top = int(varying.values[0]), int(varying.values[-1])
    for size, launched in zip(sizes, plain):
        value = max(next_power_of_2(size), lowest)
        if varying.capped:
            value = min(value, top)
        elif value > top:
            continue  # past the family: the plugin refuses the size
        if value != launched:
            raise GenerationError(f"op '{op.qualname}': {context}: the family {varying.cpp} "
                                  f"gives {value} at {varying.bounded} = {size}, where the host "
                                  f"code launched {launched}")


def _block_check(name, probe, max_block):
    """Why the variant of the power of two `name` at a value is not compiled ("" where it is),
    from its recorded launch: Triton's front end refuses it, or a program of it would hold a
    block of more than `max_block` elements (a block a tile of two sizes makes: Liger's RoPE
    holds heads x half the head size, and a block of a million elements takes Triton minutes
    to compile, where it compiles at all). Values up to the example's are compiled whatever
    their block: the plugin takes its example."""
    kept = []

    def problem(record, value):
        if not kept:
            kept.append(plain_value(probe.at_example().arguments[name]))
        if value <= kept[0]:
            return ""
        elements, refusal = largest_block(record, probe.arch)
        if refusal:
            return f"Triton does not compile it at {name} = {value} ({refusal})"
        if elements > max_block:
            return (f"at {name} = {value} a program would hold a block of {elements} elements, "
                    f"more than --max-block {max_block}; regenerate with --max-block "
                    f"{elements} (or larger) for larger sizes")
        return ""
    return problem


def _powers_of_two(op, name, cpp, bounded, lowest, size_of, reach, max_block, context,
                   block_problem):
    """The family of powers of two from `lowest` up to `max_block`, fewer where the host code
    refuses or the block grows too large (`block_problem(record, value)`: why not, or "");
    each value's launch options from the host code run at a point where the driving size
    (`size_of`; `reach(value, exact)` runs the host code where it is `value`, or with `exact`
    False, where its next power of two is) gives that value. A power no size reaches is left
    out below the first one reached; above it, the family ends there."""
    values, options, reason = [], {}, ""
    capped = False
    value = lowest
    while value <= max_block:
        try:
            reached = reach(value, exact=False)
        except OutsideRequirements as error:
            if not values:  # below the sizes the op takes (`x.shape[-1] >= 2`)
                value *= 2
                continue
            reason = f"the fake implementation requires {error}"
            break
        except GenerationError as error:  # "at FILE:LINE (the line): Error: message"
            reason = f"the host code refuses {bounded} = {value} ({error})"
            break
        if reached is None:
            if values:
                reason = (f"no sizes found by moving one extent or int attribute of the "
                          f"examples give {bounded} = {value} (regenerate with an --example "
                          "that reaches it, if the op takes such sizes)")
                break
            value *= 2
            continue
        record, _ = reached
        got = plain_value(record.arguments[name])
        if values and got == int(values[-1]) and got < value:
            # The host code caps it (Liger's min(MAX_FUSED_SIZE, next_power_of_2(n))): the
            # largest variant serves every larger size, as eagerly.
            capped = True
            break
        if got != value:
            # The options read at this size would be another variant's.
            raise GenerationError(f"op '{op.qualname}': {context}: with {bounded} = {value} the "
                                  f"host code launches {name} = {got}, not {value}; its launch "
                                  "options per variant cannot be read: make the sizes the "
                                  "constexpr comes from agree in the fake (torch._check)")
        if values:
            reason = block_problem(record, value)
            if reason:
                break
        options[str(value)] = (int(record.options.get("num_warps", 4)),
                               int(record.options.get("num_stages", 3)))
        values.append(str(value))
        value *= 2
    if not values:
        raise GenerationError(f"op '{op.qualname}': {context}: the host code refuses every size "
                              f"from {lowest} to {max_block}: {reason}")
    if not reason and not capped:
        # One size past the family: a cap at the limit itself (MAX_FUSED_SIZE = 65536) serves
        # every larger size; a refusal there is the limit's reason.
        try:
            reached = reach(2 * int(values[-1]), exact=False)
        except OutsideRequirements as error:
            reached, reason = None, f"the fake implementation requires {error}"
        except GenerationError as error:
            reached, reason = None, (f"the host code refuses {bounded} = "
                                     f"{2 * int(values[-1])} ({error})")
        if reached is not None and plain_value(reached[0].arguments[name]) == int(values[-1]):
            capped = True
    if int(values[0]) > lowest:
        cpp = f"std::max<std::int64_t>({cpp}, {values[0]})"
    if capped:
        cpp = f"std::min<std::int64_t>({cpp}, {values[-1]})"
    elif not reason:
        reason = (f"variants are compiled up to {name} = {values[-1]}; regenerate with "
                  f"--max-block {2 * int(values[-1])} (or larger) for larger sizes")
    varying = VaryingConstexpr(name, cpp, values, bounded, int(values[-1]), reason, capped,
                               size_of, reach)
    return varying, options


def within_limits(op, launches, point):
    """Whether `point` (argument -> shape or value) keeps every size in the families' ranges."""
    for launch in launches:
        for varying in getattr(launch, "varying", []):
            if not varying.bounded or varying.capped:
                continue
            if varying.size_of(Environment(point_atoms(op, point))) > varying.limit:
                return False
    return True


def requirements(launches):
    """The shape function's requirements that keep every size in the families' ranges: C++
    (condition, message) pairs."""
    seen, result = set(), []
    for launch in launches:
        for varying in getattr(launch, "varying", []):
            if (not varying.bounded or varying.capped or
                    (varying.bounded, varying.limit) in seen):
                continue
            seen.add((varying.bounded, varying.limit))
            condition = f"{varying.bounded} <= {varying.limit}"
            message = (f"{varying.bounded} <= {varying.limit}: kernel '{launch.kernel_name}' "
                       f"({launch.where}): {varying.limit_reason}")
            result.append((condition, message.replace("\\", "\\\\").replace('"', '\\"')))
    return result


@dataclass
class AutotuneConfig:
    index: int  # in the kernel's @triton.autotune configs
    count: int  # how many configs the kernel has
    text: str  # "BLOCK=128, num_warps=4, num_stages=3"


def launch_each_config(autotuner, args, kwargs, records, module_path):
    """Stands in for Autotuner.run while the host code is sampled: launches (records) the kernel
    once per config, each tagged with it."""
    where, line = launch_site(module_path)
    name = getattr(getattr(autotuner, "base_fn", None), "__name__", "the kernel")
    configs = list(autotuner.configs)
    for index, config in enumerate(configs):
        unsupported = [what for what, present in [
            ("pre_hook", config.pre_hook is not None),
            ("num_ctas > 1", getattr(config, "num_ctas", 1) not in (None, 1)),
            ("maxnreg", getattr(config, "maxnreg", None) is not None)] if present]
        if unsupported:
            hint = (" (a pre_hook that zeroes the output, as split-K's init_to_zero: allocate "
                    "it with torch.zeros, or name it in @triton.autotune's reset_to_zero)"
                    if config.pre_hook is not None else "")
            raise GenerationError(f"{where}: {line}: config {index} of '{name}' ({config}) sets "
                                  f"{', '.join(unsupported)}, which is not compiled ahead of "
                                  f"time{hint}")
        start = len(records)
        autotuner.fn.run(*args, **kwargs, **config.kwargs, num_warps=config.num_warps,
                         num_stages=config.num_stages)
        text = ", ".join([f"{k}={v}" for k, v in config.kwargs.items()] +
                         [f"num_warps={config.num_warps}", f"num_stages={config.num_stages}"])
        for record in records[start:]:
            record.config = AutotuneConfig(index, len(configs), text)


def tactic_configs(structures):
    """The autotune config indices the op's launchers are generated for: [None] when no launch
    is autotuned; refused when several launches are (their configs would multiply)."""
    counts = {launch.config.count for s in structures for launch in s.launches if launch.config}
    kernels = {launch.kernel_name for s in structures for launch in s.launches if launch.config}
    if not counts:
        return [None]
    if len(kernels) > 1 or len(counts) > 1:
        raise GenerationError(f"autotuned kernels {sorted(kernels)}: one autotuned kernel per op "
                              "is generated (each config of it is a tactic)")
    return list(range(counts.pop()))
