#!/usr/bin/env python3
"""compare_matmul.py OURS.txt... — times y = GELU(a @ b + bias) with PyTorch (F.gelu(torch.addmm(bias,
a, b)), cuBLAS underneath) on the same GPU and prints a markdown table next to bench_matmul's
numbers (each OURS.txt is bench_matmul's output; every line of them gets a row: the case,
mm_bias_gelu or mm_plain, and the knob config are columns; PyTorch is timed once per size).

Same flops counted as bench_matmul (2·M·N·K); bf16 operands; median of REPS event-timed calls
after warm-up, inputs rotated over SETS sets.
"""
import sys
import torch
import torch.nn.functional as F

from torch_timing import timed

CEILING = 790.0  # TFLOP/s, bf16 dense mma ceiling of this H200 (shared/gpu notes)
SETS, REPS = 2, 30


def torch_case(m, n, k):
    dev, bf = "cuda", torch.bfloat16
    bias = torch.randn(n, device=dev, dtype=bf)
    sets = [(torch.randn(m, k, device=dev, dtype=bf), torch.randn(k, n, device=dev, dtype=bf))
            for _ in range(SETS)]
    ms = timed(lambda a, b: F.gelu(torch.addmm(bias, a, b)), sets, REPS, 5)
    return ms, 2.0 * m * n * k / (ms * 1e-3) / 1e12


def main():
    ours = []
    for path in sys.argv[1:]:
        for line in open(path):
            f = line.split()
            if len(f) >= 6 and f[0] != "case":
                cfg = f[6] if len(f) > 6 else "default"
                ours.append((f[0], int(f[1]), int(f[2]), int(f[3]), float(f[4]), float(f[5]), cfg))
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("| case | config | M=N=K | hipdnn-jit ms | TFLOP/s | % of 790 | PyTorch addmm+gelu ms | TFLOP/s | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    theirs = {}
    for case, m, n, k, ms, tf, cfg in ours:
        if (m, n, k) not in theirs:
            theirs[(m, n, k)] = torch_case(m, n, k)
        tms, ttf = theirs[(m, n, k)]
        print(f"| {case} | {cfg} | {m} | {ms:.3f} | {tf:.0f} | {100 * tf / CEILING:.0f}% | {tms:.3f} | {ttf:.0f} | "
              f"{tf / ttf:.2f} |")


if __name__ == "__main__":
    main()
