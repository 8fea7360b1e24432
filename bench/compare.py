#!/usr/bin/env python3
"""compare.py OURS.txt — times the same norm graphs with PyTorch eager on the same GPU and prints
a markdown table next to bench_norm's numbers (OURS.txt is bench_norm's output).

Same bytes counted as bench_norm: x, y (and r, h for the residual case) once each; median of 50
event-timed calls after warm-up, inputs rotated over 4 sets so L2 does not serve them.
"""
import sys
import torch
import torch.nn.functional as F

from torch_timing import timed

CEILING = 4240.0  # GB/s, device-to-device copy measured on this H200 (shared/gpu/README.md)
SETS, REPS = 4, 50


def torch_case(kind, rows, cols):
    dev, bf = "cuda", torch.bfloat16
    w = torch.rand(cols, device=dev, dtype=bf) + 1
    b = torch.rand(cols, device=dev, dtype=bf)
    sets = [(torch.randn(rows, cols, device=dev, dtype=bf), torch.randn(rows, cols, device=dev, dtype=bf))
            for _ in range(SETS)]
    if kind == "layernorm":
        fn, nbytes = (lambda x, r: F.layer_norm(x, (cols,), w, b, 1e-5)), 4
    elif kind == "rmsnorm":
        fn, nbytes = (lambda x, r: F.rms_norm(x, (cols,), w, 1e-5)), 4
    elif kind == "add_rmsnorm":
        fn, nbytes = (lambda x, r: F.rms_norm(x + r, (cols,), w, 1e-5)), 8
    else:  # rmsnorm_fp8
        fn, nbytes = (lambda x, r: (F.rms_norm(x, (cols,), w, 1e-5) * 4).to(torch.float8_e4m3fn)), 3
    ms = timed(fn, sets, REPS, 10)
    return ms, rows * cols * nbytes / (ms * 1e-3) / 1e9


def main():
    ours = {}
    for line in open(sys.argv[1]):
        f = line.split()
        if len(f) == 5 and f[0] != "case":
            ours[(f[0], int(f[1]), int(f[2]))] = (float(f[3]), float(f[4]))
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("| graph | shape | hipdnn-jit ms | GB/s | % of 4.24 TB/s | PyTorch eager ms | GB/s | speedup |")
    print("|---|---|---|---|---|---|---|---|")
    for (kind, rows, cols), (ms, gbs) in ours.items():
        tms, tgbs = torch_case(kind, rows, cols)
        print(f"| {kind} | {rows}x{cols} | {ms:.4f} | {gbs:.0f} | {100 * gbs / CEILING:.0f}% | "
              f"{tms:.4f} | {tgbs:.0f} | {tms / ms:.2f}x |")


if __name__ == "__main__":
    main()
