#!/usr/bin/env python3
"""bench_masks.py — PyTorch's masked and packed (variable-length) attention on one CUDA GPU: the
peers that issue 18's index-aware masks and THD layout are measured against, as a markdown table.

The problem (issue 18's target): T tokens packed in N documents, H heads, head dim D, bf16.
Masks, each over the packed sequence (row i = query token, column j = key token):
  document       doc(i) == doc(j)                         (no attention across documents)
  document+causal doc(i) == doc(j) and j <= i
  prefix-LM      j <= i or j < P                          (bidirectional prefix of P tokens)
  sliding chunk  chunk(j) in {chunk(i) - 1, chunk(i)}, j <= i   (chunks of C tokens)
Rows:
  flex           torch.nn.attention.flex_attention (torch.compile'd), its block mask made once
                 from the mask_mod (create_block_mask; the time to make it is printed apart)
  cudnn separate the same work as N separate sequences through SDPA's CUDNN backend (equal lengths:
                 one call, batch N; uneven: one call per document)
  flash varlen   FLASH on the packed tensors with cumulative lengths (torch.nn.attention.varlen
                 when this PyTorch has it, else SDPA on jagged nested tensors)
TFLOP/s count only the unmasked (i, j) pairs: 4·D per pair (forward), 10·D with --backward (the
backward alone: torch.autograd.grad of the forward's output, retained, with a fixed dO). Timing:
CUDA events around each call recorded back to back, the median of --iters. Every forward row's
output is compared per element with the document-separate reference where that applies (max
|diff| printed).
A benchmark, never a test. Needs CUDA and PyTorch with flex_attention.

    python bench/bench_masks.py [--tokens 16384] [--docs 8] [--heads 16] [--dim 128] [--uneven] [--backward]
"""
import argparse
import statistics
import sys


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tokens", type=int, default=16384)
    p.add_argument("--docs", type=int, default=8)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--dim", type=int, default=128)
    p.add_argument("--prefix", type=int, default=1024, help="prefix-LM: the bidirectional prefix P")
    p.add_argument("--chunk", type=int, default=1024, help="sliding chunk: the chunk size C")
    p.add_argument("--uneven", action="store_true", help="document lengths drawn at random (seed 0)")
    p.add_argument("--backward", action="store_true", help="time the backward (dQ, dK, dV) instead")
    p.add_argument("--iters", type=int, default=30)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--peak-tflops", type=float, default=790.0)
    return p.parse_args(argv)


def timed(torch, fn, iters, warmup):
    """Median device ms per call of fn(), events recorded back to back (as do_bench)."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
    for start, end in ev:
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in ev)


def doc_lengths(args):
    if not args.uneven:
        base = args.tokens // args.docs
        return [base] * (args.docs - 1) + [args.tokens - base * (args.docs - 1)]
    import random
    rnd = random.Random(0)
    cuts = sorted(rnd.sample(range(1, args.tokens), args.docs - 1))
    edges = [0] + cuts + [args.tokens]
    return [b - a for a, b in zip(edges, edges[1:])]


def main(argv=None):
    args = parse_args(argv)
    try:
        import torch
        from torch.nn.attention import SDPBackend, sdpa_kernel
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    except ImportError as e:
        sys.exit(f"bench_masks: needs PyTorch with flex_attention ({e})")
    if not torch.cuda.is_available():
        sys.exit("bench_masks: no CUDA device")
    import torch.nn.functional as F
    dev, dt = "cuda", torch.bfloat16
    T, H, D = args.tokens, args.heads, args.dim
    lens = doc_lengths(args)
    starts = [sum(lens[:k]) for k in range(len(lens))]
    doc = torch.repeat_interleave(torch.arange(len(lens), device=dev), torch.tensor(lens, device=dev))
    pos = torch.arange(T, device=dev)
    q, k, v = (torch.randn(1, H, T, D, device=dev, dtype=dt, requires_grad=args.backward) for _ in range(3))
    dout = torch.randn(1, H, T, D, device=dev, dtype=dt)

    def document(b, h, i, j):
        return doc[i] == doc[j]

    def document_causal(b, h, i, j):
        return (doc[i] == doc[j]) & (j <= i)

    def prefix_lm(b, h, i, j):
        return (j <= i) | (j < args.prefix)

    def sliding_chunk(b, h, i, j):
        ci, cj = i // args.chunk, j // args.chunk
        return (j <= i) & (cj >= ci - 1)

    def pairs(mask_mod):
        """Unmasked (i, j) pairs, counted on the GPU in row strips."""
        n, strip = 0, 1024
        for r0 in range(0, T, strip):
            i = pos[r0:r0 + strip, None]
            n += int(mask_mod(0, 0, i, pos[None, :]).sum())
        return n

    flex = torch.compile(flex_attention)
    rows = []

    def row(name, impl, ms, n_pairs, err=None, note=""):
        tf = (10.0 if args.backward else 4.0) * D * n_pairs * H / (ms * 1e-3) / 1e12
        rows.append((name, impl, ms, tf, err, note))

    def measure(fn):
        """Median ms of fn (forward), or with --backward of the backward of fn's output."""
        if not args.backward:
            return timed(torch, fn, args.iters, args.warmup)
        o = fn()
        return timed(torch, lambda: torch.autograd.grad(o, (q, k, v), dout, retain_graph=True), args.iters,
                     args.warmup)

    # the document-separate reference output (float32 math per document), for the error column
    def separate():
        out = torch.empty(q.shape, device=dev, dtype=dt)
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            if len(set(lens)) == 1:
                L = lens[0]
                qs, ks, vs = (x.view(H, len(lens), L, D).transpose(0, 1) for x in (q[0], k[0], v[0]))
                o = F.scaled_dot_product_attention(qs, ks, vs)
                out[0] = o.transpose(0, 1).reshape(H, T, D)
            else:
                for s, L in zip(starts, lens):
                    sl = slice(s, s + L)
                    out[0, :, sl] = F.scaled_dot_product_attention(q[:, :, sl], k[:, :, sl], v[:, :, sl])
        return out

    def separate_causal():
        out = torch.empty(q.shape, device=dev, dtype=dt)
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            for s, L in zip(starts, lens):
                sl = slice(s, s + L)
                out[0, :, sl] = F.scaled_dot_product_attention(q[:, :, sl], k[:, :, sl], v[:, :, sl], is_causal=True)
        return out

    def pieces(causal):
        """The separate documents' outputs as one autograd-connected tensor (cat, not an in-place copy)."""
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            if len(set(lens)) == 1 and not causal:
                L = lens[0]
                qs, ks, vs = (x[0].view(H, len(lens), L, D).transpose(0, 1) for x in (q, k, v))
                o = F.scaled_dot_product_attention(qs, ks, vs)
                return o.transpose(0, 1).reshape(1, H, T, D)
            outs = [F.scaled_dot_product_attention(q[:, :, s:s + L], k[:, :, s:s + L], v[:, :, s:s + L], is_causal=causal)
                    for s, L in zip(starts, lens)]
            return torch.cat(outs, dim=2)

    with torch.no_grad():
        ref = {"document": separate(), "document+causal": separate_causal()}
    for name, mm in (("document", document), ("document+causal", document_causal), ("prefix-LM", prefix_lm),
                     ("sliding chunk", sliding_chunk)):
        n_pairs = pairs(mm)
        t0 = torch.cuda.Event(enable_timing=True)
        t1 = torch.cuda.Event(enable_timing=True)
        t0.record()
        bm = create_block_mask(mm, B=None, H=None, Q_LEN=T, KV_LEN=T, device=dev)
        t1.record()
        torch.cuda.synchronize()
        o = flex(q, k, v, block_mask=bm)
        err = float((o.float() - ref[name].float()).abs().max()) if name in ref else None
        ms = measure(lambda: flex(q, k, v, block_mask=bm))
        row(name, "flex", ms, n_pairs, err, f"block mask {t0.elapsed_time(t1):.2f} ms once; "
            f"density {n_pairs / T / T:.3f}")
        if name == "document":
            ms = measure(lambda: pieces(False)) if args.backward else timed(torch, separate, args.iters, args.warmup)
            row(name, "cudnn separate", ms, n_pairs, 0.0, "one batched call" if len(set(lens)) == 1 else
                f"{len(lens)} calls")
        if name == "document+causal":
            ms = measure(lambda: pieces(True)) if args.backward else timed(torch, separate_causal, args.iters,
                                                                          args.warmup)
            row(name, "cudnn separate", ms, n_pairs, 0.0, f"{len(lens)} calls")
        if name.startswith("document") and not args.backward:
            res = flash_varlen(torch, F, sdpa_kernel, SDPBackend, q, k, v, lens, name.endswith("causal"))
            if res is None:
                rows.append((name, "flash varlen", None, None, None, "not in this PyTorch"))
            else:
                fn, how = res
                o = fn()
                err = float((o.float() - ref[name].float()).abs().max())
                ms = timed(torch, fn, args.iters, args.warmup)
                row(name, "flash varlen", ms, n_pairs, err, how)

    print(f"# masked attention{' backward' if args.backward else ''}, PyTorch {torch.__version__}, "
          f"{torch.cuda.get_device_name()}: T={T} tokens in "
          f"{len(lens)} documents ({'uneven' if args.uneven else 'equal'}: {lens}), H={H}, D={D}, bf16\n")
    print("| mask | implementation | ms | TFLOP/s (unmasked pairs) | % of peak | max abs diff vs separate | note |")
    print("|---|---|---:|---:|---:|---:|---|")
    for name, impl, ms, tf, err, note in rows:
        if ms is None:
            print(f"| {name} | {impl} | — | — | — | — | {note} |")
            continue
        e = "—" if err is None else f"{err:.2e}"
        print(f"| {name} | {impl} | {ms:.3f} | {tf:.0f} | {100 * tf / args.peak_tflops:.0f}% | {e} | {note} |")


def flash_varlen(torch, F, sdpa_kernel, SDPBackend, q, k, v, lens, causal):
    """(fn giving [1,H,T,D], how) for FLASH over the packed documents, or None."""
    H, T, D = q.shape[1], q.shape[2], q.shape[3]
    cu = torch.tensor([0] + list(__import__("itertools").accumulate(lens)), device=q.device, dtype=torch.int32)
    qt, kt, vt = (x[0].transpose(0, 1).contiguous() for x in (q, k, v))  # [T, H, D]
    try:
        from torch.nn.attention.varlen import varlen_attn

        def fn():
            o = varlen_attn(qt, kt, vt, cu, cu, max(lens), max(lens), is_causal=causal)
            return o.transpose(0, 1).unsqueeze(0)
        fn()
        return fn, "torch.nn.attention.varlen.varlen_attn"
    except Exception:
        pass
    try:
        offsets = cu.to(torch.int64)
        qn, kn, vn = (torch.nested.nested_tensor_from_jagged(x, offsets).transpose(1, 2) for x in (qt, kt, vt))

        def fn():
            with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                o = F.scaled_dot_product_attention(qn, kn, vn, is_causal=causal)
            return o.transpose(1, 2).values().transpose(0, 1).unsqueeze(0)
        fn()
        return fn, "SDPA FLASH on jagged nested tensors"
    except Exception as e:  # noqa: BLE001 — report, don't fail the table
        print(f"bench_masks: no FLASH varlen ({type(e).__name__}: {e})", file=sys.stderr)
        return None


if __name__ == "__main__":
    main()
