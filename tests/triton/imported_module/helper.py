import triton


@triton.jit
def doubled(value):
    return value * 2
