"""compare_execute.py — PyTorch beside bench_execute: host-side microseconds per call of the same
small graph, y = relu(x + b) with x [R, C] fp32 and b [1, C], in the same two measures (the loop
of calls before synchronizing, and end to end), median of 5 rounds of 20000 calls after a
warm-up. PyTorch eager issues two kernels (add, relu); torch.compile's fused one is timed too
when it compiles.

Usage: python3 compare_execute.py ours.txt [R C]   (ours.txt: bench_execute's output)
"""
import statistics
import sys
import time

import torch


def rounds(fn, calls=20000, n=5):
    for _ in range(200):
        fn()
    torch.cuda.synchronize()
    enq, tot = [], []
    for _ in range(n):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        enq.append((t1 - t0) / calls * 1e6)
        tot.append((t2 - t0) / calls * 1e6)
    return statistics.median(enq), statistics.median(tot)


def main():
    ours = open(sys.argv[1]).read().strip().splitlines()
    r, c = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (256, 256)
    x = torch.randn(r, c, device="cuda")
    b = torch.randn(1, c, device="cuda")
    rows = [("PyTorch eager (2 kernels)", rounds(lambda: torch.relu(x + b)))]
    try:
        fused = torch.compile(lambda x, b: torch.relu(x + b))
        fused(x, b)
        rows.append(("torch.compile (1 kernel)", rounds(lambda: fused(x, b))))
    except Exception as e:  # no compiler toolchain: say so
        print(f"# torch.compile skipped: {type(e).__name__}: {e}".splitlines()[0])
    print("\n".join(ours))
    for name, (e, t) in rows:
        print(f"{name:26s} {e:12.2f} {t:12.2f}")


if __name__ == "__main__":
    main()
