#!/usr/bin/env python3
"""compare_attention.py [--backward] OURS.txt — PyTorch's scaled_dot_product_attention forward
(or, with --backward, its backward: out.backward(dO) timed alone) on the same GPU,
through each of its FLASH_ATTENTION, CUDNN_ATTENTION and EFFICIENT_ATTENTION backends
(torch.nn.attention.sdpa_kernel), beside bench_attention's numbers (OURS.txt is its output).

Inputs as bench_attention's: bf16, [b,s,h,d] activations transposed to [b,h,s,d] views, Sq = Skv,
scale 1/sqrt(D), causal or not; median of 20 event-timed calls over 2 rotated input sets after
3 warm-ups (torch_timing.timed). FLOPs: 4·B·H·S²·D (backward 2.5x that), halved for causal.
Prints a markdown table:
ours (default tiles and the best knob setting), each backend, and our best over FLASH and CUDNN.
"""
import sys
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from torch_timing import timed

SETS, REPS, WARMUP = 2, 20, 3
BACKENDS = [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION),
            ("efficient", SDPBackend.EFFICIENT_ATTENTION)]


def ours(path):
    """{(B, H, S, D, causal): {config: tflops}} from bench_attention's output."""
    res = {}
    for line in open(path):
        f = line.split()
        if len(f) != 8 or line.startswith("#"):
            continue
        key = tuple(int(x) for x in f[:5])
        res.setdefault(key, {})[f[5]] = float(f[7])
    return res


def torch_tflops(B, H, S, D, causal, backend, backward=False):
    def qkv():
        return [torch.randn(B, S, H, D, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
                .detach().requires_grad_(backward) for _ in range(3)]
    sets = [qkv() for _ in range(SETS)]
    flops = 4.0 * B * H * S * S * D / (2 if causal else 1) * (2.5 if backward else 1)
    try:
        with sdpa_kernel(backend):
            attn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))
            if backward:  # one forward per set, then only out.backward(dO) is timed
                outs = [(attn(*s), torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16)) for s in sets]
                fn = lambda o, do: o.backward(do, retain_graph=True)
                ms = timed(fn, outs, REPS, WARMUP)
            else:
                ms = timed(attn, sets, REPS, WARMUP)
        return flops / (ms * 1e-3) / 1e12
    except RuntimeError as e:
        print(f"# {backend}: {str(e).splitlines()[0]}", file=sys.stderr)
        return None


def main():
    backward = sys.argv[1] == "--backward"
    res = ours(sys.argv[-1])
    print(f"\n{'Backward' if backward else 'Forward'}:\n")
    print("| B,H,S,D | causal | ours default | ours best (config) | FLASH | CUDNN | EFFICIENT | best/FLASH | best/CUDNN |")
    print("|---|---|---|---|---|---|---|---|---|")
    for key, cfgs in res.items():
        B, H, S, D, causal = key
        best_cfg = max(cfgs, key=cfgs.get)
        t = {name: torch_tflops(B, H, S, D, causal, be, backward) for name, be in BACKENDS}
        fmt = lambda v: f"{v:.0f}" if v else "n/a"
        ratio = lambda v: f"{cfgs[best_cfg] / v:.2f}" if v else "n/a"
        print(f"| {B},{H},{S},{D} | {'yes' if causal else 'no'} | {cfgs.get('default', 0):.0f} | "
              f"{cfgs[best_cfg]:.0f} ({best_cfg}) | {fmt(t['flash'])} | {fmt(t['cudnn'])} | "
              f"{fmt(t['efficient'])} | {ratio(t['flash'])} | {ratio(t['cudnn'])} |", flush=True)


if __name__ == "__main__":
    main()
