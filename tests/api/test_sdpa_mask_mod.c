/* test_sdpa_mask_mod.c — SDPA mask modifiers and index-aware score modifiers through the public
 * API only, executed on the reference engine.
 *
 * Owns: the document, prefix-LM and sliding-chunk masks (and the other kinds of
 * tests/common/mask_mods.h), forward and backward with the same mask sub-graph, alone and ANDed
 * with the padding mask, against an independent dense implementation written here: the explicit
 * [B,H,Sq,Skv] keep mask from mm_keep (plain C from the masks' data), softmax attention and its
 * gradients in double (rows the mask empties: O = 0, Stats = −inf, zero gradients); a score
 * modifier reading GEN_INDEX and tensors in memory (slope[h]·(j − i) + key bias[j], ALiBi written
 * out); and that the JIT engines build plans for bf16 masked forwards and backwards and for the
 * index-aware score modifier (compile-only for sm_90; skipped without NVRTC). Fresh random sizes,
 * masks and data every run, outputs poisoned with NaN; per element |got − want| ≤ atol +
 * rtol·|want| (tu_close.h); the seed is printed (HIPDNN_TEST_SEED replays it).
 * Includes nothing but the public headers.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipdnn_backend.h"
#include "hipdnn_jit.h"
#include "../common/mask_mods.h"
#include "../common/tu.h"
#include "../common/tu_close.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR

static hipdnnHandle_t handle;
#define MAX_MODS 8
static mm_mask mods[MAX_MODS]; /* score modifiers a test built (slope_mod) */
static int n_mods;

static void setup(void)
{
    TU_OK(hipdnnCreate(&handle));
    n_mods = 0;
}

static void teardown(void)
{
    tu_kept_release();
    while (n_mods > 0)
        mm_free(&mods[--n_mods]);
    cr_expect_eq(hipdnnDestroy(handle), HIPDNN_STATUS_SUCCESS);
}

TestSuite(sdpa_mask_api, .init = setup, .fini = teardown, .timeout = 300);


/* ---- the problem and the dense implementation --------------------------------------------------- */

typedef struct prob {
    int64_t B, H, Sq, Skv, D;
    hipdnnDataType_t dt;  /* Q, K, V, O (dO, dQ, dK, dV): FLOAT, or 16-bit for the JIT engines */
    float scale;
    bool padded;          /* the padding mask, with lengths sq[b], skv[b] */
    int32_t sq[4], skv[4];
    const mm_mask *mask;  /* NULL: none */
    const float *slope, *kbias; /* the score modifier's [1,H,1,1] and [1,1,1,Skv]; NULL: none */
} prob;

static prob random_prob(void)
{
    prob p = {.B = tu_range(1, 2), .H = tu_range(1, 3), .Sq = tu_range(1, 23), .Skv = tu_range(1, 27),
              .D = 8 * tu_range(1, 2), .dt = HIPDNN_DATA_FLOAT, .scale = tu_float(0.2f, 0.6f),
              .padded = tu_range(0, 2) == 0};
    if (tu_range(0, 1)) /* self-attention: the packed-document case */
        p.Skv = p.Sq;
    for (int64_t b = 0; b < p.B; b++)
        p.sq[b] = (int32_t)tu_range(0, p.Sq), p.skv[b] = (int32_t)tu_range(0, p.Skv);
    return p;
}

static bool dense_keep(const prob *p, int64_t b, int64_t h, int64_t i, int64_t j)
{
    if (p->padded && (i >= p->sq[b] || j >= p->skv[b]))
        return false;
    return p->mask == NULL || mm_keep(p->mask, b, h, i, j);
}

/* The scores S_ij of (b, h, i) after the score modifier, −inf where masked. */
static void dense_row(const prob *p, const float *q, const float *k, int64_t b, int64_t h, int64_t i, double *s)
{
    for (int64_t j = 0; j < p->Skv; j++) {
        double acc = 0;
        for (int64_t d = 0; d < p->D; d++)
            acc += (double)q[((b * p->H + h) * p->Sq + i) * p->D + d] * k[((b * p->H + h) * p->Skv + j) * p->D + d];
        acc *= p->scale;
        if (p->slope != NULL)
            acc += (double)p->slope[h] * (double)(j - i) + p->kbias[j];
        s[j] = dense_keep(p, b, h, i, j) ? acc : -INFINITY;
    }
}

/* P_i (softmax of the row, 0 for a masked row); returns the log-sum-exp (−inf when masked). */
static double dense_softmax(const prob *p, double *s)
{
    double m = -INFINITY, l = 0;
    for (int64_t j = 0; j < p->Skv; j++)
        m = fmax(m, s[j]);
    for (int64_t j = 0; j < p->Skv; j++)
        l += m == -INFINITY ? 0 : exp(s[j] - m);
    for (int64_t j = 0; j < p->Skv; j++)
        s[j] = m == -INFINITY ? 0 : exp(s[j] - m) / l;
    return m == -INFINITY ? -INFINITY : m + log(l);
}

static void dense_fwd(const prob *p, const float *q, const float *k, const float *v, double *o, double *stats)
{
    double *s = malloc((size_t)p->Skv * sizeof *s + 1);
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t h = 0; h < p->H; h++)
            for (int64_t i = 0; i < p->Sq; i++) {
                int64_t row = (b * p->H + h) * p->Sq + i;
                dense_row(p, q, k, b, h, i, s);
                stats[row] = dense_softmax(p, s);
                for (int64_t d = 0; d < p->D; d++) {
                    double acc = 0;
                    for (int64_t j = 0; j < p->Skv; j++)
                        acc += s[j] * v[((b * p->H + h) * p->Skv + j) * p->D + d];
                    o[row * p->D + d] = acc;
                }
            }
    free(s);
}

/* dQ, dK, dV of the loss Σ dO·O, with O as bound (D_i = Σ_d dO_id·O_id, as the FE factorization). */
static void dense_bwd(const prob *p, const float *q, const float *k, const float *v, const float *o, const float *dout,
                      double *dq, double *dk, double *dv)
{
    size_t nq = (size_t)(p->B * p->H * p->Sq * p->D), nk = (size_t)(p->B * p->H * p->Skv * p->D);
    double *s = malloc((size_t)p->Skv * sizeof *s + 1);
    memset(dq, 0, nq * sizeof *dq), memset(dk, 0, nk * sizeof *dk), memset(dv, 0, nk * sizeof *dv);
    for (int64_t b = 0; b < p->B; b++)
        for (int64_t h = 0; h < p->H; h++)
            for (int64_t i = 0; i < p->Sq; i++) {
                int64_t qi = ((b * p->H + h) * p->Sq + i) * p->D, kv0 = (b * p->H + h) * p->Skv * p->D;
                dense_row(p, q, k, b, h, i, s);
                dense_softmax(p, s);
                double di = 0;
                for (int64_t d = 0; d < p->D; d++)
                    di += (double)dout[qi + d] * o[qi + d];
                for (int64_t j = 0; j < p->Skv; j++) {
                    double dp = 0;
                    for (int64_t d = 0; d < p->D; d++)
                        dp += (double)dout[qi + d] * v[kv0 + j * p->D + d];
                    double ds = s[j] * (dp - di);
                    for (int64_t d = 0; d < p->D; d++) {
                        dq[qi + d] += p->scale * ds * k[kv0 + j * p->D + d];
                        dk[kv0 + j * p->D + d] += p->scale * ds * q[qi + d];
                        dv[kv0 + j * p->D + d] += s[j] * dout[qi + d];
                    }
                }
            }
    free(s);
}

/* ---- graphs ----------------------------------------------------------------------------------- */

static hipdnnBackendDescriptor_t tensor(int64_t uid, hipdnnDataType_t dt, int64_t d0, int64_t d1, int64_t d2,
                                        int64_t d3)
{
    const int64_t d[4] = {d0, d1, d2, d3};
    return tu_keep(tu_tensor(uid, dt, 4, d, false, NULL, 0));
}

static void set(hipdnnBackendDescriptor_t op, hipdnnBackendAttributeName_t id, hipdnnBackendDescriptor_t t)
{
    TU_OK(hipdnnBackendSetAttribute(op, id, DESC, 1, &t));
}

/* The padding mask's attributes and lengths (uids 20, 21). */
static void set_padding(hipdnnBackendDescriptor_t op, const prob *p, bool bwd)
{
    bool on = true;
    set(op, bwd ? HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_Q_EXT : HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC,
        tensor(20, HIPDNN_DATA_INT32, p->B, 1, 1, 1));
    set(op, bwd ? HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KV_EXT : HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC,
        tensor(21, HIPDNN_DATA_INT32, p->B, 1, 1, 1));
    TU_OK(hipdnnBackendSetAttribute(op, bwd ? HIPDNN_ATTR_SDPA_BWD_PADDING_MASK_EXT : HIPDNN_ATTR_SDPA_FWD_PADDING_MASK_EXT,
                                    HIPDNN_TYPE_BOOLEAN, 1, &on));
}

/* SDPA forward of p, FLOAT: Q 1, K 2, V 3, O 4, Stats 5 (finalized, with p's mask). */
static hipdnnBackendDescriptor_t fwd_graph(const prob *p, hipdnnBackendDescriptor_t score_mod, int64_t mod_in,
                                           int64_t mod_out)
{
    hipdnnBackendDescriptor_t op = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT, &op));
    tu_keep(op);
    set(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_QDESC, tensor(1, p->dt, p->B, p->H, p->Sq, p->D));
    set(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_KDESC, tensor(2, p->dt, p->B, p->H, p->Skv, p->D));
    set(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_VDESC, tensor(3, p->dt, p->B, p->H, p->Skv, p->D));
    set(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_ODESC, tensor(4, p->dt, p->B, p->H, p->Sq, p->D));
    set(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, tensor(5, HIPDNN_DATA_FLOAT, p->B, p->H, p->Sq, 1));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_SDPA_FWD_ATTN_SCALE_VALUE_EXT, HIPDNN_TYPE_FLOAT, 1, &p->scale));
    if (p->padded)
        set_padding(op, p, false);
    if (p->mask != NULL)
        mm_set(op, false, p->mask);
    if (score_mod != NULL) {
        set(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_GRAPH_EXT, score_mod);
        TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_INPUT_UID_EXT, HIPDNN_TYPE_INT64, 1, &mod_in));
        TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_OUTPUT_UID_EXT, HIPDNN_TYPE_INT64, 1,
                                        &mod_out));
    }
    TU_OK(hipdnnBackendFinalize(op));
    return tu_keep(tu_graph_of(handle, op));
}

/* SDPA backward of p: Q 1, K 2, V 3, O 4, Stats 5, dO 6 -> dQ 7, dK 8, dV 9, with p's mask. */
static hipdnnBackendDescriptor_t bwd_graph(const prob *p)
{
    hipdnnBackendDescriptor_t op = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_SDPA_BPROP_DESCRIPTOR_EXT, &op));
    tu_keep(op);
    for (int n = 0; n < 9; n++) {
        bool kv = n == 1 || n == 2 || n == 7 || n == 8;
        set(op, tu_sdpa_bwd_attrs[n], tensor(n + 1, n == 4 ? HIPDNN_DATA_FLOAT : p->dt, p->B, p->H, kv ? p->Skv : p->Sq,
                               n == 4 ? 1 : p->D));
    }
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_SDPA_BWD_ATTN_SCALE_VALUE_EXT, HIPDNN_TYPE_FLOAT, 1, &p->scale));
    if (p->padded)
        set_padding(op, p, true);
    if (p->mask != NULL)
        mm_set(op, true, p->mask);
    TU_OK(hipdnnBackendFinalize(op));
    return tu_keep(tu_graph_of(handle, op));
}

/* Runs g on the reference engine with n bindings (the mask's and the lengths' added here). */
static void run_reference(hipdnnBackendDescriptor_t g, const prob *p, int n, int64_t *uids, void **ptrs)
{
    int64_t id = 0, ws = 0, cnt = 0;
    hipdnnBackendDescriptor_t plan = NULL;
    TU_OK(hipdnnGetEngineIdByName_ext(handle, "reference", &id));
    TU_OK(tu_try_plan(handle, g, id, &plan));
    tu_keep(plan);
    TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, &cnt, &ws));
    for (int k = 0; p->mask != NULL && k < p->mask->n_mem; k++)
        uids[n] = p->mask->mem_uid[k], ptrs[n++] = p->mask->mem[k];
    if (p->padded)
        uids[n] = 20, ptrs[n++] = (void *)p->sq, uids[n] = 21, ptrs[n++] = (void *)p->skv;
    void *work = malloc((size_t)ws + 1);
    hipdnnBackendDescriptor_t pack = tu_keep(tu_pack(n, uids, ptrs, work));
    TU_OK(hipdnnBackendExecute(handle, plan, pack));
    free(work);
}

static float *random_floats(size_t n, float lo, float hi)
{
    float *a = malloc(n * sizeof *a + 1);
    for (size_t i = 0; i < n; i++)
        a[i] = tu_float(lo, hi);
    return a;
}

static float *poisoned(size_t n)
{
    float *a = malloc(n * sizeof *a + 1);
    for (size_t i = 0; i < n; i++)
        a[i] = NAN;
    return a;
}

static void expect_close(const char *what, const prob *p, uint64_t seed, const float *got, const double *want, size_t n,
                         tu_tol tol)
{
    double *g = malloc(n * sizeof *g + 1);
    char msg[160];
    for (size_t i = 0; i < n; i++)
        g[i] = got[i];
    snprintf(msg, sizeof msg, "%s %s [%lld,%lld,%lld,%lld] D %lld%s (seed %llu)",
             p->mask != NULL ? mm_kind_names[p->mask->kind] : "score modifier", what, (long long)p->B, (long long)p->H,
             (long long)p->Sq, (long long)p->Skv, (long long)p->D, p->padded ? " padded" : "", (unsigned long long)seed);
    tu_expect_close(msg, g, want, n, tol);
    free(g);
}

/* ---- forward and backward with a mask ---------------------------------------------------------------- */

/* Float outputs of double math: their rounding and the sums' order; the backward's P comes from
 * the FLOAT Stats (|Stats|·2^-24 relative). */
static const tu_tol FWD_TOL = {1e-6, 1e-5}, BWD_TOL = {1e-5, 1e-4};

static void forward_and_backward(mm_kind kind, uint64_t seed)
{
    prob p = random_prob();
    mm_mask m;
    const int64_t d[4] = {p.B, p.H, p.Sq, p.Skv};
    mm_build(&m, handle, kind, d, 100);
    p.mask = &m;
    size_t nq = (size_t)(p.B * p.H * p.Sq * p.D), nk = (size_t)(p.B * p.H * p.Skv * p.D), ns = (size_t)(p.B * p.H * p.Sq);
    float *q = random_floats(nq, -1, 1), *k = random_floats(nk, -1, 1), *v = random_floats(nk, -1, 1);
    float *o = poisoned(nq), *st = poisoned(ns);
    double *wo = malloc(nq * sizeof *wo + 1), *wst = malloc(ns * sizeof *wst + 1);
    int64_t uids[12] = {1, 2, 3, 4, 5};
    void *ptrs[12] = {q, k, v, o, st};
    run_reference(fwd_graph(&p, NULL, 0, 0), &p, 5, uids, ptrs);
    dense_fwd(&p, q, k, v, wo, wst);
    int64_t empty = 0;
    for (size_t r = 0; r < ns; r++)
        empty += wst[r] == -INFINITY;
    expect_close("O", &p, seed, o, wo, nq, FWD_TOL);
    expect_close("Stats", &p, seed, st, wst, ns, FWD_TOL);
    /* the backward: the same mask sub-graph, O and Stats as the dense forward gives them */
    float *dout = random_floats(nq, -1, 1), *dq = poisoned(nq), *dk = poisoned(nk), *dv = poisoned(nk);
    double *wdq = malloc(nq * sizeof *wdq + 1), *wdk = malloc(nk * sizeof *wdk + 1), *wdv = malloc(nk * sizeof *wdv + 1);
    for (size_t i = 0; i < nq; i++)
        o[i] = (float)wo[i];
    for (size_t i = 0; i < ns; i++)
        st[i] = (float)wst[i];
    int64_t buids[14] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    void *bptrs[14] = {q, k, v, o, st, dout, dq, dk, dv};
    run_reference(bwd_graph(&p), &p, 9, buids, bptrs);
    dense_bwd(&p, q, k, v, o, dout, wdq, wdk, wdv);
    expect_close("dQ", &p, seed, dq, wdq, nq, BWD_TOL);
    expect_close("dK", &p, seed, dk, wdk, nk, BWD_TOL);
    expect_close("dV", &p, seed, dv, wdv, nk, BWD_TOL);
    cr_log_info("%s [%lld,%lld,%lld,%lld]%s: %lld of %zu rows masked whole", mm_kind_names[kind], (long long)p.B,
                (long long)p.H, (long long)p.Sq, (long long)p.Skv, p.padded ? " padded" : "", (long long)empty, ns);
    free(q), free(k), free(v), free(o), free(st), free(wo), free(wst);
    free(dout), free(dq), free(dk), free(dv), free(wdq), free(wdk), free(wdv);
    mm_free(&m);
}

Test(sdpa_mask_api, document_mask_forward_and_backward)
{
    uint64_t seed = tu_seed("sdpa_mask_api::document_mask_forward_and_backward");
    for (int round = 0; round < 4; round++)
        forward_and_backward(round % 2 ? MM_DOCUMENT_ONLY : MM_DOCUMENT, seed);
}

Test(sdpa_mask_api, prefix_lm_forward_and_backward)
{
    uint64_t seed = tu_seed("sdpa_mask_api::prefix_lm_forward_and_backward");
    for (int round = 0; round < 4; round++)
        forward_and_backward(MM_PREFIX_LM, seed);
}

Test(sdpa_mask_api, sliding_chunk_forward_and_backward)
{
    uint64_t seed = tu_seed("sdpa_mask_api::sliding_chunk_forward_and_backward");
    for (int round = 0; round < 4; round++)
        forward_and_backward(MM_SLIDING_CHUNK, seed);
}

Test(sdpa_mask_api, window_masks_forward_and_backward)
{
    uint64_t seed = tu_seed("sdpa_mask_api::window_masks_forward_and_backward");
    for (int round = 0; round < 4; round++)
        forward_and_backward(round % 2 ? MM_HEAD_WINDOW : MM_WINDOW, seed);
}

/* ---- an index-aware score modifier --------------------------------------------------------------------- */

/* The index-aware score modifier S + slope[h]·(j − i) + kbias[j] (tests/common/mask_mods.c), uids
 * 100 .. 108 (slope 101, kbias 102), kept until the test ends. */
static hipdnnBackendDescriptor_t slope_mod(const prob *p)
{
    const int64_t d[4] = {p->B, p->H, p->Sq, p->Skv};
    cr_assert_lt(n_mods, MAX_MODS);
    mm_build_slope_score_mod(&mods[n_mods], handle, d, 100);
    return mods[n_mods++].graph;
}

Test(sdpa_mask_api, index_aware_score_modifier_with_a_mask)
{
    uint64_t seed = tu_seed("sdpa_mask_api::index_aware_score_modifier_with_a_mask");
    for (int round = 0; round < 4; round++) {
        prob p = random_prob();
        p.padded = false; /* a score modifier excludes the padding mask */
        mm_mask m;
        const int64_t d[4] = {p.B, p.H, p.Sq, p.Skv};
        if (round % 2) { /* with a mask modifier too: the modifier's uids differ from the mask's */
            mm_build(&m, handle, MM_PREFIX_LM, d, 1000);
            p.mask = &m;
        }
        float *slope = random_floats((size_t)p.H, 0.01f, 0.5f), *kbias = random_floats((size_t)p.Skv, -1, 1);
        p.slope = slope, p.kbias = kbias;
        size_t nq = (size_t)(p.B * p.H * p.Sq * p.D), nk = (size_t)(p.B * p.H * p.Skv * p.D), ns = (size_t)(p.B * p.H * p.Sq);
        float *q = random_floats(nq, -1, 1), *k = random_floats(nk, -1, 1), *v = random_floats(nk, -1, 1);
        float *o = poisoned(nq), *st = poisoned(ns);
        double *wo = malloc(nq * sizeof *wo + 1), *wst = malloc(ns * sizeof *wst + 1);
        int64_t uids[12] = {1, 2, 3, 4, 5, 101, 102};
        void *ptrs[12] = {q, k, v, o, st, slope, kbias};
        run_reference(fwd_graph(&p, slope_mod(&p), 100, 108), &p, 7, uids, ptrs);
        dense_fwd(&p, q, k, v, wo, wst);
        expect_close("O", &p, seed, o, wo, nq, FWD_TOL);
        expect_close("Stats", &p, seed, st, wst, ns, FWD_TOL);
        free(q), free(k), free(v), free(o), free(st), free(wo), free(wst), free(slope), free(kbias);
        if (round % 2)
            mm_free(&m);
    }
}

/* ---- what the JIT engines take --------------------------------------------------------------------- */

/* Plans g on both JIT engines (compiled for sm_90 with NVRTC, no GPU needed): each must succeed
 * (a mask is emitted as hooks and a block-classification launch, cg_sdpa_mask.c; an index-aware
 * score modifier as its hook reading indices and tensors in memory). */
static void expect_jit_plans(hipdnnBackendDescriptor_t g, const char *what)
{
    const char *engines[2] = {"jit_fused", "jit_unfused"};
    for (int e = 0; e < 2; e++) {
        int64_t id = 0;
        hipdnnBackendDescriptor_t plan = NULL;
        TU_OK(hipdnnGetEngineIdByName_ext(handle, engines[e], &id));
        hipdnnStatus_t st = tu_try_plan(handle, g, id, &plan);
        cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s on %s: %s [%s]", what, engines[e], tu_st(st), tu_msg());
        if (plan != NULL)
            hipdnnBackendDestroyDescriptor(plan);
    }
}

Test(sdpa_mask_api, jit_engines_take_masks_and_index_aware_score_modifiers)
{
    tu_seed("sdpa_mask_api::jit_engines_take_masks_and_index_aware_score_modifiers");
    if (hipdnnSetCompileTarget_ext("sm_90", 132) != HIPDNN_STATUS_SUCCESS)
        cr_skip_test("no NVRTC on this machine (the JIT engines need a GPU or a compile target): %s", tu_msg());
    prob p = random_prob();
    p.D = 64, p.padded = false, p.dt = HIPDNN_DATA_BFLOAT16; /* what the attention templates take */
    mm_mask m;
    const int64_t d[4] = {p.B, p.H, p.Sq, p.Skv};
    mm_build(&m, handle, MM_DOCUMENT, d, 100);
    p.mask = &m;
    expect_jit_plans(fwd_graph(&p, NULL, 0, 0), "forward with a mask");
    expect_jit_plans(bwd_graph(&p), "backward with a mask");
    p.mask = NULL;
    expect_jit_plans(fwd_graph(&p, slope_mod(&p), 100, 108), "an index-aware score modifier");
    mm_free(&m);
    hipdnnSetCompileTarget_ext(NULL, 0);
}
