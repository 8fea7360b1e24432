"""ops_sdpa.py — scaled dot-product attention ops of Graph: sdpa (forward, with every option the
SdpaAttributes table has), sdpa_fp8 and sdpa_backward.

Layouts: Q [B,H,Sq,D], K [B,Hk,Skv,D], V [B,Hk,Skv,Dv] (Hk divides H: GQA / MQA), O [B,H,Sq,Dv]
with Q's stride order, stats [B,H,Sq,1] FLOAT. Masks: causal (diagonal_alignment "top_left" or
"bottom_right"), a sliding window (left_bound / right_bound), padding (seq_len_q / seq_len_kv
[B,1,1,1] INT32), an additive bias (attn_mask), ALiBi; dropout by Philox (probability, seed,
offset) or a caller's mask; paged K/V (page tables [B,1,P,1]); a sink token; a pointwise score
modifier built by a callback on a sub-graph.
Does not own: the other op families (ops.py).
"""

from ._enums import DataType
from .tensor import Tensor


def _alignment(value):
    v = str(value).strip().upper()
    if v in ("TOP_LEFT", "BOTTOM_RIGHT"):
        return v
    raise ValueError(f"diagonal_alignment {value!r}: use 'top_left' or 'bottom_right'")


class SdpaMixin:
    """SDPA op methods; Graph provides the helpers of OpsMixin."""

    def _sdpa_common(self, attrs, q, *, attn_scale, causal, diagonal_alignment, left_bound, right_bound,
                     seq_len_q, seq_len_kv, attn_mask, alibi, dropout_probability, seed, offset,
                     dropout_mask, dropout_scale):
        """The options forward and backward share; fills attrs."""
        if isinstance(attn_scale, Tensor):
            attrs["scale_tensor_uid"] = self._in(attn_scale, q, "attn_scale")
        elif attn_scale is not None:
            attrs["attn_scale_value"] = float(attn_scale)
        if attn_mask is not None:
            attrs["attn_mask_tensor_uid"] = self._in(attn_mask, q, "attn_mask")
        if (seq_len_q is None) != (seq_len_kv is None):
            raise ValueError("sdpa: a padding mask needs both seq_len_q and seq_len_kv")
        if seq_len_q is not None:
            attrs["seq_len_q_tensor_uid"] = self._in(seq_len_q, what="seq_len_q")
            attrs["seq_len_kv_tensor_uid"] = self._in(seq_len_kv, what="seq_len_kv")
            attrs["padding_mask"] = True
        if alibi:
            attrs["alibi_mask"] = True
        if dropout_probability is not None:
            attrs["dropout_probability"] = float(dropout_probability)
        for key, t in (("seed", seed), ("offset", offset), ("dropout_mask", dropout_mask),
                       ("dropout_scale", dropout_scale)):
            if t is not None:
                attrs[f"{key}_tensor_uid"] = self._in(t, q, key)
        if causal and right_bound is None:
            right_bound = 0
        if left_bound is not None:
            attrs["left_bound"] = int(left_bound)
        if right_bound is not None:
            attrs["right_bound"] = int(right_bound)
        attrs["diagonal_alignment"] = _alignment(diagonal_alignment)

    def sdpa(self, q, k, v, *, attn_scale=None, generate_stats=False, causal=False,
             diagonal_alignment="top_left", left_bound=None, right_bound=None, seq_len_q=None, seq_len_kv=None,
             attn_mask=None, alibi=False, dropout_probability=None, seed=None, offset=None, dropout_mask=None,
             dropout_scale=None, page_table_k=None, page_table_v=None, max_seq_len_kv=None, sink_token=None,
             score_mod=None, return_max_sum_exp=False, implementation=None, name=None, compute_data_type=None,
             data_type=None, _fp8=None):
        """Attention forward: O = softmax(Q·Kᵀ·attn_scale + bias + masks) · V.

        Returns (o, stats) — stats [B,H,Sq,1] FLOAT (log-sum-exp) when generate_stats, else None —
        and (max, sum_exp) after them when return_max_sum_exp.
        causal=True is right_bound=0 at diagonal_alignment; left_bound=W keeps W keys left of the
        diagonal (sliding window). seq_len_q/seq_len_kv turn the padding mask on. dropout: a
        probability with seed/offset tensors (Philox) or a dropout_mask and dropout_scale.
        Paged K/V: k and v are page containers [blocks,Hk,block_size,D], page_table_k/v
        [B,1,P,1], max_seq_len_kv the logical length. score_mod: fn(sub_graph, s) -> tensor, a
        chain of pointwise ops on the scaled scores s [B,H,Sq,Skv] (e.g. softcap)."""
        q, k, v = self._in(q, what="Q"), self._in(k, what="K"), self._in(v, what="V")
        if len(q.dims) != 4 or len(k.dims) != 4 or len(v.dims) != 4:
            raise ValueError(f"sdpa: Q {q.dims}, K {k.dims}, V {v.dims} must be 4-D [B,H,S,D]")
        name = self._op_name(name, "sdpa")
        b, h, sq = q.dims[0], q.dims[1], q.dims[2]
        o = self._out(name, "o", [b, h, sq, v.dims[3]], q, data_type)
        attrs = {"q_tensor_uid": q, "k_tensor_uid": k, "v_tensor_uid": v, "o_tensor_uid": o}
        self._sdpa_common(attrs, q, attn_scale=attn_scale, causal=causal, diagonal_alignment=diagonal_alignment,
                          left_bound=left_bound, right_bound=right_bound, seq_len_q=seq_len_q,
                          seq_len_kv=seq_len_kv, attn_mask=attn_mask, alibi=alibi,
                          dropout_probability=dropout_probability, seed=seed, offset=offset,
                          dropout_mask=dropout_mask, dropout_scale=dropout_scale)
        if (page_table_k is None) != (page_table_v is None):
            raise ValueError("sdpa: paged K/V needs both page_table_k and page_table_v")
        if page_table_k is not None:
            attrs["page_table_k_tensor_uid"] = self._in(page_table_k, what="page_table_k")
            attrs["page_table_v_tensor_uid"] = self._in(page_table_v, what="page_table_v")
        if max_seq_len_kv is not None:
            attrs["max_seq_len_kv"] = int(max_seq_len_kv)
        if sink_token is not None:
            attrs["sink_token_tensor_uid"] = self._in(sink_token, q, "sink_token")
        stats = None
        row = [b, h, sq, 1]
        if generate_stats:
            stats = self._out(name, "stats", row, None, DataType.FLOAT)
            attrs["stats_tensor_uid"] = stats
            attrs["generate_stats"] = True
        extra = []
        if return_max_sum_exp:
            extra = [self._out(name, "max", row, None, DataType.FLOAT),
                     self._out(name, "sum_exp", row, None, DataType.FLOAT)]
            attrs["max_tensor_uid"], attrs["sum_exp_tensor_uid"] = extra
        if _fp8 is not None:
            for key, t in _fp8.items():
                attrs[f"{key}_tensor_uid"] = self._in(t, q, key)
            amax = [self._out(name, "amax_s", [1, 1, 1, 1], None, DataType.FLOAT),
                    self._out(name, "amax_o", [1, 1, 1, 1], None, DataType.FLOAT)]
            attrs["amax_s_tensor_uid"], attrs["amax_o_tensor_uid"] = amax
            extra += amax
        if implementation is not None:
            attrs["implementation"] = str(implementation).upper()
        if score_mod is not None:
            skv = max_seq_len_kv if page_table_k is not None and max_seq_len_kv else k.dims[2]
            self._score_mod(attrs, score_mod, [b, h, sq, skv])
        self._node("SdpaAttributes", attrs, name, compute_data_type)
        return (o, stats, *extra)

    def _score_mod(self, attrs, fn, s_dims):
        """Builds the score modifier sub-graph (pointwise ops only) through fn(sub, s)."""
        sub = type(self)(name="score_mod", io_data_type=DataType.FLOAT, compute_data_type=DataType.FLOAT,
                         intermediate_data_type=DataType.FLOAT, _uids=self._uids)
        s = sub.tensor(name="s", dims=s_dims, data_type=DataType.FLOAT)
        out = fn(sub, s)
        if not isinstance(out, Tensor) or out.graph is not sub:
            raise TypeError("sdpa: score_mod must return a tensor of the sub-graph it is given")
        if any(n["attributes_type"] != "PointwiseAttributes" for n in sub.nodes):
            raise ValueError("sdpa: a score modifier may hold pointwise ops only")
        out.is_virtual = True
        attrs["score_mod_graph"] = sub
        attrs["score_mod_input_uid"] = s.uid
        attrs["score_mod_output_uid"] = out.uid

    def sdpa_fp8(self, q, k, v, descale_q, descale_k, descale_v, descale_s, scale_s, scale_o, **kw):
        """FP8 attention forward (Q, K, V in FP8_E4M3 / FP8_E5M2) with cuDNN's descale and scale
        factors. Returns (o, stats, amax_s, amax_o) (+ max, sum_exp before the amaxes when
        return_max_sum_exp)."""
        fp8 = {"descale_q": descale_q, "descale_k": descale_k, "descale_v": descale_v, "descale_s": descale_s,
               "scale_s": scale_s, "scale_o": scale_o}
        return self.sdpa(q, k, v, _fp8=fp8, **kw)

    def sdpa_backward(self, q, k, v, o, do, stats, *, attn_scale=None, causal=False, diagonal_alignment="top_left",
                      left_bound=None, right_bound=None, seq_len_q=None, seq_len_kv=None, attn_mask=None,
                      dbias=False, alibi=False, dropout_probability=None, seed=None, offset=None,
                      dropout_mask=None, dropout_scale=None, dropout_scale_inv=None, name=None,
                      compute_data_type=None, data_type=None):
        """Attention backward. Returns (dq, dk, dv), and dbias after them when dbias=True (the
        gradient of attn_mask, shaped like it)."""
        q, k, v = self._in(q, what="Q"), self._in(k, what="K"), self._in(v, what="V")
        o, do, stats = self._in(o, what="O"), self._in(do, what="dO"), self._in(stats, what="stats")
        name = self._op_name(name, "sdpa_backward")
        dq = self._out(name, "dq", q.dims, q, data_type)
        dk = self._out(name, "dk", k.dims, k, data_type)
        dv = self._out(name, "dv", v.dims, v, data_type)
        attrs = {"q_tensor_uid": q, "k_tensor_uid": k, "v_tensor_uid": v, "o_tensor_uid": o, "do_tensor_uid": do,
                 "stats_tensor_uid": stats, "dq_tensor_uid": dq, "dk_tensor_uid": dk, "dv_tensor_uid": dv}
        self._sdpa_common(attrs, q, attn_scale=attn_scale, causal=causal, diagonal_alignment=diagonal_alignment,
                          left_bound=left_bound, right_bound=right_bound, seq_len_q=seq_len_q,
                          seq_len_kv=seq_len_kv, attn_mask=attn_mask, alibi=alibi,
                          dropout_probability=dropout_probability, seed=seed, offset=offset,
                          dropout_mask=dropout_mask, dropout_scale=dropout_scale)
        if dropout_scale_inv is not None:
            attrs["dropout_scale_inv_tensor_uid"] = self._in(dropout_scale_inv, q, "dropout_scale_inv")
        out = [dq, dk, dv]
        if dbias:
            if attn_mask is None:
                raise ValueError("sdpa_backward: dbias=True needs attn_mask (the bias it is the gradient of)")
            mask = attrs["attn_mask_tensor_uid"]
            db = self._out(name, "dbias", mask.dims, mask, data_type)
            attrs["dbias_tensor_uid"] = db
            out.append(db)
        self._node("SdpaBackwardAttributes", attrs, name, compute_data_type)
        return tuple(out)


