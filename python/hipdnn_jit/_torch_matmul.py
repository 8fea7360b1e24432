"""_torch_matmul.py — the matmul custom ops of hipdnn_jit.torch: hipdnn_jit::matmul_bias_act
(y = act(x·W + bias)) and hipdnn_jit::matmul_bias_act_backward, fake implementations, autograd.

Shapes: x [..., K] runs as X [M, K] (contiguous), W [K, N] with its own strides (row-major, or
the transposed view of an nn.Linear weight), bias [N] as [1, N], y [..., N].
Backward, one library graph: the pre-activation Z = X·W + bias is recomputed (not saved), then
    dZ = act_backward(dY, Z)   (dY itself for "none")
    dX = dZ · Wᵀ      dW = Xᵀ · dZ      dbias = ones[1, M] · dZ
with Wᵀ bound as a transposed view of W (a column-major B), and Xᵀ made row-major by a small
library plan first (a pointwise identity into a column-major output): the GPU matmul templates
take A only row-major.
Does not own: the plan cache (_torch_plans.py) or the public wrapper (torch.py).
"""
from typing import Optional

import torch
from torch import Tensor

from . import _torch_plans as P
from .graph import Graph

# act name -> (Graph forward method, Graph backward method taking (dy, z)); None: identity
ACTIVATIONS = {"none": None, "relu": ("relu", "relu_backward"), "gelu": ("gelu", "gelu_backward"),
               "gelu_tanh": ("gelu_approx_tanh", "gelu_approx_tanh_backward"),
               "silu": ("silu", "swish_backward")}


def _check(x, weight, bias, act):
    if act not in ACTIVATIONS:
        raise ValueError(f"hipdnn_jit.torch: act {act!r} is not one of {sorted(ACTIVATIONS)}")
    if x.dim() < 1 or x.numel() == 0 or weight.dim() != 2 or x.shape[-1] != weight.shape[0]:
        raise ValueError(f"hipdnn_jit.torch: matmul_bias_act needs x [..., K] and weight [K, N]; got x "
                         f"{tuple(x.shape)}, weight {tuple(weight.shape)}")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != weight.shape[1]):
        raise ValueError(f"hipdnn_jit.torch: bias {tuple(bias.shape)} must be [N] = [{weight.shape[1]}]")
    if weight.dtype != x.dtype:
        raise TypeError(f"hipdnn_jit.torch: weight dtype {weight.dtype} differs from x's {x.dtype}")


def _operand(t):
    """A 2-D operand in a layout the library takes: row- or column-major, else a contiguous copy."""
    return t if t.stride(-1) == 1 or t.stride(-2) == 1 else t.contiguous()


def _graph(name, x2):
    io = P.data_type(x2, "x")
    compute, inter = P.compute_types(io)
    g = Graph(name, io_data_type=io, compute_data_type=compute, intermediate_data_type=inter)
    return g, io


def _inputs(g, arrays):
    return {n: g.tensor_like(a, name=n, data_type=P.data_type(a, n)) for n, a in arrays.items() if a is not None}


def _pre_activation(g, t):
    z = g.matmul(t["x"], t["w"])
    return g.add(z, t["b"]) if "b" in t else z


def _fwd_graph(arrays, act):
    g, _ = _graph("matmul_bias_act", arrays["x"])
    t = _inputs(g, arrays)
    y = _pre_activation(g, t)
    if ACTIVATIONS[act] is not None:
        y = getattr(g, ACTIVATIONS[act][0])(y)
    t["y"] = y.set_output(True).set_name("y")
    return g, t, {}


@P.custom_op("hipdnn_jit::matmul_bias_act")
def matmul_bias_act_op(x: Tensor, weight: Tensor, bias: Optional[Tensor], act: str) -> Tensor:
    """y [..., N] = act(x [..., K] · weight [K, N] + bias [N])."""
    dev = P.check_devices(("x", x), ("weight", weight), ("bias", bias))
    _check(x, weight, bias, act)
    n = weight.shape[1]
    arrays = {"x": x.contiguous().reshape(-1, x.shape[-1]), "w": _operand(weight),
              "b": None if bias is None else bias.contiguous().view(1, n)}
    p = P.plan(P.signature(*arrays.values(), act), dev, lambda: _fwd_graph(arrays, act), "matmul_bias_act")
    y = P.empty((arrays["x"].shape[0], n), x.dtype, dev)
    p.run({**arrays, "y": y})
    return y.view(*x.shape[:-1], n)


@matmul_bias_act_op.register_fake
def _(x, weight, bias, act):
    return x.new_empty((*x.shape[:-1], weight.shape[1]))


def _transpose_graph(x2, xt):
    g, _ = _graph("transpose", x2)
    t = {"x": g.tensor_like(x2, name="x", data_type=P.data_type(x2, "x"))}
    t["xt"] = g.identity(t["x"]).set_output(True).set_name("xt").set_strides(list(xt.t().stride()))
    return g, t, {}


def transposed_buffer(x2):
    """An uninitialized Xᵀ [K, M], row-major with its row stride M rounded up to 8 (the GPU
    matmul templates want 16-byte rows)."""
    k, m = x2.shape[1], x2.shape[0]
    return P.empty((k, -(-m // 8) * 8), x2.dtype, x2.device)[:, :m]


def _transposed(x2):
    """Xᵀ [K, M] row-major, written by the library (X [M, K] read, stored column-major)."""
    xt = transposed_buffer(x2)
    p = P.plan(P.signature(x2), x2.device, lambda: _transpose_graph(x2, xt), "transpose")
    p.run({"x": x2, "xt": xt.t()})
    return xt


def _bwd_graph(arrays, act):
    g, io = _graph("matmul_bias_act_backward", arrays["x"])
    t = _inputs(g, arrays)
    m = arrays["x"].shape[0]
    if ACTIVATIONS[act] is None:
        dz = t["dy"]
    else:  # dZ in the I/O type: the GPU matmul templates take bf16 / fp16 operands
        dz = getattr(g, ACTIVATIONS[act][1])(t["dy"], _pre_activation(g, t), data_type=P.half_or_float(io))
    t["dx"] = g.matmul(dz, t["wt"]).set_output(True).set_name("dx")
    t["dw"] = g.matmul(t["xt"], dz).set_output(True).set_name("dw")
    consts = {}
    if "b" in t:
        dt = P.half_or_float(io)
        t["ones_m"] = g.tensor(name="ones_m", dims=[1, m], strides=P.ones_strides([1, m]), data_type=dt)
        t["db"] = g.matmul(t["ones_m"], dz).set_output(True).set_name("db")
        consts["ones_m"] = ((1, m), P.torch_dtype(dt), 1.0)
    return g, t, consts


@P.custom_op("hipdnn_jit::matmul_bias_act_backward")
def matmul_bias_act_backward_op(dy: Tensor, x: Tensor, weight: Tensor, bias: Optional[Tensor],
                                act: str) -> tuple[Tensor, Tensor, Tensor]:
    """(dx, dweight, dbias) of matmul_bias_act; dbias is empty when bias is None."""
    dev = P.check_devices(("dy", dy), ("x", x), ("weight", weight), ("bias", bias))
    _check(x, weight, bias, act)
    n = weight.shape[1]
    x2, w = x.contiguous().reshape(-1, x.shape[-1]), _operand(weight)
    arrays = {"dy": dy.contiguous().reshape(-1, n), "x": x2, "w": w, "xt": _transposed(x2), "wt": w.t(),
              "b": None if bias is None else bias.contiguous().view(1, n)}
    p = P.plan(P.signature(*arrays.values(), act), dev, lambda: _bwd_graph(arrays, act),
               "matmul_bias_act_backward")
    dx = P.empty(x2.shape, x.dtype, dev)
    dw = P.empty(weight.shape, weight.dtype, dev)
    db = P.empty((1, n) if bias is not None else (0,), x.dtype, dev)
    p.run({**arrays, "dx": dx, "dw": dw, "db": db if bias is not None else None})
    return dx.view(x.shape), dw, db.view(n) if bias is not None else db


@matmul_bias_act_backward_op.register_fake
def _(dy, x, weight, bias, act):
    db = x.new_empty((weight.shape[1],) if bias is not None else (0,))
    return x.new_empty(x.shape), weight.new_empty(weight.shape), db


def _setup(ctx, inputs, output):
    x, weight, bias, act = inputs
    ctx.act, ctx.has_bias = act, bias is not None
    ctx.save_for_backward(x, weight, bias)


def _backward(ctx, dy):
    x, weight, bias = ctx.saved_tensors
    dx, dw, db = matmul_bias_act_backward_op(dy, x, weight, bias, ctx.act)
    return dx, dw, (db if ctx.has_bias else None), None


matmul_bias_act_op.register_autograd(_backward, setup_context=_setup)
