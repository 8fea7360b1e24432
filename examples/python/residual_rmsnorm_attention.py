"""residual_rmsnorm_attention.py — the Python package in a few lines: a residual add + RMSNorm
and a small causal attention, built with hipdnn_jit.Graph, executed on numpy arrays by the
reference engine (host memory), each checked against numpy. Run: python3 examples/python/residual_rmsnorm_attention.py"""
import math

import numpy as np

import hipdnn_jit as hj

rng = np.random.default_rng()
B, S, H, D = 2, 16, 4, 32

# ---- residual add + RMSNorm: y = rmsnorm(x + residual) · scale
g = hj.Graph(name="residual_rmsnorm")
x, res = g.tensor(name="x", dims=[B, S, H * D]), g.tensor(name="residual", dims=[B, S, H * D])
scale = g.tensor(name="scale", dims=[1, 1, H * D])
y, _ = g.rmsnorm(g.add(x, res), scale, epsilon=1e-6)
y.set_output(True)
g.build(engine="reference")
X, R, W = (rng.standard_normal(t.shape).astype(np.float32) for t in (x, res, scale))
Y = np.full(y.shape, np.nan, np.float32)
g.execute({x: X, res: R, scale: W, y: Y})
h = X.astype(np.float64) + R
want = h / np.sqrt((h ** 2).mean(-1, keepdims=True) + 1e-6) * W
print(f"residual + rmsnorm {list(y.shape)} on '{g.engine}': max |y - numpy| = {np.abs(Y - want).max():.2e}")
assert np.allclose(Y, want, atol=1e-5)

# ---- causal attention: o = softmax(q·kᵀ/√D + causal mask) · v
a = hj.Graph(name="attention")
q, k, v = (a.tensor(name=n, dims=[B, H, S, D]) for n in "qkv")
o, _ = a.sdpa(q, k, v, attn_scale=1 / math.sqrt(D), causal=True)
o.set_output(True)
a.build(engine="reference")
Q, K, V = (rng.standard_normal((B, H, S, D)).astype(np.float32) for _ in range(3))
O = np.full(o.shape, np.nan, np.float32)
a.execute({q: Q, k: K, v: V, o: O})
s = np.einsum("bhqd,bhkd->bhqk", Q.astype(np.float64), K) / math.sqrt(D)
s = np.where(np.tril(np.ones((S, S), bool)), s, -np.inf)
p = np.exp(s - s.max(-1, keepdims=True))
want = np.einsum("bhqk,bhkd->bhqd", p / p.sum(-1, keepdims=True), V)
print(f"causal attention {list(o.shape)} on '{a.engine}': max |o - numpy| = {np.abs(O - want).max():.2e}")
assert np.allclose(O, want, atol=1e-5)
print(f"graph key {a.validate()}; JSON: {len(a.to_json())} bytes (hipdnn_jit.Graph.from_json reads it back)")
