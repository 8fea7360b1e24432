/* ir_ref_norm.c — reference semantics of the normalizations: batch norm (inference, training,
 * backward), genstats, layer norm and RMS norm (op-semantics.md §3).
 *
 * Owns: ir_ref_bn_infer, ir_ref_bn_train, ir_ref_bn_bwd, ir_ref_genstats, ir_ref_layernorm,
 * ir_ref_rmsnorm. Slot orders are in ir.h. Epsilon and momentum are scalar views (one element).
 *
 * Batch norm: channel = dim 1 of x [N, C, ...]; statistics over the other dims, M elements.
 *   mean = sum x / M, var = sum (x - mean)^2 / M (population), inv = 1 / sqrt(var + eps),
 *   y = (x - mean) * inv * scale + bias.
 *   Training also writes, where present: saved mean, saved inv_var (= inv above),
 *   next_mean = (1 - m) * prev_mean + m * mean, next_var = (1 - m) * prev_var + m * var*M/(M-1)
 *   (unbiased; M = 1 gives NaN). Running buffers may alias (next_* == prev_*): each channel's
 *   inputs are read before its outputs are written.
 *   Backward (with the saved mean/inv_var given): xhat = (x - mean) * inv, dbias = sum dy,
 *   dscale = sum dy * xhat, dx = scale * inv * (dy - dbias/M - xhat * dscale/M).
 *   Per-channel operands are views that broadcast onto [1, C, 1, ...] (or rank-1 [C]);
 *   an absent scale counts as 1, an absent bias as 0.
 * Genstats: sum[c] = sum x, sq_sum[c] = sum x^2.
 * Layer norm / RMS norm: statistics over the trailing k = normalized_dims dims of x; when
 *   normalized_dims is 0, k = rank - (first dim, right-aligned, where scale's size is not 1),
 *   or rank - 1 when scale has no dim above 1.
 *   LN: mean, var (population), inv = 1/sqrt(var + eps), y = (x - mean)*inv*scale + bias.
 *   RMS: inv = 1/sqrt(mean(x^2) + eps), y = x*inv*scale (+ bias when present).
 *   scale/bias broadcast onto x. mean / inv_var / inv_rms are written whenever present, whatever
 *   the phase; their dims are x's with the trailing k dims 1 (right-aligned, leading 1s allowed).
 * Every output is optional: absent outputs are skipped; a present one must have its full shape.
 */
#include <math.h>

#include "ir/ir_int.h"

/* ---- shared helpers --------------------------------------------------------------------------- */

static bool scalar_of(const ir_buf *b, double *v)
{
    int64_t zero[IR_MAX_RANK] = {0};
    if (b == NULL || ir_buf_numel(b) != 1)
        return false;
    *v = ir_load(b, zero);
    return true;
}

static bool same_dims(const ir_buf *a, const ir_buf *b)
{
    if (a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i])
            return false;
    return true;
}

/* Row-major increment of idx over dims [lo, hi) of x; false after the last. */
static bool next_range(const ir_buf *x, int64_t *idx, int lo, int hi)
{
    for (int i = hi - 1; i >= lo; i--) {
        if (++idx[i] < x->dims[i])
            return true;
        idx[i] = 0;
    }
    return false;
}

/* Increment over every dim of x but dim 1 (the channel). */
static bool next_in_channel(const ir_buf *x, int64_t *idx)
{
    return next_range(x, idx, 2, x->rank) || next_range(x, idx, 0, 1);
}

static void chan_index(const ir_buf *b, int64_t c, int rank, int64_t *bidx)
{
    int64_t idx[IR_MAX_RANK] = {0};
    if (b->rank == 1 && rank != 1) {
        bidx[0] = b->dims[0] == 1 ? 0 : c;
        return;
    }
    idx[1] = c;
    ir_bcast_index(b, idx, rank, bidx);
}

/* b is a per-channel view for C channels; `exact`: it holds exactly C elements (outputs). */
static bool chan_ok(const ir_buf *b, int64_t C, int rank, bool exact)
{
    int64_t dims[IR_MAX_RANK];
    if (exact && ir_buf_numel(b) != C)
        return false;
    if (b->rank == 1 && rank != 1)
        return b->dims[0] == C || b->dims[0] == 1;
    for (int i = 0; i < rank; i++)
        dims[i] = i == 1 ? C : 1;
    return ir_bcast_ok(b, dims, rank);
}

static double chan_load(const ir_buf *b, int64_t c, int rank, double absent)
{
    int64_t bidx[IR_MAX_RANK];
    if (b == NULL)
        return absent;
    chan_index(b, c, rank, bidx);
    return ir_load(b, bidx);
}

static void chan_store(ir_buf *b, int64_t c, int rank, double v)
{
    int64_t bidx[IR_MAX_RANK];
    if (b == NULL)
        return;
    chan_index(b, c, rank, bidx);
    ir_store(b, bidx, v);
}

/* Every present operand in list[0..n) is a per-channel view (exact for outputs). */
static bool chans_ok(const ir_buf *const *list, int n, int64_t C, int rank, bool exact)
{
    for (int i = 0; i < n; i++)
        if (list[i] != NULL && !chan_ok(list[i], C, rank, exact))
            return false;
    return true;
}

static hipdnnStatus_t check_x(const char *op, const ir_buf *x, const ir_buf *const *like, int n)
{
    if (x == NULL || x->rank < 2)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: x missing or of rank < 2", op);
    for (int i = 0; i < n; i++)
        if (like[i] != NULL && !same_dims(like[i], x))
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: operand dims differ from x", op);
    return HIPDNN_STATUS_SUCCESS;
}

/* ---- batch norm inference --------------------------------------------------------------------- */

hipdnnStatus_t ir_ref_bn_infer(const ir_norm *p, const ir_ref_ctx *c)
{
    const ir_buf *x = IR_IN(c, 0), *mean = IR_IN(c, 1), *iv = IR_IN(c, 2);
    const ir_buf *scale = IR_IN(c, 3), *bias = IR_IN(c, 4);
    ir_buf *y = IR_OUT(c, 0);
    double eps = 0.0;
    const ir_buf *like[] = {y}, *chans[] = {mean, iv, scale, bias};
    hipdnnStatus_t st = check_x("bn_inference", x, like, 1);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    if (mean == NULL || iv == NULL || !chans_ok(chans, 4, x->dims[1], x->rank, false))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "bn_inference: bad per-channel operand");
    if (p->from_variance && !scalar_of(IR_IN(c, 5), &eps))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "bn_inference: epsilon missing");
    int64_t idx[IR_MAX_RANK] = {0};
    if (y == NULL || ir_buf_numel(x) == 0)
        return HIPDNN_STATUS_SUCCESS;
    do {
        int64_t ch = idx[1];
        double v = chan_load(iv, ch, x->rank, 0);
        double inv = p->from_variance ? 1.0 / sqrt(v + eps) : v;
        double xh = (ir_load(x, idx) - chan_load(mean, ch, x->rank, 0)) * inv;
        ir_store(y, idx, xh * chan_load(scale, ch, x->rank, 1) + chan_load(bias, ch, x->rank, 0));
    } while (ir_next_index(x, idx));
    return HIPDNN_STATUS_SUCCESS;
}

/* ---- batch norm training ---------------------------------------------------------------------- */

typedef struct bn_stats {
    double mean, var, inv;
    int64_t m;
} bn_stats;

static bn_stats chan_stats(const ir_buf *x, int64_t ch, double eps)
{
    bn_stats s = {0, 0, 0, ir_buf_numel(x) / x->dims[1]};
    int64_t idx[IR_MAX_RANK] = {0};
    double sum = 0, sq = 0;
    idx[1] = ch;
    do
        sum += ir_load(x, idx);
    while (next_in_channel(x, idx));
    s.mean = sum / (double)s.m;
    do {
        double d = ir_load(x, idx) - s.mean;
        sq += d * d;
    } while (next_in_channel(x, idx));
    s.var = sq / (double)s.m;
    s.inv = 1.0 / sqrt(s.var + eps);
    return s;
}

/* Running statistics of channel ch (slots 4, 5, 6 in; 3, 4 out). */
static void bn_running(const ir_ref_ctx *c, int64_t ch, int rank, const bn_stats *s, double mom)
{
    double pm = chan_load(IR_IN(c, 4), ch, rank, 0), pv = chan_load(IR_IN(c, 5), ch, rank, 0);
    double unbiased = s->var * (double)s->m / (double)(s->m - 1);
    if (s->m == 1)
        unbiased = NAN;
    chan_store(IR_OUT(c, 3), ch, rank, (1.0 - mom) * pm + mom * s->mean);
    chan_store(IR_OUT(c, 4), ch, rank, (1.0 - mom) * pv + mom * unbiased);
}

static hipdnnStatus_t bn_train_check(const ir_ref_ctx *c, double *eps, double *mom)
{
    const ir_buf *x = IR_IN(c, 0), *like[] = {IR_OUT(c, 0)};
    hipdnnStatus_t st = check_x("bn_training", x, like, 1);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    const ir_buf *ins[] = {IR_IN(c, 1), IR_IN(c, 2), IR_IN(c, 4), IR_IN(c, 5)};
    const ir_buf *outs[] = {IR_OUT(c, 1), IR_OUT(c, 2), IR_OUT(c, 3), IR_OUT(c, 4)};
    if (!chans_ok(ins, 4, x->dims[1], x->rank, false) ||
        !chans_ok(outs, 4, x->dims[1], x->rank, true))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "bn_training: bad per-channel operand");
    if (!scalar_of(IR_IN(c, 3), eps))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "bn_training: epsilon missing");
    *mom = 0.0;
    bool running = IR_OUT(c, 3) != NULL || IR_OUT(c, 4) != NULL;
    if (running && (IR_IN(c, 4) == NULL || IR_IN(c, 5) == NULL || !scalar_of(IR_IN(c, 6), mom)))
        return base_fail(HIPDNN_STATUS_BAD_PARAM,
                         "bn_training: running stats need prev_mean, prev_var and momentum");
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t ir_ref_bn_train(const ir_ref_ctx *c)
{
    double eps = 0, mom = 0;
    hipdnnStatus_t st = bn_train_check(c, &eps, &mom);
    if (st != HIPDNN_STATUS_SUCCESS || ir_buf_numel(IR_IN(c, 0)) == 0)
        return st;
    const ir_buf *x = IR_IN(c, 0), *scale = IR_IN(c, 1), *bias = IR_IN(c, 2);
    ir_buf *y = IR_OUT(c, 0);
    for (int64_t ch = 0; ch < x->dims[1]; ch++) {
        bn_stats s = chan_stats(x, ch, eps);
        double g = chan_load(scale, ch, x->rank, 1), b = chan_load(bias, ch, x->rank, 0);
        int64_t idx[IR_MAX_RANK] = {0};
        idx[1] = ch;
        do
            if (y != NULL)
                ir_store(y, idx, (ir_load(x, idx) - s.mean) * s.inv * g + b);
        while (next_in_channel(x, idx));
        chan_store(IR_OUT(c, 1), ch, x->rank, s.mean);
        chan_store(IR_OUT(c, 2), ch, x->rank, s.inv);
        bn_running(c, ch, x->rank, &s, mom);
    }
    return HIPDNN_STATUS_SUCCESS;
}

/* ---- batch norm backward ---------------------------------------------------------------------- */

/* dbias and dscale of channel ch: sums of dy and dy*xhat. */
static void bn_bwd_sums(const ir_buf *dy, const ir_buf *x, int64_t ch, double mean, double inv,
                        double *db, double *ds)
{
    int64_t idx[IR_MAX_RANK] = {0};
    *db = 0, *ds = 0;
    idx[1] = ch;
    do {
        double g = ir_load(dy, idx);
        *db += g;
        *ds += g * (ir_load(x, idx) - mean) * inv;
    } while (next_in_channel(x, idx));
}

static hipdnnStatus_t bn_bwd_check(const ir_ref_ctx *c)
{
    const ir_buf *x = IR_IN(c, 1), *like[] = {IR_IN(c, 0), IR_OUT(c, 0)};
    const ir_buf *ins[] = {IR_IN(c, 2), IR_IN(c, 3), IR_IN(c, 4)};
    const ir_buf *outs[] = {IR_OUT(c, 1), IR_OUT(c, 2)};
    hipdnnStatus_t st = check_x("bn_backward", x, like, 2);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    if (like[0] == NULL || ins[1] == NULL || ins[2] == NULL ||
        !chans_ok(ins, 3, x->dims[1], x->rank, false) ||
        !chans_ok(outs, 2, x->dims[1], x->rank, true))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "bn_backward: bad or missing operand");
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t ir_ref_bn_bwd(const ir_ref_ctx *c)
{
    const ir_buf *dy = IR_IN(c, 0), *x = IR_IN(c, 1), *scale = IR_IN(c, 2);
    ir_buf *dx = IR_OUT(c, 0);
    hipdnnStatus_t st = bn_bwd_check(c);
    if (st != HIPDNN_STATUS_SUCCESS || ir_buf_numel(x) == 0)
        return st;
    double m = (double)(ir_buf_numel(x) / x->dims[1]);
    for (int64_t ch = 0; ch < x->dims[1]; ch++) {
        double mu = chan_load(IR_IN(c, 3), ch, x->rank, 0);
        double inv = chan_load(IR_IN(c, 4), ch, x->rank, 0);
        double g = chan_load(scale, ch, x->rank, 1), db, ds;
        bn_bwd_sums(dy, x, ch, mu, inv, &db, &ds);
        int64_t idx[IR_MAX_RANK] = {0};
        idx[1] = ch;
        do {
            double xh = (ir_load(x, idx) - mu) * inv;
            if (dx != NULL)
                ir_store(dx, idx, g * inv * (ir_load(dy, idx) - db / m - xh * ds / m));
        } while (next_in_channel(x, idx));
        chan_store(IR_OUT(c, 1), ch, x->rank, ds);
        chan_store(IR_OUT(c, 2), ch, x->rank, db);
    }
    return HIPDNN_STATUS_SUCCESS;
}

/* ---- genstats --------------------------------------------------------------------------------- */

hipdnnStatus_t ir_ref_genstats(const ir_ref_ctx *c)
{
    const ir_buf *x = IR_IN(c, 0);
    const ir_buf *outs[] = {IR_OUT(c, 0), IR_OUT(c, 1)};
    hipdnnStatus_t st = check_x("genstats", x, NULL, 0);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    if (!chans_ok(outs, 2, x->dims[1], x->rank, true))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "genstats: bad sum / sq_sum shape");
    for (int64_t ch = 0; ch < x->dims[1]; ch++) {
        int64_t idx[IR_MAX_RANK] = {0};
        double s = 0, sq = 0;
        idx[1] = ch;
        if (ir_buf_numel(x) > 0) {
            do {
                double v = ir_load(x, idx);
                s += v, sq += v * v;
            } while (next_in_channel(x, idx));
        }
        chan_store(IR_OUT(c, 0), ch, x->rank, s);
        chan_store(IR_OUT(c, 1), ch, x->rank, sq);
    }
    return HIPDNN_STATUS_SUCCESS;
}

/* ---- layer norm and RMS norm ------------------------------------------------------------------ */

typedef struct rownorm {
    const char *op;
    const ir_buf *x, *scale, *bias;
    ir_buf *y, *mean, *inv; /* mean is NULL for RMS norm */
    double eps;
    int k;                  /* trailing dims normalized */
    bool rms;
} rownorm;

static int infer_k(const ir_norm *p, const ir_buf *x, const ir_buf *scale)
{
    if (p->normalized_dims != 0)
        return p->normalized_dims;
    if (scale != NULL) {
        int lead = x->rank - scale->rank;
        for (int i = 0; i < scale->rank; i++)
            if (scale->dims[i] != 1 && i + lead >= 0)
                return x->rank - (i + lead);
    }
    return x->rank - 1;
}

static bool stat_ok(const rownorm *r, const ir_buf *s)
{
    int64_t dims[IR_MAX_RANK], rows = 1;
    for (int i = 0; i < r->x->rank; i++) {
        dims[i] = i < r->x->rank - r->k ? r->x->dims[i] : 1;
        rows *= dims[i];
    }
    return s == NULL || (ir_bcast_ok(s, dims, r->x->rank) && ir_buf_numel(s) == rows);
}

static hipdnnStatus_t rownorm_check(rownorm *r, const ir_norm *p, const ir_ref_ctx *c)
{
    const ir_buf *like[] = {r->y};
    hipdnnStatus_t st = check_x(r->op, r->x, like, 1);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    r->k = infer_k(p, r->x, r->scale);
    if (r->k < 1 || r->k > r->x->rank)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: normalized_dims %d out of range", r->op,
                         r->k);
    if ((r->scale != NULL && !ir_bcast_ok(r->scale, r->x->dims, r->x->rank)) ||
        (r->bias != NULL && !ir_bcast_ok(r->bias, r->x->dims, r->x->rank)))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: scale/bias do not broadcast to x", r->op);
    if (!stat_ok(r, r->mean) || !stat_ok(r, r->inv))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: statistics output has a bad shape", r->op);
    if (!scalar_of(IR_IN(c, r->rms ? 2 : 3), &r->eps))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: epsilon missing", r->op);
    return HIPDNN_STATUS_SUCCESS;
}

static double bcast_load(const ir_buf *b, const int64_t *idx, int rank, double absent)
{
    int64_t bidx[IR_MAX_RANK];
    if (b == NULL)
        return absent;
    ir_bcast_index(b, idx, rank, bidx);
    return ir_load(b, bidx);
}

static void bcast_store(ir_buf *b, const int64_t *idx, int rank, double v)
{
    int64_t bidx[IR_MAX_RANK];
    if (b == NULL)
        return;
    ir_bcast_index(b, idx, rank, bidx);
    ir_store(b, bidx, v);
}

/* Mean (0 for RMS) and inverse deviation of the row whose leading index is idx. */
static void row_stats(const rownorm *r, int64_t *idx, double *mean, double *inv)
{
    int lo = r->x->rank - r->k, hi = r->x->rank;
    int64_t cnt = 1;
    double s = 0, sq = 0;
    for (int i = lo; i < hi; i++)
        cnt *= r->x->dims[i];
    *mean = 0;
    if (!r->rms) {
        do
            s += ir_load(r->x, idx);
        while (next_range(r->x, idx, lo, hi));
        *mean = s / (double)cnt;
    }
    do {
        double d = ir_load(r->x, idx) - *mean;
        sq += d * d;
    } while (next_range(r->x, idx, lo, hi));
    *inv = 1.0 / sqrt(sq / (double)cnt + r->eps);
}

static void row_apply(const rownorm *r, int64_t *idx, double mean, double inv)
{
    int lo = r->x->rank - r->k, hi = r->x->rank, rank = r->x->rank;
    if (r->y != NULL) {
        do {
            double v = (ir_load(r->x, idx) - mean) * inv * bcast_load(r->scale, idx, rank, 1);
            ir_store(r->y, idx, v + bcast_load(r->bias, idx, rank, 0));
        } while (next_range(r->x, idx, lo, hi));
    }
    bcast_store(r->mean, idx, rank, mean);
    bcast_store(r->inv, idx, rank, inv);
}

static hipdnnStatus_t rownorm_run(rownorm *r, const ir_norm *p, const ir_ref_ctx *c)
{
    hipdnnStatus_t st = rownorm_check(r, p, c);
    if (st != HIPDNN_STATUS_SUCCESS || ir_buf_numel(r->x) == 0)
        return st;
    int64_t idx[IR_MAX_RANK] = {0};
    do {
        double mean, inv;
        row_stats(r, idx, &mean, &inv);
        row_apply(r, idx, mean, inv);
    } while (next_range(r->x, idx, 0, r->x->rank - r->k));
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t ir_ref_layernorm(const ir_norm *p, const ir_ref_ctx *c)
{
    rownorm r = {"layernorm", IR_IN(c, 0), IR_IN(c, 1), IR_IN(c, 2),
                 IR_OUT(c, 0), IR_OUT(c, 1), IR_OUT(c, 2), 0, 0, false};
    return rownorm_run(&r, p, c);
}

hipdnnStatus_t ir_ref_rmsnorm(const ir_norm *p, const ir_ref_ctx *c)
{
    rownorm r = {"rmsnorm", IR_IN(c, 0), IR_IN(c, 1), IR_IN(c, 3),
                 IR_OUT(c, 0), NULL, IR_OUT(c, 1), 0, 0, true};
    return rownorm_run(&r, p, c);
}
