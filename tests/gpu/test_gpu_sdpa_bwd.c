/* test_gpu_sdpa_bwd.c — attention backward on the GPU (kernel_templates/sdpa_bwd.hip) against the
 * reference engine (ir_ref_sdpa_bwd).
 *
 * Each case draws fresh Q, K, V, dO (uniform [-2, 2]) and runs the reference forward on them
 * (the same options) for O and Stats, so the backward's inputs are consistent; then the backward
 * on the fused JIT engine (device memory, outputs poisoned with NaN bytes) and on the reference
 * engine, and compares dQ, dK, dV (and dBias). Shapes drawn each run: batch, heads (MHA, GQA,
 * MQA), Sq != Skv, lengths off every tile, head dims 8 .. 256 (64 and 128 most, Dv != D at
 * times), bf16 and fp16, [b,h,s,d] and [b,s,h,d] layouts (rows padded by 8 elements at times,
 * the gradients' padding unlike the inputs');
 * every mask and option the template takes: causal top-left and bottom-right, sliding window and
 * band, padding (per-batch lengths, some 0), scale tensor, bias (broadcast; full shape with
 * dBias), ALiBi, Philox dropout (the forward's mask), custom dropout; each dQ of
 * jit.sdpa_bwd_atomic: by shape, the deterministic pass (two runs bitwise equal in every output)
 * and accumulated in the dK/dV pass; the kv pass's loading warpgroup (jit.sdpa_ws 1). dK, dV
 * and a full dBias are bitwise equal between two runs whatever the dQ.
 * Comparison (op-semantics.md §4.11): every element isclose, dQ and dBias atol = rtol = 2e-2, dK
 * and dV atol 2e-2 (fp16) / 7e-2 (bf16), rtol 2e-2; no NaN; relative L2 within twice the type's
 * tolerance (P and dS are rounded to the operand type before their products). Seed:
 * HIPDNN_TEST_SEED replays a run.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_util.h"

static void reset_knobs(void)
{
    gpu_set_knobs(0, NULL, NULL);
    gpu_teardown();
}

TestSuite(gpu_sdpa_bwd, .init = gpu_setup, .fini = reset_knobs, .timeout = 900);

enum { U_Q = 1, U_K, U_V, U_O, U_DO, U_STATS, U_DQ, U_DK, U_DV, U_SEQ_Q, U_SEQ_KV, U_BIAS, U_DBIAS, U_SCALE,
       U_SEED, U_OFFSET, U_DMASK, U_DSCALE, U_DSCALE_INV };

typedef enum { M_NONE, M_CAUSAL, M_CAUSAL_BR, M_WINDOW, M_BAND } mask_kind;

typedef struct bwd_case {
    const char *dt;       /* "BFLOAT16" or "HALF" */
    int64_t B, Hq, Hk, Sq, Skv, D, Dv;
    bool bshd;            /* [b,s,h,d] memory */
    int64_t pad;          /* extra elements per row (multiple of 8) */
    mask_kind mask;
    int64_t left, right;  /* M_WINDOW / M_BAND bounds */
    bool padding, scale_tensor, bias, dbias, alibi, dropout, custom_dropout;
    int dbias_bcast;      /* with dbias: 0 the full [B,Hq,Sq,Skv], 1 [1,Hq,Sq,Skv], 2 [1,1,Sq,Skv] */
} bwd_case;

static bwd_case cur;    /* the case being filled */
static bool dq_bitwise; /* jit.sdpa_bwd_atomic 1: dQ bitwise equal between two runs too */

static json_t *rows(int uid, const char *dt, int64_t b, int64_t h, int64_t s, int64_t d, const bwd_case *c)
{
    int64_t dims[4] = {b, h, s, d}, st[4];
    st[3] = 1;
    if (c->bshd) {
        int64_t row = d + c->pad;
        st[1] = row, st[2] = h * row, st[0] = s * st[2];
    } else {
        st[2] = d + c->pad, st[1] = s * st[2], st[0] = h * st[1];
    }
    return tensor(uid, dt, 4, dims, st, false);
}

static json_t *plain(int uid, const char *dt, int64_t d0, int64_t d1, int64_t d2, int64_t d3)
{
    int64_t dims[4] = {d0, d1, d2, d3}, st[4];
    packed(4, dims, st, 0);
    return tensor(uid, dt, 4, dims, st, false);
}

static void set_uid(json_t *a, const char *key, int uid) { json_object_set_new(a, key, json_integer(uid)); }

/* The options both directions share: lengths, scale, bias, dropout, ALiBi, the band. */
static void common(const bwd_case *c, json_t *ts, json_t *a)
{
    if (c->padding) {
        json_array_append_new(ts, plain(U_SEQ_Q, "INT32", c->B, 1, 1, 1));
        json_array_append_new(ts, plain(U_SEQ_KV, "INT32", c->B, 1, 1, 1));
        set_uid(a, "seq_len_q_tensor_uid", U_SEQ_Q), set_uid(a, "seq_len_kv_tensor_uid", U_SEQ_KV);
        json_object_set_new(a, "padding_mask", json_true());
    }
    if (c->scale_tensor) {
        json_array_append_new(ts, plain(U_SCALE, "FLOAT", 1, 1, 1, 1));
        set_uid(a, "scale_tensor_uid", U_SCALE);
    } else {
        json_object_set_new(a, "attn_scale_value", json_real(1.0 / sqrt((double)c->D)));
    }
    if (c->bias || c->dbias) { /* with dBias its shape, else broadcast over the batch */
        json_array_append_new(ts, plain(U_BIAS, c->dt, c->dbias && !c->dbias_bcast ? c->B : 1,
                                        c->dbias_bcast == 2 ? 1 : c->Hq, c->Sq, c->Skv));
        set_uid(a, "attn_mask_tensor_uid", U_BIAS);
    }
    if (c->dropout) {
        json_array_append_new(ts, plain(U_SEED, "INT64", 1, 1, 1, 1));
        json_array_append_new(ts, plain(U_OFFSET, "INT64", 1, 1, 1, 1));
        set_uid(a, "seed_tensor_uid", U_SEED), set_uid(a, "offset_tensor_uid", U_OFFSET);
        json_object_set_new(a, "dropout_probability", json_real(0.1));
    }
    if (c->custom_dropout) {
        json_array_append_new(ts, plain(U_DMASK, c->dt, 1, c->Hq, c->Sq, c->Skv));
        json_array_append_new(ts, plain(U_DSCALE, "FLOAT", 1, 1, 1, 1));
        set_uid(a, "dropout_mask_tensor_uid", U_DMASK), set_uid(a, "dropout_scale_tensor_uid", U_DSCALE);
    }
    if (c->alibi)
        json_object_set_new(a, "alibi_mask", json_true());
    if (c->mask == M_CAUSAL || c->mask == M_CAUSAL_BR)
        json_object_set_new(a, "right_bound", json_integer(0));
    if (c->mask == M_WINDOW || c->mask == M_BAND) {
        json_object_set_new(a, "left_bound", json_integer(c->left));
        json_object_set_new(a, "right_bound", json_integer(c->right));
    }
    json_object_set_new(a, "diagonal_alignment", json_string(c->mask == M_CAUSAL_BR ? "BOTTOM_RIGHT" : "TOP_LEFT"));
}

static hipdnnBackendDescriptor_t build(const bwd_case *c, bool backward)
{
    json_t *ts = json_array(), *a = json_object(), *nodes = json_array();
    int64_t Hk = c->Hk ? c->Hk : c->Hq;
    json_array_append_new(ts, rows(U_Q, c->dt, c->B, c->Hq, c->Sq, c->D, c));
    json_array_append_new(ts, rows(U_K, c->dt, c->B, Hk, c->Skv, c->D, c));
    json_array_append_new(ts, rows(U_V, c->dt, c->B, Hk, c->Skv, c->Dv, c));
    json_array_append_new(ts, rows(U_O, c->dt, c->B, c->Hq, c->Sq, c->Dv, c));
    json_array_append_new(ts, plain(U_STATS, "FLOAT", c->B, c->Hq, c->Sq, 1));
    set_uid(a, "q_tensor_uid", U_Q), set_uid(a, "k_tensor_uid", U_K), set_uid(a, "v_tensor_uid", U_V);
    set_uid(a, "o_tensor_uid", U_O), set_uid(a, "stats_tensor_uid", U_STATS);
    common(c, ts, a);
    if (!backward) {
        json_object_set_new(a, "generate_stats", json_true());
        json_array_append_new(nodes, node("SdpaAttributes", a));
        return finalize_graph(ts, nodes);
    }
    bwd_case oc = *c; /* the gradients' rows padded unlike the inputs': each has its own offsets */
    oc.pad = c->pad ? 0 : 8;
    json_array_append_new(ts, rows(U_DO, c->dt, c->B, c->Hq, c->Sq, c->Dv, c));
    json_array_append_new(ts, rows(U_DQ, c->dt, c->B, c->Hq, c->Sq, c->D, &oc));
    json_array_append_new(ts, rows(U_DK, c->dt, c->B, Hk, c->Skv, c->D, &oc));
    json_array_append_new(ts, rows(U_DV, c->dt, c->B, Hk, c->Skv, c->Dv, &oc));
    set_uid(a, "do_tensor_uid", U_DO), set_uid(a, "dq_tensor_uid", U_DQ);
    set_uid(a, "dk_tensor_uid", U_DK), set_uid(a, "dv_tensor_uid", U_DV);
    if (c->dbias) {
        json_array_append_new(ts, plain(U_DBIAS, c->dt, c->dbias_bcast ? 1 : c->B, c->dbias_bcast == 2 ? 1 : c->Hq,
                                        c->Sq, c->Skv));
        set_uid(a, "dbias_tensor_uid", U_DBIAS);
    }
    if (c->custom_dropout) {
        json_array_append_new(ts, plain(U_DSCALE_INV, "FLOAT", 1, 1, 1, 1));
        set_uid(a, "dropout_scale_inv_tensor_uid", U_DSCALE_INV);
    }
    json_array_append_new(nodes, node("SdpaBackwardAttributes", a));
    return finalize_graph(ts, nodes);
}

/* Sequence lengths (some 0, the first full), scale, seed, offset, custom dropout; else false. */
static bool fill(const ir_tensor *t, ir_buf *b)
{
    int64_t idx[IR_MAX_RANK] = {0};
    switch (t->uid) {
    case U_SEQ_Q:
    case U_SEQ_KV: {
        int64_t max = t->uid == U_SEQ_Q ? cur.Sq : cur.Skv;
        for (idx[0] = 0; idx[0] < cur.B; idx[0]++) {
            int64_t v = rnd(0, 9) == 0 ? 0 : rnd(0, (int)max);
            ir_store(b, idx, (double)(idx[0] == 0 ? max : v));
        }
        return true;
    }
    case U_SCALE:
        ir_store(b, idx, 0.5 / sqrt((double)cur.D) * (1 + rand() % 3));
        return true;
    case U_SEED:
    case U_OFFSET:
        ir_store(b, idx, (double)(rand() % 100000 + 1));
        return true;
    case U_DMASK: /* keep 80% */
        do
            ir_store(b, idx, rnd(0, 4) ? 1.0 : 0.0);
        while (ir_next_index(b, idx));
        return true;
    case U_DSCALE:
        ir_store(b, idx, 1.25);
        return true;
    case U_DSCALE_INV: /* not 1 / 1.25: a kernel that dropped or swapped the two factors must fail */
        ir_store(b, idx, 0.7);
        return true;
    default:
        return false;
    }
}

/* dK and dV sum over every query row (their bf16 bound is wider: gpu_compare_grad). */
static bool is_kv(int64_t uid) { return uid == U_DK || uid == U_DV; }

/* Bitwise equal between two runs: every output but a broadcast dBias (fp32 atomics) and dQ unless
 * its deterministic pass was asked for. */
static bool is_bitwise(int64_t uid) { return !(uid == U_DBIAS && cur.dbias_bcast) && !(uid == U_DQ && !dq_bitwise); }

/* The backward case c: inputs, the reference forward for O and Stats, both backward engines
 * (gpu_check_backward). */
static void check(const bwd_case *c, const char *what)
{
    cur = *c;
    hipdnnBackendDescriptor_t gb = build(c, true), gf = build(c, false);
    gpu_check_backward(gb, gf, fill, is_kv, is_bitwise, what);
    hipdnnBackendDestroyDescriptor(gf);
    hipdnnBackendDestroyDescriptor(gb);
}

/* A random case: sizes off every tile edge, head dim mostly 64 / 128. */
static bwd_case random_case(void)
{
    static const int64_t dims[] = {64, 128, 64, 128, 96, 32, 256, 40};
    static const int64_t heads[][2] = {{1, 1}, {2, 2}, {4, 1}, {6, 2}, {3, 3}, {8, 4}};
    bwd_case c = {.dt = rnd(0, 1) ? "BFLOAT16" : "HALF", .B = rnd(1, 3), .Sq = rnd(1, 300), .Skv = rnd(1, 400),
                  .bshd = rnd(0, 1), .pad = 8 * rnd(0, 1)};
    int h = rnd(0, 5);
    c.Hq = heads[h][0], c.Hk = heads[h][1];
    c.D = c.Dv = dims[rnd(0, 7)];
    return c;
}

static void run(bwd_case c, const char *tag)
{
    char what[192];
    snprintf(what, sizeof what, "%s %s B%lld Hq%lld Hk%lld Sq%lld Skv%lld D%lld Dv%lld %s%s", tag, c.dt,
             (long long)c.B, (long long)c.Hq, (long long)c.Hk, (long long)c.Sq, (long long)c.Skv, (long long)c.D,
             (long long)c.Dv, c.bshd ? "bshd" : "bhsd", dq_bitwise ? " dQ pass" : "");
    check(&c, what);
}

Test(gpu_sdpa_bwd, no_mask)
{
    for (int r = 0; r < 4; r++)
        run(random_case(), "no mask");
}

Test(gpu_sdpa_bwd, causal_top_left_and_bottom_right)
{
    for (int r = 0; r < 4; r++) {
        bwd_case c = random_case();
        c.mask = r % 2 ? M_CAUSAL_BR : M_CAUSAL;
        if (c.mask == M_CAUSAL_BR && c.Sq > c.Skv) /* bottom-right without padding: Sq <= Skv */
            c.Sq = rnd(1, (int)c.Skv);
        run(c, r % 2 ? "causal bottom-right" : "causal top-left");
    }
}

Test(gpu_sdpa_bwd, sliding_window_and_band)
{
    for (int r = 0; r < 4; r++) {
        bwd_case c = random_case();
        c.mask = r < 2 ? M_WINDOW : M_BAND;
        c.left = rnd(1, 150), c.right = r < 2 ? 0 : rnd(0, 40);
        run(c, r < 2 ? "sliding window" : "band");
    }
}

Test(gpu_sdpa_bwd, padding_with_per_batch_lengths)
{
    for (int r = 0; r < 4; r++) {
        bwd_case c = random_case();
        c.B = rnd(2, 4), c.padding = true;
        c.mask = (mask_kind)(r % 3); /* none, causal, causal bottom-right */
        run(c, "padding");
    }
}

Test(gpu_sdpa_bwd, gqa_mqa_and_layouts)
{
    static const int64_t heads[][2] = {{8, 1}, {8, 2}, {12, 4}, {4, 4}};
    for (int r = 0; r < 4; r++) {
        bwd_case c = random_case();
        c.Hq = heads[r][0], c.Hk = heads[r][1], c.bshd = r % 2, c.mask = r == 2 ? M_CAUSAL : M_NONE;
        run(c, "gqa");
    }
}

Test(gpu_sdpa_bwd, head_dims)
{
    static const int64_t d[][2] = {{8, 8}, {256, 256}, {192, 128}, {72, 72}, {128, 64}};
    for (int r = 0; r < 5; r++) {
        bwd_case c = random_case();
        c.D = d[r][0], c.Dv = d[r][1], c.mask = r % 2 ? M_CAUSAL : M_NONE;
        run(c, "head dims");
    }
}

Test(gpu_sdpa_bwd, scale_tensor_bias_dbias_alibi)
{
    bwd_case c = random_case();
    c.scale_tensor = true;
    run(c, "scale tensor");
    c = random_case();
    c.bias = true, c.mask = M_CAUSAL;
    run(c, "broadcast bias");
    c = random_case();
    c.dbias = true, c.B = rnd(1, 2), c.Sq = rnd(1, 200), c.Skv = rnd(1, 200);
    run(c, "bias + dBias");
    c = random_case();
    c.alibi = true, c.mask = M_CAUSAL;
    run(c, "alibi");
    for (int r = 1; r <= 2; r++) { /* summed over the batch, then over batch and heads */
        c = random_case();
        c.dbias = true, c.dbias_bcast = r, c.mask = r == 2 ? M_CAUSAL : M_NONE, c.Sq = rnd(1, 200), c.Skv = rnd(1, 200);
        run(c, r == 1 ? "bias + dBias [1,H,S,S]" : "bias + dBias [1,1,S,S]");
    }
}

/* Philox dropout with the forward's mask (the same seed and offset), then custom dropout (a 0/1
 * mask, DROPOUT_SCALE 1.25, DROPOUT_SCALE_INV 0.8). */
Test(gpu_sdpa_bwd, dropout)
{
    for (int r = 0; r < 3; r++) {
        bwd_case c = random_case();
        c.dropout = true, c.mask = r == 1 ? M_CAUSAL : M_NONE, c.padding = r == 2;
        run(c, "dropout");
    }
    for (int r = 0; r < 2; r++) {
        bwd_case c = random_case();
        c.custom_dropout = true, c.mask = r ? M_CAUSAL : M_NONE;
        run(c, "custom dropout");
    }
}

/* Long sequences: many key blocks and query tiles through both shared-memory stages, with and
 * without the causal band (the wgmma products at head dims 64 and 128 on sm_90). */
Test(gpu_sdpa_bwd, long_sequences)
{
    static const int64_t d[] = {128, 64};
    for (int r = 0; r < 2; r++) {
        bwd_case c = random_case();
        c.B = 1, c.Hq = 2, c.Hk = 1, c.Sq = rnd(900, 1300), c.Skv = rnd(900, 1300), c.D = c.Dv = d[r];
        c.mask = r ? M_CAUSAL : M_NONE;
        run(c, "long");
    }
}

/* Two random cases (no mask, then causal) at head dims d[0] and d[1] with one knob set. */
static void run_with_knob(const char *id, int64_t value, const int64_t d[2], const char *tag)
{
    const char *const ids[] = {id};
    gpu_set_knobs(1, ids, &value);
    for (int r = 0; r < 2; r++) {
        bwd_case c = random_case();
        c.D = c.Dv = d[r], c.mask = r ? M_CAUSAL : M_NONE;
        run(c, tag);
    }
    gpu_set_knobs(0, NULL, NULL);
}

/* jit.sdpa_wgmma 0: the mma.sync products at the head dims where sm_90 takes wgmma. */
Test(gpu_sdpa_bwd, mma_sync_products)
{
    static const int64_t d[2] = {128, 64};
    run_with_knob("jit.sdpa_wgmma", 0, d, "mma.sync");
}

/* jit.sdpa_block_m 64: the 64-row inner tiles at head dim 64 (its default is 128 on wgmma). */
Test(gpu_sdpa_bwd, inner_tile_knob)
{
    static const int64_t d[2] = {64, 64};
    run_with_knob("jit.sdpa_block_m", 64, d, "block_m 64");
}

/* jit.sdpa_warps 4: one warpgroup a wgmma block (64 keys, 64 query rows). */
Test(gpu_sdpa_bwd, one_warpgroup_blocks)
{
    static const int64_t d[2] = {128, 64};
    run_with_knob("jit.sdpa_warps", 4, d, "warps 4");
}

/* Six cases of one jit.sdpa_bwd_atomic value: head dims 128 and 64 (on sm_90 wgmma; the 64 x 128
 * and 128 x 64 dQ tiles of the accumulated dQ, with dropout the loop without the overlap), then one
 * drawn; masks, padding and dropout in turn. */
static void run_dq(int64_t value, const char *tag)
{
    static const char *const ids[] = {"jit.sdpa_bwd_atomic"};
    static const int64_t dims[] = {128, 64, 128, 64, 128, 0};
    gpu_set_knobs(1, ids, &value);
    dq_bitwise = value == 1;
    for (int r = 0; r < 6; r++) {
        bwd_case c = random_case();
        if (dims[r])
            c.D = c.Dv = dims[r];
        c.mask = (mask_kind)(r % 3), c.padding = r == 3, c.dropout = r == 4;
        if (c.mask == M_CAUSAL_BR && c.Sq > c.Skv)
            c.Sq = rnd(1, (int)c.Skv);
        run(c, tag);
    }
    dq_bitwise = false;
    gpu_set_knobs(0, NULL, NULL);
}

/* jit.sdpa_ws 1: a warpgroup of the wgmma kv block only loads its tiles (mbarriers); 2: also each
 * computing warpgroup adds its own keys' share of dQ. Head dims 128 and 64, masks in turn, dropout
 * twice (the loop without the overlap); then with the dQ pass (jit.sdpa_bwd_atomic 1, dQ bitwise
 * reproducible). */
Test(gpu_sdpa_bwd, loader_warpgroup)
{
    static const char *const ids[] = {"jit.sdpa_ws", "jit.sdpa_bwd_atomic"};
    static const int64_t knobs[][2] = {{1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 1}, {1, 1}, {2, 0}, {2, 0}, {2, 0}, {2, 0}};
    static const int64_t dims[] = {128, 64, 128, 64, 128, 64, 128, 64, 128, 64};
    for (int r = 0; r < 10; r++) {
        gpu_set_knobs(2, ids, knobs[r]);
        dq_bitwise = knobs[r][1] == 1;
        bwd_case c = random_case();
        c.D = c.Dv = dims[r];
        c.mask = (mask_kind)(r % 3), c.padding = r == 3 || r == 9, c.dropout = r == 2 || r == 8;
        if (c.mask == M_CAUSAL_BR && c.Sq > c.Skv)
            c.Sq = rnd(1, (int)c.Skv);
        run(c, dq_bitwise ? "loader, dQ pass" : knobs[r][0] == 2 ? "loader, own dQ" : "loader");
    }
    dq_bitwise = false;
    gpu_set_knobs(0, NULL, NULL);
}

/* dQ accumulated in the dK/dV pass everywhere (jit.sdpa_bwd_atomic 2: on sm_90 at head dims 64 /
 * 128 the copy engine's adds, else fp32 atomics): the same checks but dQ's reproducibility. */
Test(gpu_sdpa_bwd, atomic_dq) { run_dq(2, "atomic"); }

/* The deterministic dQ pass everywhere (jit.sdpa_bwd_atomic 1): every output bitwise equal between
 * two runs. */
Test(gpu_sdpa_bwd, deterministic_dq) { run_dq(1, "deterministic"); }
