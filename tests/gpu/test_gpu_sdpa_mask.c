/* test_gpu_sdpa_mask.c — attention forward and backward with a mask modifier on the GPU
 * (kernel_templates/sdpa_mask.h's block classification and lists, the hd_mask_mod hook on PARTIAL
 * tiles; codegen/cg_sdpa_mask.c) against the reference engine (ir_ref_sdpa_fwd / _bwd: the chain
 * per score in double).
 *
 * The masks are tests/common/mask_mods.h's, built through the public API: document (packed
 * sequences, causal within a document), document without causality, prefix-LM, sliding chunk,
 * window and per-head window, with fresh random document boundaries, prefixes, chunks and windows
 * each run. Shapes are drawn each run: batch 1-2, heads 1-4 (GQA at times; the per-head window
 * with as many K/V heads), Sq != Skv off the tile edges, head dims 64 and 128 (wgmma on sm_90)
 * and 96 (mma.sync), bf16 and fp16, with Stats; some cases add the causal band or the padding
 * mask, which the mask ANDs with. The knob test runs every main loop
 * (mma.sync, wgmma sequential and overlapped, the cp.async loader, the TMA producer with and
 * without the persistent grid); the decode test short queries (split keys). One plan runs twice
 * with new mask data in between: the lists are rebuilt each execution, never kept from the last.
 * Backward: Q, K, V, dO fresh, O and Stats from the reference forward of them (consistent inputs),
 * dQ, dK, dV from the fused JIT engine (the kv pass walking the lists, dQ accumulated there) and
 * the reference; each mask kind, the wgmma and mma.sync passes.
 * Inputs are fresh uniform values in [-2, 2]; outputs are poisoned (0xFF: NaN) before the run;
 * every element compared (forward: gpu_compare_attention, atol = rtol = 2e-2, infinities matched,
 * no NaN; backward: gpu_compare_grad, dQ atol 2e-2, dK / dV 7e-2 bf16 / 2e-2 fp16, rtol 2e-2,
 * as test_gpu_sdpa_bwd.c).
 * Seeds: HIPDNN_TEST_SEED replays a run.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../common/mask_mods.h"
#include "gpu_util.h"

static void reset_knobs(void)
{
    gpu_set_knobs(0, NULL, NULL);
    tu_kept_release();
    gpu_teardown();
}

TestSuite(gpu_sdpa_mask, .init = gpu_setup, .fini = reset_knobs, .timeout = 600);

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR

typedef struct mask_case {
    hipdnnDataType_t dt;
    int64_t B, H, Hk, Sq, Skv, D;
    bool causal, padded;
    bool no_mask;   /* m is not set on the op */
    mm_mask m;
    bool has_score; /* an index-aware score modifier (mm_build_slope_score_mod, uids from 1000) */
    mm_mask score;
} mask_case;

static mask_case *cur; /* the case being filled (the fill callback has no context) */

static hipdnnBackendDescriptor_t t4(int64_t uid, hipdnnDataType_t dt, int64_t d0, int64_t d1, int64_t d2, int64_t d3)
{
    const int64_t d[4] = {d0, d1, d2, d3};
    return tu_keep(tu_tensor(uid, dt, 4, d, false, NULL, 0));
}

static void set(hipdnnBackendDescriptor_t op, hipdnnBackendAttributeName_t id, hipdnnBackendDescriptor_t t)
{
    TU_OK(hipdnnBackendSetAttribute(op, id, DESC, 1, &t));
}

enum { U_Q = 1, U_K, U_V, U_O, U_STATS, U_DO, U_DQ, U_DK, U_DV, U_SEQ_Q = 20, U_SEQ_KV };

/* The forward (bwd false): Q, K, V -> O, Stats; or the backward: Q, K, V, O, Stats, dO -> dQ, dK,
 * dV; with c's band, padding (lengths 20, 21) and mask (its uids from 100). */
static hipdnnBackendDescriptor_t build(mask_case *c, bool bwd)
{
    hipdnnBackendDescriptor_t op = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(bwd ? HIPDNN_BACKEND_OPERATION_SDPA_BPROP_DESCRIPTOR_EXT
                                            : HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT, &op));
    tu_keep(op);
    for (int u = U_Q; u <= (bwd ? U_DV : U_STATS); u++) {
        bool kv = u == U_K || u == U_V || u == U_DK || u == U_DV;
        set(op, bwd ? tu_sdpa_bwd_attrs[u - 1] : tu_sdpa_fwd_attrs[u - 1],
            t4(u, u == U_STATS ? HIPDNN_DATA_FLOAT : c->dt, c->B, kv ? c->Hk : c->H, kv ? c->Skv : c->Sq,
               u == U_STATS ? 1 : c->D));
    }
    float scale = 1.0f / sqrtf((float)c->D);
    TU_OK(hipdnnBackendSetAttribute(op, bwd ? HIPDNN_ATTR_SDPA_BWD_ATTN_SCALE_VALUE_EXT : HIPDNN_ATTR_SDPA_FWD_ATTN_SCALE_VALUE_EXT,
                                    HIPDNN_TYPE_FLOAT, 1, &scale));
    bool on = true;
    if (!bwd) /* the forward writes Stats */
        TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_SDPA_FWD_GENERATE_STATS_EXT, HIPDNN_TYPE_BOOLEAN, 1, &on));
    if (c->causal)
        TU_OK(hipdnnBackendSetAttribute(op, bwd ? HIPDNN_ATTR_SDPA_BWD_CAUSAL_MASK_EXT : HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_EXT,
                                        HIPDNN_TYPE_BOOLEAN, 1, &on));
    if (c->padded) {
        set(op, bwd ? HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_Q_EXT : HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC,
            t4(U_SEQ_Q, HIPDNN_DATA_INT32, c->B, 1, 1, 1));
        set(op, bwd ? HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KV_EXT : HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC,
            t4(U_SEQ_KV, HIPDNN_DATA_INT32, c->B, 1, 1, 1));
        TU_OK(hipdnnBackendSetAttribute(op, bwd ? HIPDNN_ATTR_SDPA_BWD_PADDING_MASK_EXT : HIPDNN_ATTR_SDPA_FWD_PADDING_MASK_EXT,
                                        HIPDNN_TYPE_BOOLEAN, 1, &on));
    }
    if (!c->no_mask)
        mm_set(op, bwd, &c->m);
    if (c->has_score) {
        set(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_GRAPH_EXT, c->score.graph);
        TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_INPUT_UID_EXT, HIPDNN_TYPE_INT64, 1,
                                        &c->score.in_uid));
        TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_OUTPUT_UID_EXT, HIPDNN_TYPE_INT64, 1,
                                        &c->score.out_uid));
    }
    TU_OK(hipdnnBackendFinalize(op));
    return tu_keep(tu_graph_of(handle, op));
}

/* The mask's tensors in memory from its data (packed over their dims); the lengths in [0, S]. */
static bool fill(const ir_tensor *t, ir_buf *b)
{
    int64_t idx[IR_MAX_RANK] = {0};
    for (int k = 0; k < cur->m.n_mem; k++) {
        if (t->uid != cur->m.mem_uid[k])
            continue;
        int64_t n = 0;
        do
            ir_store(b, idx, (double)cur->m.mem[k][n++]);
        while (ir_next_index(b, idx));
        return true;
    }
    if (t->uid == U_SEQ_Q || t->uid == U_SEQ_KV) {
        do
            ir_store(b, idx, (double)tu_range(0, t->uid == U_SEQ_Q ? cur->Sq : cur->Skv));
        while (ir_next_index(b, idx));
        return true;
    }
    return false;
}

/* A random case of mask `kind`: sizes off every tile edge, head dim D (0: 64, 128 or 96). */
static mask_case random_case(mm_kind kind, int64_t D)
{
    static const int64_t dims[] = {64, 128, 96};
    static const int64_t heads[][2] = {{1, 1}, {2, 2}, {4, 4}, {4, 1}, {4, 2}};
    int h = kind == MM_HEAD_WINDOW ? rnd(0, 2) : rnd(0, 4); /* a per-head mask: one query head a K/V head */
    mask_case c = {.dt = rnd(0, 1) ? HIPDNN_DATA_BFLOAT16 : HIPDNN_DATA_HALF, .B = rnd(1, 2), .H = heads[h][0],
                   .Hk = heads[h][1], .Sq = rnd(65, 700), .D = D > 0 ? D : dims[rnd(0, 2)],
                   .causal = rnd(0, 3) == 0, .padded = rnd(0, 3) == 0};
    c.Skv = rnd(0, 1) ? c.Sq : rnd(65, 800); /* self-attention: the packed-document case */
    const int64_t d[4] = {c.B, c.H, c.Sq, c.Skv};
    mm_build(&c.m, handle, kind, d, 100);
    return c;
}

static void describe(const mask_case *c, const char *tag, char *what, size_t n)
{
    snprintf(what, n, "%s %s: %s B%lld H%lld Hk%lld Sq%lld Skv%lld D%lld%s%s", tag, mm_kind_names[c->m.kind],
             c->dt == HIPDNN_DATA_HALF ? "fp16" : "bf16", (long long)c->B, (long long)c->H, (long long)c->Hk,
             (long long)c->Sq, (long long)c->Skv, (long long)c->D, c->causal ? " causal" : "",
             c->padded ? " padded" : "");
}

/* Plans c on jit_fused and checks it against the reference; `twice`: again with new mask data
 * through the same plan. */
static void run(mask_case c, const char *tag, bool twice)
{
    char what[192];
    describe(&c, tag, what, sizeof what);
    cur = &c;
    hipdnnBackendDescriptor_t g = build(&c, false);
    hipdnnBackendDescriptor_t plan = plan_with(g, "jit_fused");
    check_plan_cmp(g, plan, fill, gpu_compare_attention, what);
    if (twice) {
        mm_fill(&c.m);
        char again[224];
        snprintf(again, sizeof again, "%s, new mask data, same plan", what);
        check_plan_cmp(g, plan, fill, gpu_compare_attention, again);
    }
    hipdnnBackendDestroyDescriptor(plan);
    mm_free(&c.m);
    if (c.has_score)
        mm_free(&c.score);
    cur = NULL;
}

Test(gpu_sdpa_mask, every_kind_head_dims_and_types)
{
    tu_seed("gpu_sdpa_mask::every_kind_head_dims_and_types");
    static const int64_t d[] = {64, 128, 96};
    for (int kind = 0; kind < MM_N_KINDS; kind++)
        for (int r = 0; r < 3; r++)
            run(random_case((mm_kind)kind, d[r]), "default loop", false);
}

Test(gpu_sdpa_mask, new_mask_data_through_the_same_plan)
{
    tu_seed("gpu_sdpa_mask::new_mask_data_through_the_same_plan");
    static const mm_kind kinds[] = {MM_DOCUMENT, MM_PREFIX_LM, MM_HEAD_WINDOW};
    for (int r = 0; r < 3; r++)
        run(random_case(kinds[r], 0), "twice", true);
}

/* Every main loop of the template with a mask: mma.sync, wgmma with 2 and 3 stages, the cp.async
 * loading warpgroup, the TMA producer, and the persistent grids behind it (static and dynamic). */
Test(gpu_sdpa_mask, every_main_loop)
{
    tu_seed("gpu_sdpa_mask::every_main_loop");
    static const char *const ids[] = {"jit.sdpa_stages", "jit.sdpa_wgmma", "jit.sdpa_ws", "jit.sdpa_persist"};
    static const int64_t loops[][4] = {{2, 0, 0, 1}, {2, 1, 3, 1}, {3, 1, 3, 1}, {2, 1, 1, 1},
                                       {3, 1, 2, 1}, {0, 1, 4, 3}, {0, 1, 4, 4}, {3, 0, 0, 1}};
    static const char *const names[] = {"mma.sync", "wgmma 2 stages", "wgmma 3 stages", "wgmma + loader",
                                        "wgmma + TMA", "TMA + persistent", "TMA + dynamic persistent",
                                        "mma.sync 3 stages"};
    for (int s = 0; s < 8; s++) {
        gpu_set_knobs(4, ids, loops[s]);
        mask_case c = random_case((mm_kind)rnd(0, MM_N_KINDS - 1), loops[s][1] ? (rnd(0, 1) ? 64 : 128) : 0);
        run(c, names[s], false);
    }
    gpu_set_knobs(0, NULL, NULL);
}

/* Short queries (the decode path: 64-row tiles or the warps splitting 16 rows' keys, keys split
 * across blocks and merged) with long keys. */
Test(gpu_sdpa_mask, decode)
{
    tu_seed("gpu_sdpa_mask::decode");
    for (int r = 0; r < 4; r++) {
        mask_case c = random_case(r % 2 ? MM_PREFIX_LM : MM_SLIDING_CHUNK, 0);
        mm_free(&c.m);
        c.Sq = rnd(1, 64), c.Skv = rnd(1000, 3000);
        const int64_t d[4] = {c.B, c.H, c.Sq, c.Skv};
        mm_build(&c.m, handle, r % 2 ? MM_PREFIX_LM : MM_SLIDING_CHUNK, d, 100);
        run(c, "decode", false);
    }
}

/* ---- backward ----------------------------------------------------------------------------------- */

static bool is_kv(int64_t uid) { return uid == U_DK || uid == U_DV; }

/* The backward of case c: O and Stats from the reference forward of fresh Q, K, V; dQ, dK, dV of
 * the fused JIT engine against the reference's (gpu_check_backward). */
static void run_backward(mask_case c, const char *tag)
{
    char what[192];
    describe(&c, tag, what, sizeof what);
    cur = &c;
    hipdnnBackendDescriptor_t gb = build(&c, true), gf = build(&c, false);
    gpu_check_backward(gb, gf, fill, is_kv, NULL, what);
    mm_free(&c.m);
    cur = NULL;
}

Test(gpu_sdpa_mask, backward_every_kind)
{
    tu_seed("gpu_sdpa_mask::backward_every_kind");
    static const int64_t d[] = {64, 128, 96};
    for (int kind = 0; kind < MM_N_KINDS; kind++)
        for (int r = 0; r < 2; r++) {
            mask_case c = random_case((mm_kind)kind, d[rnd(0, 2)]);
            run_backward(c, "backward");
        }
}

/* The backward's passes with a mask: wgmma (by shape at head dims 64 / 128), mma.sync
 * (jit.sdpa_wgmma 0), the kv pass's loading warpgroup (jit.sdpa_ws 1, 2). */
Test(gpu_sdpa_mask, backward_passes)
{
    tu_seed("gpu_sdpa_mask::backward_passes");
    static const char *const ids[] = {"jit.sdpa_wgmma", "jit.sdpa_ws"};
    static const int64_t knobs[][2] = {{0, 0}, {1, 1}, {1, 2}};
    static const char *const names[] = {"backward mma.sync", "backward + loader", "backward + loader, own dQ"};
    for (int s = 0; s < 3; s++) {
        gpu_set_knobs(2, ids, knobs[s]);
        run_backward(random_case((mm_kind)rnd(0, MM_N_KINDS - 1), rnd(0, 1) ? 64 : 128), names[s]);
    }
    gpu_set_knobs(0, NULL, NULL);
}

/* An index-aware score modifier (S + slope[h]·(j − i) + kbias[j]: GEN_INDEX and tensors in memory
 * read per score, filled uniform in [-2, 2]), alone or with a mask, on the default loop and
 * mma.sync (head dim 96). A score modifier excludes the band and the padding mask. */
Test(gpu_sdpa_mask, index_aware_score_modifier)
{
    tu_seed("gpu_sdpa_mask::index_aware_score_modifier");
    static const int64_t d[] = {64, 128, 96, 128};
    for (int r = 0; r < 4; r++) {
        mask_case c = random_case((mm_kind)rnd(0, MM_N_KINDS - 1), d[r]);
        c.causal = c.padded = false, c.no_mask = r % 2 == 0;
        const int64_t dims[4] = {c.B, c.H, c.Sq, c.Skv};
        mm_build_slope_score_mod(&c.score, handle, dims, 1000);
        c.has_score = true;
        run(c, c.no_mask ? "score modifier" : "score modifier + mask", false);
    }
}
