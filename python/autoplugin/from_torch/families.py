"""The model of a constexpr family: the constexprs that change with the shapes or attributes
(VaryingConstexpr: the expression that computes each in the launcher, its compiled values, the
size that drives it and how far), a launch's family of variants with each value's warps and
stages, and the shape function's requirements that keep every size within the families'
ranges."""
from dataclasses import dataclass, field

from .errors import GenerationError
from .fitting import Environment, point_atoms


DEFAULT_MAX_BLOCK = 1 << 16


class OutsideRequirements(GenerationError):
    """A probed size the fake implementation's requirements exclude (`x.shape[-1] <= 8192`)."""


VARYING = "constexpr"  # the signature entry of a constexpr the variants give


@dataclass
class VaryingConstexpr:
    name: str
    value: object  # the expression the launcher computes it with (expressions.py)
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
    # The driving size as the launcher computes it (an expression): the parameters the shape
    # function's requirement reads
    size: object = None


@dataclass
class Family:
    varying: list  # VaryingConstexpr
    # the power-of-two constexpr's value -> (warps, stages)
    options: dict = field(default_factory=dict)

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


def is_power(value):
    return isinstance(value, int) and not isinstance(value, bool) and value > 0 and \
        value & (value - 1) == 0


def shape_function_text(atom, op):
    """The shape function's C++ for a launcher atom (expressions.Atom): an input's extent or an
    int attribute; "" for any other."""
    if atom.kind == "size" and any(a.name == atom.parameter for a in op.tensors):
        return f"{atom.parameter}[{atom.axis}]"
    if atom.kind == "attribute" and atom.axis is None and any(
            a.name == atom.parameter and a.kind == "int" and not a.optional
            for a in op.arguments):
        return atom.parameter
    return ""


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
    (condition, message, the parameters the condition reads), one per driving size, the
    smallest limit (launches of one size, the tactics of an autotuned kernel each with its own
    tile, all take the plugin's sizes)."""
    tightest = {}  # the driving size's C++ -> (limit, launch, varying), in launch order
    for launch in launches:
        for varying in getattr(launch, "varying", []):
            if not varying.bounded or varying.capped:
                continue
            known = tightest.get(varying.bounded)
            if known is None or varying.limit < known[0]:
                tightest[varying.bounded] = (varying.limit, launch, varying)
    result = []
    for bounded, (limit, launch, varying) in tightest.items():
        condition = f"{bounded} <= {limit}"
        message = (f"{bounded} <= {limit}: kernel '{launch.kernel_name}' ({launch.where}): "
                   f"{varying.limit_reason}")
        result.append((condition, message.replace("\\", "\\\\").replace('"', '\\"'),
                       varying.size.parameters()))
    return result
