/* test_gpu_sdpa.c — attention forward on the GPU (kernel_templates/sdpa_fwd.hip) against the
 * reference engine (ir_ref_sdpa_fwd).
 *
 * Shapes are drawn each run: batch, heads (MHA, GQA, MQA), Sq != Skv and lengths that are not
 * multiples of any tile, head dims 8 .. 256 (64 and 128 most), bf16 and fp16, [b,h,s,d] and
 * [b,s,h,d] layouts (rows padded by 8 elements at times), and every option the template takes:
 * no mask, causal top-left and bottom-right, sliding window, padding (per-batch lengths, some
 * 0: whole batches fully masked), Stats / Max / Sum_exp, a scale tensor, bias, ALiBi, sink,
 * Philox dropout (RNG_DUMP compared element for element), custom dropout, paged K/V. The knob
 * suite runs every tile shape on both main loops (wgmma on sm_90 for head dims 64 / 128,
 * mma.sync elsewhere and with jit.sdpa_wgmma 0). Inputs are fresh uniform values in [-2, 2];
 * outputs are poisoned (0xFF: NaN) before the run.
 * Comparison (op-semantics.md §4.11, gpu_compare_attention): every element isclose with
 * atol = rtol = 2e-2 where infinities must match exactly (Stats of fully masked rows are −inf),
 * no NaN, and the relative L2 error of O within its type's tolerance (gpu_util.c). Seed: HIPDNN_TEST_SEED replays a run.
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

TestSuite(gpu_sdpa, .init = gpu_setup, .fini = reset_knobs, .timeout = 600);

enum { U_Q = 1, U_K, U_V, U_O, U_STATS, U_SEQ_Q, U_SEQ_KV, U_BIAS, U_SCALE, U_SEED, U_OFFSET,
       U_PAGE_K, U_PAGE_V, U_SINK, U_MAX, U_SUM, U_DMASK, U_DSCALE, U_DUMP };

typedef enum { M_NONE, M_CAUSAL, M_CAUSAL_BR, M_WINDOW, M_BAND } mask_kind;

typedef struct sdpa_case {
    const char *dt;               /* "BFLOAT16" or "HALF" */
    int64_t B, Hq, Hk, Sq, Skv, D, Dv;
    bool bshd;                    /* [b,s,h,d] memory */
    int64_t pad;                  /* extra elements per row (multiple of 8) */
    mask_kind mask;
    int64_t left, right;          /* M_WINDOW / M_BAND bounds */
    bool padding, stats, max_sum, scale_tensor, bias, alibi, sink, dropout, paged;
    bool custom_dropout, rng_dump; /* DROPOUT_MASK [1,Hq,Sq,Skv] + DROPOUT_SCALE; RNG_DUMP */
    int64_t bs;                   /* paged block size */
} sdpa_case;

static sdpa_case cur; /* the case being filled (the fill callback has no context) */

static void strides_of(const int64_t *d, bool bshd, int64_t pad, int64_t *s)
{
    s[3] = 1;
    if (bshd) { /* [b, s, h, d] */
        int64_t row = d[3] + pad;
        s[1] = row, s[2] = d[1] * row, s[0] = d[2] * s[2];
    } else {
        s[2] = d[3] + pad, s[1] = d[2] * s[2], s[0] = d[1] * s[1];
    }
}

static json_t *qkv(int uid, const char *dt, int64_t b, int64_t h, int64_t s, int64_t d, const sdpa_case *c)
{
    int64_t dims[4] = {b, h, s, d}, st[4];
    strides_of(dims, c->bshd, c->pad, st);
    return tensor(uid, dt, 4, dims, st, false);
}

static json_t *plain(int uid, const char *dt, int64_t d0, int64_t d1, int64_t d2, int64_t d3)
{
    int64_t dims[4] = {d0, d1, d2, d3}, st[4];
    packed(4, dims, st, 0);
    return tensor(uid, dt, 4, dims, st, false);
}

static hipdnnBackendDescriptor_t build(const sdpa_case *c)
{
    json_t *ts = json_array(), *a = json_object();
    int64_t Hk = c->Hk ? c->Hk : c->Hq;
    json_array_append_new(ts, qkv(U_Q, c->dt, c->B, c->Hq, c->Sq, c->D, c));
    if (c->paged) { /* containers [B·P, Hk, bs, D]; every batch's pages scattered through them */
        int64_t P = (c->Skv + c->bs - 1) / c->bs;
        json_array_append_new(ts, plain(U_K, c->dt, c->B * P, Hk, c->bs, c->D));
        json_array_append_new(ts, plain(U_V, c->dt, c->B * P, Hk, c->bs, c->Dv));
        json_array_append_new(ts, plain(U_PAGE_K, "INT32", c->B, 1, P, 1));
        json_array_append_new(ts, plain(U_PAGE_V, "INT32", c->B, 1, P, 1));
        json_object_set_new(a, "page_table_k_tensor_uid", json_integer(U_PAGE_K));
        json_object_set_new(a, "page_table_v_tensor_uid", json_integer(U_PAGE_V));
    } else {
        json_array_append_new(ts, qkv(U_K, c->dt, c->B, Hk, c->Skv, c->D, c));
        json_array_append_new(ts, qkv(U_V, c->dt, c->B, Hk, c->Skv, c->Dv, c));
    }
    json_array_append_new(ts, qkv(U_O, c->dt, c->B, c->Hq, c->Sq, c->Dv, c));
    json_object_set_new(a, "q_tensor_uid", json_integer(U_Q));
    json_object_set_new(a, "k_tensor_uid", json_integer(U_K));
    json_object_set_new(a, "v_tensor_uid", json_integer(U_V));
    json_object_set_new(a, "o_tensor_uid", json_integer(U_O));
    if (c->stats) {
        json_array_append_new(ts, plain(U_STATS, "FLOAT", c->B, c->Hq, c->Sq, 1));
        json_object_set_new(a, "stats_tensor_uid", json_integer(U_STATS));
        json_object_set_new(a, "generate_stats", json_true());
    }
    if (c->max_sum) {
        json_array_append_new(ts, plain(U_MAX, "FLOAT", c->B, c->Hq, c->Sq, 1));
        json_array_append_new(ts, plain(U_SUM, "FLOAT", c->B, c->Hq, c->Sq, 1));
        json_object_set_new(a, "max_tensor_uid", json_integer(U_MAX));
        json_object_set_new(a, "sum_exp_tensor_uid", json_integer(U_SUM));
    }
    if (c->padding || c->paged) {
        json_array_append_new(ts, plain(U_SEQ_Q, "INT32", c->B, 1, 1, 1));
        json_array_append_new(ts, plain(U_SEQ_KV, "INT32", c->B, 1, 1, 1));
        json_object_set_new(a, "seq_len_q_tensor_uid", json_integer(U_SEQ_Q));
        json_object_set_new(a, "seq_len_kv_tensor_uid", json_integer(U_SEQ_KV));
        json_object_set_new(a, "padding_mask", json_true());
    }
    if (c->scale_tensor) {
        json_array_append_new(ts, plain(U_SCALE, "FLOAT", 1, 1, 1, 1));
        json_object_set_new(a, "scale_tensor_uid", json_integer(U_SCALE));
    } else {
        json_object_set_new(a, "attn_scale_value", json_real(1.0 / sqrt((double)c->D)));
    }
    if (c->bias) { /* [1, Hq, Sq, Skv]: broadcast over batch */
        json_array_append_new(ts, plain(U_BIAS, c->dt, 1, c->Hq, c->Sq, c->Skv));
        json_object_set_new(a, "attn_mask_tensor_uid", json_integer(U_BIAS));
    }
    if (c->sink) {
        json_array_append_new(ts, plain(U_SINK, "FLOAT", 1, c->Hq, 1, 1));
        json_object_set_new(a, "sink_token_tensor_uid", json_integer(U_SINK));
    }
    if (c->dropout) {
        json_array_append_new(ts, plain(U_SEED, "INT64", 1, 1, 1, 1));
        json_array_append_new(ts, plain(U_OFFSET, "INT64", 1, 1, 1, 1));
        json_object_set_new(a, "seed_tensor_uid", json_integer(U_SEED));
        json_object_set_new(a, "offset_tensor_uid", json_integer(U_OFFSET));
        json_object_set_new(a, "dropout_probability", json_real(0.1));
    }
    if (c->custom_dropout) {
        json_array_append_new(ts, plain(U_DMASK, c->dt, 1, c->Hq, c->Sq, c->Skv));
        json_array_append_new(ts, plain(U_DSCALE, "FLOAT", 1, 1, 1, 1));
        json_object_set_new(a, "dropout_mask_tensor_uid", json_integer(U_DMASK));
        json_object_set_new(a, "dropout_scale_tensor_uid", json_integer(U_DSCALE));
    }
    if (c->rng_dump) {
        json_array_append_new(ts, plain(U_DUMP, "FLOAT", c->B, c->Hq, c->Sq, c->Skv));
        json_object_set_new(a, "rng_dump_tensor_uid", json_integer(U_DUMP));
    }
    if (c->alibi)
        json_object_set_new(a, "alibi_mask", json_true());
    if (c->mask == M_CAUSAL || c->mask == M_CAUSAL_BR)
        json_object_set_new(a, "right_bound", json_integer(0));
    if (c->mask == M_WINDOW || c->mask == M_BAND)
        json_object_set_new(a, "left_bound", json_integer(c->left));
    if (c->mask == M_WINDOW || c->mask == M_BAND)
        json_object_set_new(a, "right_bound", json_integer(c->right));
    json_object_set_new(a, "diagonal_alignment", json_string(c->mask == M_CAUSAL_BR ? "BOTTOM_RIGHT" : "TOP_LEFT"));
    json_t *nodes = json_array();
    json_array_append_new(nodes, node("SdpaAttributes", a));
    return finalize_graph(ts, nodes);
}

/* Sequence lengths (some 0, one full), page tables (a random permutation of the blocks), the
 * scale, seed and offset; everything else the default uniform [-2, 2]. */
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
    case U_PAGE_K:
    case U_PAGE_V: {
        int64_t P = t->dims[2], n = cur.B * P;
        int64_t *perm = malloc((size_t)n * sizeof *perm);
        for (int64_t i = 0; i < n; i++)
            perm[i] = i;
        for (int64_t i = n - 1; i > 0; i--) {
            int64_t j = rand() % (i + 1), x = perm[i];
            perm[i] = perm[j], perm[j] = x;
        }
        for (idx[0] = 0; idx[0] < cur.B; idx[0]++)
            for (idx[2] = 0; idx[2] < P; idx[2]++)
                ir_store(b, idx, (double)perm[idx[0] * P + idx[2]]);
        free(perm);
        return true;
    }
    case U_SCALE:
        ir_store(b, idx, 0.5 / sqrt((double)cur.D) * (1 + rand() % 3));
        return true;
    case U_DMASK: { /* keep 80% */
        do
            ir_store(b, idx, rnd(0, 4) ? 1.0 : 0.0);
        while (ir_next_index(b, idx));
        return true;
    }
    case U_DSCALE:
        ir_store(b, idx, 1.25);
        return true;
    case U_SEED:
    case U_OFFSET:
        ir_store(b, idx, (double)(rand() % 100000 + 1));
        return true;
    default:
        return false;
    }
}

/* Runs case c on the fused JIT engine and on the reference engine with the same inputs
 * (gpu_util.c's harness with the attention comparison, gpu_compare_attention). */
static void check(const sdpa_case *c, const char *what)
{
    cur = *c;
    hipdnnBackendDescriptor_t g = build(c);
    hipdnnBackendDescriptor_t plan = plan_with(g, "jit_fused");
    check_plan_cmp(g, plan, fill, gpu_compare_attention, what);
    hipdnnBackendDestroyDescriptor(plan);
    hipdnnBackendDestroyDescriptor(g);
}

/* A random case: sizes off every tile edge, head dim mostly 64 / 128. */
static sdpa_case random_case(void)
{
    static const int64_t dims[] = {64, 128, 64, 128, 96, 32, 256, 40};
    sdpa_case c = {.dt = rnd(0, 1) ? "BFLOAT16" : "HALF", .B = rnd(1, 3), .Sq = rnd(1, 300),
                   .Skv = rnd(1, 400), .bshd = rnd(0, 1), .pad = 8 * rnd(0, 1), .stats = rnd(0, 1)};
    static const int64_t heads[][2] = {{1, 1}, {2, 2}, {4, 1}, {6, 2}, {3, 3}, {8, 4}};
    int h = rnd(0, 5);
    c.Hq = heads[h][0], c.Hk = heads[h][1];
    c.D = c.Dv = dims[rnd(0, 7)];
    return c;
}

static void describe(const sdpa_case *c, const char *tag, char *buf, size_t n)
{
    snprintf(buf, n, "%s %s B%lld Hq%lld Hk%lld Sq%lld Skv%lld D%lld Dv%lld %s%s", tag, c->dt,
             (long long)c->B, (long long)c->Hq, (long long)c->Hk, (long long)c->Sq, (long long)c->Skv,
             (long long)c->D, (long long)c->Dv, c->bshd ? "bshd" : "bhsd", c->stats ? " stats" : "");
}

static void run(sdpa_case c, const char *tag)
{
    char what[192];
    describe(&c, tag, what, sizeof what);
    check(&c, what);
}

Test(gpu_sdpa, no_mask)
{
    for (int r = 0; r < 4; r++)
        run(random_case(), "no mask");
}

Test(gpu_sdpa, causal_top_left_and_bottom_right)
{
    for (int r = 0; r < 4; r++) {
        sdpa_case c = random_case();
        c.mask = r % 2 ? M_CAUSAL_BR : M_CAUSAL;
        if (c.mask == M_CAUSAL_BR && c.Sq > c.Skv) /* bottom-right without padding: Sq <= Skv */
            c.Sq = rnd(1, (int)c.Skv);
        run(c, r % 2 ? "causal bottom-right" : "causal top-left");
    }
}

Test(gpu_sdpa, sliding_window_and_band)
{
    for (int r = 0; r < 4; r++) {
        sdpa_case c = random_case();
        c.mask = r < 2 ? M_WINDOW : M_BAND;
        c.left = rnd(1, 150), c.right = r < 2 ? 0 : rnd(0, 40);
        run(c, r < 2 ? "sliding window" : "band");
    }
}

Test(gpu_sdpa, padding_with_per_batch_lengths)
{
    for (int r = 0; r < 4; r++) {
        sdpa_case c = random_case();
        c.B = rnd(2, 4), c.padding = true, c.stats = true;
        c.mask = (mask_kind)(r % 3); /* none, causal, causal bottom-right */
        run(c, "padding");
    }
}

Test(gpu_sdpa, gqa_mqa_and_layouts)
{
    static const int64_t heads[][2] = {{8, 1}, {8, 2}, {12, 4}, {4, 4}};
    for (int r = 0; r < 4; r++) {
        sdpa_case c = random_case();
        c.Hq = heads[r][0], c.Hk = heads[r][1], c.bshd = r % 2, c.stats = true;
        run(c, "gqa");
    }
}

Test(gpu_sdpa, head_dims_and_stats_outputs)
{
    static const int64_t d[][2] = {{8, 8}, {256, 256}, {192, 128}, {72, 72}, {128, 64}, {192, 192}, {256, 256}};
    for (int r = 0; r < 7; r++) {
        sdpa_case c = random_case();
        c.D = d[r][0], c.Dv = d[r][1], c.stats = true, c.max_sum = r % 2 == 0;
        c.mask = r % 2 ? M_CAUSAL : M_NONE;
        run(c, "head dims");
    }
}

Test(gpu_sdpa, scale_tensor_bias_alibi_sink)
{
    sdpa_case c = random_case();
    c.scale_tensor = true, c.stats = true;
    run(c, "scale tensor");
    c = random_case();
    c.bias = true;
    run(c, "bias");
    c = random_case();
    c.alibi = true, c.mask = M_CAUSAL, c.stats = true;
    run(c, "alibi");
    c = random_case();
    c.sink = true, c.stats = true, c.max_sum = true, c.mask = M_CAUSAL;
    run(c, "sink");
}

/* Philox dropout: RNG_DUMP (the keep mask used) equals the reference's element for element, and
 * O with it; then custom dropout (a 0/1 mask and a scale) with its RNG_DUMP. */
Test(gpu_sdpa, dropout_matches_the_reference_bit_for_bit)
{
    for (int r = 0; r < 3; r++) {
        sdpa_case c = random_case();
        c.dropout = true, c.stats = true, c.mask = r == 1 ? M_CAUSAL : M_NONE, c.rng_dump = r < 2;
        if (r == 2) /* the wgmma head dims */
            c.D = c.Dv = 128;
        run(c, "dropout");
    }
    for (int r = 0; r < 2; r++) {
        sdpa_case c = random_case();
        c.custom_dropout = true, c.rng_dump = true, c.stats = true, c.mask = r ? M_CAUSAL : M_NONE;
        run(c, "custom dropout");
    }
}

Test(gpu_sdpa, paged_kv)
{
    for (int r = 0; r < 2; r++) {
        sdpa_case c = random_case();
        c.paged = true, c.bshd = false, c.pad = 0, c.bs = r ? 16 : 64, c.stats = true;
        c.mask = r ? M_CAUSAL_BR : M_NONE;
        run(c, "paged");
    }
}

/* jit.sdpa_page_tile 2: threads' copies of 64- and 128-token pages with one page-table entry a
 * tile, the block's entries in shared memory (jit.sdpa_page_smem by shape) and loaded as the
 * tiles go, 1 to 4 tiles ahead of the copies (jit.sdpa_page_smem 1, jit.sdpa_kv_ahead); decode (the
 * warps' key split, padding with whole batches of no key) and prefill (64-row tiles, a causal
 * mask), Sq off every tile. */
Test(gpu_sdpa, paged_one_entry_a_tile)
{
    static const char *const ids[] = {"jit.sdpa_page_tile", "jit.sdpa_kv_ahead", "jit.sdpa_page_smem"};
    for (int q = 0; q < 8; q++) {
        const int r = q % 4;
        const int64_t knobs[] = {2, 1 + (r + 1) % 4, q < 4 ? 0 : 1};
        gpu_set_knobs(3, ids, knobs);
        sdpa_case c = random_case();
        c.paged = true, c.bshd = false, c.pad = 0, c.bs = r % 2 ? 128 : 64, c.stats = true;
        c.Hq = 32, c.Hk = 8, c.D = c.Dv = r == 3 ? 64 : 128;
        c.Sq = r < 2 ? 1 + r : rnd(65, 200), c.Skv = rnd(1, r < 2 ? 5000 : 1500), c.B = r < 2 ? c.B : 1;
        c.mask = r == 2 ? M_CAUSAL_BR : M_NONE, c.padding = r == 1;
        if (c.mask == M_CAUSAL_BR && c.Sq > c.Skv)
            c.Skv = c.Sq + rnd(0, 500);
        run(c, q < 4 ? "paged, one entry a tile, entries in shared memory" : "paged, one entry a tile, entries ahead");
    }
    gpu_set_knobs(0, NULL, NULL);
}

/* A decode-class case: Sq 1 .. 64 against up to 6000 keys, GQA 32:8 and 8:1 (packed) or MHA. */
static sdpa_case decode_case(int r)
{
    static const int64_t heads[][2] = {{32, 8}, {8, 1}, {4, 4}, {16, 2}};
    static const int64_t sq[] = {1, 4, 16, 64, 1, 7};
    sdpa_case c = random_case();
    c.B = rnd(1, 3), c.Sq = sq[r % 6], c.Skv = rnd(1, 6000), c.Hq = heads[r % 4][0], c.Hk = heads[r % 4][1];
    static const int64_t other[] = {64, 96, 192, 256};
    c.D = c.Dv = r % 3 ? 128 : other[rnd(0, 3)], c.stats = true;
    return c;
}

/* The decode path (GQA heads packed into a block's rows, keys split across blocks, the combine
 * launch): masks, padding (whole batches with no key: O = 0, Stats = −inf), paged K/V, Stats /
 * Max / Sum_exp, a sink, bias and dropout per packed row; then the knobs: a forced split count,
 * packing off, no split. */
Test(gpu_sdpa, decode_packed_and_split)
{
    for (int r = 0; r < 12; r++) {
        sdpa_case c = decode_case(r);
        c.mask = (mask_kind)(r % 3); /* none, causal top-left, causal bottom-right */
        if (c.mask == M_CAUSAL_BR && c.Sq > c.Skv)
            c.Skv = c.Sq + rnd(0, 500);
        c.padding = r % 4 == 1, c.max_sum = r % 2 == 0, c.sink = r % 5 == 2, c.bias = r == 7, c.dropout = r == 10;
        if (r % 4 == 3)
            c.paged = true, c.bshd = false, c.pad = 0, c.bs = r % 8 == 3 ? 16 : 64;
        run(c, "decode");
    }
    static const char *const ids[] = {"jit.sdpa_splits", "jit.sdpa_pack", "jit.sdpa_stages", "jit.sdpa_block_n",
                                      "jit.sdpa_ws", "jit.sdpa_ksplit"};
    /* jit.sdpa_ksplit 1 keeps the 64-row tiles where the shape would take the warps' key split */
    static const int64_t knobs[][6] = {{2, 0, 0, 0, 0, 1}, {128, 0, 0, 0, 0, 0}, {0, 1, 0, 0, 0, 1},
                                       {1, 0, 0, 0, 0, 1}, {16, 2, 3, 128, 0, 1}, {8, 0, 2, 0, 0, 0},
                                       {0, 0, 0, 0, 2, 0}, {0, 0, 4, 0, 2, 0}, {4, 1, 0, 128, 2, 0},
                                       {0, 0, 0, 0, 2, 0}};
    for (int s = 0; s < 10; s++) {
        gpu_set_knobs(6, ids, knobs[s]);
        sdpa_case c = decode_case(s);
        c.mask = s % 2 ? M_CAUSAL_BR : M_NONE, c.Skv = rnd(c.Sq > 600 ? (int)c.Sq : 600, 6000);
        c.padding = s >= 8, c.paged = s == 7 || s == 9;
        if (c.paged)
            c.bshd = false, c.pad = 0, c.bs = s == 7 ? 16 : 64;
        char tag[96];
        snprintf(tag, sizeof tag, "decode splits %lld pack %lld stages %lld bn %lld ws %lld ksplit %lld%s",
                 (long long)knobs[s][0], (long long)knobs[s][1], (long long)knobs[s][2], (long long)knobs[s][3],
                 (long long)knobs[s][4], (long long)knobs[s][5], c.paged ? " paged" : "");
        run(c, tag);
    }
    gpu_set_knobs(0, NULL, NULL);
}

/* Decode blocks whose four warps share a 16-row tile and split each K/V tile's keys
 * (jit.sdpa_ksplit 4, the warps' results merged in shared memory): packed rows up to 16 (GQA 32:8
 * and 16:2 at Sq 1-4 and 1-2, no GQA at Sq up to 16), head dims 64-256 and Dv != D, masks,
 * padding with whole batches of no key, paged K/V, bias, dropout, a sink, Max / Sum_exp; 64- and
 * 128-key tiles, two and three stages, with and without the split across blocks. */
Test(gpu_sdpa, decode_warps_split_keys)
{
    static const char *const ids[] = {"jit.sdpa_ksplit", "jit.sdpa_block_n", "jit.sdpa_stages", "jit.sdpa_splits"};
    static const int64_t knobs[][4] = {{4, 0, 0, 0}, {4, 128, 0, 0}, {4, 0, 2, 0}, {4, 0, 0, 1}, {4, 128, 2, 0},
                                       {4, 0, 0, 0}, {4, 0, 0, 8}, {4, 128, 0, 1}, {4, 0, 0, 0}, {4, 0, 3, 0}};
    static const int64_t heads[][3] = {{32, 8, 4}, {16, 2, 2}, {4, 4, 16}, {32, 8, 1}}; /* Hq, Hk, most Sq */
    for (int s = 0; s < 10; s++) {
        gpu_set_knobs(4, ids, knobs[s]);
        sdpa_case c = random_case();
        const int64_t *hd = heads[s % 4];
        c.B = rnd(1, 3), c.Hq = hd[0], c.Hk = hd[1], c.Sq = rnd(1, (int)hd[2]), c.Skv = rnd(1, 5000);
        static const int64_t dims[][2] = {{128, 128}, {64, 64}, {96, 96}, {256, 256}, {128, 64}};
        c.D = dims[s % 5][0], c.Dv = dims[s % 5][1], c.stats = true;
        c.mask = (mask_kind)(s % 3);
        if (c.mask == M_CAUSAL_BR && c.Sq > c.Skv)
            c.Skv = c.Sq + rnd(0, 500);
        c.padding = s % 4 == 1, c.max_sum = s % 2 == 0, c.sink = s == 2, c.bias = s == 5, c.dropout = s == 8;
        if (s == 3 || s == 7)
            c.paged = true, c.bshd = false, c.pad = 0, c.bs = s == 3 ? 16 : 64;
        char tag[96];
        snprintf(tag, sizeof tag, "decode ksplit bn %lld stages %lld splits %lld%s", (long long)knobs[s][1],
                 (long long)knobs[s][2], (long long)knobs[s][3], c.paged ? " paged" : "");
        run(c, tag);
    }
    gpu_set_knobs(0, NULL, NULL);
}

/* Every tile shape the knobs allow, on one case each (causal or padded at times), on mma.sync
 * (jit.sdpa_wgmma 0) and, on sm_90 with head dims 64 / 128, on wgmma with each kind of loader
 * (jit.sdpa_ws: the computing warps, a cp.async warpgroup, the TMA producer). */
Test(gpu_sdpa, knobs_every_tile_shape)
{
    static const char *const ids[] = {"jit.sdpa_block_m", "jit.sdpa_block_n", "jit.sdpa_warps", "jit.sdpa_stages",
                                      "jit.sdpa_wgmma", "jit.sdpa_ws"};
    static const int64_t shapes[][6] = {{64, 32, 4, 2, 0, 0}, {64, 64, 4, 3, 0, 0}, {128, 32, 8, 2, 0, 0},
                                        {128, 128, 8, 3, 0, 0}, {128, 64, 4, 3, 0, 0}, {64, 128, 4, 2, 0, 0},
                                        {128, 128, 8, 2, 0, 0}, {64, 64, 4, 2, 1, 3}, {64, 128, 4, 3, 1, 3},
                                        {128, 64, 8, 2, 1, 3}, {128, 128, 8, 3, 1, 3}, {128, 128, 8, 2, 1, 3},
                                        {128, 128, 8, 2, 1, 1}, {128, 64, 8, 3, 1, 1}, {64, 64, 4, 2, 1, 1},
                                        {128, 128, 8, 3, 1, 1}, {128, 128, 8, 2, 1, 2}, {64, 64, 4, 3, 1, 2},
                                        {128, 64, 8, 3, 1, 2}};
    for (int s = 0; s < 19; s++) {
        gpu_set_knobs(6, ids, shapes[s]);
        sdpa_case c = random_case();
        if (shapes[s][4]) /* the wgmma head dims */
            c.D = c.Dv = rnd(0, 1) ? 64 : 128;
        c.padding = s % 2, c.mask = s % 3 == 0 ? M_CAUSAL : M_NONE, c.stats = true;
        char tag[64];
        snprintf(tag, sizeof tag, "tiles %lld/%lld/%lld/%lld%s", (long long)shapes[s][0],
                 (long long)shapes[s][1], (long long)shapes[s][2], (long long)shapes[s][3],
                 shapes[s][5] == 2 ? " wgmma+tma" : shapes[s][5] ? " wgmma+loader" : shapes[s][4] ? " wgmma" : " mma.sync");
        run(c, tag);
    }
    gpu_set_knobs(0, NULL, NULL);
}

/* The persistent grid (jit.sdpa_persist 2: Q in two buffers, 3: in one, 4: in one with the work
 * tiles from a counter, the plan executed three times: each launch must leave it zero) with
 * several work tiles a block: more row tiles than the device has multiprocessors, so each block walks work tiles of
 * several heads, its K/V pipeline and Q buffers carried from one to the next; an odd number of row
 * tiles a head (3: the middle one a work item alone); causal (items of a longest and a shortest
 * tile), padding with per-batch lengths (some work tiles without a key) and GQA, at head dims 64
 * and 128, and at 192 (Dv 128 and 192) with Q in one buffer, where O cannot be staged in a K slot. */
Test(gpu_sdpa, persistent_many_tiles)
{
    static const char *const ids[] = {"jit.sdpa_persist", "jit.sdpa_ws", "jit.sdpa_pingpong", "jit.sdpa_intra"};
    static const int64_t knobs[][4] = {{2, 0, 0, 0}, {2, 4, 2, 2}, {2, 2, 0, 0}, {2, 4, 0, 2},
                                       {3, 0, 0, 0}, {3, 4, 2, 2}, {4, 0, 0, 0}, {4, 4, 2, 2},
                                       {4, 0, 0, 0}, {3, 0, 0, 0}};
    for (int s = 0; s < 10; s++) {
        gpu_set_knobs(4, ids, knobs[s]);
        sdpa_case c = random_case();
        c.B = 2, c.Hq = 40, c.Hk = s % 2 == 1 ? 10 : 40, c.Sq = rnd(257, 300), c.Skv = rnd(200, 420);
        c.D = c.Dv = s == 2 ? 64 : 128, c.stats = true;
        if (s >= 8) /* head dim 192: O through TMA does not fit a 64-key K slot, Q is kept until O left */
            c.D = 192, c.Dv = s == 8 ? 128 : 192;
        c.mask = s % 2 == 0 ? M_CAUSAL : M_NONE, c.padding = s % 2 == 1;
        char tag[96];
        snprintf(tag, sizeof tag, "persistent %lld %s ws %lld pingpong %lld intra %lld", (long long)knobs[s][0],
                 s % 2 == 0 ? "causal" : "padding gqa", (long long)knobs[s][1], (long long)knobs[s][2],
                 (long long)knobs[s][3]);
        gpu_set_executions(knobs[s][0] == 4 ? 3 : 1); /* the counter set back by each launch */
        run(c, tag);
        gpu_set_executions(1);
    }
    gpu_set_knobs(0, NULL, NULL);
}

/* Head dim 64 from 2048 query rows takes the FA3 schedule's 128 x 128 tiles by default (below,
 * one 64-row warpgroup): causal, and padding with per-batch lengths and Stats, both types. */
Test(gpu_sdpa, head_dim_64_long_queries)
{
    for (int s = 0; s < 2; s++) {
        sdpa_case c = random_case();
        c.B = 1, c.Hq = 2, c.Hk = s ? 1 : 2, c.D = c.Dv = 64, c.Sq = rnd(2048, 2300), c.Skv = rnd(2048, 2300);
        c.mask = s ? M_NONE : M_CAUSAL, c.padding = s == 1, c.stats = true;
        run(c, s ? "d64 long padding" : "d64 long causal");
    }
}

/* O through shared memory and TMA stores (jit.sdpa_o_tma 2): one and two computing warpgroups
 * (head dims 64 and 128; 192 with Dv 128), one block a work tile and the persistent grid, the
 * producer a warp or a warpgroup; row counts off the 64-row boxes (Sq 1, < 64, between tiles:
 * the copy clips the rows past Sq, whole boxes included), [b,s,h,d] and padded rows, both types,
 * causal and padding masks, Stats. */
Test(gpu_sdpa, o_through_tma)
{
    static const char *const ids[] = {"jit.sdpa_o_tma", "jit.sdpa_persist", "jit.sdpa_ws"};
    static const int64_t knobs[][3] = {{2, 0, 0}, {2, 2, 0}, {2, 0, 2}, {2, 2, 4}, {2, 0, 0}, {2, 2, 0}};
    static const int64_t sq[] = {1, 37, 130, 300, 64, 700};
    for (int s = 0; s < 6; s++) {
        gpu_set_knobs(3, ids, knobs[s]);
        sdpa_case c = random_case();
        c.D = c.Dv = s == 4 ? 64 : 128, c.stats = true, c.Sq = sq[s], c.Skv = rnd(1, 500);
        if (s == 5)
            c.D = 192, c.Dv = 128;
        if (s == 3)
            c.B = 2, c.Hq = 40, c.Hk = 10; /* more row tiles than multiprocessors */
        c.mask = (mask_kind)(s % 3), c.padding = s % 2 == 1;
        if (c.mask == M_CAUSAL_BR && c.Sq > c.Skv)
            c.Skv = c.Sq + rnd(0, 300);
        char tag[80];
        snprintf(tag, sizeof tag, "o_tma persist %lld ws %lld", (long long)knobs[s][1], (long long)knobs[s][2]);
        run(c, tag);
    }
    gpu_set_knobs(0, NULL, NULL);
}

/* The TMA producer's L2 prefetch of the next wave's first tiles (jit.sdpa_l2_ahead): asked for on
 * the one-warp producer with 64-row tiles and at head dim 64, turned off on the FlashAttention-3
 * schedule that takes it by default (head dim 128), one block a work tile (jit.sdpa_persist 1);
 * and the developer's phase trace (jit.sdpa_trace 1), which must not change a result. */
Test(gpu_sdpa, l2_prefetch_and_trace)
{
    static const char *const ids[] = {"jit.sdpa_l2_ahead", "jit.sdpa_ws", "jit.sdpa_persist", "jit.sdpa_trace"};
    static const int64_t knobs[][4] = {{2, 2, 1, 0}, {1, 0, 1, 0}, {2, 0, 1, 0}, {0, 2, 1, 1}};
    static const int64_t dims[][2] = {{128, 128}, {128, 128}, {64, 64}, {128, 128}};
    for (int s = 0; s < 4; s++) {
        gpu_set_knobs(4, ids, knobs[s]);
        sdpa_case c = random_case();
        c.D = dims[s][0], c.Dv = dims[s][1], c.stats = true, c.Sq = rnd(130, 400), c.Skv = rnd(1, 500);
        c.B = 2, c.Hq = 40, c.Hk = 10; /* more row tiles than multiprocessors: a wave ahead exists */
        c.mask = s % 2 ? M_CAUSAL : M_NONE;
        char tag[96];
        snprintf(tag, sizeof tag, "l2_ahead %lld ws %lld trace %lld", (long long)knobs[s][0], (long long)knobs[s][1],
                 (long long)knobs[s][3]);
        run(c, tag);
    }
    gpu_set_knobs(0, NULL, NULL);
}

/* The loaders of the wgmma loop with two computing warpgroups (head dim 128), with and without
 * their taking turns (jit.sdpa_pingpong) or FlashAttention-3's order (jit.sdpa_intra: softmax(t)
 * under P·V(t - 1)), alone and together, on the persistent grid and one block a work tile
 * (jit.sdpa_persist): the TMA producer (a warp, or a warpgroup giving its registers away) at 2 to
 * 4 stages, cp.async loaders; masks, padding, dropout, GQA and Stats on random shapes. */
Test(gpu_sdpa, loaders_and_pingpong)
{
    static const char *const ids[] = {"jit.sdpa_ws", "jit.sdpa_pingpong", "jit.sdpa_stages", "jit.sdpa_intra",
                                      "jit.sdpa_block_n", "jit.sdpa_persist"};
    static const int64_t knobs[][6] = {{2, 2, 0, 0, 0, 0}, {2, 2, 2, 0, 0, 2}, {1, 2, 3, 0, 0, 0}, {2, 1, 3, 0, 0, 2},
                                       {0, 2, 0, 0, 0, 0}, {1, 1, 2, 0, 0, 0}, {2, 0, 3, 2, 64, 0}, {2, 0, 4, 2, 64, 2},
                                       {1, 0, 3, 2, 64, 0}, {4, 0, 3, 0, 0, 0}, {4, 0, 3, 2, 128, 2}, {4, 2, 2, 0, 0, 0},
                                       {2, 2, 3, 2, 128, 0}, {4, 2, 3, 2, 128, 0}, {1, 2, 3, 2, 128, 0}};
    for (int s = 0; s < 15; s++) {
        gpu_set_knobs(6, ids, knobs[s]);
        sdpa_case c = random_case();
        c.D = c.Dv = 128, c.stats = true, c.max_sum = s % 2 == 1, c.padding = s % 3 == 2, c.dropout = s == 9;
        c.mask = (mask_kind)(s % 3), c.Sq = rnd(65, 700), c.Skv = rnd(1, 900);
        if (c.mask == M_CAUSAL_BR && c.Sq > c.Skv)
            c.Skv = c.Sq + rnd(0, 300);
        char tag[80];
        snprintf(tag, sizeof tag, "ws %lld pingpong %lld stages %lld intra %lld bn %lld persist %lld",
                 (long long)knobs[s][0], (long long)knobs[s][1], (long long)knobs[s][2], (long long)knobs[s][3],
                 (long long)knobs[s][4], (long long)knobs[s][5]);
        run(c, tag);
    }
    gpu_set_knobs(0, NULL, NULL);
}
