"""ops.py — the op methods of Graph: one per operation family the library supports.

Owns: each op's JSON node (the field names of serialize/schema/hipdnn_graph.fbs) and the dims of
its outputs where they follow from the inputs (explicit dims where they do not: conv dgrad /
wgrad take dx_dims / dw_dims when the formula is ambiguous). Outputs come back virtual; call
.set_output(True) on those the caller wants written. Outputs follow the stride order (layout) of
the op's main input (NHWC in, NHWC out). Python numbers where a tensor is expected become
by-value scalars. Shape rules are checked again, with the library's messages, at validate/build.
Does not own: tensors (tensor.py), serialization or execution (graph.py, plan.py).
"""
import numbers

from ._enums import DataType, PointwiseMode, WirePointwiseMode
from .tensor import Tensor, packed_strides, stride_order


def _pointwise_mode_name(mode):
    """The wire (JSON) name of a pointwise mode given as a PointwiseMode, an int or a name."""
    if isinstance(mode, str):
        key = mode.strip().upper()
        for enum in (WirePointwiseMode, PointwiseMode):
            if key in enum.__members__:
                return WirePointwiseMode(int(enum[key])).name
        raise ValueError(f"unknown pointwise mode {mode!r}; one of {sorted(PointwiseMode.__members__)}")
    return WirePointwiseMode(int(mode)).name


def _broadcast(*dims_list):
    rank = max(len(d) for d in dims_list)
    out = []
    for i in range(rank):
        sizes = {d[len(d) - rank + i] for d in dims_list if len(d) - rank + i >= 0} - {1}
        if len(sizes) > 1:
            raise ValueError(f"dims {[list(d) for d in dims_list]} do not broadcast (dim {i}: {sorted(sizes)})")
        out.append(sizes.pop() if sizes else 1)
    return out


def _per_dim(value, n, what):
    if value is None:
        return None
    if isinstance(value, numbers.Integral):
        return [int(value)] * n
    value = [int(v) for v in value]
    if len(value) != n:
        raise ValueError(f"{what} {value} needs {n} entries (one per spatial dim)")
    return value


def _conv_geometry(spatial, padding, pre_padding, post_padding, stride, dilation):
    pre = _per_dim(pre_padding if pre_padding is not None else padding, spatial, "padding") or [0] * spatial
    post = _per_dim(post_padding if post_padding is not None else padding, spatial, "padding") or list(pre)
    return (pre, post, _per_dim(stride, spatial, "stride") or [1] * spatial,
            _per_dim(dilation, spatial, "dilation") or [1] * spatial)


# shorthand -> pointwise mode, for g.<shorthand>(a[, b])
_UNARY = {"relu": "RELU_FWD", "gelu": "GELU_FWD", "gelu_approx_tanh": "GELU_APPROX_TANH_FWD",
          "sigmoid": "SIGMOID_FWD", "tanh": "TANH_FWD", "swish": "SWISH_FWD", "silu": "SWISH_FWD",
          "softplus": "SOFTPLUS_FWD", "elu": "ELU_FWD", "exp": "EXP", "log": "LOG", "neg": "NEG",
          "abs": "ABS", "sqrt": "SQRT", "rsqrt": "RSQRT", "reciprocal": "RECIPROCAL", "erf": "ERF",
          "sin": "SIN", "tan": "TAN", "ceil": "CEIL", "floor": "FLOOR", "identity": "IDENTITY",
          "logical_not": "LOGICAL_NOT"}
_BINARY = {"add": "ADD", "sub": "SUB", "mul": "MUL", "div": "DIV", "maximum": "MAX_OP",
           "minimum": "MIN_OP", "add_square": "ADD_SQUARE", "cmp_eq": "CMP_EQ", "cmp_neq": "CMP_NEQ",
           "cmp_lt": "CMP_LT", "cmp_le": "CMP_LE", "cmp_gt": "CMP_GT", "cmp_ge": "CMP_GE",
           "logical_and": "LOGICAL_AND", "logical_or": "LOGICAL_OR",
           # backward activations take (dy, x)
           "relu_backward": "RELU_BWD", "gelu_backward": "GELU_BWD", "sigmoid_backward": "SIGMOID_BWD",
           "tanh_backward": "TANH_BWD", "swish_backward": "SWISH_BWD", "elu_backward": "ELU_BWD",
           "softplus_backward": "SOFTPLUS_BWD", "gelu_approx_tanh_backward": "GELU_APPROX_TANH_BWD"}


class OpsMixin:
    """Op methods; Graph (graph.py) provides _new_tensor, _node, tensor and the data types."""

    # ---- helpers
    def _in(self, x, like=None, what="input"):
        """A Tensor of this graph, or a number made a by-value FLOAT scalar shaped like `like`."""
        if isinstance(x, Tensor):
            if x.graph is not self:
                raise ValueError(f"{what} {x.name!r} belongs to another graph")
            return x
        if isinstance(x, numbers.Number):
            rank = len(like.dims) if isinstance(like, Tensor) else 1
            return self.tensor(dims=[1] * rank, value=x, data_type=DataType.FLOAT)
        raise TypeError(f"{what}: expected a Tensor of this graph or a number, got {type(x).__name__}")

    def _opt(self, x, like=None, what="input"):
        return None if x is None else self._in(x, like, what)

    def _out(self, op_name, port, dims, like=None, data_type=None):
        """A virtual output; its strides follow like's layout when the ranks agree."""
        order = stride_order(like.strides) if like is not None and len(like.dims) == len(dims) else None
        return self._new_tensor(f"{op_name}::{port}", dims, packed_strides(dims, order), data_type,
                                is_virtual=True)

    def _op_name(self, name, kind):
        return name or f"{kind}_{len(self.nodes)}"

    # ---- pointwise
    def pointwise(self, mode, a, b=None, c=None, *, name=None, compute_data_type=None, axis=None,
                  relu_lower_clip=None, relu_upper_clip=None, relu_lower_clip_slope=None, swish_beta=None,
                  elu_alpha=None, softplus_beta=None, data_type=None):
        """y = mode(a[, b[, c]]) elementwise with broadcasting (BINARY_SELECT: c ? a : b)."""
        wire = _pointwise_mode_name(mode)
        name = self._op_name(name, wire.lower())
        first = a if isinstance(a, Tensor) else b if isinstance(b, Tensor) else c
        ins = [self._in(a, first, "a")] + [self._opt(t, first, w) for t, w in ((b, "b"), (c, "c"))]
        dims = _broadcast(*[t.dims for t in ins if t is not None])
        big = max((t for t in ins if t is not None), key=lambda t: len(t.dims))
        y = self._out(name, "y", dims, big, data_type)
        attrs = {"operation": wire, "in_0_tensor_uid": ins[0]}
        for i, t in ((1, ins[1]), (2, ins[2])):
            if t is not None:
                attrs[f"in_{i}_tensor_uid"] = t
        attrs["out_0_tensor_uid"] = y
        for key, v in (("relu_lower_clip", relu_lower_clip), ("relu_upper_clip", relu_upper_clip),
                       ("relu_lower_clip_slope", relu_lower_clip_slope), ("swish_beta", swish_beta),
                       ("elu_alpha", elu_alpha), ("softplus_beta", softplus_beta)):
            if v is not None:
                attrs[key] = float(v)
        if axis is not None:
            attrs["axis_tensor_uid"] = int(axis)
        self._node("PointwiseAttributes", attrs, name, compute_data_type)
        return y

    def binary_select(self, a, b, condition, **kw):
        """condition ? a : b."""
        return self.pointwise("BINARY_SELECT", a, b, condition, **kw)

    def gen_index(self, x, axis, **kw):
        """The index along `axis` of each element of x's shape."""
        return self.pointwise("GEN_INDEX", x, axis=axis, **kw)

    # ---- matmul
    def matmul(self, a, b, *, name=None, compute_data_type=None, data_type=None):
        """C[..., M, N] = A[..., M, K] · B[..., K, N], batch dims broadcast."""
        a, b = self._in(a, what="A"), self._in(b, what="B")
        if len(a.dims) < 2 or len(a.dims) != len(b.dims):
            raise ValueError(f"matmul: A {a.dims} and B {b.dims} need the same rank >= 2")
        if a.dims[-1] != b.dims[-2]:
            raise ValueError(f"matmul: A {a.dims} has K = {a.dims[-1]} but B {b.dims} has K = {b.dims[-2]}")
        name = self._op_name(name, "matmul")
        dims = _broadcast(a.dims[:-2], b.dims[:-2]) + [a.dims[-2], b.dims[-1]]
        c = self._out(name, "c", dims, None, data_type)
        self._node("MatmulAttributes", {"a_tensor_uid": a, "b_tensor_uid": b, "c_tensor_uid": c}, name,
                   compute_data_type)
        return c

    # ---- convolution
    def _conv(self, kind, table, ports, out_port, out_dims, like, geometry, conv_mode, name,
              compute_data_type, data_type):
        pre, post, stride, dilation = geometry
        name = self._op_name(name, kind)
        out = self._out(name, out_port, out_dims, like, data_type)
        attrs = dict(ports)
        attrs[f"{out_port}_tensor_uid"] = out
        attrs.update({"pre_padding": pre, "post_padding": post, "stride": stride, "dilation": dilation,
                      "conv_mode": str(conv_mode).upper()})
        self._node(table, attrs, name, compute_data_type)
        return out

    def conv_fprop(self, x, w, *, padding=0, stride=1, dilation=1, pre_padding=None, post_padding=None,
                   conv_mode="CROSS_CORRELATION", name=None, compute_data_type=None, data_type=None):
        """Y[N,K,P..] = conv(X[N,C,H..], W[K,C/groups,R..]); groups = C / W's dim 1."""
        x, w = self._in(x, what="X"), self._in(w, what="W")
        sp = len(x.dims) - 2
        geo = _conv_geometry(sp, padding, pre_padding, post_padding, stride, dilation)
        pre, post, st, dil = geo
        out = [x.dims[0], w.dims[0]]
        for i in range(sp):
            span = x.dims[2 + i] + pre[i] + post[i] - dil[i] * (w.dims[2 + i] - 1) - 1
            if span < 0:
                raise ValueError(f"conv_fprop: the filter {w.dims} does not fit X {x.dims} with padding "
                                 f"{pre}/{post} and dilation {dil}")
            out.append(span // st[i] + 1)
        return self._conv("conv_fprop", "ConvolutionFwdAttributes", {"x_tensor_uid": x, "w_tensor_uid": w},
                          "y", out, x, geo, conv_mode, name, compute_data_type, data_type)

    def conv_dgrad(self, dy, w, *, dx_dims=None, padding=0, stride=1, dilation=1, pre_padding=None,
                   post_padding=None, conv_mode="CROSS_CORRELATION", name=None, compute_data_type=None,
                   data_type=None):
        """dX = conv backward data of dY[N,K,P..] and W[K,C,R..]. dx_dims default: the smallest
        X the forward formula maps to dY (pass dx_dims when stride > 1 leaves a remainder or
        with groups)."""
        dy, w = self._in(dy, what="dY"), self._in(w, what="W")
        sp = len(dy.dims) - 2
        geo = _conv_geometry(sp, padding, pre_padding, post_padding, stride, dilation)
        pre, post, st, dil = geo
        if dx_dims is None:
            dx_dims = [dy.dims[0], w.dims[1]] + [
                (dy.dims[2 + i] - 1) * st[i] - pre[i] - post[i] + dil[i] * (w.dims[2 + i] - 1) + 1
                for i in range(sp)]
        return self._conv("conv_dgrad", "ConvolutionBwdAttributes", {"dy_tensor_uid": dy, "w_tensor_uid": w},
                          "dx", list(dx_dims), dy, geo, conv_mode, name, compute_data_type, data_type)

    def conv_wgrad(self, x, dy, *, dw_dims=None, padding=0, stride=1, dilation=1, pre_padding=None,
                   post_padding=None, conv_mode="CROSS_CORRELATION", name=None, compute_data_type=None,
                   data_type=None):
        """dW[K,C,R..] = conv backward filter of X[N,C,H..] and dY[N,K,P..]. dw_dims default: the
        filter size the forward formula gives with stride 1 (pass dw_dims otherwise or with groups)."""
        x, dy = self._in(x, what="X"), self._in(dy, what="dY")
        sp = len(x.dims) - 2
        geo = _conv_geometry(sp, padding, pre_padding, post_padding, stride, dilation)
        pre, post, st, dil = geo
        if dw_dims is None:
            if any(s != 1 for s in st):
                raise ValueError("conv_wgrad: with stride > 1 the filter size is ambiguous; pass dw_dims")
            dw_dims = [dy.dims[1], x.dims[1]] + [
                (x.dims[2 + i] + pre[i] + post[i] - dy.dims[2 + i]) // dil[i] + 1 for i in range(sp)]
        return self._conv("conv_wgrad", "ConvolutionWrwAttributes", {"x_tensor_uid": x, "dy_tensor_uid": dy},
                          "dw", list(dw_dims), x, geo, conv_mode, name, compute_data_type, data_type)

    # ---- batchnorm
    def _channel(self, x):
        return [1, x.dims[1]] + [1] * (len(x.dims) - 2)

    def batchnorm_inference(self, x, mean, inv_variance, scale, bias, *, name=None, compute_data_type=None,
                            data_type=None):
        """y = (x - mean) · inv_variance · scale + bias per channel (dim 1)."""
        x = self._in(x, what="X")
        name = self._op_name(name, "bn_inference")
        y = self._out(name, "y", x.dims, x, data_type)
        ports = {"x_tensor_uid": x, "mean_tensor_uid": self._in(mean, x), "inv_variance_tensor_uid":
                 self._in(inv_variance, x), "scale_tensor_uid": self._in(scale, x),
                 "bias_tensor_uid": self._in(bias, x), "y_tensor_uid": y}
        self._node("BatchnormInferenceAttributes", ports, name, compute_data_type)
        return y

    def batchnorm_inference_variance(self, x, mean, variance, scale, bias, epsilon=1e-5, *, name=None,
                                     compute_data_type=None, data_type=None):
        """As batchnorm_inference with a variance tensor: inv_variance = 1/sqrt(variance + epsilon)."""
        x = self._in(x, what="X")
        name = self._op_name(name, "bn_inference_variance")
        y = self._out(name, "y", x.dims, x, data_type)
        ports = {"x_tensor_uid": x, "mean_tensor_uid": self._in(mean, x), "variance_tensor_uid":
                 self._in(variance, x), "scale_tensor_uid": self._in(scale, x),
                 "bias_tensor_uid": self._in(bias, x), "y_tensor_uid": y,
                 "epsilon_tensor_uid": self._in(epsilon, x)}
        self._node("BatchnormInferenceAttributesVarianceExt", ports, name, compute_data_type)
        return y

    def batchnorm(self, x, scale, bias, epsilon=1e-5, *, prev_running_mean=None, prev_running_variance=None,
                  momentum=None, peer_stats=(), name=None, compute_data_type=None, data_type=None):
        """Training batchnorm over N and the spatial dims. Returns (y, mean, inv_variance,
        next_running_mean, next_running_variance); the running stats are None unless
        prev_running_mean/variance and momentum are given."""
        x = self._in(x, what="X")
        name = self._op_name(name, "batchnorm")
        ch = self._channel(x)
        y = self._out(name, "y", x.dims, x, data_type)
        mean = self._out(name, "mean", ch, None, DataType.FLOAT)
        inv = self._out(name, "inv_variance", ch, None, DataType.FLOAT)
        ports = {"x_tensor_uid": x, "scale_tensor_uid": self._in(scale, x), "bias_tensor_uid": self._in(bias, x),
                 "epsilon_tensor_uid": self._in(epsilon, x)}
        if peer_stats:
            ports["peer_stats_tensor_uid"] = [self._in(p, x) for p in peer_stats]
        nrm = nrv = None
        if prev_running_mean is not None or prev_running_variance is not None or momentum is not None:
            if prev_running_mean is None or prev_running_variance is None or momentum is None:
                raise ValueError("batchnorm: running statistics need prev_running_mean, "
                                 "prev_running_variance and momentum together")
            nrm = self._out(name, "next_running_mean", ch, None, DataType.FLOAT)
            nrv = self._out(name, "next_running_variance", ch, None, DataType.FLOAT)
            ports.update({"prev_running_mean_tensor_uid": self._in(prev_running_mean, x),
                          "prev_running_variance_tensor_uid": self._in(prev_running_variance, x),
                          "momentum_tensor_uid": self._in(momentum, x)})
        ports.update({"y_tensor_uid": y, "mean_tensor_uid": mean, "inv_variance_tensor_uid": inv})
        if nrm is not None:
            ports.update({"next_running_mean_tensor_uid": nrm, "next_running_variance_tensor_uid": nrv})
        self._node("BatchnormAttributes", ports, name, compute_data_type)
        return y, mean, inv, nrm, nrv

    def batchnorm_backward(self, dy, x, scale, mean, inv_variance, *, peer_stats=(), name=None,
                           compute_data_type=None, data_type=None):
        """Returns (dx, dscale, dbias)."""
        x, dy = self._in(x, what="X"), self._in(dy, what="dY")
        name = self._op_name(name, "batchnorm_backward")
        ch = self._channel(x)
        dx = self._out(name, "dx", x.dims, x, data_type)
        dscale = self._out(name, "dscale", ch, None, DataType.FLOAT)
        dbias = self._out(name, "dbias", ch, None, DataType.FLOAT)
        ports = {"dy_tensor_uid": dy, "x_tensor_uid": x, "mean_tensor_uid": self._in(mean, x),
                 "inv_variance_tensor_uid": self._in(inv_variance, x), "scale_tensor_uid": self._in(scale, x)}
        if peer_stats:
            ports["peer_stats_tensor_uid"] = [self._in(p, x) for p in peer_stats]
        ports.update({"dx_tensor_uid": dx, "dscale_tensor_uid": dscale, "dbias_tensor_uid": dbias})
        self._node("BatchnormBackwardAttributes", ports, name, compute_data_type)
        return dx, dscale, dbias

    def gen_stats(self, x, *, name=None, compute_data_type=None):
        """Per-channel (dim 1) sum and sum of squares of x: returns (sum, sq_sum), FLOAT."""
        x = self._in(x, what="X")
        name = self._op_name(name, "gen_stats")
        s = self._out(name, "sum", self._channel(x), None, DataType.FLOAT)
        sq = self._out(name, "sq_sum", self._channel(x), None, DataType.FLOAT)
        self._node("GenStatsAttributesExt", {"x_tensor_uid": x, "sum_tensor_uid": s, "sq_sum_tensor_uid": sq},
                   name, compute_data_type)
        return s, sq

    # ---- layernorm / rmsnorm
    @staticmethod
    def _phase(training):
        return "TRAINING" if training else "INFERENCE"

    @staticmethod
    def _norm_dims(x, scale, normalized_dim_count):
        if normalized_dim_count is None:
            normalized_dim_count = 0
            for xd, sd in zip(reversed(x.dims), reversed(scale.dims)):
                if xd != sd:
                    break
                normalized_dim_count += 1
            normalized_dim_count = max(normalized_dim_count, 1)
        n = int(normalized_dim_count)
        return n, x.dims[: len(x.dims) - n] + [1] * n

    def layernorm(self, x, scale, bias, epsilon=1e-5, *, training=False, normalized_dim_count=None,
                  name=None, compute_data_type=None, data_type=None):
        """LayerNorm over the last normalized_dim_count dims (default: the trailing dims scale
        spans). Returns (y, mean, inv_variance); mean and inv_variance are None unless training."""
        x = self._in(x, what="X")
        scale = self._in(scale, x, "scale")
        n, stat_dims = self._norm_dims(x, scale, normalized_dim_count)
        name = self._op_name(name, "layernorm")
        y = self._out(name, "y", x.dims, x, data_type)
        attrs = {"x_tensor_uid": x, "scale_tensor_uid": scale, "bias_tensor_uid": self._in(bias, x, "bias"),
                 "epsilon_tensor_uid": self._in(epsilon, x, "epsilon"), "y_tensor_uid": y,
                 "normalized_dim_count": n}
        mean = inv = None
        if training:
            mean = self._out(name, "mean", stat_dims, None, DataType.FLOAT)
            inv = self._out(name, "inv_variance", stat_dims, None, DataType.FLOAT)
            attrs.update({"mean_tensor_uid": mean, "inv_variance_tensor_uid": inv})
        attrs["forward_phase"] = self._phase(training)
        self._node("LayernormAttributes", attrs, name, compute_data_type)
        return y, mean, inv

    def rmsnorm(self, x, scale, epsilon=1e-5, *, bias=None, training=False, name=None, compute_data_type=None,
                data_type=None):
        """RMSNorm over the trailing dims scale spans. Returns (y, inv_rms); inv_rms is None
        unless training."""
        x = self._in(x, what="X")
        scale = self._in(scale, x, "scale")
        _, stat_dims = self._norm_dims(x, scale, None)
        name = self._op_name(name, "rmsnorm")
        y = self._out(name, "y", x.dims, x, data_type)
        attrs = {"x_tensor_uid": x, "scale_tensor_uid": scale, "epsilon_tensor_uid": self._in(epsilon, x, "epsilon"),
                 "y_tensor_uid": y}
        if bias is not None:
            attrs["bias_tensor_uid"] = self._in(bias, x, "bias")
        inv = None
        if training:
            inv = self._out(name, "inv_rms", stat_dims, None, DataType.FLOAT)
            attrs["inv_rms_tensor_uid"] = inv
        attrs["forward_phase"] = self._phase(training)
        self._node("RMSNormAttributes", attrs, name, compute_data_type)
        return y, inv

    # ---- block-scale quantize / dequantize
    def block_scale_quantize(self, x, block_size, *, axis=None, transpose=False, data_type=DataType.FP8_E4M3,
                             scale_data_type=DataType.FP8_E8M0, name=None, compute_data_type=None):
        """Quantizes x in blocks of block_size along axis (default: the last dim). Returns
        (y, scale): y of data_type (FP8_E4M3, FP8_E5M2, FP4_E2M1, INT8), scale of
        scale_data_type (FP8_E8M0 for MX formats, FP8_E4M3 for NVFP4)."""
        x = self._in(x, what="X")
        ax = len(x.dims) - 1 if axis is None else int(axis)
        if not 0 <= ax < len(x.dims) or x.dims[ax] % int(block_size):
            raise ValueError(f"block_scale_quantize: X {x.dims} dim {ax} is not a multiple of block_size {block_size}")
        name = self._op_name(name, "block_scale_quantize")
        y = self._out(name, "y", x.dims, x, data_type)
        sdims = [d // int(block_size) if i == ax else d for i, d in enumerate(x.dims)]
        scale = self._out(name, "scale", sdims, x, scale_data_type)
        attrs = {"x_tensor_uid": x, "y_tensor_uid": y, "scale_tensor_uid": scale, "block_size": int(block_size)}
        if axis is not None:
            attrs["axis"] = ax
        if transpose:
            attrs["transpose"] = True
        self._node("BlockScaleQuantizeAttributes", attrs, name, compute_data_type)
        return y, scale

    def block_scale_dequantize(self, x, scale, block_size, *, is_negative_scale=False, name=None,
                               compute_data_type=None, data_type=None):
        """y = x · scale, one scale per block; block_size is an int (the last dim) or one entry
        per trailing dim."""
        x, scale = self._in(x, what="X"), self._in(scale, what="scale")
        blocks = [int(block_size)] if isinstance(block_size, numbers.Integral) else [int(b) for b in block_size]
        name = self._op_name(name, "block_scale_dequantize")
        y = self._out(name, "y", x.dims, x, data_type)
        attrs = {"x_tensor_uid": x, "scale_tensor_uid": scale, "y_tensor_uid": y, "block_size": blocks}
        if is_negative_scale:
            attrs["is_negative_scale"] = True
        self._node("BlockScaleDequantizeAttributes", attrs, name, compute_data_type)
        return y

    # ---- paged KV cache
    def paged_cache_load(self, container, page_table, seq_len, *, name=None, compute_data_type=None,
                         data_type=None):
        """Gathers a paged K or V cache (container [blocks, H, block_size, D], page_table
        [B,1,P,1], seq_len [B,1,1,1]) into Y [B, H, P·block_size, D]."""
        container, pt = self._in(container, what="container"), self._in(page_table, what="page_table")
        seq_len = self._in(seq_len, what="seq_len")
        name = self._op_name(name, "paged_cache_load")
        dims = [pt.dims[0], container.dims[1], pt.dims[2] * container.dims[2], container.dims[3]]
        y = self._out(name, "y", dims, None, data_type or container.data_type)
        self._node("PagedCacheLoadAttributesExt", {"container_tensor_uid": container, "y_tensor_uid": y,
                   "seq_len_tensor_uid": seq_len, "page_table_tensor_uid": pt}, name, compute_data_type)
        return y


def _make_unary(mode):
    def op(self, a, **kw):
        return self.pointwise(mode, a, **kw)
    op.__doc__ = f"Pointwise {mode}(a)."
    return op


def _make_binary(mode):
    def op(self, a, b, **kw):
        return self.pointwise(mode, a, b, **kw)
    op.__doc__ = f"Pointwise {mode}(a, b)" + (" (a = dy, b = x)." if mode.endswith("_BWD") else ".")
    return op


for _n, _m in _UNARY.items():
    setattr(OpsMixin, _n, _make_unary(_m))
for _n, _m in _BINARY.items():
    setattr(OpsMixin, _n, _make_binary(_m))
