"""The refusals of from-torch: the floor every other module stands on. A refusal carries its
message (naming the op, the argument, the host line and what to change) and its kind, which the
pipeline's retries switch on; a floor above that names the op keeps both."""

# A launch value (a scalar argument, a grid extent, a constexpr) that changes with the sizes or
# attributes in a way no rule recovers: an int attribute made part of the structure may lift it.
UNRECOVERED = "unrecovered"


class GenerationError(Exception):
    """A refusal: what cannot be generated, naming the op, the argument and why; `kind` is
    None or one of the kinds above."""

    def __init__(self, message, kind=None):
        super().__init__(message)
        self.kind = kind

    def naming(self, prefix):
        """The same refusal (its class, kind and fields) with `prefix` before its message."""
        named = type(self).__new__(type(self))
        named.__dict__.update(self.__dict__)
        named.args = (f"{prefix}{self}",)
        return named

    def extended(self, text):
        """The same refusal with `text` after its message."""
        extended = self.naming("")
        extended.args = (f"{self}{text}",)
        return extended


class UnrecoveredConstexpr(GenerationError):
    """A constexpr whose values over the op's domain no rule recovers and which the kernel does
    not take as a run-time argument: `position` (the launch's index in the host code's
    sequence), `kernel` and `name` say which; the pipeline may hold it at the example's value."""

    def __init__(self, message, position, kernel, name, kind=None):
        super().__init__(message, kind)
        self.position, self.kernel, self.name = position, kernel, name
