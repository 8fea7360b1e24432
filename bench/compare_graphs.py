#!/usr/bin/env python3
"""compare_graphs.py OURS.txt GRAPHS_DIR — times the example graphs' PyTorch eager equivalents on
the same GPU and prints a markdown table next to bench_graphs' numbers (OURS.txt is its output).

Shapes and layouts come from the graph files (NHWC tensors become channels_last); inputs are bf16
as in the graphs, fp32 per-channel tensors as in the graphs. Median of 30 event-timed calls over 2
rotated input sets, as bench_graphs. Graphs without an equivalent here are listed without one.
"""
import json
import os
import sys
import torch
import torch.nn.functional as F

from torch_timing import timed

SETS, REPS = 2, 30
dev, bf = "cuda", torch.bfloat16


def dims(graph, uid):
    return next(t["dims"] for t in graph["tensors"] if t["uid"] == uid)


def attrs(graph, kind):
    return next(n["attributes"] for n in graph["nodes"] if n["attributes_type"] == kind)


def torch_fn(name, g):
    """(fn, input sets) for the graph's PyTorch equivalent, or None."""
    if name == "bn_inference_relu":
        n, c, h, w = dims(g, 1)
        p = [torch.rand(c, device=dev) + 0.5 for _ in range(4)]
        sets = [(torch.randn(n, c, h, w, device=dev, dtype=bf).to(memory_format=torch.channels_last),)
                for _ in range(SETS)]
        return (lambda x: F.relu(F.batch_norm(x, p[0], p[1], p[2], p[3], False, 0.0, 1e-5))), sets
    if name == "conv_bias_relu":
        a = attrs(g, "ConvolutionFwdAttributes")
        x, w = dims(g, 1), dims(g, 2)
        wt = torch.randn(*w, device=dev, dtype=bf).to(memory_format=torch.channels_last)
        b = torch.randn(w[0], device=dev, dtype=bf)
        sets = [(torch.randn(*x, device=dev, dtype=bf).to(memory_format=torch.channels_last),) for _ in range(SETS)]
        return (lambda x: F.relu(F.conv2d(x, wt, b, a["stride"], a["pre_padding"], a["dilation"]))), sets
    if name == "matmul_bias_gelu":
        a, b = dims(g, 1), dims(g, 2)
        bb = torch.randn(*b[1:], device=dev, dtype=bf)
        bias = torch.randn(b[-1], device=dev, dtype=bf)
        sets = [(torch.randn(*a[1:], device=dev, dtype=bf),) for _ in range(SETS)]
        return (lambda x: F.gelu(torch.addmm(bias, x, bb))), sets
    if name == "rmsnorm_residual":  # bf16 weight: fp32 would take PyTorch's unfused path
        x = dims(g, 1)
        w = (torch.rand(x[-1], device=dev) + 0.5).to(bf)
        sets = [(torch.randn(*x, device=dev, dtype=bf), torch.randn(*x, device=dev, dtype=bf)) for _ in range(SETS)]
        return (lambda x, r: F.rms_norm(x + r, (x.shape[-1],), w, 1e-5)), sets
    if name == "layernorm":  # training: PyTorch's forward also keeps mean and rstd for backward
        x = dims(g, 1)
        w, b = torch.rand(x[-1], device=dev) + 0.5, torch.rand(x[-1], device=dev)
        sets = [(torch.randn(*x, device=dev, dtype=bf),) for _ in range(SETS)]
        return (lambda x: torch.native_layer_norm(x, (x.shape[-1],), w.to(bf), b.to(bf), 1e-5)), sets
    return None


def main():
    ours = {}
    for line in open(sys.argv[1]):
        f = line.split()
        if len(f) >= 5 and f[0] != "graph" and f[2] != "-":
            ours.setdefault(f[0], {})[f[1]] = (float(f[2]), float(f[3]), float(f[4]))
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print("| graph | jit_fused ms | GB/s | TFLOP/s | jit_unfused ms | PyTorch eager ms | fused vs PyTorch |")
    print("|---|---|---|---|---|---|---|")
    for file, engines in ours.items():
        name = os.path.splitext(file)[0]
        g = json.load(open(os.path.join(sys.argv[2], file)))
        fused, unfused = engines.get("jit_fused"), engines.get("jit_unfused")
        made = torch_fn(name, g)
        tms = timed(made[0], made[1], REPS, 5) if made else None
        cell = lambda v, i, fmt: (fmt % v[i]) if v else "-"
        print(f"| {name} | {cell(fused, 0, '%.4f')} | {cell(fused, 1, '%.0f')} | {cell(fused, 2, '%.0f')} | "
              f"{cell(unfused, 0, '%.4f')} | {('%.4f' % tms) if tms else '-'} | "
              f"{('%.2fx' % (tms / fused[0])) if tms and fused else '-'} |")


if __name__ == "__main__":
    main()
