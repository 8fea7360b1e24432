/* fe_ops_check.c — the finalize-time rules of every OPERATION_* descriptor.
 *
 * Owns: fe_check_op, the finalize hook of every operation class (fe_schema_ops.c). It runs
 * after the generic checks of fe_desc.c (required attributes set, types, counts, enum ranges,
 * tensor descriptors finalized) and dispatches on the descriptor type to one small function
 * per operation family: shapes that must agree, attributes that come in pairs, values that
 * must lie in a range. Rules read tensor dims only, never strides (a size-1 dim's stride is
 * meaningless, op-semantics.md §0.4), so they hold for any stride order. A failing rule
 * returns BAD_PARAM with a message naming the descriptor type, the attribute(s) and the
 * offending dims or values; nothing here modifies the object.
 * Does not own: attribute tables (fe_schema_ops.c), tensor validity (fe_tensor.c), graph
 * structure (fe_graph.c), the SDPA score modifier's sub-graph rules (fe_score_mod.c), or whether an engine can run the op (decided at plan time).
 * Tensor letters follow op-semantics.md: conv X [N,C,spatial..], W [K,C/G,spatial..];
 * matmul A [..,M,K], B [..,K,N]; attention Q [B,Hq,Sq,D], K [B,Hk,Skv,D], V [B,Hv,Skv,Dv].
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "frontend/fe_int.h"

#define OK HIPDNN_STATUS_SUCCESS
#define TRY(e)                                                                                   \
    do {                                                                                        \
        hipdnnStatus_t st_ = (e);                                                               \
        if (st_ != OK)                                                                          \
            return st_;                                                                         \
    } while (0)

/* ---- helpers ------------------------------------------------------------------------------------ */

/* A tensor-valued attribute: its short name for messages ("A", "INV_VARIANCE") and, when set,
 * the tensor. */
typedef struct port {
    const char *name;
    bool set;
    fe_tensor_view t;
} port;

static port port_of(fe_obj *op, hipdnnBackendAttributeName_t id, const char *name)
{
    fe_val *v = fe_get(op, id);
    port p = {.name = name, .set = v != NULL && v->n > 0};
    if (p.set)
        p.t = fe_tensor(v->one.obj);
    return p;
}
#define PORT(ID, NAME) port_of(op, ID, NAME)

/* "[4,64,32]"; a negative entry (an expected dim that may be anything) prints as "*". */
typedef struct dims_text {
    char s[FE_MAX_RANK * 21 + 3];
} dims_text;

static dims_text dims_str(int rank, const int64_t *d)
{
    dims_text out = {.s = "["};
    size_t len = 1;
    for (int i = 0; i < rank && len < sizeof out.s; i++) {
        const char *sep = i > 0 ? "," : "";
        len += (size_t)(d[i] < 0 ? snprintf(out.s + len, sizeof out.s - len, "%s*", sep)
                                 : snprintf(out.s + len, sizeof out.s - len, "%s%lld", sep,
                                            (long long)d[i]));
    }
    if (len < sizeof out.s - 1)
        memcpy(out.s + len, "]", 2);
    return out;
}
#define DIMS(p) dims_str((p)->t.rank, (p)->t.dims).s

/* Raises BAD_PARAM with "<descriptor type>: <message>". */
static hipdnnStatus_t bad(const fe_obj *op, const char *fmt, ...) BASE_PRINTF(2, 3);
static hipdnnStatus_t bad(const fe_obj *op, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: %s", op->cls->name, msg);
}

static bool has(fe_obj *op, hipdnnBackendAttributeName_t id)
{
    fe_val *v = fe_get(op, id);
    return v != NULL && v->n > 0;
}
static bool flag(fe_obj *op, hipdnnBackendAttributeName_t id)
{
    return has(op, id) && fe_get(op, id)->one.b;
}
static const char *attr_name(const fe_obj *op, hipdnnBackendAttributeName_t id)
{
    return fe_find_attr(op->cls, id)->name;
}

static bool dims_equal(const port *a, int rank, const int64_t *dims)
{
    if (a->t.rank != rank)
        return false;
    for (int i = 0; i < rank; i++)
        if (dims[i] >= 0 && a->t.dims[i] != dims[i])
            return false;
    return true;
}

static bool is_scalar(const port *p)
{
    for (int i = 0; i < p->t.rank; i++)
        if (p->t.dims[i] != 1)
            return false;
    return true;
}

/* a * b, or INT64_MAX when that overflows (a capacity that large never limits anything). */
static int64_t mul_sat(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* Each rule below passes when its (optional) tensor is unset; required ones are already set. */

static hipdnnStatus_t need_rank(fe_obj *op, const port *p, int lo, int hi)
{
    if (!p->set || (p->t.rank >= lo && p->t.rank <= hi))
        return OK;
    if (lo == hi)
        return bad(op, "%s %s has rank %d, must have rank %d", p->name, DIMS(p), p->t.rank, lo);
    return bad(op, "%s %s has rank %d, must have rank %d..%d", p->name, DIMS(p), p->t.rank, lo, hi);
}

/* p's dims are exactly `want` (entries < 0 match anything); `what` describes the shape. */
static hipdnnStatus_t need_shape(fe_obj *op, const port *p, int rank, const int64_t *want,
                                 const char *what)
{
    if (!p->set || dims_equal(p, rank, want))
        return OK;
    return bad(op, "%s %s must be %s (%s)", p->name, DIMS(p), dims_str(rank, want).s, what);
}

static hipdnnStatus_t need_same(fe_obj *op, const port *p, const port *ref)
{
    if (!p->set || !ref->set || dims_equal(p, ref->t.rank, ref->t.dims))
        return OK;
    return bad(op, "%s %s must have the dims of %s %s", p->name, DIMS(p), ref->name, DIMS(ref));
}

static hipdnnStatus_t need_scalar(fe_obj *op, const port *p)
{
    if (!p->set || is_scalar(p))
        return OK;
    return bad(op, "%s %s must be a scalar (all dims 1)", p->name, DIMS(p));
}

/* Numpy broadcasting onto an output of equal rank: every dim equals the target's or is 1
 * (target entries < 0 are unknown and accept anything). */
static hipdnnStatus_t need_broadcast(fe_obj *op, const port *p, int rank, const int64_t *to,
                                     const char *what)
{
    if (!p->set)
        return OK;
    if (p->t.rank != rank)
        return bad(op, "%s %s has rank %d, %s %s has rank %d (ranks must be equal)", p->name,
                   DIMS(p), p->t.rank, what, dims_str(rank, to).s, rank);
    for (int i = 0; i < rank; i++)
        if (p->t.dims[i] != 1 && to[i] >= 0 && p->t.dims[i] != to[i])
            return bad(op, "%s %s does not broadcast to %s %s: dim %d is %lld, must be %lld or 1",
                       p->name, DIMS(p), what, dims_str(rank, to).s, i, (long long)p->t.dims[i],
                       (long long)to[i]);
    return OK;
}

/* A per-channel tensor of x: x's rank, dim 1 == C, every other dim 1. */
static hipdnnStatus_t need_per_channel(fe_obj *op, const port *p, const port *x)
{
    int64_t want[FE_MAX_RANK];
    for (int i = 0; i < x->t.rank; i++)
        want[i] = i == 1 ? x->t.dims[1] : 1;
    return need_shape(op, p, x->t.rank, want, "per-channel [1,C,1,..] of X");
}

static hipdnnStatus_t need_int(fe_obj *op, const port *p)
{
    if (!p->set || p->t.dtype == HIPDNN_DATA_INT32 || p->t.dtype == HIPDNN_DATA_INT64)
        return OK;
    return bad(op, "%s has data type %s, must be INT32 or INT64", p->name, fe_dtype_name(p->t.dtype));
}

/* The ports are all set or all unset. */
static hipdnnStatus_t need_together(fe_obj *op, const port *ps, int n)
{
    int n_set = 0, one_set = 0, one_unset = 0;
    for (int i = 0; i < n; i++) {
        n_set += ps[i].set;
        if (ps[i].set && !ps[one_set].set)
            one_set = i;
        if (!ps[i].set && ps[one_unset].set)
            one_unset = i;
    }
    if (n_set == 0 || n_set == n)
        return OK;
    char names[256] = "";
    for (int i = 0; i < n; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                 i == 0 ? "" : i == n - 1 ? " and " : ", ", ps[i].name);
    return bad(op, "%s must be set together (%s is set, %s is not)", names, ps[one_set].name,
               ps[one_unset].name);
}

/* ---- pointwise (op-semantics §0.4, §2.2) ------------------------------------------------------- */

static int pw_inputs(int mode)
{
    switch (mode) {
    case HIPDNN_POINTWISE_BINARY_SELECT: return 3;
    case HIPDNN_POINTWISE_ADD: case HIPDNN_POINTWISE_ADD_SQUARE: case HIPDNN_POINTWISE_DIV:
    case HIPDNN_POINTWISE_MAX: case HIPDNN_POINTWISE_MIN: case HIPDNN_POINTWISE_MUL:
    case HIPDNN_POINTWISE_SUB: case HIPDNN_POINTWISE_CMP_EQ: case HIPDNN_POINTWISE_CMP_NEQ:
    case HIPDNN_POINTWISE_CMP_GT: case HIPDNN_POINTWISE_CMP_GE: case HIPDNN_POINTWISE_CMP_LT:
    case HIPDNN_POINTWISE_CMP_LE: case HIPDNN_POINTWISE_LOGICAL_AND:
    case HIPDNN_POINTWISE_LOGICAL_OR: case HIPDNN_POINTWISE_RELU_BWD:
    case HIPDNN_POINTWISE_TANH_BWD: case HIPDNN_POINTWISE_SIGMOID_BWD:
    case HIPDNN_POINTWISE_ELU_BWD: case HIPDNN_POINTWISE_GELU_BWD:
    case HIPDNN_POINTWISE_GELU_APPROX_TANH_BWD: case HIPDNN_POINTWISE_SOFTPLUS_BWD:
    case HIPDNN_POINTWISE_SWISH_BWD: return 2;
    default: return 1;
    }
}

static hipdnnStatus_t pw_arity(fe_obj *op, int mode, const port in[3])
{
    int n = pw_inputs(mode);
    const char *name = fe_enum_to_name("PointwiseMode", mode);
    for (int i = 1; i < 3; i++) {
        if (i < n && !in[i].set)
            return bad(op, "mode %s takes %d inputs but %s is not set", name, n, in[i].name);
        if (i >= n && in[i].set)
            return bad(op, "mode %s takes %d input(s); %s must not be set", name, n, in[i].name);
    }
    return OK;
}

static hipdnnStatus_t pw_params(fe_obj *op, int mode, int rank)
{
    if (mode == HIPDNN_POINTWISE_GEN_INDEX) {
        if (!has(op, HIPDNN_ATTR_POINTWISE_AXIS))
            return bad(op, "mode GEN_INDEX needs HIPDNN_ATTR_POINTWISE_AXIS");
        int64_t axis = fe_get(op, HIPDNN_ATTR_POINTWISE_AXIS)->one.i64;
        if (axis < 0 || axis >= rank)
            return bad(op, "HIPDNN_ATTR_POINTWISE_AXIS %lld is outside [0, %d) for OUT_0 of rank %d",
                       (long long)axis, rank, rank);
    }
    bool relu = mode == HIPDNN_POINTWISE_RELU_FWD || mode == HIPDNN_POINTWISE_RELU_BWD;
    if (relu && has(op, HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP) &&
        has(op, HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP)) {
        float lo = fe_get(op, HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP)->one.f32;
        float hi = fe_get(op, HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP)->one.f32;
        if (!(lo <= hi))
            return bad(op, "HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP %g exceeds "
                       "HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP %g", (double)lo, (double)hi);
    }
    return OK;
}

/* Inputs broadcast onto OUT_0 (the output's shape is given, never deduced, at this level). A
 * scalar (every dim 1) of lower rank broadcasts too: hipDNN's frontends pass a by-value
 * scalar as [1] whatever OUT_0's rank (lowering widens it, fe_lower.c). */
static hipdnnStatus_t check_pointwise(fe_obj *op)
{
    int mode = fe_get(op, HIPDNN_ATTR_POINTWISE_MODE)->one.e;
    port in[3] = {PORT(HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, "IN_0"),
                  PORT(HIPDNN_ATTR_OPERATION_POINTWISE_IN_1_EXT, "IN_1"),
                  PORT(HIPDNN_ATTR_OPERATION_POINTWISE_IN_2_EXT, "IN_2")};
    port out = PORT(HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, "OUT_0");
    TRY(pw_arity(op, mode, in));
    for (int i = 0; i < 3; i++)
        if (!(in[i].set && in[i].t.rank < out.t.rank && is_scalar(&in[i])))
            TRY(need_broadcast(op, &in[i], out.t.rank, out.t.dims, "OUT_0"));
    return pw_params(op, mode, out.t.rank);
}

/* ---- matmul (§2.1) -------------------------------------------------------------------------------- */

/* A batch dim of an input may equal C's, be 1, or divide it (grouped broadcast: GQA heads). */
static hipdnnStatus_t mm_batch(fe_obj *op, const port *in, const port *c, int i)
{
    int64_t x = in->t.dims[i], y = c->t.dims[i];
    if (y % x == 0)
        return OK;
    return bad(op, "batch dim %d of %s %s is %lld; it must equal C's (%lld), be 1 or divide it "
               "(C %s)", i, in->name, DIMS(in), (long long)x, (long long)y, DIMS(c));
}

static hipdnnStatus_t check_matmul(fe_obj *op)
{
    port a = PORT(HIPDNN_ATTR_OPERATION_MATMUL_ADESC, "A");
    port b = PORT(HIPDNN_ATTR_OPERATION_MATMUL_BDESC, "B");
    port c = PORT(HIPDNN_ATTR_OPERATION_MATMUL_CDESC, "C");
    int r = a.t.rank;
    if (r < 2 || b.t.rank != r || c.t.rank != r)
        return bad(op, "A %s, B %s and C %s must have the same rank >= 2", DIMS(&a), DIMS(&b),
                   DIMS(&c));
    const int64_t *A = a.t.dims, *B = b.t.dims, *C = c.t.dims;
    if (A[r - 1] != B[r - 2])
        return bad(op, "A %s and B %s disagree on K (%lld vs %lld)", DIMS(&a), DIMS(&b),
                   (long long)A[r - 1], (long long)B[r - 2]);
    if (C[r - 2] != A[r - 2])
        return bad(op, "C %s and A %s disagree on M (%lld vs %lld)", DIMS(&c), DIMS(&a),
                   (long long)C[r - 2], (long long)A[r - 2]);
    if (C[r - 1] != B[r - 1])
        return bad(op, "C %s and B %s disagree on N (%lld vs %lld)", DIMS(&c), DIMS(&b),
                   (long long)C[r - 1], (long long)B[r - 1]);
    for (int i = 0; i < r - 2; i++) {
        TRY(mm_batch(op, &a, &c, i));
        TRY(mm_batch(op, &b, &c, i));
    }
    return OK;
}

/* ---- convolutions (§1.2) ------------------------------------------------------------------------ */

/* The shared parameter arrays, one entry per spatial dim, and each entry's lower bound. */
static const struct {
    hipdnnBackendAttributeName_t id;
    int64_t min;
} conv_params[4] = {
    {HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS, 0},
    {HIPDNN_ATTR_CONVOLUTION_POST_PADDINGS, 0},
    {HIPDNN_ATTR_CONVOLUTION_FILTER_STRIDES, 1},
    {HIPDNN_ATTR_CONVOLUTION_DILATIONS, 1},
};
enum { PRE, POST, STRIDE, DIL };

static hipdnnStatus_t conv_param_check(fe_obj *op, int k, int nsp, const int64_t **out)
{
    fe_val *v = fe_get(op, conv_params[k].id);
    const char *name = attr_name(op, conv_params[k].id);
    const int64_t *e = v->arr;
    if (v->n != nsp)
        return bad(op, "%s has %lld entries; the tensors have %d spatial dims", name,
                   (long long)v->n, nsp);
    for (int i = 0; i < nsp; i++)
        if (e[i] < conv_params[k].min)
            return bad(op, "%s entry %d is %lld, must be >= %lld", name, i, (long long)e[i],
                       (long long)conv_params[k].min);
    *out = e;
    return OK;
}

static hipdnnStatus_t conv_channels(fe_obj *op, const port *x, const port *w, const port *y)
{
    int64_t n = x->t.dims[0], c = x->t.dims[1], cw = w->t.dims[1], k = w->t.dims[0];
    if (c % cw != 0)
        return bad(op, "C of %s %s (%lld) is not a multiple of C of %s %s (%lld): the group count "
                   "C(X)/C(W) must be a whole number", x->name, DIMS(x), (long long)c, w->name,
                   DIMS(w), (long long)cw);
    if (k % (c / cw) != 0)
        return bad(op, "K of %s %s (%lld) is not divisible by the group count %lld = C(X)/C(W)",
                   w->name, DIMS(w), (long long)k, (long long)(c / cw));
    if (y->t.dims[0] != n)
        return bad(op, "N of %s %s (%lld) differs from N of %s %s (%lld)", y->name, DIMS(y),
                   (long long)y->t.dims[0], x->name, DIMS(x), (long long)n);
    if (y->t.dims[1] != k)
        return bad(op, "channels of %s %s (%lld) differ from K of %s %s (%lld)", y->name, DIMS(y),
                   (long long)y->t.dims[1], w->name, DIMS(w), (long long)k);
    return OK;
}

/* out = 1 + (in + pre + post - dil*(k-1) - 1) / stride must be >= 1 and match y. */
static hipdnnStatus_t conv_spatial(fe_obj *op, const port *x, const port *w, const port *y, int i,
                                   const int64_t *p[4])
{
    int64_t in = x->t.dims[2 + i], k = w->t.dims[2 + i], span, padded, num;
    if (__builtin_mul_overflow(p[DIL][i], k - 1, &span) || __builtin_add_overflow(span, 1, &span) ||
        __builtin_add_overflow(in, p[PRE][i], &padded) ||
        __builtin_add_overflow(padded, p[POST][i], &padded))
        return bad(op, "spatial dim %d: padding or dilation overflows int64", i);
    num = padded - span; /* both >= 0: no overflow */
    if (num < 0)
        return bad(op, "spatial dim %d: the dilated filter (%lld) is larger than the padded input "
                   "(%lld); the output would be empty (%s %s, %s %s)", i, (long long)span,
                   (long long)padded, x->name, DIMS(x), w->name, DIMS(w));
    int64_t out = 1 + num / p[STRIDE][i];
    if (out != y->t.dims[2 + i])
        return bad(op, "spatial dim %d of %s %s is %lld, but %s %s and %s %s with padding %lld+%lld, "
                   "stride %lld, dilation %lld give %lld", i, y->name, DIMS(y),
                   (long long)y->t.dims[2 + i], x->name, DIMS(x), w->name, DIMS(w),
                   (long long)p[PRE][i], (long long)p[POST][i], (long long)p[STRIDE][i],
                   (long long)p[DIL][i], (long long)out);
    return OK;
}

/* x [N,C,sp..], w [K,C/G,sp..], y [N,K,sp..] — for dgrad x = DX, y = DY; for wgrad w = DW. */
static hipdnnStatus_t check_conv(fe_obj *op, port x, port w, port y)
{
    int r = x.t.rank;
    if (r < 4 || r > 5 || w.t.rank != r || y.t.rank != r)
        return bad(op, "%s %s, %s %s and %s %s must all have rank 4 or all rank 5", x.name,
                   DIMS(&x), w.name, DIMS(&w), y.name, DIMS(&y));
    const int64_t *p[4];
    for (int k = 0; k < 4; k++)
        TRY(conv_param_check(op, k, r - 2, &p[k]));
    TRY(conv_channels(op, &x, &w, &y));
    for (int i = 0; i < r - 2; i++)
        TRY(conv_spatial(op, &x, &w, &y, i, p));
    return OK;
}

/* ---- batchnorm family, gen-stats (§3.1–3.5) --------------------------------------------------- */

static hipdnnStatus_t need_per_channel_all(fe_obj *op, const port *ps, int n, const port *x)
{
    for (int i = 0; i < n; i++)
        TRY(need_per_channel(op, &ps[i], x));
    return OK;
}

static hipdnnStatus_t check_bn_inference(fe_obj *op)
{
    port x = PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_X_EXT, "X");
    port y = PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_Y_EXT, "Y");
    port pc[] = {PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_MEAN_EXT, "MEAN"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_INV_VARIANCE_EXT, "INV_VARIANCE"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_SCALE_EXT, "SCALE"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_BIAS_EXT, "BIAS")};
    TRY(need_rank(op, &x, 2, FE_MAX_RANK));
    TRY(need_same(op, &y, &x));
    return need_per_channel_all(op, pc, 4, &x);
}

static hipdnnStatus_t check_bn_inference_variance(fe_obj *op)
{
    port x = PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_X_EXT, "X");
    port y = PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_Y_EXT, "Y");
    port eps = PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_EPSILON_EXT, "EPSILON");
    port pc[] = {PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_MEAN_EXT, "MEAN"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_VARIANCE_EXT, "VARIANCE"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_SCALE_EXT, "SCALE"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_BIAS_EXT, "BIAS")};
    TRY(need_rank(op, &x, 2, FE_MAX_RANK));
    TRY(need_same(op, &y, &x));
    TRY(need_scalar(op, &eps));
    return need_per_channel_all(op, pc, 4, &x);
}

/* Running statistics: PREV mean/variance and MOMENTUM all or none; NEXT ones iff PREV ones. */
static hipdnnStatus_t bn_running(fe_obj *op, const port prev[3], const port next[2])
{
    TRY(need_together(op, prev, 3));
    for (int i = 0; i < 2; i++) {
        if (prev[0].set && !next[i].set)
            return bad(op, "%s must be set when the running statistics (%s, %s) are given",
                       next[i].name, prev[0].name, prev[1].name);
        if (!prev[0].set && next[i].set)
            return bad(op, "%s is set but %s, %s and %s are not", next[i].name, prev[0].name,
                       prev[1].name, prev[2].name);
    }
    return OK;
}

static hipdnnStatus_t check_bn_training(fe_obj *op)
{
    port x = PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_X_EXT, "X");
    port y = PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_Y_EXT, "Y");
    port eps = PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_EPSILON_EXT, "EPSILON");
    port prev[3] = {PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_PREV_RUNNING_MEAN_EXT, "PREV_RUNNING_MEAN"),
                    PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_PREV_RUNNING_VARIANCE_EXT,
                         "PREV_RUNNING_VARIANCE"),
                    PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_MOMENTUM_EXT, "MOMENTUM")};
    port next[2] = {PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_NEXT_RUNNING_MEAN_EXT, "NEXT_RUNNING_MEAN"),
                    PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_NEXT_RUNNING_VARIANCE_EXT,
                         "NEXT_RUNNING_VARIANCE")};
    port pc[] = {PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_SCALE_EXT, "SCALE"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_BIAS_EXT, "BIAS"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_MEAN_EXT, "MEAN"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INV_VARIANCE_EXT, "INV_VARIANCE"),
                 prev[0], prev[1], next[0], next[1]};
    TRY(need_rank(op, &x, 2, FE_MAX_RANK));
    TRY(need_same(op, &y, &x));
    TRY(need_scalar(op, &eps));
    TRY(need_scalar(op, &prev[2]));
    TRY(need_per_channel_all(op, pc, 8, &x));
    return bn_running(op, prev, next);
}

static hipdnnStatus_t check_bn_backward(fe_obj *op)
{
    port x = PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_X_EXT, "X");
    port same[] = {PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DY_EXT, "DY"),
                   PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DX_EXT, "DX")};
    port pc[] = {PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_MEAN_EXT, "MEAN"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_INV_VARIANCE_EXT, "INV_VARIANCE"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_SCALE_EXT, "SCALE"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DSCALE_EXT, "DSCALE"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DBIAS_EXT, "DBIAS")};
    TRY(need_rank(op, &x, 2, FE_MAX_RANK));
    TRY(need_same(op, &same[0], &x));
    TRY(need_same(op, &same[1], &x));
    TRY(need_per_channel_all(op, pc, 5, &x));
    return need_together(op, pc, 2);
}

/* Gen-stats reduces over N and the spatial dims, so X needs a channel dim: rank >= 2. */
static hipdnnStatus_t check_gen_stats(fe_obj *op)
{
    port x = PORT(HIPDNN_ATTR_OPERATION_GENSTATS_XDESC_EXT, "X");
    port pc[] = {PORT(HIPDNN_ATTR_OPERATION_GENSTATS_SUMDESC_EXT, "SUM"),
                 PORT(HIPDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC_EXT, "SQ_SUM")};
    TRY(need_rank(op, &x, 2, FE_MAX_RANK));
    TRY(need_per_channel_all(op, pc, 2, &x));
    if (has(op, HIPDNN_ATTR_OPERATION_GENSTATS_MODE_EXT) &&
        fe_get(op, HIPDNN_ATTR_OPERATION_GENSTATS_MODE_EXT)->one.i64 != 0)
        return bad(op, "HIPDNN_ATTR_OPERATION_GENSTATS_MODE_EXT is %lld; only 0 (SUM_SQSUM) exists",
                   (long long)fe_get(op, HIPDNN_ATTR_OPERATION_GENSTATS_MODE_EXT)->one.i64);
    return OK;
}

/* ---- layernorm, rmsnorm (§3.6, §3.7) ---------------------------------------------------------- */

/* Without NORMALIZED_DIM_COUNT (or with 0, its serialized default) the normalized dims run
 * from scale's first non-1 dim after dim 0 (always a batch dim) to the end: X [N,C,1,1] with
 * scale [1,C,1,1] normalizes dims 1..3, X [B,S,D] with scale [1,1,D] the last one; an
 * all-ones scale means the last dim. */
int fe_norm_infer_dims(const int64_t *scale_dims, int scale_rank, int x_rank)
{
    for (int i = 1; i < scale_rank && i < x_rank; i++)
        if (scale_dims[i] != 1)
            return x_rank - i;
    return 1;
}

static int norm_infer_dims(const port *x, const port *scale)
{
    return fe_norm_infer_dims(scale->t.dims, scale->t.rank, x->t.rank);
}

/* Scale/bias: 1 on the leading dims, X's dims on the n normalized ones. Stats: the reverse. */
static hipdnnStatus_t norm_shapes(fe_obj *op, const port *x, int n, const port *w, int n_w,
                                  const port *stats, int n_stats)
{
    int r = x->t.rank;
    int64_t want_w[FE_MAX_RANK], want_s[FE_MAX_RANK];
    for (int i = 0; i < r; i++) {
        want_w[i] = i < r - n ? 1 : x->t.dims[i];
        want_s[i] = i < r - n ? x->t.dims[i] : 1;
    }
    char what_w[96], what_s[96];
    snprintf(what_w, sizeof what_w, "1 on the leading dims, X's on the %d normalized dim(s)", n);
    snprintf(what_s, sizeof what_s, "X's dims with the %d normalized dim(s) set to 1", n);
    for (int i = 0; i < n_w; i++)
        TRY(need_shape(op, &w[i], r, want_w, what_w));
    for (int i = 0; i < n_stats; i++)
        TRY(need_shape(op, &stats[i], r, want_s, what_s));
    return OK;
}

/* TRAINING writes the statistics, INFERENCE must not be given any. */
static hipdnnStatus_t norm_phase(fe_obj *op, hipdnnBackendAttributeName_t phase_id,
                                 const port *stats, int n)
{
    bool training = fe_get(op, phase_id)->one.e == HIPDNN_NORM_FWD_TRAINING;
    for (int i = 0; i < n; i++) {
        if (training && !stats[i].set)
            return bad(op, "%s is TRAINING, which requires %s", attr_name(op, phase_id),
                       stats[i].name);
        if (!training && stats[i].set)
            return bad(op, "%s is INFERENCE; %s must not be set", attr_name(op, phase_id),
                       stats[i].name);
    }
    return OK;
}

static hipdnnStatus_t check_layernorm(fe_obj *op)
{
    port x = PORT(HIPDNN_ATTR_OPERATION_LAYERNORM_X_EXT, "X");
    port y = PORT(HIPDNN_ATTR_OPERATION_LAYERNORM_Y_EXT, "Y");
    port eps = PORT(HIPDNN_ATTR_OPERATION_LAYERNORM_EPSILON_EXT, "EPSILON");
    port w[2] = {PORT(HIPDNN_ATTR_OPERATION_LAYERNORM_SCALE_EXT, "SCALE"),
                 PORT(HIPDNN_ATTR_OPERATION_LAYERNORM_BIAS_EXT, "BIAS")};
    port stats[2] = {PORT(HIPDNN_ATTR_OPERATION_LAYERNORM_MEAN_EXT, "MEAN"),
                     PORT(HIPDNN_ATTR_OPERATION_LAYERNORM_INV_VARIANCE_EXT, "INV_VARIANCE")};
    TRY(need_rank(op, &x, 2, FE_MAX_RANK));
    TRY(need_same(op, &y, &x));
    TRY(need_scalar(op, &eps));
    int n = norm_infer_dims(&x, &w[0]);
    /* 0 is the serialized field's default (a graph cannot say "unset" any other way): infer */
    if (has(op, HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT) &&
        fe_get(op, HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT)->one.i64 != 0) {
        int64_t c = fe_get(op, HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT)->one.i64;
        if (c < 1 || c > x.t.rank - 1)
            return bad(op, "HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT %lld is "
                       "outside [1, %d] for X %s", (long long)c, x.t.rank - 1, DIMS(&x));
        n = (int)c;
    }
    TRY(norm_phase(op, HIPDNN_ATTR_OPERATION_LAYERNORM_FWD_PHASE_EXT, stats, 2));
    return norm_shapes(op, &x, n, w, 2, stats, 2);
}

/* RMSNorm has no dim-count attribute: the normalized dims are inferred from SCALE, which (like
 * BIAS) has X's rank; a 1-D [D] scale is not accepted. */
static hipdnnStatus_t check_rmsnorm(fe_obj *op)
{
    port x = PORT(HIPDNN_ATTR_OPERATION_RMSNORM_X_EXT, "X");
    port y = PORT(HIPDNN_ATTR_OPERATION_RMSNORM_Y_EXT, "Y");
    port eps = PORT(HIPDNN_ATTR_OPERATION_RMSNORM_EPSILON_EXT, "EPSILON");
    port w[2] = {PORT(HIPDNN_ATTR_OPERATION_RMSNORM_SCALE_EXT, "SCALE"),
                 PORT(HIPDNN_ATTR_OPERATION_RMSNORM_BIAS_EXT, "BIAS")};
    port inv = PORT(HIPDNN_ATTR_OPERATION_RMSNORM_INV_RMS_EXT, "INV_RMS");
    TRY(need_rank(op, &x, 2, FE_MAX_RANK));
    TRY(need_same(op, &y, &x));
    TRY(need_scalar(op, &eps));
    TRY(norm_phase(op, HIPDNN_ATTR_OPERATION_RMSNORM_FWD_PHASE_EXT, &inv, 1));
    return norm_shapes(op, &x, norm_infer_dims(&x, &w[0]), w, 2, &inv, 1);
}

/* ---- SDPA forward and backward (§4.1, §4.2, §4.4, §4.8, §4.10) ----------------------------------- */

/* The attributes both SDPA descriptors share, by id. */
typedef struct sdpa_ids {
    hipdnnBackendAttributeName_t q, k, v, o, mask, scale, seq_q, seq_kv, seed, offset, drop_mask,
        drop_scale, alibi, padding, causal, causal_br, prob, scale_value, left, right;
} sdpa_ids;

static const sdpa_ids sdpa_fwd_ids = {
    HIPDNN_ATTR_OPERATION_SDPA_FWD_QDESC, HIPDNN_ATTR_OPERATION_SDPA_FWD_KDESC,
    HIPDNN_ATTR_OPERATION_SDPA_FWD_VDESC, HIPDNN_ATTR_OPERATION_SDPA_FWD_ODESC,
    HIPDNN_ATTR_OPERATION_SDPA_FWD_ATTN_MASK_EXT, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC,
    HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC, HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC,
    HIPDNN_ATTR_OPERATION_SDPA_FWD_SEED_EXT, HIPDNN_ATTR_OPERATION_SDPA_FWD_OFFSET_EXT,
    HIPDNN_ATTR_OPERATION_SDPA_FWD_DROPOUT_MASK_EXT, HIPDNN_ATTR_OPERATION_SDPA_FWD_DROPOUT_SCALE_EXT,
    HIPDNN_ATTR_SDPA_FWD_ALIBI_MASK_EXT, HIPDNN_ATTR_SDPA_FWD_PADDING_MASK_EXT,
    HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_EXT, HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_BOTTOM_RIGHT_EXT,
    HIPDNN_ATTR_SDPA_FWD_DROPOUT_PROBABILITY_EXT, HIPDNN_ATTR_SDPA_FWD_ATTN_SCALE_VALUE_EXT,
    HIPDNN_ATTR_SDPA_FWD_LEFT_BOUND_EXT, HIPDNN_ATTR_SDPA_FWD_RIGHT_BOUND_EXT,
};
static const sdpa_ids sdpa_bwd_ids = {
    HIPDNN_ATTR_OPERATION_SDPA_BWD_Q_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_K_EXT,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_V_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_O_EXT,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_ATTN_MASK_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_SCALE_EXT,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_Q_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KV_EXT,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_SEED_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_OFFSET_EXT,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_MASK_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_SCALE_EXT,
    HIPDNN_ATTR_SDPA_BWD_ALIBI_MASK_EXT, HIPDNN_ATTR_SDPA_BWD_PADDING_MASK_EXT,
    HIPDNN_ATTR_SDPA_BWD_CAUSAL_MASK_EXT, HIPDNN_ATTR_SDPA_BWD_CAUSAL_MASK_BOTTOM_RIGHT_EXT,
    HIPDNN_ATTR_SDPA_BWD_DROPOUT_PROBABILITY_EXT, HIPDNN_ATTR_SDPA_BWD_ATTN_SCALE_VALUE_EXT,
    HIPDNN_ATTR_SDPA_BWD_LEFT_BOUND_EXT, HIPDNN_ATTR_SDPA_BWD_RIGHT_BOUND_EXT,
};

typedef struct sdpa {
    const sdpa_ids *id;
    port q, k, v, o, mask, seq_q, seq_kv;
    bool paged;          /* K and V are paged containers [nblk, H, bs, D] */
    int64_t b, hq, sq, skv, dv; /* skv < 0: unknown (paged without MAX_SEQ_LEN_KV) */
} sdpa;

static sdpa sdpa_load(fe_obj *op, const sdpa_ids *id)
{
    return (sdpa){.id = id, .q = PORT(id->q, "Q"), .k = PORT(id->k, "K"), .v = PORT(id->v, "V"),
                  .o = PORT(id->o, "O"), .mask = PORT(id->mask, "ATTN_MASK"),
                  .seq_q = PORT(id->seq_q, "SEQ_LEN_Q"), .seq_kv = PORT(id->seq_kv, "SEQ_LEN_KV")};
}

/* Q [B,Hq,Sq,D], K [B,Hk,Skv,D], V [B,Hv,Skv,Dv], O [B,Hq,Sq,Dv]; paged K/V: batch and
 * sequence dims are the container's block count and block size, not checked here. */
static hipdnnStatus_t sdpa_qkvo(fe_obj *op, sdpa *s)
{
    const port *ps[4] = {&s->q, &s->k, &s->v, &s->o};
    for (int i = 0; i < 4; i++)
        TRY(need_rank(op, ps[i], 4, 4));
    const int64_t *q = s->q.t.dims, *k = s->k.t.dims, *v = s->v.t.dims;
    s->b = q[0], s->hq = q[1], s->sq = q[2], s->dv = v[3];
    if (k[3] != q[3])
        return bad(op, "Q %s and K %s disagree on the head dim D (%lld vs %lld)", DIMS(&s->q),
                   DIMS(&s->k), (long long)q[3], (long long)k[3]);
    if (s->hq % k[1] != 0 || s->hq % v[1] != 0)
        return bad(op, "Q's heads (%lld) must be a multiple of K's (%lld) and V's (%lld) "
                   "(Q %s, K %s, V %s)", (long long)s->hq, (long long)k[1], (long long)v[1],
                   DIMS(&s->q), DIMS(&s->k), DIMS(&s->v));
    if (!s->paged) {
        int64_t want_k[4] = {s->b, -1, -1, -1}, want_v[4] = {s->b, -1, k[2], -1};
        TRY(need_shape(op, &s->k, 4, want_k, "K [B,Hk,Skv,D] with Q's B"));
        TRY(need_shape(op, &s->v, 4, want_v, "V [B,Hv,Skv,Dv] with Q's B and K's Skv"));
        s->skv = k[2];
    }
    int64_t want_o[4] = {s->b, s->hq, s->sq, s->dv};
    return need_shape(op, &s->o, 4, want_o, "O [B,Hq,Sq,Dv]");
}

static hipdnnStatus_t sdpa_seq_lens(fe_obj *op, const sdpa *s)
{
    if (flag(op, s->id->padding) && (!s->seq_q.set || !s->seq_kv.set))
        return bad(op, "%s needs both SEQ_LEN_Q and SEQ_LEN_KV", attr_name(op, s->id->padding));
    int64_t want[4] = {s->b, 1, 1, 1};
    const port *ps[2] = {&s->seq_q, &s->seq_kv};
    for (int i = 0; i < 2; i++) {
        TRY(need_shape(op, ps[i], 4, want, "[B,1,1,1]"));
        TRY(need_int(op, ps[i]));
    }
    return OK;
}

/* Dropout p in [0,1); p > 0 needs SEED and OFFSET (Philox) or a DROPOUT_MASK. */
static hipdnnStatus_t sdpa_dropout(fe_obj *op, const sdpa *s)
{
    port seed = PORT(s->id->seed, "SEED"), offset = PORT(s->id->offset, "OFFSET");
    port mask = PORT(s->id->drop_mask, "DROPOUT_MASK"), scale = PORT(s->id->drop_scale, "DROPOUT_SCALE");
    const port *scalars[3] = {&seed, &offset, &scale};
    for (int i = 0; i < 3; i++)
        TRY(need_scalar(op, scalars[i]));
    TRY(need_int(op, &seed));
    TRY(need_int(op, &offset));
    int64_t full[4] = {s->b, s->hq, s->sq, s->skv};
    TRY(need_broadcast(op, &mask, 4, full, "scores [B,Hq,Sq,Skv]"));
    if (!has(op, s->id->prob))
        return OK;
    float p = fe_get(op, s->id->prob)->one.f32;
    if (!(p >= 0.0f && p < 1.0f))
        return bad(op, "%s %g is outside [0, 1)", attr_name(op, s->id->prob), (double)p);
    if (p > 0.0f && !mask.set && (!seed.set || !offset.set))
        return bad(op, "%s %g needs SEED and OFFSET (or a DROPOUT_MASK)",
                   attr_name(op, s->id->prob), (double)p);
    return OK;
}

static hipdnnStatus_t sdpa_masks(fe_obj *op, const sdpa *s)
{
    const sdpa_ids *id = s->id;
    int64_t full[4] = {s->b, s->hq, s->sq, s->skv};
    TRY(need_broadcast(op, &s->mask, 4, full, "scores [B,Hq,Sq,Skv]"));
    bool has_left = has(op, id->left), has_right = has(op, id->right);
    int64_t left = has_left ? fe_get(op, id->left)->one.i64 : 0;
    int64_t right = has_right ? fe_get(op, id->right)->one.i64 : 0;
    if (has_left && left < 1)
        return bad(op, "%s %lld must be >= 1", attr_name(op, id->left), (long long)left);
    if (has_right && right < 0)
        return bad(op, "%s %lld must be >= 0", attr_name(op, id->right), (long long)right);
    bool causal = flag(op, id->causal) || flag(op, id->causal_br) || (has_right && right == 0);
    if (flag(op, id->alibi) && !causal)
        return bad(op, "%s needs a causal mask (%s, %s or %s 0)", attr_name(op, id->alibi),
                   attr_name(op, id->causal), attr_name(op, id->causal_br), attr_name(op, id->right));
    port scale = PORT(id->scale, "SCALE");
    if (scale.set && has(op, id->scale_value))
        return bad(op, "%s and the scale tensor %s are both set; give one",
                   attr_name(op, id->scale_value), attr_name(op, id->scale));
    return need_scalar(op, &scale);
}

/* What both directions check once Q/K/V/O are known (and Skv, when it can be). */
static hipdnnStatus_t sdpa_common(fe_obj *op, const sdpa *s)
{
    TRY(sdpa_seq_lens(op, s));
    TRY(sdpa_masks(op, s));
    return sdpa_dropout(op, s);
}

/* Paged K/V: PAGE_TABLE_K and PAGE_TABLE_V both set or neither. */
static hipdnnStatus_t sdpa_paged_pair(fe_obj *op, sdpa *s, port pt[2])
{
    pt[0] = PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_KDESC, "PAGE_TABLE_K");
    pt[1] = PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_VDESC, "PAGE_TABLE_V");
    s->paged = pt[0].set;
    return need_together(op, pt, 2);
}

/* Paged K/V need SEQ_LEN_Q/KV and page tables [B,1,P,1] of integers; Skv is MAX_SEQ_LEN_KV
 * when set (it must fit in P pages of the container's block size), otherwise unknown. */
static hipdnnStatus_t sdpa_paged(fe_obj *op, sdpa *s, const port pt[2])
{
    if (!s->seq_q.set || !s->seq_kv.set)
        return bad(op, "paged K/V (PAGE_TABLE_K, PAGE_TABLE_V) need SEQ_LEN_Q and SEQ_LEN_KV");
    const port *cache[2] = {&s->k, &s->v};
    int64_t want[4] = {s->b, 1, -1, 1};
    for (int i = 0; i < 2; i++) {
        TRY(need_shape(op, &pt[i], 4, want, "[B,1,P,1]"));
        TRY(need_int(op, &pt[i]));
    }
    s->skv = -1;
    if (!has(op, HIPDNN_ATTR_SDPA_FWD_MAX_SEQ_LEN_KV_EXT))
        return OK;
    s->skv = fe_get(op, HIPDNN_ATTR_SDPA_FWD_MAX_SEQ_LEN_KV_EXT)->one.i32;
    for (int i = 0; i < 2; i++) {
        int64_t cap = mul_sat(pt[i].t.dims[2], cache[i]->t.dims[2]);
        if (s->skv < 1 || s->skv > cap)
            return bad(op, "HIPDNN_ATTR_SDPA_FWD_MAX_SEQ_LEN_KV_EXT %lld is outside [1, %lld] "
                       "(%s %s pages of %s %s)", (long long)s->skv, (long long)cap, pt[i].name,
                       DIMS(&pt[i]), cache[i]->name, DIMS(cache[i]));
    }
    return OK;
}

/* Per-row statistics [B,Hq,Sq,1]. */
static hipdnnStatus_t sdpa_row_stats(fe_obj *op, const sdpa *s, const port *p)
{
    int64_t want[4] = {s->b, s->hq, s->sq, 1};
    return need_shape(op, p, 4, want, "[B,Hq,Sq,1]");
}

static hipdnnStatus_t sdpa_fwd_outputs(fe_obj *op, const sdpa *s)
{
    port stats[3] = {PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, "STATS"),
                     PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_MAX_EXT, "MAX"),
                     PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SUM_EXP_EXT, "SUM_EXP")};
    if (flag(op, HIPDNN_ATTR_SDPA_FWD_GENERATE_STATS_EXT) && !stats[0].set)
        return bad(op, "HIPDNN_ATTR_SDPA_FWD_GENERATE_STATS_EXT is true but STATS is not set");
    for (int i = 0; i < 3; i++)
        TRY(sdpa_row_stats(op, s, &stats[i]));
    port rng = PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_RNG_DUMP_EXT, "RNG_DUMP");
    int64_t full[4] = {s->b, s->hq, s->sq, s->skv};
    TRY(need_shape(op, &rng, 4, full, "[B,Hq,Sq,Skv]"));
    port sink = PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SINK_TOKEN_EXT, "SINK_TOKEN");
    int64_t per_head[4] = {1, s->hq, 1, 1};
    return need_shape(op, &sink, 4, per_head, "[1,Hq,1,1]");
}

/* FP8 descale/scale inputs and amax outputs are per-tensor scalars (§4.9). The six inputs come
 * together (they make the op FP8 attention, cuDNN's composite) and the amax outputs only with
 * them. */
static hipdnnStatus_t sdpa_fwd_fp8(fe_obj *op)
{
    port fp8[] = {PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_Q_EXT, "DESCALE_Q"),
                  PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_K_EXT, "DESCALE_K"),
                  PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_V_EXT, "DESCALE_V"),
                  PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_S_EXT, "DESCALE_S"),
                  PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALE_S_EXT, "SCALE_S"),
                  PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALE_O_EXT, "SCALE_O"),
                  PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_AMAX_S_EXT, "AMAX_S"),
                  PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_AMAX_O_EXT, "AMAX_O")};
    int n_in = 0;
    for (size_t i = 0; i < sizeof fp8 / sizeof fp8[0]; i++) {
        TRY(need_scalar(op, &fp8[i]));
        n_in += i < 6 && fp8[i].set;
    }
    for (int i = 0; n_in > 0 && n_in < 6 && i < 6; i++)
        if (!fp8[i].set)
            return bad(op, "FP8 attention needs all of DESCALE_Q, DESCALE_K, DESCALE_V, DESCALE_S, SCALE_S and "
                       "SCALE_O: %s is not set", fp8[i].name);
    if (n_in == 0 && (fp8[6].set || fp8[7].set))
        return bad(op, "%s is an output of FP8 attention: it needs the DESCALE_* and SCALE_* inputs",
                   fp8[fp8[6].set ? 6 : 7].name);
    return OK;
}

static hipdnnStatus_t check_sdpa_fwd(fe_obj *op)
{
    sdpa s = sdpa_load(op, &sdpa_fwd_ids);
    port pt[2];
    TRY(sdpa_paged_pair(op, &s, pt));
    TRY(sdpa_qkvo(op, &s));
    if (s.paged)
        TRY(sdpa_paged(op, &s, pt));
    TRY(sdpa_common(op, &s));
    TRY(sdpa_fwd_outputs(op, &s));
    TRY(fe_check_score_mod(op, s.b, s.hq, s.sq, s.skv));
    return sdpa_fwd_fp8(op);
}

/* Gradients have their tensor's dims; DBIAS is the gradient of ATTN_MASK. */
static hipdnnStatus_t check_sdpa_bwd(fe_obj *op)
{
    sdpa s = sdpa_load(op, &sdpa_bwd_ids);
    TRY(sdpa_qkvo(op, &s));
    TRY(sdpa_common(op, &s));
    port grads[4][2] = {
        {PORT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DO_EXT, "DO"), s.o},
        {PORT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DQ_EXT, "DQ"), s.q},
        {PORT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DK_EXT, "DK"), s.k},
        {PORT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DV_EXT, "DV"), s.v},
    };
    for (int i = 0; i < 4; i++)
        TRY(need_same(op, &grads[i][0], &grads[i][1]));
    port stats = PORT(HIPDNN_ATTR_OPERATION_SDPA_BWD_STATS_EXT, "STATS");
    TRY(sdpa_row_stats(op, &s, &stats));
    port dbias = PORT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DBIAS_EXT, "DBIAS");
    if (dbias.set && !s.mask.set)
        return bad(op, "DBIAS %s is set but ATTN_MASK (the bias it is the gradient of) is not",
                   DIMS(&dbias));
    TRY(need_same(op, &dbias, &s.mask));
    port inv = PORT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_SCALE_INV_EXT, "DROPOUT_SCALE_INV");
    return need_scalar(op, &inv);
}

/* ---- paged cache load (§4.8) --------------------------------------------------------------------- */

/* Y is K as [B,H,S,D] or Kᵀ [B,H,D,S] (§4.8): whichever of Y's last two dims is D, the other is
 * the sequence, which must fit in the P pages of bs tokens a batch's page table addresses. */
static hipdnnStatus_t pcl_output(fe_obj *op, const port *y, const port *c, const port *pt)
{
    const int64_t *yd = y->t.dims;
    int64_t d = c->t.dims[3], cap = mul_sat(pt->t.dims[2], c->t.dims[2]);
    if (yd[0] != pt->t.dims[0] || yd[1] != c->t.dims[1])
        return bad(op, "Y %s must be [B,H,..] with B from PAGE_TABLE %s and H from CONTAINER %s",
                   DIMS(y), DIMS(pt), DIMS(c));
    if (yd[3] != d && yd[2] != d)
        return bad(op, "Y %s must be [B,H,S,D] or [B,H,D,S] with D = %lld from CONTAINER %s",
                   DIMS(y), (long long)d, DIMS(c));
    if ((yd[3] == d && yd[2] <= cap) || (yd[2] == d && yd[3] <= cap))
        return OK;
    return bad(op, "Y %s: the sequence dim exceeds the %lld tokens a page table row addresses "
               "(PAGE_TABLE %s pages of CONTAINER %s blocks)", DIMS(y), (long long)cap, DIMS(pt),
               DIMS(c));
}

static hipdnnStatus_t check_paged_cache_load(fe_obj *op)
{
    port c = PORT(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC_EXT, "CONTAINER");
    port y = PORT(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC_EXT, "Y");
    port seq = PORT(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC_EXT, "SEQUENCE");
    port pt = PORT(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC_EXT, "PAGE_TABLE");
    const port *ps[4] = {&c, &y, &seq, &pt};
    for (int i = 0; i < 4; i++)
        TRY(need_rank(op, ps[i], 4, 4));
    int64_t want_pt[4] = {-1, 1, -1, 1}, want_seq[4] = {pt.t.dims[0], 1, 1, 1};
    TRY(need_shape(op, &pt, 4, want_pt, "[B,1,P,1]"));
    TRY(need_int(op, &pt));
    TRY(need_shape(op, &seq, 4, want_seq, "[B,1,1,1] with PAGE_TABLE's B"));
    TRY(need_int(op, &seq));
    return pcl_output(op, &y, &c, &pt);
}

/* ---- block-scale quantize / dequantize (§5) -------------------------------------------------------- */

static bool bsq_y_type(hipdnnDataType_t t)
{
    return t == HIPDNN_DATA_FP8_E4M3 || t == HIPDNN_DATA_FP8_E5M2 || t == HIPDNN_DATA_FP4_E2M1 ||
           t == HIPDNN_DATA_INT8;
}

static hipdnnStatus_t bsq_types(fe_obj *op, const port *y, const port *scale)
{
    if (!bsq_y_type(y->t.dtype))
        return bad(op, "Y has data type %s; must be FP8_E4M3, FP8_E5M2, FP4_E2M1 or INT8",
                   fe_dtype_name(y->t.dtype));
    if (scale->t.dtype != HIPDNN_DATA_FP8_E8M0 && scale->t.dtype != HIPDNN_DATA_FP8_E4M3)
        return bad(op, "SCALE has data type %s; must be FP8_E8M0 or FP8_E4M3",
                   fe_dtype_name(scale->t.dtype));
    return OK;
}

/* TRANSPOSE changes only the layout (strides) of Y and SCALE, so no dims rule depends on it. */
static hipdnnStatus_t check_bs_quantize(fe_obj *op)
{
    port x = PORT(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_XDESC, "X");
    port y = PORT(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_YDESC, "Y");
    port scale = PORT(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_SCALE_DESC, "SCALE");
    int r = x.t.rank;
    int32_t block = fe_get(op, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_BLOCK_SIZE)->one.i32;
    int64_t axis = has(op, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_AXIS_EXT)
                       ? fe_get(op, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_AXIS_EXT)->one.i64
                       : r - 1;
    if (block <= 0)
        return bad(op, "HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_BLOCK_SIZE %d must be > 0", block);
    if (axis < 0 || axis >= r)
        return bad(op, "HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_AXIS_EXT %lld is outside [0, %d) "
                   "for X %s", (long long)axis, r, DIMS(&x));
    if (x.t.dims[axis] % block != 0)
        return bad(op, "X %s: dim %lld (%lld) is not a multiple of BLOCK_SIZE %d", DIMS(&x),
                   (long long)axis, (long long)x.t.dims[axis], block);
    TRY(need_same(op, &y, &x));
    int64_t want[FE_MAX_RANK];
    for (int i = 0; i < r; i++)
        want[i] = i == axis ? x.t.dims[i] / block : x.t.dims[i];
    TRY(need_shape(op, &scale, r, want, "X's dims with the blocked axis divided by BLOCK_SIZE"));
    return bsq_types(op, &y, &scale);
}

/* BLOCK_SIZE[j] applies to dim rank - n + j. SCALE has X's rank; a blocked dim holds at least
 * ceil(X dim / block) scales (larger: padded layouts such as F8_128x4, §5.4); a leading dim
 * without a block entry equals X's or is 1 (one scale shared along it). */
static hipdnnStatus_t bsd_scale_dim(fe_obj *op, const port *x, const port *s, int i, int64_t blk)
{
    int64_t xd = x->t.dims[i], sd = s->t.dims[i];
    if (blk == 0 && (sd == xd || sd == 1))
        return OK;
    if (blk == 0)
        return bad(op, "SCALE %s: dim %d is %lld, must be X's (%lld) or 1 (X %s)", DIMS(s), i,
                   (long long)sd, (long long)xd, DIMS(x));
    int64_t need = (xd - 1) / blk + 1; /* ceil(xd / blk), xd >= 1 */
    if (sd >= need)
        return OK;
    return bad(op, "SCALE %s: dim %d is %lld, needs at least ceil(%lld / %lld) = %lld (X %s)",
               DIMS(s), i, (long long)sd, (long long)xd, (long long)blk, (long long)need, DIMS(x));
}

static hipdnnStatus_t check_bs_dequantize(fe_obj *op)
{
    port x = PORT(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_XDESC, "X");
    port s = PORT(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_SCALE_DESC, "SCALE");
    port y = PORT(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_YDESC, "Y");
    fe_val *bv = fe_get(op, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_BLOCK_SIZE);
    const int32_t *blk = bv->arr;
    int r = x.t.rank, n = (int)bv->n;
    if (n > r)
        return bad(op, "HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_BLOCK_SIZE has %d entries, "
                   "more than X %s has dims", n, DIMS(&x));
    for (int j = 0; j < n; j++)
        if (blk[j] <= 0)
            return bad(op, "HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_BLOCK_SIZE entry %d is "
                       "%d, must be > 0", j, blk[j]);
    TRY(need_same(op, &y, &x));
    TRY(need_rank(op, &s, r, r));
    for (int i = 0; i < r; i++)
        TRY(bsd_scale_dim(op, &x, &s, i, i >= r - n ? blk[i - (r - n)] : 0));
    return OK;
}

/* ---- custom op ------------------------------------------------------------------------------------ */

/* The op is opaque to us; only its identity and that it produces something are checked. */
static hipdnnStatus_t check_custom_op(fe_obj *op)
{
    const char *id = fe_get(op, HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT)->arr;
    if (id == NULL || id[0] == '\0')
        return bad(op, "HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT is empty");
    if (!has(op, HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT))
        return bad(op, "HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT: at least one output is needed");
    return OK;
}

/* ---- dispatch -------------------------------------------------------------------------------------- */

hipdnnStatus_t fe_check_op(fe_obj *op)
{
    TRY(fe_check_op_common(op)); /* output layouts, product data types (fe_ops_types.c) */
    switch (op->cls->type) {
    case HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR: return check_pointwise(op);
    case HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT: return check_matmul(op);
    case HIPDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
        return check_conv(op, PORT(HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, "X"),
                          PORT(HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, "W"),
                          PORT(HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, "Y"));
    case HIPDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DESCRIPTOR:
        return check_conv(op, PORT(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, "DX"),
                          PORT(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, "W"),
                          PORT(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, "DY"));
    case HIPDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
        return check_conv(op, PORT(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, "X"),
                          PORT(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, "DW"),
                          PORT(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, "DY"));
    case HIPDNN_BACKEND_OPERATION_BATCHNORM_INFERENCE_DESCRIPTOR_EXT: return check_bn_inference(op);
    case HIPDNN_BACKEND_OPERATION_BATCHNORM_INFERENCE_VARIANCE_DESCRIPTOR_EXT:
        return check_bn_inference_variance(op);
    case HIPDNN_BACKEND_OPERATION_BATCHNORM_DESCRIPTOR_EXT: return check_bn_training(op);
    case HIPDNN_BACKEND_OPERATION_BATCHNORM_BACKWARD_DESCRIPTOR_EXT: return check_bn_backward(op);
    case HIPDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR: return check_gen_stats(op);
    case HIPDNN_BACKEND_OPERATION_LAYERNORM_DESCRIPTOR_EXT: return check_layernorm(op);
    case HIPDNN_BACKEND_OPERATION_RMSNORM_DESCRIPTOR_EXT: return check_rmsnorm(op);
    case HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT: return check_sdpa_fwd(op);
    case HIPDNN_BACKEND_OPERATION_SDPA_BPROP_DESCRIPTOR_EXT: return check_sdpa_bwd(op);
    case HIPDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR: return check_paged_cache_load(op);
    case HIPDNN_BACKEND_OPERATION_BLOCK_SCALE_QUANTIZE_DESCRIPTOR_EXT: return check_bs_quantize(op);
    case HIPDNN_BACKEND_OPERATION_BLOCK_SCALE_DEQUANTIZE_DESCRIPTOR_EXT:
        return check_bs_dequantize(op);
    case HIPDNN_BACKEND_OPERATION_CUSTOM_OP_DESCRIPTOR_EXT: return check_custom_op(op);
    default: return OK;
    }
}
