"""Constexprs that change with the shapes or attributes, recovered as a family of compiled
variants (the model in families.py; a cap that changes with a size in step_families.py;
@triton.autotune configs in autotune.py).

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
"""
import sympy

from .errors import UNRECOVERED, GenerationError
from .expressions import (MAX_INT64, MIN_INT64, NEXT_POWER_OF_2, Binary, Integer, Negated, Table,
                          call)
from .families import (VARYING, Family, OutsideRequirements, VaryingConstexpr, is_power,
                       next_power_of_2, shape_function_text)
from .fitting import atom_expressions, candidates as expression_candidates, describe_environment
from .points import allowed_values, set_text
from .records import RecoveredArgument, constexpr_text, plain_value
from .step_families import steps_of_a_size
from .sympy_to_dim import DimTranslator, TranslationError
from .trials import largest_block


def _bool_candidates(env, others):
    """(expression, function of (atoms, the others' values), what it compares: None, or (the
    size's atom, the value it is compared with as a function of the others' values)) of the
    bool conditions a heuristic typically computes over the atoms of `env`: a bool attribute or
    its negation, a size divisible by, or equal to, a power of two or another integer constexpr
    of the launch (`others`: their expressions), the launch's power of two first, or at most
    another (FlagGems' `ONE_TILE_PER_CTA = TILE_N >= N`)."""
    atoms, nodes = env.atoms, env.nodes
    zero = Integer(0)
    for atom in atoms:
        if isinstance(atoms[atom], bool):
            yield nodes[atom], lambda a, o, n=atom: a[n], None
            yield Negated("!", nodes[atom]), lambda a, o, n=atom: not a[n], None
    for atom in atoms:  # a feature a float attribute turns on (Unsloth's softcap != 0)
        if isinstance(atoms[atom], float):
            yield Binary("!=", nodes[atom], zero), lambda a, o, n=atom: a[n] != 0, None
            yield Binary("==", nodes[atom], zero), lambda a, o, n=atom: a[n] == 0, None
    divisors = [(value, lambda o, k=k: o[k]) for k, value in enumerate(others)]
    divisors += [(Integer(2 ** k), lambda o, d=2 ** k: d) for k in range(1, 17)]
    for atom in atoms:
        if not isinstance(atoms[atom], int) or isinstance(atoms[atom], bool):
            continue
        for value, divisor in divisors:
            yield (Binary("==", Binary("%", nodes[atom], value), zero),
                   lambda a, o, n=atom, d=divisor: d(o) != 0 and a[n] % d(o) == 0,
                   (atom, divisor))
        for k, value in enumerate(others):
            other = (atom, lambda o, k=k: o[k])
            yield Binary("==", nodes[atom], value), lambda a, o, n=atom, k=k: a[n] == o[k], other
            yield Binary("<=", nodes[atom], value), lambda a, o, n=atom, k=k: a[n] <= o[k], other
            yield Binary(">", nodes[atom], value), lambda a, o, n=atom, k=k: a[n] > o[k], other


def _telling_apart(candidates, values, name, others, probe):
    """(atoms, the others' values, the bool's value) of the host code run with each candidate's
    size at the value it is compared with (`K % 128 == 0` -> K = 128; `values`: the others'
    values), where the host code takes it."""
    probes, tried = [], set()
    for _, _, compared in candidates:
        if compared is None:
            continue
        atom, compared_with = compared
        value = compared_with(values)
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
    others = [(v.value, v.name) for v in family.varying if v.bounded]
    for other in first.arguments:
        value = plain_value(first.arguments[other])
        if (other in constexprs and other != name and isinstance(value, int) and
                not isinstance(value, bool) and
                all(plain_value(r.arguments[other]) == value for r in recorded)):
            others.append((Integer(value), other))
    driving = next((v for v in family.varying if v.bounded), None)
    following = _per_variant(name, recorded, driving, envs)
    if following is not None:
        family.varying.append(following)
        return family, RecoveredArgument(name, "constexpr", value=following.value,
                                         constexpr=VARYING)
    varying, options = recover(op, name, recorded, envs, context, probe, max_block, others,
                               driving)
    if options and any(v.bounded for v in family.varying):
        raise GenerationError(f"op '{op.qualname}': {context}: a second constexpr that is a "
                              "power of two of the sizes; one per launch is generated (their "
                              "variants would multiply): loop over the other size at run time "
                              "in the kernel, or split the launch")
    family.varying.append(varying)
    family.options.update(options or {})
    return family, RecoveredArgument(name, "constexpr", value=varying.value, constexpr=VARYING)


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
    value = Table(driving.value, tuple((key, Integer(int(table[key]))) for key in driving.values),
                  Integer(int(table[driving.values[-1]])))
    return VaryingConstexpr(name, value, sorted(set(table.values()), key=int), per_variant=table)


def is_power_of_a_size(name, recorded, envs):
    """Whether constexpr `name` is, at every sample, the next power of two of one input extent
    or int attribute (floored and capped at the samples' least and largest values): a
    launch's power of two, which the others may follow."""
    plain = [plain_value(r.arguments[name]) for r in recorded]
    return (all(is_power(v) for v in plain) and
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
    GenerationError when the host code refuses it. `others`: (expression, name) of the launch's
    integer constexprs recovered before; `driving`: its power-of-two constexpr, if any, whose
    sizes are probed to tell apart bool conditions that the samples cannot."""
    plain = [plain_value(r.arguments[name]) for r in recorded]
    if all(isinstance(v, bool) for v in plain):
        values = [value for value, _ in others]
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
        fitting = [(condition, function, compared)
                   for condition, function, compared in _bool_candidates(envs[0], values)
                   if all(_holds(function, env.atoms, o) == v
                          for env, o, v in zip(envs, per_point, plain)) and
                   all(_holds(function, atoms, o) == v for atoms, o, v in probes)]
        if len(fitting) > 1:
            # (`K % BLOCK_K == 0` and `K % BLOCK_M == 0` agree at sizes that are multiples of
            # neither: the host code run at each divisor tells them apart)
            probes = _telling_apart(fitting, per_point[0], name, others, probe)
            fitting = [candidate for candidate in fitting
                       if all(_holds(candidate[1], atoms, o) == v for atoms, o, v in probes)]
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
            bounded = shape_function_text(envs[0].nodes[atom], op)
            if not bounded:
                continue
            floored = any(next_power_of_2(s) < floor for s in sizes)
            value = call(NEXT_POWER_OF_2, envs[0].nodes[atom])
            if floored:
                value = call(MAX_INT64, value, Integer(floor))
            try:
                found = _powers_of_two(op, name, value, envs[0].nodes[atom], bounded,
                                       floor if floored else 1,
                                       lambda env, a=atom: env.atoms[a],
                                       lambda value, exact=True, a=atom: probe(a, value),
                                       max_block, context,
                                       _block_check(name, probe, max_block))
                _family_fits_samples(op, found[0], sizes, plain, context)
                return found
            except GenerationError as refusal:
                # (probed, a step function: the samples did not reach its other steps)
                stepped = steps_of_a_size(op, name, plain, envs, probe, max_block,
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
        stepped = steps_of_a_size(op, name, plain, envs, probe, max_block, context)
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
        "value per size of a set the fake allows, and bool attributes", UNRECOVERED)


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
        node = envs[0].nodes.get(atom)
        if node is None or not shape_function_text(node, op):
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
        varying = VaryingConstexpr(name, node, [str(v) for v in allowed[1]],
                                   shape_function_text(node, op), max(allowed[1]), reason,
                                   False, lambda env, a=atom: env.atoms[a],
                                   lambda value, exact=True, a=atom: probe(a, value),
                                   of_set=True, size=node)
        return varying, options
    return None


def _power_of_derived_size(op, name, plain, floor, top, envs, probe, max_block, context):
    """The family of `triton.next_power_of_2(size)` where the size is computed from several
    (Liger's group norm: `C * H * W // num_groups`; `x.numel() // x.shape[-1]`): the first
    combination the fitter knows whose powers of two match every sample and, probed at each
    power, give that power; None when none does."""
    refusal = None
    for size, function in expression_candidates(envs, ()):
        try:
            sizes = [function(env) for env in envs]
        except (KeyError, TypeError, ZeroDivisionError):
            continue
        if not all(isinstance(s, int) and s >= 0 and min(max(next_power_of_2(s), floor), top) == v
                   for s, v in zip(sizes, plain)):
            continue
        bounded = _shape_function_expression(size.sympy(), op, envs[0].atoms)
        if not bounded:
            continue
        floored = any(next_power_of_2(s) < floor for s in sizes)
        value = call(NEXT_POWER_OF_2, size)
        if floored:
            value = call(MAX_INT64, value, Integer(floor))
        try:
            found = _powers_of_two(op, name, value, size, bounded, floor if floored else 1,
                                   function,
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


def _shape_function_expression(expression, op, atoms):
    """The shape function's C++ for a recovered expression (sympy over fitting.atom_symbol()s)
    of inputs' extents, element counts and strides and int attributes (`floor_div(X.stride(0),
    num_groups)` -> `ap::floor_div(X[1] * X[2] * X[3], num_groups)`); "" where it reads
    anything else (an output, a float)."""
    shapes, attributes, names = {}, {}, {}
    for tensor in op.tensors:
        shapes[tensor.name] = []
        while f"{tensor.name}.size({len(shapes[tensor.name])})" in atoms:
            text = f"{tensor.name}[{len(shapes[tensor.name])}]"
            shapes[tensor.name].append(sympy.Symbol(text, integer=True))
            names[shapes[tensor.name][-1]] = text
    for argument in op.arguments:
        elements = [argument.name] if argument.kind == "int" and not argument.optional else []
        while argument.kind == "int[]" and f"{argument.name}[{len(elements)}]" in atoms:
            elements.append(f"{argument.name}[{len(elements)}]")
        for element in elements:
            attributes[element] = sympy.Symbol(element, integer=True)
            names[attributes[element]] = element
    shape_atoms = atom_expressions(shapes, attributes)
    if not expression.free_symbols <= set(shape_atoms):
        return ""
    try:
        return DimTranslator(names).dim(expression.xreplace(shape_atoms))
    except TranslationError:
        return ""


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
            raise GenerationError(f"op '{op.qualname}': {context}: the family {varying.value} "
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


def _powers_of_two(op, name, value_of_size, size, bounded, lowest, size_of, reach, max_block,
                   context, block_problem):
    """The family of powers of two from `lowest` up to `max_block` (`value_of_size`: the
    launcher's expression of the driving size's power of two; `size`: of the driving size),
    fewer where the host code refuses or the block grows too large (`block_problem(record,
    value)`: why not, or ""); each value's launch options from the host code run at a point
    where the driving size (`size_of`; `reach(value, exact)` runs the host code where it is
    `value`, or with `exact` False, where its next power of two is) gives that value. A power
    no size reaches is left out below the first one reached; above it, the family ends there."""
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
        value_of_size = call(MAX_INT64, value_of_size, Integer(int(values[0])))
    if capped:
        value_of_size = call(MIN_INT64, value_of_size, Integer(int(values[-1])))
    elif not reason:
        reason = (f"variants are compiled up to {name} = {values[-1]}; regenerate with "
                  f"--max-block {2 * int(values[-1])} (or larger) for larger sizes")
    varying = VaryingConstexpr(name, value_of_size, values, bounded, int(values[-1]), reason,
                               capped, size_of, reach, size=size)
    return varying, options


