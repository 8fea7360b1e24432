"""_torch_sdpa.py — the attention custom ops of hipdnn_jit.torch: hipdnn_jit::sdpa (forward: O and
the softmax statistics) and hipdnn_jit::sdpa_backward (dQ, dK, dV and the mask's gradient), their
fake implementations and the autograd registration that joins them.

Shapes: Q [B,Hq,Sq,D], K [B,Hk,Skv,D], V [B,Hk,Skv,Dv] (Hk divides Hq), O [B,Hq,Sq,Dv] (packed),
stats [B,Hq,Sq,1] FLOAT (log-sum-exp; the forward saves it with O for the backward), mask
[1|B,1|Hq,1|Sq,1|Skv] additive, seq lens [B] → [B,1,1,1] INT32, rng [2] INT64 (Philox seed,
offset). Q, K, V and dO keep their strides (any stride order the library takes).
Does not own: the plan cache (_torch_plans.py) or the public wrapper (torch.py).
"""
from typing import Optional

import torch
from torch import Tensor

from . import _torch_plans as P
from .graph import Graph
from .tensor import packed_strides


def additive_mask(mask, q):
    """attn_mask as a 4-D additive mask: bool (True = attend) becomes 0 / −inf in Q's dtype;
    leading dims are added; expanded (stride-0) dims are cut to size 1."""
    if mask.dtype == torch.bool:
        mask = torch.zeros((), dtype=q.dtype, device=mask.device).masked_fill(~mask, float("-inf"))
    if mask.dim() > 4:
        raise ValueError(f"hipdnn_jit.torch: attn_mask of shape {tuple(mask.shape)} has more than 4 dims")
    while mask.dim() < 4:
        mask = mask.unsqueeze(0)
    for d in range(4):
        if mask.stride(d) == 0 and mask.shape[d] > 1:
            mask = mask.narrow(d, 0, 1)
    return mask


def _dense(t):
    """t itself unless a stride is 0 (an expanded tensor): then a contiguous copy."""
    return t.contiguous() if any(s == 0 and n > 1 for s, n in zip(t.stride(), t.shape)) else t


def _check(q, k, v, mask, seq_len_q, seq_len_kv):
    if q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
        raise ValueError(f"hipdnn_jit.torch: sdpa needs 4-D [B,H,S,D] query, key, value; got "
                         f"{tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}")
    if not (q.dtype == k.dtype == v.dtype):
        raise TypeError(f"hipdnn_jit.torch: sdpa: query, key, value dtypes differ ({q.dtype}, {k.dtype}, {v.dtype})")
    (b, hq, sq, d), (bk, hk, skv, dk), (bv, hv, sv, _) = q.shape, k.shape, v.shape
    if bk != b or bv != b or dk != d or sv != skv or hv != hk or hq % hk:
        raise ValueError(f"hipdnn_jit.torch: sdpa shapes do not fit: query {tuple(q.shape)}, key {tuple(k.shape)}, "
                         f"value {tuple(v.shape)} (same B, D, Skv; Hk = Hv dividing Hq)")
    if mask is not None:
        full = (b, hq, sq, skv)
        if mask.dim() != 4 or any(m not in (1, f) for m, f in zip(mask.shape, full)):
            raise ValueError(f"hipdnn_jit.torch: attn_mask {tuple(mask.shape)} does not broadcast to {full}")
    if (seq_len_q is None) != (seq_len_kv is None):
        raise ValueError("hipdnn_jit.torch: padding needs both seq_len_q and seq_len_kv")


def _lens(t, b):
    if t is None:
        return None
    if t.numel() != b or t.is_floating_point():
        raise ValueError(f"hipdnn_jit.torch: sequence lengths must be {b} integers, got {tuple(t.shape)} {t.dtype}")
    return t.to(torch.int32).contiguous().view(b, 1, 1, 1)


def _rng_parts(rng, dropout_p):
    if dropout_p <= 0.0:
        return None, None
    if rng is None or rng.numel() != 2 or rng.dtype != torch.int64:
        raise ValueError("hipdnn_jit.torch: dropout needs rng, an int64 tensor [2] (seed, offset)")
    rng = rng.contiguous()
    return rng[0:1].view(1, 1, 1, 1), rng[1:2].view(1, 1, 1, 1)


def _options(g, t, dropout_p, is_causal, scale, alignment, left_bound, right_bound):
    """Keyword arguments shared by g.sdpa and g.sdpa_backward, from the input tensors t."""
    return dict(attn_scale=scale, causal=is_causal, diagonal_alignment=alignment, left_bound=left_bound,
                right_bound=right_bound, attn_mask=t.get("mask"), seq_len_q=t.get("seq_q"),
                seq_len_kv=t.get("seq_kv"), dropout_probability=dropout_p if dropout_p > 0 else None,
                seed=t.get("seed"), offset=t.get("offset"))


def _graph(name, arrays):
    io = P.data_type(arrays["q"], "query")
    compute, inter = P.compute_types(io)
    g = Graph(name, io_data_type=io, compute_data_type=compute, intermediate_data_type=inter)
    t = {}
    for n, a in arrays.items():
        if a is not None:
            dt = "int32" if n.startswith("seq") else "int64" if n in ("seed", "offset") else P.data_type(a, n)
            t[n] = g.tensor_like(a, name=n, data_type=dt)
    return g, t


def _packed_output(t, name, tensors):
    t.set_output(True).set_name(name).set_strides(packed_strides(t.dims))
    tensors[name] = t


def _fwd_graph(arrays, opts):
    g, t = _graph("sdpa", arrays)
    o, stats = g.sdpa(t["q"], t["k"], t["v"], generate_stats=True, **_options(g, t, *opts))
    _packed_output(o, "o", t)
    _packed_output(stats, "stats", t)
    return g, t, {}


def _inputs(q, k, v, attn_mask, dropout_p, seq_len_q, seq_len_kv, rng):
    _check(q, k, v, attn_mask, seq_len_q, seq_len_kv)
    b = q.shape[0]
    seed, offset = _rng_parts(rng, dropout_p)
    return {"q": _dense(q), "k": _dense(k), "v": _dense(v),
            "mask": None if attn_mask is None else attn_mask.contiguous(),
            "seq_q": _lens(seq_len_q, b), "seq_kv": _lens(seq_len_kv, b), "seed": seed, "offset": offset}


@P.custom_op("hipdnn_jit::sdpa")
def sdpa_op(q: Tensor, k: Tensor, v: Tensor, attn_mask: Optional[Tensor], dropout_p: float, is_causal: bool,
            scale: float, diagonal_alignment: str, left_bound: Optional[int], right_bound: Optional[int],
            seq_len_q: Optional[Tensor], seq_len_kv: Optional[Tensor],
            rng: Optional[Tensor]) -> tuple[Tensor, Tensor]:
    """(O [B,Hq,Sq,Dv], stats [B,Hq,Sq,1] FLOAT) of attention; see hipdnn_jit.torch for the options."""
    dev = P.check_devices(("query", q), ("key", k), ("value", v), ("attn_mask", attn_mask),
                          ("seq_len_q", seq_len_q), ("seq_len_kv", seq_len_kv), ("rng", rng))
    arrays = _inputs(q, k, v, attn_mask, dropout_p, seq_len_q, seq_len_kv, rng)
    opts = (dropout_p, is_causal, scale, diagonal_alignment, left_bound, right_bound)
    p = P.plan(P.signature(*arrays.values(), *opts), dev, lambda: _fwd_graph(arrays, opts), "sdpa")
    b, hq, sq, _ = q.shape
    o = P.empty((b, hq, sq, v.shape[3]), q.dtype, dev)
    stats = P.empty((b, hq, sq, 1), torch.float32, dev)
    p.run({**arrays, "o": o, "stats": stats})
    return o, stats


@sdpa_op.register_fake
def _(q, k, v, attn_mask, dropout_p, is_causal, scale, diagonal_alignment, left_bound, right_bound,
      seq_len_q, seq_len_kv, rng):
    b, hq, sq, _ = q.shape
    return q.new_empty((b, hq, sq, v.shape[3])), q.new_empty((b, hq, sq, 1), dtype=torch.float32)


def _bwd_graph(arrays, opts, want_dbias):
    g, t = _graph("sdpa_backward", arrays)
    grads = g.sdpa_backward(t["q"], t["k"], t["v"], t["o"], t["do"], t["stats"], dbias=want_dbias,
                            **_options(g, t, *opts))
    for name, grad in zip(("dq", "dk", "dv", "dbias"), grads):
        _packed_output(grad, name, t)
    return g, t, {}


@P.custom_op("hipdnn_jit::sdpa_backward")
def sdpa_backward_op(do: Tensor, q: Tensor, k: Tensor, v: Tensor, o: Tensor, stats: Tensor,
                     attn_mask: Optional[Tensor], dropout_p: float, is_causal: bool, scale: float,
                     diagonal_alignment: str, left_bound: Optional[int], right_bound: Optional[int],
                     seq_len_q: Optional[Tensor], seq_len_kv: Optional[Tensor], rng: Optional[Tensor],
                     want_dbias: bool) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(dQ, dK, dV, dMask) of sdpa from the forward's O and stats; dMask is empty unless want_dbias."""
    dev = P.check_devices(("grad", do), ("query", q), ("key", k), ("value", v), ("attn_mask", attn_mask))
    if want_dbias and attn_mask is None:
        raise ValueError("hipdnn_jit.torch: sdpa_backward: want_dbias needs attn_mask")
    arrays = _inputs(q, k, v, attn_mask, dropout_p, seq_len_q, seq_len_kv, rng)
    arrays.update({"o": _dense(o), "do": _dense(do), "stats": stats.contiguous()})
    opts = (dropout_p, is_causal, scale, diagonal_alignment, left_bound, right_bound)
    p = P.plan(P.signature(*arrays.values(), *opts, want_dbias), dev, lambda: _bwd_graph(arrays, opts, want_dbias),
               "sdpa_backward")
    dq, dk, dv = (P.empty(t.shape, t.dtype, dev) for t in (q, k, v))
    db = P.empty(attn_mask.shape if want_dbias else (0,), q.dtype if not want_dbias else attn_mask.dtype, dev)
    p.run({**arrays, "dq": dq, "dk": dk, "dv": dv, "dbias": db if want_dbias else None})
    return dq, dk, dv, db


@sdpa_backward_op.register_fake
def _(do, q, k, v, o, stats, attn_mask, dropout_p, is_causal, scale, diagonal_alignment, left_bound,
      right_bound, seq_len_q, seq_len_kv, rng, want_dbias):
    db = attn_mask.new_empty(attn_mask.shape) if want_dbias else q.new_empty((0,))
    return q.new_empty(q.shape), k.new_empty(k.shape), v.new_empty(v.shape), db


def _setup(ctx, inputs, output):
    q, k, v, mask, dropout_p, is_causal, scale, alignment, left, right, seq_q, seq_kv, rng = inputs
    ctx.opts = (dropout_p, is_causal, scale, alignment, left, right)
    ctx.want_dbias = mask is not None and ctx.needs_input_grad[3]
    ctx.save_for_backward(q, k, v, output[0], output[1], mask, seq_q, seq_kv, rng)


def _backward(ctx, do, _dstats):
    q, k, v, o, stats, mask, seq_q, seq_kv, rng = ctx.saved_tensors
    dropout_p, is_causal, scale, alignment, left, right = ctx.opts
    dq, dk, dv, db = sdpa_backward_op(do, q, k, v, o, stats, mask, dropout_p, is_causal, scale, alignment, left,
                                      right, seq_q, seq_kv, rng, ctx.want_dbias)
    return (dq, dk, dv, db if ctx.want_dbias else None) + (None,) * 9


sdpa_op.register_autograd(_backward, setup_context=_setup)
