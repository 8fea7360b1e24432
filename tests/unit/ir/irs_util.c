/* irs_util.c — test tensors, SDPA cases, the naive forward and the comparisons shared by the
 * test_ir_sdpa files (irs_util.h). The reference under test is ir/ir_ref_sdpa.c.
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

#include "irs_util.h"

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
double irs_uniform(double lo, double hi) { return lo + (hi - lo) * urand(); }
int64_t irs_irand(int64_t lo, int64_t hi) /* in [lo, hi] */
{
    return lo + (int64_t)(rng_next() % (uint64_t)(hi - lo + 1));
}

uint64_t irs_seed_used; /* this test's seed, named in failure messages */

void irs_seed_fresh(const char *test)
{
    struct timespec ts;
    const char *env = getenv("HIPDNN_TEST_SEED");
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
                    (uint64_t)getpid() << 40;
    if (env != NULL)
        seed = strtoull(env, NULL, 0);
    rng_state = seed, irs_seed_used = seed;
    fprintf(stderr, "test_ir_sdpa %s: seed %llu (HIPDNN_TEST_SEED=%llu replays it)\n", test,
            (unsigned long long)seed, (unsigned long long)seed);
}

/* ---- test tensors: an ir_buf over its own storage ------------------------------------------- */

const int irs_layout[3][4] = {{0, 1, 2, 3},  /* BHSD, packed */
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
void irs_tt_init(tt *t, hipdnnDataType_t dt, const int64_t dims[4], const int perm[4],
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
            t->b.strides[d] = junk[irs_irand(0, 2)];
            continue;
        }
        t->b.strides[d] = run;
        t->span += (dims[d] - 1) * run;
        run = run * dims[d] + (gaps ? irs_irand(0, 3) : 0);
    }
    t->mem = malloc((size_t)t->span * esize(dt));
    cr_assert(t->mem != NULL);
    t->b.data = t->mem;
    tt_poison(t);
}

void irs_tt_free(tt *t)
{
    free(t->mem);
    memset(t, 0, sizeof *t);
}

const ir_buf *irs_opt(const tt *t) { return t->mem != NULL ? &t->b : NULL; }
ir_buf *irs_opt_out(tt *t) { return t->mem != NULL ? &t->b : NULL; }

double irs_get4(const tt *t, int64_t a, int64_t b, int64_t c, int64_t d)
{
    int64_t idx[4] = {a, b, c, d};
    return ir_load(&t->b, idx);
}

void irs_set4(tt *t, int64_t a, int64_t b, int64_t c, int64_t d, double v)
{
    int64_t idx[4] = {a, b, c, d};
    ir_store(&t->b, idx, v);
}

void irs_tt_fill(tt *t, double lo, double hi)
{
    int64_t idx[4] = {0};
    if (ir_buf_numel(&t->b) == 0)
        return;
    do {
        ir_store(&t->b, idx, irs_uniform(lo, hi));
    } while (ir_next_index(&t->b, idx));
}

static int64_t numel4(const int64_t d[4]) { return d[0] * d[1] * d[2] * d[3]; }

/* Every slot no logical element addresses still holds the poison. */
void irs_tt_check_gaps(const tt *t, const char *what)
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

void irs_cfg_base(cfg *c, int64_t max_s, int64_t max_d)
{
    memset(c, 0, sizeof *c);
    c->B = irs_irand(1, 3), c->Hq = irs_irand(1, 4), c->Hk = c->Hv = c->Hq;
    c->Sq = irs_irand(1, max_s), c->Skv = irs_irand(1, max_s);
    c->D = irs_irand(1, max_d), c->Dv = irs_irand(1, max_d);
    c->in_t = c->out_t = HIPDNN_DATA_FLOAT;
    c->p.attn_scale = c->scale_value = irs_uniform(0.2, 0.7);
}

int64_t irs_pick_divisor(int64_t n)
{
    int64_t d;
    do
        d = irs_irand(1, n);
    while (n % d != 0);
    return d;
}

/* Random lengths, a zero now and then. */
void irs_cfg_seq(cfg *c)
{
    c->seq = true;
    c->p.padding_mask = true;
    for (int64_t b = 0; b < c->B; b++) {
        c->seq_q[b] = irs_irand(0, 6) == 0 ? 0 : irs_irand(0, c->Sq);
        c->seq_kv[b] = irs_irand(0, 6) == 0 ? 0 : irs_irand(0, c->Skv);
    }
}

void irs_cfg_bias(cfg *c)
{
    const int64_t full[4] = {c->B, c->Hq, c->Sq, c->Skv};
    for (int d = 0; d < 4; d++)
        c->bias[d] = irs_irand(0, 2) == 0 ? 1 : full[d];
}

void irs_cfg_band(cfg *c)
{
    c->p.bottom_right = irs_irand(0, 1);
    c->p.has_right = irs_irand(0, 3) != 0;
    c->p.right_bound = irs_irand(0, 2) == 0 ? irs_irand(1, 3) : 0;
    c->p.has_left = !c->p.has_right || irs_irand(0, 1);
    c->p.left_bound = irs_irand(1, 4);
}

void irs_scalar_tensor(tt *t, hipdnnDataType_t dt, double v)
{
    irs_tt_init(t, dt, (const int64_t[]){1, 1, 1, 1}, irs_layout[0], false);
    irs_set4(t, 0, 0, 0, 0, v);
}

/* A 64-bit value written bit-exactly into a one-element INT64 or INT32 tensor. */
static uint64_t seed_tensor(tt *t, bool int32)
{
    uint64_t v = rng_next();
    irs_tt_init(t, int32 ? HIPDNN_DATA_INT32 : HIPDNN_DATA_INT64, (const int64_t[]){1, 1, 1, 1},
            irs_layout[0], false);
    if (int32) {
        int32_t w = (int32_t)(uint32_t)v;
        memcpy(t->mem, &w, 4);
        return (uint64_t)(int64_t)w; /* sign-extended */
    }
    memcpy(t->mem, &v, 8);
    return v;
}

/* Padded rows (beyond the lengths) of a [B,H,S,Dh] input become NaN. */
void irs_poison_rows(tt *t, const int64_t *len)
{
    for (int64_t b = 0; b < t->b.dims[0]; b++)
        for (int64_t h = 0; h < t->b.dims[1]; h++)
            for (int64_t s = len[b]; s < t->b.dims[2]; s++)
                for (int64_t d = 0; d < t->b.dims[3]; d++)
                    irs_set4(t, b, h, s, d, NAN);
}

static void case_qkvo(tcase *t)
{
    const cfg *c = &t->c;
    const int *lay = irs_layout[c->layout];
    bool gaps = c->layout != 0;
    irs_tt_init(&t->q, c->in_t, (const int64_t[]){c->B, c->Hq, c->Sq, c->D}, lay, gaps);
    irs_tt_init(&t->k, c->in_t, (const int64_t[]){c->B, c->Hk, c->Skv, c->D}, lay, gaps);
    irs_tt_init(&t->v, c->in_t, (const int64_t[]){c->B, c->Hv, c->Skv, c->Dv}, lay, gaps);
    irs_tt_init(&t->o, c->out_t, (const int64_t[]){c->B, c->Hq, c->Sq, c->Dv}, lay, gaps);
    irs_tt_fill(&t->q, -1.5, 1.5), irs_tt_fill(&t->k, -1.5, 1.5), irs_tt_fill(&t->v, -2, 2);
    if (c->seq) {
        irs_poison_rows(&t->q, c->seq_q);
        irs_poison_rows(&t->k, c->seq_kv);
        irs_poison_rows(&t->v, c->seq_kv);
    }
}

static void case_rows_out(tcase *t)
{
    const cfg *c = &t->c;
    const int64_t rows[4] = {c->B, c->Hq, c->Sq, 1};
    hipdnnDataType_t st = c->out_t == HIPDNN_DATA_DOUBLE ? c->out_t : HIPDNN_DATA_FLOAT;
    if (c->stats)
        irs_tt_init(&t->stats, st, rows, irs_layout[0], false);
    if (c->maxsum) {
        irs_tt_init(&t->max, st, rows, irs_layout[2], true);
        irs_tt_init(&t->sum, st, rows, irs_layout[1], true);
    }
    if (c->dump)
        irs_tt_init(&t->dump, HIPDNN_DATA_FLOAT, (const int64_t[]){c->B, c->Hq, c->Sq, c->Skv},
                irs_layout[0], true);
}

static void case_options(tcase *t)
{
    cfg *c = &t->c;
    if (c->bias[0] != 0) {
        irs_tt_init(&t->bias, c->in_t, c->bias, irs_layout[irs_irand(0, 2)], true);
        irs_tt_fill(&t->bias, -1, 1);
    }
    if (c->scale_tensor) {
        c->scale_value = irs_uniform(0.2, 0.7);
        irs_scalar_tensor(&t->scale, HIPDNN_DATA_FLOAT, c->scale_value);
        c->scale_value = irs_get4(&t->scale, 0, 0, 0, 0);
        c->p.attn_scale = 7.0; /* must be ignored */
    }
    if (c->seq) {
        irs_tt_init(&t->seqq, HIPDNN_DATA_INT32, (const int64_t[]){c->B, 1, 1, 1}, irs_layout[0], false);
        irs_tt_init(&t->seqkv, HIPDNN_DATA_INT32, (const int64_t[]){c->B, 1, 1, 1}, irs_layout[0], false);
        for (int64_t b = 0; b < c->B; b++)
            irs_set4(&t->seqq, b, 0, 0, 0, (double)c->seq_q[b]),
                irs_set4(&t->seqkv, b, 0, 0, 0, (double)c->seq_kv[b]);
    }
    if (c->p.dropout_p > 0) {
        c->seed = seed_tensor(&t->seed, c->int32_seed);
        c->offset = seed_tensor(&t->offset, !c->int32_seed && irs_irand(0, 1));
    }
    if (c->dmask[0] != 0) {
        irs_tt_init(&t->dmask, c->in_t, c->dmask, irs_layout[0], true);
        irs_tt_fill(&t->dmask, 0, 1);
        for (int64_t n = 0; n < numel4(c->dmask); n++) /* mostly 0/1, some other values */
            if (irs_irand(0, 3) != 0) {
                int64_t m = n, idx[4];
                for (int d = 3; d >= 0; d--)
                    idx[d] = m % c->dmask[d], m /= c->dmask[d];
                ir_store(&t->dmask.b, idx, (double)irs_irand(0, 1));
            }
    }
    c->dscale_value = 1.0;
    if (c->dscale) {
        irs_scalar_tensor(&t->dscale, HIPDNN_DATA_FLOAT, irs_uniform(1.0, 2.0));
        c->dscale_value = irs_get4(&t->dscale, 0, 0, 0, 0);
    }
    if (c->sink) {
        irs_tt_init(&t->sink, HIPDNN_DATA_FLOAT, (const int64_t[]){1, c->Hq, 1, 1}, irs_layout[0], true);
        irs_tt_fill(&t->sink, -1, 3);
    }
}

static void case_slots(tcase *t)
{
    const ir_buf *in[IR_SDPA_N_IN] = {
        [IR_SDPA_Q] = irs_opt(&t->q), [IR_SDPA_K] = irs_opt(&t->k), [IR_SDPA_V] = irs_opt(&t->v),
        [IR_SDPA_BIAS] = irs_opt(&t->bias), [IR_SDPA_SCALE] = irs_opt(&t->scale),
        [IR_SDPA_SEQ_Q] = irs_opt(&t->seqq), [IR_SDPA_SEQ_KV] = irs_opt(&t->seqkv),
        [IR_SDPA_SEED] = irs_opt(&t->seed), [IR_SDPA_OFFSET] = irs_opt(&t->offset),
        [IR_SDPA_DROPOUT_MASK] = irs_opt(&t->dmask), [IR_SDPA_DROPOUT_SCALE] = irs_opt(&t->dscale),
        [IR_SDPA_SINK] = irs_opt(&t->sink)};
    ir_buf *out[IR_SDPA_N_OUT] = {
        [IR_SDPA_O] = irs_opt_out(&t->o), [IR_SDPA_STATS] = irs_opt_out(&t->stats),
        [IR_SDPA_MAX] = irs_opt_out(&t->max), [IR_SDPA_SUM_EXP] = irs_opt_out(&t->sum),
        [IR_SDPA_RNG_DUMP] = irs_opt_out(&t->dump)};
    memcpy(t->in, in, sizeof in);
    memcpy(t->out, out, sizeof out);
}

void irs_case_build(tcase *t)
{
    case_qkvo(t);
    case_rows_out(t);
    case_options(t);
    case_slots(t);
}

void irs_case_free(tcase *t)
{
    tt *all[] = {&t->q, &t->k, &t->v, &t->o, &t->bias, &t->scale, &t->seqq, &t->seqkv,
                 &t->seed, &t->offset, &t->dmask, &t->dscale, &t->sink, &t->stats, &t->max,
                 &t->sum, &t->dump, &t->pk, &t->pv, &t->kc, &t->vc, &t->dout, &t->dq,
                 &t->dk, &t->dv, &t->dbias, &t->dsinv};
    for (size_t n = 0; n < sizeof all / sizeof all[0]; n++)
        irs_tt_free(all[n]);
}

hipdnnStatus_t irs_run_fwd(tcase *t)
{
    ir_ref_ctx ctx = {t->in, t->out, IR_SDPA_N_IN, IR_SDPA_N_OUT};
    tt *outs[] = {&t->o, &t->stats, &t->max, &t->sum, &t->dump};
    for (size_t n = 0; n < sizeof outs / sizeof outs[0]; n++)
        tt_poison(outs[n]);
    return ir_ref_sdpa_fwd(&t->c.p, &ctx);
}

/* ---- the naive forward ----------------------------------------------------------------------- */

/* The ALiBi paper's construction: the closest power of two n ≤ H gives start^(1..n) with
 * start = 2^(−8/n); the remaining heads take every other slope of the 2n-head sequence. */
static double naive_slope(int64_t h, int64_t H)
{
    int64_t n = (int64_t)1 << (int64_t)floor(log2((double)H));
    if (h < n)
        return pow(pow(2.0, -8.0 / (double)n), (double)(h + 1));
    return pow(pow(2.0, -8.0 / (double)(2 * n)), (double)(2 * (h - n) + 1));
}

int64_t irs_len_q(const cfg *c, int64_t b) { return c->seq ? c->seq_q[b] : c->Sq; }
int64_t irs_len_kv(const cfg *c, int64_t b) { return c->seq ? c->seq_kv[b] : c->Skv; }

/* Masks as torch builds them: triu(diagonal = shift + 1 + r), tril(diagonal = shift − l). */
static bool naive_masked(const cfg *c, int64_t b, int64_t i, int64_t j)
{
    int64_t sq = irs_len_q(c, b), skv = irs_len_kv(c, b), shift = c->p.bottom_right ? skv - sq : 0;
    if (c->seq && (i >= sq || j >= skv))
        return true;
    if (c->p.has_right && j - i >= shift + 1 + c->p.right_bound)
        return true;
    return c->p.has_left && j - i <= shift - c->p.left_bound;
}

static double bias_at(const tt *t, int64_t b, int64_t h, int64_t i, int64_t j)
{
    const int64_t *d = t->b.dims;
    return irs_get4(t, d[0] == 1 ? 0 : b, d[1] == 1 ? 0 : h, d[2] == 1 ? 0 : i, d[3] == 1 ? 0 : j);
}

double irs_naive_score(const tcase *t, int64_t b, int64_t h, int64_t i, int64_t j)
{
    const cfg *c = &t->c;
    int64_t hk = h * c->Hk / c->Hq;
    double dot = 0;
    for (int64_t d = 0; d < c->D; d++)
        dot += irs_get4(&t->q, b, h, i, d) * irs_get4(&t->k, b, hk, j, d);
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
    double m = -INFINITY, l = 0, sink = c->sink ? irs_get4(&t->sink, 0, h, 0, 0) : 0;
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
            e->o[n * c->Dv + d] += pj * irs_get4(&t->v, b, h * c->Hv / c->Hq, j, d);
    }
}

void irs_naive_fwd(const tcase *t, expect *e)
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
                                                                 : irs_naive_score(t, b, h, i, j);
                    e->keep[((b * c->Hq + h) * c->Sq + i) * c->Skv + j] = naive_keep(t, b, h, i, j);
                }
            for (int64_t i = 0; i < c->Sq; i++)
                naive_row(t, b, h, i, s + i * c->Skv, e);
        }
    free(s);
}

void irs_expect_free(expect *e)
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
void irs_expect_close(const char *what, const double *got, const double *want, int64_t n, hipdnnDataType_t t)
{
    char ctx[128];
    snprintf(ctx, sizeof ctx, "%s (seed %llu)", what, (unsigned long long)irs_seed_used);
    if (!tu_expect_close(ctx, got, want, (size_t)n, tol_of(t)))
        cr_assert_fail("%s: see above", ctx);
}

/* Stats-like outputs [B, H, S, 1]: element n in row-major order against want[n]. */
void irs_check_rows(const tt *t, const double *want, const char *what)
{
    if (t->mem == NULL)
        return;
    int64_t s = t->b.dims[2], hq = t->b.dims[1], rows = t->b.dims[0] * hq * s;
    double *got = malloc((size_t)rows * sizeof *got);
    for (int64_t n = 0; n < rows; n++)
        got[n] = irs_get4(t, n / (s * hq), n / s % hq, n % s, 0);
    irs_expect_close(what, got, want, rows, t->b.dtype);
    free(got);
    irs_tt_check_gaps(t, what);
}

void irs_check_fwd(const tcase *t, const expect *e)
{
    const cfg *c = &t->c;
    int64_t n = 0;
    double *got = malloc((size_t)(c->B * c->Hq * c->Sq * c->Dv) * sizeof *got);
    for (int64_t b = 0; b < c->B; b++)
        for (int64_t h = 0; h < c->Hq; h++)
            for (int64_t i = 0; i < c->Sq; i++)
                for (int64_t d = 0; d < c->Dv; d++, n++)
                    got[n] = irs_get4(&t->o, b, h, i, d);
    irs_expect_close("O", got, e->o, n, c->out_t);
    free(got);
    irs_tt_check_gaps(&t->o, "O");
    irs_check_rows(&t->stats, e->stats, "Stats");
    irs_check_rows(&t->max, e->max, "Max");
    irs_check_rows(&t->sum, e->sum, "Sum_exp");
    n = 0;
    for (int64_t b = 0; t->dump.mem != NULL && b < c->B; b++)
        for (int64_t h = 0; h < c->Hq; h++)
            for (int64_t i = 0; i < c->Sq; i++)
                for (int64_t j = 0; j < c->Skv; j++, n++)
                    CHECK(irs_get4(&t->dump, b, h, i, j) == e->keep[n], "RNG_DUMP[%lld]", (long long)n);
    if (t->dump.mem != NULL)
        irs_tt_check_gaps(&t->dump, "RNG_DUMP");
}

/* Builds, runs and checks one forward case against the naive formulation. */
void irs_fwd_case(cfg *c)
{
    tcase t = {.c = *c};
    expect e;
    irs_case_build(&t);
    hipdnnStatus_t st = irs_run_fwd(&t);
    cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "status %d", st);
    irs_naive_fwd(&t, &e);
    irs_check_fwd(&t, &e);
    irs_expect_free(&e);
    irs_case_free(&t);
}

