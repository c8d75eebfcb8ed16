"""from-torch: a Python custom op with a Triton kernel and a fake implementation becomes a native
TensorRT plugin (a small CMake project of readable C++), with no C++ written by hand.

    python3 -m autoplugin.from_torch MODULE.py \
        --example 'ns::op(x=[2, 3, 8, 8], padding=[1, 1, 2, 2])'
        [--op ns::op ...] [--dtypes float32,float16] --out DIR

or ``autoplugin.from_torch.generate(...)``. The translator (``sympy_to_dim``) needs only sympy;
generation imports torch and triton when it runs, never when this package is imported.
"""


def generate(module, out, examples=None, ops=None, dtypes=("float32",), arch=90, log=print,
             example_equalities=True, artefacts=True, max_block=1 << 16, gpu_name=None):
    """Generates one CMake project per custom op of `module` under `out`; returns their folders.

    examples: strings ``"ns::op(x=[2, 3, 8, 8], padding=[1, 1, 2, 2])"`` (a tensor by its shape);
    each fixes a structure (every tensor's rank and every list's length) the plugin is generated
    for, and the sizes and attribute values around which the host code is sampled. Without one
    for an op, the module's ``AUTOPLUGIN_EXAMPLES`` list is used (an absent ``Tensor?`` is
    ``bias=None``).
    example_equalities: where two inputs' extents are equal in the example and neither the fake
    nor the host code says whether the kernel takes them unequal, the plugin requires them equal
    (False: it does not).
    artefacts: compile the kernels into each project's aot/ folder, so that it builds where
    Triton is absent.
    max_block: a constexpr the host code computes with ``triton.next_power_of_2`` is compiled
    for each power of two up to it whose kernel holds blocks of at most that many elements.
    gpu_name: what ``torch.cuda.get_device_name()`` answers the host code (as it prints it on
    the GPU you deploy to), for host code that picks a configuration per GPU by its name; None:
    ``sm_<arch>``, which names none.
    """
    from .pipeline import generate as run
    return run(module, out, examples=examples, ops=ops, dtypes=dtypes, arch=arch, log=log,
               example_equalities=example_equalities, artefacts=artefacts,
               max_block=max_block, gpu_name=gpu_name)
