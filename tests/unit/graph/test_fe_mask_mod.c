/* test_fe_mask_mod.c — SDPA mask modifiers and index-aware score modifiers on the host (no GPU).
 *
 * Owns: the HIPDNN_ATTR_OPERATION_SDPA_{FWD,BWD}_MASK_MOD_*_EXT attributes through the public
 * API on every mask kind of tests/common/mask_mods.h (forward and backward, alone and with the
 * causal, band and padding masks they do not exclude); the IR they lower to (the op's mask slot,
 * the index space a score tensor, the chain in the SDPA kernel of both partitions, its tensors in
 * memory read by that kernel); score modifiers reading GEN_INDEX and broadcast tensors; every
 * refusal with its reason (half-set triples, a result that is not BOOLEAN or not [B,Hq,Sq,Skv],
 * a tensor that does not broadcast, GEN_INDEX reading memory or into a non-index type or along
 * an axis out of range, a non-POINTWISE op, the index space read by another op, uids shared with
 * the graph or between the two modifiers); that the JIT kernels refuse fp32 attention for its
 * type, not for a modifier (bf16 masked and index-aware ones they take) while the reference
 * engine takes them; graph keys that follow the mask and its constants but not
 * its uids; JSON and FlatBuffer round trips; the example graphs. Fresh random sizes and masks
 * every run (HIPDNN_TEST_SEED replays). Numerics: tests/api/test_sdpa_mask_mod.c; block
 * classification: tests/unit/ir/test_ir_block_mask.c.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/mask_mods.h"
#include "../../common/tu.h"
#include "codegen/cg.h"
#include "graph/fe_graph_int.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR
#define MAX_MASKS 16

static hipdnnHandle_t handle;
static mm_mask masks[MAX_MASKS];
static int n_masks;

static void setup(void)
{
    TU_OK(hipdnnCreate(&handle));
    n_masks = 0;
}

static void teardown(void)
{
    tu_kept_release();
    while (n_masks > 0)
        mm_free(&masks[--n_masks]);
    cr_expect_eq(hipdnnDestroy(handle), HIPDNN_STATUS_SUCCESS);
}

TestSuite(mask_mod, .init = setup, .fini = teardown, .timeout = 120);


static mm_mask *mask(mm_kind kind, const int64_t dims[4], int64_t base)
{
    cr_assert_lt(n_masks, MAX_MASKS);
    mm_build(&masks[n_masks], handle, kind, dims, base);
    return &masks[n_masks++];
}

/* ---- builders ------------------------------------------------------------------------------ */

typedef struct prob {
    int64_t B, H, Sq, Skv, D;
} prob;

static prob random_prob(void)
{
    return (prob){.B = tu_range(1, 2), .H = tu_range(1, 3), .Sq = tu_range(2, 9), .Skv = tu_range(2, 11),
                  .D = 8};
}

static const int64_t *scores(const prob *p)
{
    static int64_t d[4];
    d[0] = p->B, d[1] = p->H, d[2] = p->Sq, d[3] = p->Skv;
    return d;
}

static hipdnnBackendDescriptor_t tensor(int64_t uid, hipdnnDataType_t dt, int64_t d0, int64_t d1, int64_t d2,
                                        int64_t d3, bool virt)
{
    const int64_t d[4] = {d0, d1, d2, d3};
    return tu_keep(tu_tensor(uid, dt, 4, d, virt, NULL, 0));
}

static hipdnnBackendDescriptor_t pw(hipdnnPointwiseMode_t mode, hipdnnBackendDescriptor_t in0,
                                    hipdnnBackendDescriptor_t in1, hipdnnBackendDescriptor_t out, int64_t axis)
{
    hipdnnBackendDescriptor_t op = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op));
    tu_keep(op);
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, DESC, 1, &in0));
    if (in1 != NULL)
        TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_1_EXT, DESC, 1, &in1));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, DESC, 1, &out));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_TYPE_POINTWISE_MODE, 1, &mode));
    if (mode == HIPDNN_POINTWISE_GEN_INDEX)
        TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_POINTWISE_AXIS, HIPDNN_TYPE_INT64, 1, &axis));
    TU_OK(hipdnnBackendFinalize(op));
    return op;
}

static hipdnnBackendDescriptor_t graph(int n, hipdnnBackendDescriptor_t *ops)
{
    hipdnnBackendDescriptor_t g = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    tu_keep(g);
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, n, ops));
    TU_OK(hipdnnBackendFinalize(g));
    return g;
}

/* An unfinalized SDPA forward (bwd false) or backward op of p, FLOAT; uids 1..10. */
static hipdnnBackendDescriptor_t sdpa_op(const prob *p, bool bwd)
{
    hipdnnBackendDescriptor_t op = NULL, q = tensor(1, HIPDNN_DATA_FLOAT, p->B, p->H, p->Sq, p->D, false);
    hipdnnBackendDescriptor_t k = tensor(2, HIPDNN_DATA_FLOAT, p->B, p->H, p->Skv, p->D, false);
    hipdnnBackendDescriptor_t v = tensor(3, HIPDNN_DATA_FLOAT, p->B, p->H, p->Skv, p->D, false);
    hipdnnBackendDescriptor_t o = tensor(4, HIPDNN_DATA_FLOAT, p->B, p->H, p->Sq, p->D, false);
    hipdnnBackendDescriptor_t st = tensor(5, HIPDNN_DATA_FLOAT, p->B, p->H, p->Sq, 1, false);
    TU_OK(hipdnnBackendCreateDescriptor(bwd ? HIPDNN_BACKEND_OPERATION_SDPA_BPROP_DESCRIPTOR_EXT
                                            : HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT, &op));
    tu_keep(op);
    if (!bwd) {
        const hipdnnBackendAttributeName_t ids[5] = {HIPDNN_ATTR_OPERATION_SDPA_FWD_QDESC,
            HIPDNN_ATTR_OPERATION_SDPA_FWD_KDESC, HIPDNN_ATTR_OPERATION_SDPA_FWD_VDESC,
            HIPDNN_ATTR_OPERATION_SDPA_FWD_ODESC, HIPDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC};
        hipdnnBackendDescriptor_t t[5] = {q, k, v, o, st};
        for (int i = 0; i < 5; i++)
            TU_OK(hipdnnBackendSetAttribute(op, ids[i], DESC, 1, &t[i]));
        return op;
    }
    const hipdnnBackendAttributeName_t ids[9] = {HIPDNN_ATTR_OPERATION_SDPA_BWD_Q_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_K_EXT,
        HIPDNN_ATTR_OPERATION_SDPA_BWD_V_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_O_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_STATS_EXT,
        HIPDNN_ATTR_OPERATION_SDPA_BWD_DO_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_DQ_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_DK_EXT,
        HIPDNN_ATTR_OPERATION_SDPA_BWD_DV_EXT};
    hipdnnBackendDescriptor_t t[9] = {q, k, v, o, st, tensor(6, HIPDNN_DATA_FLOAT, p->B, p->H, p->Sq, p->D, false),
        tensor(7, HIPDNN_DATA_FLOAT, p->B, p->H, p->Sq, p->D, false),
        tensor(8, HIPDNN_DATA_FLOAT, p->B, p->H, p->Skv, p->D, false),
        tensor(9, HIPDNN_DATA_FLOAT, p->B, p->H, p->Skv, p->D, false)};
    for (int i = 0; i < 9; i++)
        TU_OK(hipdnnBackendSetAttribute(op, ids[i], DESC, 1, &t[i]));
    return op;
}

/* Sets a sub-graph g with uids in, out as the op's mask (score: its score) modifier. */
static void set_mod(hipdnnBackendDescriptor_t op, bool bwd, bool score, hipdnnBackendDescriptor_t g, int64_t in,
                    int64_t out)
{
    hipdnnBackendAttributeName_t ids[3] = {HIPDNN_ATTR_OPERATION_SDPA_FWD_MASK_MOD_GRAPH_EXT,
        HIPDNN_ATTR_OPERATION_SDPA_FWD_MASK_MOD_INPUT_UID_EXT, HIPDNN_ATTR_OPERATION_SDPA_FWD_MASK_MOD_OUTPUT_UID_EXT};
    if (bwd)
        ids[0] = HIPDNN_ATTR_OPERATION_SDPA_BWD_MASK_MOD_GRAPH_EXT, ids[1] = HIPDNN_ATTR_OPERATION_SDPA_BWD_MASK_MOD_INPUT_UID_EXT,
        ids[2] = HIPDNN_ATTR_OPERATION_SDPA_BWD_MASK_MOD_OUTPUT_UID_EXT;
    if (score)
        ids[0] = HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_GRAPH_EXT, ids[1] = HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_INPUT_UID_EXT,
        ids[2] = HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_OUTPUT_UID_EXT;
    TU_OK(hipdnnBackendSetAttribute(op, ids[0], DESC, 1, &g));
    TU_OK(hipdnnBackendSetAttribute(op, ids[1], HIPDNN_TYPE_INT64, 1, &in));
    TU_OK(hipdnnBackendSetAttribute(op, ids[2], HIPDNN_TYPE_INT64, 1, &out));
}

/* Finalize of op fails with BAD_PARAM naming `word`. */
static void expect_refused(hipdnnBackendDescriptor_t op, const char *what, const char *word)
{
    hipdnnStatus_t st = hipdnnBackendFinalize(op);
    const char *msg = tu_msg();
    cr_expect_eq(st, HIPDNN_STATUS_BAD_PARAM, "%s: finalize -> %s [%s]", what, tu_st(st), msg);
    cr_expect_neq(strstr(msg, word), NULL, "%s: message '%s' lacks '%s'", what, msg, word);
}

static const ir_graph *ir_of(hipdnnBackendDescriptor_t g) { return fe_graph_of(g->obj)->ir; }

static void key_of(hipdnnBackendDescriptor_t g, char key[33])
{
    int64_t n = 0;
    TU_OK(hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT, HIPDNN_TYPE_CHAR, 33, &n, key));
}

static int anchor_of(const ir_graph *ir)
{
    for (int k = 0; k < ir->n_ops; k++)
        if (ir->ops[k].kind == IR_OP_SDPA_FWD || ir->ops[k].kind == IR_OP_SDPA_BWD)
            return k;
    cr_assert_fail("no SDPA op in the IR");
    return -1;
}

/* ---- acceptance and lowering ------------------------------------------------------------------ */

/* The lowered graph of one SDPA op with mask m: the mask slot, the index space, both partitions
 * keep the chain in the SDPA kernel, whose reads are the graph's tensors and the mask's tensors
 * in memory; the JIT kernels refuse it with the reason. */
static void check_lowered(hipdnnBackendDescriptor_t g, const mm_mask *m, bool bwd)
{
    const ir_graph *ir = ir_of(g);
    cr_assert_not_null(ir, "%s: the graph lowers", mm_kind_names[m->kind]);
    int a = anchor_of(ir), slot = bwd ? IR_SDPAB_MASK_MOD : IR_SDPA_MASK_MOD, n_index = 0;
    cr_assert_geq(ir->ops[a].in[slot], 0, "%s: the mask slot is set", mm_kind_names[m->kind]);
    cr_expect_eq(ir->t[ir->ops[a].in[slot]].uid, m->out_uid);
    cr_expect_eq(ir->t[ir->ops[a].in[slot]].dtype, HIPDNN_DATA_BOOLEAN);
    for (int i = 0; i < ir->n_t; i++)
        n_index += ir->t[i].score;
    cr_expect_eq(n_index, m->kind == MM_DOCUMENT_ONLY ? 0 : 1, "%s: the index space is a score tensor",
                 mm_kind_names[m->kind]);
    for (int fused = 0; fused < 2; fused++) {
        ir_partition part;
        TU_OK(fused ? ir_fuse(ir, &part) : ir_split(ir, &part));
        cr_expect_eq(part.n, 1, "%s: one kernel", mm_kind_names[m->kind]);
        int n_mod = 0, n_mem = 0;
        for (int i = 0; part.n == 1 && i < part.k[0].n_ops; i++)
            n_mod += part.k[0].part[i] == IR_PART_SCORE;
        cr_expect_eq(n_mod, ir->n_ops - 1, "%s: every mask op is the SDPA kernel's", mm_kind_names[m->kind]);
        for (int i = 0; part.n == 1 && i < part.k[0].n_reads; i++)
            for (int k = 0; k < m->n_mem; k++)
                n_mem += ir->t[part.k[0].reads[i]].uid == m->mem_uid[k];
        cr_expect_eq(n_mem, m->n_mem, "%s: the kernel reads the mask's tensors in memory", mm_kind_names[m->kind]);
        char why[256] = "";
        /* fp32 Q/K/V: no attention template takes them, and the reason is that, not the mask (the
         * templates take masks: tests/api/test_sdpa_mask_mod.c plans bf16 ones) */
        cr_expect(!cg_supports(ir, &part.k[0], why, sizeof why), "%s: no JIT template takes fp32 attention",
                  mm_kind_names[m->kind]);
        cr_expect_eq(strstr(why, "mask"), NULL, "%s: the reason is not the mask: '%s'", mm_kind_names[m->kind], why);
        ir_partition_free(&part);
    }
}

Test(mask_mod, every_kind_forward_and_backward)
{
    tu_seed("mask_mod::every_kind_forward_and_backward");
    for (int kind = 0; kind < MM_N_KINDS; kind++)
        for (int bwd = 0; bwd < 2; bwd++) {
            prob p = random_prob();
            mm_mask *m = mask((mm_kind)kind, scores(&p), 100);
            hipdnnBackendDescriptor_t op = sdpa_op(&p, bwd);
            mm_set(op, bwd, m);
            TU_OK(hipdnnBackendFinalize(op));
            /* read back */
            hipdnnBackendDescriptor_t back = NULL;
            int64_t n = 0, in = 0;
            TU_OK(hipdnnBackendGetAttribute(op, bwd ? HIPDNN_ATTR_OPERATION_SDPA_BWD_MASK_MOD_GRAPH_EXT
                                                    : HIPDNN_ATTR_OPERATION_SDPA_FWD_MASK_MOD_GRAPH_EXT,
                                            DESC, 1, &n, &back));
            tu_keep(back);
            cr_expect(n == 1 && back->obj == m->graph->obj, "the graph read back is the one set");
            TU_OK(hipdnnBackendGetAttribute(op, bwd ? HIPDNN_ATTR_OPERATION_SDPA_BWD_MASK_MOD_INPUT_UID_EXT
                                                    : HIPDNN_ATTR_OPERATION_SDPA_FWD_MASK_MOD_INPUT_UID_EXT,
                                            HIPDNN_TYPE_INT64, 1, &n, &in));
            cr_expect_eq(in, m->in_uid);
            check_lowered(tu_keep(tu_graph_of(handle, op)), m, bwd);
        }
}

/* A mask modifier excludes nothing: with the causal flag, a band and the padding mask. */
Test(mask_mod, with_the_masks_it_does_not_exclude)
{
    tu_seed("mask_mod::with_the_masks_it_does_not_exclude");
    for (int bwd = 0; bwd < 2; bwd++) {
        prob p = random_prob();
        mm_mask *m = mask(MM_DOCUMENT, scores(&p), 100);
        hipdnnBackendDescriptor_t op = sdpa_op(&p, bwd);
        mm_set(op, bwd, m);
        bool on = true;
        int64_t left = tu_range(1, 4);
        hipdnnBackendDescriptor_t sq = tensor(20, HIPDNN_DATA_INT32, p.B, 1, 1, 1, false);
        hipdnnBackendDescriptor_t skv = tensor(21, HIPDNN_DATA_INT32, p.B, 1, 1, 1, false);
        TU_OK(hipdnnBackendSetAttribute(op, bwd ? HIPDNN_ATTR_SDPA_BWD_CAUSAL_MASK_EXT : HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_EXT,
                                        HIPDNN_TYPE_BOOLEAN, 1, &on));
        TU_OK(hipdnnBackendSetAttribute(op, bwd ? HIPDNN_ATTR_SDPA_BWD_LEFT_BOUND_EXT : HIPDNN_ATTR_SDPA_FWD_LEFT_BOUND_EXT,
                                        HIPDNN_TYPE_INT64, 1, &left));
        TU_OK(hipdnnBackendSetAttribute(op, bwd ? HIPDNN_ATTR_SDPA_BWD_PADDING_MASK_EXT : HIPDNN_ATTR_SDPA_FWD_PADDING_MASK_EXT,
                                        HIPDNN_TYPE_BOOLEAN, 1, &on));
        TU_OK(hipdnnBackendSetAttribute(op, bwd ? HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_Q_EXT
                                                : HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC, DESC, 1, &sq));
        TU_OK(hipdnnBackendSetAttribute(op, bwd ? HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KV_EXT
                                                : HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC, DESC, 1, &skv));
        TU_OK(hipdnnBackendFinalize(op));
        const ir_graph *ir = ir_of(tu_keep(tu_graph_of(handle, op)));
        const ir_op *a = &ir->ops[anchor_of(ir)];
        cr_expect(a->a.sdpa.padding_mask && a->a.sdpa.has_left && a->a.sdpa.has_right, "the other masks stay");
        cr_expect(ir_has_mod(a, IR_MOD_MASK));
    }
}

/* A score modifier reading GEN_INDEX and tensors in memory: ALiBi written out, slope[h]·(j − i)
 * with the slopes [1,H,1,1] in memory, plus a per-key bias [1,1,1,Skv]. */
Test(mask_mod, index_aware_score_modifier)
{
    tu_seed("mask_mod::index_aware_score_modifier");
    prob p = random_prob();
    const int64_t *d = scores(&p);
    hipdnnBackendDescriptor_t s = tensor(100, HIPDNN_DATA_FLOAT, d[0], d[1], d[2], d[3], false);
    hipdnnBackendDescriptor_t slope = tensor(101, HIPDNN_DATA_FLOAT, 1, p.H, 1, 1, false);
    hipdnnBackendDescriptor_t kb = tensor(102, HIPDNN_DATA_FLOAT, 1, 1, 1, p.Skv, false);
    hipdnnBackendDescriptor_t t[6];
    for (int i = 0; i < 6; i++)
        t[i] = tensor(103 + i, i < 2 ? HIPDNN_DATA_INT32 : HIPDNN_DATA_FLOAT, d[0], d[1], d[2], d[3], true);
    hipdnnBackendDescriptor_t ops[6] = {pw(HIPDNN_POINTWISE_GEN_INDEX, s, NULL, t[0], 2),
        pw(HIPDNN_POINTWISE_GEN_INDEX, s, NULL, t[1], 3), pw(HIPDNN_POINTWISE_SUB, t[1], t[0], t[2], 0),
        pw(HIPDNN_POINTWISE_MUL, t[2], slope, t[3], 0), pw(HIPDNN_POINTWISE_ADD, s, t[3], t[4], 0),
        pw(HIPDNN_POINTWISE_ADD, t[4], kb, t[5], 0)};
    hipdnnBackendDescriptor_t g = graph(6, ops), op = sdpa_op(&p, false);
    set_mod(op, false, true, g, 100, 108);
    TU_OK(hipdnnBackendFinalize(op));
    const ir_graph *ir = ir_of(tu_keep(tu_graph_of(handle, op)));
    cr_assert_not_null(ir);
    int a = anchor_of(ir);
    cr_expect(ir_has_mod(&ir->ops[a], IR_MOD_SCORE) && !ir_has_mod(&ir->ops[a], IR_MOD_MASK));
    ir_partition part;
    TU_OK(ir_fuse(ir, &part));
    cr_assert_eq(part.n, 1);
    char why[256] = "";
    /* fp32 Q/K/V: the attention template refuses them, and for that, not for the modifier (the
     * templates take index-aware ones: tests/api/test_sdpa_mask_mod.c plans a bf16 one) */
    cr_expect(!cg_supports(ir, &part.k[0], why, sizeof why));
    cr_expect_neq(strstr(why, "bf16"), NULL, "the JIT reason: '%s'", why);
    ir_partition_free(&part);
    /* a score modifier with a tensor in memory but no GEN_INDEX: the same */
    hipdnnBackendDescriptor_t s2 = tensor(200, HIPDNN_DATA_FLOAT, d[0], d[1], d[2], d[3], false);
    hipdnnBackendDescriptor_t y = tensor(202, HIPDNN_DATA_FLOAT, d[0], d[1], d[2], d[3], true);
    hipdnnBackendDescriptor_t add = pw(HIPDNN_POINTWISE_ADD, s2, tensor(201, HIPDNN_DATA_FLOAT, 1, 1, 1, p.Skv, false), y, 0);
    hipdnnBackendDescriptor_t op2 = sdpa_op(&p, false);
    set_mod(op2, false, true, graph(1, &add), 200, 202);
    TU_OK(hipdnnBackendFinalize(op2));
    ir = ir_of(tu_keep(tu_graph_of(handle, op2)));
    TU_OK(ir_fuse(ir, &part));
    cr_expect(!cg_supports(ir, &part.k[0], why, sizeof why));
    cr_expect_neq(strstr(why, "bf16"), NULL, "the JIT reason: '%s'", why);
    ir_partition_free(&part);
}

/* ---- refusals ----------------------------------------------------------------------------------- */

/* A mask sub-graph of one op: keep = mode(a, b) into a `dt` result of dims d; uids from base. */
static hipdnnBackendDescriptor_t one_op_mask(hipdnnPointwiseMode_t mode, hipdnnBackendDescriptor_t a,
                                             hipdnnBackendDescriptor_t b, hipdnnDataType_t dt, const int64_t *d,
                                             int64_t out_uid)
{
    hipdnnBackendDescriptor_t y = tensor(out_uid, dt, d[0], d[1], d[2], d[3], true);
    hipdnnBackendDescriptor_t op = pw(mode, a, b, y, 2);
    return graph(1, &op);
}

Test(mask_mod, refusals_name_what_is_wrong)
{
    tu_seed("mask_mod::refusals_name_what_is_wrong");
    prob p = random_prob();
    const int64_t *d = scores(&p);
    int64_t dd[4] = {d[0], d[1], d[2], d[3]};
    mm_mask *good = mask(MM_DOCUMENT, dd, 100);
    for (int bwd = 0; bwd < 2; bwd++) { /* half-set triples */
        hipdnnBackendDescriptor_t op = sdpa_op(&p, bwd);
        TU_OK(hipdnnBackendSetAttribute(op, bwd ? HIPDNN_ATTR_OPERATION_SDPA_BWD_MASK_MOD_GRAPH_EXT
                                                : HIPDNN_ATTR_OPERATION_SDPA_FWD_MASK_MOD_GRAPH_EXT, DESC, 1, &good->graph));
        expect_refused(op, "graph without uids", "come together");
        op = sdpa_op(&p, bwd);
        TU_OK(hipdnnBackendSetAttribute(op, bwd ? HIPDNN_ATTR_OPERATION_SDPA_BWD_MASK_MOD_OUTPUT_UID_EXT
                                                : HIPDNN_ATTR_OPERATION_SDPA_FWD_MASK_MOD_OUTPUT_UID_EXT,
                                        HIPDNN_TYPE_INT64, 1, &good->out_uid));
        expect_refused(op, "an output uid alone", "the graph is missing");
        mm_set(op, bwd, good); /* a refused op stays settable; completed, it finalizes */
        TU_OK(hipdnnBackendFinalize(op));
    }
    /* a result that is not BOOLEAN */
    hipdnnBackendDescriptor_t idx = tensor(300, HIPDNN_DATA_INT32, d[0], d[1], d[2], d[3], false);
    hipdnnBackendDescriptor_t op = sdpa_op(&p, false);
    set_mod(op, false, false, one_op_mask(HIPDNN_POINTWISE_GEN_INDEX, idx, NULL, HIPDNN_DATA_FLOAT, d, 301), 300, 301);
    expect_refused(op, "a FLOAT result", "must be a BOOLEAN");
    /* the wrong shape: the whole mask built for one head more (its index space is refused), and a
     * document mask without index built for one head more (its result is) */
    int64_t more[4] = {d[0], d[1] + 1, d[2], d[3]};
    mm_set(op = sdpa_op(&p, true), true, mask(MM_PREFIX_LM, more, 400));
    expect_refused(op, "index space of other dims", "MASK_MOD_INPUT_UID uid 400 must be a [");
    mm_set(op = sdpa_op(&p, false), false, mask(MM_DOCUMENT_ONLY, more, 500));
    expect_refused(op, "result of other dims", "MASK_MOD_OUTPUT_UID uid 512 must be a BOOLEAN [");
    /* a tensor that does not broadcast: document ids of one query more */
    int64_t longer[4] = {d[0], d[1], d[2] + 1, d[3]};
    mm_set(op = sdpa_op(&p, false), false, mask(MM_DOCUMENT_ONLY, longer, 600));
    expect_refused(op, "doc ids [B,1,Sq+1,1]", "uid 610");
    cr_expect_neq(strstr(tu_msg(), "broadcasts to the scores"), NULL, "[%s]", tu_msg());
    /* GEN_INDEX: along an axis out of range (the op refuses it), reading memory, into BOOLEAN */
    hipdnnBackendDescriptor_t gi = NULL, row = tensor(701, HIPDNN_DATA_INT32, d[0], d[1], d[2], d[3], true);
    int64_t axis = 4;
    hipdnnPointwiseMode_t gen = HIPDNN_POINTWISE_GEN_INDEX;
    hipdnnBackendDescriptor_t mem_t = tensor(700, HIPDNN_DATA_INT32, d[0], d[1], d[2], d[3], false);
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &gi));
    tu_keep(gi);
    TU_OK(hipdnnBackendSetAttribute(gi, HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_TYPE_POINTWISE_MODE, 1, &gen));
    TU_OK(hipdnnBackendSetAttribute(gi, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, DESC, 1, &mem_t));
    TU_OK(hipdnnBackendSetAttribute(gi, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, DESC, 1, &row));
    TU_OK(hipdnnBackendSetAttribute(gi, HIPDNN_ATTR_POINTWISE_AXIS, HIPDNN_TYPE_INT64, 1, &axis));
    expect_refused(gi, "GEN_INDEX along axis 4", "HIPDNN_ATTR_POINTWISE_AXIS 4");
    hipdnnBackendDescriptor_t zero = tensor(702, HIPDNN_DATA_INT32, 1, 1, 1, 1, false);
    hipdnnBackendDescriptor_t rowm = pw(HIPDNN_POINTWISE_GEN_INDEX, mem_t, NULL, row, 2);
    hipdnnBackendDescriptor_t kept = tensor(703, HIPDNN_DATA_BOOLEAN, d[0], d[1], d[2], d[3], true);
    hipdnnBackendDescriptor_t ops[2] = {rowm, pw(HIPDNN_POINTWISE_CMP_GE, row, zero, kept, 0)};
    set_mod(op = sdpa_op(&p, false), false, false, graph(2, ops), 799, 703);
    expect_refused(op, "GEN_INDEX reading memory", "takes its shape from MASK_MOD_INPUT_UID");
    idx = tensor(800, HIPDNN_DATA_INT32, d[0], d[1], d[2], d[3], false);
    set_mod(op = sdpa_op(&p, false), false, false,
            one_op_mask(HIPDNN_POINTWISE_GEN_INDEX, idx, NULL, HIPDNN_DATA_BOOLEAN, d, 801), 800, 801);
    expect_refused(op, "GEN_INDEX into BOOLEAN", "an index is INT32, INT64 or FLOAT");
    /* the index space read by a comparison */
    idx = tensor(900, HIPDNN_DATA_INT32, d[0], d[1], d[2], d[3], false);
    zero = tensor(902, HIPDNN_DATA_INT32, 1, 1, 1, 1, false);
    set_mod(op = sdpa_op(&p, false), false, false,
            one_op_mask(HIPDNN_POINTWISE_CMP_GT, idx, zero, HIPDNN_DATA_BOOLEAN, d, 901), 900, 901);
    expect_refused(op, "index space compared", "only GEN_INDEX reads it");
    /* a matmul in the sub-graph */
    hipdnnBackendDescriptor_t mm = NULL, a = tensor(1000, HIPDNN_DATA_FLOAT, 1, 1, 2, 3, false),
                              b = tensor(1001, HIPDNN_DATA_FLOAT, 1, 1, 3, 4, false),
                              c = tensor(1002, HIPDNN_DATA_FLOAT, 1, 1, 2, 4, false);
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT, &mm));
    tu_keep(mm);
    TU_OK(hipdnnBackendSetAttribute(mm, HIPDNN_ATTR_OPERATION_MATMUL_ADESC, DESC, 1, &a));
    TU_OK(hipdnnBackendSetAttribute(mm, HIPDNN_ATTR_OPERATION_MATMUL_BDESC, DESC, 1, &b));
    TU_OK(hipdnnBackendSetAttribute(mm, HIPDNN_ATTR_OPERATION_MATMUL_CDESC, DESC, 1, &c));
    TU_OK(hipdnnBackendFinalize(mm));
    set_mod(op = sdpa_op(&p, true), true, false, graph(1, &mm), 1000, 1002);
    expect_refused(op, "a matmul", "POINTWISE operations only");
    /* the score and the mask modifier sharing a uid */
    hipdnnBackendDescriptor_t s = tensor(100, HIPDNN_DATA_FLOAT, d[0], d[1], d[2], d[3], false);
    hipdnnBackendDescriptor_t y = tensor(1100, HIPDNN_DATA_FLOAT, d[0], d[1], d[2], d[3], true);
    hipdnnBackendDescriptor_t neg = pw(HIPDNN_POINTWISE_NEG, s, NULL, y, 0);
    mm_set(op = sdpa_op(&p, false), false, good);
    set_mod(op, false, true, graph(1, &neg), 100, 1100); /* uid 100: the mask's index space too */
    expect_refused(op, "shared uid", "both the score modifier and the mask modifier");
    /* a sub-graph uid that is also the graph's: the graph refuses to finalize */
    mm_set(op = sdpa_op(&p, true), true, mask(MM_PREFIX_LM, dd, 3)); /* uid 3 = V */
    TU_OK(hipdnnBackendFinalize(op));
    hipdnnBackendDescriptor_t g = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    tu_keep(g);
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 1, &op));
    cr_expect_eq(hipdnnBackendFinalize(g), HIPDNN_STATUS_BAD_PARAM);
    cr_expect_neq(strstr(tu_msg(), "mask modifier tensor uid 3 is also a tensor of the graph"), NULL, "[%s]", tu_msg());
    /* a tensor is not a graph */
    cr_expect_neq(hipdnnBackendSetAttribute(sdpa_op(&p, true), HIPDNN_ATTR_OPERATION_SDPA_BWD_MASK_MOD_GRAPH_EXT, DESC,
                                            1, &s), HIPDNN_STATUS_SUCCESS);
}

/* ---- keys and serialization ---------------------------------------------------------------------- */

static hipdnnBackendDescriptor_t masked_graph(const prob *p, bool bwd, const mm_mask *m)
{
    hipdnnBackendDescriptor_t op = sdpa_op(p, bwd);
    if (m != NULL)
        mm_set(op, bwd, m);
    TU_OK(hipdnnBackendFinalize(op));
    return tu_keep(tu_graph_of(handle, op));
}

Test(mask_mod, keys_follow_the_mask)
{
    tu_seed("mask_mod::keys_follow_the_mask");
    prob p = random_prob();
    int64_t d[4];
    memcpy(d, scores(&p), sizeof d);
    for (int bwd = 0; bwd < 2; bwd++) {
        char k[6][33];
        mm_mask *chunk = mask(MM_SLIDING_CHUNK, d, 100), *same = mask(MM_SLIDING_CHUNK, d, 5000);
        mm_mask *other = mask(MM_SLIDING_CHUNK, d, 100);
        for (int t = 0; t < 1000 && same->chunk != chunk->chunk; t++) /* the same chunk length, other uids */
            mm_free(same), mm_build(same, handle, MM_SLIDING_CHUNK, d, 5000);
        for (int t = 0; t < 1000 && other->chunk == chunk->chunk; t++) /* another chunk length */
            mm_free(other), mm_build(other, handle, MM_SLIDING_CHUNK, d, 100);
        cr_assert(same->chunk == chunk->chunk && other->chunk != chunk->chunk);
        key_of(masked_graph(&p, bwd, chunk), k[0]);
        key_of(masked_graph(&p, bwd, NULL), k[1]);
        key_of(masked_graph(&p, bwd, mask(MM_PREFIX_LM, d, 100)), k[2]);
        key_of(masked_graph(&p, bwd, mask(MM_DOCUMENT, d, 100)), k[3]);
        key_of(masked_graph(&p, bwd, other), k[4]);
        key_of(masked_graph(&p, bwd, same), k[5]);
        for (int i = 1; i < 5; i++)
            cr_expect_str_neq(k[0], k[i], "%s: mask %d is another graph key", bwd ? "bwd" : "fwd", i);
        cr_expect_str_neq(k[2], k[3]);
        cr_expect_str_eq(k[0], k[5], "the same mask under other uids: one key");
        /* tensors in memory: their data is not in the key */
        mm_mask *doc = mask(MM_DOCUMENT, d, 100);
        char a[33], b[33];
        key_of(masked_graph(&p, bwd, doc), a);
        mm_fill(doc);
        key_of(masked_graph(&p, bwd, doc), b);
        cr_expect_str_eq(a, b);
    }
}

Test(mask_mod, json_and_flatbuffer_round_trips)
{
    tu_seed("mask_mod::json_and_flatbuffer_round_trips");
    prob p = random_prob();
    for (int kind = 0; kind < MM_N_KINDS; kind++) {
        bool bwd = kind % 2;
        hipdnnBackendDescriptor_t g = masked_graph(&p, bwd, mask((mm_kind)kind, scores(&p), 100));
        char key[33], key2[33];
        key_of(g, key);
        size_t n = 0;
        TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(g, 0, &n, NULL));
        char *text = malloc(n);
        TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(g, n, &n, text));
        cr_expect_neq(strstr(text, "mask_mod_graph"), NULL, "the JSON holds the mask");
        key_of(tu_keep(tu_json_graph(handle, text, strlen(text), mm_kind_names[kind])), key2);
        cr_expect_str_eq(key, key2, "%s: JSON round trip keeps the key", mm_kind_names[kind]);
        free(text);
        TU_OK(hipdnnBackendGetSerializedBinaryGraph_ext(g, 0, &n, NULL));
        uint8_t *bin = malloc(n);
        TU_OK(hipdnnBackendGetSerializedBinaryGraph_ext(g, n, &n, bin));
        hipdnnBackendDescriptor_t fb = NULL;
        TU_OK(hipdnnBackendCreateAndDeserializeGraph_ext(&fb, bin, n));
        tu_keep(fb);
        TU_OK(hipdnnBackendSetAttribute(fb, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
        TU_OK(hipdnnBackendFinalize(fb));
        key_of(fb, key2);
        cr_expect_str_eq(key, key2, "%s: FlatBuffer round trip keeps the key", mm_kind_names[kind]);
        free(bin);
    }
}

/* examples/graphs: the three mask examples load, lower with their mask, and differ in key. */
Test(mask_mod, example_graphs)
{
    const char *files[3] = {"sdpa_document_mask.json", "sdpa_prefix_lm.json", "sdpa_sliding_chunk.json"};
    char k[3][33];
    for (int i = 0; i < 3; i++) {
        hipdnnBackendDescriptor_t g = tu_keep(tu_example_graph(handle, files[i]));
        const ir_graph *ir = ir_of(g);
        cr_assert_not_null(ir, "%s lowers", files[i]);
        cr_expect(ir_has_mod(&ir->ops[anchor_of(ir)], IR_MOD_MASK), "%s: the SDPA op has its mask", files[i]);
        key_of(g, k[i]);
    }
    cr_expect(strcmp(k[0], k[1]) != 0 && strcmp(k[1], k[2]) != 0 && strcmp(k[0], k[2]) != 0);
}
