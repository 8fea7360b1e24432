/* fe_check_gemm.c — the finalize rules of the product operations: matmul (§2.1) and the
 * three convolutions (§1.2).
 *
 * One function per operation, named in the `check` column of graph/fe_ops.def and called
 * by fe_check_op (fe_check.c) after the generic and shared rules; the helpers and the
 * conventions (tensor letters, messages) are fe_check.h's.
 */
#include <stdio.h>
#include <string.h>

#include "graph/fe_check.h"

/* ---- matmul (§2.1) -------------------------------------------------------------------------------- */

/* A batch dim of an input may equal C's, be 1, or divide it (grouped broadcast: GQA heads). */
static hipdnnStatus_t mm_batch(fe_obj *op, const fe_port *in, const fe_port *c, int i)
{
    int64_t x = in->t.dims[i], y = c->t.dims[i];
    if (y % x == 0)
        return OK;
    return fe_op_bad(op, "batch dim %d of %s %s is %lld; it must equal C's (%lld), be 1 or divide it "
               "(C %s)", i, in->name, DIMS(in), (long long)x, (long long)y, DIMS(c));
}

hipdnnStatus_t fe_check_matmul(fe_obj *op)
{
    fe_port a = PORT(HIPDNN_ATTR_OPERATION_MATMUL_ADESC, "A");
    fe_port b = PORT(HIPDNN_ATTR_OPERATION_MATMUL_BDESC, "B");
    fe_port c = PORT(HIPDNN_ATTR_OPERATION_MATMUL_CDESC, "C");
    int r = a.t.rank;
    if (r < 2 || b.t.rank != r || c.t.rank != r)
        return fe_op_bad(op, "A %s, B %s and C %s must have the same rank >= 2", DIMS(&a), DIMS(&b),
                   DIMS(&c));
    const int64_t *A = a.t.dims, *B = b.t.dims, *C = c.t.dims;
    if (A[r - 1] != B[r - 2])
        return fe_op_bad(op, "A %s and B %s disagree on K (%lld vs %lld)", DIMS(&a), DIMS(&b),
                   (long long)A[r - 1], (long long)B[r - 2]);
    if (C[r - 2] != A[r - 2])
        return fe_op_bad(op, "C %s and A %s disagree on M (%lld vs %lld)", DIMS(&c), DIMS(&a),
                   (long long)C[r - 2], (long long)A[r - 2]);
    if (C[r - 1] != B[r - 1])
        return fe_op_bad(op, "C %s and B %s disagree on N (%lld vs %lld)", DIMS(&c), DIMS(&b),
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
    const char *name = fe_op_attr_name(op, conv_params[k].id);
    const int64_t *e = v->arr;
    if (v->n != nsp)
        return fe_op_bad(op, "%s has %lld entries; the tensors have %d spatial dims", name,
                   (long long)v->n, nsp);
    for (int i = 0; i < nsp; i++)
        if (e[i] < conv_params[k].min)
            return fe_op_bad(op, "%s entry %d is %lld, must be >= %lld", name, i, (long long)e[i],
                       (long long)conv_params[k].min);
    *out = e;
    return OK;
}

static hipdnnStatus_t conv_channels(fe_obj *op, const fe_port *x, const fe_port *w, const fe_port *y)
{
    int64_t n = x->t.dims[0], c = x->t.dims[1], cw = w->t.dims[1], k = w->t.dims[0];
    if (c % cw != 0)
        return fe_op_bad(op, "C of %s %s (%lld) is not a multiple of C of %s %s (%lld): the group count "
                   "C(X)/C(W) must be a whole number", x->name, DIMS(x), (long long)c, w->name,
                   DIMS(w), (long long)cw);
    if (k % (c / cw) != 0)
        return fe_op_bad(op, "K of %s %s (%lld) is not divisible by the group count %lld = C(X)/C(W)",
                   w->name, DIMS(w), (long long)k, (long long)(c / cw));
    if (y->t.dims[0] != n)
        return fe_op_bad(op, "N of %s %s (%lld) differs from N of %s %s (%lld)", y->name, DIMS(y),
                   (long long)y->t.dims[0], x->name, DIMS(x), (long long)n);
    if (y->t.dims[1] != k)
        return fe_op_bad(op, "channels of %s %s (%lld) differ from K of %s %s (%lld)", y->name, DIMS(y),
                   (long long)y->t.dims[1], w->name, DIMS(w), (long long)k);
    return OK;
}

/* out = 1 + (in + pre + post - dil*(k-1) - 1) / stride must be >= 1 and match y. */
static hipdnnStatus_t conv_spatial(fe_obj *op, const fe_port *x, const fe_port *w, const fe_port *y, int i,
                                   const int64_t *p[4])
{
    int64_t in = x->t.dims[2 + i], k = w->t.dims[2 + i], span, padded, num;
    if (__builtin_mul_overflow(p[DIL][i], k - 1, &span) || __builtin_add_overflow(span, 1, &span) ||
        __builtin_add_overflow(in, p[PRE][i], &padded) ||
        __builtin_add_overflow(padded, p[POST][i], &padded))
        return fe_op_bad(op, "spatial dim %d: padding or dilation overflows int64", i);
    num = padded - span; /* both >= 0: no overflow */
    if (num < 0)
        return fe_op_bad(op, "spatial dim %d: the dilated filter (%lld) is larger than the padded input "
                   "(%lld); the output would be empty (%s %s, %s %s)", i, (long long)span,
                   (long long)padded, x->name, DIMS(x), w->name, DIMS(w));
    int64_t out = 1 + num / p[STRIDE][i];
    if (out != y->t.dims[2 + i])
        return fe_op_bad(op, "spatial dim %d of %s %s is %lld, but %s %s and %s %s with padding %lld+%lld, "
                   "stride %lld, dilation %lld give %lld", i, y->name, DIMS(y),
                   (long long)y->t.dims[2 + i], x->name, DIMS(x), w->name, DIMS(w),
                   (long long)p[PRE][i], (long long)p[POST][i], (long long)p[STRIDE][i],
                   (long long)p[DIL][i], (long long)out);
    return OK;
}

/* x [N,C,sp..], w [K,C/G,sp..], y [N,K,sp..] — for dgrad x = DX, y = DY; for wgrad w = DW. */
static hipdnnStatus_t check_conv(fe_obj *op, fe_port x, fe_port w, fe_port y)
{
    int r = x.t.rank;
    if (r < 4 || r > 5 || w.t.rank != r || y.t.rank != r)
        return fe_op_bad(op, "%s %s, %s %s and %s %s must all have rank 4 or all rank 5", x.name,
                   DIMS(&x), w.name, DIMS(&w), y.name, DIMS(&y));
    const int64_t *p[4];
    for (int k = 0; k < 4; k++)
        TRY(conv_param_check(op, k, r - 2, &p[k]));
    TRY(conv_channels(op, &x, &w, &y));
    for (int i = 0; i < r - 2; i++)
        TRY(conv_spatial(op, &x, &w, &y, i, p));
    return OK;
}

hipdnnStatus_t fe_check_conv_fwd(fe_obj *op)
{
    return check_conv(op, PORT(HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, "X"),
                      PORT(HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, "W"),
                      PORT(HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, "Y"));
}

/* Backward data is the forward convolution with DX in X's place and DY in Y's. */
hipdnnStatus_t fe_check_conv_bwd_data(fe_obj *op)
{
    return check_conv(op, PORT(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, "DX"),
                      PORT(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, "W"),
                      PORT(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, "DY"));
}

/* Backward filter: DW in W's place, DY in Y's. */
hipdnnStatus_t fe_check_conv_bwd_filter(fe_obj *op)
{
    return check_conv(op, PORT(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, "X"),
                      PORT(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, "DW"),
                      PORT(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, "DY"));
}
