"""test_ops.py — each op family built with the Graph builder, executed on the reference engine
on numpy arrays (fresh random inputs, outputs poisoned with NaN first) and compared element by
element with an independent numpy formula."""
import math

import numpy as np
import pytest

import hipdnn_jit as hj
from conftest import assert_close, poisoned


def f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def run(g, binds):
    g.build(engine="reference")
    g.execute(binds)


def test_pointwise_chain_with_broadcast_and_scalar(rng):
    m, n = int(rng.integers(2, 9)), int(rng.integers(2, 17))
    g = hj.Graph()
    x, b = g.tensor(name="x", dims=[m, n]), g.tensor(name="b", dims=[1, n])
    y = g.gelu(g.mul(g.add(x, b), 0.5)).set_output(True)
    z = g.maximum(g.sub(x, b), g.neg(x)).set_output(True)
    X, B, Y, Z = f32(rng, m, n), f32(rng, 1, n), poisoned((m, n)), poisoned((m, n))
    run(g, {x: X, "b": B, y: Y, z.uid: Z})
    t = (X.astype(np.float64) + B) * 0.5
    erf = np.vectorize(math.erf)
    assert_close(Y, 0.5 * t * (1 + erf(t / math.sqrt(2))), rng, 1e-5, 1e-5, "gelu((x+b)*0.5)")
    assert_close(Z, np.maximum(X.astype(np.float64) - B, -X), rng, 0, 2 ** -23, "max(x-b, -x)")


def test_binary_select_and_compare(rng):
    g = hj.Graph()
    a, b = g.tensor(name="a", dims=[3, 5]), g.tensor(name="b", dims=[3, 5])
    y = g.binary_select(a, b, g.cmp_gt(a, b)).set_output(True)
    A, B, Y = f32(rng, 3, 5), f32(rng, 3, 5), poisoned((3, 5))
    run(g, {a: A, b: B, y: Y})
    assert_close(Y, np.maximum(A, B), rng, 0, 0, "select(a > b, a, b)")


def test_matmul_batched_broadcast(rng):
    bsz, m, k, n = 2, int(rng.integers(3, 9)), int(rng.integers(2, 12)), int(rng.integers(3, 9))
    g = hj.Graph()
    a, b = g.tensor(name="a", dims=[bsz, m, k]), g.tensor(name="b", dims=[1, k, n])
    c = g.matmul(a, b).set_output(True)
    assert c.dims == [bsz, m, n]
    A, B, C = f32(rng, bsz, m, k), f32(rng, 1, k, n), poisoned((bsz, m, n))
    run(g, {a: A, b: B, c: C})
    assert_close(C, A.astype(np.float64) @ B, rng, 1e-5, 1e-5, "A·B")


def conv_ref(x, w, pad, stride):
    n, c, h, wd = x.shape
    k, _, r, s = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    p, q = (h + 2 * pad - r) // stride + 1, (wd + 2 * pad - s) // stride + 1
    y = np.zeros((n, k, p, q))
    for i in range(p):
        for j in range(q):
            patch = xp[:, :, i * stride:i * stride + r, j * stride:j * stride + s]
            y[:, :, i, j] = np.einsum("ncrs,kcrs->nk", patch, w)
    return y


def test_conv_fprop_nhwc_bias_relu(rng):
    n, c, h, w, k = 2, 3, int(rng.integers(4, 8)), int(rng.integers(4, 8)), 4
    X = f32(rng, n, h, w, c).transpose(0, 3, 1, 2)  # NCHW dims, NHWC memory
    W = f32(rng, k, 3, 3, c).transpose(0, 3, 1, 2)
    g = hj.Graph()
    x, wt = g.tensor_like(X, name="x"), g.tensor_like(W, name="w")
    bias = g.tensor(name="bias", dims=[1, k, 1, 1])
    y = g.relu(g.add(g.conv_fprop(x, wt, padding=1, stride=2), bias)).set_output(True)
    p, q = (h + 2 - 3) // 2 + 1, (w + 2 - 3) // 2 + 1
    assert y.dims == [n, k, p, q] and y.strides == [p * q * k, 1, q * k, k], "NHWC in, NHWC out"
    Bias = f32(rng, 1, k, 1, 1)
    Y = poisoned((n, p, q, k)).transpose(0, 3, 1, 2)
    run(g, {x: X, wt: W, bias: Bias, y: Y})
    assert_close(Y, np.maximum(conv_ref(X, W, 1, 2) + Bias, 0), rng, 1e-4, 1e-5, "relu(conv(x, w) + bias)")


def test_conv_dgrad_and_wgrad(rng):
    n, c, h, k = 2, 3, 5, 4
    X, DY, W = f32(rng, n, c, h, h), f32(rng, n, k, h, h), f32(rng, k, c, 3, 3)
    g = hj.Graph()
    x, dy, w = g.tensor_like(X, "x"), g.tensor_like(DY, "dy"), g.tensor_like(W, "w")
    dx = g.conv_dgrad(dy, w, padding=1).set_output(True)
    dw = g.conv_wgrad(x, dy, padding=1).set_output(True)
    assert dx.dims == [n, c, h, h] and dw.dims == [k, c, 3, 3]
    DX, DW = poisoned(dx.shape), poisoned(dw.shape)
    run(g, {x: X, dy: DY, w: W, dx: DX, dw: DW})
    # dX = conv(dY, W flipped, channels swapped); dW[k,c,r,s] = sum x_pad[n,c,i+r,j+s] dy[n,k,i,j]
    wf = W[:, :, ::-1, ::-1].transpose(1, 0, 2, 3)
    assert_close(DX, conv_ref(DY, wf, 1, 1), rng, 1e-4, 1e-5, "dgrad")
    xp = np.pad(X.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((k, c, 3, 3))
    for r in range(3):
        for s in range(3):
            ref[:, :, r, s] = np.einsum("ncij,nkij->kc", xp[:, :, r:r + h, s:s + h], DY)
    assert_close(DW, ref, rng, 1e-4, 1e-5, "wgrad")


@pytest.mark.parametrize("training", [False, True])
def test_layernorm(rng, training):
    rows, hid = int(rng.integers(2, 9)), int(rng.integers(4, 33))
    g = hj.Graph()
    x = g.tensor(name="x", dims=[rows, hid])
    scale, bias = g.tensor(name="scale", dims=[1, hid]), g.tensor(name="bias", dims=[1, hid])
    y, mean, inv = g.layernorm(x, scale, bias, 1e-5, training=training)
    y.set_output(True)
    X, S, B = f32(rng, rows, hid), f32(rng, 1, hid), f32(rng, 1, hid)
    binds = {x: X, scale: S, bias: B, y: poisoned((rows, hid))}
    if training:
        assert mean.dims == [rows, 1] and inv.dims == [rows, 1]
        mean.set_output(True), inv.set_output(True)
        binds.update({mean: poisoned((rows, 1)), inv: poisoned((rows, 1))})
    else:
        assert mean is None and inv is None
    run(g, binds)
    x64 = X.astype(np.float64)
    mu, var = x64.mean(1, keepdims=True), x64.var(1, keepdims=True)
    r = 1 / np.sqrt(var + 1e-5)
    assert_close(binds[y], (x64 - mu) * r * S + B, rng, 1e-5, 1e-5, "layernorm y")
    if training:
        assert_close(binds[mean], mu, rng, 1e-6, 1e-5, "mean")
        assert_close(binds[inv], r, rng, 1e-5, 1e-5, "inv_variance")


def test_residual_rmsnorm(rng):
    b, s, hid = 2, int(rng.integers(2, 6)), int(rng.integers(4, 33))
    g = hj.Graph()
    x, res = g.tensor(name="x", dims=[b, s, hid]), g.tensor(name="residual", dims=[b, s, hid])
    scale = g.tensor(name="scale", dims=[1, 1, hid])
    h = g.add(x, res).set_output(True)
    y, inv = g.rmsnorm(h, scale, 1e-6, training=True)
    y.set_output(True), inv.set_output(True)
    X, R, S = f32(rng, b, s, hid), f32(rng, b, s, hid), f32(rng, 1, 1, hid)
    H, Y, INV = poisoned((b, s, hid)), poisoned((b, s, hid)), poisoned((b, s, 1))
    run(g, {x: X, res: R, scale: S, h: H, y: Y, inv: INV})
    h64 = X.astype(np.float64) + R
    r = 1 / np.sqrt((h64 ** 2).mean(-1, keepdims=True) + 1e-6)
    assert_close(H, h64, rng, 0, 1e-7, "x + residual")
    assert_close(INV, r, rng, 1e-5, 1e-5, "inv_rms")
    assert_close(Y, h64 * r * S, rng, 1e-5, 1e-5, "rmsnorm y")


def test_batchnorm_inference_and_training(rng):
    n, c, h = 2, 3, int(rng.integers(2, 6))
    X, S, B = f32(rng, n, c, h, h), f32(rng, 1, c, 1, 1), f32(rng, 1, c, 1, 1)
    M, V = f32(rng, 1, c, 1, 1), rng.uniform(0.5, 2, (1, c, 1, 1)).astype(np.float32)
    g = hj.Graph()
    x, s, b = g.tensor_like(X, "x"), g.tensor_like(S, "scale"), g.tensor_like(B, "bias")
    m, v = g.tensor_like(M, "mean"), g.tensor_like(V, "inv_var")
    y_inf = g.batchnorm_inference(x, m, v, s, b).set_output(True)
    y, mean, inv, _, _ = g.batchnorm(x, s, b, 1e-5)
    for t in (y, mean, inv):
        t.set_output(True)
    out = {t: poisoned(t.shape) for t in (y_inf, y, mean, inv)}
    run(g, {x: X, s: S, b: B, m: M, v: V, **out})
    x64 = X.astype(np.float64)
    assert_close(out[y_inf], (x64 - M) * V * S + B, rng, 1e-5, 1e-5, "batchnorm inference")
    mu = x64.mean((0, 2, 3), keepdims=True)
    r = 1 / np.sqrt(x64.var((0, 2, 3), keepdims=True) + 1e-5)
    assert_close(out[mean], mu, rng, 1e-6, 1e-5, "batch mean")
    assert_close(out[inv], r, rng, 1e-5, 1e-5, "batch inv_variance")
    assert_close(out[y], (x64 - mu) * r * S + B, rng, 1e-5, 1e-5, "batchnorm training y")


def sdpa_ref(q, k, v, scale, bias=None, causal=False):
    s = np.einsum("bhqd,bhkd->bhqk", q.astype(np.float64), k) * scale
    if bias is not None:
        s = s + bias
    if causal:
        sq, sk = s.shape[-2:]
        s = np.where(np.arange(sk)[None, :] <= np.arange(sq)[:, None], s, -np.inf)
    mx = s.max(-1, keepdims=True)
    p = np.exp(s - mx)
    lse = mx + np.log(p.sum(-1, keepdims=True))
    return np.einsum("bhqk,bhkd->bhqd", p / p.sum(-1, keepdims=True), v), lse


def test_sdpa_with_bias_mask_and_causal(rng):
    b, h, sq, sk, d = 2, 2, int(rng.integers(3, 9)), 8, 8
    Q, K, V = f32(rng, b, h, sq, d), f32(rng, b, h, sk, d), f32(rng, b, h, sk, d)
    Bias = f32(rng, 1, 1, sq, sk)
    g = hj.Graph()
    q, k, v, bias = (g.tensor_like(a, n) for a, n in ((Q, "q"), (K, "k"), (V, "v"), (Bias, "bias")))
    scale = 1 / math.sqrt(d)
    o, stats = g.sdpa(q, k, v, attn_scale=scale, attn_mask=bias, causal=True, generate_stats=True)
    o.set_output(True), stats.set_output(True)
    O, L = poisoned(o.shape), poisoned(stats.shape)
    run(g, {q: Q, k: K, v: V, bias: Bias, o: O, stats: L})
    want_o, want_l = sdpa_ref(Q, K, V, scale, Bias, causal=True)
    assert_close(O, want_o, rng, 1e-5, 1e-5, "attention O")
    assert_close(L, want_l, rng, 1e-5, 1e-5, "attention stats (log-sum-exp)")


def test_sdpa_backward_runs_and_matches_finite_differences_direction(rng):
    b, h, s, d = 1, 2, 4, 8
    Q, K, V, DO = (f32(rng, b, h, s, d) for _ in range(4))
    scale = 1 / math.sqrt(d)
    g = hj.Graph()
    q, k, v = g.tensor_like(Q, "q"), g.tensor_like(K, "k"), g.tensor_like(V, "v")
    o, stats = g.sdpa(q, k, v, attn_scale=scale, generate_stats=True)
    o.set_output(True), stats.set_output(True)
    do = g.tensor_like(DO, "do")
    dq, dk, dv = g.sdpa_backward(q, k, v, o, do, stats, attn_scale=scale)
    for t in (dq, dk, dv):
        t.set_output(True)
    out = {t: poisoned(t.shape) for t in (o, stats, dq, dk, dv)}
    run(g, {q: Q, k: K, v: V, do: DO, **out})
    # dV = Pᵀ·dO is exact to check; dQ, dK through the softmax Jacobian
    s64 = np.einsum("bhqd,bhkd->bhqk", Q.astype(np.float64), K) * scale
    p = np.exp(s64 - s64.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    dp = np.einsum("bhqd,bhkd->bhqk", DO.astype(np.float64), V)
    ds = p * (dp - (dp * p).sum(-1, keepdims=True))
    assert_close(out[dv], np.einsum("bhqk,bhqd->bhkd", p, DO), rng, 1e-5, 1e-5, "dV")
    assert_close(out[dq], np.einsum("bhqk,bhkd->bhqd", ds, K) * scale, rng, 1e-5, 1e-5, "dQ")
    assert_close(out[dk], np.einsum("bhqk,bhqd->bhkd", ds, Q) * scale, rng, 1e-5, 1e-5, "dK")


def test_sdpa_score_mod_softcap(rng):
    b, h, s, d, cap = 1, 2, 5, 8, 2.0
    Q, K, V = (f32(rng, b, h, s, d) * 2 for _ in range(3))
    g = hj.Graph()
    q, k, v = g.tensor_like(Q, "q"), g.tensor_like(K, "k"), g.tensor_like(V, "v")

    def softcap(sub, scores):
        return sub.mul(sub.tanh(sub.div(scores, cap)), cap)

    o, _ = g.sdpa(q, k, v, attn_scale=0.5, score_mod=softcap)
    o.set_output(True)
    O = poisoned(o.shape)
    run(g, {q: Q, k: K, v: V, o: O})
    s64 = cap * np.tanh(np.einsum("bhqd,bhkd->bhqk", Q.astype(np.float64), K) * 0.5 / cap)
    p = np.exp(s64 - s64.max(-1, keepdims=True))
    assert_close(O, np.einsum("bhqk,bhkd->bhqd", p / p.sum(-1, keepdims=True), V), rng, 1e-5, 1e-5, "softcap O")


def test_block_scale_quantize_dequantize_round_trip(rng):
    rows, cols, block = 4, 64, 32
    X = f32(rng, rows, cols)
    g = hj.Graph()
    x = g.tensor_like(X, "x")
    yq, sc = g.block_scale_quantize(x, block)
    assert sc.dims == [rows, cols // block]
    y = g.block_scale_dequantize(yq, sc, block).set_output(True)
    Y = poisoned((rows, cols))
    run(g, {x: X, y: Y})
    # MXFP8 E4M3: 3 mantissa bits, so each element within 2^-4 relative of its block's scale range
    assert np.isfinite(Y).all(), "every element written"
    blk_max = np.abs(X).reshape(rows, cols // block, block).max(-1, keepdims=True)
    err = np.abs(Y - X).reshape(rows, cols // block, block)
    assert (err <= blk_max * 2.0 ** -3 + 1e-6).all(), f"quantize error beyond E4M3's step (seed {rng.seed})"
    assert (err > 0).any(), "quantizing to 8 bits changes some value"
