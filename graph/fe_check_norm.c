/* fe_check_norm.c — the finalize rules of the normalizations: the batchnorm family,
 * gen-stats (§3.1–3.5), layernorm and rmsnorm (§3.6, §3.7).
 *
 * One function per operation, named in the `check` column of graph/fe_ops.def and called
 * by fe_check_op (fe_check.c) after the generic and shared rules; the helpers and the
 * conventions (tensor letters, messages) are fe_check.h's.
 */
#include <stdio.h>
#include <string.h>

#include "graph/fe_check.h"

/* ---- batchnorm family, gen-stats (§3.1–3.5) --------------------------------------------------- */

static hipdnnStatus_t need_per_channel_all(fe_obj *op, const fe_port *ps, int n, const fe_port *x)
{
    for (int i = 0; i < n; i++)
        TRY(fe_need_per_channel(op, &ps[i], x));
    return OK;
}

hipdnnStatus_t fe_check_bn_inference(fe_obj *op)
{
    fe_port x = PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_X_EXT, "X");
    fe_port y = PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_Y_EXT, "Y");
    fe_port pc[] = {PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_MEAN_EXT, "MEAN"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_INV_VARIANCE_EXT, "INV_VARIANCE"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_SCALE_EXT, "SCALE"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_BIAS_EXT, "BIAS")};
    TRY(fe_need_rank(op, &x, 2, FE_MAX_RANK));
    TRY(fe_need_same(op, &y, &x));
    return need_per_channel_all(op, pc, 4, &x);
}

hipdnnStatus_t fe_check_bn_inference_variance(fe_obj *op)
{
    fe_port x = PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_X_EXT, "X");
    fe_port y = PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_Y_EXT, "Y");
    fe_port eps = PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_EPSILON_EXT, "EPSILON");
    fe_port pc[] = {PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_MEAN_EXT, "MEAN"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_VARIANCE_EXT, "VARIANCE"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_SCALE_EXT, "SCALE"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_BIAS_EXT, "BIAS")};
    TRY(fe_need_rank(op, &x, 2, FE_MAX_RANK));
    TRY(fe_need_same(op, &y, &x));
    TRY(fe_need_scalar(op, &eps));
    return need_per_channel_all(op, pc, 4, &x);
}

/* Running statistics: PREV mean/variance and MOMENTUM all or none; NEXT ones iff PREV ones. */
static hipdnnStatus_t bn_running(fe_obj *op, const fe_port prev[3], const fe_port next[2])
{
    TRY(fe_need_together(op, prev, 3));
    for (int i = 0; i < 2; i++) {
        if (prev[0].set && !next[i].set)
            return fe_op_bad(op, "%s must be set when the running statistics (%s, %s) are given",
                       next[i].name, prev[0].name, prev[1].name);
        if (!prev[0].set && next[i].set)
            return fe_op_bad(op, "%s is set but %s, %s and %s are not", next[i].name, prev[0].name,
                       prev[1].name, prev[2].name);
    }
    return OK;
}

hipdnnStatus_t fe_check_bn_training(fe_obj *op)
{
    fe_port x = PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_X_EXT, "X");
    fe_port y = PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_Y_EXT, "Y");
    fe_port eps = PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_EPSILON_EXT, "EPSILON");
    fe_port prev[3] = {PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_PREV_RUNNING_MEAN_EXT, "PREV_RUNNING_MEAN"),
                    PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_PREV_RUNNING_VARIANCE_EXT,
                         "PREV_RUNNING_VARIANCE"),
                    PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_MOMENTUM_EXT, "MOMENTUM")};
    fe_port next[2] = {PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_NEXT_RUNNING_MEAN_EXT, "NEXT_RUNNING_MEAN"),
                    PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_NEXT_RUNNING_VARIANCE_EXT,
                         "NEXT_RUNNING_VARIANCE")};
    fe_port pc[] = {PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_SCALE_EXT, "SCALE"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_BIAS_EXT, "BIAS"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_MEAN_EXT, "MEAN"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_INV_VARIANCE_EXT, "INV_VARIANCE"),
                 prev[0], prev[1], next[0], next[1]};
    TRY(fe_need_rank(op, &x, 2, FE_MAX_RANK));
    TRY(fe_need_same(op, &y, &x));
    TRY(fe_need_scalar(op, &eps));
    TRY(fe_need_scalar(op, &prev[2]));
    TRY(need_per_channel_all(op, pc, 8, &x));
    return bn_running(op, prev, next);
}

hipdnnStatus_t fe_check_bn_backward(fe_obj *op)
{
    fe_port x = PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_X_EXT, "X");
    fe_port same[] = {PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DY_EXT, "DY"),
                   PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DX_EXT, "DX")};
    fe_port pc[] = {PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_MEAN_EXT, "MEAN"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_INV_VARIANCE_EXT, "INV_VARIANCE"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_SCALE_EXT, "SCALE"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DSCALE_EXT, "DSCALE"),
                 PORT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DBIAS_EXT, "DBIAS")};
    TRY(fe_need_rank(op, &x, 2, FE_MAX_RANK));
    TRY(fe_need_same(op, &same[0], &x));
    TRY(fe_need_same(op, &same[1], &x));
    TRY(need_per_channel_all(op, pc, 5, &x));
    return fe_need_together(op, pc, 2);
}

/* Gen-stats reduces over N and the spatial dims, so X needs a channel dim: rank >= 2. */
hipdnnStatus_t fe_check_gen_stats(fe_obj *op)
{
    fe_port x = PORT(HIPDNN_ATTR_OPERATION_GENSTATS_XDESC_EXT, "X");
    fe_port pc[] = {PORT(HIPDNN_ATTR_OPERATION_GENSTATS_SUMDESC_EXT, "SUM"),
                 PORT(HIPDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC_EXT, "SQ_SUM")};
    TRY(fe_need_rank(op, &x, 2, FE_MAX_RANK));
    TRY(need_per_channel_all(op, pc, 2, &x));
    if (fe_op_has(op, HIPDNN_ATTR_OPERATION_GENSTATS_MODE_EXT) &&
        fe_get(op, HIPDNN_ATTR_OPERATION_GENSTATS_MODE_EXT)->one.i64 != 0)
        return fe_op_bad(op, "HIPDNN_ATTR_OPERATION_GENSTATS_MODE_EXT is %lld; only 0 (SUM_SQSUM) exists",
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

static int norm_infer_dims(const fe_port *x, const fe_port *scale)
{
    return fe_norm_infer_dims(scale->t.dims, scale->t.rank, x->t.rank);
}

/* Scale/bias: 1 on the leading dims, X's dims on the n normalized ones. Stats: the reverse. */
static hipdnnStatus_t norm_shapes(fe_obj *op, const fe_port *x, int n, const fe_port *w, int n_w,
                                  const fe_port *stats, int n_stats)
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
        TRY(fe_need_shape(op, &w[i], r, want_w, what_w));
    for (int i = 0; i < n_stats; i++)
        TRY(fe_need_shape(op, &stats[i], r, want_s, what_s));
    return OK;
}

/* TRAINING writes the statistics, INFERENCE must not be given any. */
static hipdnnStatus_t norm_phase(fe_obj *op, hipdnnBackendAttributeName_t phase_id,
                                 const fe_port *stats, int n)
{
    bool training = fe_get(op, phase_id)->one.e == HIPDNN_NORM_FWD_TRAINING;
    for (int i = 0; i < n; i++) {
        if (training && !stats[i].set)
            return fe_op_bad(op, "%s is TRAINING, which requires %s", fe_op_attr_name(op, phase_id),
                       stats[i].name);
        if (!training && stats[i].set)
            return fe_op_bad(op, "%s is INFERENCE; %s must not be set", fe_op_attr_name(op, phase_id),
                       stats[i].name);
    }
    return OK;
}

hipdnnStatus_t fe_check_layernorm(fe_obj *op)
{
    fe_port x = PORT(HIPDNN_ATTR_OPERATION_LAYERNORM_X_EXT, "X");
    fe_port y = PORT(HIPDNN_ATTR_OPERATION_LAYERNORM_Y_EXT, "Y");
    fe_port eps = PORT(HIPDNN_ATTR_OPERATION_LAYERNORM_EPSILON_EXT, "EPSILON");
    fe_port w[2] = {PORT(HIPDNN_ATTR_OPERATION_LAYERNORM_SCALE_EXT, "SCALE"),
                 PORT(HIPDNN_ATTR_OPERATION_LAYERNORM_BIAS_EXT, "BIAS")};
    fe_port stats[2] = {PORT(HIPDNN_ATTR_OPERATION_LAYERNORM_MEAN_EXT, "MEAN"),
                     PORT(HIPDNN_ATTR_OPERATION_LAYERNORM_INV_VARIANCE_EXT, "INV_VARIANCE")};
    TRY(fe_need_rank(op, &x, 2, FE_MAX_RANK));
    TRY(fe_need_same(op, &y, &x));
    TRY(fe_need_scalar(op, &eps));
    int n = norm_infer_dims(&x, &w[0]);
    /* 0 is the serialized field's default (a graph cannot say "unset" any other way): infer */
    if (fe_op_has(op, HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT) &&
        fe_get(op, HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT)->one.i64 != 0) {
        int64_t c = fe_get(op, HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT)->one.i64;
        if (c < 1 || c > x.t.rank - 1)
            return fe_op_bad(op, "HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT %lld is "
                       "outside [1, %d] for X %s", (long long)c, x.t.rank - 1, DIMS(&x));
        n = (int)c;
    }
    TRY(norm_phase(op, HIPDNN_ATTR_OPERATION_LAYERNORM_FWD_PHASE_EXT, stats, 2));
    return norm_shapes(op, &x, n, w, 2, stats, 2);
}

/* RMSNorm has no dim-count attribute: the normalized dims are inferred from SCALE, which (like
 * BIAS) has X's rank; a 1-D [D] scale is not accepted. */
hipdnnStatus_t fe_check_rmsnorm(fe_obj *op)
{
    fe_port x = PORT(HIPDNN_ATTR_OPERATION_RMSNORM_X_EXT, "X");
    fe_port y = PORT(HIPDNN_ATTR_OPERATION_RMSNORM_Y_EXT, "Y");
    fe_port eps = PORT(HIPDNN_ATTR_OPERATION_RMSNORM_EPSILON_EXT, "EPSILON");
    fe_port w[2] = {PORT(HIPDNN_ATTR_OPERATION_RMSNORM_SCALE_EXT, "SCALE"),
                 PORT(HIPDNN_ATTR_OPERATION_RMSNORM_BIAS_EXT, "BIAS")};
    fe_port inv = PORT(HIPDNN_ATTR_OPERATION_RMSNORM_INV_RMS_EXT, "INV_RMS");
    TRY(fe_need_rank(op, &x, 2, FE_MAX_RANK));
    TRY(fe_need_same(op, &y, &x));
    TRY(fe_need_scalar(op, &eps));
    TRY(norm_phase(op, HIPDNN_ATTR_OPERATION_RMSNORM_FWD_PHASE_EXT, &inv, 1));
    return norm_shapes(op, &x, norm_infer_dims(&x, &w[0]), w, 2, &inv, 1);
}
