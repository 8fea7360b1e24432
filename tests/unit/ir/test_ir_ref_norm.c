/* test_ir_ref_norm.c — the normalization references (ir/ir_ref_norm.c).
 *
 * Owns: batch norm inference (inv-variance and variance+eps forms), training (saved stats,
 * running stats with the unbiased variance, running buffers aliased in place), backward against
 * central differences of the training forward; genstats; layer norm and RMS norm (explicit and
 * inferred normalized dims, optional bias and statistics outputs, BFLOAT16 output rounding) —
 * all on random shapes and layouts against naive formulas written here, plus hand-computed
 * values and shape errors. (The IR has no layer-norm / RMS-norm backward op, so there is no
 * backward to difference for them.)
 * Tolerances: forward outputs 1e-12 relative + 1e-12 absolute (DOUBLE); BFLOAT16 outputs
 * correctly rounded; backward vs central differences (h = 1e-5): 1e-6 absolute + 1e-6 relative.
 */
#include <math.h>
#include <stdlib.h>

#include "ir_test_util.h"

static tt *scalar(double v)
{
    tt *s = tt_new(HIPDNN_DATA_FLOAT, 4, DIMS(1, 1, 1, 1), TT_RANDOM);
    tt_set(s, DIMS(0, 0, 0, 0), v);
    return s;
}

/* Per-channel [1, C, 1, ...] tensor of rank r (or rank-1 [C] when flat). */
static tt *chan(int64_t C, int r, bool flat, hipdnnDataType_t t)
{
    int64_t d[IR_MAX_RANK];
    for (int i = 0; i < r; i++)
        d[i] = i == 1 ? C : 1;
    return flat ? tt_new(t, 1, DIMS(C), TT_RANDOM) : tt_new(t, r, d, TT_RANDOM);
}

static double chan_at(const tt *c, int64_t ch)
{
    int64_t idx[IR_MAX_RANK] = {0};
    idx[c->b.rank == 1 ? 0 : 1] = ch;
    return tt_at(c, idx);
}

static tt *random_x(int64_t *C)
{
    int r = (int)tt_randint(2, 5);
    int64_t d[IR_MAX_RANK];
    for (int i = 0; i < r; i++)
        d[i] = tt_randint(1, 4);
    d[0] = tt_randint(2, 3); /* M >= 2 */
    *C = d[1];
    tt *x = tt_new(HIPDNN_DATA_DOUBLE, r, d, TT_RANDOM);
    tt_fill(x, -2, 3);
    return x;
}

/* Mean and population variance of channel ch, two-pass. */
static void chan_moments(const tt *x, int64_t ch, double *mean, double *var, int64_t *m)
{
    double *d = tt_dense(x), s = 0, q = 0;
    int64_t n = tt_numel(x), idx[IR_MAX_RANK];
    *m = 0;
    for (int64_t i = 0; i < n; i++) {
        tt_unlin(x->b.dims, x->b.rank, i, idx);
        if (idx[1] == ch)
            s += d[i], ++*m;
    }
    *mean = s / *m;
    for (int64_t i = 0; i < n; i++) {
        tt_unlin(x->b.dims, x->b.rank, i, idx);
        if (idx[1] == ch)
            q += (d[i] - *mean) * (d[i] - *mean);
    }
    *var = q / *m;
    free(d);
}

/* ---- batch norm ------------------------------------------------------------------------------- */

Test(ir_ref_norm, bn_inference_both_forms)
{
    tt_seed("ir_ref_norm.bn_inference_both_forms");
    for (int it = 0; it < 200; it++) {
        int64_t C, idx[IR_MAX_RANK] = {0};
        tt *x = random_x(&C), *y = tt_like(x, HIPDNN_DATA_DOUBLE, TT_RANDOM);
        bool flat = tt_randint(0, 1), from_var = tt_randint(0, 1);
        tt *mean = chan(C, x->b.rank, flat, HIPDNN_DATA_FLOAT),
           *v = chan(C, x->b.rank, flat, HIPDNN_DATA_FLOAT);
        tt *sc = chan(C, x->b.rank, flat, HIPDNN_DATA_HALF),
           *bi = chan(C, x->b.rank, false, HIPDNN_DATA_DOUBLE);
        tt *eps = scalar(tt_unif(1e-5, 1e-2));
        tt_fill(mean, -1, 1), tt_fill(v, 0.2, 3), tt_fill(sc, -2, 2), tt_fill(bi, -1, 1);
        ir_attrs a = {.norm = {0, 0, from_var}};
        tt *in[6] = {x, mean, v, sc, bi, from_var ? eps : NULL};
        cr_assert(tt_run(IR_OP_BN_INFER, &a, in, 6, &y, 1) == HIPDNN_STATUS_SUCCESS);
        double e = tt_at(eps, DIMS(0, 0, 0, 0));
        do {
            int64_t ch = idx[1];
            double inv = from_var ? 1 / sqrt(chan_at(v, ch) + (float)e) : chan_at(v, ch);
            double want = chan_at(sc, ch) * inv * (tt_at(x, idx) - chan_at(mean, ch)) + chan_at(bi, ch);
            tt_check_value(tt_at(y, idx), want, 1e-12, 1e-12, "bn inference");
        } while (ir_next_index(&x->b, idx));
        tt_free(x), tt_free(y), tt_free(mean), tt_free(v), tt_free(sc), tt_free(bi), tt_free(eps);
    }
}

typedef struct bn_train_io {
    tt *x, *scale, *bias, *eps, *pm, *pv, *mom;   /* inputs */
    tt *y, *mean, *inv, *nm, *nv;                 /* outputs */
} bn_train_io;

static hipdnnStatus_t run_bn_train(const bn_train_io *io)
{
    ir_attrs a = {.norm = {0}};
    tt *in[7] = {io->x, io->scale, io->bias, io->eps, io->pm, io->pv, io->mom};
    tt *out[5] = {io->y, io->mean, io->inv, io->nm, io->nv};
    return tt_run(IR_OP_BN_TRAIN, &a, in, 7, out, 5);
}

Test(ir_ref_norm, bn_training_and_running_stats)
{
    tt_seed("ir_ref_norm.bn_training_and_running_stats");
    for (int it = 0; it < 200; it++) {
        int64_t C, idx[IR_MAX_RANK] = {0};
        bn_train_io io = {0};
        io.x = random_x(&C);
        int r = io.x->b.rank;
        io.scale = chan(C, r, false, HIPDNN_DATA_FLOAT), io.bias = chan(C, r, true, HIPDNN_DATA_FLOAT);
        io.eps = scalar(1e-3), io.mom = scalar(tt_unif(0, 1));
        io.pm = chan(C, r, false, HIPDNN_DATA_DOUBLE), io.pv = chan(C, r, false, HIPDNN_DATA_DOUBLE);
        tt_fill(io.scale, -2, 2), tt_fill(io.bias, -1, 1), tt_fill(io.pm, -1, 1), tt_fill(io.pv, 0, 2);
        double *pm0 = tt_dense(io.pm), *pv0 = tt_dense(io.pv);
        bool alias = tt_randint(0, 1); /* next_* written in place over prev_* */
        io.nm = alias ? io.pm : chan(C, r, false, HIPDNN_DATA_DOUBLE);
        io.nv = alias ? io.pv : chan(C, r, false, HIPDNN_DATA_DOUBLE);
        io.y = tt_like(io.x, HIPDNN_DATA_DOUBLE, TT_RANDOM);
        io.mean = chan(C, r, false, HIPDNN_DATA_DOUBLE), io.inv = chan(C, r, true, HIPDNN_DATA_DOUBLE);
        cr_assert(run_bn_train(&io) == HIPDNN_STATUS_SUCCESS);
        double m = (double)tt_at(io.mom, DIMS(0, 0, 0, 0)), eps = (double)(float)1e-3;
        for (int64_t ch = 0; ch < C; ch++) {
            double mu, var;
            int64_t M;
            chan_moments(io.x, ch, &mu, &var, &M);
            tt_check_value(chan_at(io.mean, ch), mu, 1e-12, 1e-12, "saved mean");
            tt_check_value(chan_at(io.inv, ch), 1 / sqrt(var + eps), 1e-12, 1e-12, "saved inv_var");
            tt_check_value(chan_at(io.nm, ch), (1 - m) * pm0[ch] + m * mu, 1e-12, 1e-12, "next mean");
            tt_check_value(chan_at(io.nv, ch), (1 - m) * pv0[ch] + m * var * M / (M - 1), 1e-12,
                           1e-12, "next var (unbiased)");
        }
        do {
            double mu, var;
            int64_t M, ch = idx[1];
            chan_moments(io.x, ch, &mu, &var, &M);
            double want = (tt_at(io.x, idx) - mu) / sqrt(var + eps) * chan_at(io.scale, ch) +
                          chan_at(io.bias, ch);
            tt_check_value(tt_at(io.y, idx), want, 1e-12, 1e-12, "bn training y");
        } while (ir_next_index(&io.x->b, idx));
        free(pm0), free(pv0);
        if (!alias)
            tt_free(io.nm), tt_free(io.nv);
        tt_free(io.x), tt_free(io.scale), tt_free(io.bias), tt_free(io.eps), tt_free(io.mom);
        tt_free(io.pm), tt_free(io.pv), tt_free(io.y), tt_free(io.mean), tt_free(io.inv);
    }
}

Test(ir_ref_norm, bn_training_hand_computed)
{
    /* x [2,1] = {1, 3}: mean 2, var 1, unbiased var 2; eps 0 (float 0) */
    bn_train_io io = {0};
    io.x = tt_new(HIPDNN_DATA_FLOAT, 2, DIMS(2, 1), TT_DENSE);
    tt_set(io.x, DIMS(0, 0), 1), tt_set(io.x, DIMS(1, 0), 3);
    io.eps = scalar(0), io.mom = scalar(0.5), io.pm = scalar(10), io.pv = scalar(4);
    io.y = tt_new(HIPDNN_DATA_FLOAT, 2, DIMS(2, 1), TT_DENSE);
    io.nm = tt_new(HIPDNN_DATA_FLOAT, 2, DIMS(1, 1), TT_DENSE);
    io.nv = tt_new(HIPDNN_DATA_FLOAT, 2, DIMS(1, 1), TT_DENSE);
    cr_assert(run_bn_train(&io) == HIPDNN_STATUS_SUCCESS);
    tt_check(io.y, (const double[]){-1, 1}, 0, 0, "y");
    tt_check(io.nm, (const double[]){6}, 0, 0, "next mean = .5*10 + .5*2");
    tt_check(io.nv, (const double[]){3}, 0, 0, "next var = .5*4 + .5*2");
    /* running outputs without momentum: BAD_PARAM */
    tt *mom = io.mom;
    io.mom = NULL;
    CHECK(run_bn_train(&io) == HIPDNN_STATUS_BAD_PARAM);
    io.mom = mom;
    tt_free(io.x), tt_free(io.eps), tt_free(io.mom), tt_free(io.pm), tt_free(io.pv);
    tt_free(io.y), tt_free(io.nm), tt_free(io.nv);
}

/* L = sum y * dy of the training forward; x, scale, bias perturbed one element at a time. */
static double bn_loss(bn_train_io *io, const double *dy)
{
    cr_assert(run_bn_train(io) == HIPDNN_STATUS_SUCCESS);
    double *y = tt_dense(io->y), l = 0;
    for (int64_t i = 0; i < tt_numel(io->y); i++)
        l += y[i] * dy[i];
    free(y);
    return l;
}

static double central_diff(bn_train_io *io, tt *t, const int64_t *idx, const double *dy)
{
    const double h = 1e-5;
    double v = tt_at(t, idx);
    tt_set(t, idx, v + h);
    double lp = bn_loss(io, dy);
    tt_set(t, idx, v - h);
    double lm = bn_loss(io, dy);
    tt_set(t, idx, v);
    return (lp - lm) / (2 * h);
}

static void check_grad(bn_train_io *io, tt *param, const tt *grad, const double *dy,
                       const char *what)
{
    int64_t idx[IR_MAX_RANK] = {0}, gidx[IR_MAX_RANK];
    do {
        for (int i = 0; i < param->b.rank; i++)
            gidx[i] = idx[i];
        double fd = central_diff(io, param, idx, dy);
        tt_check_value(tt_at(grad, gidx), fd, 1e-6, 1e-6, what);
    } while (ir_next_index(&param->b, idx));
}

Test(ir_ref_norm, bn_backward_against_finite_differences)
{
    tt_seed("ir_ref_norm.bn_backward_against_finite_differences");
    for (int it = 0; it < 30; it++) {
        int64_t C;
        bn_train_io io = {0};
        io.x = random_x(&C);
        int r = io.x->b.rank;
        io.scale = chan(C, r, false, HIPDNN_DATA_DOUBLE),
        io.bias = chan(C, r, false, HIPDNN_DATA_DOUBLE);
        io.eps = scalar(1e-2), io.y = tt_like(io.x, HIPDNN_DATA_DOUBLE, TT_DENSE);
        io.mean = chan(C, r, false, HIPDNN_DATA_DOUBLE), io.inv = chan(C, r, false, HIPDNN_DATA_DOUBLE);
        tt_fill(io.scale, -2, 2), tt_fill(io.bias, -1, 1);
        tt *dy = tt_like(io.x, HIPDNN_DATA_DOUBLE, TT_RANDOM);
        tt_fill(dy, -1, 1);
        double *dyd = tt_dense(dy);
        bn_loss(&io, dyd); /* saved mean / inv_var of the unperturbed x */
        tt *dx = tt_like(io.x, HIPDNN_DATA_DOUBLE, TT_RANDOM);
        tt *ds = chan(C, r, tt_randint(0, 1), HIPDNN_DATA_DOUBLE),
           *db = chan(C, r, false, HIPDNN_DATA_DOUBLE);
        tt *in[5] = {dy, io.x, io.scale, io.mean, io.inv}, *out[3] = {dx, ds, db};
        ir_attrs a = {.norm = {0}};
        cr_assert(tt_run(IR_OP_BN_BWD, &a, in, 5, out, 3) == HIPDNN_STATUS_SUCCESS);
        tt *saved_mean = io.mean, *saved_inv = io.inv;
        io.mean = io.inv = NULL; /* the loss recomputes statistics; keep the saved ones */
        check_grad(&io, io.x, dx, dyd, "dx vs finite differences");
        for (int64_t ch = 0; ch < C; ch++) {
            int64_t idx[IR_MAX_RANK] = {0};
            idx[1] = ch;
            tt_check_value(chan_at(ds, ch), central_diff(&io, io.scale, idx, dyd), 1e-6, 1e-6,
                           "dscale");
            tt_check_value(chan_at(db, ch), central_diff(&io, io.bias, idx, dyd), 1e-6, 1e-6, "dbias");
        }
        free(dyd);
        tt_free(dy), tt_free(dx), tt_free(ds), tt_free(db), tt_free(saved_mean), tt_free(saved_inv);
        tt_free(io.x), tt_free(io.scale), tt_free(io.bias), tt_free(io.eps), tt_free(io.y);
    }
}

Test(ir_ref_norm, genstats)
{
    tt_seed("ir_ref_norm.genstats");
    for (int it = 0; it < 100; it++) {
        int64_t C;
        tt *x = random_x(&C), *s = chan(C, x->b.rank, false, HIPDNN_DATA_DOUBLE);
        tt *q = chan(C, x->b.rank, tt_randint(0, 1), HIPDNN_DATA_DOUBLE), *out[2] = {s, q};
        ir_attrs a = {.norm = {0}};
        cr_assert(tt_run(IR_OP_GENSTATS, &a, &x, 1, out, 2) == HIPDNN_STATUS_SUCCESS);
        double *d = tt_dense(x);
        for (int64_t ch = 0; ch < C; ch++) {
            double ws = 0, wq = 0;
            int64_t idx[IR_MAX_RANK];
            for (int64_t i = 0; i < tt_numel(x); i++) {
                tt_unlin(x->b.dims, x->b.rank, i, idx);
                if (idx[1] == ch)
                    ws += d[i], wq += d[i] * d[i];
            }
            tt_check_value(chan_at(s, ch), ws, 1e-12, 1e-12, "sum");
            tt_check_value(chan_at(q, ch), wq, 1e-12, 1e-12, "sq_sum");
        }
        free(d), tt_free(x), tt_free(s), tt_free(q);
    }
}

/* ---- layer norm / RMS norm -------------------------------------------------------------------- */

typedef struct ln_case {
    int r, k;          /* rank of x, normalized trailing dims */
    int64_t d[IR_MAX_RANK];
    bool infer, rms, bias, stats;
    hipdnnDataType_t yt;
} ln_case;

static ln_case random_ln(void)
{
    ln_case c = {.r = (int)tt_randint(2, 4), .infer = tt_randint(0, 1), .rms = tt_randint(0, 1),
                 .bias = tt_randint(0, 1), .stats = tt_randint(0, 1)};
    c.k = (int)tt_randint(1, c.r - 1);
    for (int i = 0; i < c.r; i++)
        c.d[i] = tt_randint(1, 4);
    c.d[c.r - c.k] = tt_randint(2, 4); /* scale's first normalized dim is > 1: inference works */
    c.yt = tt_randint(0, 2) ? HIPDNN_DATA_DOUBLE : HIPDNN_DATA_BFLOAT16;
    return c;
}

/* Scale/bias: x dims with the leading (non-normalized) dims 1; sometimes trailing-rank only. */
static tt *affine(const ln_case *c)
{
    int64_t d[IR_MAX_RANK];
    bool short_rank = tt_randint(0, 1);
    int r = short_rank ? c->k : c->r;
    for (int i = 0; i < r; i++) {
        int xi = i + c->r - r;
        d[i] = xi < c->r - c->k ? 1 : c->d[xi];
    }
    tt *t = tt_new(HIPDNN_DATA_FLOAT, r, d, TT_RANDOM);
    tt_fill(t, -2, 2);
    return t;
}

static tt *stat_out(const ln_case *c)
{
    int64_t d[IR_MAX_RANK];
    for (int i = 0; i < c->r; i++)
        d[i] = i < c->r - c->k ? c->d[i] : 1;
    return tt_new(HIPDNN_DATA_DOUBLE, c->r, d, TT_RANDOM);
}

static double bc_at(const tt *t, const int64_t *xidx, int xr)
{
    int64_t idx[IR_MAX_RANK];
    for (int i = 0; i < t->b.rank; i++)
        idx[i] = t->b.dims[i] == 1 ? 0 : xidx[i + xr - t->b.rank];
    return tt_at(t, idx);
}

/* Row statistics over the trailing k dims: mean (0 for RMS) and inv. */
static void ln_row(const ln_case *c, const double *x, int64_t row, double eps, double *mean,
                   double *inv)
{
    int64_t cols = 1;
    for (int i = c->r - c->k; i < c->r; i++)
        cols *= c->d[i];
    double s = 0, q = 0;
    for (int64_t j = 0; j < cols; j++)
        s += x[row * cols + j];
    *mean = c->rms ? 0 : s / cols;
    for (int64_t j = 0; j < cols; j++)
        q += (x[row * cols + j] - *mean) * (x[row * cols + j] - *mean);
    *inv = 1 / sqrt(q / cols + eps);
}

static void check_ln(const ln_case *c, tt *x, tt *sc, tt *bi, tt *y, tt *mean, tt *inv, double eps)
{
    double *xd = tt_dense(x);
    int64_t idx[IR_MAX_RANK] = {0}, cols = 1;
    for (int i = c->r - c->k; i < c->r; i++)
        cols *= c->d[i];
    do {
        int64_t lin = tt_lin(c->d, c->r, idx), row = lin / cols;
        double mu, iv;
        ln_row(c, xd, row, eps, &mu, &iv);
        double want = (xd[lin] - mu) * iv * bc_at(sc, idx, c->r) + (bi ? bc_at(bi, idx, c->r) : 0);
        if (c->yt == HIPDNN_DATA_DOUBLE)
            tt_check_value(tt_at(y, idx), want, 1e-12, 1e-12, c->rms ? "rmsnorm y" : "layernorm y");
        else
            cr_assert(tt_rounded_ok(c->yt, tt_at(y, idx), want), "bf16 y %.17g vs %.17g",
                      tt_at(y, idx), want);
        if (lin % cols == 0 && inv != NULL) {
            tt_check_value(bc_at(inv, idx, c->r), iv, 1e-12, 1e-12, "inv_var / inv_rms");
            if (mean != NULL)
                tt_check_value(bc_at(mean, idx, c->r), mu, 1e-12, 1e-12, "mean");
        }
    } while (ir_next_index(&x->b, idx));
    free(xd);
}

static void one_ln(void)
{
    ln_case c = random_ln();
    tt *x = tt_new(HIPDNN_DATA_DOUBLE, c.r, c.d, TT_RANDOM), *sc = affine(&c);
    tt *bi = c.bias || !c.rms ? affine(&c) : NULL, *eps = scalar(tt_unif(1e-5, 0.1));
    tt *y = tt_new(c.yt, c.r, c.d, TT_RANDOM);
    tt *mean = c.stats && !c.rms ? stat_out(&c) : NULL, *inv = c.stats ? stat_out(&c) : NULL;
    tt_fill(x, -2, 3);
    ir_attrs a = {.norm = {HIPDNN_NORM_FWD_TRAINING, c.infer ? 0 : c.k, false}};
    double e = tt_at(eps, DIMS(0, 0, 0, 0));
    if (c.rms) {
        tt *in[4] = {x, sc, eps, bi}, *out[2] = {y, inv};
        cr_assert(tt_run(IR_OP_RMSNORM, &a, in, 4, out, 2) == HIPDNN_STATUS_SUCCESS);
    } else {
        tt *in[4] = {x, sc, bi, eps}, *out[3] = {y, mean, inv};
        cr_assert(tt_run(IR_OP_LAYERNORM, &a, in, 4, out, 3) == HIPDNN_STATUS_SUCCESS);
    }
    check_ln(&c, x, sc, bi, y, mean, inv, e);
    tt_free(x), tt_free(sc), tt_free(bi), tt_free(eps), tt_free(y), tt_free(mean), tt_free(inv);
}

Test(ir_ref_norm, layernorm_and_rmsnorm_random)
{
    tt_seed("ir_ref_norm.layernorm_and_rmsnorm_random");
    for (int i = 0; i < 400; i++)
        one_ln();
}

Test(ir_ref_norm, layernorm_hand_computed)
{
    /* x [1, 4] = {1, 2, 3, 4}: mean 2.5, var 1.25; scale [1, 4] inferred k = 1 */
    tt *x = tt_new(HIPDNN_DATA_DOUBLE, 2, DIMS(1, 4), TT_DENSE);
    tt *sc = tt_new(HIPDNN_DATA_DOUBLE, 2, DIMS(1, 4), TT_DENSE), *eps = scalar(0);
    tt *y = tt_new(HIPDNN_DATA_DOUBLE, 2, DIMS(1, 4), TT_DENSE);
    tt *inv = tt_new(HIPDNN_DATA_DOUBLE, 2, DIMS(1, 1), TT_DENSE);
    for (int64_t j = 0; j < 4; j++) {
        tt_set(x, DIMS(0, j), (double)j + 1);
        tt_set(sc, DIMS(0, j), 1);
    }
    ir_attrs a = {.norm = {HIPDNN_NORM_FWD_INFERENCE, 0, false}};
    tt *in[4] = {x, sc, NULL, eps}, *out[3] = {y, NULL, inv};
    cr_assert(tt_run(IR_OP_LAYERNORM, &a, in, 4, out, 3) == HIPDNN_STATUS_SUCCESS);
    double s = 1 / sqrt(1.25);
    tt_check(y, (const double[]){-1.5 * s, -0.5 * s, 0.5 * s, 1.5 * s}, 1e-15, 0, "layernorm");
    /* RMS: mean(x^2) = 7.5 */
    tt *rin[4] = {x, sc, eps, NULL}, *rout[2] = {y, inv};
    cr_assert(tt_run(IR_OP_RMSNORM, &a, rin, 4, rout, 2) == HIPDNN_STATUS_SUCCESS);
    tt_check(inv, (const double[]){1 / sqrt(7.5)}, 1e-15, 0, "inv_rms");
    tt_free(x), tt_free(sc), tt_free(eps), tt_free(y), tt_free(inv);
}

Test(ir_ref_norm, errors)
{
    tt *x = tt_new(HIPDNN_DATA_FLOAT, 4, DIMS(2, 3, 2, 2), TT_DENSE);
    tt *y = tt_like(x, HIPDNN_DATA_FLOAT, TT_DENSE), *c3 = chan(3, 4, false, HIPDNN_DATA_FLOAT);
    tt *c4 = chan(4, 4, false, HIPDNN_DATA_FLOAT), *eps = scalar(1e-5);
    tt *ybad = tt_new(HIPDNN_DATA_FLOAT, 4, DIMS(2, 3, 2, 1), TT_DENSE);
    ir_attrs a = {.norm = {0, 0, true}};
    tt *in_ok[6] = {x, c3, c3, c3, c3, eps}, *in_bad[6] = {x, c4, c3, c3, c3, eps};
    tt *in_noeps[6] = {x, c3, c3, c3, c3, NULL};
    CHECK(tt_run(IR_OP_BN_INFER, &a, in_ok, 6, &y, 1) == HIPDNN_STATUS_SUCCESS);
    CHECK(tt_run(IR_OP_BN_INFER, &a, in_bad, 6, &y, 1) == HIPDNN_STATUS_BAD_PARAM);
    CHECK(tt_run(IR_OP_BN_INFER, &a, in_noeps, 6, &y, 1) == HIPDNN_STATUS_BAD_PARAM);
    CHECK(tt_run(IR_OP_BN_INFER, &a, in_ok, 6, &ybad, 1) == HIPDNN_STATUS_BAD_PARAM);
    tt *ln_in[4] = {x, c4, NULL, eps}; /* scale [1,4,1,1] does not broadcast to x */
    ir_attrs l = {.norm = {HIPDNN_NORM_FWD_TRAINING, 0, false}};
    CHECK(tt_run(IR_OP_LAYERNORM, &l, ln_in, 4, &y, 1) == HIPDNN_STATUS_BAD_PARAM);
    l.norm.normalized_dims = 5;
    ln_in[1] = c3;
    CHECK(tt_run(IR_OP_LAYERNORM, &l, ln_in, 4, &y, 1) == HIPDNN_STATUS_BAD_PARAM);
    tt *gs_out[2] = {c4, NULL};
    CHECK(tt_run(IR_OP_GENSTATS, &a, &x, 1, gs_out, 2) == HIPDNN_STATUS_BAD_PARAM);
    tt_free(x), tt_free(y), tt_free(c3), tt_free(c4), tt_free(eps), tt_free(ybad);
}
