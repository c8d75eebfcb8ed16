"""@triton.autotune configs: an autotuned launch runs once per config while the host code is
sampled (through the heuristics the autotuner wraps, if any), each recorded with its config;
the generated op has one launcher per dtype and config, which TensorRT times as tactics.
PyTorch eager keeps running the Python op, with Triton's own pick."""
from dataclasses import dataclass

from .errors import GenerationError
from .records import launch_site


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
