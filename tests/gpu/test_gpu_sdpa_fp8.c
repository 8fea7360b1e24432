/* test_gpu_sdpa_fp8.c — FP8 attention forward on the GPU (kernel_templates/sdpa_fwd_fp8.hip, sm_90)
 * through the public API against the reference engine (ir_ref_sdpa_fwd's FP8 steps).
 *
 * Q, K, V in FP8 E4M3 (E5M2 once), uniform in [-2, 2] rounded to the type; the six factors drawn
 * per run (descale_q, descale_k, descale_v in [0.5, 2], scale_s = 448 and descale_s = 1/448 as
 * cuDNN's recipe sets them, scale_o 64 for an FP8 O and 1 .. 2 otherwise); shapes off every tile
 * edge, Sq != Skv, GQA / MQA, causal top-left and bottom-right, sliding window, padding (per-batch
 * lengths, some 0: fully masked rows), head dims 64, 128, 256, O in E4M3 and bf16 (fp16, float once),
 * Stats, AMAX_S and AMAX_O. The plan must be the fused JIT engine's (no fallback). Outputs are
 * poisoned (0xFF) before the run; HIPDNN_TEST_SEED replays one (the seed is in every message).
 *
 * Tolerances, per element |got − want| <= atol + rtol·|want| (infinities and NaN where the
 * reference has them), O in units of scale_o (u = scale_o · descale_v):
 *   O      rtol 2^-3, atol 2^-4 · 2u. P is rounded to E4M3 (3 mantissa bits: relative error <= 2^-4
 *          a term) by both sides, but at different points (the kernel rounds exp(S − m_running) ·
 *          scale_s before dividing by l, the reference P · scale_s after it), so each term of
 *          Σ_j P_j V_j may differ by up to 2^-3 of itself: rtol 2^-3 covers a row that one key
 *          dominates; where terms of both signs cancel, the differences (independent roundings of
 *          terms <= 2u each) stay under atol. An E4M3 O adds its own rounding (one step, 2^-3
 *          relative), inside the same rtol where O is normal; bf16 / fp16 / float O add less.
 *   Stats  atol = rtol = 1e-3: no FP8 rounding reaches m or l (fp32 products of FP8 values, the
 *          approximate exp2 at 2^-22).
 *   AMAX_S rtol 1e-3 (1/l of a row: fp32 sums of exact exponentials); AMAX_O as O before scale_o.
 * E5M2 operands (2 mantissa bits) double the O and AMAX_O bounds.
 * A wrong key order in P·V or Vᵀ mixes the wrong V rows: errors of the size of O itself, far past
 * these bounds (the scale is 2/sqrt(D) so that rows are peaked: O near one V row).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_util.h"
#include "../common/tu_close.h"

TestSuite(gpu_sdpa_fp8, .init = gpu_setup, .fini = gpu_teardown, .timeout = 600);

enum { U_Q = 1, U_K, U_V, U_O, U_STATS, U_SEQ_Q, U_SEQ_KV, U_DQ, U_DK, U_DV, U_DS, U_SS, U_SO, U_AMAX_S,
       U_AMAX_O };

typedef enum { M_NONE, M_CAUSAL, M_CAUSAL_BR, M_WINDOW } mask_kind;

typedef struct f8_case {
    const char *dt, *o_dt;        /* "FP8_E4M3" / "FP8_E5M2"; O's type */
    int64_t B, Hq, Hk, Sq, Skv, D;
    bool bshd, padding, stats, amax;
    mask_kind mask;
    int64_t left;                 /* M_WINDOW */
} f8_case;

static f8_case cur;             /* the case being filled (the fill callback has no context) */
static double fac[6];           /* descale q, k, v, s, scale s, scale o of the run */

static json_t *t4(int uid, const char *dt, int64_t b, int64_t h, int64_t s, int64_t d, bool bshd)
{
    int64_t dims[4] = {b, h, s, d}, st[4];
    if (bshd)
        st[3] = 1, st[1] = d, st[2] = h * d, st[0] = s * h * d;
    else
        packed(4, dims, st, 0);
    return tensor(uid, dt, 4, dims, st, false);
}

static void add(json_t *ts, json_t *a, const char *key, int uid, json_t *t)
{
    json_array_append_new(ts, t);
    json_object_set_new(a, key, json_integer(uid));
}

static hipdnnBackendDescriptor_t build(const f8_case *c)
{
    static const char *const fkeys[6] = {"descale_q_tensor_uid", "descale_k_tensor_uid", "descale_v_tensor_uid",
                                         "descale_s_tensor_uid", "scale_s_tensor_uid", "scale_o_tensor_uid"};
    json_t *ts = json_array(), *a = json_object();
    add(ts, a, "q_tensor_uid", U_Q, t4(U_Q, c->dt, c->B, c->Hq, c->Sq, c->D, c->bshd));
    add(ts, a, "k_tensor_uid", U_K, t4(U_K, c->dt, c->B, c->Hk, c->Skv, c->D, c->bshd));
    add(ts, a, "v_tensor_uid", U_V, t4(U_V, c->dt, c->B, c->Hk, c->Skv, c->D, c->bshd));
    add(ts, a, "o_tensor_uid", U_O, t4(U_O, c->o_dt, c->B, c->Hq, c->Sq, c->D, c->bshd));
    for (int i = 0; i < 6; i++)
        add(ts, a, fkeys[i], U_DQ + i, t4(U_DQ + i, "FLOAT", 1, 1, 1, 1, false));
    if (c->stats) {
        add(ts, a, "stats_tensor_uid", U_STATS, t4(U_STATS, "FLOAT", c->B, c->Hq, c->Sq, 1, false));
        json_object_set_new(a, "generate_stats", json_true());
    }
    if (c->amax) {
        add(ts, a, "amax_s_tensor_uid", U_AMAX_S, t4(U_AMAX_S, "FLOAT", 1, 1, 1, 1, false));
        add(ts, a, "amax_o_tensor_uid", U_AMAX_O, t4(U_AMAX_O, "FLOAT", 1, 1, 1, 1, false));
    }
    if (c->padding) {
        add(ts, a, "seq_len_q_tensor_uid", U_SEQ_Q, t4(U_SEQ_Q, "INT32", c->B, 1, 1, 1, false));
        add(ts, a, "seq_len_kv_tensor_uid", U_SEQ_KV, t4(U_SEQ_KV, "INT32", c->B, 1, 1, 1, false));
        json_object_set_new(a, "padding_mask", json_true());
    }
    json_object_set_new(a, "attn_scale_value", json_real(2.0 / sqrt((double)c->D)));
    if (c->mask != M_NONE)
        json_object_set_new(a, "right_bound", json_integer(0));
    if (c->mask == M_WINDOW)
        json_object_set_new(a, "left_bound", json_integer(c->left));
    json_object_set_new(a, "diagonal_alignment", json_string(c->mask == M_CAUSAL_BR ? "BOTTOM_RIGHT" : "TOP_LEFT"));
    json_t *nodes = json_array();
    json_array_append_new(nodes, node("SdpaAttributes", a));
    return finalize_graph(ts, nodes);
}

/* Sequence lengths (some 0, batch 0 full) and the six factors; Q, K, V the default [-2, 2]. */
static bool fill(const ir_tensor *t, ir_buf *b)
{
    int64_t idx[IR_MAX_RANK] = {0};
    if (t->uid == U_SEQ_Q || t->uid == U_SEQ_KV) {
        int64_t max = t->uid == U_SEQ_Q ? cur.Sq : cur.Skv;
        for (idx[0] = 0; idx[0] < cur.B; idx[0]++)
            ir_store(b, idx, idx[0] == 0 ? (double)max : rnd(0, 9) == 0 ? 0.0 : (double)rnd(0, (int)max));
        return true;
    }
    if (t->uid >= U_DQ && t->uid <= U_SO) {
        ir_store(b, idx, fac[t->uid - U_DQ]);
        return true;
    }
    return false;
}

static bool fp8_out(const char *dt) { return strncmp(dt, "FP8", 3) == 0; }

static void compare(const ir_tensor *t, const ir_buf *got, const ir_buf *want, const char *what)
{
    int64_t idx[IR_MAX_RANK] = {0}, n = ir_buf_numel(got), i = 0;
    double *g = malloc((size_t)n * sizeof *g), *w = malloc((size_t)n * sizeof *w);
    do
        g[i] = ir_load(got, idx), w[i] = ir_load(want, idx), i++;
    while (ir_next_index(got, idx));
    double u = fac[2]; /* descale_v: O's unit before scale_o */
    double step = strcmp(cur.dt, "FP8_E5M2") == 0 ? 2.0 : 1.0; /* E5M2: 2 mantissa bits, twice E4M3's error */
    tu_tol tol = {.atol = 0x1p-4 * 2 * u * step, .rtol = 0x1p-3 * step};
    if (t->uid == U_O)
        tol.atol *= fac[5];
    else if (t->uid == U_STATS)
        tol = (tu_tol){.atol = 1e-3, .rtol = 1e-3};
    else if (t->uid == U_AMAX_S)
        tol = (tu_tol){.atol = 0, .rtol = 1e-3};
    char ctx[512];
    snprintf(ctx, sizeof ctx, "%s: uid %lld (seed %u)", what, (long long)t->uid, seed);
    tu_expect_close(ctx, g, w, (size_t)n, tol);
    free(g), free(w);
}

static void run(f8_case c, const char *tag)
{
    c.Hk = c.Hk ? c.Hk : c.Hq;
    c.o_dt = c.o_dt ? c.o_dt : c.dt;
    cur = c;
    for (int i = 0; i < 3; i++)
        fac[i] = 0.5 + 1.5 * rand() / RAND_MAX;
    fac[3] = 1.0 / 448, fac[4] = 448;
    fac[5] = fp8_out(c.o_dt) ? 64 : 1 + (double)rand() / RAND_MAX;
    char what[256];
    snprintf(what, sizeof what, "%s %s->%s B%lld Hq%lld Hk%lld Sq%lld Skv%lld D%lld %s%s%s%s", tag, c.dt, c.o_dt,
             (long long)c.B, (long long)c.Hq, (long long)c.Hk, (long long)c.Sq, (long long)c.Skv, (long long)c.D,
             c.bshd ? "bshd" : "bhsd", c.padding ? " padding" : "", c.stats ? " stats" : "", c.amax ? " amax" : "");
    hipdnnBackendDescriptor_t g = build(&c);
    hipdnnBackendDescriptor_t plan = plan_with(g, "jit_fused"); /* the FP8 kernel, not a fallback */
    check_plan_cmp(g, plan, fill, compare, what);
    hipdnnBackendDestroyDescriptor(plan);
    hipdnnBackendDestroyDescriptor(g);
}

static f8_case random_case(int64_t D)
{
    static const int64_t heads[][2] = {{1, 1}, {2, 2}, {4, 1}, {6, 2}, {8, 4}};
    int h = rnd(0, 4);
    f8_case c = {.dt = "FP8_E4M3", .o_dt = rnd(0, 1) ? "FP8_E4M3" : "BFLOAT16", .B = rnd(1, 3), .Hq = heads[h][0],
                 .Hk = heads[h][1], .Sq = rnd(1, 300), .Skv = rnd(1, 400), .D = D, .bshd = rnd(0, 1),
                 .stats = rnd(0, 1), .amax = true};
    return c;
}

Test(gpu_sdpa_fp8, head_dims_no_mask)
{
    static const int64_t d[] = {64, 128, 256, 128};
    for (int r = 0; r < 4; r++)
        run(random_case(d[r]), "no mask");
}

Test(gpu_sdpa_fp8, causal_and_window)
{
    static const int64_t d[] = {128, 64, 256, 128};
    for (int r = 0; r < 4; r++) {
        f8_case c = random_case(d[r]);
        c.mask = r == 3 ? M_WINDOW : r % 2 ? M_CAUSAL_BR : M_CAUSAL, c.left = rnd(1, 150), c.stats = true;
        if (c.mask == M_CAUSAL_BR && c.Sq > c.Skv) /* bottom-right without padding: Sq <= Skv */
            c.Sq = rnd(1, (int)c.Skv);
        run(c, r == 3 ? "sliding window" : r % 2 ? "causal bottom-right" : "causal top-left");
    }
}

/* Per-batch lengths, some 0: fully masked rows get O = 0 and Stats = −inf, never NaN. */
Test(gpu_sdpa_fp8, padding_and_fully_masked_rows)
{
    static const int64_t d[] = {128, 64, 256};
    for (int r = 0; r < 3; r++) {
        f8_case c = random_case(d[r]);
        c.B = rnd(2, 4), c.padding = true, c.stats = true, c.mask = r == 1 ? M_CAUSAL : M_NONE;
        run(c, "padding");
    }
}

/* GQA / MQA, both layouts, O in every type; E5M2 operands once; long rows (many key tiles). */
Test(gpu_sdpa_fp8, gqa_types_and_long_rows)
{
    static const int64_t heads[][2] = {{8, 1}, {8, 2}, {12, 4}, {4, 4}};
    static const char *const o[] = {"HALF", "FLOAT", "FP8_E4M3", "BFLOAT16"};
    for (int r = 0; r < 4; r++) {
        f8_case c = random_case(r == 2 ? 64 : 128);
        c.Hq = heads[r][0], c.Hk = heads[r][1], c.bshd = r % 2, c.o_dt = o[r], c.amax = r != 1;
        run(c, "gqa");
    }
    f8_case c = random_case(128);
    c.dt = "FP8_E5M2", c.o_dt = "FP8_E5M2", c.mask = M_CAUSAL;
    run(c, "e5m2");
    c = random_case(128);
    c.Sq = 1000, c.Skv = 2100, c.B = 1, c.Hq = c.Hk = 2;
    run(c, "long rows");
}
