#!/usr/bin/env python3
"""torch_host_profile.py — where the host time of one hipdnn_jit.torch call goes, on CUDA.

For each op (rms_norm, layer_norm, add_rms_norm, sdpa forward, sdpa forward+backward) at a small
shape: the wall time per call of a loop of calls (the GPU backlogged, so this is the host's
cost), next to PyTorch's own op in the same loop; then, with --profile, cProfile's top entries
by own time for our op. A development tool for bench/NOTES.md, never a test.

    python bench/torch_host_profile.py [--calls 2000] [--profile]
"""
import argparse
import cProfile
import pstats
import time


def per_call_us(torch, fn, calls):
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    us = (time.perf_counter() - t0) / calls * 1e6
    torch.cuda.synchronize()
    return us


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--profile", action="store_true")
    args = p.parse_args()
    import torch
    import hipdnn_jit.torch as hjt
    F = torch.nn.functional
    dt, dev = torch.bfloat16, "cuda"
    x, r = torch.randn(64, 1024, device=dev, dtype=dt), torch.randn(64, 1024, device=dev, dtype=dt)
    w, b = torch.rand(1024, device=dev, dtype=dt) + 0.5, torch.randn(1024, device=dev, dtype=dt)
    q, k, v = (torch.randn(1, 4, 128, 64, device=dev, dtype=dt, requires_grad=True) for _ in range(3))
    cases = [
        ("rms_norm", lambda: hjt.rms_norm(x, w), lambda: F.rms_norm(x, (1024,), w, 1e-6)),
        ("layer_norm", lambda: hjt.layer_norm(x, w, b), lambda: F.layer_norm(x, (1024,), w, b)),
        ("add_rms_norm", lambda: hjt.add_rms_norm(x, r, w), lambda: F.rms_norm(x + r, (1024,), w, 1e-6)),
        ("sdpa fwd (no grad)", lambda: _no_grad(torch, hjt.scaled_dot_product_attention, q, k, v),
         lambda: _no_grad(torch, F.scaled_dot_product_attention, q, k, v)),
        ("sdpa fwd+bwd", lambda: hjt.scaled_dot_product_attention(q, k, v).sum().backward(),
         lambda: F.scaled_dot_product_attention(q, k, v).sum().backward()),
    ]
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}; host µs per call, {args.calls} calls\n")
    print("| op | ours | torch |\n|---|---|---|")
    for name, ours, theirs in cases:
        with torch.no_grad() if "bwd" not in name else _Null():
            print(f"| {name} | {per_call_us(torch, ours, args.calls):.1f} | {per_call_us(torch, theirs, args.calls):.1f} |")
    if args.profile:
        for name, ours, _ in cases:
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(500):
                ours()
            prof.disable()
            torch.cuda.synchronize()
            print(f"\n## {name}: cProfile of 500 calls, top 14 by own time")
            pstats.Stats(prof).sort_stats("tottime").print_stats(14)


def _no_grad(torch, fn, *args):
    with torch.no_grad():
        return fn(*args)


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    main()
