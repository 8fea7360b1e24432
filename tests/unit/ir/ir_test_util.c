/* ir_test_util.c — see ir_test_util.h. */
#define _POSIX_C_SOURCE 200809L

#include "ir_test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "../../common/tu_close.h"

/* ---- randomness ----------------------------------------------------------------------------- */

static uint64_t rng_state, rng_seed;

void tt_seed(const char *test)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
                    (uint64_t)getpid() << 32;
    const char *env = getenv("HIPDNN_TEST_SEED");
    if (env != NULL && *env != '\0')
        seed = strtoull(env, NULL, 0);
    rng_state = rng_seed = seed;
    fprintf(stderr, "%s: seed %llu (HIPDNN_TEST_SEED=%llu replays it)\n", test,
            (unsigned long long)seed, (unsigned long long)seed);
}

uint64_t tt_seed_value(void) { return rng_seed; }

uint64_t tt_rand(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double tt_unif(double lo, double hi) { return lo + (hi - lo) * ((tt_rand() >> 11) * 0x1p-53); }

int64_t tt_randint(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(tt_rand() % (uint64_t)(hi - lo + 1));
}

/* ---- tensors -------------------------------------------------------------------------------- */

static size_t elem_bytes(hipdnnDataType_t t)
{
    switch (t) {
    case HIPDNN_DATA_DOUBLE:
    case HIPDNN_DATA_INT64: return 8;
    case HIPDNN_DATA_FLOAT:
    case HIPDNN_DATA_INT32: return 4;
    case HIPDNN_DATA_HALF:
    case HIPDNN_DATA_BFLOAT16: return 2;
    case HIPDNN_DATA_FP4_E2M1:
    case HIPDNN_DATA_INT4: return 0; /* packed */
    default: return 1;
    }
}

tt *tt_new_strided(hipdnnDataType_t t, int rank, const int64_t *dims, const int64_t *strides)
{
    tt *x = calloc(1, sizeof *x);
    cr_assert(x != NULL);
    x->b.dtype = t;
    x->b.rank = rank;
    int64_t span = 1;
    for (int i = 0; i < rank; i++) {
        x->b.dims[i] = dims[i];
        x->b.strides[i] = strides[i];
        if (dims[i] > 1)
            span += (dims[i] - 1) * strides[i];
    }
    size_t eb = elem_bytes(t);
    x->bytes = eb ? (size_t)span * eb : (size_t)(span + 1) / 2;
    x->mem = malloc(x->bytes + 1);
    cr_assert(x->mem != NULL);
    memset(x->mem, 0xff, x->bytes + 1); /* poison: NaN in every float type */
    x->b.data = x->mem;
    return x;
}

static void random_strides(int rank, const int64_t *dims, int64_t *strides)
{
    int order[IR_MAX_RANK];
    for (int i = 0; i < rank; i++)
        order[i] = i;
    for (int i = rank - 1; i > 0; i--) {
        int j = (int)tt_randint(0, i), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    int64_t s = tt_randint(0, 3) == 0 ? 2 : 1; /* innermost stride sometimes 2 */
    for (int i = rank - 1; i >= 0; i--) {
        int d = order[i];
        strides[d] = s;
        s = s * (dims[d] > 0 ? dims[d] : 1) + (tt_randint(0, 1) ? tt_randint(0, 3) : 0);
    }
    for (int i = 0; i < rank; i++)
        if (dims[i] == 1)
            strides[i] = tt_randint(0, 1) ? 99990001 : 0; /* must never be used */
}

tt *tt_new(hipdnnDataType_t t, int rank, const int64_t *dims, tt_layout layout)
{
    int64_t strides[IR_MAX_RANK], s = 1;
    for (int i = rank - 1; i >= 0; i--) {
        strides[i] = s;
        s *= dims[i] > 0 ? dims[i] : 1;
    }
    if (layout == TT_RANDOM)
        random_strides(rank, dims, strides);
    return tt_new_strided(t, rank, dims, strides);
}

tt *tt_like(const tt *x, hipdnnDataType_t t, tt_layout layout)
{
    return tt_new(t, x->b.rank, x->b.dims, layout);
}

void tt_free(tt *x)
{
    if (x != NULL)
        free(x->mem);
    free(x);
}

int64_t tt_numel(const tt *x) { return ir_buf_numel(&x->b); }

double tt_at(const tt *x, const int64_t *idx) { return ir_load(&x->b, idx); }

void tt_set(tt *x, const int64_t *idx, double v) { ir_store(&x->b, idx, v); }

void tt_fill(tt *x, double lo, double hi)
{
    int64_t idx[IR_MAX_RANK] = {0};
    if (tt_numel(x) == 0)
        return;
    do
        tt_set(x, idx, tt_unif(lo, hi));
    while (ir_next_index(&x->b, idx));
}

int64_t tt_lin(const int64_t *dims, int rank, const int64_t *idx)
{
    int64_t l = 0;
    for (int i = 0; i < rank; i++)
        l = l * dims[i] + idx[i];
    return l;
}

void tt_unlin(const int64_t *dims, int rank, int64_t lin, int64_t *idx)
{
    for (int i = rank - 1; i >= 0; i--) {
        idx[i] = lin % dims[i];
        lin /= dims[i];
    }
}

double *tt_dense(const tt *x)
{
    int64_t n = tt_numel(x), idx[IR_MAX_RANK];
    double *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d);
    cr_assert(d != NULL);
    for (int64_t i = 0; i < n; i++) {
        tt_unlin(x->b.dims, x->b.rank, i, idx);
        d[i] = tt_at(x, idx);
    }
    return d;
}

hipdnnStatus_t tt_run(ir_op_kind k, const ir_attrs *a, tt *const *in, int n_in, tt *const *out,
                      int n_out)
{
    const ir_buf *ib[24] = {0};
    ir_buf *ob[8] = {0};
    for (int i = 0; i < n_in; i++)
        ib[i] = in[i] ? &in[i]->b : NULL;
    for (int i = 0; i < n_out; i++)
        ob[i] = out[i] ? &out[i]->b : NULL;
    ir_ref_ctx c = {ib, ob, n_in, n_out};
    return ir_ref_run(k, a, &c);
}

void tt_check_value(double got, double want, double atol, double rtol, const char *what)
{
    tu_tol tol = {atol, rtol};
    if (tu_close_check(&got, &want, 1, tol).bad == 0) /* the common case: no Criterion message */
        return;
    char ctx[256];
    snprintf(ctx, sizeof ctx, "%s (seed %llu)", what, (unsigned long long)rng_seed);
    tu_expect_close(ctx, &got, &want, 1, tol);
    cr_assert_fail("%s: see above", ctx);
}

void tt_check(const tt *out, const double *want, double atol, double rtol, const char *what)
{
    int64_t n = tt_numel(out), idx[IR_MAX_RANK];
    double *got = malloc((size_t)(n > 0 ? n : 1) * sizeof *got);
    cr_assert_not_null(got);
    for (int64_t i = 0; i < n; i++) {
        tt_unlin(out->b.dims, out->b.rank, i, idx);
        got[i] = tt_at(out, idx);
    }
    char ctx[256];
    snprintf(ctx, sizeof ctx, "%s (seed %llu)", what, (unsigned long long)rng_seed);
    bool ok = tu_expect_close(ctx, got, want, (size_t)n, (tu_tol){atol, rtol});
    free(got);
    if (!ok)
        cr_assert_fail("%s: see above", ctx);
}

/* ---- independent HALF / BFLOAT16 rounding ------------------------------------------------------ */

/* Value of positive code c; one past the largest finite code stands for overflow, with the
 * next power of two as its value (the IEEE overflow threshold is the midpoint below it). */
static double code_value(hipdnnDataType_t t, int c)
{
    int max = t == HIPDNN_DATA_HALF ? 0x7bff : 0x7f7f;
    if (c > max)
        return t == HIPDNN_DATA_HALF ? 65536.0 : 0x1p128;
    return t == HIPDNN_DATA_HALF ? base_fp16_to_f32((uint16_t)c) : base_bf16_to_f32((uint16_t)c);
}

double tt_round_ref(hipdnnDataType_t t, double v)
{
    int max = t == HIPDNN_DATA_HALF ? 0x7bff : 0x7f7f;
    if (isnan(v))
        return v;
    double a = fabs(v);
    int lo = 0, hi = max + 1; /* code_value(lo) <= a < code_value(hi), or a >= sentinel */
    if (a >= code_value(t, hi))
        return copysign(INFINITY, v);
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (code_value(t, mid) <= a)
            lo = mid;
        else
            hi = mid;
    }
    double dl = a - code_value(t, lo), dh = code_value(t, hi) - a;
    int c = dl < dh ? lo : dh < dl ? hi : (lo % 2 == 0 ? lo : hi);
    double r = c > max ? INFINITY : code_value(t, c);
    return copysign(r, v);
}

bool tt_rounded_ok(hipdnnDataType_t t, double got, double v)
{
    double r = tt_round_ref(t, v);
    if (got == r || (isnan(got) && isnan(r)))
        return true;
    if (isinf(got) || isinf(r))
        return false;
    double mid = 0.5 * (got + r);
    return fabs(v - mid) <= 1e-9 * fabs(v);
}
