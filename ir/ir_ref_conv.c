/* ir_ref_conv.c — reference semantics of CONV_FWD, CONV_DGRAD and CONV_WGRAD.
 *
 * Owns: ir_ref_conv. Shapes (op-semantics.md §1): x [N, C, (D,) H, W], w [K, C/G, (T,) R, S],
 * y [N, K, (O,) P, Q]; groups G = C / C(w), group g = k / (K/G) reads input channels
 * g*(C/G) .. g*(C/G) + C/G - 1. With 2 spatial dims the code runs the 3-D formulas with a unit
 * depth. Per spatial dim:  in = out*stride - pre + f*dil  (outside [0, in_size) reads zero), and
 * the filter tap used is f (CROSS_CORRELATION) or F-1-f (CONVOLUTION: flipped filter).
 *   fwd    y[n,k,o]  = sum_{c<C/G, f} x[n, g*C/G + c, in(o,f)] * w[k, c, tap(f)]
 *   dgrad  dx[n,ci,h] = sum_{k in group(ci), f, o : in(o,f) = h} dy[n,k,o] * w[k, ci%(C/G), tap(f)]
 *   wgrad  dw[k,c,tap(f)] = sum_{n, o} dy[n,k,o] * x[n, g*C/G + c, in(o,f)]
 * Output spatial sizes must equal 1 + (in + pre + post - dil*(F-1) - 1) / stride (0 when the
 * numerator is negative): dgrad/wgrad check that dy matches the dx/x they are given, so shapes
 * that the forward convolution would not produce are BAD_PARAM. Any strides (NCHW, NHWC, ...).
 */
#include "ir/ir_int.h"

typedef struct conv_geom {
    int sp;                        /* 2 or 3 spatial dims */
    int64_t n, c, k, cg, kg;       /* batch, in channels, out channels, C/G, K/G */
    int64_t in[3], out[3], flt[3]; /* spatial sizes; the depth is 1 for 2-D */
    int64_t pre[3], stride[3], dil[3];
    bool flip;
    bool empty; /* a filter or output spatial size is 0: every sum is empty */
} conv_geom;

/* Spatial part of a tensor index <-> 3 coordinates (depth 0 for 2-D). */
static void spatial_of(const conv_geom *g, const int64_t *idx, int64_t s[3])
{
    s[0] = g->sp == 3 ? idx[2] : 0;
    s[1] = idx[g->sp == 3 ? 3 : 2];
    s[2] = idx[g->sp == 3 ? 4 : 3];
}

static void make_idx(const conv_geom *g, int64_t a, int64_t b, const int64_t s[3], int64_t *idx)
{
    idx[0] = a;
    idx[1] = b;
    for (int d = 3 - g->sp; d < 3; d++)
        idx[2 + d - (3 - g->sp)] = s[d];
}

static void spatial_dims(const conv_geom *g, const ir_buf *b, int64_t s[3])
{
    spatial_of(g, b->dims, s);
    if (g->sp == 2)
        s[0] = 1;
}

static bool next3(int64_t i[3], const int64_t n[3])
{
    for (int d = 2; d >= 0; d--) {
        if (++i[d] < n[d])
            return true;
        i[d] = 0;
    }
    return false;
}

static int64_t out_size(int64_t in, int64_t pre, int64_t post, int64_t dil, int64_t f,
                        int64_t stride)
{
    int64_t num = in + pre + post - dil * (f - 1) - 1;
    return num < 0 ? 0 : 1 + num / stride;
}

static hipdnnStatus_t set_params(conv_geom *g, const ir_conv *p)
{
    for (int d = 0; d < 3; d++) {
        g->pre[d] = 0, g->stride[d] = 1, g->dil[d] = 1;
    }
    int64_t postv[3] = {0, 0, 0};
    for (int d = 0; d < g->sp; d++) {
        int e = d + 3 - g->sp;
        g->pre[e] = p->pre[d], g->stride[e] = p->stride[d], g->dil[e] = p->dilation[d];
        postv[e] = p->post[d];
        if (p->stride[d] < 1 || p->dilation[d] < 1)
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "conv: stride and dilation must be >= 1");
    }
    for (int d = 0; d < 3; d++) {
        int64_t want = out_size(g->in[d], g->pre[d], postv[d], g->dil[d], g->flt[d], g->stride[d]);
        if (g->out[d] != want)
            return base_fail(HIPDNN_STATUS_BAD_PARAM,
                             "conv: output size %lld, expected %lld from input, filter, padding",
                             (long long)g->out[d], (long long)want);
    }
    return HIPDNN_STATUS_SUCCESS;
}

/* Geometry from the x-, w- and y-shaped operands (whichever are inputs or outputs). */
static hipdnnStatus_t geometry(conv_geom *g, const ir_conv *p, const ir_buf *x, const ir_buf *w,
                               const ir_buf *y)
{
    if (x == NULL || w == NULL || y == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "conv: an operand is missing");
    g->sp = p->spatial;
    if ((g->sp != 2 && g->sp != 3) || x->rank != g->sp + 2 || w->rank != g->sp + 2 ||
        y->rank != g->sp + 2)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "conv: operands need rank spatial+2 (4 or 5)");
    g->n = x->dims[0], g->c = x->dims[1], g->k = w->dims[0], g->cg = w->dims[1];
    if (y->dims[0] != g->n || y->dims[1] != g->k || g->cg <= 0 || g->c % g->cg != 0 ||
        g->k % (g->c / g->cg) != 0)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "conv: batch, channel or group sizes disagree");
    g->kg = g->k / (g->c / g->cg);
    spatial_dims(g, x, g->in);
    spatial_dims(g, w, g->flt);
    spatial_dims(g, y, g->out);
    g->flip = p->convolution;
    g->empty = false;
    for (int d = 0; d < 3; d++)
        g->empty |= g->out[d] == 0 || g->flt[d] == 0;
    return set_params(g, p);
}

static int64_t tap(const conv_geom *g, int d, int64_t f) { return g->flip ? g->flt[d] - 1 - f : f; }

/* Input position of output o and filter offset f; false when it falls in the padding. */
static bool in_pos(const conv_geom *g, const int64_t o[3], const int64_t f[3], int64_t pos[3])
{
    for (int d = 0; d < 3; d++) {
        pos[d] = o[d] * g->stride[d] - g->pre[d] + f[d] * g->dil[d];
        if (pos[d] < 0 || pos[d] >= g->in[d])
            return false;
    }
    return true;
}

/* Output position that reads input h through filter offset f; false when there is none. */
static bool out_pos(const conv_geom *g, const int64_t h[3], const int64_t f[3], int64_t o[3])
{
    for (int d = 0; d < 3; d++) {
        int64_t t = h[d] + g->pre[d] - f[d] * g->dil[d];
        if (t < 0 || t % g->stride[d] != 0 || t / g->stride[d] >= g->out[d])
            return false;
        o[d] = t / g->stride[d];
    }
    return true;
}

static double fwd_one(const conv_geom *g, const ir_buf *x, const ir_buf *w, int64_t n, int64_t k,
                      const int64_t o[3])
{
    int64_t f[3] = {0, 0, 0}, pos[3], t[3], xi[5], wi[5];
    int64_t c0 = k / g->kg * g->cg;
    double acc = 0.0;
    do {
        if (!in_pos(g, o, f, pos))
            continue;
        for (int d = 0; d < 3; d++)
            t[d] = tap(g, d, f[d]);
        for (int64_t c = 0; c < g->cg; c++) {
            make_idx(g, n, c0 + c, pos, xi);
            make_idx(g, k, c, t, wi);
            acc += ir_load(x, xi) * ir_load(w, wi);
        }
    } while (next3(f, g->flt));
    return acc;
}

static double dgrad_one(const conv_geom *g, const ir_buf *dy, const ir_buf *w, int64_t n,
                        int64_t ci, const int64_t h[3])
{
    int64_t f[3] = {0, 0, 0}, o[3], t[3], yi[5], wi[5];
    int64_t k0 = ci / g->cg * g->kg, c = ci % g->cg;
    double acc = 0.0;
    do {
        if (!out_pos(g, h, f, o))
            continue;
        for (int d = 0; d < 3; d++)
            t[d] = tap(g, d, f[d]);
        for (int64_t k = k0; k < k0 + g->kg; k++) {
            make_idx(g, n, k, o, yi);
            make_idx(g, k, c, t, wi);
            acc += ir_load(dy, yi) * ir_load(w, wi);
        }
    } while (next3(f, g->flt));
    return acc;
}

static double wgrad_one(const conv_geom *g, const ir_buf *x, const ir_buf *dy, int64_t k,
                        int64_t c, const int64_t t[3])
{
    int64_t f[3], o[3] = {0, 0, 0}, pos[3], xi[5], yi[5];
    int64_t ci = k / g->kg * g->cg + c;
    for (int d = 0; d < 3; d++)
        f[d] = tap(g, d, t[d]); /* tap() is its own inverse */
    double acc = 0.0;
    do {
        if (!in_pos(g, o, f, pos))
            continue;
        for (int64_t n = 0; n < g->n; n++) {
            make_idx(g, n, ci, pos, xi);
            make_idx(g, n, k, o, yi);
            acc += ir_load(x, xi) * ir_load(dy, yi);
        }
    } while (next3(o, g->out));
    return acc;
}

/* One output element of the op kind k at index idx of its output. */
static double conv_one(ir_op_kind kind, const conv_geom *g, const ir_buf *in0, const ir_buf *in1,
                       const int64_t *idx)
{
    int64_t s[3];
    if (g->empty)
        return 0.0;
    spatial_of(g, idx, s);
    if (kind == IR_OP_CONV_FWD) /* only the three convolutions get here (ir_ref_conv) */
        return fwd_one(g, in0, in1, idx[0], idx[1], s);
    if (kind == IR_OP_CONV_DGRAD)
        return dgrad_one(g, in0, in1, idx[0], idx[1], s);
    return wgrad_one(g, in0, in1, idx[0], idx[1], s);
}

hipdnnStatus_t ir_ref_conv(ir_op_kind k, const ir_conv *p, const ir_ref_ctx *c)
{
    const ir_buf *in0 = IR_IN(c, 0), *in1 = IR_IN(c, 1);
    ir_buf *out = IR_OUT(c, 0);
    conv_geom g;
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    if ((int)k < 0 || k >= IR_OP_COUNT)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "conv: op kind %d is not a conv", (int)k);
    switch (k) {
    case IR_OP_CONV_FWD: st = geometry(&g, p, in0, in1, out); break;
    case IR_OP_CONV_DGRAD: st = geometry(&g, p, out, in1, in0); break;
    case IR_OP_CONV_WGRAD: st = geometry(&g, p, in0, out, in1); break;
    case IR_OP_POINTWISE: case IR_OP_MATMUL: case IR_OP_BN_INFER: case IR_OP_BN_TRAIN:
    case IR_OP_BN_BWD: case IR_OP_GENSTATS: case IR_OP_LAYERNORM: case IR_OP_RMSNORM:
    case IR_OP_SDPA_FWD: case IR_OP_SDPA_BWD: case IR_OP_BS_QUANTIZE: case IR_OP_BS_DEQUANTIZE:
    case IR_OP_PAGED_CACHE_LOAD: case IR_OP_CUSTOM: case IR_OP_COUNT:
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "conv: op kind %d is not a conv", (int)k);
    }
    if (st != HIPDNN_STATUS_SUCCESS || ir_buf_numel(out) == 0)
        return st;
    int64_t idx[5] = {0};
    do
        ir_store(out, idx, conv_one(k, &g, in0, in1, idx));
    while (ir_next_index(out, idx));
    return HIPDNN_STATUS_SUCCESS;
}
