"""The refusals of from-torch: the floor every other module stands on."""


class GenerationError(Exception):
    """A refusal: what cannot be generated, naming the op, the argument and why."""


class UnrecoveredConstexpr(GenerationError):
    """A constexpr whose values over the op's domain no rule recovers and which the kernel does
    not take as a run-time argument: `position` (the launch's index in the host code's
    sequence), `kernel` and `name` say which; the pipeline may hold it at the example's value."""

    def __init__(self, message, position, kernel, name):
        super().__init__(message)
        self.position, self.kernel, self.name = position, kernel, name
