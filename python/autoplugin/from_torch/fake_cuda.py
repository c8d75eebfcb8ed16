"""A GPU for host code run without one: `torch.cuda` and Triton's driver answer as one GPU of the
target architecture would (device queries, properties, streams, guards), so that host code that
asks for the GPU runs as it would there."""
import contextlib
import contextvars

import torch


class _DeviceGuard:
    """torch.cuda.device(...) on a machine without a GPU: the guard and nothing else."""

    def __init__(self, device=None):
        self.idx = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Stream:
    cuda_stream = 0
    device = torch.device("cuda", 0)

    def synchronize(self):
        return None

    def wait_stream(self, other):
        return None


# What a host code may read about the GPU, as an H100/H200 (sm_90) reports it: a launch derived
# from these (a grid of one program per multiprocessor, ...) is recovered for that GPU.
MULTIPROCESSORS = 132

# The name torch.cuda.get_device_name() answers during a generation (--gpu-name), or None: then
# `sm_<arch>`, which names no GPU.
_gpu_name = contextvars.ContextVar("gpu_name", default=None)


@contextlib.contextmanager
def gpu_named(name):
    """Host code run inside reads `name` as the GPU's name (None: no name was given)."""
    token = _gpu_name.set(name)
    try:
        yield
    finally:
        _gpu_name.reset(token)


MAX_SHARED_MEMORY = 232448  # bytes per block, opted in


@contextlib.contextmanager
def cuda_patched(arch, notes):
    """torch.cuda and Triton's driver answer as on one GPU of compute capability `arch`; each
    property read that shapes a launch is noted once."""
    import types
    from triton.backends.compiler import GPUTarget
    from triton.runtime import driver

    given = _gpu_name.get()
    gpu_name = given or f"sm_{arch}"

    def properties(device=None):
        notes.add(f"the host code reads the GPU's properties: generated for sm_{arch} with "
                  f"{MULTIPROCESSORS} multiprocessors")
        return types.SimpleNamespace(name=gpu_name, major=arch // 10, minor=arch % 10,
                                     multi_processor_count=MULTIPROCESSORS,
                                     total_memory=80 << 30, max_threads_per_multi_processor=2048,
                                     warp_size=32, regs_per_multiprocessor=65536,
                                     shared_memory_per_block_optin=MAX_SHARED_MEMORY)

    def triton_properties(device=None):
        p = properties(device)
        return {"multiprocessor_count": p.multi_processor_count,
                "max_shared_mem": MAX_SHARED_MEMORY,
                "max_num_regs": 65536, "warpSize": 32, "sm_clock_rate": 1980000,
                "mem_clock_rate": 2619000, "mem_bus_width": 5120}

    def device_name(device=None):
        # Library host code may pick a tuned configuration per GPU by its name (a JSON file
        # named after it, as vLLM's and SGLang's do), and its fallback for a name it lacks.
        notes.add(f"the host code reads the GPU's name (torch.cuda.get_device_name): generated "
                  f"for '{gpu_name}'" + ("" if given else
                                     ", which names no GPU: where the host code picks a "
                                     "configuration by the GPU's name, the plugin has the one "
                                     "it picks for an unknown GPU; give --gpu-name as "
                                     "torch.cuda.get_device_name() prints it on the GPU you "
                                     "deploy to"))
        return gpu_name

    replacements = {
        "is_available": lambda: True, "is_initialized": lambda: True, "_lazy_init": lambda: None,
        "device_count": lambda: 1, "current_device": lambda: 0,
        "set_device": lambda device=None: None, "synchronize": lambda device=None: None,
        "get_device_capability": lambda device=None: (arch // 10, arch % 10),
        "get_device_properties": properties, "get_device_name": device_name,
        "current_stream": lambda device=None: _Stream(),
        "default_stream": lambda device=None: _Stream(),
        "device": _DeviceGuard, "device_of": _DeviceGuard,
        "stream": lambda stream=None: contextlib.nullcontext(),
    }
    fake_driver = types.SimpleNamespace(
        get_current_device=lambda: 0, set_current_device=lambda device: None,
        get_current_stream=lambda device=None: 0,
        get_active_torch_device=lambda: torch.device("cuda", 0),
        get_device_capability=lambda device=None: (arch // 10, arch % 10),
        get_current_target=lambda: GPUTarget("cuda", arch, 32),
        utils=types.SimpleNamespace(get_device_properties=triton_properties))
    originals = {name: getattr(torch.cuda, name) for name in replacements
                 if hasattr(torch.cuda, name)}
    original_driver = driver._active
    original_makers = {name: getattr(torch, name) for name in ("tensor", "as_tensor")}
    for name, value in replacements.items():
        setattr(torch.cuda, name, value)
    for name, make in original_makers.items():
        setattr(torch, name, _made_on_device(make))
    driver._active = fake_driver
    try:
        yield
    finally:
        for name in replacements:
            if name in originals:
                setattr(torch.cuda, name, originals[name])
            else:
                delattr(torch.cuda, name)
        for name, make in original_makers.items():
            setattr(torch, name, make)
        driver._active = original_driver


def _made_on_device(make):
    """torch.tensor / torch.as_tensor of Python data on the GPU (Liger's `torch.tensor(1.0,
    device=grad_output.device)`) without one: a fake tensor of that shape and dtype whose
    contents are unknown, as the host code's tensors are (a constant would run its operations
    on the GPU); host code that then reads it is refused for reading tensor contents."""
    def made(data, *args, device=None, **kwargs):
        if isinstance(data, torch.Tensor) or device is None or \
                torch.device(device).type != "cuda":
            return make(data, *args, device=device, **kwargs)
        shaped = make(data, *args, **kwargs)
        return torch.empty(shaped.shape, dtype=shaped.dtype, device=device)
    return made
