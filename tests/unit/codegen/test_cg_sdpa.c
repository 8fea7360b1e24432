/* test_cg_sdpa.c — codegen of attention forward (kernel_templates/sdpa_fwd.hip, cg_sdpa.c):
 * every variant is emitted deterministically and compiles with NVRTC for sm_90 and sm_80
 * (compile only: skips without NVRTC): head dims 64, 128, 96, 256 (and Dv != D), bf16 and fp16,
 * each mask kind (none, causal top-left, causal bottom-right, sliding window, padding), stats on
 * and off, and the options (bias, ALiBi, dropout, sink, scale tensor, GQA, BSHD layout, paged
 * K/V); on sm_90 the wgmma variant (sm_90a) where the head dims allow it, and the mma.sync one;
 * score modifiers (softcap c·tanh(s/c) with c by value or in memory, s·a + b with a, b in memory,
 * with bias and stats) on every main loop: mma.sync (sm_80, and head dim 96 on sm_90), wgmma at
 * head dims 64 and 128 with two and three stages, and the warp-specialized one; without a
 * modifier no hook is emitted; the modifier joins its attention kernel only (fused and unfused
 * partitions); the knobs reach the tile shape; unsupported cases (a modifier operand that is not
 * a scalar among them) are refused with a reason. FP8 attention (sdpa_fwd_fp8.hip): its variants
 * emit and compile for sm_90a, and what it does not do is refused, each with its reason.
 * Numerical checks are tests/gpu/test_gpu_sdpa.c's.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"
#include "runtime/rt.h"
#include "sdpa_tu.h"

typedef struct variant {
    hipdnnDataType_t dt;
    int64_t B, Hq, Hk, Sq, Skv, D, Dv;
    mask_kind mask;
    bool stats, bshd, bias, alibi, dropout, sink, scale_tensor, paged, rng_dump, dmask;
    bool mma_sync; /* sm_90 with jit.sdpa_wgmma 0 */
    int ws;        /* sm_90 with jit.sdpa_ws (1: cp.async loaders, 2: TMA producer) */
    int mod;       /* score modifier: 0 none, 1 softcap (c by value), 2 softcap (c in memory),
                    * 3 s·a + b (a, b in memory), 4 softcap dividing by a [1,1,1,Skv] tensor */
    int stages;    /* jit.sdpa_stages (0: default) */
    int pingpong;  /* jit.sdpa_pingpong */
    int intra;     /* jit.sdpa_intra */
    bool fp8;      /* the six FP8 descale / scale operands */
    bool sw_exp;   /* jit.sdpa_sw_exp 2 */
    int bn;        /* jit.sdpa_block_n (0: default) */
    bool o_tma;    /* jit.sdpa_o_tma 2 */
    int persist;   /* jit.sdpa_persist (2: Q in two buffers, 3: in one; 0: by shape) */
    bool l2_ahead; /* jit.sdpa_l2_ahead 2 */
    bool trace;    /* jit.sdpa_trace 1 */
    int ksplit;    /* jit.sdpa_ksplit */
    bool mod_fold; /* constants folded: jit.sdpa_mod_fold 0 (the default), else 1 */
    int bs;        /* paged block size (0: 16) */
    bool page_tile; /* jit.sdpa_page_tile 2 */
    int kv_ahead;   /* jit.sdpa_kv_ahead */
    int page_smem;  /* jit.sdpa_page_smem */
    bool o_set;     /* O of type o_dt (else dt) */
    hipdnnDataType_t o_dt;
    bool amax;      /* FP8: AMAX_S and AMAX_O outputs */
} variant;

/* The score modifier of variant v on SDPA op `op` (slot IR_SDPA_SCORE_MOD). */
static void add_mod(ir_graph *g, const variant *v, ir_op *sdpa)
{
    ir_tensor st = {.uid = 900, .dtype = HIPDNN_DATA_FLOAT, .rank = 4, .dims = {v->B, v->Hq, v->Sq, v->Skv},
                    .is_virtual = true, .score = true};
    int s = ir_add_tensor(g, &st), t1, t2, m;
    ir_tensor mid = st;
    mid.score = false;
    t1 = ir_add_tensor(g, &mid), t2 = ir_add_tensor(g, &mid), m = ir_add_tensor(g, &mid);
    ir_op pw = {.kind = IR_OP_POINTWISE, .n_in = 3, .n_out = 1, .in = {-1, -1, -1}, .out = {-1}};
    int modes[3] = {HIPDNN_POINTWISE_DIV, HIPDNN_POINTWISE_TANH_FWD, HIPDNN_POINTWISE_MUL};
    int a = add(g, HIPDNN_DATA_FLOAT, 1, 1, 1, v->mod == 4 ? v->Skv : 1, false);
    int b = add(g, HIPDNN_DATA_FLOAT, 1, 1, 1, 1, false);
    if (v->mod == 1) { /* c = 30 by value */
        ir_tensor c = {.uid = 901, .dtype = HIPDNN_DATA_FLOAT, .rank = 4, .dims = {1, 1, 1, 1},
                       .strides = {1, 1, 1, 1}, .by_value = true};
        float cv = 30.0f;
        memcpy(c.value, &cv, sizeof cv);
        a = ir_add_tensor(g, &c);
    }
    if (v->mod == 3)
        modes[0] = HIPDNN_POINTWISE_MUL, modes[1] = HIPDNN_POINTWISE_ADD;
    int ins[3][2] = {{s, a}, {t1, v->mod == 3 ? b : -1}, {t2, a}}, outs[3] = {t1, t2, m};
    for (int k = 0; k < (v->mod == 3 ? 2 : 3); k++) {
        pw.a.pw = (ir_pointwise){.mode = modes[k], .relu_upper = 1e30, .swish_beta = 1, .elu_alpha = 1,
                                 .softplus_beta = 1};
        pw.in[0] = ins[k][0], pw.in[1] = ins[k][1], pw.out[0] = v->mod == 3 && k == 1 ? m : outs[k];
        ir_add_op(g, &pw);
    }
    sdpa->in[IR_SDPA_SCORE_MOD] = m;
}

static void build(ir_graph *g, const variant *v)
{
    ir_graph_init(g);
    ir_op op = {.kind = IR_OP_SDPA_FWD, .n_in = IR_SDPA_N_IN, .n_out = IR_SDPA_N_OUT};
    for (int i = 0; i < IR_MAX_SLOTS; i++)
        op.in[i] = op.out[i] = -1;
    ir_sdpa *p = &op.a.sdpa;
    p->attn_scale = 0.125, p->has_scale_value = true;
    int64_t Hk = v->Hk ? v->Hk : v->Hq;
    op.in[IR_SDPA_Q] = add(g, v->dt, v->B, v->Hq, v->Sq, v->D, v->bshd);
    if (v->paged) { /* containers of bs-token blocks (16 by default), tables [B,1,P,1] */
        int64_t bs = v->bs ? v->bs : 16, P = (v->Skv + bs - 1) / bs;
        op.in[IR_SDPA_K] = add(g, v->dt, v->B * P, Hk, bs, v->D, false);
        op.in[IR_SDPA_V] = add(g, v->dt, v->B * P, Hk, bs, v->Dv, false);
        op.in[IR_SDPA_PAGE_K] = add(g, HIPDNN_DATA_INT32, v->B, 1, P, 1, false);
        op.in[IR_SDPA_PAGE_V] = add(g, HIPDNN_DATA_INT32, v->B, 1, P, 1, false);
    } else {
        op.in[IR_SDPA_K] = add(g, v->dt, v->B, Hk, v->Skv, v->D, v->bshd);
        op.in[IR_SDPA_V] = add(g, v->dt, v->B, Hk, v->Skv, v->Dv, v->bshd);
    }
    op.out[IR_SDPA_O] = add(g, v->o_set ? v->o_dt : v->dt, v->B, v->Hq, v->Sq, v->Dv, v->bshd);
    if (v->stats)
        op.out[IR_SDPA_STATS] = add(g, HIPDNN_DATA_FLOAT, v->B, v->Hq, v->Sq, 1, false);
    if (v->mask == MASK_CAUSAL || v->mask == MASK_CAUSAL_BR || v->mask == MASK_WINDOW)
        p->has_right = true, p->right_bound = 0;
    p->bottom_right = v->mask == MASK_CAUSAL_BR;
    if (v->mask == MASK_WINDOW)
        p->has_left = true, p->left_bound = 100;
    if (v->mask == MASK_PADDING || v->paged) {
        p->padding_mask = true;
        op.in[IR_SDPA_SEQ_Q] = add(g, HIPDNN_DATA_INT32, v->B, 1, 1, 1, false);
        op.in[IR_SDPA_SEQ_KV] = add(g, HIPDNN_DATA_INT32, v->B, 1, 1, 1, false);
    }
    if (v->bias)
        op.in[IR_SDPA_BIAS] = add(g, v->dt, 1, v->Hq, v->Sq, v->Skv, false);
    p->alibi = v->alibi;
    if (v->dropout) {
        p->dropout_p = 0.1;
        op.in[IR_SDPA_SEED] = add_i64(g, HIPDNN_DATA_INT64, 1234567);
        op.in[IR_SDPA_OFFSET] = add(g, HIPDNN_DATA_INT64, 1, 1, 1, 1, false);
    }
    if (v->sink)
        op.in[IR_SDPA_SINK] = add(g, HIPDNN_DATA_FLOAT, 1, v->Hq, 1, 1, false);
    if (v->scale_tensor)
        op.in[IR_SDPA_SCALE] = add(g, HIPDNN_DATA_FLOAT, 1, 1, 1, 1, false), p->has_scale_value = false;
    if (v->rng_dump)
        op.out[IR_SDPA_RNG_DUMP] = add(g, HIPDNN_DATA_FLOAT, v->B, v->Hq, v->Sq, v->Skv, false);
    if (v->dmask)
        op.in[IR_SDPA_DROPOUT_MASK] = add(g, v->dt, 1, 1, v->Sq, v->Skv, false);
    if (v->mod)
        add_mod(g, v, &op);
    for (int i = IR_SDPA_DESCALE_Q; v->fp8 && i <= IR_SDPA_SCALE_O; i++)
        op.in[i] = add(g, HIPDNN_DATA_FLOAT, 1, 1, 1, 1, false);
    for (int i = IR_SDPA_AMAX_S; v->amax && i <= IR_SDPA_AMAX_O; i++)
        op.out[i] = add(g, HIPDNN_DATA_FLOAT, 1, 1, 1, 1, false);
    ir_add_op(g, &op);
    cr_assert_eq(ir_graph_seal(g), HIPDNN_STATUS_SUCCESS);
}

/* Builds the variant's graph and fuses it into p. */
static void build_fused(ir_graph *g, ir_partition *p, const variant *v)
{
    build(g, v);
    cr_assert_eq(ir_fuse(g, p), HIPDNN_STATUS_SUCCESS);
}

/* Emits the variant twice per arch (same bytes) and compiles it; returns the compiles. */
static int emit_and_compile(const variant *v, const char *what)
{
    ir_graph g;
    build(&g, v);
    ir_partition p;
    one_supported_kernel(&g, &p, what);
    const char *archs[] = {"sm_90", "sm_80"};
    int compiled = 0;
    for (int a = 0; a < 2; a++) {
        cg_target t = {.platform = "nvidia", .sm_count = 132, .sdpa_wgmma = v->mma_sync ? -1 : 0,
                       .sdpa_ws = v->ws, .sdpa_stages = v->stages, .sdpa_pingpong = v->pingpong,
                       .sdpa_intra = v->intra, .sdpa_block_n = v->bn, .sdpa_sw_exp = v->sw_exp ? 2 : 0,
                       .sdpa_o_tma = v->o_tma ? 2 : 0, .sdpa_persist = v->persist,
                       .sdpa_l2_ahead = v->l2_ahead ? 2 : 0, .sdpa_trace = v->trace, .sdpa_ksplit = v->ksplit,
                       .sdpa_mod_fold = v->mod_fold ? 0 : 1, /* folded by default */
                       .sdpa_page_tile = v->page_tile ? 2 : 0, .sdpa_kv_ahead = v->kv_ahead,
                       .sdpa_page_smem = v->page_smem};
        snprintf(t.arch, sizeof t.arch, "%s", archs[a]);
        cg_kernel k1;
        emit_twice(&g, &p.k[0], &t, &k1, what);
        /* the dynamic scheduler's counter is the last parameter (the persistent grid is sm_90's) */
        const bool dyn = strstr(k1.source, "#define HD_DYN 1\n") != NULL; /* knob 4, or by shape */
        cr_expect_eq(k1.n_args > 0 && k1.args[k1.n_args - 1].kind == CG_ARG_COUNTER, dyn, "%s %s", what, archs[a]);
        cr_expect(!dyn || a == 0, "%s %s: no TMA producer, no persistent grid", what, archs[a]);
        if (v->persist == 4)
            cr_expect(dyn == (a == 0), "%s %s: knob 4 takes the dynamic scheduler on sm_90", what, archs[a]);
        /* the trace follows the TMA producer only (sm_80 has none) */
        cr_expect_eq(strstr(k1.source, "#define HD_TRACE 1\n") != NULL, v->trace && a == 0, "%s %s", what, archs[a]);
        cr_expect_str_eq(k1.entry, "hd_sdpa_fwd_kernel");
        cr_expect(k1.smem > 0 && k1.smem <= 227u * 1024u, "%s: %u bytes of shared memory", what, k1.smem);
        /* the hook and its define exist exactly when there is a modifier; folded (the default) the
         * factor after it folds into the exponent unless something is added to the scores, and
         * softcap with c by value (mod 1) folds its constants at both ends (S · (scale / c) in the
         * hook, c · log2 e after it), with c in memory (2, 3, 4) nothing; as written (the knob 1) nothing */
        cr_expect_eq(strstr(k1.source, "#define HD_SCORE_MOD 1") != NULL, v->mod != 0, "%s: HD_SCORE_MOD", what);
        cr_expect_eq(strstr(k1.source, "HD_DEVICE float hd_score_mod(") != NULL, v->mod != 0, "%s: hook", what);
        if (v->mod) {
            bool fold = strstr(k1.source, "#define HD_FOLD 0\n") == NULL; /* the template's defaults say 1 */
            cr_expect_eq(fold, !v->bias && !v->alibi && v->mod_fold, "%s: HD_FOLD with a modifier", what);
            bool ends = v->mod == 1 && !v->scale_tensor && v->mod_fold;
            cr_expect_eq(strstr(k1.source, "#define HD_MOD_RAW 1\n") != NULL, ends, "%s: HD_MOD_RAW", what);
            cr_expect_eq(strstr(k1.source, "#define HD_MOD_POST 3.000000000e+01f\n") != NULL,
                         v->mod == 1 && v->mod_fold, "%s: HD_MOD_POST", what);
            char first[96];
            snprintf(first, sizeof first, "= s * %.9ef;", 0.125 * (1.0 / 30.0)); /* scale 0.125, c 30 */
            cr_expect_eq(strstr(k1.source, first) != NULL, ends, "%s: %s", what, first);
        }
        compiled += compile_emitted(&k1, what);
        cg_kernel_free(&k1);
    }
    ir_partition_free(&p);
    ir_graph_free(&g);
    return compiled;
}

/* Head dims x types, each with a mask kind and stats toggled in turn. */
Test(codegen_sdpa, head_dims_and_types_compile, .timeout = 900)
{
    if (!have_compiler())
        cr_skip_test("no run-time compiler (NVRTC) on this machine");
    const int64_t dims[] = {64, 128, 96, 256};
    const hipdnnDataType_t dts[] = {HIPDNN_DATA_BFLOAT16, HIPDNN_DATA_HALF};
    int n = 0;
    for (int d = 0; d < 4; d++)
        for (int t = 0; t < 2; t++, n++) {
            variant v = {.dt = dts[t], .B = 2, .Hq = 4, .Sq = 300, .Skv = 517, .D = dims[d], .Dv = dims[d],
                         .mask = (mask_kind)(n % N_MASKS), .stats = n % 2 == 0, .bshd = n % 3 == 0,
                         .mma_sync = n % 4 == 3};
            char what[64];
            snprintf(what, sizeof what, "sdpa_d%lld_%s_%s", (long long)dims[d], t ? "f16" : "bf16",
                     mask_names[v.mask]);
            cr_expect_eq(emit_and_compile(&v, what), 2, "%s", what);
        }
}

/* Every mask kind with stats on and off (D 128, bf16; sm_90 both on wgmma and on mma.sync). */
Test(codegen_sdpa, masks_and_stats_compile, .timeout = 900)
{
    if (!have_compiler())
        cr_skip_test("no run-time compiler (NVRTC) on this machine");
    for (int m = 0; m < N_MASKS; m++)
        for (int s = 0; s < 2; s++) {
            variant v = {.dt = HIPDNN_DATA_BFLOAT16, .B = 3, .Hq = 8, .Hk = 2, .Sq = 129, .Skv = 77,
                         .D = 128, .Dv = 128, .mask = (mask_kind)m, .stats = s, .mma_sync = s == 1};
            char what[64];
            snprintf(what, sizeof what, "sdpa_%s_stats%d", mask_names[m], s);
            cr_expect_eq(emit_and_compile(&v, what), 2, "%s", what);
        }
}

/* The options: bias, ALiBi (causal), dropout, sink, scale tensor, GQA + BSHD, paged K/V, Dv != D,
 * custom dropout and Philox dropout with RNG_DUMP, the warp-specialized wgmma loop, head dims 192
 * and 256 on wgmma, O through TMA stores (one and two computing warpgroups, the persistent grid,
 * Dv < D), the L2 prefetch ahead (two and one computing warpgroups, GQA), the persistent grid at
 * head dim 128 with Q in two buffers (causal) and in one (padding), the phase trace (one block a
 * work tile and the persistent grid), the dynamic scheduler (causal, padding with GQA), decode blocks
 * whose warps split the keys (GQA with the split across blocks; head dim 256 with Dv 64, paged). */
Test(codegen_sdpa, options_compile, .timeout = 900)
{
    if (!have_compiler())
        cr_skip_test("no run-time compiler (NVRTC) on this machine");
    variant base = {.dt = HIPDNN_DATA_HALF, .B = 2, .Hq = 6, .Sq = 200, .Skv = 333, .D = 64, .Dv = 64,
                    .stats = true};
    variant vs[26];
    for (int i = 0; i < 26; i++)
        vs[i] = base;
    vs[0].bias = true;
    vs[1].alibi = true, vs[1].mask = MASK_CAUSAL;
    vs[2].dropout = true;
    vs[3].sink = true, vs[3].scale_tensor = true;
    vs[4].Hk = 2, vs[4].bshd = true, vs[4].mask = MASK_CAUSAL_BR;
    vs[5].paged = true;
    vs[6].D = 192, vs[6].Dv = 128, vs[6].dt = HIPDNN_DATA_BFLOAT16;
    vs[7].dmask = true, vs[7].rng_dump = true;
    vs[8].dropout = true, vs[8].rng_dump = true, vs[8].D = vs[8].Dv = 128;
    vs[9].ws = true, vs[9].D = vs[9].Dv = 128, vs[9].mask = MASK_PADDING, vs[9].rng_dump = true;
    vs[10].D = vs[10].Dv = 256, vs[10].dt = HIPDNN_DATA_BFLOAT16, vs[10].mask = MASK_CAUSAL; /* wgmma, FA3 order */
    vs[11].D = vs[11].Dv = 192, vs[11].mask = MASK_PADDING, vs[11].paged = true;
    vs[12].D = 256, vs[12].Dv = 64, vs[12].dropout = true, vs[12].bshd = true;
    vs[13].D = vs[13].Dv = 128, vs[13].o_tma = true, vs[13].mask = MASK_CAUSAL, vs[13].bshd = true;
    vs[14].o_tma = true, vs[14].persist = 2, vs[14].mask = MASK_PADDING, vs[14].sink = true;
    vs[15].D = 192, vs[15].Dv = 128, vs[15].o_tma = true, vs[15].persist = 2, vs[15].dt = HIPDNN_DATA_BFLOAT16;
    vs[16].D = vs[16].Dv = 128, vs[16].l2_ahead = true, vs[16].mask = MASK_CAUSAL, vs[16].Hk = 2;
    vs[17].l2_ahead = true, vs[17].mask = MASK_PADDING, vs[17].bshd = true;
    vs[18].D = vs[18].Dv = 128, vs[18].persist = 2, vs[18].mask = MASK_CAUSAL, vs[18].dt = HIPDNN_DATA_BFLOAT16;
    vs[19].D = vs[19].Dv = 128, vs[19].persist = 3, vs[19].mask = MASK_PADDING, vs[19].Hk = 3;
    vs[20].D = vs[20].Dv = 128, vs[20].trace = true, vs[20].Sq = vs[20].Skv = 1024;
    vs[21].D = vs[21].Dv = 128, vs[21].trace = true, vs[21].persist = 2, vs[21].mask = MASK_CAUSAL;
    vs[22].D = vs[22].Dv = 128, vs[22].persist = 4, vs[22].mask = MASK_CAUSAL, vs[22].bshd = true;
    vs[23].D = vs[23].Dv = 128, vs[23].persist = 4, vs[23].mask = MASK_PADDING, vs[23].Hk = 2;
    vs[24].ksplit = 4, vs[24].Hq = 8, vs[24].Hk = 2, vs[24].Sq = 1, vs[24].Skv = 3000, vs[24].D = vs[24].Dv = 128,
    vs[24].dt = HIPDNN_DATA_BFLOAT16, vs[24].mask = MASK_CAUSAL_BR;
    vs[25].ksplit = 4, vs[25].Sq = 3, vs[25].D = 256, vs[25].Dv = 64, vs[25].paged = true, vs[25].dropout = true;
    const char *names[26] = {"bias", "alibi", "dropout", "sink_scale", "gqa_bshd", "paged", "d192_dv128",
                             "custom_dropout_dump", "dropout_dump_wgmma", "warp_specialized", "d256_causal",
                             "d192_paged_padding", "d256_dv64_dropout", "o_tma_causal", "o_tma_persist_d64",
                             "o_tma_persist_d192_dv128", "l2_ahead_causal_gqa", "l2_ahead_d64_padding",
                             "persist_d128_causal", "persist_one_q_d128_padding_gqa", "trace_d128",
                             "trace_persist_d128_causal", "dyn_d128_causal", "dyn_d128_padding_gqa",
                             "ksplit_gqa_split", "ksplit_d256_dv64_paged"};
    for (int i = 0; i < 26; i++)
        cr_expect_eq(emit_and_compile(&vs[i], names[i]), 2, "%s", names[i]);
}

/* Score modifiers on every main loop: mma.sync (sm_80; head dim 96 on sm_90; wgmma off), wgmma
 * at head dims 64 and 128 with two stages (sequential) and three (overlapped), and the
 * warp-specialized loop; bias, stats and Sq != Skv off the tile edges; with and without the
 * constant factors folded (jit.sdpa_mod_fold). */
Test(codegen_sdpa, score_modifier_variants_compile, .timeout = 900)
{
    if (!have_compiler())
        cr_skip_test("no run-time compiler (NVRTC) on this machine");
    struct { int64_t d; int mod, stages; bool mma_sync, ws, bias, fold; hipdnnDataType_t dt; } cases[] = {
        {64, 1, 2, false, false, false, true, HIPDNN_DATA_BFLOAT16},
        {128, 1, 3, false, false, true, true, HIPDNN_DATA_HALF},
        {96, 2, 0, false, false, false, false, HIPDNN_DATA_HALF},
        {128, 3, 2, false, true, true, true, HIPDNN_DATA_BFLOAT16},
        {64, 2, 3, false, false, false, true, HIPDNN_DATA_HALF},
        {128, 1, 0, true, false, false, true, HIPDNN_DATA_BFLOAT16},
        {128, 1, 3, false, false, false, false, HIPDNN_DATA_BFLOAT16},
    };
    int n = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        variant v = {.dt = cases[c].dt, .B = 2, .Hq = 4, .Hk = 2, .Sq = 77, .Skv = 133, .D = cases[c].d,
                     .Dv = cases[c].d, .stats = true, .bias = cases[c].bias, .mod = cases[c].mod,
                     .stages = cases[c].stages, .mma_sync = cases[c].mma_sync, .ws = cases[c].ws,
                     .mod_fold = cases[c].fold};
        char what[96];
        snprintf(what, sizeof what, "scoremod%d_d%lld_s%d%s%s%s", v.mod, (long long)v.D, v.stages,
                 v.ws ? "_ws" : "", v.mma_sync ? "_mma" : "", v.mod_fold ? "_fold" : "");
        n += emit_and_compile(&v, what);
    }
    cr_expect_eq(n, 14, "every score modifier variant compiles for sm_90 and sm_80");
}

/* A score modifier is the attention kernel's score hook in both partitions (fused and one op per
 * kernel), and nothing else takes it: a pointwise op reading O stays a kernel of its own. */
Test(codegen_sdpa, score_modifier_joins_only_its_attention_kernel)
{
    variant v = {.dt = HIPDNN_DATA_BFLOAT16, .B = 1, .Hq = 2, .Sq = 40, .Skv = 50, .D = 64, .Dv = 64, .mod = 1};
    ir_graph g;
    build(&g, &v);
    int sdpa = -1;
    for (int k = 0; k < g.n_ops; k++)
        sdpa = g.ops[k].kind == IR_OP_SDPA_FWD ? k : sdpa;
    ir_op relu = {.kind = IR_OP_POINTWISE, .n_in = 3, .n_out = 1, .in = {g.ops[sdpa].out[IR_SDPA_O], -1, -1},
                  .out = {add(&g, HIPDNN_DATA_BFLOAT16, 1, 2, 40, 64, false)}};
    relu.a.pw = (ir_pointwise){.mode = HIPDNN_POINTWISE_RELU_FWD, .relu_upper = 1e30};
    ir_add_op(&g, &relu);
    cr_assert_eq(ir_graph_seal(&g), HIPDNN_STATUS_SUCCESS);
    for (int fused = 0; fused < 2; fused++) {
        ir_partition p;
        cr_assert_eq(fused ? ir_fuse(&g, &p) : ir_split(&g, &p), HIPDNN_STATUS_SUCCESS);
        cr_expect_eq(p.n, 2, "%s: attention + the relu", fused ? "fused" : "unfused");
        for (int i = 0; i < p.n; i++) {
            int score = 0;
            for (int j = 0; j < p.k[i].n_ops; j++)
                score += p.k[i].part[j] == IR_PART_SCORE;
            bool attention = p.k[i].anchor >= 0 && g.ops[p.k[i].anchor].kind == IR_OP_SDPA_FWD;
            cr_expect_eq(score, attention ? 3 : 0, "kernel %d: %d modifier ops", i, score);
            cr_expect_eq(p.k[i].n_ops, attention ? 4 : 1);
        }
        ir_partition_free(&p);
    }
    ir_graph_free(&g);
}

/* The knobs set the tile shape; defaults depend on the head dim; what does not fit shrinks. */
Test(codegen_sdpa, knobs_set_the_tiles)
{
    variant v = {.dt = HIPDNN_DATA_BFLOAT16, .B = 1, .Hq = 2, .Sq = 512, .Skv = 512, .D = 128, .Dv = 128};
    ir_graph g;
    ir_partition p;
    build_fused(&g, &p, &v);
    cg_target t = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132};
    cg_kernel k;
    /* wgmma: 2 computing warpgroups + the TMA producer warpgroup taking turns, FlashAttention-3's
     * order, the K/V tensor maps, O through TMA stores, and the persistent grid (jit.sdpa_persist
     * 2): Q in two buffers, so three K stages and two V stages; Q's map and O's last; 4 work items
     * (pairs of the 4 row tiles of each of 2 heads) on 4 of the 132 multiprocessors */
    t.sdpa_persist = 2;
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_not_null(strstr(k.source, "#define HD_BM 128\n#define HD_BN 128\n#define HD_WARPS 12\n"
                                        "#define HD_STAGES 3\n#define HD_SM90 1\n#define HD_WS 2\n"));
    cr_expect_not_null(strstr(k.source, "#define HD_PINGPONG 1\n#define HD_INTRA 1\n#define HD_TMA_WG 1\n"
                                        "#define HD_KSTAGES 3\n#define HD_VSTAGES 2\n#define HD_KV_APART 1\n"));
    cr_expect_not_null(strstr(k.source, "#define HD_PERSIST 1\n#define HD_L2_HEADS 2\n"));
    cr_expect_not_null(strstr(k.source, "#define HD_O_TMA 1\n#define HD_L2_AHEAD 0\n#define HD_QBUF 2\n"));
    cr_expect_str_eq(k.arch, "sm_90a");
    cr_expect_eq(k.block[0], 384u);
    cr_expect_eq(k.grid[0], 4u);
    cr_expect_eq(k.grid[1] * k.grid[2], 1u);
    cr_expect_eq(k.smem, 1024u + 2 * 128 * 128 * 2 + (3 + 2) * 128 * 128 * 2 + (3 + 2) * 16 + 2 * 16);
    for (int a = 1; a <= 4; a++) { /* K, V, Q: 128-row boxes; O: 64 (one a warpgroup) */
        cr_expect_eq(k.args[k.n_args - a].kind, CG_ARG_TMAP);
        cr_expect_eq(k.args[k.n_args - a].map.rank, 4);
        cr_expect_eq(k.args[k.n_args - a].map.box[0], 64u);
        cr_expect_eq(k.args[k.n_args - a].map.box[2], a == 1 ? 64u : 128u);
    }
    cr_expect_eq(k.args[k.n_args - 1].tensor, g.ops[p.k[0].anchor].out[IR_SDPA_O]);
    cr_expect_eq(k.args[k.n_args - 2].tensor, g.ops[p.k[0].anchor].in[IR_SDPA_Q]);
    cg_kernel_free(&k);
    t.sdpa_persist = 3; /* Q in one buffer: the three K/V stages kept */
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_not_null(strstr(k.source, "#define HD_KSTAGES 3\n#define HD_VSTAGES 3\n#define HD_KV_APART 0\n"));
    cr_expect_not_null(strstr(k.source, "#define HD_QBUF 1\n"));
    cr_expect_eq(k.grid[0], 4u);
    cr_expect_eq(k.smem, 1024u + 128 * 128 * 2 + 3 * 128 * 256 * 2 + (3 + 3) * 16 + 16);
    cg_kernel_free(&k);
    t.sdpa_persist = 2;
    t.sdpa_o_tma = 1; /* every thread stores its O values: no O map, Q's last */
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_not_null(strstr(k.source, "#define HD_O_TMA 0\n"));
    cr_expect_eq(k.args[k.n_args - 1].tensor, g.ops[p.k[0].anchor].in[IR_SDPA_Q]);
    cg_kernel_free(&k);
    t.sdpa_o_tma = 0;
    t.sdpa_persist = 0, t.sdpa_ws = 2; /* by shape one block a work tile; the TMA producer a warp */
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_not_null(strstr(k.source, "#define HD_PERSIST 0\n"));
    cr_expect_not_null(strstr(k.source, "#define HD_WARPS 9\n"));
    cr_expect_not_null(strstr(k.source, "#define HD_PINGPONG 0\n#define HD_INTRA 0\n#define HD_TMA_WG 0\n"));
    cr_expect_eq(k.block[0], 288u);
    cr_expect_eq(k.grid[0], 4u);
    cr_expect_eq(k.grid[1], 2u);
    cr_expect_eq(k.args[k.n_args - 1].tensor, g.ops[p.k[0].anchor].in[IR_SDPA_V]);
    cg_kernel_free(&k);
    t.sdpa_ws = 3; /* the computing warps load: 2 warpgroups, 2 stages */
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_not_null(strstr(k.source, "#define HD_BM 128\n#define HD_BN 128\n#define HD_WARPS 8\n"
                                        "#define HD_STAGES 2\n#define HD_SM90 1\n#define HD_WS 0\n"));
    cr_expect_eq(k.block[0], 256u);
    cr_expect_eq(k.smem, 1024u + 128 * 128 * 2 + 2 * 128 * 256 * 2);
    cg_kernel_free(&k);
    t.sdpa_ws = 1; /* + a loading warpgroup: 12 warps, mbarriers after the stages */
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_not_null(strstr(k.source, "#define HD_WARPS 12\n#define HD_STAGES 2\n#define HD_SM90 1\n#define HD_WS 1\n"));
    cr_expect_eq(k.block[0], 384u);
    cr_expect_eq(k.smem, 1024u + 128 * 128 * 2 + 2 * 128 * 256 * 2 + (2 + 2) * 16 + 16);
    cg_kernel_free(&k);
    t.sdpa_ws = 0, t.sdpa_wgmma = -1; /* mma.sync: 4 warps of 32 rows, 64-key tiles */
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_not_null(strstr(k.source, "#define HD_BM 128\n#define HD_BN 64\n#define HD_WARPS 4\n"));
    cr_expect_str_eq(k.arch, "sm_90");
    cr_expect_eq(k.grid[0], 4u);
    cr_expect_eq(k.grid[1], 2u);
    cr_expect_eq(k.block[0], 128u);
    cg_kernel_free(&k);
    t.sdpa_block_m = 64, t.sdpa_block_n = 128, t.sdpa_warps = 8, t.sdpa_stages = 3, t.sdpa_wgmma = -1;
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_not_null(strstr(k.source, "#define HD_BM 64\n#define HD_BN 128\n#define HD_WARPS 4\n#define HD_STAGES 3\n"),
                       "64 rows take at most 4 warps");
    cr_expect_eq(k.grid[0], 8u);
    cg_kernel_free(&k);
    /* one computing warpgroup: two blocks an SM with the TMA producer, one with the cp.async
     * loaders (their setmaxnreg.inc would wait forever for the other block's registers) */
    t = (cg_target){.platform = "nvidia", .arch = "sm_90", .sm_count = 132, .sdpa_block_m = 64, .sdpa_block_n = 64};
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_not_null(strstr(k.source, "#define HD_WS 2\n"));
    cr_expect_not_null(strstr(k.source, "#define HD_MIN_BLOCKS 2\n"));
    cg_kernel_free(&k);
    t.sdpa_ws = 1;
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_not_null(strstr(k.source, "#define HD_WS 1\n"));
    cr_expect_not_null(strstr(k.source, "#define HD_MIN_BLOCKS 1\n"));
    cg_kernel_free(&k);
    ir_partition_free(&p);
    ir_graph_free(&g);
}

/* The source variant v gets on sm_90 with every knob at its default (the caller frees it). */
/* The source of v's kernel for sm_90 (132 multiprocessors) with jit.sdpa_persist `persist`
 * (0: by shape); *last_counter: whether its last parameter is the work-tile counter. */
static char *source_on(const variant *v, int sm_count, int persist, bool *last_counter)
{
    ir_graph g;
    ir_partition p;
    build_fused(&g, &p, v);
    cg_target t = {.platform = "nvidia", .arch = "sm_90", .sm_count = sm_count, .sdpa_persist = persist};
    cg_kernel k;
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    char *src = strdup(k.source);
    if (last_counter != NULL)
        *last_counter = k.n_args > 0 && k.args[k.n_args - 1].kind == CG_ARG_COUNTER;
    cg_kernel_free(&k);
    ir_partition_free(&p);
    ir_graph_free(&g);
    return src;
}

static char *source_with(const variant *v, int persist, bool *last_counter)
{
    return source_on(v, 132, persist, last_counter);
}

static char *default_source(const variant *v) { return source_with(v, 0, NULL); }

/* The persistent grid: by shape (knob 0) behind the producer warpgroup on a known device
 * (bench/NOTES.md #29), Q in one buffer: at head dim 128 the dynamic scheduler under a causal mask
 * (its counter the last parameter) and the static walk without one (padding included); at 64
 * (from 2048 rows), 192 and 256 under a causal mask only, dynamic with FA3's schedule (64, 192),
 * static with the producer warpgroup alone (256), and up to 8k keys (from 16k under a causal mask one
 * block a work tile); never with 64-row tiles (64 below 2048 rows),
 * the device unknown (hipdnn-cache warm without --sm-count) or knob 1; knob 4 takes the dynamic
 * scheduler and knob 3 the static walk whatever the mask. */
Test(codegen_sdpa, persistent_grid_by_shape_and_knob)
{
    struct { int64_t s, d; int mask, knob, sms; bool persist, dyn; } cases[] = {
        {1024, 128, MASK_NONE, 4, 132, true, true},    {1024, 128, MASK_CAUSAL, 4, 132, true, true},
        {700, 128, MASK_PADDING, 4, 132, true, true},  {1024, 128, MASK_NONE, 0, 132, true, false},
        {4096, 128, MASK_CAUSAL, 0, 132, true, true},  {2048, 128, MASK_PADDING, 0, 132, true, false},
        {1024, 128, MASK_CAUSAL, 3, 132, true, false}, {1024, 128, MASK_NONE, 1, 132, false, false},
        {2048, 64, MASK_NONE, 0, 132, false, false},   {2048, 64, MASK_CAUSAL, 0, 132, true, true},
        {1024, 64, MASK_CAUSAL, 0, 132, false, false}, {4096, 192, MASK_CAUSAL, 0, 132, true, true},
        {4096, 192, MASK_NONE, 0, 132, false, false},  {4096, 256, MASK_CAUSAL, 0, 132, true, false},
        {4096, 256, MASK_NONE, 0, 132, false, false},  {1024, 128, MASK_NONE, 0, 0, false, false},
        {1024, 128, MASK_CAUSAL, 0, 0, false, false},  {16384, 128, MASK_CAUSAL, 0, 132, false, false},
        {16384, 128, MASK_NONE, 0, 132, true, false}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        variant v = {.dt = HIPDNN_DATA_BFLOAT16, .B = 16, .Hq = 16, .Sq = cases[c].s, .Skv = cases[c].s,
                     .D = cases[c].d, .Dv = cases[c].d, .mask = cases[c].mask};
        bool counter = false;
        char *src = source_on(&v, cases[c].sms, cases[c].knob, &counter);
        bool persist = strstr(src, "#define HD_PERSIST 1\n") != NULL;
        bool dyn = persist && strstr(src, "#define HD_DYN 1\n") != NULL;
        cr_expect_eq(persist, cases[c].persist, "case %zu: S %lld D %lld mask %d knob %d", c, (long long)v.Sq,
                     (long long)v.D, cases[c].mask, cases[c].knob);
        cr_expect_eq(dyn, cases[c].dyn, "case %zu: the dynamic scheduler", c);
        cr_expect_eq(counter, cases[c].dyn, "case %zu: the counter parameter", c);
        if (persist) /* Q in one buffer: its buffer's barriers only */
            cr_expect_not_null(strstr(src, "#define HD_QBUF 1\n"), "case %zu", c);
        free(src);
    }
}

/* Head dims on the prefill path: 64 with one warpgroup of 64 rows (two blocks an SM) below 2048
 * query rows and the FA3 schedule's 128 x 128 tiles from there; 192 and 256 as two 64-row
 * warpgroups behind the TMA producer warpgroup, FlashAttention-3's order and turns at 192, the
 * producer warpgroup alone at 256 (bench/NOTES.md #13, #21: at 256 O's 128 registers leave no
 * room for the overlap's second tile); with the FA3 schedule O leaves by TMA and the next wave's
 * first tiles are prefetched into L2. */
Test(codegen_sdpa, head_dims_pick_their_schedule)
{
    struct { int64_t d, sq; const char *tiles, *sched; } cases[] = {
        {64, 1024, "#define HD_BM 64\n#define HD_BN 64\n#define HD_WARPS 5\n",
         "#define HD_PINGPONG 0\n#define HD_INTRA 0\n#define HD_TMA_WG 0\n"},
        {64, 2048, "#define HD_BM 128\n#define HD_BN 128\n#define HD_WARPS 12\n",
         "#define HD_PINGPONG 1\n#define HD_INTRA 1\n#define HD_TMA_WG 1\n"},
        {192, 4096, "#define HD_BM 128\n#define HD_BN 64\n#define HD_WARPS 12\n",
         "#define HD_PINGPONG 1\n#define HD_INTRA 1\n#define HD_TMA_WG 1\n"},
        {256, 4096, "#define HD_BM 128\n#define HD_BN 64\n#define HD_WARPS 12\n",
         "#define HD_PINGPONG 0\n#define HD_INTRA 0\n#define HD_TMA_WG 1\n"}};
    for (int c = 0; c < 4; c++) {
        variant v = {.dt = HIPDNN_DATA_BFLOAT16, .B = 2, .Hq = 16, .Sq = cases[c].sq, .Skv = cases[c].sq,
                     .D = cases[c].d, .Dv = cases[c].d};
        char *src = default_source(&v);
        cr_expect_not_null(strstr(src, cases[c].tiles), "D %lld Sq %lld: %s", (long long)v.D, (long long)v.Sq,
                           cases[c].tiles);
        cr_expect_not_null(strstr(src, cases[c].sched), "D %lld Sq %lld: %s", (long long)v.D, (long long)v.Sq,
                           cases[c].sched);
        /* with the FA3 schedule, O through TMA and the L2 prefetch one wave (132 blocks) ahead */
        bool fa3 = strstr(cases[c].sched, "#define HD_PINGPONG 1") != NULL;
        cr_expect_eq(strstr(src, "#define HD_O_TMA 1\n#define HD_L2_AHEAD 132\n") != NULL, fa3, "D %lld Sq %lld",
                     (long long)v.D, (long long)v.Sq);
        free(src);
    }
}

/* Short queries take the decode path: the query heads of a K/V head packed into one block's
 * rows (HD_PACK), the keys split across blocks (HD_SPLIT) and merged by a combine launch whose
 * scratch the workspace query (cg_scratch_bytes) gives exactly; the knobs turn packing off and
 * set the split count within the scratch's room; long queries keep the prefill kernel. On the
 * 64-row tiles (jit.sdpa_ksplit 1; the warps splitting the keys: the next test). */
Test(codegen_sdpa, decode_packs_gqa_heads_and_splits_keys)
{
    variant v = {.dt = HIPDNN_DATA_BFLOAT16, .B = 1, .Hq = 32, .Hk = 8, .Sq = 1, .Skv = 32768, .D = 128,
                 .Dv = 128, .stats = true, .mask = MASK_CAUSAL_BR};
    ir_graph g;
    ir_partition p;
    build_fused(&g, &p, &v);
    cg_target t = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132, .sdpa_ksplit = 1};
    cg_kernel k;
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    /* 8 blocks of packed rows (one per K/V head), 3 stages: two blocks an SM, 132 SMs: 33 splits
     * (one full wave); the shape alone asks 264 blocks (33 splits too), room for 66 */
    cr_expect_not_null(strstr(k.source, "#define HD_BM 64\n#define HD_BN 64\n#define HD_WARPS 4\n#define HD_STAGES 3\n"
                                        "#define HD_SM90 1\n#define HD_WS 0\n#define HD_OVERLAP 0\n#define HD_PACK 4\n"
                                        "#define HD_SPLIT 33\n"), "%s", k.source);
    cr_expect_eq(k.grid[0], 33u);
    cr_expect_eq(k.grid[1], 8u);
    cr_expect_eq(k.n_then, 1);
    cr_expect_str_eq(k.then[0].entry, "hd_sdpa_combine_kernel");
    cr_expect(k.then[0].dependent, "the combine starts under the splits' tail (rt_launch_dependent)");
    cr_expect_eq(k.then[0].grid[0], 32u, "one block per (b, h, i) row: 32 rows");
    cr_expect_eq(k.scratch, (int64_t)32 * 66 * 130 * 4);
    cr_expect_eq(cg_scratch_bytes(&g, &p.k[0]), k.scratch);
    cr_expect_eq(k.args[k.n_args - 1].kind, CG_ARG_WORKSPACE);
    cg_kernel_free(&k);
    t.sdpa_splits = 128, t.sdpa_pack = 1; /* at most the scratch's room; one head a block */
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_not_null(strstr(k.source, "#define HD_PACK 1\n#define HD_SPLIT 66\n"));
    cr_expect_eq(k.grid[0], 66u);
    cr_expect_eq(k.grid[1], 32u);
    cg_kernel_free(&k);
    t.sdpa_splits = 0, t.sm_count = 66; /* half the multiprocessors: half the splits */
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_not_null(strstr(k.source, "#define HD_PACK 1\n#define HD_SPLIT 4\n"), "66 x 2 / 32 heads");
    cg_kernel_free(&k);
    t.sdpa_splits = 1; /* no split: no combine, no workspace argument */
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_not_null(strstr(k.source, "#define HD_SPLIT 1\n"));
    cr_expect_eq(k.n_then, 0);
    cr_expect_eq(k.scratch, 0);
    cr_expect_neq(k.args[k.n_args - 1].kind, CG_ARG_WORKSPACE);
    cg_kernel_free(&k);
    ir_partition_free(&p);
    ir_graph_free(&g);
    v.Sq = 512; /* prefill: neither */
    build_fused(&g, &p, &v);
    t = (cg_target){.platform = "nvidia", .arch = "sm_90", .sm_count = 132, .sdpa_ksplit = 1};
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_not_null(strstr(k.source, "#define HD_PACK 1\n#define HD_SPLIT 1\n"));
    cr_expect_eq(cg_scratch_bytes(&g, &p.k[0]), 0);
    cg_kernel_free(&k);
    ir_partition_free(&p);
    ir_graph_free(&g);
}

/* jit.sdpa_ksplit 4: decode blocks of at most 16 packed rows take one 16-row tile that the four
 * warps share, splitting each tile's keys, on the mma.sync loop with 64-key tiles (128 with
 * jit.sdpa_block_n), three stages; the split across blocks fills one wave of one block an SM (8
 * blocks of packed rows: 16 splits); 64 packed rows (Sq 16 with GQA 32:8), prefill and knob 1
 * keep the 64-row tiles. By shape (knob 0) wherever it fits at head dims up to 128, unless a knob
 * asks for another block (the TMA producer); paged K/V with the page-table loads a tile ahead
 * (HD_KV_AHEAD) and two blocks an SM (33 splits). */
Test(codegen_sdpa, decode_warps_split_keys_by_knob)
{
    struct { int64_t sq; int knob, bn, ws; bool paged, ksplit; } cases[] = {
        {1, 4, 0, 0, false, true},  {4, 4, 128, 0, false, true}, {16, 4, 0, 0, false, false},
        {1, 1, 0, 0, false, false}, {1, 0, 0, 0, false, true},   {4, 0, 0, 0, false, true},
        {1, 0, 0, 0, true, true},   {512, 4, 0, 0, false, false}, {2, 4, 0, 0, true, true},
        {1, 0, 0, 2, true, false},  {16, 0, 0, 0, false, false}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        variant v = {.dt = HIPDNN_DATA_BFLOAT16, .B = 1, .Hq = 32, .Hk = 8, .Sq = cases[c].sq, .Skv = 32768,
                     .D = 128, .Dv = 128, .stats = true, .mask = MASK_CAUSAL_BR, .paged = cases[c].paged};
        ir_graph g;
        ir_partition p;
        build_fused(&g, &p, &v);
        cg_target t = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132, .sdpa_ksplit = cases[c].knob,
                       .sdpa_block_n = cases[c].bn, .sdpa_ws = cases[c].ws};
        cg_kernel k;
        cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
        bool ks = strstr(k.source, "#define HD_KSPLIT 4\n") != NULL;
        cr_expect_eq(ks, cases[c].ksplit, "case %zu: Sq %lld knob %d", c, (long long)v.Sq, cases[c].knob);
        if (ks) {
            char tiles[256];
            /* 132 multiprocessors / 8 blocks of packed rows; paged: two blocks an SM */
            const unsigned splits = cases[c].paged ? 33 : 16;
            snprintf(tiles, sizeof tiles, "#define HD_BM 16\n#define HD_BN %d\n#define HD_WARPS 4\n#define HD_STAGES 3\n"
                     "#define HD_SM90 0\n#define HD_WS 0\n#define HD_OVERLAP 0\n#define HD_PACK 4\n#define HD_SPLIT %u\n",
                     cases[c].bn ? cases[c].bn : 64, splits);
            cr_expect_not_null(strstr(k.source, tiles), "case %zu: %s", c, tiles);
            cr_expect_eq(k.grid[0], splits, "case %zu", c);
            cr_expect_eq(k.grid[1], 8u, "case %zu", c);
            cr_expect_eq(k.block[0], 128u, "case %zu", c);
            cr_expect_not_null(strstr(k.source, "__launch_bounds__(HD_THREADS, HD_MIN_BLOCKS)"));
            cr_expect_not_null(strstr(k.source, "#define HD_MIN_BLOCKS 2\n"), "case %zu: two blocks an SM", c);
            bool ahead = strstr(k.source, "#define HD_KV_AHEAD 1\n") != NULL;
            cr_expect_eq(ahead, cases[c].paged, "case %zu: the page entries a tile ahead", c);
        }
        cg_kernel_free(&k);
        ir_partition_free(&p);
        ir_graph_free(&g);
    }
}

/* jit.sdpa_l2_ahead: the knob's 2 puts the next wave's prefetch on the one-warp TMA producer with
 * 64-row tiles and at head dim 64, 1 takes it off the FlashAttention-3 schedule that has it by
 * default (head dim 128), all one block a work tile (jit.sdpa_persist 1): the cases of the GPU
 * test gpu_sdpa/l2_prefetch_and_trace. */
Test(codegen_sdpa, l2_prefetch_by_knob)
{
    struct { int64_t d, dv; int l2, ws; bool want; } cases[] = {
        {128, 128, 2, 2, true}, {128, 128, 1, 0, false}, {64, 64, 2, 0, true}, {128, 128, 0, 0, true}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        variant v = {.dt = HIPDNN_DATA_BFLOAT16, .B = 2, .Hq = 40, .Hk = 10, .Sq = 300, .Skv = 400, .D = cases[c].d,
                     .Dv = cases[c].dv, .stats = true};
        ir_graph g;
        ir_partition p;
        build_fused(&g, &p, &v);
        cg_target t = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132, .sdpa_l2_ahead = cases[c].l2,
                       .sdpa_ws = cases[c].ws, .sdpa_persist = 1};
        cg_kernel k;
        cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
        const char *l2 = strstr(k.source, "#define HD_L2_AHEAD "); /* the emitted value precedes the template's */
        cr_assert_not_null(l2);
        long blocks = strtol(l2 + strlen("#define HD_L2_AHEAD "), NULL, 10);
        cr_expect_eq(blocks > 0, cases[c].want, "case %zu: D %lld knob %d ws %d: %ld blocks ahead", c,
                     (long long)cases[c].d, cases[c].l2, cases[c].ws, blocks);
        cg_kernel_free(&k);
        ir_partition_free(&p);
        ir_graph_free(&g);
    }
}

/* jit.sdpa_page_tile: threads' copies of paged K/V take one page-table entry a tile where pages
 * hold whole tiles (64-token pages, 64-key tiles: the decode blocks whose warps split the keys),
 * by shape and with knob 2; not with 16-token pages, not with knob 1, not on the TMA producer (its
 * boxes read the table themselves). jit.sdpa_kv_ahead deepens the entries' lead with one entry a
 * tile only (a tile by default). The 64-token case compiles for sm_90 and sm_80 with the entries in
 * shared memory (by shape) and 4 tiles ahead (jit.sdpa_page_smem 1). */
Test(codegen_sdpa, paged_copies_one_entry_a_tile)
{
    struct { int64_t bs; int knob, ws, ahead; bool want; int want_ahead; } cases[] = {
        {64, 2, 0, 0, true, 1},  {16, 2, 0, 3, false, 1}, {64, 0, 0, 0, true, 1}, {64, 1, 0, 3, false, 1},
        {64, 2, 2, 0, false, 0}, {128, 2, 0, 0, true, 1}, {64, 0, 0, 3, true, 3}, {128, 0, 0, 4, true, 4}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        variant v = {.dt = HIPDNN_DATA_BFLOAT16, .B = 2, .Hq = 32, .Hk = 8, .Sq = 1, .Skv = 4096, .D = 128,
                     .Dv = 128, .mask = MASK_PADDING, .paged = true, .bs = (int)cases[c].bs};
        ir_graph g;
        ir_partition p;
        build_fused(&g, &p, &v);
        cg_target t = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132, .sdpa_page_tile = cases[c].knob,
                       .sdpa_ws = cases[c].ws, .sdpa_kv_ahead = cases[c].ahead};
        cg_kernel k;
        cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
        cr_expect_eq(strstr(k.source, "#define HD_TILE_PAGE 1\n") != NULL, cases[c].want,
                     "case %zu: pages of %lld, knob %d, ws %d", c, (long long)cases[c].bs, cases[c].knob, cases[c].ws);
        /* the emitted define comes before the template's default (#ifndef ... 0) */
        const char *ahead = strstr(k.source, "#define HD_KV_AHEAD ");
        cr_assert(ahead != NULL, "case %zu", c);
        cr_expect_eq(atoi(ahead + strlen("#define HD_KV_AHEAD ")), cases[c].want_ahead, "case %zu: tiles ahead", c);
        cg_kernel_free(&k);
        ir_partition_free(&p);
        ir_graph_free(&g);
    }
    if (!have_compiler())
        cr_skip_test("no run-time compiler (NVRTC) on this machine");
    variant v = {.dt = HIPDNN_DATA_HALF, .B = 2, .Hq = 32, .Hk = 8, .Sq = 2, .Skv = 4000, .D = 128, .Dv = 128,
                 .stats = true, .mask = MASK_PADDING, .paged = true, .bs = 64, .page_tile = true, .kv_ahead = 4};
    cr_expect_eq(emit_and_compile(&v, "paged_one_entry_a_tile"), 2); /* the entries in shared memory */
    v.page_smem = 1;
    cr_expect_eq(emit_and_compile(&v, "paged_entries_ahead"), 2);
}

/* jit.sdpa_page_smem: with one page entry a tile on the sequential loop, the block's entries go to
 * shared memory at its start (HD_PT_TILES: the most tiles a block walks, at most 512) and the
 * paged decode blocks then fill one wave of one block an SM, as dense ones do; knob 1 keeps the
 * entries loaded a tile ahead with two blocks an SM; where one block an SM would walk more than 512
 * tiles (1M keys), two blocks an SM with their entries in shared memory; 16-token pages (no entry
 * a tile) and the TMA producer never take it. */
Test(codegen_sdpa, paged_entries_in_shared_memory)
{
    struct { int64_t B, Skv, bs; int knob, ws; int want_tiles; unsigned want_split; } cases[] = {
        {16, 8192, 64, 0, 0, 128, 1},   {16, 8192, 64, 2, 0, 128, 1},  {16, 8192, 64, 1, 0, 0, 2},
        {1, 131072, 64, 0, 0, 128, 16}, {4, 32768, 128, 0, 0, 128, 4}, {1, 1 << 20, 64, 0, 0, 497, 33},
        {16, 8192, 16, 0, 0, 0, 2},     {16, 8192, 64, 0, 2, 0, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        variant v = {.dt = HIPDNN_DATA_BFLOAT16, .B = cases[c].B, .Hq = 32, .Hk = 8, .Sq = 1, .Skv = cases[c].Skv,
                     .D = 128, .Dv = 128, .mask = MASK_PADDING, .paged = true, .bs = (int)cases[c].bs};
        ir_graph g;
        ir_partition p;
        build_fused(&g, &p, &v);
        cg_target t = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132, .sdpa_page_smem = cases[c].knob,
                       .sdpa_ws = cases[c].ws};
        cg_kernel k;
        cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS, "case %zu", c);
        const char *pt = strstr(k.source, "#define HD_PT_TILES ");
        cr_assert(pt != NULL, "case %zu", c);
        cr_expect_eq(atoi(pt + strlen("#define HD_PT_TILES ")), cases[c].want_tiles, "case %zu: tiles in shared memory", c);
        if (cases[c].want_split)
            cr_expect_eq(k.grid[0], cases[c].want_split, "case %zu: splits", c);
        cg_kernel_free(&k);
        ir_partition_free(&p);
        ir_graph_free(&g);
    }
}

/* The decode variants compile for sm_90 (wgmma) and sm_80: Sq 1 and 16 with GQA 32:8, paged K/V,
 * a sink and padding, a score modifier, MQA with Dv != D, fp16 on mma.sync, knob-set stages; and
 * the loaders: the TMA producer (dense, paged, prefill with padding and a modifier), the two
 * computing warpgroups taking turns (jit.sdpa_pingpong) and FlashAttention-3's order (jit.sdpa_intra),
 * alone and together, behind cp.async loaders and TMA; softcap with half its exponentials by
 * polynomial (jit.sdpa_sw_exp); softcap's constants folded (jit.sdpa_mod_fold) on the decode
 * blocks and the producer warpgroup. */
Test(codegen_sdpa, decode_variants_compile, .timeout = 900)
{
    if (!have_compiler())
        cr_skip_test("no run-time compiler (NVRTC) on this machine");
    variant base = {.dt = HIPDNN_DATA_BFLOAT16, .B = 2, .Hq = 32, .Hk = 8, .Sq = 1, .Skv = 5000, .D = 128,
                    .Dv = 128, .stats = true, .mask = MASK_CAUSAL_BR};
    variant vs[16];
    for (int i = 0; i < 16; i++)
        vs[i] = base;
    vs[1].Sq = 16, vs[1].bshd = true;
    vs[2].paged = true;
    vs[3].sink = true, vs[3].mask = MASK_PADDING;
    vs[4].mod = 1, vs[4].Sq = 4, vs[4].mod_fold = true; /* the warps' key split, constants folded */
    vs[5].Hk = 1, vs[5].D = 64, vs[5].Dv = 128, vs[5].dt = HIPDNN_DATA_HALF, vs[5].mma_sync = true, vs[5].stages = 3;
    vs[6].ws = 2, vs[6].bshd = true;                 /* the TMA producer: dense, paged, prefill */
    vs[7].ws = 2, vs[7].paged = true, vs[7].Sq = 16;
    vs[8].ws = 1, vs[8].Sq = 300, vs[8].mask = MASK_CAUSAL, vs[8].pingpong = 2;
    vs[9].ws = 2, vs[9].Sq = 257, vs[9].mask = MASK_PADDING, vs[9].mod = 2, vs[9].pingpong = 2;
    vs[10].ws = 2, vs[10].Sq = 300, vs[10].mask = MASK_CAUSAL, vs[10].intra = 2, vs[10].bn = 64;
    vs[11].ws = 1, vs[11].Sq = 129, vs[11].mask = MASK_PADDING, vs[11].intra = 2, vs[11].bn = 64, vs[11].stages = 3;
    vs[12].ws = 4, vs[12].Sq = 300, vs[12].dropout = true;             /* the producer warpgroup */
    vs[13].ws = 4, vs[13].Sq = 300, vs[13].mask = MASK_CAUSAL, vs[13].intra = 2;
    vs[14].ws = 4, vs[14].Sq = 300, vs[14].mask = MASK_PADDING, vs[14].intra = 2, vs[14].pingpong = 2;
    vs[15] = base, vs[15].ws = 4, vs[15].Sq = 300, vs[15].mask = MASK_NONE, vs[15].mod = 1, vs[15].sw_exp = true,
    vs[15].mod_fold = true;
    const char *names[16] = {"decode_sq1", "decode_sq16_bshd", "decode_paged", "decode_sink_padding",
                             "decode_softcap_fold", "decode_mqa_f16_mma", "tma_decode", "tma_paged",
                             "loader_prefill_causal_pingpong", "tma_prefill_padding_mod_pingpong",
                             "tma_prefill_causal_intra", "loader_prefill_padding_intra", "tmawg_prefill_dropout",
                             "tmawg_prefill_causal_intra", "tmawg_prefill_padding_intra_pingpong",
                             "tmawg_softcap_fold_poly_exp2"};
    for (int i = 0; i < 16; i++)
        cr_expect_eq(emit_and_compile(&vs[i], names[i]), 2, "%s", names[i]);
}

static void expect_refused(const variant *v, const char *what, const char *reason)
{
    ir_graph g;
    ir_partition p;
    build_fused(&g, &p, v);
    char why[256] = "";
    cr_expect(!cg_supports(&g, &p.k[0], why, sizeof why), "%s is refused", what);
    cr_expect_not_null(strstr(why, reason), "%s: %s", what, why);
    ir_partition_free(&p);
    ir_graph_free(&g);
}

/* What FP8 attention's kernel refuses, one change of a variant each. */
static void fp8_d96(variant *v) { v->D = v->Dv = 96; }
static void fp8_dv128(variant *v) { v->Dv = 128; }
static void fp8_paged(variant *v) { v->paged = true; }
static void fp8_dropout(variant *v) { v->dropout = true; }
static void fp8_dmask(variant *v) { v->dmask = true; }
static void fp8_bias(variant *v) { v->bias = true; }
static void fp8_alibi(variant *v) { v->alibi = true; }
static void fp8_sink(variant *v) { v->sink = true; }
static void fp8_dump(variant *v) { v->rng_dump = true; }
static void fp8_mod(variant *v) { v->mod = 1; }

Test(codegen_sdpa, unsupported_cases_say_why)
{
    variant v = {.dt = HIPDNN_DATA_BFLOAT16, .B = 1, .Hq = 2, .Sq = 64, .Skv = 64, .D = 64, .Dv = 64};
    variant a = v;
    a.D = 260, a.Dv = 260;
    expect_refused(&a, "head dim 260", "multiples of 8");
    a = v, a.dt = HIPDNN_DATA_FLOAT;
    expect_refused(&a, "fp32", "bf16 or all fp16");
    a = v, a.dmask = true, a.dropout = true;
    expect_refused(&a, "Philox and custom dropout", "exclusive");
    a = v, a.mod = 4, a.Skv = 65; /* a [1,1,1,Skv] tensor in memory read per score: taken */
    ir_graph gm;
    ir_partition pm;
    build_fused(&gm, &pm, &a);
    char whym[256] = "";
    cr_expect(cg_supports(&gm, &pm.k[0], whym, sizeof whym), "a [1,1,1,Skv] modifier operand: %s", whym);
    ir_partition_free(&pm);
    ir_graph_free(&gm);
    a = v, a.fp8 = true; /* bf16 operands with the FP8 factors: still FP8 attention's semantics */
    expect_refused(&a, "bf16 with FP8 factors", "the reference engine runs it");
    /* FP8 attention (sdpa_fwd_fp8.hip) refuses what its kernel does not do, each with its reason */
    variant f = v;
    f.dt = HIPDNN_DATA_FP8_E4M3, f.fp8 = true;
    struct { void (*set)(variant *); const char *what, *reason; } no[] = {
        {fp8_d96, "FP8 head dim 96", "head dims 64, 128 or 256"},
        {fp8_dv128, "FP8 Dv != D", "head dims 64, 128 or 256"},
        {fp8_paged, "FP8 paged K/V", "FP8 attention with paged K/V"},
        {fp8_dropout, "FP8 dropout", "FP8 attention with dropout"},
        {fp8_dmask, "FP8 custom dropout", "FP8 attention with dropout"},
        {fp8_bias, "FP8 bias", "FP8 attention with a bias or ALiBi"},
        {fp8_alibi, "FP8 ALiBi", "FP8 attention with a bias or ALiBi"},
        {fp8_sink, "FP8 sink", "FP8 attention with an attention sink"},
        {fp8_dump, "FP8 RNG_DUMP", "RNG_DUMP has no kernel template"},
        {fp8_mod, "FP8 score modifier", "FP8 attention with a score modifier"},
    };
    for (size_t n = 0; n < sizeof no / sizeof no[0]; n++) {
        a = f;
        no[n].set(&a);
        expect_refused(&a, no[n].what, no[n].reason);
    }
    a = f, a.bshd = true, a.Hq = 3; /* BSHD rows: strides of 3·64 elements are multiples of 16; Hq 3 still fine */
    ir_graph g0;
    ir_partition p0;
    build_fused(&g0, &p0, &a);
    char why0[256] = "";
    cr_expect(cg_supports(&g0, &p0.k[0], why0, sizeof why0), "FP8 BSHD: %s", why0);
    cg_target sm80 = {.platform = "nvidia", .arch = "sm_80", .sm_count = 108};
    cr_expect(!cg_supports_on(&g0, &p0.k[0], &sm80, why0, sizeof why0), "FP8 attention on sm_80 is refused");
    cr_expect_not_null(strstr(why0, "wgmma (sm_90)"), "%s", why0);
    ir_partition_free(&p0);
    ir_graph_free(&g0);
    a = v, a.Hq = 3, a.Hk = 2;
    ir_graph g; /* Hq not a multiple of Hk: the reference says BAD_PARAM; the template refuses */
    build(&g, &a);
    ir_partition p;
    cr_assert_eq(ir_fuse(&g, &p), HIPDNN_STATUS_SUCCESS);
    char why[256] = "";
    cr_expect(!cg_supports(&g, &p.k[0], why, sizeof why));
    ir_partition_free(&p);
    ir_graph_free(&g);
    cg_target amd = {.platform = "amd", .arch = "gfx942", .sm_count = 304};
    build_fused(&g, &p, &v);
    cr_expect(!cg_supports_on(&g, &p.k[0], &amd, why, sizeof why));
    cr_expect_not_null(strstr(why, "sm_80"), "%s", why);
    ir_partition_free(&p);
    ir_graph_free(&g);
}

/* FP8 attention (sdpa_fwd_fp8.hip, cg_sdpa_fp8.c) on sm_90: emitted deterministically for sm_90a,
 * one block of 256 threads a 128-row tile, the counter parameter last exactly when an amax output
 * is asked for, and it compiles with NVRTC: head dims 64, 128 and 256, E4M3 and E5M2, O in E4M3,
 * bf16, fp16 and float, each mask kind, GQA, BSHD, Stats, a scale tensor. */
Test(codegen_sdpa, fp8_variants_compile, .timeout = 900)
{
    struct { int64_t d; hipdnnDataType_t dt, o; mask_kind mask; bool amax, stats, gqa, bshd, scale; } cases[] = {
        {128, HIPDNN_DATA_FP8_E4M3, HIPDNN_DATA_FP8_E4M3, MASK_NONE, true, true, false, false, false},
        {128, HIPDNN_DATA_FP8_E4M3, HIPDNN_DATA_BFLOAT16, MASK_CAUSAL, false, false, true, true, false},
        {64, HIPDNN_DATA_FP8_E4M3, HIPDNN_DATA_HALF, MASK_CAUSAL_BR, true, false, false, false, true},
        {256, HIPDNN_DATA_FP8_E4M3, HIPDNN_DATA_FP8_E4M3, MASK_PADDING, true, true, true, false, false},
        {128, HIPDNN_DATA_FP8_E5M2, HIPDNN_DATA_FLOAT, MASK_WINDOW, false, true, false, true, false},
        {64, HIPDNN_DATA_FP8_E5M2, HIPDNN_DATA_FP8_E5M2, MASK_PADDING, true, false, true, false, false},
    };
    const char *dts[] = {"e4m3", "e5m2"};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        variant v = {.dt = cases[c].dt, .o_set = true, .o_dt = cases[c].o, .B = 2, .Hq = 4, .Hk = cases[c].gqa ? 2 : 0,
                     .Sq = 300, .Skv = 517, .D = cases[c].d, .Dv = cases[c].d, .mask = cases[c].mask,
                     .stats = cases[c].stats, .bshd = cases[c].bshd, .scale_tensor = cases[c].scale, .fp8 = true,
                     .amax = cases[c].amax};
        char what[96];
        snprintf(what, sizeof what, "fp8_d%lld_%s_%s%s", (long long)v.D, dts[v.dt == HIPDNN_DATA_FP8_E5M2],
                 mask_names[v.mask], v.amax ? "_amax" : "");
        ir_graph g;
        build(&g, &v);
        ir_partition p;
        one_supported_kernel(&g, &p, what);
        cg_target t = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132};
        cg_kernel k;
        emit_twice(&g, &p.k[0], &t, &k, what);
        cr_expect_str_eq(k.entry, "hd_sdpa_fp8_kernel", "%s", what);
        cr_expect_str_eq(k.arch, "sm_90a", "%s", what);
        cr_expect(strstr(k.source, "template sdpa_fwd_fp8.hip") != NULL, "%s", what);
        cr_expect(k.block[0] == 256 && k.grid[0] == 3 && k.grid[1] == 4 && k.grid[2] == 2, "%s: the grid", what);
        cr_expect(k.smem > 0 && k.smem <= 227u * 1024u, "%s: %u bytes of shared memory", what, k.smem);
        bool counter = k.n_args > 0 && k.args[k.n_args - 1].kind == CG_ARG_COUNTER;
        cr_expect_eq(counter, v.amax, "%s: the counter parameter", what);
        cr_expect_eq(strstr(k.source, "#define HD_AMAX 1\n") != NULL, v.amax, "%s: HD_AMAX", what);
        cr_expect_eq(strstr(k.source, "HD_DEVICE void hd_amax_store(") != NULL, v.amax, "%s: amax hook", what);
        cr_expect_eq(cg_scratch_bytes(&g, &p.k[0]), 0, "%s: no scratch", what);
        if (have_compiler())
            cr_expect(compile_emitted(&k, what), "%s compiles for sm_90a", what);
        cg_kernel_free(&k);
        ir_partition_free(&p);
        ir_graph_free(&g);
    }
}

/* A decode-class shape (Sq <= 64) with the knobs' 128 x 128 wgmma tiles of two warpgroups: one
 * block an SM (two would cap a thread at 128 registers, where ptxas fails to allocate the
 * tile: gpu_sdpa/knobs_every_tile_shape found it), and it compiles. */
Test(codegen_sdpa, decode_with_wide_tiles_compiles, .timeout = 300)
{
    variant v = {.dt = HIPDNN_DATA_BFLOAT16, .B = 2, .Hq = 8, .Hk = 4, .Sq = 40, .Skv = 300, .D = 128, .Dv = 128,
                 .stats = true, .bshd = true, .mask = MASK_PADDING};
    ir_graph g;
    build(&g, &v);
    ir_partition p;
    one_supported_kernel(&g, &p, "decode_wide_tiles");
    cg_target t = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132, .sdpa_ws = 3, .sdpa_stages = 3,
                   .sdpa_block_n = 128, .sdpa_block_m = 128, .sdpa_warps = 8};
    cg_kernel k;
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_not_null(strstr(k.source, "#define HD_BM 128\n#define HD_BN 128\n#define HD_WARPS 8\n"));
    cr_expect_not_null(strstr(k.source, "#define HD_MIN_BLOCKS 1\n"));
    if (have_compiler())
        cr_expect_eq(compile_emitted(&k, "decode_wide_tiles"), 1, "compiles for sm_90a");
    cg_kernel_free(&k);
    ir_partition_free(&p);
    ir_graph_free(&g);
}
