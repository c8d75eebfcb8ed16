"""A power of two that is a step function of one size: a cap that changes with it (Liger's
DyT: `1024` below 4096 columns, `2048` from there; FlagGems' softmax), found by running the host
code at every power of two of the size and one past it, and by bisection where two differ; the
launcher computes it as a chain of comparisons."""
from .errors import GenerationError
from .expressions import NEXT_POWER_OF_2, Binary, Conditional, Integer, call
from .families import (OutsideRequirements, VaryingConstexpr, is_power, next_power_of_2,
                       shape_function_text)
from .records import plain_value


# The largest size a step function is probed at (beyond it, the last step's value holds).
STEP_PROBE_LIMIT = 1 << 22


def steps_of_a_size(op, name, plain, envs, probe, max_block, context):
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
        bounded = shape_function_text(envs[0].nodes[atom], op)
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
        values = sorted({value_at(n) for n in probed if is_power(value_at(n))
                         and (not limit or n <= limit)})
        if not all(str(v) in map(str, values) for v in plain):
            continue
        options = {}
        for value in values:
            n = min(n for n in probed if value_at(n) == value)
            record, _ = probe(atom, n)
            options[str(value)] = (int(record.options.get("num_warps", 4)),
                                   int(record.options.get("num_stages", 3)))
        value = _steps_expression(envs[0].nodes[atom], steps)

        def reach(value, exact=True, a=atom):
            sizes_giving = [n for n in probed if value_at(n) == value]
            return probe(a, min(sizes_giving)) if sizes_giving else None

        largest = min(n for n in probed if value_at(n) == values[-1])
        return VaryingConstexpr(name, value, [str(v) for v in values], bounded,
                                limit or largest, reason, not limit,
                                lambda env, a=atom: env.atoms[a], reach,
                                steps=steps, size=envs[0].nodes[atom]), options
    return None


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
        if isinstance(value, GenerationError) or (is_power(value) and value > max_block):
            if not taken:
                return None
            limit = _last_before(value_at, taken[-1], n, max_block)
            reason = (f"the host code refuses sizes above it ({value})"
                      if isinstance(value, GenerationError) else
                      f"variants are compiled up to {max_block}; regenerate with --max-block "
                      f"{2 * max_block} (or larger) for larger sizes")
            break
        if not is_power(value):
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
        return is_power(value) and value <= max_block
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if taken(middle) else (low, middle)
    return low


def _steps_expression(atom, steps):
    """The launcher's expression of a step function: `(n <= 1024 ? next_power_of_2(n) : n <=
    4095 ? 1024 : 2048)`."""
    def value_of(value):
        return call(NEXT_POWER_OF_2, atom) if value is None else Integer(value, typed=True)
    expression = value_of(steps[-1][1])
    for end, value in reversed(steps[:-1]):
        expression = Conditional(Binary("<=", atom, Integer(end)), value_of(value), expression)
    return expression
