/* test_ir_ref_conv.c — the convolution references (ir/ir_ref_conv.c): CONV_FWD, CONV_DGRAD,
 * CONV_WGRAD.
 *
 * Owns: hand-computed 3x3 cases (cross-correlation, CONVOLUTION mode, padding + stride); random
 * 2-D and 3-D problems with groups, stride, dilation, asymmetric padding, both modes and random
 * layouts (NCHW, NHWC, gaps): fwd against a direct loop over every tap written here, dgrad and
 * wgrad against a scatter formulation of the same loop (every tap adds its product to dx / dw)
 * and against the adjoint identity <conv(x,w), dy> = <x, dgrad(dy,w)> = <w, wgrad(x,dy)>.
 * Tolerances: DOUBLE outputs 1e-12 relative to the sum of |terms|; the identity 1e-10 relative
 * to the sum of |products|. Shape errors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir_test_util.h"

typedef struct cfg {
    int sp;
    int64_t n, g, cg, kg;
    int64_t in[3], flt[3], out[3], pre[3], post[3], str[3], dil[3]; /* [0] = depth (1 in 2-D) */
    bool flip;
} cfg;

static void dims_of(const cfg *c, int64_t a, int64_t b, const int64_t s[3], int64_t *d)
{
    d[0] = a, d[1] = b;
    for (int i = 3 - c->sp, j = 2; i < 3; i++, j++)
        d[j] = s[i];
}

static ir_attrs attrs_of(const cfg *c)
{
    ir_attrs a = {.conv = {c->sp, {0}, {0}, {0}, {0}, c->flip}};
    for (int i = 3 - c->sp, j = 0; i < 3; i++, j++) {
        a.conv.pre[j] = c->pre[i], a.conv.post[j] = c->post[i];
        a.conv.stride[j] = c->str[i], a.conv.dilation[j] = c->dil[i];
    }
    return a;
}

static cfg random_cfg(void)
{
    cfg c = {.sp = tt_randint(0, 2) ? 2 : 3, .flip = tt_randint(0, 1)};
    c.n = tt_randint(1, 2), c.g = tt_randint(1, 3), c.cg = tt_randint(1, 3), c.kg = tt_randint(1, 3);
    for (int d = 0; d < 3; d++) {
        bool unit = d == 0 && c.sp == 2;
        c.flt[d] = unit ? 1 : tt_randint(1, 3);
        c.dil[d] = unit ? 1 : tt_randint(1, 2);
        c.str[d] = unit ? 1 : tt_randint(1, 3);
        c.pre[d] = unit ? 0 : tt_randint(0, 2);
        c.post[d] = unit ? 0 : tt_randint(0, 2);
        int64_t span = c.dil[d] * (c.flt[d] - 1) + 1, lo = span - c.pre[d] - c.post[d];
        lo = lo > 1 ? lo : 1;
        c.in[d] = unit ? 1 : tt_randint(lo, lo + (c.sp == 3 ? 2 : 4));
        c.out[d] = 1 + (c.in[d] + c.pre[d] + c.post[d] - span) / c.str[d];
    }
    return c;
}

typedef enum { FWD, DGRAD, WGRAD } dir;

/* Every tap of the convolution: FWD gathers into y, DGRAD scatters into dx, WGRAD into dw.
 * Dense row-major arrays over [N,C,D,H,W] / [K,Cg,T,R,S] / [N,K,O,P,Q] (depth 1 in 2-D). */
static void taps(const cfg *c, dir d, double *x, double *w, double *y, double *mag)
{
    int64_t C = c->g * c->cg, K = c->g * c->kg;
    for (int64_t n = 0; n < c->n; n++)
    for (int64_t k = 0; k < K; k++)
    for (int64_t o0 = 0; o0 < c->out[0]; o0++)
    for (int64_t o1 = 0; o1 < c->out[1]; o1++)
    for (int64_t o2 = 0; o2 < c->out[2]; o2++)
    for (int64_t ci = 0; ci < c->cg; ci++)
    for (int64_t f0 = 0; f0 < c->flt[0]; f0++)
    for (int64_t f1 = 0; f1 < c->flt[1]; f1++)
    for (int64_t f2 = 0; f2 < c->flt[2]; f2++) {
        int64_t i0 = o0 * c->str[0] - c->pre[0] + f0 * c->dil[0];
        int64_t i1 = o1 * c->str[1] - c->pre[1] + f1 * c->dil[1];
        int64_t i2 = o2 * c->str[2] - c->pre[2] + f2 * c->dil[2];
        if (i0 < 0 || i1 < 0 || i2 < 0 || i0 >= c->in[0] || i1 >= c->in[1] || i2 >= c->in[2])
            continue;
        int64_t t0 = c->flip ? c->flt[0] - 1 - f0 : f0, t1 = c->flip ? c->flt[1] - 1 - f1 : f1;
        int64_t t2 = c->flip ? c->flt[2] - 1 - f2 : f2;
        int64_t cx = k / c->kg * c->cg + ci;
        int64_t xi = (((n * C + cx) * c->in[0] + i0) * c->in[1] + i1) * c->in[2] + i2;
        int64_t wi = (((k * c->cg + ci) * c->flt[0] + t0) * c->flt[1] + t1) * c->flt[2] + t2;
        int64_t yi = (((n * K + k) * c->out[0] + o0) * c->out[1] + o1) * c->out[2] + o2;
        double p = d == FWD ? x[xi] * w[wi] : d == DGRAD ? y[yi] * w[wi] : y[yi] * x[xi];
        double *dst = d == FWD ? &y[yi] : d == DGRAD ? &x[xi] : &w[wi];
        int64_t mi = d == FWD ? yi : d == DGRAD ? xi : wi;
        *dst += p;
        mag[mi] += fabs(p);
    }
}

typedef struct prob {
    cfg c;
    tt *x, *w, *y;
} prob;

static prob make_prob(const cfg *c)
{
    prob p = {*c, NULL, NULL, NULL};
    int64_t dx[5], dw[5], dy[5];
    dims_of(c, c->n, c->g * c->cg, c->in, dx);
    dims_of(c, c->g * c->kg, c->cg, c->flt, dw);
    dims_of(c, c->n, c->g * c->kg, c->out, dy);
    p.x = tt_new(HIPDNN_DATA_DOUBLE, c->sp + 2, dx, TT_RANDOM);
    p.w = tt_new(HIPDNN_DATA_DOUBLE, c->sp + 2, dw, TT_RANDOM);
    p.y = tt_new(HIPDNN_DATA_DOUBLE, c->sp + 2, dy, TT_RANDOM);
    return p;
}

static void free_prob(prob *p) { tt_free(p->x), tt_free(p->w), tt_free(p->y); }

static double *zeros(const tt *t) { return calloc((size_t)tt_numel(t) + 1, sizeof(double)); }

static void check_with_mag(const tt *out, const double *want, const double *mag, const char *what)
{
    int64_t idx[IR_MAX_RANK];
    for (int64_t i = 0; i < tt_numel(out); i++) {
        tt_unlin(out->b.dims, out->b.rank, i, idx);
        tt_check_value(tt_at(out, idx), want[i], 1e-12 * mag[i], 0, what);
    }
}

/* Runs kind with the two inputs filled at random; checks the output against taps(). */
static void check_dir(prob *p, dir d)
{
    static const ir_op_kind kinds[] = {IR_OP_CONV_FWD, IR_OP_CONV_DGRAD, IR_OP_CONV_WGRAD};
    static const char *names[] = {"conv fwd", "conv dgrad", "conv wgrad"};
    tt *in0 = d == DGRAD ? p->y : p->x, *in1 = d == WGRAD ? p->y : p->w;
    tt *out = d == FWD ? p->y : d == DGRAD ? p->x : p->w;
    memset(out->mem, 0xff, out->bytes); /* poison */
    tt_fill(in0, -1, 1), tt_fill(in1, -1, 1);
    double *dx = tt_dense(p->x), *dw = tt_dense(p->w), *dy = tt_dense(p->y);
    double *want = zeros(out), *mag = zeros(out);
    double *sx = d == DGRAD ? want : dx, *sw = d == WGRAD ? want : dw, *sy = d == FWD ? want : dy;
    taps(&p->c, d, sx, sw, sy, mag);
    ir_attrs a = attrs_of(&p->c);
    tt *in[2] = {in0, in1};
    cr_assert(tt_run(kinds[d], &a, in, 2, &out, 1) == HIPDNN_STATUS_SUCCESS, "%s", names[d]);
    check_with_mag(out, want, mag, names[d]);
    free(dx), free(dw), free(dy), free(want), free(mag);
}

static double dot(const tt *a, const tt *b, double *mag)
{
    double *da = tt_dense(a), *db = tt_dense(b), s = 0;
    for (int64_t i = 0; i < tt_numel(a); i++)
        s += da[i] * db[i], *mag += fabs(da[i] * db[i]);
    free(da), free(db);
    return s;
}

/* <conv(x,w), dy> = <x, dgrad(dy,w)> = <w, wgrad(x,dy)> with fresh x, w, dy. */
static void check_adjoint(const cfg *c)
{
    prob p = make_prob(c);
    tt *dy = tt_like(p.y, HIPDNN_DATA_DOUBLE, TT_RANDOM),
       *dx = tt_like(p.x, HIPDNN_DATA_DOUBLE, TT_RANDOM);
    tt *dw = tt_like(p.w, HIPDNN_DATA_DOUBLE, TT_RANDOM);
    tt_fill(p.x, -1, 1), tt_fill(p.w, -1, 1), tt_fill(dy, -1, 1);
    ir_attrs a = attrs_of(c);
    tt *f[2] = {p.x, p.w}, *dg[2] = {dy, p.w}, *wg[2] = {p.x, dy};
    cr_assert(tt_run(IR_OP_CONV_FWD, &a, f, 2, &p.y, 1) == HIPDNN_STATUS_SUCCESS);
    cr_assert(tt_run(IR_OP_CONV_DGRAD, &a, dg, 2, &dx, 1) == HIPDNN_STATUS_SUCCESS);
    cr_assert(tt_run(IR_OP_CONV_WGRAD, &a, wg, 2, &dw, 1) == HIPDNN_STATUS_SUCCESS);
    double m1 = 0, m2 = 0, m3 = 0;
    double s1 = dot(p.y, dy, &m1), s2 = dot(p.x, dx, &m2), s3 = dot(p.w, dw, &m3);
    double tol = 1e-10 * (m1 + m2 + m3 + 1e-300);
    tt_check_value(s2, s1, tol, 0, "adjoint <x, dgrad(dy,w)>");
    tt_check_value(s3, s1, tol, 0, "adjoint <w, wgrad(x,dy)>");
    tt_free(dy), tt_free(dx), tt_free(dw);
    free_prob(&p);
}

Test(ir_ref_conv, random_against_direct_loops)
{
    tt_seed("ir_ref_conv.random_against_direct_loops");
    for (int i = 0; i < 300; i++) {
        cfg c = random_cfg();
        prob p = make_prob(&c);
        check_dir(&p, FWD);
        check_dir(&p, DGRAD);
        check_dir(&p, WGRAD);
        free_prob(&p);
        check_adjoint(&c);
    }
}

Test(ir_ref_conv, nhwc_layout)
{
    tt_seed("ir_ref_conv.nhwc_layout");
    cfg c = {.sp = 2, .n = 2, .g = 2, .cg = 3, .kg = 2, .in = {1, 5, 4}, .flt = {1, 3, 2},
             .pre = {0, 1, 0}, .post = {0, 1, 1}, .str = {1, 1, 2}, .dil = {1, 1, 1}};
    for (int d = 0; d < 3; d++)
        c.out[d] = 1 + (c.in[d] + c.pre[d] + c.post[d] - c.dil[d] * (c.flt[d] - 1) - 1) / c.str[d];
    prob p = make_prob(&c);
    tt_free(p.x), tt_free(p.y);
    int64_t C = 6, H = 5, W = 4, K = 4, P = c.out[1], Q = c.out[2];
    p.x = tt_new_strided(HIPDNN_DATA_DOUBLE, 4, DIMS(2, C, H, W), DIMS(C * H * W, 1, W * C, C));
    p.y = tt_new_strided(HIPDNN_DATA_DOUBLE, 4, DIMS(2, K, P, Q), DIMS(K * P * Q, 1, Q * K, K));
    check_dir(&p, FWD);
    check_dir(&p, DGRAD);
    check_dir(&p, WGRAD);
    free_prob(&p);
}

Test(ir_ref_conv, hand_computed)
{
    tt *x = tt_new(HIPDNN_DATA_FLOAT, 4, DIMS(1, 1, 3, 3), TT_DENSE);
    tt *w = tt_new(HIPDNN_DATA_FLOAT, 4, DIMS(1, 1, 2, 2), TT_DENSE);
    tt *y = tt_new(HIPDNN_DATA_FLOAT, 4, DIMS(1, 1, 2, 2), TT_DENSE), *in[2] = {x, w};
    static const double wv[4] = {1, 0, 0, -1};
    int64_t idx[4];
    for (int i = 0; i < 9; i++) {
        tt_unlin(x->b.dims, 4, i, idx);
        tt_set(x, idx, i + 1);
    }
    for (int i = 0; i < 4; i++) {
        tt_unlin(w->b.dims, 4, i, idx);
        tt_set(w, idx, wv[i]);
    }
    ir_attrs a = {.conv = {2, {0, 0}, {0, 0}, {1, 1}, {1, 1}, false}};
    cr_assert(tt_run(IR_OP_CONV_FWD, &a, in, 2, &y, 1) == HIPDNN_STATUS_SUCCESS);
    tt_check(y, (const double[]){-4, -4, -4, -4}, 0, 0, "cross-correlation");
    a.conv.convolution = true; /* flipped filter [-1 0; 0 1] */
    cr_assert(tt_run(IR_OP_CONV_FWD, &a, in, 2, &y, 1) == HIPDNN_STATUS_SUCCESS);
    tt_check(y, (const double[]){4, 4, 4, 4}, 0, 0, "convolution mode");
    ir_attrs b = {.conv = {2, {1, 1}, {1, 1}, {2, 2}, {1, 1}, false}}; /* pad 1, stride 2 */
    cr_assert(tt_run(IR_OP_CONV_FWD, &b, in, 2, &y, 1) == HIPDNN_STATUS_SUCCESS);
    tt_check(y, (const double[]){-1, -3, -7, -4}, 0, 0, "padding and stride");
    tt_free(x), tt_free(w), tt_free(y);
}

Test(ir_ref_conv, errors)
{
    tt *x = tt_new(HIPDNN_DATA_FLOAT, 4, DIMS(1, 4, 5, 5), TT_DENSE);
    tt *w = tt_new(HIPDNN_DATA_FLOAT, 4, DIMS(6, 2, 3, 3), TT_DENSE); /* G = 2, K/G = 3 */
    tt *w3 = tt_new(HIPDNN_DATA_FLOAT, 4, DIMS(6, 3, 3, 3), TT_DENSE); /* 4 % 3 != 0 */
    tt *y = tt_new(HIPDNN_DATA_FLOAT, 4, DIMS(1, 6, 3, 3), TT_DENSE);
    tt *ybad = tt_new(HIPDNN_DATA_FLOAT, 4, DIMS(1, 6, 4, 3), TT_DENSE);
    ir_attrs a = {.conv = {2, {0, 0}, {0, 0}, {1, 1}, {1, 1}, false}};
    tt *ok[2] = {x, w}, *bad[2] = {x, w3};
    CHECK(tt_run(IR_OP_CONV_FWD, &a, ok, 2, &y, 1) == HIPDNN_STATUS_SUCCESS);
    CHECK(tt_run(IR_OP_CONV_FWD, &a, ok, 2, &ybad, 1) == HIPDNN_STATUS_BAD_PARAM);
    CHECK(tt_run(IR_OP_CONV_FWD, &a, bad, 2, &y, 1) == HIPDNN_STATUS_BAD_PARAM);
    a.conv.spatial = 3;
    CHECK(tt_run(IR_OP_CONV_FWD, &a, ok, 2, &y, 1) == HIPDNN_STATUS_BAD_PARAM);
    a.conv.spatial = 2, a.conv.stride[0] = 0;
    CHECK(tt_run(IR_OP_CONV_FWD, &a, ok, 2, &y, 1) == HIPDNN_STATUS_BAD_PARAM);
    tt *dgrad_in[2] = {ybad, w}; /* dy does not match dx */
    a.conv.stride[0] = 1;
    CHECK(tt_run(IR_OP_CONV_DGRAD, &a, dgrad_in, 2, &x, 1) == HIPDNN_STATUS_BAD_PARAM);
    tt_free(x), tt_free(w), tt_free(w3), tt_free(y), tt_free(ybad);
}
