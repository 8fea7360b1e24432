/* test_cg_sdpa_bwd.c — codegen of attention backward (kernel_templates/sdpa_bwd.hip,
 * cg_sdpa_bwd.c): every variant is emitted deterministically (three launches, scratch as
 * cg_scratch_bytes says) and compiles with NVRTC for sm_90 and sm_80 (compile only: skips without
 * NVRTC): head dims 64, 128, 96, 256, 8 and Dv != D, bf16 and fp16, each mask kind (none, causal
 * top-left and bottom-right, sliding window, padding), GQA / MQA, BSHD layout, bias with and
 * without dBias, ALiBi, Philox and custom dropout, a scale tensor, and each dQ of jit.sdpa_bwd_atomic;
 * unsupported cases are refused with a reason. Numerical checks: tests/gpu/test_gpu_sdpa_bwd.c.
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
    bool bshd, bias, dbias, alibi, dropout, dmask, scale_tensor;
    int dq;           /* jit.sdpa_bwd_atomic: 0 by shape, 1 the dQ pass, 2 accumulated in the dK/dV pass */
    bool bcast_dbias; /* bias and dBias [1,Hq,Sq,Skv]: an fp32 accumulator and a fourth launch */
    int warps;        /* jit.sdpa_warps (0: the default) */
    int ws;           /* jit.sdpa_ws: 1 a loading warpgroup in the wgmma kv block, 2 also each warpgroup's
                       * own dQ share */
} variant;

static void build(ir_graph *g, const variant *v)
{
    ir_graph_init(g);
    ir_op op = {.kind = IR_OP_SDPA_BWD, .n_in = IR_SDPAB_N_IN, .n_out = IR_SDPAB_N_OUT};
    for (int i = 0; i < IR_MAX_SLOTS; i++)
        op.in[i] = op.out[i] = -1;
    ir_sdpa *p = &op.a.sdpa;
    p->attn_scale = 0.125, p->has_scale_value = true;
    int64_t Hk = v->Hk ? v->Hk : v->Hq;
    op.in[IR_SDPAB_Q] = add(g, v->dt, v->B, v->Hq, v->Sq, v->D, v->bshd);
    op.in[IR_SDPAB_K] = add(g, v->dt, v->B, Hk, v->Skv, v->D, v->bshd);
    op.in[IR_SDPAB_V] = add(g, v->dt, v->B, Hk, v->Skv, v->Dv, v->bshd);
    op.in[IR_SDPAB_O] = add(g, v->dt, v->B, v->Hq, v->Sq, v->Dv, v->bshd);
    op.in[IR_SDPAB_DO] = add(g, v->dt, v->B, v->Hq, v->Sq, v->Dv, v->bshd);
    op.in[IR_SDPAB_STATS] = add(g, HIPDNN_DATA_FLOAT, v->B, v->Hq, v->Sq, 1, false);
    op.out[IR_SDPAB_DQ] = add(g, v->dt, v->B, v->Hq, v->Sq, v->D, v->bshd);
    op.out[IR_SDPAB_DK] = add(g, v->dt, v->B, Hk, v->Skv, v->D, v->bshd);
    op.out[IR_SDPAB_DV] = add(g, v->dt, v->B, Hk, v->Skv, v->Dv, v->bshd);
    if (v->mask == MASK_CAUSAL || v->mask == MASK_CAUSAL_BR || v->mask == MASK_WINDOW)
        p->has_right = true, p->right_bound = 0;
    p->bottom_right = v->mask == MASK_CAUSAL_BR;
    if (v->mask == MASK_WINDOW)
        p->has_left = true, p->left_bound = 100;
    if (v->mask == MASK_PADDING) {
        p->padding_mask = true;
        op.in[IR_SDPAB_SEQ_Q] = add(g, HIPDNN_DATA_INT32, v->B, 1, 1, 1, false);
        op.in[IR_SDPAB_SEQ_KV] = add(g, HIPDNN_DATA_INT32, v->B, 1, 1, 1, false);
    }
    if (v->bias || v->dbias || v->bcast_dbias)
        op.in[IR_SDPAB_BIAS] = add(g, v->dt, v->bcast_dbias ? 1 : v->B, v->Hq, v->Sq, v->Skv, false);
    if (v->dbias || v->bcast_dbias)
        op.out[IR_SDPAB_DBIAS] = add(g, v->dt, v->bcast_dbias ? 1 : v->B, v->Hq, v->Sq, v->Skv, false);
    p->alibi = v->alibi;
    if (v->dropout) {
        p->dropout_p = 0.1;
        op.in[IR_SDPAB_SEED] = add_i64(g, HIPDNN_DATA_INT64, 1234567);
        op.in[IR_SDPAB_OFFSET] = add(g, HIPDNN_DATA_INT64, 1, 1, 1, 1, false);
    }
    if (v->dmask) {
        op.in[IR_SDPAB_DROPOUT_MASK] = add(g, v->dt, 1, v->Hq, v->Sq, v->Skv, false);
        op.in[IR_SDPAB_DROPOUT_SCALE] = add(g, HIPDNN_DATA_FLOAT, 1, 1, 1, 1, false);
        op.in[IR_SDPAB_DROPOUT_SCALE_INV] = add(g, HIPDNN_DATA_FLOAT, 1, 1, 1, 1, false);
    }
    if (v->scale_tensor)
        op.in[IR_SDPAB_SCALE] = add(g, HIPDNN_DATA_FLOAT, 1, 1, 1, 1, false), p->has_scale_value = false;
    ir_add_op(g, &op);
    cr_assert_eq(ir_graph_seal(g), HIPDNN_STATUS_SUCCESS);
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
        cg_target t = {.platform = "nvidia", .sm_count = 132, .sdpa_bwd_atomic = v->dq, .sdpa_warps = v->warps,
                       .sdpa_ws = v->ws};
        snprintf(t.arch, sizeof t.arch, "%s", archs[a]);
        cg_kernel k1;
        emit_twice(&g, &p.k[0], &t, &k1, what);
        cr_expect_str_eq(k1.entry, "hd_sdpa_bwd_pre");
        cr_expect_eq(k1.n_then, v->bcast_dbias ? 3 : 2);
        if (v->bcast_dbias)
            cr_expect_str_eq(k1.then[2].entry, "hd_sdpa_bwd_dbias_convert");
        cr_expect_str_eq(k1.then[0].entry, "hd_sdpa_bwd_kv");
        /* sm_90 takes wgmma (two warpgroups a block) at head dims 64 and 128; the accumulated dQ
         * there only where the two warpgroups' pieces make the tile's dQ (64 x 128 or 128 x 64:
         * hd_dq_bulk), by default wherever that holds */
        bool dims = (v->D == 64 || v->D == 128) && (v->Dv == 64 || v->Dv == 128);
        int64_t bm = v->D == 64 && v->Dv == 64 ? 128 : 64;
        bool bulk = a == 0 && dims && v->warps != 4 && bm * v->D == 8192;
        bool atomic = v->dq == 2 || (v->dq == 0 && bulk), wg = a == 0 && dims && (!atomic || bulk);
        cr_expect_str_eq(k1.then[1].entry, atomic ? "hd_sdpa_bwd_dq_convert" : "hd_sdpa_bwd_dq", "%s", what);
        cr_expect_str_eq(k1.arch, wg ? "sm_90a" : archs[a], "%s", what);
        bool loader = wg && v->warps != 4 && (v->ws == 1 || v->ws == 2); /* a third warpgroup that loads */
        cr_expect_eq(k1.then[0].block[0], loader ? 384u : wg && v->warps != 4 ? 256u : 128u, "%s", what);
        cr_expect_eq(strstr(k1.source, "#define HD_LOADER 1\n") != NULL, loader, "%s: HD_LOADER", what);
        cr_expect_eq(strstr(k1.source, "#define HD_DQ_OWN 1\n") != NULL, loader && atomic && v->ws == 2,
                     "%s: HD_DQ_OWN", what);
        cr_expect(k1.then[0].smem > 0 && k1.then[0].smem <= (a ? 163u : 227u) * 1024u, "%s: %u bytes", what,
                  k1.then[0].smem);
        cr_expect_eq(k1.scratch, cg_scratch_bytes(&g, &p.k[0]), "%s: scratch agrees", what);
        if (atomic) { /* the convert: a thread a float4 of whole tiles (wgmma), else a warp a row */
            int64_t rows = wg ? (v->Sq + bm - 1) / bm * bm : v->Sq, per = wg ? v->D / 4 : 8;
            unsigned want = wg ? (unsigned)((rows * per + 255) / 256) : (unsigned)((rows + per - 1) / per);
            cr_expect_eq(k1.then[1].grid[0], want, "%s: the convert's grid", what);
        }
        cr_expect_eq(k1.args[k1.n_args - 1].kind, CG_ARG_WORKSPACE);
        compiled += compile_emitted(&k1, what);
        cg_kernel_free(&k1);
    }
    ir_partition_free(&p);
    ir_graph_free(&g);
    return compiled;
}

/* Head dims x types, each with a mask kind in turn, BSHD at times. */
Test(codegen_sdpa_bwd, head_dims_and_types_compile, .timeout = 900)
{
    if (!have_compiler())
        cr_skip_test("no run-time compiler (NVRTC) on this machine");
    const int64_t dims[][2] = {{64, 64}, {128, 128}, {96, 96}, {256, 256}, {8, 8}, {192, 128}};
    const hipdnnDataType_t dts[] = {HIPDNN_DATA_BFLOAT16, HIPDNN_DATA_HALF};
    int n = 0;
    for (int d = 0; d < 6; d++)
        for (int t = 0; t < 2; t++, n++) {
            variant v = {.dt = dts[t], .B = 2, .Hq = 4, .Sq = 300, .Skv = 517, .D = dims[d][0], .Dv = dims[d][1],
                         .mask = (mask_kind)(n % N_MASKS), .bshd = n % 3 == 0};
            char what[64];
            snprintf(what, sizeof what, "sdpa_bwd_d%lld_%s_%s", (long long)dims[d][0], t ? "f16" : "bf16",
                     mask_names[v.mask]);
            cr_expect_eq(emit_and_compile(&v, what), 2, "%s", what);
        }
}

/* Every mask kind with GQA (D 128, bf16), the deterministic dQ pass and the accumulated dQ. */
Test(codegen_sdpa_bwd, masks_and_atomic_dq_compile, .timeout = 900)
{
    if (!have_compiler())
        cr_skip_test("no run-time compiler (NVRTC) on this machine");
    for (int m = 0; m < N_MASKS; m++)
        for (int a = 0; a < 2; a++) {
            variant v = {.dt = HIPDNN_DATA_BFLOAT16, .B = 3, .Hq = 8, .Hk = 2, .Sq = 129, .Skv = 77,
                         .D = 128, .Dv = 128, .mask = (mask_kind)m, .dq = a + 1};
            char what[64];
            snprintf(what, sizeof what, "sdpa_bwd_%s_dq%d", mask_names[m], a + 1);
            cr_expect_eq(emit_and_compile(&v, what), 2, "%s", what);
        }
}

/* The options: bias, bias + dBias, ALiBi (causal), Philox dropout, custom dropout, scale tensor,
 * MQA + BSHD, D 256 with atomic dQ, a broadcast bias + dBias (at D 128 and D 96), one warpgroup a
 * wgmma block (jit.sdpa_warps 4, D 128 and 64), the accumulated dQ at D 64 (128-row tiles), the dQ
 * pass with Philox dropout at D 128, the accumulated dQ with one warpgroup (mma.sync), the loading
 * warpgroup (jit.sdpa_ws 1) at D 128 with GQA, D 64 with ALiBi, with the dQ pass and dropout, and
 * asked for at D 96 (mma.sync: none); with each warpgroup's own dQ share (jit.sdpa_ws 2) at D 128
 * with GQA and D 64 with dropout. */
Test(codegen_sdpa_bwd, options_compile, .timeout = 900)
{
    if (!have_compiler())
        cr_skip_test("no run-time compiler (NVRTC) on this machine");
    variant base = {.dt = HIPDNN_DATA_HALF, .B = 2, .Hq = 6, .Sq = 200, .Skv = 333, .D = 64, .Dv = 64};
    variant vs[21];
    for (int i = 0; i < 21; i++)
        vs[i] = base;
    vs[0].bias = true;
    vs[1].dbias = true;
    vs[2].alibi = true, vs[2].mask = MASK_CAUSAL;
    vs[3].dropout = true, vs[3].D = vs[3].Dv = 128;
    vs[4].dmask = true;
    vs[5].scale_tensor = true, vs[5].mask = MASK_WINDOW;
    vs[6].Hk = 1, vs[6].bshd = true, vs[6].mask = MASK_CAUSAL_BR;
    vs[7].D = vs[7].Dv = 256, vs[7].dq = 2, vs[7].dt = HIPDNN_DATA_BFLOAT16, vs[7].mask = MASK_PADDING;
    vs[8].bcast_dbias = true, vs[8].D = vs[8].Dv = 128;
    vs[9].bcast_dbias = true, vs[9].D = vs[9].Dv = 96, vs[9].mask = MASK_CAUSAL;
    vs[10].warps = 4, vs[10].D = vs[10].Dv = 128, vs[10].mask = MASK_CAUSAL;
    vs[11].warps = 4, vs[11].dt = HIPDNN_DATA_BFLOAT16;
    vs[12].dq = 2, vs[12].mask = MASK_CAUSAL, vs[12].Hq = 4, vs[12].Hk = 2;
    vs[13].dq = 1, vs[13].dropout = true, vs[13].D = vs[13].Dv = 128;
    vs[14].dq = 2, vs[14].warps = 4, vs[14].D = vs[14].Dv = 128;
    vs[15].ws = 1, vs[15].D = vs[15].Dv = 128, vs[15].mask = MASK_CAUSAL, vs[15].Hk = 2;
    vs[16].ws = 1, vs[16].dt = HIPDNN_DATA_BFLOAT16, vs[16].alibi = true;
    vs[17].ws = 1, vs[17].dq = 1, vs[17].D = vs[17].Dv = 128, vs[17].dropout = true;
    vs[18].ws = 1, vs[18].D = vs[18].Dv = 96;
    vs[19].ws = 2, vs[19].D = vs[19].Dv = 128, vs[19].mask = MASK_CAUSAL_BR, vs[19].Hk = 3;
    vs[20].ws = 2, vs[20].dt = HIPDNN_DATA_BFLOAT16, vs[20].dropout = true;
    const char *names[21] = {"bias", "dbias", "alibi", "dropout", "custom_dropout", "scale_window", "mqa_bshd",
                             "d256_atomic", "bcast_dbias", "bcast_dbias_d96", "one_warpgroup_d128",
                             "one_warpgroup_d64", "d64_atomic_gqa", "d128_dq_pass_dropout", "one_warpgroup_atomic",
                             "loader_d128_gqa", "loader_d64_alibi", "loader_dq_pass_dropout", "loader_d96_mma",
                             "own_dq_d128_gqa", "own_dq_d64_dropout"};
    for (int i = 0; i < 21; i++)
        cr_expect_eq(emit_and_compile(&vs[i], names[i]), 2, "%s", names[i]);
}

static void expect_refused(const variant *v, const char *what, const char *reason)
{
    ir_graph g;
    build(&g, v);
    ir_partition p;
    cr_assert_eq(ir_fuse(&g, &p), HIPDNN_STATUS_SUCCESS);
    char why[256] = "";
    cr_expect(!cg_supports(&g, &p.k[0], why, sizeof why), "%s is refused", what);
    cr_expect_not_null(strstr(why, reason), "%s: %s", what, why);
    cr_expect_eq(cg_scratch_bytes(&g, &p.k[0]), 0, "%s: no scratch", what);
    ir_partition_free(&p);
    ir_graph_free(&g);
}

Test(codegen_sdpa_bwd, unsupported_cases_say_why)
{
    variant v = {.dt = HIPDNN_DATA_BFLOAT16, .B = 1, .Hq = 2, .Sq = 64, .Skv = 64, .D = 64, .Dv = 64};
    variant a = v;
    a.D = 260, a.Dv = 260;
    expect_refused(&a, "head dim 260", "multiples of 8");
    a = v, a.dt = HIPDNN_DATA_FLOAT;
    expect_refused(&a, "fp32", "bf16 or all fp16");
    a = v, a.dmask = true, a.dropout = true;
    expect_refused(&a, "Philox and custom dropout", "exclusive");
    ir_graph g;
    ir_partition p;
    char why[256] = "";
    cg_target amd = {.platform = "amd", .arch = "gfx942", .sm_count = 304};
    build(&g, &v);
    cr_assert_eq(ir_fuse(&g, &p), HIPDNN_STATUS_SUCCESS);
    cr_expect(!cg_supports_on(&g, &p.k[0], &amd, why, sizeof why));
    cr_expect_not_null(strstr(why, "sm_80"), "%s", why);
    cr_expect_gt(cg_scratch_bytes(&g, &p.k[0]), 0, "the supported case asks for scratch");
    ir_partition_free(&p);
    ir_graph_free(&g);
}
