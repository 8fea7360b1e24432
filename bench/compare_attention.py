#!/usr/bin/env python3
"""compare_attention.py [--backward | --decode | --softcap] OURS.txt — PyTorch's scaled_dot_product_attention forward
(or, with --backward, its backward: out.backward(dO) timed alone) on the same GPU,
through each of its FLASH_ATTENTION, CUDNN_ATTENTION and EFFICIENT_ATTENTION backends
(torch.nn.attention.sdpa_kernel), beside bench_attention's numbers (OURS.txt is its output).

Inputs as bench_attention's: bf16, [b,s,h,d] activations transposed to [b,h,s,d] views, Sq = Skv,
scale 1/sqrt(D), causal or not; median of 20 event-timed calls over 2 rotated input sets after
3 warm-ups (torch_timing.timed). FLOPs: 4·B·H·S²·D (backward 2.5x that), halved for causal.
Prints a markdown table:
ours (default tiles and the best knob setting), each backend, and our best over FLASH and CUDNN.

--decode: bench_attention --decode's rows (GQA 32:8, D=128, Sq 1/4/16, no mask); PyTorch's FLASH
and CUDNN backends on the same shapes with enable_gqa=True (K/V [B,8,Skv,128] views of [b,s,h,d]
caches; where a backend refuses GQA, K/V expanded to 32 heads, marked "x4": it then reads four times
the bytes counted). Rate: the K/V bytes (2·B·Skv·8·128·2) over the time, in TB/s, beside a
device-to-device copy of 1 GiB measured in the same run (bytes read + written). Paged rows are
compared with the same dense PyTorch calls (PyTorch's SDPA has no paged K/V) and with cuDNN's own
paged attention on the same paged inputs, through NVIDIA's Python frontend (cudnn_paged.py; "n/a"
with the reason on stderr where the frontend wheel is not installed or cuDNN refuses the graph).
"""
import sys
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from torch_timing import timed
import cudnn_paged

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


def decode_ours(path):
    """{(B, Sq, Skv, paged): {config: TB/s}} from bench_attention --decode's output."""
    res = {}
    for line in open(path):
        f = line.split()
        if len(f) != 10 or line.startswith("#"):
            continue
        key = (int(f[0]), int(f[3]), int(f[4]), int(f[6]))
        res.setdefault(key, {})[f[7]] = float(f[9])
    return res


def copy_tbs():
    x = torch.empty(1 << 29, device="cuda", dtype=torch.bfloat16)
    y = torch.empty_like(x)
    ms = timed(lambda a, b: b.copy_(a), [(x, y)], REPS, WARMUP)
    return 2 * x.numel() * 2 / (ms * 1e-3) / 1e12


def torch_decode_tbs(B, Sq, Skv, backend, Hq=32, Hk=8, D=128):
    """(TB/s counting the 8-head K/V bytes, note) of one PyTorch backend, or (None, reason)."""
    def inputs(expand):
        q = torch.randn(B, Sq, Hq, D, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
        k, v = (torch.randn(B, Skv, Hk, D, device="cuda", dtype=torch.bfloat16).transpose(1, 2) for _ in range(2))
        if expand:
            k, v = k.repeat_interleave(Hq // Hk, dim=1), v.repeat_interleave(Hq // Hk, dim=1)
        return q, k, v
    nbytes = 2.0 * B * Skv * Hk * D * 2
    for expand in (False, True):
        try:
            sets = [inputs(expand) for _ in range(SETS)]
            with sdpa_kernel(backend):
                fn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=not expand)
                ms = timed(fn, sets, REPS, WARMUP)
            del sets
            return nbytes / (ms * 1e-3) / 1e12, "x4" if expand else ""
        except RuntimeError as e:
            reason = str(e).splitlines()[0]
            print(f"# {backend} B{B} Sq{Sq} Skv{Skv} expand={expand}: {reason}", file=sys.stderr)
            torch.cuda.empty_cache()
    return None, reason


def main_decode(path):
    res = decode_ours(path)
    copy = copy_tbs()
    print(f"\nDecode (GQA 32:8, D=128, bf16, K/V TB/s; device-to-device copy in this run: {copy:.2f} TB/s):\n")
    print("| B | Sq | Skv | K/V | ours default | ours best (config) | % of copy | FLASH | CUDNN | default/FLASH | "
          "default/CUDNN | CUDNN paged | default/CUDNN paged |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    peers = {}
    for key, cfgs in res.items():
        B, Sq, Skv, paged = key
        if (B, Sq, Skv) not in peers:
            peers[(B, Sq, Skv)] = {name: torch_decode_tbs(B, Sq, Skv, be) for name, be in BACKENDS[:2]}
        t = peers[(B, Sq, Skv)]
        best_cfg = max(cfgs, key=cfgs.get)
        d = cfgs.get("default", 0)
        fmt = lambda p: f"{p[0]:.2f}{' ' + p[1] if p[1] else ''}" if p[0] else "n/a"
        ratio = lambda p: f"{d / p[0]:.2f}" if p[0] else "n/a"
        cp = (None, "")
        if paged:
            cp = cudnn_paged.paged_tbs(B, Sq, Skv)
            if cp[0] is None or cp[1]:
                print(f"# cudnn paged B{B} Sq{Sq} Skv{Skv}: {cp[1]}", file=sys.stderr)
        print(f"| {B} | {Sq} | {Skv} | {'paged' if paged else 'dense'} | {d:.2f} | {cfgs[best_cfg]:.2f} ({best_cfg}) | "
              f"{100 * d / copy:.0f}% | {fmt(t['flash'])} | {fmt(t['cudnn'])} | {ratio(t['flash'])} | "
              f"{ratio(t['cudnn'])} | {fmt(cp) if paged else '-'} | {ratio(cp) if paged else '-'} |", flush=True)


def main_softcap(path):
    """The softcap modifier's cost: bench_attention --softcap's rows, modified over plain."""
    res = ours(path)
    print("\nScore modifier (softcap c = 50), TFLOP/s, same kernel without the modifier in the same run:\n")
    print("| B,H,S,D | causal | plain | softcap | softcap/plain |")
    print("|---|---|---|---|---|")
    for (B, H, S, D, causal), cfgs in res.items():
        if "softcap" in cfgs and "default" in cfgs:
            print(f"| {B},{H},{S},{D} | {'yes' if causal else 'no'} | {cfgs['default']:.0f} | {cfgs['softcap']:.0f} | "
                  f"{cfgs['softcap'] / cfgs['default']:.2f} |")


def main():
    if sys.argv[1] == "--decode":
        return main_decode(sys.argv[-1])
    if sys.argv[1] == "--softcap":
        return main_softcap(sys.argv[-1])
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
