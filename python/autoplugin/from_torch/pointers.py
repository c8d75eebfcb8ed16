"""The tensors a kernel receives, identified by their storage (a view of an output is the
output): an input, an output, or a buffer the host code allocates (a slice of the plugin's
workspace); the writes only kernels may make; each pointer argument with its offset into the
tensor it views and the pointer type Triton compiles it with.
"""
import torch

from . import fitting
from .errors import GenerationError
from .host import ALLOCATIONS, ZERO_ALLOCATIONS, storage_key
from .probes import show_point
from .records import RecoveredArgument, ScratchBuffer
from .trials import TRITON_POINTER_TYPES


# Dtypes a kernel may read a tensor as (a view), not the op's own: float8 bytes held as int8,
# written through `x_q.view(torch.float8_e5m2)`. A tensor of the op may be float8_e4m3fn itself
# (TensorRT's FP8); e5m2 has no TensorRT dtype.
VIEW_POINTER_TYPES = {torch.float8_e4m3fn: "fp8e4nv", torch.float8_e5m2: "fp8e5"}


def _tensor_role(op, value, run):
    """("input", name), ("output", index), ("workspace", storage key) or (None, why)."""
    key = storage_key(value)
    for index, tensor in enumerate(run.outputs):
        if storage_key(tensor) == key:
            return "output", index
    for name, tensor in run.inputs.items():
        if storage_key(tensor) == key:
            return "input", name
    made = run.made.get(key)
    if made and made[0] in ALLOCATIONS:
        return "workspace", key
    if made:
        return None, (f"a tensor the host code computes with '{made[0]}' ({made[1]}: {made[2]}); "
                      "a plugin passes its kernels only the op's inputs, outputs and scratch "
                      "memory (torch.empty/zeros): compute it inside a kernel, or make it an "
                      "input of the op")
    return None, ("a tensor that is neither an input nor an output of the op, nor a buffer the "
                  "host code allocates (torch.empty/zeros): pass the kernel the op's tensors, "
                  "views of them, or buffers the host code allocates")


def kernels_do_the_writing(op, run):
    """Refuses host code whose outputs, or buffers its kernels use, PyTorch computes or writes
    (`loss = torch.sum(loss_1d)`, `losses += lse`): a plugin runs the kernels only. A buffer
    cleared (`zero_()`) before the first kernel is as if allocated with zeros."""
    kernel_tensors = {storage_key(v) for r in run.records for v in r.arguments.values()
                      if isinstance(v, torch.Tensor)}
    for index, tensor in enumerate(run.outputs):
        key = storage_key(tensor)
        if key not in kernel_tensors:
            made = run.made.get(key)
            how = f" ({made[0]} at {made[1]}: {made[2]})" if made else ""
            raise GenerationError(
                f"op '{op.qualname}': output {index} is written by none of its kernels: the "
                f"host code computes it with PyTorch{how}, and a plugin runs the kernels only: "
                "compute it in a kernel, or make the op return what its kernels write (and "
                "finish in PyTorch)")
    outputs = {storage_key(t) for t in run.outputs}
    copied = copied_outputs(op, run)
    for index, tensor in enumerate(run.outputs):
        made = run.made.get(storage_key(tensor))
        if (made and made[0] not in ALLOCATIONS and
                index not in dict(copied) and index >= len(op.mutated)):
            raise GenerationError(
                f"op '{op.qualname}': output {index} starts as what PyTorch computes "
                f"({made[0]} at {made[1]}: {made[2]}) before its kernels, and a plugin runs the "
                "kernels only (an output starts as torch.empty; a copy of an input, `x.clone()`, "
                "is copied by the launcher): compute it in a kernel")
    for key, name, where, line, launches_before in run.writes:
        if key not in kernel_tensors and key not in outputs:
            continue
        if name == "zero_" and launches_before == 0 and key in run.made:
            continue  # run_body took it for an allocation with zeros
        if name == "copy_" and launches_before == 0 and key in run.copies:
            continue  # a copy of an input: the launcher copies it
        raise GenerationError(
            f"op '{op.qualname}': the host code writes a tensor its kernels use with PyTorch "
            f"({name} at {where}: {line}), and a plugin runs the kernels only: do that in a "
            "kernel (a buffer to clear: allocate it with torch.zeros)")


def copied_outputs(op, run):
    """(output index, input name) of the outputs the host code starts as a copy of an input of
    the same shape and dtype (`out = x.clone()`, then a kernel updating `out`): the launcher
    copies the input into the output first."""
    inputs = {storage_key(t): (name, t) for name, t in run.inputs.items()}
    copied = []
    for index, tensor in enumerate(run.outputs):
        source = inputs.get(run.copies.get(storage_key(tensor)))
        if (source is not None and source[1].shape == tensor.shape and
                source[1].dtype == tensor.dtype):
            copied.append((index, source[0]))
    return copied


def zeroed_outputs(op, run):
    """The outputs the host code allocates with zeros (a kernel that adds into its output
    atomically relies on it): the launcher clears them, as TensorRT's memory is not cleared.
    The outputs written in place are inputs: not allocated."""
    return [index for index, tensor in enumerate(run.outputs)
            if index >= len(op.mutated)
            and run.made.get(storage_key(tensor), ("",))[0] in ZERO_ALLOCATIONS]


def naming_op(op, function, *args):
    """function(*args) (a fitting), its refusal naming the op."""
    try:
        return function(*args)
    except GenerationError as error:
        raise error.naming(f"op '{op.qualname}': ") from None


def _workspace_order(op, run):
    """The storages of the buffers the host code allocates, in the order kernels first get them."""
    order = []
    for record in run.records:
        for value in record.arguments.values():
            if isinstance(value, torch.Tensor):
                role, key = _tensor_role(op, value, run)
                if role == "workspace" and key not in order:
                    order.append(key)
    return order


def scratch_buffers(op, runs, envs, samples, dtype_runs):
    """index -> (ScratchBuffer, its storage key in each run)."""
    orders = [_workspace_order(op, run) for run in runs]
    if len({len(order) for order in orders}) != 1:
        raise GenerationError(f"op '{op.qualname}': its host code allocates a different number "
                              "of scratch buffers at different sizes; a plugin needs one "
                              "workspace layout per structure")
    dtype_orders = {d: _workspace_order(op, run) for d, run in dtype_runs.items()}
    buffers = {}
    for index in range(len(orders[0])):
        made = [run.made[order[index]] for run, order in zip(runs, orders)]
        function, where, line, _ = made[0]
        context = f"the scratch buffer the host code allocates at {where} ({line})"
        numel = naming_op(op, fitting.fit_integer, [m[3].numel() for m in made],
                          envs[:samples], envs[samples:], f"the element count of {context}")
        element_bytes = max(dtype_runs[d].made[dtype_orders[d][index]][3].element_size()
                            for d in dtype_runs)
        buffers[index] = (ScratchBuffer(numel, element_bytes,
                                        function in ZERO_ALLOCATIONS, where, line),
                          [order[index] for order in orders])
    return buffers


def recover_pointer(recovery, name, context, position, recorded):
    """The tensor argument `name` of the `position`-th launch (`recorded` at every point of the
    recovery): an input, an output or a scratch buffer, its pointer types per dtype, and a
    view's start."""
    op, runs, dtype_runs, plugin_dtypes = (recovery.op, recovery.runs, recovery.dtype_runs,
                                           recovery.plugin_dtypes)
    roles = set()
    offsets = []
    for position_in_runs, (record, run) in enumerate(zip(recorded, runs)):
        value = record.arguments[name]
        role, which = _tensor_role(op, value, run)
        if role is None:
            raise GenerationError(f"op '{op.qualname}': {context} is {which}")
        offsets.append(_view_offset(op, context, value, role, which, run))
        if role == "workspace":
            which = next(index for index, (_, keys) in recovery.scratch.items()
                         if keys[position_in_runs] == which)
        roles.add((role, which))
    if len(roles) != 1:
        raise GenerationError(f"op '{op.qualname}': {context} is a different tensor at different "
                              f"sizes ({sorted(map(str, roles))})")
    kind, which = roles.pop()
    pointer_types, tensor_types = {}, {}
    for dtype in plugin_dtypes:
        tensor = dtype_runs[dtype].records[position].arguments[name]
        role, what = _tensor_role(op, tensor, dtype_runs[dtype])
        if role is None:
            raise GenerationError(f"op '{op.qualname}': {context} is, for {dtype} inputs, {what}")
        if role != kind or (role != "workspace" and what != which):
            raise GenerationError(f"op '{op.qualname}': {context} is {kind} {which} for the first "
                                  f"dtype's inputs but {role} {what} for {dtype} inputs; a plugin "
                                  "passes each kernel parameter the same tensor")
        # The tensor's own dtype (an output's is the fake's), and the kernel's: a view in another
        # dtype (`out.view(torch.int32)`) is the same address, read as that dtype.
        whole = _whole(dtype_runs[dtype], role, what, tensor)
        own = plugin_dtypes[dtype][which] if kind == "output" else whole.dtype
        element = tensor.dtype if tensor.dtype != whole.dtype else own
        pointer_types[dtype] = _pointer_type(op, context, kind, element, view=element != own)
        tensor_types[dtype] = _pointer_type(op, context, kind, own)
        if _view_offset(op, context, tensor, role, what, dtype_runs[dtype]) != offsets[0]:
            raise GenerationError(f"op '{op.qualname}': {context} is a view whose start changes "
                                  f"with the dtype ({dtype} inputs); a plugin passes each "
                                  "dtype's kernel the same view")
    tensor = {"input": which, "output": fitting.output_name(op, which) if kind == "output" else "",
              "workspace": str(which)}[kind]
    offset = None
    if any(offsets):
        # A view partway into the tensor (`a, b = x.chunk(2, dim=-1)`): its start is an
        # expression of the sizes, as its strides are.
        offset = naming_op(op, fitting.fit, offsets, recovery.fit_envs, recovery.check_envs,
                           f"the start of {context} (a view, in elements from its tensor's start)",
                           "i64", [])
    return RecoveredArgument(name, kind, tensor=tensor, pointer_types=pointer_types, offset=offset,
                             tensor_types=tensor_types)


def _pointer_type(op, context, kind, element, view=False):
    """Triton's pointer type of a tensor of dtype `element` (`view`: a view of the op's tensor
    in that dtype), or a refusal naming it."""
    if view and element in VIEW_POINTER_TYPES:
        return "*" + VIEW_POINTER_TYPES[element]
    if not view and kind in ("input", "output") and element in (torch.uint8, torch.bool):
        whose = "its output's dtype (the fake's)" if kind == "output" else "its dtype"
        raise GenerationError(
            f"op '{op.qualname}': {context}: {whose} is {element}, and TensorRT plugins cannot "
            "have bool or uint8 tensors: give that tensor int8 in the op (float8 bytes as int8, "
            "the kernel given `.view(torch.float8_e4m3fn)` of it; a mask as int8)")
    if element not in TRITON_POINTER_TYPES:
        whose = "its output's dtype (the fake's)" if kind == "output" else "its dtype"
        raise GenerationError(
            f"op '{op.qualname}': {context}: {whose} is {element}, which from-torch does not "
            "generate (float32, float16, bfloat16, float8_e4m3fn, float64, int8/16/32/64, uint8 "
            "and bool are; uint8 and bool only inside the op): give that tensor one of these "
            "dtypes (e.g. float8_e5m2 bytes as int8 in the op's schema and its fake, the kernel "
            "given `.view(torch.float8_e5m2)` of it)")
    return "*" + TRITON_POINTER_TYPES[element]


def _whole(run, role, which, value):
    """The op's input or output a kernel argument `value` is (or views); a scratch buffer's
    view is itself."""
    return (run.inputs[which] if role == "input" else run.outputs[which] if role == "output"
            else value)


def _view_offset(op, context, value, role, which, run):
    """Elements from the start of the op's tensor (or scratch buffer) `value` views to where
    the view starts."""
    if role == "workspace":
        if value.storage_offset() != 0:
            raise GenerationError(f"op '{op.qualname}': {context} is a view that starts "
                                  f"{value.storage_offset()} elements into a scratch buffer (at "
                                  f"{show_point(op, run.point)}); a plugin passes whole scratch "
                                  "buffers: pass the buffer and the offset")
        return 0
    whole = _whole(run, role, which, value)
    if value.dtype != whole.dtype:
        if value.storage_offset() * value.element_size() != \
                whole.storage_offset() * whole.element_size():
            raise GenerationError(f"op '{op.qualname}': {context} is a {value.dtype} view "
                                  f"partway into a {whole.dtype} tensor (at "
                                  f"{show_point(op, run.point)}); a plugin passes such a view "
                                  "from its tensor's start only")
        return 0
    offset = value.storage_offset() - whole.storage_offset()
    if offset < 0:
        raise GenerationError(f"op '{op.qualname}': {context} starts {-offset} elements before "
                              f"the {role} it views (at {show_point(op, run.point)}); a plugin "
                              f"passes the {role} TensorRT gives it, from its start")
    return offset
