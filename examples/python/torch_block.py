#!/usr/bin/env python3
"""torch_block.py — the attention half of a transformer block through hipdnn_jit.torch, checked
against the same block in plain PyTorch (forward and gradients, element by element).

    h, x = add_rms_norm(x, residual, w_norm)      # residual add + RMSNorm
    q, k, v = matmul_bias_act(h, w_qkv) split into heads [B,H,S,D] (GQA: fewer K/V heads)
    o = scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    y = matmul_bias_act(o, w_out, b_out) + x; then layer_norm(y) (a post-norm, for the example)

On CPU (the default without a GPU) it runs small shapes on the reference engine in float32; on
CUDA it runs bf16 on the JIT engines. Run: python examples/python/torch_block.py [--device cuda]
"""
import argparse
import math

import torch
import torch.nn.functional as F

import hipdnn_jit.torch as hjt


def block(x, residual, p, heads, kv_heads, ops):
    """The block, written once; `ops` is hipdnn_jit.torch or the PyTorch stand-ins below."""
    b, s, d = x.shape
    hd = d // heads
    h, x = ops.add_rms_norm(x, residual, p["w_norm"], 1e-6)
    qkv = ops.matmul_bias_act(h, p["w_qkv"], None, "none")
    q, k, v = qkv.split([d, kv_heads * hd, kv_heads * hd], dim=-1)
    q = q.view(b, s, heads, hd).transpose(1, 2)
    k, v = (t.reshape(b, s, kv_heads, hd).transpose(1, 2) for t in (k, v))
    o = ops.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    y = ops.matmul_bias_act(o.transpose(1, 2).reshape(b, s, d), p["w_out"], p["b_out"], "none") + x
    return ops.layer_norm(y, p["w_ln"], p["b_ln"], 1e-5)


class TorchOps:
    """The same ops in PyTorch (the check)."""
    @staticmethod
    def add_rms_norm(x, r, w, eps):
        h = x + r
        return F.rms_norm(h, (h.shape[-1],), w, eps), h

    @staticmethod
    def matmul_bias_act(x, w, b, act):
        return x @ w + (b if b is not None else 0)

    @staticmethod
    def scaled_dot_product_attention(q, k, v, **kw):
        return F.scaled_dot_product_attention(q, k, v, **kw)

    @staticmethod
    def layer_norm(x, w, b, eps):
        return F.layer_norm(x, (x.shape[-1],), w, b, eps)


def main():
    ap = argparse.ArgumentParser(description="hipdnn_jit.torch attention block vs PyTorch")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = ap.parse_args()
    dev = torch.device(args.device)
    dt = torch.float32 if dev.type == "cpu" else torch.bfloat16
    b, s, d, heads, kv_heads = (2, 6, 32, 4, 2) if dev.type == "cpu" else (4, 512, 1024, 16, 4)
    torch.manual_seed(0)
    hd = d // heads

    def param(*shape, scale=1.0):
        return (torch.randn(*shape) * scale).to(dev, dt).requires_grad_()
    p = {"w_norm": param(d, scale=0.1), "w_qkv": param(d, d + 2 * kv_heads * hd, scale=d ** -0.5),
         "w_out": param(d, d, scale=d ** -0.5), "b_out": param(d), "w_ln": param(d), "b_ln": param(d)}
    with torch.no_grad():
        p["w_norm"] += 1
    x, residual = param(b, s, d), param(b, s, d)

    ours = block(x, residual, p, heads, kv_heads, hjt)
    grad = torch.randn_like(ours)
    leaves = [x, residual, *p.values()]
    g_ours = torch.autograd.grad(ours, leaves, grad)
    want = block(x, residual, p, heads, kv_heads, TorchOps)
    g_want = torch.autograd.grad(want, leaves, grad)

    tol = 1e-4 if dt == torch.float32 else 6e-2
    worst = 0.0
    names = ["x", "residual", *p]
    for name, a, w in [("y", ours, want)] + [(f"d{n}", a, w) for n, a, w in zip(names, g_ours, g_want)]:
        err = ((a.float() - w.float()).abs() / (w.float().abs() + 1)).max().item()
        worst = max(worst, err)
        print(f"{name:>8}: max |ours - torch| / (|torch| + 1) = {err:.2e}")
    print(f"{dev.type} {dt}: {'OK' if worst <= tol else 'MISMATCH'} (tolerance {tol}); plans: {hjt.cache_info()}")
    raise SystemExit(0 if worst <= tol else 1)


if __name__ == "__main__":
    main()
