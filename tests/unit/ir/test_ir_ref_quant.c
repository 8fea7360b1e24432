/* test_ir_ref_quant.c — block-scale quantize / dequantize and the paged cache load
 * (ir/ir_ref_quant.c).
 *
 * Owns: hand-computed MXFP8 and NVFP4-style blocks; random quantization (FP8 E4M3/E5M2 and FNUZ,
 * FP4, INT8 outputs; E8M0 and E4M3 scales; any axis; partial last blocks; zero blocks) checked
 * for: the scale is the smallest scale-type value >= amax/max (zero block: the smallest positive
 * scale), y is x/scale rounded to nearest even in y's type, and quantize -> dequantize is within
 * half a quantum (of y's type at x/scale) times the scale, per element; dequantize against a
 * naive product with block sizes [1, bs] / [bs, 1], padded and broadcast scales; the paged cache
 * load against a dense K scattered into pages (both output forms); errors.
 * Tolerances: exact unless stated; the half-quantum bound has a 1e-12 relative slack.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir_test_util.h"

/* Positive finite values of a 4- or 8-bit type (or INT8 0..127), increasing. */
static int positive_values(hipdnnDataType_t t, double *v)
{
    int n = 0;
    if (t == HIPDNN_DATA_INT8) {
        for (int i = 0; i <= 127; i++)
            v[n++] = i;
        return n;
    }
    for (unsigned c = 0; c < (t == HIPDNN_DATA_FP4_E2M1 ? 8u : 128u); c++) {
        uint8_t byte = (uint8_t)c;
        ir_buf b = {&byte, t, 0, {0}, {0}};
        double x = ir_load(&b, NULL);
        if (isfinite(x) && (n == 0 || x > v[n - 1]))
            v[n++] = x;
    }
    return n;
}

static double max_of(hipdnnDataType_t t)
{
    double v[128];
    return v[positive_values(t, v) - 1];
}

/* Width of the interval between the representable neighbours around |q|. */
static double gap_at(hipdnnDataType_t t, double q)
{
    double v[128];
    int n = positive_values(t, v);
    q = fabs(q);
    for (int i = 0; i + 1 < n; i++)
        if (q <= v[i + 1])
            return v[i + 1] - v[i];
    return 0;
}

/* The smallest scale-type value >= ratio; the smallest positive one for ratio 0. */
static double want_scale(hipdnnDataType_t st, double ratio)
{
    if (st == HIPDNN_DATA_FP8_E8M0) {
        double s = 0x1p-127;
        while (s < ratio && s < 0x1p127)
            s *= 2;
        return s;
    }
    double v[128];
    int n = positive_values(HIPDNN_DATA_FP8_E4M3, v);
    for (int i = 1; i < n; i++)
        if (v[i] >= ratio)
            return v[i];
    return v[n - 1];
}

typedef struct qcase {
    hipdnnDataType_t yt, st;
    int block;
} qcase;

static const qcase QCASES[] = {
    {HIPDNN_DATA_FP8_E4M3, HIPDNN_DATA_FP8_E8M0, 32},
    {HIPDNN_DATA_FP8_E5M2, HIPDNN_DATA_FP8_E8M0, 32},
    {HIPDNN_DATA_FP4_E2M1, HIPDNN_DATA_FP8_E4M3, 16},
    {HIPDNN_DATA_FP4_E2M1, HIPDNN_DATA_FP8_E8M0, 32},
    {HIPDNN_DATA_INT8, HIPDNN_DATA_FP8_E8M0, 32},
    {HIPDNN_DATA_FP8_E4M3_FNUZ, HIPDNN_DATA_FP8_E8M0, 8},
    {HIPDNN_DATA_FP8_E5M2_FNUZ, HIPDNN_DATA_FP8_E8M0, 4},
    {HIPDNN_DATA_FP8_E4M3, HIPDNN_DATA_FP8_E4M3, 3},
};

/* Dequantize attributes for blocks of bs along `axis` of a rank-r tensor. */
static ir_attrs dequant_attrs(int r, int axis, int bs)
{
    ir_attrs a = {.quant = {{0}, r - axis, 0, false, false}};
    for (int j = 0; j < r - axis; j++)
        a.quant.block[j] = j == 0 ? bs : 1;
    return a;
}

/* x with a random magnitude per block along `axis`; some blocks all zero. */
static void fill_blocks(tt *x, int axis, int bs, double maxmag)
{
    int64_t idx[IR_MAX_RANK] = {0};
    do {
        uint64_t h = 1469598103934665603ull; /* one magnitude per block: hash of its index */
        for (int i = 0; i < x->b.rank; i++)
            h = (h ^ (uint64_t)(i == axis ? idx[i] / bs : idx[i])) * 1099511628211ull;
        h ^= tt_seed_value();
        double mag = ldexp(1.0, (int)(h % 40) - 20), v = tt_unif(-1, 1) * mag;
        if (mag > maxmag)
            v *= maxmag / mag;
        tt_set(x, idx, h % 11 == 0 ? 0.0 : v);
    } while (ir_next_index(&x->b, idx));
}

static void check_quant(const qcase *q, tt *x, tt *y, tt *s, int axis)
{
    double ymax = max_of(q->yt);
    int64_t sidx[IR_MAX_RANK] = {0}, idx[IR_MAX_RANK];
    do {
        int64_t lo = sidx[axis] * q->block, hi = lo + q->block;
        double amax = 0;
        memcpy(idx, sidx, sizeof idx);
        for (idx[axis] = lo; idx[axis] < hi && idx[axis] < x->b.dims[axis]; idx[axis]++)
            amax = fmax(amax, fabs(tt_at(x, idx)));
        double sc = tt_at(s, sidx);
        cr_assert(sc == want_scale(q->st, amax / ymax), "scale %g for amax %g (y %d, scale %d)",
                  sc, amax, (int)q->yt, (int)q->st);
        for (idx[axis] = lo; idx[axis] < hi && idx[axis] < x->b.dims[axis]; idx[axis]++) {
            double xv = tt_at(x, idx), yv = tt_at(y, idx);
            CHECK(yv == ir_dtype_round(q->yt, xv / sc));
            CHECK(fabs(yv * sc - xv) <= 0.5 * gap_at(q->yt, xv / sc) * sc + 1e-12 * fabs(xv));
        }
    } while (ir_next_index(&s->b, sidx));
}

/* quantize -> dequantize (DOUBLE): within half a quantum times the scale. */
static void check_roundtrip(const qcase *q, tt *x, tt *y, tt *s, int axis)
{
    tt *d = tt_like(x, HIPDNN_DATA_DOUBLE, TT_RANDOM), *in[2] = {y, s};
    ir_attrs a = dequant_attrs(x->b.rank, axis, q->block);
    cr_assert(tt_run(IR_OP_BS_DEQUANTIZE, &a, in, 2, &d, 1) == HIPDNN_STATUS_SUCCESS);
    int64_t idx[IR_MAX_RANK] = {0}, sidx[IR_MAX_RANK];
    do {
        memcpy(sidx, idx, sizeof sidx);
        sidx[axis] /= q->block;
        double xv = tt_at(x, idx), sc = tt_at(s, sidx);
        double bound = 0.5 * gap_at(q->yt, xv / sc) * sc + 1e-12 * fabs(xv);
        cr_assert(fabs(tt_at(d, idx) - xv) <= bound, "dequant(quant(%.17g)) = %.17g, bound %g",
                  xv, tt_at(d, idx), bound);
    } while (ir_next_index(&x->b, idx));
    tt_free(d);
}

static void one_quant(const qcase *q)
{
    int r = (int)tt_randint(1, 3), axis = (int)tt_randint(0, r - 1);
    int64_t d[IR_MAX_RANK], sd[IR_MAX_RANK];
    for (int i = 0; i < r; i++)
        d[i] = tt_randint(1, 3);
    d[axis] = q->block * tt_randint(1, 3) - (tt_randint(0, 2) == 0 ? tt_randint(0, q->block - 1) : 0);
    memcpy(sd, d, sizeof sd);
    sd[axis] = (d[axis] + q->block - 1) / q->block;
    tt *x = tt_new(HIPDNN_DATA_FLOAT, r, d, TT_RANDOM), *y = tt_new(q->yt, r, d, TT_RANDOM);
    tt *s = tt_new(q->st, r, sd, TT_RANDOM), *out[2] = {y, s};
    fill_blocks(x, axis, q->block, q->st == HIPDNN_DATA_FP8_E4M3 ? 100 : 1e6);
    ir_attrs a = {
        .quant = {{q->block}, 1, tt_randint(0, 1) ? axis : axis - r, tt_randint(0, 1), false}};
    cr_assert(tt_run(IR_OP_BS_QUANTIZE, &a, &x, 1, out, 2) == HIPDNN_STATUS_SUCCESS);
    check_quant(q, x, y, s, axis);
    check_roundtrip(q, x, y, s, axis);
    tt_free(x), tt_free(y), tt_free(s);
}

Test(ir_ref_quant, quantize_random)
{
    tt_seed("ir_ref_quant.quantize_random");
    for (int i = 0; i < 400; i++)
        one_quant(&QCASES[i % (sizeof QCASES / sizeof QCASES[0])]);
}

static void set_row(tt *x, const double *v, int n)
{
    for (int64_t j = 0; j < n; j++)
        tt_set(x, DIMS(0, j), v[j]);
}

Test(ir_ref_quant, quantize_hand_computed)
{
    tt *x = tt_new(HIPDNN_DATA_FLOAT, 2, DIMS(1, 8), TT_DENSE);
    tt *y = tt_new(HIPDNN_DATA_FP8_E4M3, 2, DIMS(1, 8), TT_DENSE);
    tt *s = tt_new(HIPDNN_DATA_FP8_E8M0, 2, DIMS(1, 2), TT_DENSE), *out[2] = {y, s};
    set_row(x, (const double[]){1, 2, 3, 4, 0, 0, 0, 0}, 8);
    ir_attrs a = {.quant = {{4}, 1, -1, false, false}};
    cr_assert(tt_run(IR_OP_BS_QUANTIZE, &a, &x, 1, out, 2) == HIPDNN_STATUS_SUCCESS);
    /* amax 4: 4/448 rounds up to 2^-6 (code 121); y = x * 64; zero block: code 0, y = 0 */
    tt_check(s, (const double[]){0x1p-6, 0x1p-127}, 0, 0, "E8M0 scales");
    CHECK(((uint8_t *)s->mem)[0] == 121 && ((uint8_t *)s->mem)[1] == 0);
    tt_check(y, (const double[]){64, 128, 192, 256, 0, 0, 0, 0}, 0, 0, "E4M3 values");
    /* NVFP4-style: E4M3 scale; amax 6.6 -> ratio 1.1 -> scale 1.125 (next E4M3 value) */
    tt *y4 = tt_new(HIPDNN_DATA_FP4_E2M1, 2, DIMS(1, 8), TT_DENSE);
    tt *s4 = tt_new(HIPDNN_DATA_FP8_E4M3, 2, DIMS(1, 2), TT_DENSE), *out4[2] = {y4, s4};
    set_row(x, (const double[]){0.3, -1.2, 2.5, 6.6, 0, 0, 0, 0}, 8);
    cr_assert(tt_run(IR_OP_BS_QUANTIZE, &a, &x, 1, out4, 2) == HIPDNN_STATUS_SUCCESS);
    tt_check(s4, (const double[]){1.125, 0x1p-9}, 0, 0, "E4M3 scales");
    tt_check(y4, (const double[]){0.5, -1, 2, 6, 0, 0, 0, 0}, 0, 0, "FP4 values");
    /* a NaN in a block: the scale is NaN and so is every FP8 y of the block */
    set_row(x, (const double[]){1, NAN, 3, 4, 1, 1, 1, 1}, 8);
    cr_assert(tt_run(IR_OP_BS_QUANTIZE, &a, &x, 1, out, 2) == HIPDNN_STATUS_SUCCESS);
    CHECK(((uint8_t *)s->mem)[0] == 0xff && isnan(tt_at(y, DIMS(0, 0))) && tt_at(y, DIMS(0, 4)) == 256);
    tt_free(x), tt_free(y), tt_free(s), tt_free(y4), tt_free(s4);
}

Test(ir_ref_quant, dequantize_random)
{
    tt_seed("ir_ref_quant.dequantize_random");
    for (int it = 0; it < 300; it++) {
        int r = 3, axis = tt_randint(0, 1) ? 2 : 1, bs = (int)tt_randint(1, 8);
        int64_t d[3] = {tt_randint(1, 3), tt_randint(1, 9), tt_randint(1, 9)}, sd[3];
        memcpy(sd, d, sizeof sd);
        sd[axis] = (d[axis] + bs - 1) / bs + tt_randint(0, 1) * tt_randint(0, 4); /* padded */
        if (tt_randint(0, 3) == 0)
            sd[0] = 1; /* broadcast over the batch */
        hipdnnDataType_t xt = tt_randint(0, 1) ? HIPDNN_DATA_FP8_E4M3 : HIPDNN_DATA_FP4_E2M1;
        hipdnnDataType_t st = tt_randint(0, 1) ? HIPDNN_DATA_FP8_E8M0 : HIPDNN_DATA_FP8_E4M3;
        tt *x = tt_new(xt, r, d, TT_RANDOM), *s = tt_new(st, r, sd, TT_RANDOM);
        tt *y = tt_new(HIPDNN_DATA_FLOAT, r, d, TT_RANDOM), *in[2] = {x, s};
        tt_fill(x, -6, 6), tt_fill(s, 1e-3, 100);
        ir_attrs a = dequant_attrs(r, axis, bs);
        cr_assert(tt_run(IR_OP_BS_DEQUANTIZE, &a, in, 2, &y, 1) == HIPDNN_STATUS_SUCCESS);
        int64_t idx[3] = {0};
        do {
            int64_t si[3] = {sd[0] == 1 ? 0 : idx[0], idx[1], idx[2]};
            si[axis] = idx[axis] / bs;
            CHECK(tt_at(y, idx) == (float)(tt_at(x, idx) * tt_at(s, si)));
        } while (ir_next_index(&x->b, idx));
        tt_free(x), tt_free(s), tt_free(y);
    }
}

Test(ir_ref_quant, errors)
{
    tt *x = tt_new(HIPDNN_DATA_FLOAT, 2, DIMS(2, 8), TT_DENSE);
    tt *y = tt_new(HIPDNN_DATA_FP8_E4M3, 2, DIMS(2, 8), TT_DENSE);
    tt *yh = tt_new(HIPDNN_DATA_HALF, 2, DIMS(2, 8), TT_DENSE);
    tt *s = tt_new(HIPDNN_DATA_FP8_E8M0, 2, DIMS(2, 2), TT_DENSE);
    tt *sbad = tt_new(HIPDNN_DATA_FP8_E8M0, 2, DIMS(2, 3), TT_DENSE);
    tt *sh = tt_new(HIPDNN_DATA_HALF, 2, DIMS(2, 2), TT_DENSE);
    ir_attrs a = {.quant = {{4}, 1, -1, false, false}};
    tt *o1[2] = {y, s}, *o2[2] = {y, sbad}, *o3[2] = {yh, s}, *o4[2] = {y, sh}, *o5[2] = {y, NULL};
    CHECK(tt_run(IR_OP_BS_QUANTIZE, &a, &x, 1, o1, 2) == HIPDNN_STATUS_SUCCESS);
    CHECK(tt_run(IR_OP_BS_QUANTIZE, &a, &x, 1, o2, 2) == HIPDNN_STATUS_BAD_PARAM);
    CHECK(tt_run(IR_OP_BS_QUANTIZE, &a, &x, 1, o3, 2) == HIPDNN_STATUS_NOT_SUPPORTED);
    CHECK(tt_run(IR_OP_BS_QUANTIZE, &a, &x, 1, o4, 2) == HIPDNN_STATUS_NOT_SUPPORTED);
    CHECK(tt_run(IR_OP_BS_QUANTIZE, &a, &x, 1, o5, 2) == HIPDNN_STATUS_BAD_PARAM);
    a.quant.axis = 2;
    CHECK(tt_run(IR_OP_BS_QUANTIZE, &a, &x, 1, o1, 2) == HIPDNN_STATUS_BAD_PARAM);
    ir_attrs dq = dequant_attrs(2, 1, 4);
    tt *in[2] = {y, s}, *in_bad[2] = {y, sbad};
    tt *small = tt_new(HIPDNN_DATA_FP8_E8M0, 2, DIMS(2, 1), TT_DENSE), *in_small[2] = {y, small};
    CHECK(tt_run(IR_OP_BS_DEQUANTIZE, &dq, in, 2, &x, 1) == HIPDNN_STATUS_SUCCESS);
    CHECK(tt_run(IR_OP_BS_DEQUANTIZE, &dq, in_bad, 2, &x, 1) == HIPDNN_STATUS_SUCCESS); /* padded */
    dq.quant.block[0] = 2; /* needs 4 scales along dim 1, has 1: broadcast is allowed only at 1 */
    CHECK(tt_run(IR_OP_BS_DEQUANTIZE, &dq, in_small, 2, &x, 1) == HIPDNN_STATUS_SUCCESS);
    CHECK(tt_run(IR_OP_BS_DEQUANTIZE, &dq, in, 2, &x, 1) == HIPDNN_STATUS_BAD_PARAM);
    dq.quant.block[0] = 4, dq.quant.negative_scale = true;
    CHECK(tt_run(IR_OP_BS_DEQUANTIZE, &dq, in, 2, &x, 1) == HIPDNN_STATUS_NOT_SUPPORTED);
    tt_free(x), tt_free(y), tt_free(yh), tt_free(s), tt_free(sbad), tt_free(sh), tt_free(small);
}

/* ---- paged cache load ------------------------------------------------------------------------- */

typedef struct pcase {
    int64_t B, H, S, D, bs, P, nblk;
} pcase;

/* The container holding dense k [B,H,S,D] in pages named by a random table. */
static tt *make_container(const pcase *c, const tt *k, tt *table)
{
    int64_t *perm = malloc(sizeof *perm * (size_t)c->nblk);
    for (int64_t i = 0; i < c->nblk; i++)
        perm[i] = i;
    for (int64_t i = c->nblk - 1; i > 0; i--) {
        int64_t j = tt_randint(0, i), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    tt *ct = tt_new(HIPDNN_DATA_BFLOAT16, 4, DIMS(c->nblk, c->H, c->bs, c->D), TT_RANDOM);
    tt_fill(ct, -9, 9); /* unused pages hold junk */
    for (int64_t b = 0; b < c->B; b++)
        for (int64_t p = 0; p < c->P; p++)
            tt_set(table, DIMS(b, 0, p, 0), (double)perm[b * c->P + p]);
    int64_t idx[4] = {0};
    do {
        int64_t blk = (int64_t)tt_at(table, DIMS(idx[0], 0, idx[2] / c->bs, 0));
        tt_set(ct, DIMS(blk, idx[1], idx[2] % c->bs, idx[3]), tt_at(k, idx));
    } while (ir_next_index(&k->b, idx));
    free(perm);
    return ct;
}

static void one_paged(bool square)
{
    pcase c = {tt_randint(1, 3),
               tt_randint(1, 3),
               tt_randint(1, 12),
               tt_randint(1, 5),
               1 << tt_randint(0, 2),
               0,
               0};
    if (square)
        c.S = c.D = tt_randint(2, 5);
    c.P = (c.S + c.bs - 1) / c.bs + tt_randint(0, 1);
    c.nblk = c.B * c.P + tt_randint(0, 3);
    tt *k = tt_new(HIPDNN_DATA_BFLOAT16, 4, DIMS(c.B, c.H, c.S, c.D), TT_DENSE);
    tt *table = tt_new(HIPDNN_DATA_INT32, 4, DIMS(c.B, 1, c.P, 1), TT_RANDOM);
    tt *seq = tt_randint(0, 3) ? tt_new(HIPDNN_DATA_INT32, 4, DIMS(c.B, 1, 1, 1), TT_RANDOM) : NULL;
    tt_fill(k, -4, 4);
    tt *ct = make_container(&c, k, table);
    if (seq != NULL)
        tt_fill(seq, -0.4, (double)c.S + 0.4); /* rounds into [0, S] */
    bool tr = tt_randint(0, 1);
    int64_t DS = c.D * c.S;
    tt *y = tr ? tt_new_strided(HIPDNN_DATA_FLOAT, 4, DIMS(c.B, c.H, c.D, c.S),
                                DIMS(DS * c.H, DS, 1, c.D))
               : tt_new(HIPDNN_DATA_FLOAT, 4, DIMS(c.B, c.H, c.S, c.D),
                        c.S == c.D ? TT_DENSE : TT_RANDOM);
    tt *in[3] = {ct, seq, table};
    ir_attrs a = {.pw = {0}};
    cr_assert(tt_run(IR_OP_PAGED_CACHE_LOAD, &a, in, 3, &y, 1) == HIPDNN_STATUS_SUCCESS);
    int64_t idx[4] = {0};
    do {
        int64_t len = seq ? (int64_t)tt_at(seq, DIMS(idx[0], 0, 0, 0)) : c.S;
        double want = idx[2] < len ? tt_at(k, idx) : 0.0;
        int64_t yi[4] = {idx[0], idx[1], tr ? idx[3] : idx[2], tr ? idx[2] : idx[3]};
        CHECK(tt_at(y, yi) == want);
    } while (ir_next_index(&k->b, idx));
    tt_free(k), tt_free(table), tt_free(seq), tt_free(ct), tt_free(y);
}

Test(ir_ref_quant, paged_cache_load)
{
    tt_seed("ir_ref_quant.paged_cache_load");
    for (int i = 0; i < 300; i++)
        one_paged(i % 3 == 0);
}

Test(ir_ref_quant, paged_cache_load_errors)
{
    tt *ct = tt_new(HIPDNN_DATA_FLOAT, 4, DIMS(2, 1, 2, 3), TT_DENSE);
    tt *table = tt_new(HIPDNN_DATA_INT32, 4, DIMS(1, 1, 2, 1), TT_DENSE);
    tt *y = tt_new(HIPDNN_DATA_FLOAT, 4, DIMS(1, 1, 4, 3), TT_DENSE);
    tt *ybad = tt_new(HIPDNN_DATA_FLOAT, 4, DIMS(1, 1, 4, 5), TT_DENSE);
    tt *seq = tt_new(HIPDNN_DATA_INT32, 4, DIMS(1, 1, 1, 1), TT_DENSE);
    tt *in[3] = {ct, NULL, table}, *in_seq[3] = {ct, seq, table};
    ir_attrs a = {.pw = {0}};
    tt_set(table, DIMS(0, 0, 0, 0), 1), tt_set(table, DIMS(0, 0, 1, 0), 2); /* block 2: none */
    CHECK(tt_run(IR_OP_PAGED_CACHE_LOAD, &a, in, 3, &y, 1) == HIPDNN_STATUS_BAD_PARAM);
    tt_set(seq, DIMS(0, 0, 0, 0), 2); /* only page 0 is read now */
    CHECK(tt_run(IR_OP_PAGED_CACHE_LOAD, &a, in_seq, 3, &y, 1) == HIPDNN_STATUS_SUCCESS);
    CHECK(tt_run(IR_OP_PAGED_CACHE_LOAD, &a, in_seq, 3, &ybad, 1) == HIPDNN_STATUS_BAD_PARAM);
    tt_set(seq, DIMS(0, 0, 0, 0), 4);
    tt_set(table, DIMS(0, 0, 1, 0), 0);
    CHECK(tt_run(IR_OP_PAGED_CACHE_LOAD, &a, in_seq, 3, &y, 1) == HIPDNN_STATUS_SUCCESS);
    tt_free(ct), tt_free(table), tt_free(y), tt_free(ybad), tt_free(seq);
}
