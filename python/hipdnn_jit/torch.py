"""hipdnn_jit.torch — fused PyTorch ops on hipdnn-jit, registered as torch.library custom ops
(namespace `hipdnn_jit`, so torch.ops.hipdnn_jit.<op>) with autograd and fake-tensor
implementations: they work in eager mode, under autograd, and under torch.compile(fullgraph=True).

    import torch, hipdnn_jit.torch as hjt
    y = hjt.rms_norm(x, weight, eps=1e-6)
    y, h = hjt.add_rms_norm(x, residual, weight)        # h = x + residual, y = RMSNorm(h)
    y = hjt.layer_norm(x, weight, bias, eps=1e-5)
    o = hjt.scaled_dot_product_attention(q, k, v, is_causal=True)   # [B,H,S,D], as F.sdpa
    y = hjt.matmul_bias_act(x, weight, bias, act="gelu")            # act(x @ weight + bias)

What runs where: CUDA tensors run on the library's JIT engines (jit_fused, else jit_unfused) on
the current torch stream; CPU tensors run on the reference engine (double-precision host
interpreter: slow, for checking). One plan per op and input signature (shapes, strides, dtypes,
device, options) is built on first use and cached in-process (cache_info(), clear_cache()).
Everything, forward and backward, is computed by library graphs; torch only allocates outputs,
reshapes, converts a boolean attention mask to an additive one and draws dropout seeds.
Files: _torch_plans.py (cache, engines), _torch_norm.py, _torch_sdpa.py, _torch_matmul.py (the
custom ops of each family). Importing this module needs PyTorch; `import hipdnn_jit` does not.
"""
import math
from typing import Optional

import torch

from . import _torch_matmul, _torch_norm, _torch_sdpa
from ._torch_plans import cache_info, clear_cache

__all__ = ["rms_norm", "layer_norm", "add_rms_norm", "scaled_dot_product_attention", "matmul_bias_act",
           "cache_info", "clear_cache", "ACTIVATIONS"]

ACTIVATIONS = _torch_matmul.ACTIVATIONS


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """y = x / sqrt(mean(x², last dim) + eps) · weight. x [..., N], weight [N]."""
    return _torch_norm.rms_norm_op(x, weight, float(eps))[0]


def add_rms_norm(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6):
    """(y, h) with h = x + residual (the updated residual stream) and y = rms_norm(h, weight, eps)."""
    y, h, _ = _torch_norm.add_rms_norm_op(x, residual, weight, float(eps))
    return y, h


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor] = None,
               eps: float = 1e-5) -> torch.Tensor:
    """y = (x − mean) / sqrt(var + eps) · weight + bias over the last dim (biased variance, as
    F.layer_norm). x [..., N], weight and bias [N]; bias may be None."""
    return _torch_norm.layer_norm_op(x, weight, bias, float(eps))[0]


def matmul_bias_act(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor] = None,
                    act: str = "none") -> torch.Tensor:
    """y = act(x @ weight + bias). x [..., K], weight [K, N] (an nn.Linear weight is [N, K]: pass
    linear.weight.t(), a transposed view, no copy), bias [N] or None, act one of ACTIVATIONS."""
    return _torch_matmul.matmul_bias_act_op(x, weight, bias, str(act))


def scaled_dot_product_attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                                 attn_mask: Optional[torch.Tensor] = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: Optional[float] = None,
                                 enable_gqa: bool = False, *, diagonal_alignment: str = "top_left",
                                 left_bound: Optional[int] = None, right_bound: Optional[int] = None,
                                 seq_len_q: Optional[torch.Tensor] = None,
                                 seq_len_kv: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Attention as torch.nn.functional.scaled_dot_product_attention (same names, [B,H,S,D]):
    softmax(Q·Kᵀ·scale + mask) · V, with

    attn_mask: additive float mask, or bool (True = attend), broadcastable to [B,Hq,Sq,Skv];
        a float mask that requires grad gets its gradient (dbias) from the library.
    dropout_p: Philox dropout on the probabilities (the library's generator, seeded from torch's:
        not the same mask torch would draw). is_causal with diagonal_alignment "top_left" (torch's)
        or "bottom_right"; a sliding window: key j is kept for query i when
        i + shift − left_bound < j ≤ i + shift + right_bound (shift = 0 top-left, Skv − Sq
        bottom-right; is_causal is right_bound = 0).
    enable_gqa: Hk (and Hv) may divide Hq (grouped-query attention), as in torch.
    seq_len_q / seq_len_kv: [B] ints, the valid lengths (padding mask; padded query rows give 0).
    """
    hq, hk = query.shape[1], key.shape[1]
    if hk != hq and not enable_gqa:
        raise ValueError(f"hipdnn_jit.torch: query has {hq} heads and key {hk}: pass enable_gqa=True")
    if attn_mask is not None:
        attn_mask = _torch_sdpa.additive_mask(attn_mask, query)
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    rng = None
    if dropout_p > 0.0:
        rng = torch.randint(0, 2**62, (2,), dtype=torch.int64, device=query.device)
    o, _ = _torch_sdpa.sdpa_op(query, key, value, attn_mask, float(dropout_p), bool(is_causal), float(scale),
                               str(diagonal_alignment), left_bound, right_bound, seq_len_q, seq_len_kv, rng)
    return o
