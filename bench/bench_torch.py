#!/usr/bin/env python3
"""bench_torch.py — hipdnn_jit.torch next to PyTorch on one CUDA GPU, as a markdown table.

Rows: attention forward and forward+backward (ours vs torch SDPA with the CUDNN and FLASH
backends, torch.nn.attention.sdpa_kernel), rms_norm / layer_norm / add_rms_norm (ours vs
F.rms_norm, F.layer_norm, x + r then F.rms_norm). Timing: CUDA events around each call after
warm-up, recorded back to back (see timed()), the median of --iters; inputs rotate over enough
copies to exceed L2 when one set is smaller. Attention is reported in TFLOP/s (4·B·H·Sq·Skv·D forward, halved under a causal mask;
backward counted as 2.5x forward) against --peak-tflops, norms in GB/s of compulsory traffic
against --peak-gbs; "ratio" is ours / torch's (> 1: ours faster); "host µs/call" is the Python-side
cost of one call (ours, then each torch backend's), which decides small shapes.
A benchmark, never a test. Needs CUDA: exits with a message where there is none.

    python bench/bench_torch.py [--dtype bf16] [--iters 50] [--attn 2x16x4096x128 ...] [--norm 8192x4096 ...]
"""
import argparse
import statistics
import sys
import time

L2_BYTES = 60 << 20  # H100/H200 L2 is 50 MiB: rotate inputs when one set is smaller than this


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    p.add_argument("--iters", type=int, default=50, help="timed calls per row (median reported)")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--attn", nargs="*", default=["4x16x1024x128", "2x16x4096x128", "1x16x16384x128"],
                   help="attention shapes BxHxSxD (self-attention, Sq = Skv)")
    p.add_argument("--causal", choices=["both", "yes", "no"], default="both")
    p.add_argument("--norm", nargs="*", default=["4096x4096", "16384x4096", "8192x8192"], help="norm shapes MxN")
    p.add_argument("--no-backward", action="store_true", help="attention forward rows only")
    p.add_argument("--peak-tflops", type=float, default=790.0, help="dense bf16 ceiling (H200 ~790)")
    p.add_argument("--peak-gbs", type=float, default=4240.0, help="HBM ceiling in GB/s (H200 4.24 TB/s)")
    args = p.parse_args(argv)
    try:
        args.attn = [tuple(int(v) for v in s.split("x")) for s in args.attn]
        args.norm = [tuple(int(v) for v in s.split("x")) for s in args.norm]
    except ValueError:
        p.error("shapes are numbers joined by 'x', e.g. --attn 2x16x4096x128 --norm 8192x4096")
    if any(len(s) != 4 for s in args.attn) or any(len(s) != 2 for s in args.norm):
        p.error("--attn takes BxHxSxD, --norm takes MxN")
    return args


def timed(torch, fn, sets, iters, warmup):
    """(median device ms per call, host µs per call) of fn(*set) with the sets taken in turn.
    Events are recorded around each call without waiting in between, as triton's do_bench does:
    while the host enqueues faster than the GPU runs, each call's events time its kernels alone;
    when the host is the slower side, the device times grow to the host's pace. The host cost is
    the enqueue loop's wall time per call, measured in the same loop."""
    for i in range(warmup):
        fn(*sets[i % len(sets)])
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
    t0 = time.perf_counter()
    for i, (start, end) in enumerate(events):
        start.record()
        fn(*sets[i % len(sets)])
        end.record()
    host_us = (time.perf_counter() - t0) / iters * 1e6
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in events), host_us


def input_sets(torch, make, nbytes):
    """Enough copies of make() that together they exceed L2."""
    return [make() for _ in range(max(1, -(-L2_BYTES // max(nbytes, 1))))]


def attention_rows(torch, hjt, args, dt):
    F = torch.nn.functional
    from torch.nn.attention import SDPBackend, sdpa_kernel
    rows = []
    for b, h, s, d in args.attn:
        for causal in ([False, True] if args.causal == "both" else [args.causal == "yes"]):
            flops = 4 * b * h * s * s * d / (2 if causal else 1)
            nbytes = 4 * b * h * s * d * 2

            def make():
                return [torch.randn(b, h, s, d, device="cuda", dtype=dt, requires_grad=True) for _ in range(3)]
            sets = input_sets(torch, make, nbytes)

            def ours(q, k, v):
                return hjt.scaled_dot_product_attention(q, k, v, is_causal=causal)

            def theirs(backend):
                def run(q, k, v):
                    with sdpa_kernel(backend):
                        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                return run
            passes = [("fwd", 1.0, lambda f: f)]
            if not args.no_backward:
                passes.append(("fwd+bwd", 3.5, lambda f: (lambda q, k, v: f(q, k, v).backward(q.detach()))))
            for name, factor, wrap in passes:
                t_ours, host = timed(torch, wrap(ours), sets, args.iters, args.warmup)
                tf = flops * factor / t_ours / 1e9
                row = {"what": f"sdpa {name} {b}x{h}x{s}x{d}{' causal' if causal else ''}", "ours": tf,
                       "unit": "TFLOP/s", "peak": args.peak_tflops, "host": [host]}
                for label, backend in (("CUDNN", SDPBackend.CUDNN_ATTENTION), ("FLASH", SDPBackend.FLASH_ATTENTION)):
                    try:
                        t, host = timed(torch, wrap(theirs(backend)), sets, args.iters, args.warmup)
                        row[label] = flops * factor / t / 1e9
                        row["host"].append(host)
                    except RuntimeError as e:  # backend unavailable for the shape / build
                        row[label] = None
                        print(f"<!-- {label} unavailable for {row['what']}: {str(e).splitlines()[0]} -->")
                rows.append(row)
    return rows


def norm_rows(torch, hjt, args, dt):
    F = torch.nn.functional
    rows = []
    for m, n in args.norm:
        e = torch.finfo(dt).bits // 8
        cases = {  # name: (ours, torch's, bytes moved: compulsory reads + writes)
            "rms_norm": (lambda x, r, w, b: hjt.rms_norm(x, w), lambda x, r, w, b: F.rms_norm(x, (n,), w, 1e-6),
                         2 * m * n * e),
            "layer_norm": (lambda x, r, w, b: hjt.layer_norm(x, w, b), lambda x, r, w, b: F.layer_norm(x, (n,), w, b),
                           2 * m * n * e),
            "add_rms_norm": (lambda x, r, w, b: hjt.add_rms_norm(x, r, w),
                             lambda x, r, w, b: (F.rms_norm(x + r, (n,), w, 1e-6), x + r), 4 * m * n * e),
        }

        def make():
            return [torch.randn(m, n, device="cuda", dtype=dt), torch.randn(m, n, device="cuda", dtype=dt),
                    torch.rand(n, device="cuda", dtype=dt) + 0.5, torch.randn(n, device="cuda", dtype=dt)]
        sets = input_sets(torch, make, 2 * m * n * e)
        with torch.no_grad():
            for name, (ours, theirs, nbytes) in cases.items():
                t_ours, h_ours = timed(torch, ours, sets, args.iters, args.warmup)
                t_torch, h_torch = timed(torch, theirs, sets, args.iters, args.warmup)
                rows.append({"what": f"{name} {m}x{n}", "ours": nbytes / t_ours / 1e6, "torch": nbytes / t_torch / 1e6,
                             "unit": "GB/s", "peak": args.peak_gbs, "host": [h_ours, h_torch]})
    return rows


def table(rows):
    lines = ["| what | unit | ours | % of peak | torch (CUDNN / FLASH / eager) | ratio | host µs/call (ours / torch's) |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        others = [r.get(k) for k in ("CUDNN", "FLASH", "torch") if k in r]
        shown = " / ".join("n/a" if v is None else f"{v:.1f}" for v in others)
        best = max((v for v in others if v is not None), default=None)
        ratio = f"{r['ours'] / best:.2f}x" if best else "n/a"
        lines.append(f"| {r['what']} | {r['unit']} | {r['ours']:.1f} | {100 * r['ours'] / r['peak']:.0f}% | "
                     f"{shown} | {ratio} | {' / '.join(f'{h:.0f}' for h in r['host'])} |")
    return "\n".join(lines)


def main(argv=None):
    args = parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        sys.exit("bench_torch.py: no CUDA device (torch.cuda.is_available() is False); run it on the GPU machine")
    import hipdnn_jit
    import hipdnn_jit.torch as hjt
    dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
    print(f"hipdnn_jit {hipdnn_jit.version()}, torch {torch.__version__}, {torch.cuda.get_device_name()}, "
          f"{args.dtype}; median of {args.iters}; ratio = ours / the best torch backend\n")
    rows = attention_rows(torch, hjt, args, dt) + norm_rows(torch, hjt, args, dt)
    print(table(rows))


if __name__ == "__main__":
    main()
