"""torch_timing.py — the PyTorch side's timer, shared by compare.py and compare_matmul.py.

timed() warms up, then records one CUDA event pair around each of `reps` calls, rotating over the
input sets so L2 does not serve them, and returns the median in milliseconds.
"""
import torch


def timed(fn, sets, reps, warmup):
    for i in range(warmup):
        fn(*sets[i % len(sets)])
    start = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    end = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        start[i].record()
        fn(*sets[i % len(sets)])
        end[i].record()
    torch.cuda.synchronize()
    ms = sorted(s.elapsed_time(e) for s, e in zip(start, end))
    return ms[reps // 2]
