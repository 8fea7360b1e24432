/* test_ragged_sdpa.c — packed (THD) attention on the reference engine, through the public API.
 *
 * Q, K, V, O (and dO, dQ, dK, dV) are [B,H,S,D] with ragged offsets (HIPDNN_ATTR_TENSOR_RAGGED_
 * OFFSET_DESC): batch b's tokens start at offsets[b]·multiplier of a packed buffer laid out
 * tokens x heads x dims (the THD layout: strides {-, D, H·D, 1}); the query side (Q, O, dO, dQ)
 * and the key side (K, V, dK, dV) each have their own offsets and lengths (SEQ_LEN_Q /
 * SEQ_LEN_KV with the padding mask), so Sq != Skv and uneven batches are covered. Offsets in
 * elements (multiplier 1) or in tokens (multiplier H·D). Lengths drawn each run among very
 * uneven ones (0, 1, 7, up to the maximum), and one case of 4096 tokens.
 * The oracle: the same attention on the padded layout (each batch's tokens gathered into
 * [B,H,S,D]), run by the reference engine's dense path, whose math the dense attention tests
 * check against independent implementations. Every existing row of every output is compared per
 * element (|got − want| <= 1e-12 + 1e-12·|want|: both sides compute in double from the same
 * values); Stats (dense, [B,H,S,1]) everywhere. Packed outputs are poisoned (NaN) first, and the
 * elements of their buffers that belong to no batch (a gap between batches and a tail) must
 * still hold the poison: nothing is written past a batch's length. The JIT engines refuse such
 * graphs with the reason. Seeds: HIPDNN_TEST_SEED replays a run.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hipdnn_backend.h"
#include "hipdnn_jit.h"
#include "../common/tu.h"
#include "../common/tu_close.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR

static hipdnnHandle_t handle;

static void setup(void) { TU_OK(hipdnnCreate(&handle)); }

static void teardown(void)
{
    tu_kept_release();
    cr_expect_eq(hipdnnDestroy(handle), HIPDNN_STATUS_SUCCESS);
}

TestSuite(ragged_sdpa, .init = setup, .fini = teardown, .timeout = 300);

enum { U_Q = 1, U_K, U_V, U_O, U_STATS, U_DO, U_DQ, U_DK, U_DV, U_SEQ_Q = 20, U_SEQ_KV, U_RO_Q, U_RO_KV, U_N = 24 };
#define MAX_B 4

typedef struct prob {
    int64_t B, H, Sq, Skv, D;
    int32_t sq[MAX_B], skv[MAX_B];
    int64_t q_start[MAX_B + 1], kv_start[MAX_B + 1]; /* token offsets (a gap of 3 tokens between batches) */
    int64_t mult;                                    /* 1 (offsets in elements) or H·D (in tokens) */
    bool causal;
    float scale;
} prob;

/* Packed buffers hold this many tokens (every batch, the gaps, a tail). */
static int64_t q_tokens(const prob *p) { return p->q_start[p->B] + 5; }
static int64_t kv_tokens(const prob *p) { return p->kv_start[p->B] + 5; }

static int64_t pick_len(int64_t max)
{
    static const int64_t some[] = {0, 1, 7};
    int r = (int)tu_range(0, 4);
    int64_t v = r < 3 ? some[r] : r == 3 ? max : tu_range(1, max);
    return v < max ? v : max;
}

static prob random_prob(void)
{
    prob p = {.B = tu_range(1, MAX_B), .H = tu_range(1, 3), .Sq = tu_range(8, 40), .Skv = tu_range(8, 48),
              .D = 8 * tu_range(1, 2), .causal = tu_range(0, 2) == 0, .scale = tu_float(0.2f, 0.6f)};
    p.mult = tu_range(0, 1) ? 1 : p.H * p.D;
    for (int64_t b = 0; b < p.B; b++) {
        p.sq[b] = (int32_t)pick_len(p.Sq), p.skv[b] = (int32_t)pick_len(p.Skv);
        p.q_start[b + 1] = p.q_start[b] + p.sq[b] + 3, p.kv_start[b + 1] = p.kv_start[b] + p.skv[b] + 3;
    }
    return p;
}

static hipdnnBackendDescriptor_t small(int64_t uid, hipdnnDataType_t dt, int64_t d0, int64_t d3)
{
    int64_t d[4] = {d0, 1, 1, d3};
    return tu_keep(tu_tensor(uid, dt, 4, d, false, NULL, 0));
}

/* A [B,H,S,D] FLOAT tensor: packed (THD strides, its ragged offsets the descriptor ro: cuDNN's
 * form, which puts the offset tensor into the graph) or padded ([B,H,S,D]). */
static hipdnnBackendDescriptor_t qkv(const prob *p, int64_t uid, bool kv, hipdnnBackendDescriptor_t ro)
{
    int64_t S = kv ? p->Skv : p->Sq, d[4] = {p->B, p->H, S, p->D};
    if (ro == NULL)
        return tu_keep(tu_tensor(uid, HIPDNN_DATA_FLOAT, 4, d, false, NULL, 0));
    int64_t st[4] = {S * p->H * p->D, p->D, p->H * p->D, 1};
    hipdnnBackendDescriptor_t t = tu_tensor_unfinalized(uid, HIPDNN_DATA_FLOAT, 4, d, st, false);
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC, DESC, 1, &ro));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_MULTIPLIER, HIPDNN_TYPE_INT64, 1, &p->mult));
    TU_OK(hipdnnBackendFinalize(t));
    return tu_keep(t);
}

static void set(hipdnnBackendDescriptor_t op, hipdnnBackendAttributeName_t id, hipdnnBackendDescriptor_t t)
{
    TU_OK(hipdnnBackendSetAttribute(op, id, DESC, 1, &t));
}

/* The forward (Q K V -> O, Stats) or backward (Q K V O Stats dO -> dQ dK dV), packed or padded. */
static hipdnnBackendDescriptor_t graph(const prob *p, bool bwd, bool packed)
{
    hipdnnBackendDescriptor_t op = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(bwd ? HIPDNN_BACKEND_OPERATION_SDPA_BPROP_DESCRIPTOR_EXT
                                            : HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT, &op));
    tu_keep(op);
    hipdnnBackendDescriptor_t ro_q = packed ? small(U_RO_Q, HIPDNN_DATA_INT32, p->B + 1, 1) : NULL;
    hipdnnBackendDescriptor_t ro_kv = packed ? small(U_RO_KV, HIPDNN_DATA_INT32, p->B + 1, 1) : NULL;
    for (int u = U_Q; u <= (bwd ? U_DV : U_STATS); u++) {
        bool kv = u == U_K || u == U_V || u == U_DK || u == U_DV;
        hipdnnBackendDescriptor_t t;
        if (u == U_STATS) {
            int64_t d[4] = {p->B, p->H, p->Sq, 1};
            t = tu_keep(tu_tensor(u, HIPDNN_DATA_FLOAT, 4, d, false, NULL, 0));
        } else {
            t = qkv(p, u, kv, kv ? ro_kv : ro_q);
        }
        set(op, bwd ? tu_sdpa_bwd_attrs[u - 1] : tu_sdpa_fwd_attrs[u - 1], t);
    }
    TU_OK(hipdnnBackendSetAttribute(op, bwd ? HIPDNN_ATTR_SDPA_BWD_ATTN_SCALE_VALUE_EXT : HIPDNN_ATTR_SDPA_FWD_ATTN_SCALE_VALUE_EXT,
                                    HIPDNN_TYPE_FLOAT, 1, &p->scale));
    bool on = true;
    if (!bwd)
        TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_SDPA_FWD_GENERATE_STATS_EXT, HIPDNN_TYPE_BOOLEAN, 1, &on));
    if (p->causal)
        TU_OK(hipdnnBackendSetAttribute(op, bwd ? HIPDNN_ATTR_SDPA_BWD_CAUSAL_MASK_EXT : HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_EXT,
                                        HIPDNN_TYPE_BOOLEAN, 1, &on));
    set(op, bwd ? HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_Q_EXT : HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC,
        small(U_SEQ_Q, HIPDNN_DATA_INT32, p->B, 1));
    set(op, bwd ? HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KV_EXT : HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC,
        small(U_SEQ_KV, HIPDNN_DATA_INT32, p->B, 1));
    TU_OK(hipdnnBackendSetAttribute(op, bwd ? HIPDNN_ATTR_SDPA_BWD_PADDING_MASK_EXT : HIPDNN_ATTR_SDPA_FWD_PADDING_MASK_EXT,
                                    HIPDNN_TYPE_BOOLEAN, 1, &on));
    TU_OK(hipdnnBackendFinalize(op));
    return tu_keep(tu_graph_of(handle, op));
}

/* ---- data ------------------------------------------------------------------------------------- */

typedef struct bufs {
    float *t[U_N];
    size_t n[U_N];
    int32_t ro_q[MAX_B + 1], ro_kv[MAX_B + 1], sq[MAX_B], skv[MAX_B];
} bufs;

static bool is_kv(int u) { return u == U_K || u == U_V || u == U_DK || u == U_DV; }

/* Element (b, h, s, d) of tensor u in the packed layout (token-major, offsets by batch) and in
 * the padded one. */
static size_t packed_at(const prob *p, int u, int64_t b, int64_t h, int64_t s, int64_t d)
{
    int64_t tok = (is_kv(u) ? p->kv_start[b] : p->q_start[b]) + s;
    return (size_t)((tok * p->H + h) * p->D + d);
}

static size_t padded_at(const prob *p, int u, int64_t b, int64_t h, int64_t s, int64_t d)
{
    int64_t S = is_kv(u) ? p->Skv : p->Sq;
    return (size_t)(((b * p->H + h) * S + s) * p->D + d);
}

static float *alloc_floats(size_t n, float fill)
{
    float *f = malloc((n > 0 ? n : 1) * sizeof *f);
    cr_assert_not_null(f);
    for (size_t i = 0; i < n; i++)
        f[i] = fill;
    return f;
}

/* Fresh inputs in both layouts (the padded rows past a length zero), outputs poisoned. */
static void make(const prob *p, bufs *pk, bufs *pd, bool bwd)
{
    for (int u = U_Q; u <= (bwd ? U_DV : U_STATS); u++) {
        bool kv = is_kv(u);
        int64_t S = kv ? p->Skv : p->Sq;
        if (u == U_STATS) {
            pk->n[u] = pd->n[u] = (size_t)(p->B * p->H * p->Sq);
            pk->t[u] = alloc_floats(pk->n[u], NAN), pd->t[u] = alloc_floats(pd->n[u], NAN);
            continue;
        }
        bool input = u <= U_V || (bwd && (u == U_O || u == U_DO));
        pk->n[u] = (size_t)((kv ? kv_tokens(p) : q_tokens(p)) * p->H * p->D);
        pd->n[u] = (size_t)(p->B * p->H * S * p->D);
        pk->t[u] = alloc_floats(pk->n[u], NAN), pd->t[u] = alloc_floats(pd->n[u], input ? 0.0f : NAN);
        for (int64_t b = 0; input && b < p->B; b++)
            for (int64_t h = 0; h < p->H; h++)
                for (int64_t s = 0; s < (kv ? p->skv[b] : p->sq[b]); s++)
                    for (int64_t d = 0; d < p->D; d++) {
                        float v = tu_float(-2.0f, 2.0f);
                        pk->t[u][packed_at(p, u, b, h, s, d)] = v, pd->t[u][padded_at(p, u, b, h, s, d)] = v;
                    }
    }
    for (int64_t b = 0; b <= p->B; b++) {
        pk->ro_q[b] = (int32_t)(p->q_start[b] * p->H * p->D / p->mult);
        pk->ro_kv[b] = (int32_t)(p->kv_start[b] * p->H * p->D / p->mult);
    }
    for (int64_t b = 0; b < p->B; b++)
        pk->sq[b] = pd->sq[b] = p->sq[b], pk->skv[b] = pd->skv[b] = p->skv[b];
}

static void release(bufs *x)
{
    for (int u = 0; u < U_N; u++)
        free(x->t[u]);
}

static void run(hipdnnBackendDescriptor_t g, bufs *x, bool bwd, bool packed)
{
    int64_t uids[U_N];
    void *ptrs[U_N];
    int n = 0;
    for (int u = U_Q; u <= (bwd ? U_DV : U_STATS); u++)
        uids[n] = u, ptrs[n++] = x->t[u];
    uids[n] = U_SEQ_Q, ptrs[n++] = x->sq;
    uids[n] = U_SEQ_KV, ptrs[n++] = x->skv;
    if (packed) {
        uids[n] = U_RO_Q, ptrs[n++] = x->ro_q;
        uids[n] = U_RO_KV, ptrs[n++] = x->ro_kv;
    }
    int64_t ref = 0, ws = 0;
    TU_OK(hipdnnGetEngineIdByName_ext(handle, "reference", &ref));
    hipdnnBackendDescriptor_t plan = NULL;
    TU_OK(tu_try_plan(handle, g, ref, &plan));
    TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1,
                                    &(int64_t){0}, &ws));
    void *work = malloc((size_t)ws + 1);
    hipdnnBackendDescriptor_t pack = tu_pack(n, uids, ptrs, work);
    TU_OK(hipdnnBackendExecute(handle, plan, pack));
    tu_destroy(&pack), tu_destroy(&plan);
    free(work);
}

/* Every existing row of the packed outputs equals the padded run's; everything else of their
 * buffers still holds the poison; Stats everywhere. */
static void compare(const prob *p, const bufs *pk, const bufs *pd, bool bwd, uint64_t seed)
{
    const tu_tol tol = {1e-12, 1e-12};
    char what[160];
    for (int u = bwd ? U_DQ : U_O; u <= (bwd ? U_DV : U_STATS); u++) {
        snprintf(what, sizeof what, "uid %d (seed %llu)", u, (unsigned long long)seed);
        if (u == U_STATS) {
            double *g = malloc(pk->n[u] * sizeof *g), *w = malloc(pk->n[u] * sizeof *w);
            for (size_t i = 0; i < pk->n[u]; i++)
                g[i] = pk->t[u][i], w[i] = pd->t[u][i];
            tu_expect_close(what, g, w, pk->n[u], tol);
            free(g), free(w);
            continue;
        }
        bool *mine = calloc(pk->n[u], sizeof *mine);
        size_t n = 0, rows = (size_t)(p->B * p->H * (is_kv(u) ? p->Skv : p->Sq) * p->D);
        double *g = malloc((rows + 1) * sizeof *g), *w = malloc((rows + 1) * sizeof *w);
        for (int64_t b = 0; b < p->B; b++)
            for (int64_t h = 0; h < p->H; h++)
                for (int64_t s = 0; s < (is_kv(u) ? p->skv[b] : p->sq[b]); s++)
                    for (int64_t d = 0; d < p->D; d++) {
                        size_t at = packed_at(p, u, b, h, s, d);
                        mine[at] = true;
                        g[n] = pk->t[u][at], w[n++] = pd->t[u][padded_at(p, u, b, h, s, d)];
                    }
        tu_expect_close(what, g, w, n, tol);
        size_t touched = 0;
        for (size_t i = 0; i < pk->n[u]; i++)
            touched += !mine[i] && !isnan(pk->t[u][i]);
        cr_expect_eq(touched, 0, "%s: %zu elements outside every batch were written", what, touched);
        free(mine), free(g), free(w);
    }
}

static void check(prob p, bool bwd)
{
    uint64_t seed = tu_seed(bwd ? "ragged_sdpa::backward" : "ragged_sdpa::forward");
    bufs pk = {0}, pd = {0};
    make(&p, &pk, &pd, bwd);
    if (bwd) { /* O and Stats from the padded forward, both layouts */
        hipdnnBackendDescriptor_t f = graph(&p, false, false);
        run(f, &pd, false, false);
        for (int64_t b = 0; b < p.B; b++)
            for (int64_t h = 0; h < p.H; h++)
                for (int64_t s = 0; s < p.sq[b]; s++)
                    for (int64_t d = 0; d < p.D; d++)
                        pk.t[U_O][packed_at(&p, U_O, b, h, s, d)] = pd.t[U_O][padded_at(&p, U_O, b, h, s, d)];
        memcpy(pk.t[U_STATS], pd.t[U_STATS], pd.n[U_STATS] * sizeof *pd.t[U_STATS]);
    }
    run(graph(&p, bwd, true), &pk, bwd, true);
    run(graph(&p, bwd, false), &pd, bwd, false);
    compare(&p, &pk, &pd, bwd, seed);
    release(&pk), release(&pd);
}

Test(ragged_sdpa, forward_uneven_batches)
{
    for (int r = 0; r < 6; r++)
        check(random_prob(), false);
}

Test(ragged_sdpa, backward_uneven_batches)
{
    for (int r = 0; r < 6; r++)
        check(random_prob(), true);
}

/* Lengths 1, 7 and 4096 in one batch of three. */
Test(ragged_sdpa, lengths_1_7_4096)
{
    prob p = {.B = 3, .H = 1, .Sq = 4096, .Skv = 4096, .D = 8, .mult = 8, .causal = true, .scale = 0.3f,
              .sq = {1, 7, 4096}, .skv = {1, 4096, 7}};
    for (int64_t b = 0; b < p.B; b++)
        p.q_start[b + 1] = p.q_start[b] + p.sq[b] + 3, p.kv_start[b + 1] = p.kv_start[b] + p.skv[b] + 3;
    check(p, false);
}

Test(ragged_sdpa, jit_engines_refuse_with_the_reason)
{
    tu_seed("ragged_sdpa::jit_engines_refuse_with_the_reason");
    if (hipdnnSetCompileTarget_ext("sm_90", 132) != HIPDNN_STATUS_SUCCESS)
        cr_skip_test("no NVRTC on this machine (the JIT engines need a GPU or a compile target): %s", tu_msg());
    prob p = random_prob();
    for (int bwd = 0; bwd < 2; bwd++) {
        hipdnnBackendDescriptor_t g = graph(&p, bwd, true), plan = NULL;
        int64_t id = 0;
        TU_OK(hipdnnGetEngineIdByName_ext(handle, "jit_fused", &id));
        TU_EQ(tu_try_plan(handle, g, id, &plan), HIPDNN_STATUS_NOT_SUPPORTED);
        cr_expect(strstr(tu_msg(), "packed (THD)") != NULL, "the reason: %s", tu_msg());
    }
    hipdnnSetCompileTarget_ext(NULL, 0);
}
