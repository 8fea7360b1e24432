#!/usr/bin/env python3
"""compare_bn.py OURS.txt — times PyTorch's batchnorm on the same shapes as bench_bn and prints a
markdown table beside bench_bn's numbers (OURS.txt is bench_bn's output).

PyTorch side (bf16 x, fp32 weights and statistics, channels_last for NHWC):
  bn_train_relu  relu(batch_norm(x, training=True)) with running statistics
  bn_bwd         aten.native_batch_norm_backward (dx, dweight, dbias)
  genstats       torch.var_mean over N, H, W (one pass over x, two moments per channel)
Same "eff" bytes as bench_bn (each tensor once); median of 50 event-timed calls after warm-up,
inputs rotated over 4 sets so L2 does not serve them.
"""
import sys
import torch
import torch.nn.functional as F

from torch_timing import timed

SETS, REPS = 4, 50
EFF = {"bn_train_relu": 4, "bn_bwd": 6, "genstats": 2}


def torch_case(kind, layout, n, c, h, w):
    dev, bf = "cuda", torch.bfloat16
    fmt = torch.channels_last if layout == "NHWC" else torch.contiguous_format
    new = lambda: torch.randn(n, c, h, w, device=dev, dtype=bf).to(memory_format=fmt)
    wt, b = torch.rand(c, device=dev) + 0.5, torch.rand(c, device=dev)
    rm, rv = torch.zeros(c, device=dev), torch.ones(c, device=dev)
    sets = [(new(), new()) for _ in range(SETS)]
    if kind == "bn_train_relu":
        fn = lambda x, dy: F.relu(F.batch_norm(x, rm, rv, wt, b, True, 0.1, 1e-5))
    elif kind == "bn_bwd":
        sm, si = torch.zeros(c, device=dev), torch.ones(c, device=dev)
        fn = lambda x, dy: torch.ops.aten.native_batch_norm_backward(dy, x, wt, rm, rv, sm, si, True, 1e-5,
                                                                     [True, True, True])
    else:
        fn = lambda x, dy: torch.var_mean(x, dim=(0, 2, 3))
    ms = timed(fn, sets, REPS, 10)
    return ms, n * c * h * w * EFF[kind] / (ms * 1e-3) / 1e9


def main():
    print("| case | layout | x | ours ms | ours GB/s (eff / moved) | PyTorch ms | PyTorch GB/s | ours / PyTorch |")
    print("|---|---|---|---|---|---|---|---|")
    for line in open(sys.argv[1]):
        f = line.split()
        if len(f) != 9 or f[0] == "case":
            continue
        kind, layout, dims = f[0], f[1], [int(v) for v in f[2:6]]
        ms, eff, moved = float(f[6]), float(f[7]), float(f[8])
        try:
            tms, tgb = torch_case(kind, layout, *dims)
            tcol = f"{tms:.4f} | {tgb:.0f} | {tms / ms:.2f}x"
        except Exception as e:  # an op PyTorch refuses for this dtype mix
            tcol = f"n/a ({type(e).__name__}) | | "
        print(f"| {kind} | {layout} | {'x'.join(map(str, dims))} | {ms:.4f} | {eff:.0f} / {moved:.0f} | {tcol} |",
              flush=True)


if __name__ == "__main__":
    main()
