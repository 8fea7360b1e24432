#!/usr/bin/env python3
"""torch_block.py — the attention half of a transformer block through hipdnn_jit.torch, checked
against the same block in float64 (forward and gradients, element by element), beside plain
PyTorch in the same dtype: on CUDA, ours must be within twice PyTorch's own bf16 error.

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

    leaves = [x, residual, *p.values()]
    ours = block(x, residual, p, heads, kv_heads, hjt)
    grad = torch.randn_like(ours)
    g_ours = torch.autograd.grad(ours, leaves, grad)
    torch_same = block(x, residual, p, heads, kv_heads, TorchOps)  # PyTorch in the same dtype
    g_torch = torch.autograd.grad(torch_same, leaves, grad)
    # the reference: the same block in float64 on the CPU
    leaves64 = [t.detach().cpu().double().requires_grad_() for t in leaves]
    p64 = dict(zip(p, leaves64[2:]))
    ref = block(leaves64[0], leaves64[1], p64, heads, kv_heads, TorchOps)
    g_ref = torch.autograd.grad(ref, leaves64, grad.cpu().double())

    def err(a, r):
        """max over elements of |a − r| / (|r| + 1% of max |r|): per element, with a floor for
        the elements of a long sum that cancel to near zero."""
        a, r = a.detach().cpu().double(), r.detach()
        return ((a - r).abs() / (r.abs() + 0.01 * r.abs().max() + 1e-30)).max().item()

    # fp32 on the reference engine: a fixed bound; bf16: no worse than twice PyTorch's own bf16
    names = ["x", "residual", *p]
    ok = True
    print(f"{'':>10}  error vs float64 (max |a − ref| / (|ref| + 1% max|ref|)): ours, PyTorch {dt}")
    for name, a, t, r in [("y", ours, torch_same, ref)] + [(f"d{n}", *v) for n, *v in zip(names, g_ours, g_torch, g_ref)]:
        e_ours, e_torch = err(a, r), err(t, r)
        bound = 1e-4 if dt == torch.float32 else max(2 * e_torch, 1e-2)
        ok &= e_ours <= bound
        print(f"{name:>10}  {e_ours:.2e}  {e_torch:.2e}{'' if e_ours <= bound else f'  > bound {bound:.2e}'}")
    print(f"{dev.type} {dt}: {'OK' if ok else 'MISMATCH'}; plans: {hjt.cache_info()}")
    raise SystemExit(0 if ok else 1)

if __name__ == "__main__":
    main()
