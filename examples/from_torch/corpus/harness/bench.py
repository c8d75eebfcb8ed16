"""The corpus benchmark (scripts/from-torch-corpus --bench, on a GPU): each generated plugin's
device time against its eager kernel with the same configuration, and for the autotuned module
every tactic's time, the fastest (the one TensorRT's timing picks) against Triton's own pick.

  plugin  plugin_timer (this folder): the plugin's enqueue for each tactic as TensorRT's builder
          times it (events around 50 back-to-back enqueues, median of 9 batches), which picks
          the tactic; then, per tactic, the same enqueues run in this process under the profiler
          (CUPTI): the device time of the plugin's kernels per enqueue
  kernel  the op called eagerly (torch.ops), its Triton kernels' device time per call as the
          profiler (CUPTI) reports it: the same kernels with the configuration the host code
          chooses (for an autotuned kernel, the configuration Triton's autotuner picked)
  eager op  the op called eagerly, every kernel it runs on the GPU (the kernels above and
          PyTorch's: the copies its host code makes with `.contiguous()`, zeroed buffers)
Kernel time is compared with kernel time: events around back-to-back launches also count the
GPU's gap between kernels, which the profiler does not. Targets: plugin within 5% of kernel (for
the autotuned module: the picked tactic within 5% of Triton's pick). Inputs are large (see
`bench` in scripts/from-torch-corpus), standard normal in the row's dtype; an input given as
dict(shape, dtype, high) holds integers in [0, high) of that dtype (labels, indices), one given
as dict(shape, dtype) standard normal in that float dtype.
"""
import ctypes
import json
import os
import re
import subprocess
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "bench"))
import reference  # noqa: E402
from from_torch_bench import (kernel_ms, numpy_scalars_as_ints, profiled_calls,  # noqa: E402
                              profiled_ms)

ROW_TIMEOUT_S = 180  # a row that hangs (a kernel that never ends) must not stop the others
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
          torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16",
          torch.int8: "int8", torch.int32: "int32", torch.int64: "int64",
          torch.float8_e4m3fn: "float8_e4m3fn"}


def kernel_names(module):
    """The names of the Triton kernels a module defines (through autotune and heuristics)."""
    from triton.runtime.jit import JITFunction
    names = set()
    for value in vars(module).values():
        while hasattr(value, "fn") and not isinstance(value, JITFunction):
            value = value.fn
        if isinstance(value, JITFunction):
            names.add(value.fn.__name__)
    return names


def project_kernel_names(folder):
    """The Triton kernels a generated project compiles (its CMakeLists' `KERNEL name`): a
    library module's kernels are defined in the library, not in the glue module."""
    with open(os.path.join(folder, "CMakeLists.txt")) as f:
        return set(re.findall(r"^\s*SOURCE \S+ KERNEL (\w+)$", f.read(), re.MULTILINE))


def tensor_flag(tensor):
    return f"{DTYPES[tensor.dtype]}:{'x'.join(map(str, tensor.shape))}"


def fake_outputs(op, arguments):
    """The op's outputs as its fake implementation gives them (shapes and dtypes only)."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    mode = FakeTensorMode()
    fakes = {k: mode.from_tensor(v) if isinstance(v, torch.Tensor) else v
             for k, v in arguments.items()}
    with mode:
        return op(**fakes)


def from_example(op, spec):
    """Inputs and attributes from an example call (a library module's): a tensor of an integer
    dtype holds zeros (a valid index, label or position); one of a float dtype the example
    names keeps it in every row (torchao's float8 weights and their float32 scales)."""
    inputs, attributes = {}, {}
    for argument in op._schema.arguments:
        value = spec["example"].get(argument.name)
        if value is None:
            continue
        if str(argument.type) in ("Tensor", "Optional[Tensor]"):
            dtype = spec["example_dtypes"].get(argument.name, "")
            if not dtype:
                inputs[argument.name] = value
            elif dtype.startswith(("float", "bfloat")):
                inputs[argument.name] = dict(shape=value, dtype=dtype)
            else:
                inputs[argument.name] = dict(shape=value, dtype=dtype, high=1)
        else:
            attributes[argument.name] = value
    return dict(inputs=inputs, attributes=attributes)


def measure(job):
    """One row: `job` names the module (module, path, bench), its generated project (folder,
    library), the timer and the dtype."""
    loaded = reference.load(job["path"])
    names = kernel_names(loaded) | project_kernel_names(job["folder"])
    spec, dtype = job["bench"], job["dtype"]
    attributes = spec.get("attributes", {})
    with open(os.path.join(job["folder"], "cases.json")) as f:
        qualname = json.load(f)["op"]
    namespace, name = qualname.split("::")
    op = getattr(getattr(torch.ops, namespace), name).default
    if "example" in spec:
        spec = from_example(op, spec)
        attributes = spec["attributes"]
    arguments, flags, inputs, mutated = {}, [], [], []
    for argument in op._schema.arguments:
        if str(argument.type) in ("Tensor", "Optional[Tensor]"):  # as PyTorch writes Tensor?
            shape = spec["inputs"].get(argument.name)
            if shape is None:
                arguments[argument.name] = None
                continue
            integers = isinstance(shape, dict) and "high" in shape  # dict(shape, dtype, high)
            if integers:
                tensor = torch.randint(0, shape["high"], shape["shape"], device="cuda",
                                       dtype=getattr(torch, shape["dtype"]))
            elif isinstance(shape, dict):  # a float input in its own dtype: dict(shape, dtype)
                tensor = torch.randn(shape["shape"], device="cuda").to(
                    getattr(torch, shape["dtype"]))
            else:
                tensor = torch.randn(shape, device="cuda").to(DTYPES[dtype])
            arguments[argument.name] = tensor
            # The timer fills an integer input with values in the same range (labels, indices).
            high = f"@{shape['high']}" if integers else ""
            flags += ["--in", tensor_flag(tensor) + high]
            if argument.alias_info is not None and argument.alias_info.is_write:
                mutated.append(len(inputs))
            inputs.append(tensor)
        elif argument.name in attributes:
            value = attributes[argument.name]
            arguments[argument.name] = value
            if isinstance(value, str):
                flags += ["--str", f"{argument.name}={value}"]
            elif isinstance(value, float):
                flags += ["--float", f"{argument.name}={value}"]
            elif isinstance(value, (list, tuple)):
                flags += ["--int", f"{argument.name}={','.join(map(str, value))}"]
            else:
                flags += ["--int", f"{argument.name}={int(value)}"]
    with numpy_scalars_as_ints():
        # The plugin's outputs are the fake implementation's (the eager host code may allocate
        # others: the RFC module's stores float32 for a float16 input).
        outputs = fake_outputs(op, arguments)
        # The plugin's outputs: the inputs the op writes in place, then what it returns.
        for j, index in enumerate(mutated):
            flags += ["--out", tensor_flag(inputs[index]), "--alias", f"{j}={index}"]
        if outputs is None:
            outputs = ()
        for output in (outputs,) if isinstance(outputs, torch.Tensor) else outputs:
            flags += ["--out", tensor_flag(output)]
        row = {"module": job["module"], "op": qualname, "dtype": dtype,
               "kernel_ms": kernel_ms(lambda: op(**arguments), names),
               "eager_op_ms": eager_op_ms(lambda: op(**arguments))}
    autotuned = spec.get("autotuned")
    if autotuned:
        row["triton_pick"] = str(getattr(loaded, autotuned).best_config)
    command = [job["timer"], job["library"], qualname, *flags]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        row["error"] = f"{' '.join(command)}: {result.stderr.strip()}"
        return row
    timing = json.loads(result.stdout)
    row["tactics_ms"] = timing["tactics"]
    row["workspace"] = timing["workspace"]
    row["picked_tactic"] = min(timing["tactics"], key=timing["tactics"].get)
    # The comparison is of kernel time against kernel time, both read by the profiler: the
    # events around back-to-back enqueues also count the GPU's gap between kernels.
    row["tactics_kernel_ms"] = {
        tactic: plugin_kernel_ms(job["timer_module"], command[1:] + ["--tactic", tactic],
                                 names)
        for tactic in timing["tactics"]}
    row["plugin_ms"] = row["tactics_kernel_ms"][row["picked_tactic"]]
    row["vs_kernel"] = row["plugin_ms"] / row["kernel_ms"] - 1
    return row


def eager_op_ms(call, calls=50):
    """The device time per call of everything the eager op runs on the GPU (CUPTI): its
    library kernels and PyTorch's own (the layout copies of its host code, a zeroed buffer)."""
    from torch.autograd import DeviceType
    profiler = profiled_calls(call, calls)
    total = sum(event.self_device_time_total for event in profiler.key_averages()
                if event.device_type == DeviceType.CUDA)
    return total / 1000 / calls


def plugin_kernel_ms(timer_module, arguments, names):
    """The device time per enqueue of the plugin's kernels named `names`: the timer's code
    (plugin_timer_run) run in this process under the profiler, for one tactic."""
    from torch.profiler import ProfilerActivity, profile
    library = ctypes.CDLL(timer_module)
    library.plugin_timer_run.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                         ctypes.c_char_p, ctypes.c_size_t]
    argv = ["plugin_timer", *arguments]
    array = (ctypes.c_char_p * len(argv))(*[a.encode() for a in argv])
    text = ctypes.create_string_buffer(4096)
    with profile(activities=[ProfilerActivity.CUDA]) as profiler:
        if library.plugin_timer_run(len(argv), array, text, len(text)) != 0:
            raise RuntimeError(f"plugin_timer {' '.join(arguments)} failed")
        torch.cuda.synchronize()
    return profiled_ms(profiler, names) / json.loads(text.value)["enqueues"]


def measure_apart(job):
    """measure(job) in a process of its own: a kernel that faults (the RFC's eager host code
    writes past its output when N * C > 1) leaves the CUDA context of that process unusable,
    not the other rows'."""
    try:
        result = subprocess.run([sys.executable, os.path.abspath(__file__), json.dumps(job)],
                                capture_output=True, text=True, timeout=ROW_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"module": job["module"], "dtype": job["dtype"],
                "error": f"no result in {ROW_TIMEOUT_S} s"}
    lines = result.stdout.strip().splitlines()
    if result.returncode == 0 and lines:
        return json.loads(lines[-1])
    error = (result.stderr.strip().splitlines() or ["no output"])[-1]
    return {"module": job["module"], "dtype": job["dtype"], "error": error}


def build_timer(prefix, work):
    build = os.path.join(work, "timer")
    for command in (["cmake", "-S", HERE, "-B", build, f"-DCMAKE_PREFIX_PATH={prefix}",
                     "-DCMAKE_BUILD_TYPE=Release"], ["cmake", "--build", build]):
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(command)}:\n{result.stdout}{result.stderr}")
    return os.path.join(build, "plugin_timer"), os.path.join(build, "libplugin_timer_module.so")


def print_row(r):
    """Prints one row; returns 1 when it missed its target or failed, else 0."""
    if "error" in r:
        print(f"{r['module']:<24}{r['dtype']:<9}  ERROR {r['error']}", flush=True)
        return 1
    tactics = ", ".join(f"{t}: {r['tactics_kernel_ms'][t]:.4f} ({ms:.4f})"
                        for t, ms in r["tactics_ms"].items())
    met = r["vs_kernel"] <= 0.05
    print(f"{r['module']:<24}{r['dtype']:<9}{r['plugin_ms']:10.4f}{r['kernel_ms']:10.4f}"
          f"{100 * r['vs_kernel']:+9.1f}%{r['eager_op_ms']:10.4f}"
          f"{100 * (r['plugin_ms'] / r['eager_op_ms'] - 1):+9.1f}%"
          f"{'' if met else ' MISSED'}  {tactics}")
    if "triton_pick" in r:
        print(f"{'':<33}TensorRT-style pick: tactic {r['picked_tactic']}; Triton's pick: "
              f"{r['triton_pick']} ({r['kernel_ms']:.4f} ms)")
    sys.stdout.flush()
    return 0 if met else 1


def run(modules, prefix, work):
    """Benchmarks `modules` (those that built; their checks run after); returns 1 when a target is
    missed or a measurement fails, else 0."""
    import triton
    print(f"\nbenchmark: {torch.cuda.get_device_name()}, PyTorch {torch.__version__}, "
          f"Triton {triton.__version__}")
    timer, timer_module = build_timer(prefix, work)
    # Each row is printed as it is measured: a run cut short still reports the rows it has.
    print(f"\n{'module':<24}{'dtype':<9}{'plugin ms':>10}{'kernel ms':>10}{'vs kernel':>10}"
          f"{'eager op':>10}{'vs op':>10}  tactics: kernel ms (enqueue ms, events)", flush=True)
    rows, status = [], 0
    for module in modules:
        if not getattr(module, "bench", None):
            continue
        for dtype in module.dtypes.split(","):
            folder, library = module.libraries[0]
            job = {"module": module.module, "path": module.path, "bench": module.bench,
                   "folder": folder, "library": library, "timer": timer,
                   "timer_module": timer_module, "dtype": dtype}
            rows.append(measure_apart(job))
            status |= print_row(rows[-1])
    print(f"\ntarget plugin device time within 5% of its eager kernel (autotuned: fastest tactic "
          f"within 5% of Triton's pick): {'met' if status == 0 else 'MISSED'}")
    with open(os.path.join(work, "bench.json"), "w") as f:
        json.dump(rows, f, indent=1)
    return status


if __name__ == "__main__":
    try:
        print(json.dumps(measure(json.loads(sys.argv[1]))))
    except Exception as error:  # a failed measurement is a row, not the end of the run
        job = json.loads(sys.argv[1])
        print(json.dumps({"module": job["module"], "dtype": job["dtype"],
                          "error": f"{type(error).__name__}: "
                                   f"{(str(error).splitlines() or [''])[0]}"}))
