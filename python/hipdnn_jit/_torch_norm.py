"""_torch_norm.py — the norm custom ops of hipdnn_jit.torch: rms_norm, layer_norm, add_rms_norm,
their backward ops, fake (meta) implementations and autograd registrations.

Shapes: x [..., N] is run as rows X [M, N] (M = the product of the leading dims), weight and bias
[N] as [1, N]; the statistics (inv_rms, mean, rstd) are FLOAT [...] (one per row).
Forward: the library's RMSNorm / Layernorm ops in the TRAINING phase (their statistics are
saved for backward). Backward: the library has no norm backward op, so each backward graph is
built from library pointwise ops and matmuls with ones vectors for the sums:
    xhat = norm(x)·… (saved statistics), g = dy·w
    row sums  Σ_n  (g·xhat)[m, n] = (g·xhat) · ones[N, 1]    → [M, 1]
    column sums Σ_m (dy·xhat)[m, n] = ones[1, M] · (dy·xhat) → [1, N]
    RMSNorm:   dx = r·(g − xhat·rowmean(g·xhat)),  dw = colsum(dy·xhat)
    LayerNorm: dx = r·(g − rowmean(g) − xhat·rowmean(g·xhat)),  dw = colsum(dy·xhat), db = colsum(dy)
Does not own: the plan cache (_torch_plans.py) or the public wrappers (torch.py).
"""
from typing import Optional

import torch
from torch import Tensor

from . import _torch_plans as P
from .graph import Graph


def _rows(x, what="x"):
    """x [..., N] as a contiguous [M, N]; ValueError for an empty or 0-d tensor."""
    if x.dim() < 1 or x.numel() == 0:
        raise ValueError(f"hipdnn_jit.torch: {what} of shape {tuple(x.shape)} is empty or 0-d")
    return x.contiguous().reshape(-1, x.shape[-1])


def _vec(w, n, what):
    """A [N] parameter as [1, N]; ValueError when its shape is not [N]."""
    if w.dim() != 1 or w.shape[0] != n:
        raise ValueError(f"hipdnn_jit.torch: {what} has shape {tuple(w.shape)}, expected [{n}] (the last dim of x)")
    return w.contiguous().view(1, n)


def _graph(name, x):
    io = P.data_type(x, "x")
    compute, inter = P.compute_types(io)
    return Graph(name, io_data_type=io, compute_data_type=compute, intermediate_data_type=inter), io


def _inputs(g, **arrays):
    return {name: g.tensor_like(a, name=name, data_type=P.data_type(a, name)) for name, a in arrays.items()}


def _outputs(tensors, **outs):
    for name, t in outs.items():
        t.set_output(True).set_name(name)
        tensors[name] = t


def _sums(g, io, m, n, tensors):
    """Ones vectors for the row / column sums (graph inputs filled by the plan cache)."""
    dt = P.half_or_float(io)
    tdt = P.torch_dtype(dt)
    tensors["ones_n"] = g.tensor(name="ones_n", dims=[n, 1], strides=P.ones_strides([n, 1]), data_type=dt)
    tensors["ones_m"] = g.tensor(name="ones_m", dims=[1, m], strides=P.ones_strides([1, m]), data_type=dt)

    def rowmean(z):  # [M, N] -> [M, 1]
        return g.mul(g.matmul(g.identity(z, data_type=dt), tensors["ones_n"]), 1.0 / n)

    def colsum(z):   # [M, N] -> [1, N]
        return g.matmul(tensors["ones_m"], g.identity(z, data_type=dt))
    return rowmean, colsum, {"ones_n": ((n, 1), tdt, 1.0), "ones_m": ((1, m), tdt, 1.0)}


# ---------------------------------------------------------------- rms_norm
def _rms_fwd_graph(x2, w2, eps, residual2=None):
    g, io = _graph("rms_norm", x2)
    t = _inputs(g, x=x2, w=w2) if residual2 is None else _inputs(g, x=x2, residual=residual2, w=w2)
    h = t["x"] if residual2 is None else g.add(t["x"], t["residual"])
    y, inv = g.rmsnorm(h, t["w"], float(eps), training=True)
    _outputs(t, y=y, inv_rms=inv)
    if residual2 is not None:
        _outputs(t, h=h)
    return g, t, {}


@P.custom_op("hipdnn_jit::rms_norm")
def rms_norm_op(x: Tensor, weight: Tensor, eps: float) -> tuple[Tensor, Tensor]:
    """(y [..., N], inv_rms [...] FLOAT) = RMSNorm of x over its last dim."""
    dev = P.check_devices(("x", x), ("weight", weight))
    x2 = _rows(x)
    w2 = _vec(weight, x2.shape[1], "weight")
    p = P.plan(P.signature(x2, w2, float(eps)), dev, lambda: _rms_fwd_graph(x2, w2, eps), "rms_norm")
    y, inv = P.empty(x2.shape, x.dtype, dev), P.empty((x2.shape[0], 1), torch.float32, dev)
    p.run({"x": x2, "w": w2, "y": y, "inv_rms": inv})
    return y.view(x.shape), inv.view(x.shape[:-1])


@rms_norm_op.register_fake
def _(x, weight, eps):
    return x.new_empty(x.shape), x.new_empty(x.shape[:-1], dtype=torch.float32)


def _rms_bwd_graph(dy2, x2, w2, inv2, dh2=None):
    g, io = _graph("rms_norm_backward", x2)
    arrays = dict(dy=dy2, x=x2, w=w2, inv_rms=inv2)
    if dh2 is not None:
        arrays["dh"] = dh2
    t = _inputs(g, **arrays)
    m, n = x2.shape
    rowmean, colsum, consts = _sums(g, io, m, n, t)
    xhat = g.mul(t["x"], t["inv_rms"])
    gw = g.mul(t["dy"], t["w"])
    dx = g.mul(t["inv_rms"], g.sub(gw, g.mul(xhat, rowmean(g.mul(gw, xhat)))))
    if dh2 is not None:
        dx = g.add(dx, t["dh"])
    dw = colsum(g.mul(t["dy"], xhat))
    dw.set_data_type(P.data_type(w2, "weight"))
    _outputs(t, dx=dx, dw=dw)
    return g, t, consts


@P.custom_op("hipdnn_jit::rms_norm_backward")
def rms_norm_backward_op(dy: Tensor, x: Tensor, weight: Tensor, inv_rms: Tensor,
                         dh: Optional[Tensor] = None) -> tuple[Tensor, Tensor]:
    """(dx, dweight) of rms_norm; dh (a gradient arriving at the norm's input, as in add_rms_norm)
    is added to dx when given."""
    dev = P.check_devices(("dy", dy), ("x", x), ("weight", weight), ("inv_rms", inv_rms), ("dh", dh))
    x2, dy2 = _rows(x), _rows(dy, "dy")
    w2 = _vec(weight, x2.shape[1], "weight")
    inv2 = inv_rms.contiguous().reshape(-1, 1)
    dh2 = None if dh is None else _rows(dh, "dh")
    p = P.plan(P.signature(dy2, x2, w2, inv2, dh2), dev, lambda: _rms_bwd_graph(dy2, x2, w2, inv2, dh2),
               "rms_norm_backward")
    dx, dw = P.empty(x2.shape, x.dtype, dev), P.empty(w2.shape, weight.dtype, dev)
    p.run({"dy": dy2, "x": x2, "w": w2, "inv_rms": inv2, "dh": dh2, "dx": dx, "dw": dw})
    return dx.view(x.shape), dw.view(weight.shape)


@rms_norm_backward_op.register_fake
def _(dy, x, weight, inv_rms, dh=None):
    return x.new_empty(x.shape), weight.new_empty(weight.shape)


def _rms_setup(ctx, inputs, output):
    x, weight, _ = inputs
    ctx.save_for_backward(x, weight, output[1])


def _rms_backward(ctx, dy, _dinv):
    x, weight, inv = ctx.saved_tensors
    dx, dw = rms_norm_backward_op(dy, x, weight, inv)
    return dx, dw, None


rms_norm_op.register_autograd(_rms_backward, setup_context=_rms_setup)


# ---------------------------------------------------------------- add_rms_norm
@P.custom_op("hipdnn_jit::add_rms_norm")
def add_rms_norm_op(x: Tensor, residual: Tensor, weight: Tensor, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """(y, h, inv_rms): h = x + residual (the new residual stream), y = RMSNorm(h)."""
    dev = P.check_devices(("x", x), ("residual", residual), ("weight", weight))
    if residual.shape != x.shape or residual.dtype != x.dtype:
        raise ValueError(f"hipdnn_jit.torch: add_rms_norm: residual {tuple(residual.shape)} {residual.dtype} "
                         f"differs from x {tuple(x.shape)} {x.dtype}")
    x2, r2 = _rows(x), _rows(residual, "residual")
    w2 = _vec(weight, x2.shape[1], "weight")
    p = P.plan(P.signature(x2, r2, w2, float(eps)), dev, lambda: _rms_fwd_graph(x2, w2, eps, r2), "add_rms_norm")
    y, h = P.empty(x2.shape, x.dtype, dev), P.empty(x2.shape, x.dtype, dev)
    inv = P.empty((x2.shape[0], 1), torch.float32, dev)
    p.run({"x": x2, "residual": r2, "w": w2, "y": y, "h": h, "inv_rms": inv})
    return y.view(x.shape), h.view(x.shape), inv.view(x.shape[:-1])


@add_rms_norm_op.register_fake
def _(x, residual, weight, eps):
    return x.new_empty(x.shape), x.new_empty(x.shape), x.new_empty(x.shape[:-1], dtype=torch.float32)


def _add_rms_setup(ctx, inputs, output):
    ctx.save_for_backward(output[1], inputs[2], output[2])


def _add_rms_backward(ctx, dy, dh, _dinv):
    h, weight, inv = ctx.saved_tensors
    dx, dw = rms_norm_backward_op(dy, h, weight, inv, dh)
    return dx, dx, dw, None


add_rms_norm_op.register_autograd(_add_rms_backward, setup_context=_add_rms_setup)


# ---------------------------------------------------------------- layer_norm
def _ln_fwd_graph(x2, w2, b2, eps):
    g, io = _graph("layer_norm", x2)
    t = _inputs(g, x=x2, w=w2, b=w2 if b2 is None else b2)  # no bias: a zeros constant (the op needs one)
    y, mean, rstd = g.layernorm(t["x"], t["w"], t["b"], float(eps), training=True)
    _outputs(t, y=y, mean=mean, rstd=rstd)
    return g, t, ({"b": (tuple(w2.shape), w2.dtype, 0.0)} if b2 is None else {})


@P.custom_op("hipdnn_jit::layer_norm")
def layer_norm_op(x: Tensor, weight: Tensor, bias: Optional[Tensor], eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """(y [..., N], mean [...], rstd [...]) = LayerNorm of x over its last dim (FLOAT statistics)."""
    dev = P.check_devices(("x", x), ("weight", weight), ("bias", bias))
    x2 = _rows(x)
    w2 = _vec(weight, x2.shape[1], "weight")
    b2 = None if bias is None else _vec(bias, x2.shape[1], "bias")
    p = P.plan(P.signature(x2, w2, b2, float(eps)), dev, lambda: _ln_fwd_graph(x2, w2, b2, eps), "layer_norm")
    y = P.empty(x2.shape, x.dtype, dev)
    mean, rstd = (P.empty((x2.shape[0], 1), torch.float32, dev) for _ in range(2))
    p.run({"x": x2, "w": w2, "b": b2, "y": y, "mean": mean, "rstd": rstd})
    return y.view(x.shape), mean.view(x.shape[:-1]), rstd.view(x.shape[:-1])


@layer_norm_op.register_fake
def _(x, weight, bias, eps):
    stat = x.new_empty(x.shape[:-1], dtype=torch.float32)
    return x.new_empty(x.shape), stat, torch.empty_like(stat)


def _ln_bwd_graph(dy2, x2, w2, mean2, rstd2, with_bias):
    g, io = _graph("layer_norm_backward", x2)
    t = _inputs(g, dy=dy2, x=x2, w=w2, mean=mean2, rstd=rstd2)
    m, n = x2.shape
    rowmean, colsum, consts = _sums(g, io, m, n, t)
    xhat = g.mul(g.sub(t["x"], t["mean"]), t["rstd"])
    gw = g.mul(t["dy"], t["w"])
    dx = g.mul(t["rstd"], g.sub(g.sub(gw, rowmean(gw)), g.mul(xhat, rowmean(g.mul(gw, xhat)))))
    dw = colsum(g.mul(t["dy"], xhat)).set_data_type(P.data_type(w2, "weight"))
    _outputs(t, dx=dx, dw=dw)
    if with_bias:
        _outputs(t, db=colsum(t["dy"]).set_data_type(P.data_type(w2, "weight")))
    return g, t, consts


@P.custom_op("hipdnn_jit::layer_norm_backward")
def layer_norm_backward_op(dy: Tensor, x: Tensor, weight: Tensor, mean: Tensor, rstd: Tensor,
                           with_bias: bool) -> tuple[Tensor, Tensor, Tensor]:
    """(dx, dweight, dbias) of layer_norm; dbias is an empty tensor when not with_bias."""
    dev = P.check_devices(("dy", dy), ("x", x), ("weight", weight), ("mean", mean), ("rstd", rstd))
    x2, dy2 = _rows(x), _rows(dy, "dy")
    w2 = _vec(weight, x2.shape[1], "weight")
    mean2, rstd2 = mean.contiguous().reshape(-1, 1), rstd.contiguous().reshape(-1, 1)
    p = P.plan(P.signature(dy2, x2, w2, mean2, rstd2, with_bias), dev,
               lambda: _ln_bwd_graph(dy2, x2, w2, mean2, rstd2, with_bias), "layer_norm_backward")
    dx, dw = P.empty(x2.shape, x.dtype, dev), P.empty(w2.shape, weight.dtype, dev)
    db = P.empty(w2.shape if with_bias else (0,), weight.dtype, dev)
    p.run({"dy": dy2, "x": x2, "w": w2, "mean": mean2, "rstd": rstd2, "dx": dx, "dw": dw,
           "db": db if with_bias else None})
    return dx.view(x.shape), dw.view(weight.shape), db.view(weight.shape) if with_bias else db


@layer_norm_backward_op.register_fake
def _(dy, x, weight, mean, rstd, with_bias):
    return x.new_empty(x.shape), weight.new_empty(weight.shape), weight.new_empty(weight.shape if with_bias else (0,))


def _ln_setup(ctx, inputs, output):
    x, weight, bias, _ = inputs
    ctx.with_bias = bias is not None
    ctx.save_for_backward(x, weight, output[1], output[2])


def _ln_backward(ctx, dy, _dmean, _drstd):
    x, weight, mean, rstd = ctx.saved_tensors
    dx, dw, db = layer_norm_backward_op(dy, x, weight, mean, rstd, ctx.with_bias)
    return dx, dw, (db if ctx.with_bias else None), None


layer_norm_op.register_autograd(_ln_backward, setup_context=_ln_setup)
