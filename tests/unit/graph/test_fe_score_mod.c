/* test_fe_score_mod.c — the SDPA forward's score modifier on the host (no GPU).
 *
 * Owns: the three HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_*_EXT attributes through the public
 * API (set, get, finalize), every refusal with its reason (a non-pointwise op, unknown or
 * misplaced uids, wrong dims, the combinations the FE rule forbids, uids
 * shared with the graph, missing attributes) and that a refused descriptor stays usable; the
 * IR it lowers to (a score tensor, the chain in the SDPA kernel of both partitions); graph and
 * kernel keys that differ whenever the modifier or one of its constants does (and agree for
 * the same modifier under other uids); JSON and FlatBuffer round trips; and the reference
 * engine against a softcap attention computed directly here on a tiny problem, with c by value
 * or in memory and a linear modifier s·a + b. Fresh random data and constants every run
 * (HIPDNN_TEST_SEED replays). GPU numerics: tests/gpu/test_gpu_sdpa_mod.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/tu.h"
#include "../../common/tu_close.h"
#include "graph/fe_graph_int.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR

static hipdnnHandle_t handle;

static void setup(void)
{
    TU_OK(hipdnnCreate(&handle));
}

static void teardown(void)
{
    tu_kept_release();
    cr_expect_eq(hipdnnDestroy(handle), HIPDNN_STATUS_SUCCESS);
}

TestSuite(score_mod, .init = setup, .fini = teardown, .timeout = 120);


/* ---- builders ------------------------------------------------------------------------------ */

static hipdnnBackendDescriptor_t tensor(int64_t uid, hipdnnDataType_t dt, const int64_t d[4], bool virt)
{
    return tu_keep(tu_tensor(uid, dt, 4, d, virt, NULL, 0));
}

/* A one-element FLOAT scalar [1,1,1,1]: by value holding v, or in memory (by_value false). */
static hipdnnBackendDescriptor_t scalar(int64_t uid, bool by_value, float v)
{
    int64_t d[4] = {1, 1, 1, 1};
    return tu_keep(tu_tensor(uid, HIPDNN_DATA_FLOAT, 4, d, false, by_value ? &v : NULL, sizeof v));
}

static hipdnnBackendDescriptor_t pw(hipdnnPointwiseMode_t mode, hipdnnBackendDescriptor_t in0,
                                    hipdnnBackendDescriptor_t in1, hipdnnBackendDescriptor_t out)
{
    hipdnnBackendDescriptor_t op = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, DESC, 1, &in0));
    if (in1 != NULL)
        TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_1_EXT, DESC, 1, &in1));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, DESC, 1, &out));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_TYPE_POINTWISE_MODE, 1, &mode));
    TU_OK(hipdnnBackendFinalize(op));
    return tu_keep(op);
}

/* A graph of n ops with the handle; finalized, asserting success. */
static hipdnnBackendDescriptor_t graph(int n, hipdnnBackendDescriptor_t *ops)
{
    hipdnnBackendDescriptor_t g = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, n, ops));
    tu_keep(g);
    TU_OK(hipdnnBackendFinalize(g));
    return g;
}

/* The problem: Q [B,H,Sq,D], K, V [B,H,Skv,D], O [B,H,Sq,D], Stats [B,H,Sq,1], FLOAT; uids 1..5. */
typedef struct prob {
    int64_t B, H, Sq, Skv, D;
    float scale;
} prob;

/* A score modifier's sub-graph and its two uids. kind 0: softcap c·tanh(s/c) with c by value;
 * 1: the same with c in memory (uid base + 4); 2: s·a + b with a, b in memory. Its uids start at
 * `base`; S is uid base. */
typedef struct mod {
    hipdnnBackendDescriptor_t g;
    int64_t in, out;
} mod;

static mod make_mod(const prob *p, int kind, float c, int64_t base)
{
    int64_t sd[4] = {p->B, p->H, p->Sq, p->Skv};
    hipdnnBackendDescriptor_t s = tensor(base, HIPDNN_DATA_FLOAT, sd, false);
    hipdnnBackendDescriptor_t t1 = tensor(base + 1, HIPDNN_DATA_FLOAT, sd, true);
    hipdnnBackendDescriptor_t t2 = tensor(base + 2, HIPDNN_DATA_FLOAT, sd, true);
    hipdnnBackendDescriptor_t m = tensor(base + 3, HIPDNN_DATA_FLOAT, sd, true);
    hipdnnBackendDescriptor_t ops[3];
    if (kind == 2) {
        hipdnnBackendDescriptor_t a = scalar(base + 4, false, 0), b = scalar(base + 5, false, 0);
        ops[0] = pw(HIPDNN_POINTWISE_MUL, s, a, t1);
        ops[1] = pw(HIPDNN_POINTWISE_ADD, t1, b, m);
        return (mod){graph(2, ops), base, base + 3};
    }
    hipdnnBackendDescriptor_t cv = scalar(base + 4, kind == 0, c);
    ops[0] = pw(HIPDNN_POINTWISE_DIV, s, cv, t1);
    ops[1] = pw(HIPDNN_POINTWISE_TANH_FWD, t1, NULL, t2);
    ops[2] = pw(HIPDNN_POINTWISE_MUL, t2, cv, m);
    return (mod){graph(3, ops), base, base + 3};
}

/* An SDPA forward op of p, unfinalized (the caller sets what it tests, then finalizes). */
static hipdnnBackendDescriptor_t sdpa_op(const prob *p)
{
    int64_t q[4] = {p->B, p->H, p->Sq, p->D}, kv[4] = {p->B, p->H, p->Skv, p->D};
    int64_t st[4] = {p->B, p->H, p->Sq, 1};
    hipdnnBackendDescriptor_t op = NULL, t[5] = {tensor(1, HIPDNN_DATA_FLOAT, q, false),
        tensor(2, HIPDNN_DATA_FLOAT, kv, false), tensor(3, HIPDNN_DATA_FLOAT, kv, false),
        tensor(4, HIPDNN_DATA_FLOAT, q, false), tensor(5, HIPDNN_DATA_FLOAT, st, false)};
    hipdnnBackendAttributeName_t ids[5] = {HIPDNN_ATTR_OPERATION_SDPA_FWD_QDESC, HIPDNN_ATTR_OPERATION_SDPA_FWD_KDESC,
        HIPDNN_ATTR_OPERATION_SDPA_FWD_VDESC, HIPDNN_ATTR_OPERATION_SDPA_FWD_ODESC,
        HIPDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC};
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT, &op));
    for (int i = 0; i < 5; i++)
        TU_OK(hipdnnBackendSetAttribute(op, ids[i], DESC, 1, &t[i]));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_SDPA_FWD_ATTN_SCALE_VALUE_EXT, HIPDNN_TYPE_FLOAT, 1, &p->scale));
    return tu_keep(op);
}

static void set_mod(hipdnnBackendDescriptor_t op, const mod *m)
{
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_GRAPH_EXT, DESC, 1, &m->g));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_INPUT_UID_EXT,
                                    HIPDNN_TYPE_INT64, 1, &m->in));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_OUTPUT_UID_EXT,
                                    HIPDNN_TYPE_INT64, 1, &m->out));
}

static prob random_prob(void)
{
    return (prob){.B = tu_range(1, 2), .H = tu_range(1, 3), .Sq = tu_range(1, 9), .Skv = tu_range(1, 11),
                  .D = 8 * tu_range(1, 2), .scale = tu_float(0.5f, 1.5f)};
}

/* A finalized graph of one SDPA op with modifier kind (-1: none) and constant c. */
static hipdnnBackendDescriptor_t sdpa_graph(const prob *p, int kind, float c, int64_t base)
{
    hipdnnBackendDescriptor_t op = sdpa_op(p);
    if (kind >= 0) {
        mod m = make_mod(p, kind, c, base);
        set_mod(op, &m);
    }
    TU_OK(hipdnnBackendFinalize(op));
    return graph(1, &op);
}

static const ir_graph *ir_of(hipdnnBackendDescriptor_t g) { return fe_graph_of(g->obj)->ir; }

static void key_of(hipdnnBackendDescriptor_t g, char key[33])
{
    int64_t n = 0;
    TU_OK(hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT, HIPDNN_TYPE_CHAR, 33, &n, key));
}

/* Finalize of op fails with BAD_PARAM naming `word`. */
static void expect_refused(hipdnnBackendDescriptor_t op, const char *what, const char *word)
{
    hipdnnStatus_t st = hipdnnBackendFinalize(op);
    const char *msg = tu_msg();
    cr_expect_eq(st, HIPDNN_STATUS_BAD_PARAM, "%s: finalize -> %s [%s]", what, tu_st(st), msg);
    cr_expect_neq(strstr(msg, word), NULL, "%s: message '%s' lacks '%s'", what, msg, word);
}

/* ---- API ----------------------------------------------------------------------------------- */

Test(score_mod, set_get_finalize_and_lowering)
{
    tu_seed("score_mod::set_get_finalize_and_lowering");
    prob p = random_prob();
    mod m = make_mod(&p, 0, tu_float(5, 50), 100);
    hipdnnBackendDescriptor_t op = sdpa_op(&p);
    set_mod(op, &m);
    TU_OK(hipdnnBackendFinalize(op));
    hipdnnBackendDescriptor_t back = NULL;
    int64_t n = 0, in = 0, out = 0;
    TU_OK(hipdnnBackendGetAttribute(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_GRAPH_EXT, DESC, 1, &n, &back));
    tu_keep(back); /* a new wrapper, the caller's to destroy */
    cr_expect_eq(n, 1);
    cr_expect_eq(back->obj, m.g->obj, "the graph read back is the one set");
    TU_OK(hipdnnBackendGetAttribute(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_INPUT_UID_EXT, HIPDNN_TYPE_INT64, 1, &n, &in));
    TU_OK(hipdnnBackendGetAttribute(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_OUTPUT_UID_EXT, HIPDNN_TYPE_INT64, 1, &n, &out));
    cr_expect(in == m.in && out == m.out, "uids read back: %lld %lld", (long long)in, (long long)out);
    /* the IR: S a score tensor, three pointwise ops feeding the SDPA op's modifier slot */
    hipdnnBackendDescriptor_t g = graph(1, &op);
    const ir_graph *ir = ir_of(g);
    cr_assert_not_null(ir, "the graph lowers");
    int sdpa = -1, scores = 0;
    for (int k = 0; k < ir->n_ops; k++)
        sdpa = ir->ops[k].kind == IR_OP_SDPA_FWD ? k : sdpa;
    for (int i = 0; i < ir->n_t; i++)
        scores += ir->t[i].score;
    cr_assert_geq(sdpa, 0);
    cr_expect_eq(ir->n_ops, 4);
    cr_expect_eq(scores, 1);
    cr_expect_eq(ir->t[ir->ops[sdpa].in[IR_SDPA_SCORE_MOD]].uid, m.out);
    /* both partitions keep the chain inside the SDPA kernel, and nowhere else */
    for (int fused = 0; fused < 2; fused++) {
        ir_partition part;
        TU_OK(fused ? ir_fuse(ir, &part) : ir_split(ir, &part));
        cr_expect_eq(part.n, 1, "%s: one kernel", fused ? "fused" : "unfused");
        int n_score = 0;
        for (int i = 0; part.n == 1 && i < part.k[0].n_ops; i++)
            n_score += part.k[0].part[i] == IR_PART_SCORE;
        cr_expect_eq(n_score, 3, "%s: the chain is the SDPA kernel's score hook", fused ? "fused" : "unfused");
        for (int i = 0; part.n == 1 && i < part.k[0].n_reads; i++)
            cr_expect(!ir->t[part.k[0].reads[i]].score, "the score tensor is never read from memory");
        ir_partition_free(&part);
    }
}

Test(score_mod, refusals_name_what_is_wrong)
{
    tu_seed("score_mod::refusals_name_what_is_wrong");
    prob p = random_prob();
    mod good = make_mod(&p, 0, 30, 200);
    /* only some of the three attributes */
    hipdnnBackendDescriptor_t op = sdpa_op(&p);
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_GRAPH_EXT, DESC, 1, &good.g));
    expect_refused(op, "graph without uids", "come together");
    set_mod(op, &good); /* a refused op stays settable; fixed, it finalizes */
    TU_OK(hipdnnBackendFinalize(op));
    /* unknown input uid, an output that is the input */
    mod m = good;
    m.in = 987654;
    set_mod(op = sdpa_op(&p), &m);
    expect_refused(op, "unknown input uid", "not a tensor of the sub-graph");
    m = good, m.out = good.in;
    set_mod(op = sdpa_op(&p), &m);
    expect_refused(op, "output = input", "SCORE_MOD_OUTPUT_UID");
    /* S of the wrong dims */
    prob q = p;
    q.Skv += 1;
    m = make_mod(&q, 0, 30, 300);
    set_mod(op = sdpa_op(&p), &m);
    expect_refused(op, "wrong dims", "must be a FLOAT");
    /* a non-pointwise op (a matmul) in the sub-graph */
    int64_t ad[4] = {1, 1, 2, 3}, bd[4] = {1, 1, 3, 4}, cd[4] = {1, 1, 2, 4};
    hipdnnBackendDescriptor_t mm = NULL, a = tensor(400, HIPDNN_DATA_FLOAT, ad, false),
                              b = tensor(401, HIPDNN_DATA_FLOAT, bd, false), c = tensor(402, HIPDNN_DATA_FLOAT, cd, false);
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT, &mm));
    tu_keep(mm);
    TU_OK(hipdnnBackendSetAttribute(mm, HIPDNN_ATTR_OPERATION_MATMUL_ADESC, DESC, 1, &a));
    TU_OK(hipdnnBackendSetAttribute(mm, HIPDNN_ATTR_OPERATION_MATMUL_BDESC, DESC, 1, &b));
    TU_OK(hipdnnBackendSetAttribute(mm, HIPDNN_ATTR_OPERATION_MATMUL_CDESC, DESC, 1, &c));
    TU_OK(hipdnnBackendFinalize(mm));
    m = (mod){graph(1, &mm), 400, 402};
    set_mod(op = sdpa_op(&p), &m);
    expect_refused(op, "matmul in the sub-graph", "POINTWISE");
    /* an input that is not a one-element scalar but broadcasts to the scores (a per-key bias in
     * memory): accepted since index-aware modifiers (test_fe_mask_mod.c has the refusals of
     * tensors that do not broadcast) */
    p.Skv = tu_range(2, 11);
    good = make_mod(&p, 0, 30, 250);
    int64_t sd[4] = {p.B, p.H, p.Sq, p.Skv}, rowd[4] = {1, 1, 1, p.Skv};
    hipdnnBackendDescriptor_t s = tensor(500, HIPDNN_DATA_FLOAT, sd, false), row = tensor(501, HIPDNN_DATA_FLOAT, rowd, false);
    hipdnnBackendDescriptor_t y = tensor(502, HIPDNN_DATA_FLOAT, sd, true);
    hipdnnBackendDescriptor_t add = pw(HIPDNN_POINTWISE_ADD, s, row, y);
    m = (mod){graph(1, &add), 500, 502};
    set_mod(op = sdpa_op(&p), &m);
    TU_OK(hipdnnBackendFinalize(op));
    /* the combinations the FE rule forbids */
    const hipdnnBackendAttributeName_t flags[] = {HIPDNN_ATTR_SDPA_FWD_ALIBI_MASK_EXT,
        HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_EXT, HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_BOTTOM_RIGHT_EXT};
    const char *names[] = {"ALIBI", "CAUSAL_MASK", "CAUSAL_MASK_BOTTOM_RIGHT"};
    bool on = true;
    int64_t zero = 0, one = 1;
    for (int i = 0; i < 3; i++) {
        set_mod(op = sdpa_op(&p), &good);
        TU_OK(hipdnnBackendSetAttribute(op, flags[i], HIPDNN_TYPE_BOOLEAN, 1, &on));
        if (i == 0) /* ALiBi needs a causal mask of its own */
            TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_SDPA_FWD_RIGHT_BOUND_EXT, HIPDNN_TYPE_INT64, 1, &zero));
        expect_refused(op, names[i], "excludes");
    }
    set_mod(op = sdpa_op(&p), &good);
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_SDPA_FWD_RIGHT_BOUND_EXT, HIPDNN_TYPE_INT64, 1, &zero));
    expect_refused(op, "right bound", "RIGHT_BOUND");
    set_mod(op = sdpa_op(&p), &good);
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_SDPA_FWD_LEFT_BOUND_EXT, HIPDNN_TYPE_INT64, 1, &one));
    expect_refused(op, "left bound", "LEFT_BOUND");
    /* a sub-graph uid that is also one of the graph's: the graph refuses to finalize */
    hipdnnBackendDescriptor_t g = NULL;
    mod clash = make_mod(&p, 1, 30, 1); /* S = uid 1 = Q */
    set_mod(op = sdpa_op(&p), &clash);
    TU_OK(hipdnnBackendFinalize(op));
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    tu_keep(g);
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 1, &op));
    cr_expect_eq(hipdnnBackendFinalize(g), HIPDNN_STATUS_BAD_PARAM);
    cr_expect_neq(strstr(tu_msg(), "also a tensor of the graph"), NULL, "[%s]", tu_msg());
    /* the backward has no modifier attribute */
    hipdnnBackendDescriptor_t bwd = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_SDPA_BPROP_DESCRIPTOR_EXT, &bwd));
    tu_keep(bwd);
    cr_expect_neq(hipdnnBackendSetAttribute(bwd, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_GRAPH_EXT, DESC, 1, &good.g),
                  HIPDNN_STATUS_SUCCESS, "SDPA backward takes no score modifier");
    /* a type mismatch on the graph attribute */
    cr_expect_neq(hipdnnBackendSetAttribute(op = sdpa_op(&p), HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_GRAPH_EXT,
                                            DESC, 1, &row), HIPDNN_STATUS_SUCCESS, "a tensor is not a graph");
}

/* ---- keys ---------------------------------------------------------------------------------- */

static void kernel_key(hipdnnBackendDescriptor_t g, ir_key *key)
{
    ir_partition part;
    TU_OK(ir_fuse(ir_of(g), &part));
    cr_assert_eq(part.n, 1);
    TU_OK(ir_kernel_key(ir_of(g), part.k[0].ops, part.k[0].n_ops, key));
    ir_partition_free(&part);
}

Test(score_mod, keys_follow_the_modifier_and_its_constants)
{
    tu_seed("score_mod::keys_follow_the_modifier_and_its_constants");
    prob p = random_prob();
    float c = tu_float(5, 50);
    hipdnnBackendDescriptor_t g[5] = {sdpa_graph(&p, 0, c, 100), sdpa_graph(&p, 0, c, 7000),
                                      sdpa_graph(&p, 0, c * 1.5f, 100), sdpa_graph(&p, -1, 0, 0),
                                      sdpa_graph(&p, 2, 0, 100)};
    char k[5][33];
    ir_key kk[5];
    for (int i = 0; i < 5; i++)
        key_of(g[i], k[i]), kernel_key(g[i], &kk[i]);
    cr_expect_str_eq(k[0], k[1], "the same modifier under other uids: one key");
    cr_expect(memcmp(&kk[0], &kk[1], sizeof kk[0]) == 0, "... and one kernel key");
    for (int i = 2; i < 5; i++) {
        cr_expect_str_neq(k[0], k[i], "graph %d: another modifier or constant, another graph key", i);
        cr_expect(memcmp(&kk[0], &kk[i], sizeof kk[0]) != 0, "graph %d: another kernel key", i);
    }
    /* c in memory: the key does not depend on its value (it is bound at execute time) */
    hipdnnBackendDescriptor_t m1 = sdpa_graph(&p, 1, 0, 100), m2 = sdpa_graph(&p, 1, 0, 100);
    char a[33], b[33];
    key_of(m1, a), key_of(m2, b);
    cr_expect_str_eq(a, b);
    cr_expect_str_neq(a, k[0], "c in memory is another graph than c by value");
}

/* ---- serialization ---------------------------------------------------------------------------- */

Test(score_mod, json_and_flatbuffer_round_trips)
{
    tu_seed("score_mod::json_and_flatbuffer_round_trips");
    prob p = random_prob();
    for (int kind = 0; kind < 3; kind++) {
        hipdnnBackendDescriptor_t g = sdpa_graph(&p, kind, tu_float(5, 50), 100);
        char key[33], key2[33];
        key_of(g, key);
        size_t n = 0;
        TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(g, 0, &n, NULL));
        char *text = malloc(n), *text2 = malloc(n);
        TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(g, n, &n, text));
        cr_expect_neq(strstr(text, "score_mod_graph"), NULL, "the JSON holds the modifier");
        hipdnnBackendDescriptor_t back = NULL;
        TU_OK(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&back, text, strlen(text)));
        tu_keep(back);
        TU_OK(hipdnnBackendSetAttribute(back, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
        TU_OK(hipdnnBackendFinalize(back));
        key_of(back, key2);
        cr_expect_str_eq(key, key2, "kind %d: JSON round trip keeps the key", kind);
        size_t n2 = 0;
        TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(back, n, &n2, text2));
        cr_expect_str_eq(text, text2, "kind %d: the text re-serializes byte for byte", kind);
        free(text), free(text2);
        /* FlatBuffer */
        TU_OK(hipdnnBackendGetSerializedBinaryGraph_ext(g, 0, &n, NULL));
        uint8_t *bin = malloc(n);
        TU_OK(hipdnnBackendGetSerializedBinaryGraph_ext(g, n, &n, bin));
        hipdnnBackendDescriptor_t fb = NULL;
        TU_OK(hipdnnBackendCreateAndDeserializeGraph_ext(&fb, bin, n));
        tu_keep(fb);
        TU_OK(hipdnnBackendSetAttribute(fb, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
        TU_OK(hipdnnBackendFinalize(fb));
        key_of(fb, key2);
        cr_expect_str_eq(key, key2, "kind %d: FlatBuffer round trip keeps the key", kind);
        free(bin);
    }
}

Test(score_mod, json_with_a_nested_non_pointwise_graph_is_refused)
{
    tu_seed("score_mod::json_with_a_nested_non_pointwise_graph_is_refused");
    prob p = random_prob();
    hipdnnBackendDescriptor_t g = sdpa_graph(&p, 0, 30, 100);
    size_t n = 0;
    TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(g, 0, &n, NULL));
    char *text = malloc(n);
    TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(g, n, &n, text));
    /* the nested graph's nodes renamed to an SDPA node: refused before it is built */
    char *at = strstr(strstr(text, "score_mod_graph"), "PointwiseAttributes");
    cr_assert_not_null(at);
    char *bad = malloc(n + 16);
    snprintf(bad, n + 16, "%.*sSdpaAttributes%s", (int)(at - text), text, at + strlen("PointwiseAttributes"));
    hipdnnBackendDescriptor_t out = (hipdnnBackendDescriptor_t)(uintptr_t)0x5151;
    cr_expect_eq(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&out, bad, strlen(bad)), HIPDNN_STATUS_BAD_PARAM);
    cr_expect_neq(strstr(tu_msg(), "PointwiseAttributes"), NULL, "[%s]", tu_msg());
    cr_expect_eq(out, (hipdnnBackendDescriptor_t)(uintptr_t)0x5151, "the output is untouched");
    free(text), free(bad);
}

/* ---- the reference engine against a direct computation -------------------------------------- */

static hipdnnBackendDescriptor_t reference_plan(hipdnnBackendDescriptor_t g, int64_t *ws)
{
    int64_t id = 0, n = 0;
    hipdnnBackendDescriptor_t plan = NULL;
    TU_OK(hipdnnGetEngineIdByName_ext(handle, "reference", &id));
    TU_OK(tu_try_plan(handle, g, id, &plan));
    tu_keep(plan);
    TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, &n, ws));
    return plan;
}

/* O and Stats of softmax(mod(Q·Kᵀ·scale))·V computed here in double. */
static void direct(const prob *p, int kind, double c, double a, double b, const float *q, const float *k,
                   const float *v, double *o, double *stats)
{
    int64_t Sq = p->Sq, Skv = p->Skv, D = p->D;
    double *s = malloc((size_t)Skv * sizeof *s);
    for (int64_t bh = 0; bh < p->B * p->H; bh++)
        for (int64_t i = 0; i < Sq; i++) {
            double mx = -INFINITY, l = 0;
            for (int64_t j = 0; j < Skv; j++) {
                double acc = 0;
                for (int64_t d = 0; d < D; d++)
                    acc += (double)q[(bh * Sq + i) * D + d] * k[(bh * Skv + j) * D + d];
                acc *= p->scale;
                s[j] = kind == 2 ? acc * a + b : c * tanh(acc / c);
                mx = fmax(mx, s[j]);
            }
            for (int64_t j = 0; j < Skv; j++)
                l += exp(s[j] - mx);
            for (int64_t d = 0; d < D; d++) {
                double acc = 0;
                for (int64_t j = 0; j < Skv; j++)
                    acc += exp(s[j] - mx) / l * v[(bh * Skv + j) * D + d];
                o[(bh * Sq + i) * D + d] = acc;
            }
            stats[bh * Sq + i] = mx + log(l);
        }
    free(s);
}

Test(score_mod, reference_matches_a_direct_computation)
{
    uint64_t seed = tu_seed("score_mod::reference_matches_a_direct_computation");
    for (int kind = 0; kind < 3; kind++) {
        prob p = random_prob();
        float c = tu_float(5, 50), a = tu_float(-2, 2), b = tu_float(-3, 3);
        hipdnnBackendDescriptor_t g = sdpa_graph(&p, kind, c, 100);
        int64_t ws = 0;
        hipdnnBackendDescriptor_t plan = reference_plan(g, &ws);
        size_t nq = (size_t)(p.B * p.H * p.Sq * p.D), nk = (size_t)(p.B * p.H * p.Skv * p.D);
        size_t ns = (size_t)(p.B * p.H * p.Sq);
        float *q = malloc(nq * 4), *k = malloc(nk * 4), *v = malloc(nk * 4), *o = malloc(nq * 4);
        float *st = malloc(ns * 4);
        double *wo = malloc(nq * 8), *wst = malloc(ns * 8);
        for (size_t i = 0; i < nq; i++)
            q[i] = tu_float(-4, 4), o[i] = NAN;
        for (size_t i = 0; i < nk; i++)
            k[i] = tu_float(-4, 4), v[i] = tu_float(-2, 2);
        for (size_t i = 0; i < ns; i++)
            st[i] = NAN;
        /* scores reach |S| of D·16·scale: tanh(S/c) saturates for c <= 50 */
        int64_t uids[8] = {1, 2, 3, 4, 5, 104, 105};
        void *ptrs[8] = {q, k, v, o, st, kind == 2 ? (void *)&a : (void *)&c, &b};
        int n = kind == 0 ? 5 : kind == 1 ? 6 : 7;
        void *work = malloc((size_t)ws + 1);
        hipdnnBackendDescriptor_t pack = NULL;
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack));
        tu_keep(pack);
        TU_OK(hipdnnBackendSetAttribute(pack, HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, HIPDNN_TYPE_INT64, n, uids));
        TU_OK(hipdnnBackendSetAttribute(pack, HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS, HIPDNN_TYPE_VOID_PTR, n, ptrs));
        TU_OK(hipdnnBackendSetAttribute(pack, HIPDNN_ATTR_VARIANT_PACK_WORKSPACE, HIPDNN_TYPE_VOID_PTR, 1, &work));
        TU_OK(hipdnnBackendFinalize(pack));
        TU_OK(hipdnnBackendExecute(handle, plan, pack));
        direct(&p, kind, c, a, b, q, k, v, wo, wst);
        /* float outputs of a double computation: 1e-5 covers their rounding and the sums' order */
        double *go = malloc(nq * 8), *gst = malloc(ns * 8);
        for (size_t i = 0; i < nq; i++)
            go[i] = o[i];
        for (size_t i = 0; i < ns; i++)
            gst[i] = st[i];
        char what[96];
        snprintf(what, sizeof what, "kind %d: O against the direct computation (seed %llu)", kind,
                 (unsigned long long)seed);
        tu_expect_close(what, go, wo, nq, (tu_tol){1e-5, 1e-5});
        snprintf(what, sizeof what, "kind %d: Stats against the direct computation (seed %llu)", kind,
                 (unsigned long long)seed);
        tu_expect_close(what, gst, wst, ns, (tu_tol){1e-5, 1e-5});
        free(go), free(gst);
        int saturated = 0;
        for (size_t i = 0; i < ns; i++)
            saturated += kind < 2 && wst[i] > c * 0.9; /* some scores near the cap */
        cr_log_info("kind %d: c %.3g, %d rows near the cap", kind, (double)c, saturated);
        /* a missing binding of c in memory is refused */
        if (kind == 1) {
            hipdnnBackendDescriptor_t short_pack = NULL;
            TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &short_pack));
            tu_keep(short_pack);
            TU_OK(hipdnnBackendSetAttribute(short_pack, HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, HIPDNN_TYPE_INT64, 5, uids));
            TU_OK(hipdnnBackendSetAttribute(short_pack, HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS, HIPDNN_TYPE_VOID_PTR, 5, ptrs));
            TU_OK(hipdnnBackendSetAttribute(short_pack, HIPDNN_ATTR_VARIANT_PACK_WORKSPACE, HIPDNN_TYPE_VOID_PTR, 1, &work));
            TU_OK(hipdnnBackendFinalize(short_pack));
            cr_expect_neq(hipdnnBackendExecute(handle, plan, short_pack), HIPDNN_STATUS_SUCCESS,
                          "the modifier's scalar in memory must be bound");
        }
        free(q), free(k), free(v), free(o), free(st), free(wo), free(wst), free(work);
    }
}
