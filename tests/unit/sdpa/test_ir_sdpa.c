/* test_ir_sdpa.c — unit tests of ir/ir_ref_sdpa.c (SDPA forward and backward reference).
 *
 * Owns: the forward checked against a naive formulation written here (S materialized as a
 * [Sq,Skv] matrix per (b, h), masks as direct triu/tril conditions, ALiBi slopes built the way
 * the ALiBi paper does, softmax, P·V), paged K/V against the dense result, the ALiBi slope
 * values against literals, the backward against central finite differences of the forward,
 * operand errors and allocation-fault injection.
 * Randomness is seeded freshly each run and the seed printed; HIPDNN_TEST_SEED replays one.
 * Every output is poisoned with NaN before each call, and its stride gaps must still hold the
 * poison afterwards; padded Q/K/V rows (beyond SEQ_Q/SEQ_KV) and unused paged blocks hold NaN,
 * so reading them shows up in the results.
 *
 * Tolerances: |got − want| ≤ rel·|want| + abs, rel = 1e-12 (DOUBLE out), 2.5e-7 (FLOAT),
 * 2e-3 (HALF, abs 1e-7), 1.6e-2 (BFLOAT16); −inf must match exactly. Finite differences
 * (double, step 1e-5): |fd − analytic| ≤ 1e-6·max(1, max|analytic|) per gradient tensor.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ir/ir_int.h"
#include "../../common/tu_close.h"

/* A check that does not report passes (Criterion reports every cr_assert). */
#define CHECK(cond, ...)                                                                    \
    do {                                                                                    \
        if (!(cond))                                                                        \
            cr_assert_fail(__VA_ARGS__);                                                    \
    } while (0)

#define MAXB 4
#define N_ITER 25

/* ---- randomness ----------------------------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double urand(void) { return (double)(rng_next() >> 11) * 0x1p-53; }
static double uniform(double lo, double hi) { return lo + (hi - lo) * urand(); }
static int64_t irand(int64_t lo, int64_t hi) /* in [lo, hi] */
{
    return lo + (int64_t)(rng_next() % (uint64_t)(hi - lo + 1));
}

static uint64_t seed_used; /* this test's seed, named in failure messages */

static void seed_fresh(const char *test)
{
    struct timespec ts;
    const char *env = getenv("HIPDNN_TEST_SEED");
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
                    (uint64_t)getpid() << 40;
    if (env != NULL)
        seed = strtoull(env, NULL, 0);
    rng_state = seed, seed_used = seed;
    fprintf(stderr, "test_ir_sdpa %s: seed %llu (HIPDNN_TEST_SEED=%llu replays it)\n", test,
            (unsigned long long)seed, (unsigned long long)seed);
}

/* ---- test tensors: an ir_buf over its own storage ------------------------------------------- */

typedef struct tt {
    ir_buf b;
    unsigned char *mem; /* NULL: absent operand */
    int64_t span;       /* storage slots */
} tt;

static const int LAYOUT[3][4] = {{0, 1, 2, 3},  /* BHSD, packed */
                                 {0, 2, 1, 3},  /* BSHD, random gaps */
                                 {2, 0, 1, 3}}; /* SBHD, random gaps */

static size_t esize(hipdnnDataType_t t)
{
    switch (t) {
    case HIPDNN_DATA_DOUBLE: case HIPDNN_DATA_INT64: return 8;
    case HIPDNN_DATA_FLOAT: case HIPDNN_DATA_INT32: return 4;
    case HIPDNN_DATA_HALF: case HIPDNN_DATA_BFLOAT16: return 2;
    default: return 1;
    }
}

/* The poison of one slot: a quiet NaN of the type (0xa5 bytes for integers). */
static void poison_bytes(hipdnnDataType_t t, unsigned char out[8])
{
    const double dn = NAN;
    const float fn = NAN;
    const uint16_t hn = 0x7e00, bn = 0x7fc0;
    memset(out, 0xa5, 8);
    if (t == HIPDNN_DATA_DOUBLE)
        memcpy(out, &dn, 8);
    else if (t == HIPDNN_DATA_FLOAT)
        memcpy(out, &fn, 4);
    else if (t == HIPDNN_DATA_HALF)
        memcpy(out, &hn, 2);
    else if (t == HIPDNN_DATA_BFLOAT16)
        memcpy(out, &bn, 2);
    else if (t == HIPDNN_DATA_FP8_E4M3)
        out[0] = 0x7f; /* E4M3's NaN */
}

static void tt_poison(tt *t)
{
    unsigned char p[8];
    size_t es = esize(t->b.dtype);
    poison_bytes(t->b.dtype, p);
    for (int64_t n = 0; t->mem != NULL && n < t->span; n++)
        memcpy(t->mem + (size_t)n * es, p, es);
}

/* Strides from `perm` (outermost dim first), optional random gaps; size-1 dims get a garbage
 * stride, which nothing may use. Storage starts poisoned. */
static void tt_init(tt *t, hipdnnDataType_t dt, const int64_t dims[4], const int perm[4],
                    bool gaps)
{
    static const int64_t junk[3] = {0, 3331333, 99990001};
    int64_t run = 1;
    memset(t, 0, sizeof *t);
    t->b.dtype = dt, t->b.rank = 4, t->span = 1;
    for (int n = 3; n >= 0; n--) {
        int d = perm[n];
        t->b.dims[d] = dims[d];
        if (dims[d] == 1) {
            t->b.strides[d] = junk[irand(0, 2)];
            continue;
        }
        t->b.strides[d] = run;
        t->span += (dims[d] - 1) * run;
        run = run * dims[d] + (gaps ? irand(0, 3) : 0);
    }
    t->mem = malloc((size_t)t->span * esize(dt));
    cr_assert(t->mem != NULL);
    t->b.data = t->mem;
    tt_poison(t);
}

static void tt_free(tt *t)
{
    free(t->mem);
    memset(t, 0, sizeof *t);
}

static const ir_buf *opt(const tt *t) { return t->mem != NULL ? &t->b : NULL; }
static ir_buf *opt_out(tt *t) { return t->mem != NULL ? &t->b : NULL; }

static double get4(const tt *t, int64_t a, int64_t b, int64_t c, int64_t d)
{
    int64_t idx[4] = {a, b, c, d};
    return ir_load(&t->b, idx);
}

static void set4(tt *t, int64_t a, int64_t b, int64_t c, int64_t d, double v)
{
    int64_t idx[4] = {a, b, c, d};
    ir_store(&t->b, idx, v);
}

static void tt_fill(tt *t, double lo, double hi)
{
    int64_t idx[4] = {0};
    if (ir_buf_numel(&t->b) == 0)
        return;
    do {
        ir_store(&t->b, idx, uniform(lo, hi));
    } while (ir_next_index(&t->b, idx));
}

static int64_t numel4(const int64_t d[4]) { return d[0] * d[1] * d[2] * d[3]; }

/* Every slot no logical element addresses still holds the poison. */
static void tt_check_gaps(const tt *t, const char *what)
{
    size_t es = esize(t->b.dtype);
    unsigned char p[8];
    int64_t idx[4] = {0};
    bool *used = calloc((size_t)t->span, 1);
    cr_assert(used != NULL);
    poison_bytes(t->b.dtype, p);
    if (ir_buf_numel(&t->b) > 0)
        do {
            int64_t off = 0;
            for (int d = 0; d < 4; d++)
                off += t->b.dims[d] == 1 ? 0 : idx[d] * t->b.strides[d];
            used[off] = true;
        } while (ir_next_index(&t->b, idx));
    for (int64_t n = 0; n < t->span; n++)
        CHECK(used[n] || memcmp(t->mem + (size_t)n * es, p, es) == 0,
              "%s: slot %lld outside the tensor was written", what, (long long)n);
    free(used);
}

/* ---- one SDPA case --------------------------------------------------------------------------- */

typedef struct cfg {
    int64_t B, Hq, Hk, Hv, Sq, Skv, D, Dv;
    hipdnnDataType_t in_t, out_t;
    int layout;                  /* LAYOUT index of Q, K, V, O */
    ir_sdpa p;
    double scale_value;          /* the attention scale in effect */
    int64_t bias[4], dmask[4];   /* dims; [0] == 0: absent */
    bool scale_tensor, seq, sink, stats, maxsum, dump, dscale, dscale_inv, int32_seed;
    int64_t seq_q[MAXB], seq_kv[MAXB];
    uint64_t seed, offset;
    double dscale_value;
} cfg;

typedef struct tcase {
    cfg c;
    tt q, k, v, o, bias, scale, seqq, seqkv, seed, offset, dmask, dscale, sink;
    tt stats, max, sum, dump;
    tt pk, pv, kc, vc;                  /* paged: tables and containers */
    tt dout, dq, dk, dv, dbias, dsinv;  /* backward */
    const ir_buf *in[IR_SDPA_N_IN];
    ir_buf *out[IR_SDPA_N_OUT];
} tcase;

static void cfg_base(cfg *c, int64_t max_s, int64_t max_d)
{
    memset(c, 0, sizeof *c);
    c->B = irand(1, 3), c->Hq = irand(1, 4), c->Hk = c->Hv = c->Hq;
    c->Sq = irand(1, max_s), c->Skv = irand(1, max_s);
    c->D = irand(1, max_d), c->Dv = irand(1, max_d);
    c->in_t = c->out_t = HIPDNN_DATA_FLOAT;
    c->p.attn_scale = c->scale_value = uniform(0.2, 0.7);
}

static int64_t pick_divisor(int64_t n)
{
    int64_t d;
    do
        d = irand(1, n);
    while (n % d != 0);
    return d;
}

/* Random lengths, a zero now and then. */
static void cfg_seq(cfg *c)
{
    c->seq = true;
    c->p.padding_mask = true;
    for (int64_t b = 0; b < c->B; b++) {
        c->seq_q[b] = irand(0, 6) == 0 ? 0 : irand(0, c->Sq);
        c->seq_kv[b] = irand(0, 6) == 0 ? 0 : irand(0, c->Skv);
    }
}

static void cfg_bias(cfg *c)
{
    const int64_t full[4] = {c->B, c->Hq, c->Sq, c->Skv};
    for (int d = 0; d < 4; d++)
        c->bias[d] = irand(0, 2) == 0 ? 1 : full[d];
}

static void cfg_band(cfg *c)
{
    c->p.bottom_right = irand(0, 1);
    c->p.has_right = irand(0, 3) != 0;
    c->p.right_bound = irand(0, 2) == 0 ? irand(1, 3) : 0;
    c->p.has_left = !c->p.has_right || irand(0, 1);
    c->p.left_bound = irand(1, 4);
}

static void scalar_tensor(tt *t, hipdnnDataType_t dt, double v)
{
    tt_init(t, dt, (const int64_t[]){1, 1, 1, 1}, LAYOUT[0], false);
    set4(t, 0, 0, 0, 0, v);
}

/* A 64-bit value written bit-exactly into a one-element INT64 or INT32 tensor. */
static uint64_t seed_tensor(tt *t, bool int32)
{
    uint64_t v = rng_next();
    tt_init(t, int32 ? HIPDNN_DATA_INT32 : HIPDNN_DATA_INT64, (const int64_t[]){1, 1, 1, 1},
            LAYOUT[0], false);
    if (int32) {
        int32_t w = (int32_t)(uint32_t)v;
        memcpy(t->mem, &w, 4);
        return (uint64_t)(int64_t)w; /* sign-extended */
    }
    memcpy(t->mem, &v, 8);
    return v;
}

/* Padded rows (beyond the lengths) of a [B,H,S,Dh] input become NaN. */
static void poison_rows(tt *t, const int64_t *len)
{
    for (int64_t b = 0; b < t->b.dims[0]; b++)
        for (int64_t h = 0; h < t->b.dims[1]; h++)
            for (int64_t s = len[b]; s < t->b.dims[2]; s++)
                for (int64_t d = 0; d < t->b.dims[3]; d++)
                    set4(t, b, h, s, d, NAN);
}

static void case_qkvo(tcase *t)
{
    const cfg *c = &t->c;
    const int *lay = LAYOUT[c->layout];
    bool gaps = c->layout != 0;
    tt_init(&t->q, c->in_t, (const int64_t[]){c->B, c->Hq, c->Sq, c->D}, lay, gaps);
    tt_init(&t->k, c->in_t, (const int64_t[]){c->B, c->Hk, c->Skv, c->D}, lay, gaps);
    tt_init(&t->v, c->in_t, (const int64_t[]){c->B, c->Hv, c->Skv, c->Dv}, lay, gaps);
    tt_init(&t->o, c->out_t, (const int64_t[]){c->B, c->Hq, c->Sq, c->Dv}, lay, gaps);
    tt_fill(&t->q, -1.5, 1.5), tt_fill(&t->k, -1.5, 1.5), tt_fill(&t->v, -2, 2);
    if (c->seq) {
        poison_rows(&t->q, c->seq_q);
        poison_rows(&t->k, c->seq_kv);
        poison_rows(&t->v, c->seq_kv);
    }
}

static void case_rows_out(tcase *t)
{
    const cfg *c = &t->c;
    const int64_t rows[4] = {c->B, c->Hq, c->Sq, 1};
    hipdnnDataType_t st = c->out_t == HIPDNN_DATA_DOUBLE ? c->out_t : HIPDNN_DATA_FLOAT;
    if (c->stats)
        tt_init(&t->stats, st, rows, LAYOUT[0], false);
    if (c->maxsum) {
        tt_init(&t->max, st, rows, LAYOUT[2], true);
        tt_init(&t->sum, st, rows, LAYOUT[1], true);
    }
    if (c->dump)
        tt_init(&t->dump, HIPDNN_DATA_FLOAT, (const int64_t[]){c->B, c->Hq, c->Sq, c->Skv},
                LAYOUT[0], true);
}

static void case_options(tcase *t)
{
    cfg *c = &t->c;
    if (c->bias[0] != 0) {
        tt_init(&t->bias, c->in_t, c->bias, LAYOUT[irand(0, 2)], true);
        tt_fill(&t->bias, -1, 1);
    }
    if (c->scale_tensor) {
        c->scale_value = uniform(0.2, 0.7);
        scalar_tensor(&t->scale, HIPDNN_DATA_FLOAT, c->scale_value);
        c->scale_value = get4(&t->scale, 0, 0, 0, 0);
        c->p.attn_scale = 7.0; /* must be ignored */
    }
    if (c->seq) {
        tt_init(&t->seqq, HIPDNN_DATA_INT32, (const int64_t[]){c->B, 1, 1, 1}, LAYOUT[0], false);
        tt_init(&t->seqkv, HIPDNN_DATA_INT32, (const int64_t[]){c->B, 1, 1, 1}, LAYOUT[0], false);
        for (int64_t b = 0; b < c->B; b++)
            set4(&t->seqq, b, 0, 0, 0, (double)c->seq_q[b]),
                set4(&t->seqkv, b, 0, 0, 0, (double)c->seq_kv[b]);
    }
    if (c->p.dropout_p > 0) {
        c->seed = seed_tensor(&t->seed, c->int32_seed);
        c->offset = seed_tensor(&t->offset, !c->int32_seed && irand(0, 1));
    }
    if (c->dmask[0] != 0) {
        tt_init(&t->dmask, c->in_t, c->dmask, LAYOUT[0], true);
        tt_fill(&t->dmask, 0, 1);
        for (int64_t n = 0; n < numel4(c->dmask); n++) /* mostly 0/1, some other values */
            if (irand(0, 3) != 0) {
                int64_t m = n, idx[4];
                for (int d = 3; d >= 0; d--)
                    idx[d] = m % c->dmask[d], m /= c->dmask[d];
                ir_store(&t->dmask.b, idx, (double)irand(0, 1));
            }
    }
    c->dscale_value = 1.0;
    if (c->dscale) {
        scalar_tensor(&t->dscale, HIPDNN_DATA_FLOAT, uniform(1.0, 2.0));
        c->dscale_value = get4(&t->dscale, 0, 0, 0, 0);
    }
    if (c->sink) {
        tt_init(&t->sink, HIPDNN_DATA_FLOAT, (const int64_t[]){1, c->Hq, 1, 1}, LAYOUT[0], true);
        tt_fill(&t->sink, -1, 3);
    }
}

static void case_slots(tcase *t)
{
    const ir_buf *in[IR_SDPA_N_IN] = {
        [IR_SDPA_Q] = opt(&t->q), [IR_SDPA_K] = opt(&t->k), [IR_SDPA_V] = opt(&t->v),
        [IR_SDPA_BIAS] = opt(&t->bias), [IR_SDPA_SCALE] = opt(&t->scale),
        [IR_SDPA_SEQ_Q] = opt(&t->seqq), [IR_SDPA_SEQ_KV] = opt(&t->seqkv),
        [IR_SDPA_SEED] = opt(&t->seed), [IR_SDPA_OFFSET] = opt(&t->offset),
        [IR_SDPA_DROPOUT_MASK] = opt(&t->dmask), [IR_SDPA_DROPOUT_SCALE] = opt(&t->dscale),
        [IR_SDPA_SINK] = opt(&t->sink)};
    ir_buf *out[IR_SDPA_N_OUT] = {
        [IR_SDPA_O] = opt_out(&t->o), [IR_SDPA_STATS] = opt_out(&t->stats),
        [IR_SDPA_MAX] = opt_out(&t->max), [IR_SDPA_SUM_EXP] = opt_out(&t->sum),
        [IR_SDPA_RNG_DUMP] = opt_out(&t->dump)};
    memcpy(t->in, in, sizeof in);
    memcpy(t->out, out, sizeof out);
}

static void case_build(tcase *t)
{
    case_qkvo(t);
    case_rows_out(t);
    case_options(t);
    case_slots(t);
}

static void case_free(tcase *t)
{
    tt *all[] = {&t->q, &t->k, &t->v, &t->o, &t->bias, &t->scale, &t->seqq, &t->seqkv,
                 &t->seed, &t->offset, &t->dmask, &t->dscale, &t->sink, &t->stats, &t->max,
                 &t->sum, &t->dump, &t->pk, &t->pv, &t->kc, &t->vc, &t->dout, &t->dq,
                 &t->dk, &t->dv, &t->dbias, &t->dsinv};
    for (size_t n = 0; n < sizeof all / sizeof all[0]; n++)
        tt_free(all[n]);
}

static hipdnnStatus_t run_fwd(tcase *t)
{
    ir_ref_ctx ctx = {t->in, t->out, IR_SDPA_N_IN, IR_SDPA_N_OUT};
    tt *outs[] = {&t->o, &t->stats, &t->max, &t->sum, &t->dump};
    for (size_t n = 0; n < sizeof outs / sizeof outs[0]; n++)
        tt_poison(outs[n]);
    return ir_ref_sdpa_fwd(&t->c.p, &ctx);
}

/* ---- the naive forward ----------------------------------------------------------------------- */

typedef struct expect {
    double *o;                /* [B,Hq,Sq,Dv] */
    double *stats, *max, *sum; /* [B,Hq,Sq] */
    double *keep;             /* [B,Hq,Sq,Skv]: the dropout factor's mask */
} expect;

/* The ALiBi paper's construction: the closest power of two n ≤ H gives start^(1..n) with
 * start = 2^(−8/n); the remaining heads take every other slope of the 2n-head sequence. */
static double naive_slope(int64_t h, int64_t H)
{
    int64_t n = (int64_t)1 << (int64_t)floor(log2((double)H));
    if (h < n)
        return pow(pow(2.0, -8.0 / (double)n), (double)(h + 1));
    return pow(pow(2.0, -8.0 / (double)(2 * n)), (double)(2 * (h - n) + 1));
}

static int64_t len_q(const cfg *c, int64_t b) { return c->seq ? c->seq_q[b] : c->Sq; }
static int64_t len_kv(const cfg *c, int64_t b) { return c->seq ? c->seq_kv[b] : c->Skv; }

/* Masks as torch builds them: triu(diagonal = shift + 1 + r), tril(diagonal = shift − l). */
static bool naive_masked(const cfg *c, int64_t b, int64_t i, int64_t j)
{
    int64_t sq = len_q(c, b), skv = len_kv(c, b), shift = c->p.bottom_right ? skv - sq : 0;
    if (c->seq && (i >= sq || j >= skv))
        return true;
    if (c->p.has_right && j - i >= shift + 1 + c->p.right_bound)
        return true;
    return c->p.has_left && j - i <= shift - c->p.left_bound;
}

static double bias_at(const tt *t, int64_t b, int64_t h, int64_t i, int64_t j)
{
    const int64_t *d = t->b.dims;
    return get4(t, d[0] == 1 ? 0 : b, d[1] == 1 ? 0 : h, d[2] == 1 ? 0 : i, d[3] == 1 ? 0 : j);
}

static double naive_score(const tcase *t, int64_t b, int64_t h, int64_t i, int64_t j)
{
    const cfg *c = &t->c;
    int64_t hk = h * c->Hk / c->Hq;
    double dot = 0;
    for (int64_t d = 0; d < c->D; d++)
        dot += get4(&t->q, b, h, i, d) * get4(&t->k, b, hk, j, d);
    dot *= c->scale_value;
    if (t->bias.mem != NULL)
        dot += bias_at(&t->bias, b, h, i, j);
    if (c->p.alibi)
        dot += naive_slope(h, c->Hq) * (double)(j - i);
    return dot;
}

static double naive_keep(const tcase *t, int64_t b, int64_t h, int64_t i, int64_t j)
{
    const cfg *c = &t->c;
    if (c->p.dropout_p > 0)
        return ir_dropout_keep(c->seed, c->offset, ((b * c->Hq + h) * c->Sq + i) * c->Skv + j,
                               c->p.dropout_p);
    return t->dmask.mem != NULL ? bias_at(&t->dmask, b, h, i, j) : 1.0;
}

static void naive_row(const tcase *t, int64_t b, int64_t h, int64_t i, const double *s, expect *e)
{
    const cfg *c = &t->c;
    int64_t n = (b * c->Hq + h) * c->Sq + i;
    double m = -INFINITY, l = 0, sink = c->sink ? get4(&t->sink, 0, h, 0, 0) : 0;
    double f = c->p.dropout_p > 0 ? 1.0 / (1.0 - c->p.dropout_p) : c->dscale_value;
    for (int64_t j = 0; j < c->Skv; j++)
        m = fmax(m, s[j]);
    e->stats[n] = e->max[n] = -INFINITY, e->sum[n] = 0;
    for (int64_t d = 0; d < c->Dv; d++)
        e->o[n * c->Dv + d] = 0;
    if (m == -INFINITY)
        return;
    m = c->sink ? fmax(m, sink) : m;
    l = c->sink ? exp(sink - m) : 0;
    for (int64_t j = 0; j < c->Skv; j++)
        l += exp(s[j] - m);
    e->stats[n] = m + log(l), e->max[n] = m, e->sum[n] = l;
    for (int64_t j = 0; j < c->Skv; j++) {
        double pj = exp(s[j] - m) / l * f * e->keep[n * c->Skv + j];
        for (int64_t d = 0; pj != 0 && d < c->Dv; d++)
            e->o[n * c->Dv + d] += pj * get4(&t->v, b, h * c->Hv / c->Hq, j, d);
    }
}

static void naive_fwd(const tcase *t, expect *e)
{
    const cfg *c = &t->c;
    int64_t rows = c->B * c->Hq * c->Sq;
    double *s = malloc(sizeof(double) * (size_t)(c->Sq * c->Skv + 1));
    e->o = malloc(sizeof(double) * (size_t)(rows * c->Dv + 1));
    e->stats = malloc(sizeof(double) * (size_t)(rows + 1));
    e->max = malloc(sizeof(double) * (size_t)(rows + 1));
    e->sum = malloc(sizeof(double) * (size_t)(rows + 1));
    e->keep = malloc(sizeof(double) * (size_t)(rows * c->Skv + 1));
    cr_assert(s && e->o && e->stats && e->max && e->sum && e->keep);
    for (int64_t b = 0; b < c->B; b++)
        for (int64_t h = 0; h < c->Hq; h++) {
            for (int64_t i = 0; i < c->Sq; i++)
                for (int64_t j = 0; j < c->Skv; j++) {
                    s[i * c->Skv + j] = naive_masked(c, b, i, j) ? -INFINITY
                                                                 : naive_score(t, b, h, i, j);
                    e->keep[((b * c->Hq + h) * c->Sq + i) * c->Skv + j] = naive_keep(t, b, h, i, j);
                }
            for (int64_t i = 0; i < c->Sq; i++)
                naive_row(t, b, h, i, s + i * c->Skv, e);
        }
    free(s);
}

static void expect_free(expect *e)
{
    free(e->o), free(e->stats), free(e->max), free(e->sum), free(e->keep);
}

/* ---- comparisons ----------------------------------------------------------------------------- */

/* Per-element tolerance of an output of type t: the output's own rounding (the reference works in
 * double, so its result differs from the naive one only by summation order). */
static tu_tol tol_of(hipdnnDataType_t t)
{
    switch (t) {
    case HIPDNN_DATA_DOUBLE: return (tu_tol){1e-12, 1e-12};
    case HIPDNN_DATA_FLOAT: return (tu_tol){1e-12, 2.5e-7};
    case HIPDNN_DATA_HALF: return (tu_tol){1e-7, 2e-3};
    default: return (tu_tol){1e-12, 1.6e-2};
    }
}

/* got against want, n elements of type t, every one (tu_close.h); stops the test on a mismatch. */
static void expect_close(const char *what, const double *got, const double *want, int64_t n, hipdnnDataType_t t)
{
    char ctx[128];
    snprintf(ctx, sizeof ctx, "%s (seed %llu)", what, (unsigned long long)seed_used);
    if (!tu_expect_close(ctx, got, want, (size_t)n, tol_of(t)))
        cr_assert_fail("%s: see above", ctx);
}

/* Stats-like outputs [B, H, S, 1]: element n in row-major order against want[n]. */
static void check_rows(const tt *t, const double *want, const char *what)
{
    if (t->mem == NULL)
        return;
    int64_t s = t->b.dims[2], hq = t->b.dims[1], rows = t->b.dims[0] * hq * s;
    double *got = malloc((size_t)rows * sizeof *got);
    for (int64_t n = 0; n < rows; n++)
        got[n] = get4(t, n / (s * hq), n / s % hq, n % s, 0);
    expect_close(what, got, want, rows, t->b.dtype);
    free(got);
    tt_check_gaps(t, what);
}

static void check_fwd(const tcase *t, const expect *e)
{
    const cfg *c = &t->c;
    int64_t n = 0;
    double *got = malloc((size_t)(c->B * c->Hq * c->Sq * c->Dv) * sizeof *got);
    for (int64_t b = 0; b < c->B; b++)
        for (int64_t h = 0; h < c->Hq; h++)
            for (int64_t i = 0; i < c->Sq; i++)
                for (int64_t d = 0; d < c->Dv; d++, n++)
                    got[n] = get4(&t->o, b, h, i, d);
    expect_close("O", got, e->o, n, c->out_t);
    free(got);
    tt_check_gaps(&t->o, "O");
    check_rows(&t->stats, e->stats, "Stats");
    check_rows(&t->max, e->max, "Max");
    check_rows(&t->sum, e->sum, "Sum_exp");
    n = 0;
    for (int64_t b = 0; t->dump.mem != NULL && b < c->B; b++)
        for (int64_t h = 0; h < c->Hq; h++)
            for (int64_t i = 0; i < c->Sq; i++)
                for (int64_t j = 0; j < c->Skv; j++, n++)
                    CHECK(get4(&t->dump, b, h, i, j) == e->keep[n], "RNG_DUMP[%lld]", (long long)n);
    if (t->dump.mem != NULL)
        tt_check_gaps(&t->dump, "RNG_DUMP");
}

/* Builds, runs and checks one forward case against the naive formulation. */
static void fwd_case(cfg *c)
{
    tcase t = {.c = *c};
    expect e;
    case_build(&t);
    hipdnnStatus_t st = run_fwd(&t);
    cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "status %d", st);
    naive_fwd(&t, &e);
    check_fwd(&t, &e);
    expect_free(&e);
    case_free(&t);
}

/* ---- FP8 attention ---------------------------------------------------------------------------- */

/* FP8 attention as cuDNN's composite writes it (op-semantics.md §4.9), written out here: S·scale·
 * descale_q·descale_k, causal cut, softmax, AMAX_S = max P, P·scale_s rounded to E4M3, O =
 * Σ P8·V·descale_v·descale_s, AMAX_O = max |O|, O·scale_o stored (E4M3 or FLOAT). */
static void naive_fp8(const tcase *t, const double f[6], double *o, double *stats, double amax[2])
{
    const cfg *c = &t->c;
    double *srow = malloc((size_t)c->Skv * sizeof *srow);
    amax[0] = amax[1] = 0.0;
    for (int64_t b = 0, n = 0; b < c->B; b++)
        for (int64_t h = 0; h < c->Hq; h++)
            for (int64_t i = 0; i < c->Sq; i++, n++) {
                int64_t hk = h / (c->Hq / c->Hk), hv = h / (c->Hq / c->Hv);
                double m = -INFINITY, l = 0.0;
                for (int64_t j = 0; j < c->Skv; j++) {
                    double acc = 0.0;
                    for (int64_t d = 0; d < c->D; d++)
                        acc += get4(&t->q, b, h, i, d) * get4(&t->k, b, hk, j, d);
                    srow[j] = c->p.has_right && j > i ? -INFINITY : acc * (c->scale_value * (f[0] * f[1]));
                    m = srow[j] > m ? srow[j] : m;
                }
                for (int64_t j = 0; j < c->Skv && m != -INFINITY; j++)
                    l += srow[j] == -INFINITY ? 0.0 : exp(srow[j] - m);
                stats[n] = m == -INFINITY ? -INFINITY : m + log(l);
                for (int64_t d = 0; d < c->Dv; d++) {
                    double acc = 0.0;
                    for (int64_t j = 0; j < c->Skv && m != -INFINITY; j++) {
                        if (srow[j] == -INFINITY)
                            continue;
                        double pj = exp(srow[j] - m) / l;
                        amax[0] = pj > amax[0] ? pj : amax[0];
                        acc += ir_dtype_round(HIPDNN_DATA_FP8_E4M3, pj * f[4]) * get4(&t->v, b, hv, j, d);
                    }
                    acc *= f[2] * f[3];
                    amax[1] = fabs(acc) > amax[1] ? fabs(acc) : amax[1];
                    o[n * c->Dv + d] = acc * f[5];
                }
            }
    free(srow);
}

/* Q, K, V in E4M3 with the six factors (scale_s a power of two, descale_s its inverse, as
 * recipes choose them), plain and causal, GQA, O in E4M3 or FLOAT, Stats, AMAX_S and AMAX_O. */
Test(sdpa_fwd, fp8_attention)
{
    seed_fresh("sdpa_fwd::fp8_attention");
    for (int it = 0; it < 8; it++) {
        tcase t = {0};
        cfg *c = &t.c;
        cfg_base(c, 12, 16);
        c->in_t = HIPDNN_DATA_FP8_E4M3, c->out_t = it % 2 ? HIPDNN_DATA_FP8_E4M3 : HIPDNN_DATA_FLOAT;
        c->stats = true, c->layout = (int)irand(0, 2);
        if (it >= 4)
            c->Hk = c->Hv = 1; /* MQA */
        c->p.has_right = it % 3 == 1, c->p.right_bound = 0;
        case_build(&t);
        const double s_scale = ldexp(1.0, (int)irand(6, 8));
        const double f[6] = {uniform(0.5, 2), uniform(0.5, 2), uniform(0.5, 2), 1.0 / s_scale, s_scale,
                             uniform(1, 8)};
        tt fp8[6], amax[2];
        for (int n = 0; n < 6; n++) {
            scalar_tensor(&fp8[n], HIPDNN_DATA_FLOAT, f[n]);
            t.in[IR_SDPA_DESCALE_Q + n] = &fp8[n].b;
        }
        for (int n = 0; n < 2; n++) {
            tt_init(&amax[n], HIPDNN_DATA_FLOAT, (const int64_t[]){1, 1, 1, 1}, LAYOUT[0], false);
            t.out[IR_SDPA_AMAX_S + n] = &amax[n].b;
        }
        double fv[6];
        for (int n = 0; n < 6; n++)
            fv[n] = get4(&fp8[n], 0, 0, 0, 0); /* the values as stored */
        cr_assert_eq(run_fwd(&t), HIPDNN_STATUS_SUCCESS, "seed %llu", (unsigned long long)seed_used);
        int64_t rows = c->B * c->Hq * c->Sq;
        double *o = malloc((size_t)(rows * c->Dv) * sizeof *o), *stats = malloc((size_t)rows * sizeof *stats);
        double want_amax[2], got_amax[2] = {get4(&amax[0], 0, 0, 0, 0), get4(&amax[1], 0, 0, 0, 0)};
        naive_fp8(&t, fv, o, stats, want_amax);
        for (int64_t n = 0; n < rows * c->Dv; n++)
            o[n] = ir_dtype_round(c->out_t, o[n]);
        double *got = malloc((size_t)(rows * c->Dv) * sizeof *got);
        for (int64_t b = 0, n = 0; b < c->B; b++)
            for (int64_t h = 0; h < c->Hq; h++)
                for (int64_t i = 0; i < c->Sq; i++)
                    for (int64_t d = 0; d < c->Dv; d++, n++)
                        got[n] = get4(&t.o, b, h, i, d);
        expect_close("FP8 O", got, o, rows * c->Dv, c->out_t);
        check_rows(&t.stats, stats, "FP8 Stats");
        expect_close("AMAX_S, AMAX_O", got_amax, want_amax, 2, HIPDNN_DATA_FLOAT);
        free(o), free(stats), free(got);
        for (int n = 0; n < 6; n++)
            tt_free(&fp8[n]);
        tt_free(&amax[0]), tt_free(&amax[1]);
        case_free(&t);
    }
}

/* FP8 attention needs all six factors of one element each; AMAX_S is FP8 attention's output. */
Test(sdpa_fwd, fp8_operand_errors)
{
    seed_fresh("sdpa_fwd::fp8_operand_errors");
    for (int it = 0; it < 3; it++) {
        tcase t = {0};
        cfg_base(&t.c, 6, 6);
        t.c.in_t = HIPDNN_DATA_FP8_E4M3;
        case_build(&t);
        tt fp8[6];
        for (int n = 0; n < 6; n++) {
            scalar_tensor(&fp8[n], HIPDNN_DATA_FLOAT, 1.0);
            t.in[IR_SDPA_DESCALE_Q + n] = (it == 0 && n == 4) || it == 2 ? NULL : &fp8[n].b;
        }
        if (it == 2) /* AMAX_S without the FP8 inputs */
            t.out[IR_SDPA_AMAX_S] = &fp8[0].b;
        if (it == 1) { /* SCALE_O of two elements */
            tt_free(&fp8[5]);
            tt_init(&fp8[5], HIPDNN_DATA_FLOAT, (const int64_t[]){1, 1, 1, 2}, LAYOUT[0], false);
            t.in[IR_SDPA_SCALE_O] = &fp8[5].b;
        }
        cr_expect_eq(run_fwd(&t), HIPDNN_STATUS_BAD_PARAM, "case %d", it);
        char msg[256];
        base_last_error(msg, sizeof msg, true);
        static const char *const want[3] = {"all six", "one element", "outputs of FP8 attention"};
        cr_expect(strstr(msg, want[it]) != NULL, "case %d: message '%s'", it, msg);
        for (int n = 0; n < 6; n++)
            tt_free(&fp8[n]);
        case_free(&t);
    }
}

/* ---- forward tests --------------------------------------------------------------------------- */

Test(sdpa_fwd, plain)
{
    seed_fresh("sdpa_fwd::plain");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        cfg_base(&c, 12, 8);
        c.stats = irand(0, 1);
        c.out_t = irand(0, 1) ? HIPDNN_DATA_DOUBLE : HIPDNN_DATA_FLOAT;
        fwd_case(&c);
    }
}

Test(sdpa_fwd, gqa_and_mqa)
{
    seed_fresh("sdpa_fwd::gqa_and_mqa");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        cfg_base(&c, 10, 6);
        c.Hq = irand(2, 8);
        c.Hk = it % 3 == 0 ? 1 : pick_divisor(c.Hq);
        c.Hv = it % 3 == 0 ? 1 : pick_divisor(c.Hq);
        c.stats = true;
        fwd_case(&c);
    }
}

Test(sdpa_fwd, causal_top_left_and_bottom_right)
{
    seed_fresh("sdpa_fwd::causal");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        cfg_base(&c, 12, 6);
        while (c.Sq == c.Skv)
            c.Skv = irand(1, 12);
        c.p.has_right = true, c.p.right_bound = it % 4 == 0 ? irand(1, 4) : 0;
        c.p.bottom_right = it % 2;
        c.stats = c.maxsum = true; /* bottom-right with Sq > Skv masks whole rows */
        fwd_case(&c);
    }
}

Test(sdpa_fwd, sliding_window)
{
    seed_fresh("sdpa_fwd::sliding_window");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        cfg_base(&c, 14, 5);
        c.p.has_left = true, c.p.left_bound = irand(1, 5);
        c.p.has_right = it % 3 != 0, c.p.right_bound = it % 5 == 0 ? 2 : 0;
        c.p.bottom_right = irand(0, 1);
        c.stats = true;
        fwd_case(&c);
    }
}

Test(sdpa_fwd, padding)
{
    seed_fresh("sdpa_fwd::padding");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        cfg_base(&c, 12, 6);
        cfg_seq(&c);
        if (it % 2)
            cfg_band(&c);
        c.stats = c.maxsum = true;
        fwd_case(&c);
    }
}

Test(sdpa_fwd, bias_broadcast)
{
    seed_fresh("sdpa_fwd::bias_broadcast");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        cfg_base(&c, 10, 6);
        cfg_bias(&c);
        if (it % 3 == 0)
            c.p.has_right = true;
        c.in_t = it % 2 ? HIPDNN_DATA_FLOAT : HIPDNN_DATA_DOUBLE;
        c.out_t = HIPDNN_DATA_DOUBLE;
        fwd_case(&c);
    }
}

Test(sdpa_fwd, alibi)
{
    seed_fresh("sdpa_fwd::alibi");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        cfg_base(&c, 10, 6);
        c.Hq = c.Hk = c.Hv = irand(1, 13);
        c.p.alibi = true, c.p.has_right = true;
        c.out_t = HIPDNN_DATA_DOUBLE;
        fwd_case(&c);
    }
}

/* Slopes against literals: Sq = 1, Skv = 2, Q = 0, V = (0, 1) makes O = sigmoid(slope). */
Test(sdpa_fwd, alibi_slope_values)
{
    static const double want12[12] = {0x1p-1, 0x1p-2, 0x1p-3, 0x1p-4, 0x1p-5, 0x1p-6, 0x1p-7,
                                      0x1p-8, 0.70710678118654752, 0.35355339059327376,
                                      0.17677669529663688, 0.088388347648318440};
    seed_fresh("sdpa_fwd::alibi_slope_values");
    cfg c;
    cfg_base(&c, 1, 1);
    c.B = 1, c.Hq = c.Hk = c.Hv = 12, c.Sq = 1, c.Skv = 2, c.D = c.Dv = 1;
    c.p.alibi = true, c.out_t = HIPDNN_DATA_DOUBLE;
    tcase t = {.c = c};
    case_build(&t);
    for (int64_t h = 0; h < 12; h++)
        set4(&t.q, 0, h, 0, 0, 0.0), set4(&t.v, 0, h, 0, 0, 0.0), set4(&t.v, 0, h, 1, 0, 1.0);
    cr_assert_eq(run_fwd(&t), HIPDNN_STATUS_SUCCESS);
    for (int64_t h = 0; h < 12; h++) {
        double o = get4(&t.o, 0, h, 0, 0);
        cr_expect_float_eq(log(o / (1 - o)), want12[h], 1e-12, "head %lld", (long long)h);
    }
    case_free(&t);
}

Test(sdpa_fwd, stats_max_sum_exp_and_sink)
{
    seed_fresh("sdpa_fwd::stats_max_sum_exp_and_sink");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        cfg_base(&c, 10, 6);
        c.stats = c.maxsum = true;
        c.sink = it % 2;
        if (it % 3 == 0)
            cfg_seq(&c);
        if (it % 4 == 0)
            cfg_band(&c);
        fwd_case(&c);
    }
}

Test(sdpa_fwd, scale_tensor_overrides_attribute)
{
    seed_fresh("sdpa_fwd::scale_tensor");
    for (int it = 0; it < 8; it++) {
        cfg c;
        cfg_base(&c, 8, 6);
        c.scale_tensor = true;
        fwd_case(&c);
    }
}

Test(sdpa_fwd, dropout_philox)
{
    static const double ps[3] = {0.1, 0.25, 0.5};
    seed_fresh("sdpa_fwd::dropout_philox");
    for (int it = 0; it < 12; it++) {
        cfg c;
        cfg_base(&c, 40, 4);
        c.Sq = irand(20, 40), c.Skv = irand(20, 40);
        c.p.dropout_p = ps[it % 3];
        c.int32_seed = it % 4 == 3;
        c.dump = true, c.stats = true;
        if (it % 5 == 4)
            cfg_seq(&c), c.p.has_right = true;
        tcase t = {.c = c};
        expect e;
        case_build(&t);
        cr_assert_eq(run_fwd(&t), HIPDNN_STATUS_SUCCESS);
        naive_fwd(&t, &e);
        check_fwd(&t, &e); /* the dump is the keep mask of (seed, offset, linear index) */
        double kept = 0, n = (double)(c.B * c.Hq * c.Sq * c.Skv), p = c.p.dropout_p;
        for (int64_t k = 0; k < (int64_t)n; k++)
            kept += e.keep[k];
        double sigma = sqrt(p * (1 - p) / n);
        cr_expect(fabs(kept / n - (1 - p)) < 6 * sigma + 1e-3, "keep rate %g for p = %g",
                  kept / n, p);
        expect_free(&e);
        case_free(&t);
    }
}

/* Dropout must scale kept entries by 1/(1−p): with V = 1, O_i = Σ_j P_ij·keep_ij/(1−p). */
Test(sdpa_fwd, dropout_scaling)
{
    seed_fresh("sdpa_fwd::dropout_scaling");
    cfg c;
    cfg_base(&c, 16, 4);
    c.Dv = 1, c.p.dropout_p = 0.3, c.dump = true, c.out_t = HIPDNN_DATA_DOUBLE;
    tcase t = {.c = c};
    case_build(&t);
    for (int64_t n = 0; n < c.B * c.Hv * c.Skv; n++)
        set4(&t.v, n / (c.Hv * c.Skv), n / c.Skv % c.Hv, n % c.Skv, 0, 1.0);
    cr_assert_eq(run_fwd(&t), HIPDNN_STATUS_SUCCESS);
    double got[1], want[1];
    for (int64_t b = 0; b < c.B; b++)
        for (int64_t h = 0; h < c.Hq; h++)
            for (int64_t i = 0; i < c.Sq; i++) {
                double m = -INFINITY, l = 0, acc = 0, s[64];
                for (int64_t j = 0; j < c.Skv; j++)
                    s[j] = naive_score(&t, b, h, i, j), m = fmax(m, s[j]);
                for (int64_t j = 0; j < c.Skv; j++)
                    l += exp(s[j] - m);
                for (int64_t j = 0; j < c.Skv; j++)
                    acc += exp(s[j] - m) / l * get4(&t.dump, b, h, i, j) / 0.7;
                got[0] = get4(&t.o, b, h, i, 0), want[0] = acc;
                expect_close("O", got, want, 1, HIPDNN_DATA_DOUBLE);
            }
    case_free(&t);
}

Test(sdpa_fwd, dropout_custom_mask)
{
    seed_fresh("sdpa_fwd::dropout_custom_mask");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        cfg_base(&c, 10, 5);
        const int64_t full[4] = {c.B, c.Hq, c.Sq, c.Skv};
        for (int d = 0; d < 4; d++)
            c.dmask[d] = d < 2 && irand(0, 1) ? 1 : full[d];
        c.dscale = it % 4 != 0;
        c.dump = true;
        fwd_case(&c);
    }
}

Test(sdpa_fwd, strided_layouts)
{
    seed_fresh("sdpa_fwd::strided_layouts");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        cfg_base(&c, 10, 8);
        c.layout = 1 + it % 2; /* BSHD or SBHD, with gaps */
        c.Hq = irand(1, 6), c.Hk = c.Hv = pick_divisor(c.Hq);
        c.stats = true;
        if (it % 3 == 0)
            cfg_seq(&c), cfg_bias(&c);
        fwd_case(&c);
    }
}

Test(sdpa_fwd, half_and_bfloat16)
{
    static const hipdnnDataType_t ts[3][2] = {{HIPDNN_DATA_HALF, HIPDNN_DATA_HALF},
                                              {HIPDNN_DATA_BFLOAT16, HIPDNN_DATA_BFLOAT16},
                                              {HIPDNN_DATA_HALF, HIPDNN_DATA_FLOAT}};
    seed_fresh("sdpa_fwd::half_and_bfloat16");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        cfg_base(&c, 10, 8);
        c.in_t = ts[it % 3][0], c.out_t = ts[it % 3][1];
        c.stats = true;
        if (it % 2)
            cfg_bias(&c), cfg_band(&c);
        fwd_case(&c);
    }
}

/* ---- paged K/V ------------------------------------------------------------------------------- */

/* Chops dense K (or V) into blocks of bs tokens at random places of a container with spare
 * NaN blocks; pages past a batch's length get table entries naming no block. */
static void page_one(const tcase *t, const tt *dense, int64_t bs, tt *cont, tt *table)
{
    const cfg *c = &t->c;
    int64_t P = (c->Skv + bs - 1) / bs, nblk = c->B * P + 2;
    int64_t *perm = malloc(sizeof(int64_t) * (size_t)nblk);
    const int64_t *d = dense->b.dims;
    cr_assert(perm != NULL);
    for (int64_t n = 0; n < nblk; n++)
        perm[n] = n;
    for (int64_t n = nblk - 1; n > 0; n--) {
        int64_t m = irand(0, n), x = perm[n];
        perm[n] = perm[m], perm[m] = x;
    }
    tt_init(cont, dense->b.dtype, (const int64_t[]){nblk, d[1], bs, d[3]}, LAYOUT[irand(0, 2)],
            true);
    tt_init(table, HIPDNN_DATA_INT32, (const int64_t[]){c->B, 1, P, 1}, LAYOUT[0], true);
    for (int64_t b = 0; b < c->B; b++)
        for (int64_t p = 0; p < P; p++) {
            bool used = p * bs < len_kv(c, b);
            set4(table, b, 0, p, 0, used ? (double)perm[b * P + p] : (p % 2 ? -3.0 : 1e6));
            for (int64_t s = p * bs; used && s < (p + 1) * bs && s < c->Skv; s++)
                for (int64_t h = 0; h < d[1]; h++)
                    for (int64_t e = 0; e < d[3]; e++)
                        set4(cont, perm[b * P + p], h, s % bs, e, get4(dense, b, h, s, e));
        }
    free(perm);
}

/* Skv inference: RNG_DUMP present, or the lengths mask the tail, or Skv fills every block. */
Test(sdpa_fwd, paged_kv_equals_dense)
{
    seed_fresh("sdpa_fwd::paged_kv_equals_dense");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        cfg_base(&c, 16, 6);
        int64_t bs = (int64_t)1 << irand(0, 3);
        c.Hq = irand(1, 6), c.Hk = pick_divisor(c.Hq), c.Hv = pick_divisor(c.Hq);
        c.stats = true;
        if (it % 3 == 0)
            c.dump = true, c.p.dropout_p = it % 2 ? 0.2 : 0;
        else if (it % 3 == 1)
            cfg_seq(&c), c.p.has_right = irand(0, 1), c.p.bottom_right = irand(0, 1);
        else
            c.Skv = bs * irand(1, 4);
        tcase t = {.c = c};
        expect e;
        case_build(&t);
        cr_assert_eq(run_fwd(&t), HIPDNN_STATUS_SUCCESS);
        naive_fwd(&t, &e);
        check_fwd(&t, &e);
        page_one(&t, &t.k, bs, &t.kc, &t.pk);
        page_one(&t, &t.v, bs, &t.vc, &t.pv);
        double *dense_o = malloc(sizeof(double) * (size_t)(c.B * c.Hq * c.Sq * c.Dv + 1));
        cr_assert(dense_o != NULL);
        for (int64_t n = 0; n < c.B * c.Hq * c.Sq * c.Dv; n++)
            dense_o[n] = get4(&t.o, n / (c.Hq * c.Sq * c.Dv), n / (c.Sq * c.Dv) % c.Hq,
                              n / c.Dv % c.Sq, n % c.Dv);
        t.in[IR_SDPA_K] = &t.kc.b, t.in[IR_SDPA_V] = &t.vc.b;
        t.in[IR_SDPA_PAGE_K] = &t.pk.b, t.in[IR_SDPA_PAGE_V] = &t.pv.b;
        cr_assert_eq(run_fwd(&t), HIPDNN_STATUS_SUCCESS, "paged, bs %lld", (long long)bs);
        for (int64_t n = 0; n < c.B * c.Hq * c.Sq * c.Dv; n++)
            CHECK(dense_o[n] == get4(&t.o, n / (c.Hq * c.Sq * c.Dv), n / (c.Sq * c.Dv) % c.Hq,
                                     n / c.Dv % c.Sq, n % c.Dv),
                  "paged O[%lld] differs from dense", (long long)n);
        check_fwd(&t, &e);
        free(dense_o);
        expect_free(&e);
        case_free(&t);
    }
}

/* ---- backward: central finite differences of the forward ------------------------------------ */

static void bwd_slots(tcase *t, const ir_buf **in, ir_buf **out)
{
    in[IR_SDPAB_Q] = &t->q.b, in[IR_SDPAB_K] = &t->k.b, in[IR_SDPAB_V] = &t->v.b;
    in[IR_SDPAB_O] = &t->o.b, in[IR_SDPAB_DO] = &t->dout.b, in[IR_SDPAB_STATS] = &t->stats.b;
    in[IR_SDPAB_BIAS] = opt(&t->bias), in[IR_SDPAB_SCALE] = opt(&t->scale);
    in[IR_SDPAB_SEQ_Q] = opt(&t->seqq), in[IR_SDPAB_SEQ_KV] = opt(&t->seqkv);
    in[IR_SDPAB_SEED] = opt(&t->seed), in[IR_SDPAB_OFFSET] = opt(&t->offset);
    in[IR_SDPAB_DROPOUT_MASK] = opt(&t->dmask), in[IR_SDPAB_DROPOUT_SCALE] = opt(&t->dscale);
    in[IR_SDPAB_DROPOUT_SCALE_INV] = opt(&t->dsinv);
    out[IR_SDPAB_DQ] = &t->dq.b, out[IR_SDPAB_DK] = &t->dk.b, out[IR_SDPAB_DV] = &t->dv.b;
    out[IR_SDPAB_DBIAS] = opt_out(&t->dbias);
}

/* L = Σ O·dO over the rows that exist (dO rows past SEQ_Q hold NaN). */
static double fd_loss(tcase *t)
{
    const cfg *c = &t->c;
    double l = 0;
    cr_assert_eq(run_fwd(t), HIPDNN_STATUS_SUCCESS);
    for (int64_t b = 0; b < c->B; b++)
        for (int64_t h = 0; h < c->Hq; h++)
            for (int64_t i = 0; i < len_q(c, b); i++)
                for (int64_t d = 0; d < c->Dv; d++)
                    l += get4(&t->o, b, h, i, d) * get4(&t->dout, b, h, i, d);
    return l;
}

static double max_abs(const tt *g)
{
    double m = 0;
    int64_t idx[4] = {0};
    if (ir_buf_numel(&g->b) > 0)
        do {
            m = fmax(m, fabs(ir_load(&g->b, idx)));
        } while (ir_next_index(&g->b, idx));
    return m;
}

/* Compares gradient g of input x with central differences; NaN (padded) inputs must get 0. */
static void fd_check(tcase *t, tt *x, const tt *g, const char *what)
{
    const double step = 1e-5, tol = 1e-6 * fmax(1.0, max_abs(g));
    int64_t idx[4] = {0}, n = 0, m = 0, total = 1;
    for (int d = 0; d < x->b.rank; d++)
        total *= x->b.dims[d];
    double *analytic = malloc((size_t)total * sizeof *analytic), *fds = malloc((size_t)total * sizeof *fds);
    tt_check_gaps(g, what);
    do {
        double x0 = ir_load(&x->b, idx), an = ir_load(&g->b, idx), fd;
        if (isnan(x0)) {
            CHECK(an == 0, "%s[%lld] of a padded element: %g", what, (long long)n, an);
            continue;
        }
        ir_store(&x->b, idx, x0 + step);
        fd = fd_loss(t);
        ir_store(&x->b, idx, x0 - step);
        fd = (fd - fd_loss(t)) / (2 * step);
        ir_store(&x->b, idx, x0);
        analytic[m] = an, fds[m++] = fd;
    } while (n++, ir_next_index(&x->b, idx));
    char ctx[128];
    snprintf(ctx, sizeof ctx, "%s: analytic against central finite differences (seed %llu)", what,
             (unsigned long long)seed_used);
    bool ok = tu_expect_close(ctx, analytic, fds, (size_t)m, (tu_tol){tol, 0});
    free(analytic), free(fds);
    cr_assert(ok, "%s: see above", ctx);
}

static void bwd_case(cfg *c)
{
    tcase t = {.c = *c};
    const ir_buf *in[IR_SDPAB_N_IN];
    ir_buf *out[IR_SDPAB_N_OUT];
    t.c.in_t = t.c.out_t = HIPDNN_DATA_DOUBLE, t.c.stats = true;
    case_build(&t);
    cr_assert_eq(run_fwd(&t), HIPDNN_STATUS_SUCCESS);
    tt_init(&t.dout, HIPDNN_DATA_DOUBLE, t.o.b.dims, LAYOUT[t.c.layout], t.c.layout != 0);
    tt_fill(&t.dout, -1, 1);
    if (t.c.seq)
        poison_rows(&t.dout, t.c.seq_q), poison_rows(&t.o, t.c.seq_q);
    tt_init(&t.dq, HIPDNN_DATA_DOUBLE, t.q.b.dims, LAYOUT[t.c.layout], true);
    tt_init(&t.dk, HIPDNN_DATA_DOUBLE, t.k.b.dims, LAYOUT[0], true);
    tt_init(&t.dv, HIPDNN_DATA_DOUBLE, t.v.b.dims, LAYOUT[2], true);
    if (t.bias.mem != NULL)
        tt_init(&t.dbias, HIPDNN_DATA_DOUBLE, t.bias.b.dims, LAYOUT[1], true);
    if (t.c.dscale_inv)
        scalar_tensor(&t.dsinv, HIPDNN_DATA_DOUBLE, 1.0 / t.c.dscale_value);
    bwd_slots(&t, in, out);
    ir_ref_ctx ctx = {in, out, IR_SDPAB_N_IN, IR_SDPAB_N_OUT};
    cr_assert_eq(ir_ref_sdpa_bwd(&t.c.p, &ctx), HIPDNN_STATUS_SUCCESS);
    t.out[IR_SDPA_STATS] = NULL; /* finite differences need only O */
    fd_check(&t, &t.q, &t.dq, "dQ");
    fd_check(&t, &t.k, &t.dk, "dK");
    fd_check(&t, &t.v, &t.dv, "dV");
    if (t.bias.mem != NULL)
        fd_check(&t, &t.bias, &t.dbias, "dBias");
    case_free(&t);
}

Test(sdpa_bwd, plain_scale_tensor_and_sink)
{
    seed_fresh("sdpa_bwd::plain_scale_tensor_and_sink");
    for (int it = 0; it < 8; it++) {
        cfg c;
        cfg_base(&c, 6, 4);
        c.scale_tensor = it % 2;
        c.layout = it % 3;
        c.sink = it % 4 >= 2; /* the forward's Stats carry the sink; the backward has no slot */
        bwd_case(&c);
    }
}

Test(sdpa_bwd, gqa_and_mqa)
{
    seed_fresh("sdpa_bwd::gqa_and_mqa");
    for (int it = 0; it < 8; it++) {
        cfg c;
        cfg_base(&c, 5, 3);
        c.Hq = irand(2, 6);
        c.Hk = it % 2 ? 1 : pick_divisor(c.Hq), c.Hv = pick_divisor(c.Hq);
        c.p.has_right = it % 3 == 0;
        bwd_case(&c);
    }
}

Test(sdpa_bwd, causal_and_band)
{
    seed_fresh("sdpa_bwd::causal_and_band");
    for (int it = 0; it < 10; it++) {
        cfg c;
        cfg_base(&c, 7, 3);
        while (c.Sq == c.Skv)
            c.Skv = irand(1, 7);
        if (it < 4)
            c.p.has_right = true, c.p.bottom_right = it % 2;
        else
            cfg_band(&c);
        bwd_case(&c);
    }
}

Test(sdpa_bwd, padding)
{
    seed_fresh("sdpa_bwd::padding");
    for (int it = 0; it < 8; it++) {
        cfg c;
        cfg_base(&c, 6, 3);
        c.B = 3;
        cfg_seq(&c);
        c.seq_q[0] = 0; /* an empty batch */
        c.p.has_right = it % 2, c.p.bottom_right = it % 4 == 1;
        bwd_case(&c);
    }
}

Test(sdpa_bwd, bias_broadcast_and_alibi)
{
    seed_fresh("sdpa_bwd::bias_broadcast_and_alibi");
    for (int it = 0; it < 10; it++) {
        cfg c;
        cfg_base(&c, 5, 3);
        cfg_bias(&c);
        c.p.alibi = it % 2, c.p.has_right = c.p.alibi;
        bwd_case(&c);
    }
}

Test(sdpa_bwd, dropout_philox_and_custom)
{
    seed_fresh("sdpa_bwd::dropout_philox_and_custom");
    for (int it = 0; it < 10; it++) {
        cfg c;
        cfg_base(&c, 6, 3);
        if (it % 2) {
            c.p.dropout_p = 0.25;
        } else {
            const int64_t full[4] = {c.B, c.Hq, c.Sq, c.Skv};
            memcpy(c.dmask, full, sizeof full);
            c.dmask[0] = irand(0, 1) ? 1 : c.B;
            c.dscale = true, c.dscale_inv = it % 4 == 0;
        }
        if (it % 3 == 0)
            cfg_seq(&c), c.p.has_right = true;
        bwd_case(&c);
    }
}

/* ---- errors and allocation faults ------------------------------------------------------------ */

static hipdnnStatus_t fwd_status(cfg *c, void (*spoil)(tcase *))
{
    tcase t = {.c = *c};
    case_build(&t);
    spoil(&t);
    hipdnnStatus_t st = run_fwd(&t);
    case_free(&t);
    return st;
}

static cfg err_cfg(void)
{
    cfg c;
    cfg_base(&c, 6, 4);
    c.Hq = 4, c.Hk = c.Hv = 2;
    return c;
}

static void spoil_block_mask(tcase *t) { t->in[IR_SDPA_BLOCK_MASK] = t->in[IR_SDPA_Q]; }
static void spoil_k_dim(tcase *t) { t->k.b.dims[3] += 1; }
static void spoil_heads(tcase *t) { t->k.b.dims[1] = 3; }
static void spoil_o(tcase *t) { t->o.b.dims[2] += 1; }
static void spoil_no_q(tcase *t) { t->in[IR_SDPA_Q] = NULL; }
static void spoil_p1(tcase *t) { t->c.p.dropout_p = 1.0; }
static void spoil_rank(tcase *t) { t->v.b.rank = 3; }
static void spoil_seq(tcase *t) { set4(&t->seqkv, 0, 0, 0, 0, (double)t->c.Skv + 1); }
static void spoil_no_seed(tcase *t) { t->in[IR_SDPA_SEED] = NULL; }
static void spoil_bias(tcase *t) { t->bias.b.dims[2] = 2 * t->c.Sq + 1; }

Test(sdpa_err, statuses_and_messages)
{
    seed_fresh("sdpa_err::statuses_and_messages");
    struct { void (*spoil)(tcase *); hipdnnStatus_t want; int opt; } cases[] = {
        {spoil_block_mask, HIPDNN_STATUS_NOT_SUPPORTED, 0},
        {spoil_k_dim, HIPDNN_STATUS_BAD_PARAM, 0},  {spoil_heads, HIPDNN_STATUS_BAD_PARAM, 0},
        {spoil_o, HIPDNN_STATUS_BAD_PARAM, 0},      {spoil_no_q, HIPDNN_STATUS_BAD_PARAM, 0},
        {spoil_p1, HIPDNN_STATUS_BAD_PARAM, 0},     {spoil_rank, HIPDNN_STATUS_BAD_PARAM, 0},
        {spoil_seq, HIPDNN_STATUS_BAD_PARAM, 1},    {spoil_no_seed, HIPDNN_STATUS_BAD_PARAM, 2},
        {spoil_bias, HIPDNN_STATUS_BAD_PARAM, 3}};
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        cfg c = err_cfg();
        char msg[256];
        if (cases[n].opt == 1)
            cfg_seq(&c);
        if (cases[n].opt == 2)
            c.p.dropout_p = 0.5;
        if (cases[n].opt == 3)
            cfg_bias(&c);
        cr_expect_eq(fwd_status(&c, cases[n].spoil), cases[n].want, "case %zu", n);
        base_last_error(msg, sizeof msg, true);
        cr_expect(strstr(msg, "sdpa reference") != NULL, "case %zu: message '%s'", n, msg);
        if (cases[n].want == HIPDNN_STATUS_NOT_SUPPORTED)
            cr_expect(strstr(msg, "block mask") != NULL, "message '%s'", msg);
    }
}

Test(sdpa_err, bad_page_table_entry)
{
    seed_fresh("sdpa_err::bad_page_table_entry");
    cfg c = err_cfg();
    c.Skv = 4, c.dump = true;
    tcase t = {.c = c};
    case_build(&t);
    page_one(&t, &t.k, 2, &t.kc, &t.pk);
    page_one(&t, &t.v, 2, &t.vc, &t.pv);
    set4(&t.pk, c.B - 1, 0, 1, 0, (double)t.kc.b.dims[0]);
    t.in[IR_SDPA_K] = &t.kc.b, t.in[IR_SDPA_V] = &t.vc.b;
    t.in[IR_SDPA_PAGE_K] = &t.pk.b, t.in[IR_SDPA_PAGE_V] = &t.pv.b;
    cr_expect_eq(run_fwd(&t), HIPDNN_STATUS_BAD_PARAM);
    case_free(&t);
}

Test(sdpa_err, bwd_dbias_without_bias)
{
    seed_fresh("sdpa_err::bwd_dbias_without_bias");
    cfg c = err_cfg();
    tcase t = {.c = c};
    const ir_buf *in[IR_SDPAB_N_IN];
    ir_buf *out[IR_SDPAB_N_OUT];
    t.c.stats = true;
    case_build(&t);
    tt_init(&t.dout, c.in_t, t.o.b.dims, LAYOUT[0], false);
    tt_init(&t.dq, c.out_t, t.q.b.dims, LAYOUT[0], false);
    tt_init(&t.dk, c.out_t, t.k.b.dims, LAYOUT[0], false);
    tt_init(&t.dv, c.out_t, t.v.b.dims, LAYOUT[0], false);
    tt_init(&t.dbias, c.out_t, (const int64_t[]){1, 1, c.Sq, c.Skv}, LAYOUT[0], false);
    bwd_slots(&t, in, out);
    ir_ref_ctx ctx = {in, out, IR_SDPAB_N_IN, IR_SDPAB_N_OUT};
    cr_expect_eq(ir_ref_sdpa_bwd(&t.c.p, &ctx), HIPDNN_STATUS_BAD_PARAM);
    case_free(&t);
}

/* Failing each allocation in turn gives ALLOC_FAILED and leaks nothing (ASan build). */
Test(sdpa_err, allocation_faults)
{
    seed_fresh("sdpa_err::allocation_faults");
    cfg c = err_cfg();
    tcase t = {.c = c};
    const ir_buf *in[IR_SDPAB_N_IN];
    ir_buf *out[IR_SDPAB_N_OUT];
    t.c.stats = true;
    cfg_bias(&t.c);
    case_build(&t);
    tt_init(&t.dout, c.in_t, t.o.b.dims, LAYOUT[0], false);
    tt_fill(&t.dout, -1, 1);
    tt_init(&t.dq, c.out_t, t.q.b.dims, LAYOUT[0], false);
    tt_init(&t.dk, c.out_t, t.k.b.dims, LAYOUT[0], false);
    tt_init(&t.dv, c.out_t, t.v.b.dims, LAYOUT[0], false);
    tt_init(&t.dbias, c.out_t, t.bias.b.dims, LAYOUT[0], false);
    bwd_slots(&t, in, out);
    ir_ref_ctx ctx = {in, out, IR_SDPAB_N_IN, IR_SDPAB_N_OUT};
    int fails = 0;
    for (long nth = 1;; nth++) {
        base_alloc_fail_at(nth, false);
        hipdnnStatus_t f = run_fwd(&t), b = ir_ref_sdpa_bwd(&t.c.p, &ctx);
        base_alloc_fail_at(0, false);
        if (f == HIPDNN_STATUS_SUCCESS && b == HIPDNN_STATUS_SUCCESS)
            break;
        cr_assert(f == HIPDNN_STATUS_ALLOC_FAILED || b == HIPDNN_STATUS_ALLOC_FAILED);
        cr_assert(f != HIPDNN_STATUS_SUCCESS || b != HIPDNN_STATUS_SUCCESS);
        fails++;
    }
    cr_expect(fails >= 9, "only %d allocations failed", fails);
    case_free(&t);
}
