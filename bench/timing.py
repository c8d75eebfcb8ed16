"""Device time of a GPU call, as every benchmark here measures it: the median of CUDA-event
timings after a warm-up."""
import torch


def median_ms(fn, iterations=50, warm_up=5):
    for _ in range(warm_up):
        fn()
    times = []
    for _ in range(iterations):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return sorted(times)[len(times) // 2]
