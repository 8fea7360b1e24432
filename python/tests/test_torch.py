"""test_torch.py — hipdnn_jit.torch, the PyTorch custom ops (skipped without torch): on CPU tensors
(the reference engine) and, marked gpu, on CUDA tensors (the JIT engines). Each op's forward per
element against float64 torch math (outputs NaN-poisoned first, so an unwritten element fails),
its gradients against torch autograd of that math for a random upstream gradient, a float64
gradcheck on CPU, torch.library.opcheck (schema, fake impl, autograd registration), a small
attention block under torch.compile(fullgraph=True) against eager, plan caching, clear errors,
and that every bf16/fp16 graph the ops build is taken by a GPU engine (compile-only for sm_90)."""
import math
import subprocess
import sys

import pytest

from conftest import assert_close

torch = pytest.importorskip("torch")
hjt = pytest.importorskip("hipdnn_jit.torch")
F = torch.nn.functional
from hipdnn_jit import _torch_norm, _torch_plans, _torch_sdpa  # noqa: E402  (after the importorskip)

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]
# (forward atol/rtol, gradient atol/rtol) per dtype: fp32 I/O on the reference engine is one
# rounding per stored element; bf16 on the GPU rounds inputs, intermediates of matmuls and outputs
TOL = {torch.float32: ((2e-5, 2e-5), (1e-4, 1e-4)), torch.bfloat16: ((3e-2, 2e-2), (6e-2, 4e-2))}


@pytest.fixture(autouse=True)
def poison(monkeypatch):
    monkeypatch.setattr(_torch_plans, "POISON", True)


def dtype_for(device):
    return torch.float32 if device == "cpu" else torch.bfloat16  # the GPU engines take bf16/fp16 matmuls


def randn(rng, *shape, device="cpu", dtype=torch.float32, scale=1.0):
    return (torch.from_numpy(rng.standard_normal(shape)) * scale).to(device=device, dtype=dtype).requires_grad_()


def check(got, want, rng, tol, what):
    assert_close(got.detach().double().cpu().numpy(), want.detach().double().cpu().numpy(), rng, *tol, what)


def compare(fn, ref, inputs, rng, dtype, what, grad_atol=None):
    """Runs fn on inputs and ref on their float64 copies; compares outputs and the gradients of
    sum(out · G) for a random G, element by element. grad_atol(ref_inputs, G) may give per-input
    arrays of absolute tolerances (None: the dtype's) for gradients that are long sums."""
    outs = fn(*inputs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    ref_in = [t.detach().cpu().double().requires_grad_(t.requires_grad) if t is not None else None
              for t in inputs]  # float64 on the CPU: the reference is torch's own math
    refs = ref(*ref_in)
    refs = refs if isinstance(refs, tuple) else (refs,)
    fwd_tol, grad_tol = TOL[dtype]
    for i, (o, r) in enumerate(zip(outs, refs)):
        check(o, r, rng, fwd_tol, f"{what} output {i}")
    gs = [torch.from_numpy(rng.standard_normal(tuple(o.shape))) for o in outs]
    torch.autograd.backward(outs, [g.to(o.device, o.dtype) for g, o in zip(gs, outs)])
    torch.autograd.backward(refs, gs)
    atols = grad_atol(ref_in, gs) if grad_atol is not None else [None] * len(inputs)
    for i, (t, r) in enumerate(zip(inputs, ref_in)):
        if t is not None and t.requires_grad:
            assert t.grad is not None, f"{what}: no gradient for input {i}"
            tol = grad_tol if atols[i] is None else (atols[i], grad_tol[1])
            check(t.grad, r.grad, rng, tol, f"{what} d(input {i})")


def rms_ref(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


# ---------------------------------------------------------------- norms
@pytest.mark.parametrize("device", DEVICES)
def test_rms_norm(rng, device):
    dt = dtype_for(device)
    n = 64 if device == "cuda" else int(rng.integers(3, 40))
    x, w = randn(rng, 2, 3, n, device=device, dtype=dt), randn(rng, n, device=device, dtype=dt)
    compare(lambda x, w: hjt.rms_norm(x, w, 1e-6), lambda x, w: rms_ref(x, w, 1e-6), [x, w], rng, dt, "rms_norm")


@pytest.mark.parametrize("device", DEVICES)
def test_add_rms_norm_both_outputs(rng, device):
    dt = dtype_for(device)
    n = 64 if device == "cuda" else int(rng.integers(3, 40))
    x, r, w = (randn(rng, *s, device=device, dtype=dt) for s in ((4, n), (4, n), (n,)))

    def ref(x, r, w):
        h = x + r
        return rms_ref(h, w, 1e-5), h
    compare(lambda x, r, w: hjt.add_rms_norm(x, r, w, 1e-5), ref, [x, r, w], rng, dt, "add_rms_norm")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("with_bias", [True, False])
def test_layer_norm(rng, device, with_bias):
    dt = dtype_for(device)
    n = 64 if device == "cuda" else int(rng.integers(3, 40))
    x, w = randn(rng, 3, 2, n, device=device, dtype=dt), randn(rng, n, device=device, dtype=dt)
    b = randn(rng, n, device=device, dtype=dt) if with_bias else None
    compare(lambda x, w, b: hjt.layer_norm(x, w, b, 1e-5), lambda x, w, b: F.layer_norm(x, (n,), w, b, 1e-5),
            [x, w, b], rng, dt, "layer_norm")


# ---------------------------------------------------------------- matmul_bias_act
_ACT_REF = {"none": lambda z: z, "relu": F.relu, "gelu": F.gelu, "gelu_tanh": lambda z: F.gelu(z, approximate="tanh"),
            "silu": F.silu}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("act", sorted(_ACT_REF))
def test_matmul_bias_act(rng, device, act):
    dt = dtype_for(device)
    m, k, n = (5, 24, 16) if device == "cpu" else (200, 128, 64)
    x = randn(rng, 2, m, k, device=device, dtype=dt)
    w = randn(rng, k, n, device=device, dtype=dt, scale=k ** -0.5)
    b = randn(rng, n, device=device, dtype=dt)
    compare(lambda x, w, b: hjt.matmul_bias_act(x, w, b, act), lambda x, w, b: _ACT_REF[act](x @ w + b),
            [x, w, b], rng, dt, f"matmul_bias_act {act}",
            grad_atol=None if dt == torch.float32 else lambda r, gs: matmul_grad_atol(r, gs[0], act))


def matmul_grad_atol(ref_in, g, act, eps=2.0 ** -8):
    """Per-element absolute tolerances of bf16 matmul gradients. Each is a sum of products whose
    factors were rounded to bf16 twice on our side (the upstream gradient G on its way in, dZ
    before its matmuls: 2^-9 relative each), so its error is bounded by 2^-8 of the sum of
    |terms|, not of the result, which can cancel: dX = dZ·Wᵀ -> eps·|dZ|·|W|ᵀ,
    dW = Xᵀ·dZ -> eps·|X|ᵀ·|dZ|, db = Σ dZ -> eps·Σ|dZ| (fp32 accumulation adds little; the
    result's own rounding is the relative tolerance). dZ comes from float64 autograd."""
    x, w, b = (t.detach() for t in ref_in)
    z = (x @ w + b).requires_grad_()
    _ACT_REF[act](z).backward(g)
    dz, x2 = z.grad.reshape(-1, w.shape[1]).abs(), x.reshape(-1, w.shape[0]).abs()
    return [(eps * (dz @ w.abs().t())).reshape(x.shape).numpy() + 1e-3, (eps * (x2.t() @ dz)).numpy() + 1e-3,
            (eps * dz.sum(0)).numpy() + 1e-3]


@pytest.mark.parametrize("device", DEVICES)
def test_matmul_linear_weight_view_without_bias(rng, device):
    """An nn.Linear weight [N, K] passed as weight.t() (a column-major view), no bias."""
    dt = dtype_for(device)
    lin = torch.nn.Linear(32, 16, bias=False).to(device=device, dtype=dt)
    x = randn(rng, 7, 32, device=device, dtype=dt)
    compare(lambda x, w: hjt.matmul_bias_act(x, w.t(), None, "relu"), lambda x, w: F.relu(x @ w.t()),
            [x, lin.weight], rng, dt, "relu(linear(x))")


# ---------------------------------------------------------------- attention
def sdpa_ref(q, k, v, mask=None, causal=False, align="top_left", left=None, right=None, seq_q=None, seq_kv=None,
             scale=None, keep=None, p=0.0):
    """float64 attention with the library's mask semantics; rows with every key masked give 0."""
    b, hq, sq, d = q.shape
    skv = k.shape[2]
    k, v = k.repeat_interleave(hq // k.shape[1], 1), v.repeat_interleave(hq // v.shape[1], 1)
    s = q @ k.transpose(-1, -2) * (scale if scale is not None else 1 / math.sqrt(d))
    if mask is not None:
        s = s + mask
    i, j = torch.arange(sq)[:, None], torch.arange(skv)[None, :]
    shift = 0 if align == "top_left" else skv - sq
    right = 0 if causal and right is None else right
    masked = torch.zeros(b, 1, sq, skv, dtype=torch.bool)
    if right is not None:
        masked |= j > i + shift + right
    if left is not None:
        masked |= j <= i + shift - left
    if seq_q is not None:
        for bi in range(b):
            masked[bi] |= (i >= int(seq_q[bi])) | (j >= int(seq_kv[bi]))
    masked = masked.to(s.device)
    dead = masked.all(-1, keepdim=True)
    pr = torch.softmax(s.masked_fill(masked, float("-inf")).masked_fill(dead, 0.0), -1) * ~dead
    if keep is not None:
        pr = pr * keep / (1 - p)
    return pr @ v


SDPA_CASES = {  # name: (Hq, Hk, Sq, Skv, options)
    "plain": (2, 2, 5, 7, {}),
    "causal_top_left": (2, 2, 6, 6, {"is_causal": True}),
    "causal_bottom_right": (2, 2, 3, 7, {"is_causal": True, "diagonal_alignment": "bottom_right"}),
    "sliding_window": (2, 2, 7, 7, {"left_bound": 3, "right_bound": 1}),
    "gqa_causal": (4, 2, 5, 5, {"is_causal": True, "enable_gqa": True}),
    "scale": (2, 1, 4, 6, {"scale": 0.3, "enable_gqa": True}),
}


def _lens(rng, b, s):
    return torch.tensor(rng.integers(1, s + 1, size=b), dtype=torch.int32)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", sorted(SDPA_CASES))
def test_sdpa(rng, device, case):
    hq, hk, sq, skv, opts = SDPA_CASES[case]
    dt = dtype_for(device)
    if device == "cuda":
        sq, skv = sq * 37, skv * 37
    b, d = 2, 16 if device == "cpu" else 64
    q, k, v = (randn(rng, b, h, s, d, device=device, dtype=dt) for h, s in ((hq, sq), (hk, skv), (hk, skv)))
    ref_opts = {"causal": opts.get("is_causal", False), "align": opts.get("diagonal_alignment", "top_left"),
                "left": opts.get("left_bound"), "right": opts.get("right_bound"), "scale": opts.get("scale")}
    compare(lambda q, k, v: hjt.scaled_dot_product_attention(q, k, v, **opts),
            lambda q, k, v: sdpa_ref(q, k, v, **ref_opts), [q, k, v], rng, dt, f"sdpa {case}")


@pytest.mark.parametrize("device", DEVICES)
def test_sdpa_additive_mask_gets_its_gradient(rng, device):
    dt = dtype_for(device)
    b, h, sq, skv, d = 2, 2, 5, 6, 8
    q, k, v = (randn(rng, b, h, s, d, device=device, dtype=dt) for s in (sq, skv, skv))
    mask = randn(rng, 1, h, sq, skv, device=device, dtype=dt)
    compare(lambda q, k, v, m: hjt.scaled_dot_product_attention(q, k, v, m),
            lambda q, k, v, m: sdpa_ref(q, k, v, m), [q, k, v, mask], rng, dt, "sdpa + bias")


@pytest.mark.parametrize("device", DEVICES)
def test_sdpa_bool_mask_and_torch_agree(rng, device):
    dt = dtype_for(device)
    b, h, sq, skv, d = 1, 2, 6, 6, 8
    q, k, v = (randn(rng, b, h, s, d, device=device, dtype=dt) for s in (sq, skv, skv))
    keep = torch.from_numpy(rng.random((sq, skv)) < 0.7).to(device)
    keep[:, 0] = True  # every row keeps a key (torch gives NaN for a row with none)
    got = hjt.scaled_dot_product_attention(q, k, v, keep)
    want = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), keep)
    check(got, want, rng, TOL[dt][0], "sdpa with a bool mask vs torch")


@pytest.mark.parametrize("device", DEVICES)
def test_sdpa_padding_seq_lens(rng, device):
    dt = dtype_for(device)
    b, h, sq, skv, d = 3, 2, 5, 7, 8
    q, k, v = (randn(rng, b, h, s, d, device=device, dtype=dt) for s in (sq, skv, skv))
    lq, lkv = _lens(rng, b, sq), _lens(rng, b, skv)
    compare(lambda q, k, v: hjt.scaled_dot_product_attention(q, k, v, seq_len_q=lq.to(device),
                                                             seq_len_kv=lkv.to(device)),
            lambda q, k, v: sdpa_ref(q, k, v, seq_q=lq, seq_kv=lkv), [q, k, v], rng, dt, "sdpa padding")


def test_sdpa_dropout_keeps_probabilities_and_backward_matches(rng):
    """With V = I (Skv = Dv) O is the dropped probability matrix itself: every element is 0 or
    P/(1−p). The same seed then gives the same mask for a random V, forward and backward."""
    b, h, s, d, p = 1, 2, 8, 8, 0.4
    q, k = randn(rng, b, h, s, d), randn(rng, b, h, s, d)
    seed = torch.tensor([int(rng.integers(1, 2**40)), int(rng.integers(0, 2**20))], dtype=torch.int64)
    eye = torch.eye(s).expand(b, h, s, s).contiguous()

    def run(q, k, v):
        return _torch_sdpa.sdpa_op(q, k, v, None, p, False, 1 / math.sqrt(d), "top_left", None, None, None, None,
                                   seed)[0]
    o = run(q, k, eye)
    probs = torch.softmax(q.double() @ k.double().transpose(-1, -2) / math.sqrt(d), -1)
    keep = (o != 0).double()
    frac = keep.mean().item()
    assert 0.25 < frac < 0.95, f"kept fraction {frac} for p = {p} (seed {rng.seed})"
    check(o, probs * keep / (1 - p), rng, (1e-6, 1e-5), "dropped P")
    assert torch.equal(run(q, k, eye), o), "the same seed drops the same elements"
    v = randn(rng, b, h, s, d)
    compare(run, lambda q, k, v: sdpa_ref(q, k, v, keep=keep, p=p), [q, k, v], rng, torch.float32, "sdpa dropout")


def test_sdpa_strided_bshd_inputs(rng):
    """Q, K, V as transposed views of [B,S,H,D] projections run without copies."""
    b, s, h, d = 2, 5, 3, 8
    q, k, v = (randn(rng, b, s, h, d).transpose(1, 2) for _ in range(3))
    assert not q.is_contiguous()
    check(hjt.scaled_dot_product_attention(q, k, v, is_causal=True), sdpa_ref(q.double(), k.double(), v.double(),
          causal=True), rng, TOL[torch.float32][0], "sdpa on [B,S,H,D] views")


# ---------------------------------------------------------------- float64 gradcheck (CPU)
def test_gradcheck_float64(rng):
    def r(*s):
        return torch.from_numpy(rng.standard_normal(s)).requires_grad_()
    x, w, b, res = r(2, 6), r(6), r(6), r(2, 6)
    assert torch.autograd.gradcheck(lambda x, w: hjt.rms_norm(x, w), (x, w))
    assert torch.autograd.gradcheck(lambda x, w, b: hjt.layer_norm(x, w, b), (x, w, b))
    assert torch.autograd.gradcheck(lambda x, r, w: hjt.add_rms_norm(x, r, w), (x, res, w))
    W, bb = r(6, 4), r(4)
    assert torch.autograd.gradcheck(lambda x, W, bb: hjt.matmul_bias_act(x, W, bb, "gelu_tanh"), (x, W, bb))
    q, k, v, m = r(1, 2, 3, 4), r(1, 1, 4, 4), r(1, 1, 4, 4), r(1, 2, 3, 4)
    assert torch.autograd.gradcheck(
        lambda q, k, v, m: hjt.scaled_dot_product_attention(q, k, v, m, is_causal=True, enable_gqa=True,
                                                            diagonal_alignment="bottom_right"), (q, k, v, m))


# ---------------------------------------------------------------- opcheck, compile, cache, errors
def _opcheck_cases(rng):
    def r(*s, grad=True):
        return torch.from_numpy(rng.standard_normal(s)).float().requires_grad_(grad)
    ops = torch.ops.hipdnn_jit
    return [(ops.rms_norm.default, (r(3, 8), r(8), 1e-6)),
            (ops.add_rms_norm.default, (r(3, 8), r(3, 8), r(8), 1e-6)),
            (ops.layer_norm.default, (r(3, 8), r(8), r(8), 1e-5)),
            (ops.matmul_bias_act.default, (r(3, 8), r(8, 4), r(4), "silu")),
            (ops.sdpa.default, (r(1, 2, 3, 8), r(1, 2, 4, 8), r(1, 2, 4, 8), None, 0.0, True, 0.35,
                                "bottom_right", None, None, None, None, None))]


@pytest.mark.parametrize("device", DEVICES)
def test_eager_calls_and_the_registered_ops_agree(rng, device, monkeypatch):
    """Eager calls run the op's function directly (an autograd.Function when a gradient is
    needed); with EAGER_DIRECT off they go through torch.library's dispatch. Same outputs and
    gradients either way, element by element, and the direct route really skips the dispatch."""
    dt = dtype_for(device)
    n = 64
    x, r = randn(rng, 4, n, device=device, dtype=dt), randn(rng, 4, n, device=device, dtype=dt)
    w, b = randn(rng, n, device=device, dtype=dt), randn(rng, n, device=device, dtype=dt)
    q, k, v = (randn(rng, 1, 2, 16, n, device=device, dtype=dt) for _ in range(3))
    cases = {"rms_norm": (lambda x, r, w, b: hjt.rms_norm(x, w), [x, None, w, None]),
             "add_rms_norm": (lambda x, r, w, b: hjt.add_rms_norm(x, r, w), [x, r, w, None]),
             "layer_norm": (lambda x, r, w, b: hjt.layer_norm(x, w, b), [x, None, w, b]),
             "sdpa": (lambda q, k, v: hjt.scaled_dot_product_attention(q, k, v, is_causal=True), [q, k, v])}
    for name, (fn, inputs) in cases.items():
        got = {}
        for direct in (True, False):
            monkeypatch.setattr(_torch_plans, "EAGER_DIRECT", direct)
            ins = [t.detach().clone().requires_grad_() if t is not None else None for t in inputs]
            outs = fn(*ins)
            outs = outs if isinstance(outs, tuple) else (outs,)
            torch.autograd.backward(outs, [torch.ones_like(o) for o in outs])
            got[direct] = ([o.detach() for o in outs], [t.grad for t in ins if t is not None])
        for i, (a, c) in enumerate(zip(*[got[True][0] + got[True][1], got[False][0] + got[False][1]])):
            check(a, c, rng, (1e-6, 1e-6) if device == "cpu" else (1e-2, 1e-2), f"{name}: direct vs op, tensor {i}")
    calls = []
    registered = _torch_norm.rms_norm_op.op
    monkeypatch.setattr(_torch_norm.rms_norm_op, "op", lambda *a: calls.append(1) or registered(*a))
    for direct, grad in ((True, False), (True, True), (False, False)):
        monkeypatch.setattr(_torch_plans, "EAGER_DIRECT", direct)
        hjt.rms_norm(x.detach().requires_grad_(grad), w.detach())
    assert len(calls) == 1, f"{len(calls)} calls through the registered op; want only the EAGER_DIRECT=False one"


@pytest.mark.skipif(not hasattr(torch.library, "opcheck"), reason="torch.library.opcheck missing")
def test_opcheck(rng):
    for op, args in _opcheck_cases(rng):
        torch.library.opcheck(op, args)


class Block(torch.nn.Module):
    """rms_norm → qkv projection → causal attention → output projection with gelu → residual."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.norm = torch.nn.Parameter(torch.rand(d) + 0.5)
        self.qkv = torch.nn.Parameter(torch.randn(d, 3 * d) / math.sqrt(d))
        self.out = torch.nn.Parameter(torch.randn(d, d) / math.sqrt(d))
        self.out_bias = torch.nn.Parameter(torch.randn(d))

    def forward(self, x):
        b, s, d = x.shape
        qkv = hjt.matmul_bias_act(hjt.rms_norm(x, self.norm), self.qkv, None)
        q, k, v = qkv.view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        o = hjt.scaled_dot_product_attention(q, k, v, is_causal=True)
        return x + hjt.matmul_bias_act(o.transpose(1, 2).reshape(b, s, d), self.out, self.out_bias, "gelu")


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_block_fullgraph(rng, backend):
    torch.manual_seed(int(rng.seed))
    block = Block(16, 2)
    x = randn(rng, 2, 5, 16)
    eager = block(x)
    eager.sum().backward()
    grads = [p.grad.clone() for p in block.parameters()] + [x.grad.clone()]
    for p in list(block.parameters()) + [x]:
        p.grad = None
    torch._dynamo.reset()
    compiled = torch.compile(block, fullgraph=True, backend=backend)
    got = compiled(x)
    check(got, eager, rng, (1e-6, 1e-6), f"compiled ({backend}) vs eager")
    got.sum().backward()
    for i, (p, g) in enumerate(zip(list(block.parameters()) + [x], grads)):
        check(p.grad, g, rng, (1e-6, 1e-6), f"compiled ({backend}) gradient {i}")


def test_plans_are_cached_per_signature(rng):
    x, w = randn(rng, 3, 12), randn(rng, 12)
    hjt.rms_norm(x, w)
    before = hjt.cache_info().get("rms_norm", 0)
    hjt.rms_norm(randn(rng, 3, 12), randn(rng, 12))
    assert hjt.cache_info().get("rms_norm", 0) == before, "same signature: no new plan"
    hjt.rms_norm(randn(rng, 4, 12), w)
    assert hjt.cache_info().get("rms_norm", 0) == before + 1, "new shape: one new plan"


@pytest.mark.parametrize("device", DEVICES)
def test_a_plan_checks_a_layout_once_then_runs_unchecked(rng, device):
    """The second call of a cached plan skips the binding checks (CachedPlan's fast path) and
    still computes the right values; a layout the plan has not checked is checked again, so a
    wrong stride is refused rather than run."""
    dt = dtype_for(device)
    n = 72
    hjt.clear_cache()
    w = randn(rng, n, device=device, dtype=dt).detach()
    for call in range(3):
        x = randn(rng, 5, n, device=device, dtype=dt).detach()
        check(hjt.rms_norm(x, w, 1e-6), rms_ref(x.cpu().double(), w.cpu().double(), 1e-6), rng, TOL[dt][0],
              f"rms_norm call {call}")
    (p,) = _torch_plans._cache.values()
    assert (p.runs, p.checked_runs) == (3, 1), (p.runs, p.checked_runs)
    wide = torch.empty(5, 2 * n, device=device, dtype=dt)[:, :n]  # same shape, row stride 2n
    y, inv = (torch.empty(5, n, device=device, dtype=dt), torch.empty(5, 1, device=device, dtype=torch.float32))
    with pytest.raises(ValueError, match="strides"):
        p.run({"x": wide, "w": w.view(1, n), "y": y, "inv_rms": inv})
    assert p.checked_runs == 1, "a refused layout is not remembered as checked"


def test_clear_errors(rng):
    x, w = randn(rng, 3, 8), randn(rng, 8)
    with pytest.raises(ValueError, match="act 'tanh'"):
        hjt.matmul_bias_act(x, randn(rng, 8, 4), None, "tanh")
    with pytest.raises(ValueError, match=r"weight has shape \(7,\)"):
        hjt.rms_norm(x, randn(rng, 7))
    with pytest.raises(TypeError, match="torch.int32"):
        hjt.rms_norm(x.detach().to(torch.int32), w)
    q = randn(rng, 1, 4, 3, 8)
    with pytest.raises(ValueError, match="enable_gqa"):
        hjt.scaled_dot_product_attention(q, randn(rng, 1, 2, 3, 8), randn(rng, 1, 2, 3, 8))
    with pytest.raises(ValueError, match="attn_mask"):
        hjt.scaled_dot_product_attention(q, q, q, randn(rng, 1, 1, 3, 5))
    with pytest.raises(ValueError, match="seq_len_q and seq_len_kv"):
        hjt.scaled_dot_product_attention(q, q, q, seq_len_q=torch.ones(1, dtype=torch.int32))


def test_import_hipdnn_jit_does_not_import_torch():
    code = "import sys, hipdnn_jit; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_gpu_engines_take_the_bf16_and_fp16_graphs():
    """Builds every graph of the ops compile-only for sm_90 (no GPU needed): the JIT engines
    accept them (forward and backward; fp32 matmul / attention they do not: see README)."""
    import hipdnn_jit as hj
    from hipdnn_jit import _torch_matmul as MM, _torch_norm as N
    try:
        hj.set_compile_target("sm_90")
    except hj.HipdnnError as e:
        pytest.skip(f"no compile-only target here: {e}")
    try:
        for dt in (torch.bfloat16, torch.float16):
            m, n = 100, 64
            x, w, inv = torch.ones(m, n, dtype=dt), torch.ones(1, n, dtype=dt), torch.ones(m, 1)
            W, b, dy = torch.ones(n, 32, dtype=dt), torch.ones(1, 32, dtype=dt), torch.ones(m, 32, dtype=dt)
            q, k = torch.ones(1, 4, 64, 64, dtype=dt), torch.ones(1, 2, 80, 64, dtype=dt)
            opts = (0.0, True, 0.125, "bottom_right", None, None)
            fwd = _torch_sdpa._inputs(q, k, k, None, 0.0, None, None, None)
            bwd = dict(fwd, o=q, do=q, stats=torch.ones(1, 4, 64, 1))
            graphs = {"rms_norm": N._rms_fwd_graph(x, w, 1e-6), "add_rms_norm": N._rms_fwd_graph(x, w, 1e-6, x),
                      "rms_norm_backward": N._rms_bwd_graph(x, x, w, inv, x),
                      "layer_norm": N._ln_fwd_graph(x, w, w, 1e-5),
                      "layer_norm_backward": N._ln_bwd_graph(x, x, w, inv, inv, True),
                      "matmul_bias_act": MM._fwd_graph({"x": x, "w": W, "b": b}, "gelu"),
                      "transpose": MM._transpose_graph(x, MM.transposed_buffer(x)),
                      "matmul_bias_act_backward": MM._bwd_graph({"dy": dy, "x": x, "w": W, "xt": MM.transposed_buffer(x),
                                                                 "wt": W.t(), "b": b}, "silu"),
                      "sdpa": _torch_sdpa._fwd_graph(fwd, opts), "sdpa_backward": _torch_sdpa._bwd_graph(bwd, opts, False)}
            for name, (g, _, _) in graphs.items():
                _torch_plans._build(g, torch.device("cuda"), f"{name} {dt}")
                assert g.engine in ("jit_fused", "jit_unfused"), (name, g.engine)
    finally:
        hj.set_compile_target(None)
