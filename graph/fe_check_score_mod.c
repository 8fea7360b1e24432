/* fe_check_score_mod.c — the finalize rules of an SDPA op's score and mask modifiers.
 *
 * Owns the table of modifier attributes (fe_sdpa_mods: which SDPA class takes which modifier,
 * its three attributes and the IR slot its result lowers to) and fe_check_sdpa_mods (called by
 * fe_check_sdpa.c's SDPA forward and backward rules). A modifier's three attributes
 * (HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_*, _SDPA_{FWD,BWD}_MASK_MOD_*) come together; a
 * score modifier excludes ALiBi, the causal flags, the band bounds and the padding mask (the FE
 * rule, op-semantics.md §4.2), a mask modifier excludes nothing (it is ANDed with them). The
 * sub-graph: POINTWISE operations only, every one on the way to the output; its input uid (S,
 * [B,Hq,Sq,Skv] FLOAT for a score modifier; the index space, [B,Hq,Sq,Skv] of any type, read by
 * GEN_INDEX only, for a mask modifier, which may leave it out when it reads no index) read by
 * the sub-graph and produced by none of its ops; its output uid produced by one, [B,Hq,Sq,Skv]
 * FLOAT (score) or BOOLEAN (mask); every other input a one-element scalar or a tensor in memory
 * that broadcasts to [B,Hq,Sq,Skv] (rank 4, each dim 1 or the full size); each GEN_INDEX reads
 * the input uid or a result of the sub-graph (a [B,Hq,Sq,Skv] shape: never memory), axis 0..3,
 * into INT32, INT64 or FLOAT. An op's two modifiers share no uid. Each failure is BAD_PARAM
 * naming the attribute, the uid or the op. Nothing is modified. Lowering the modifiers into
 * the IR is fe_lower.c's; sub-graph tensors share the graph's uid space (their tensors in
 * memory are bound in the variant pack by uid).
 */
#include <stdarg.h>
#include <stdio.h>

#include "graph/fe_check.h"

#define OK HIPDNN_STATUS_SUCCESS

const fe_sdpa_mod fe_sdpa_mods[FE_N_SDPA_MODS] = {
    {HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT, IR_MOD_SCORE, "SCORE_MOD",
     HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_GRAPH_EXT, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_INPUT_UID_EXT,
     HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_OUTPUT_UID_EXT, IR_SDPA_SCORE_MOD},
    {HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT, IR_MOD_MASK, "MASK_MOD",
     HIPDNN_ATTR_OPERATION_SDPA_FWD_MASK_MOD_GRAPH_EXT, HIPDNN_ATTR_OPERATION_SDPA_FWD_MASK_MOD_INPUT_UID_EXT,
     HIPDNN_ATTR_OPERATION_SDPA_FWD_MASK_MOD_OUTPUT_UID_EXT, IR_SDPA_MASK_MOD},
    {HIPDNN_BACKEND_OPERATION_SDPA_BPROP_DESCRIPTOR_EXT, IR_MOD_MASK, "MASK_MOD",
     HIPDNN_ATTR_OPERATION_SDPA_BWD_MASK_MOD_GRAPH_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_MASK_MOD_INPUT_UID_EXT,
     HIPDNN_ATTR_OPERATION_SDPA_BWD_MASK_MOD_OUTPUT_UID_EXT, IR_SDPAB_MASK_MOD},
};

/* One modifier under check: the op, its row, its sub-graph, the scores' dims (want[3] < 0:
 * Skv unknown, paged K/V), its input (s, -1 when absent) and output (out) tensor indices. */
typedef struct chk {
    fe_obj *op;
    const fe_sdpa_mod *m;
    const fe_graph_info *gi;
    int64_t want[4];
    int s, out;
} chk;

static hipdnnStatus_t bad(const chk *c, const char *fmt, ...) BASE_PRINTF(2, 3);
static hipdnnStatus_t bad(const chk *c, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s modifier: %s", c->op->cls->name,
                     c->m->kind == IR_MOD_SCORE ? "score" : "mask", msg);
}

static bool has(fe_obj *op, hipdnnBackendAttributeName_t id)
{
    fe_val *v = fe_get(op, id);
    return v != NULL && v->n > 0;
}

int fe_score_mod_tensor(const fe_graph_info *gi, int64_t uid)
{
    int lo = 0, hi = gi->n_tensors;
    while (lo < hi) { /* sorted by uid */
        int mid = (lo + hi) / 2;
        if (fe_tensor(gi->tensors[mid].t).uid < uid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < gi->n_tensors && fe_tensor(gi->tensors[lo].t).uid == uid ? lo : -1;
}

/* The attributes that a score modifier excludes (the FE rule). */
static hipdnnStatus_t exclusive(const chk *c)
{
    static const hipdnnBackendAttributeName_t ids[] = {
        HIPDNN_ATTR_SDPA_FWD_ALIBI_MASK_EXT, HIPDNN_ATTR_SDPA_FWD_PADDING_MASK_EXT,
        HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_EXT, HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_BOTTOM_RIGHT_EXT,
        HIPDNN_ATTR_SDPA_FWD_LEFT_BOUND_EXT, HIPDNN_ATTR_SDPA_FWD_RIGHT_BOUND_EXT};
    for (size_t i = 0; c->m->kind == IR_MOD_SCORE && i < sizeof ids / sizeof ids[0]; i++) {
        fe_val *v = fe_get(c->op, ids[i]);
        bool on = v->n > 0 && (v->type != HIPDNN_TYPE_BOOLEAN || v->one.b);
        if (on)
            return bad(c, "%s is set; a score modifier excludes ALiBi, the causal masks, the band "
                       "bounds and the padding mask (a mask modifier does not)", fe_find_attr(c->op->cls, ids[i])->name);
    }
    return OK;
}

static bool dims_are(fe_tensor_view t, const int64_t want[4])
{
    bool ok = t.rank == 4;
    for (int d = 0; ok && d < 4; d++)
        ok = want[d] < 0 || t.dims[d] == want[d];
    return ok;
}

/* Tensor `what` of the scores' dims and (dtype >= 0) type. */
static hipdnnStatus_t score_shaped(const chk *c, const char *what, fe_tensor_view t, int dtype)
{
    if (dims_are(t, c->want) && (dtype < 0 || (int)t.dtype == dtype))
        return OK;
    return bad(c, "%s uid %lld must be a %s[%lld,%lld,%lld,%lld] tensor (B,Hq,Sq,Skv of the scores)", what,
               (long long)t.uid, dtype == HIPDNN_DATA_FLOAT ? "FLOAT " : dtype == HIPDNN_DATA_BOOLEAN ? "BOOLEAN " : "",
               (long long)c->want[0], (long long)c->want[1], (long long)c->want[2], (long long)c->want[3]);
}

static int tensor_at(const chk *c, fe_obj *op, hipdnnBackendAttributeName_t id)
{
    fe_val *v = fe_get(op, id);
    return v->n > 0 ? fe_score_mod_tensor(c->gi, fe_tensor(v->one.obj).uid) : -1;
}

static const hipdnnBackendAttributeName_t pw_ins[3] = {HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT,
    HIPDNN_ATTR_OPERATION_POINTWISE_IN_1_EXT, HIPDNN_ATTR_OPERATION_POINTWISE_IN_2_EXT};

/* GEN_INDEX op #k: its shape from the input uid or a result of the sub-graph, axis 0..3, an
 * index type. */
static hipdnnStatus_t check_gen_index(const chk *c, int k, fe_obj *o)
{
    int x = tensor_at(c, o, pw_ins[0]), y = tensor_at(c, o, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT);
    int64_t axis = fe_op_i64_or(o, HIPDNN_ATTR_POINTWISE_AXIS, -1);
    hipdnnDataType_t yt = fe_tensor(c->gi->tensors[y].t).dtype;
    if (x < 0 || (x != c->s && c->gi->tensors[x].producer < 0))
        return bad(c, "operation #%d (GEN_INDEX) reads %s; a GEN_INDEX takes its shape from %s_INPUT_UID or "
                   "a result of the sub-graph", k, x < 0 ? "no tensor" : "a tensor in memory", c->m->name);
    if (!dims_are(fe_tensor(c->gi->tensors[x].t), c->want))
        return bad(c, "operation #%d (GEN_INDEX) reads uid %lld, which is not [B,Hq,Sq,Skv]", k,
                   (long long)fe_tensor(c->gi->tensors[x].t).uid);
    if (axis < 0 || axis > 3)
        return bad(c, "operation #%d (GEN_INDEX): HIPDNN_ATTR_POINTWISE_AXIS %lld is outside 0..3 (batch, head, "
                   "query row, key column)", k, (long long)axis);
    if (yt != HIPDNN_DATA_INT32 && yt != HIPDNN_DATA_INT64 && yt != HIPDNN_DATA_FLOAT)
        return bad(c, "operation #%d (GEN_INDEX) writes uid %lld of type %s; an index is INT32, INT64 or FLOAT",
                   k, (long long)fe_tensor(c->gi->tensors[y].t).uid, fe_enum_to_name("DataType", (int)yt));
    return OK;
}

/* POINTWISE ops only. */
static hipdnnStatus_t check_pointwise(const chk *c)
{
    for (int k = 0; k < c->gi->n_ops; k++)
        if (c->gi->ops[k]->cls->type != HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR)
            return bad(c, "operation #%d of %s_GRAPH_EXT is a %s; a modifier holds POINTWISE operations "
                       "only", k, c->m->name, c->gi->ops[k]->cls->name);
    return OK;
}

/* A GEN_INDEX's rules; a mask modifier's index space read by GEN_INDEX only. */
static hipdnnStatus_t check_ops(const chk *c)
{
    for (int k = 0; k < c->gi->n_ops; k++) {
        fe_obj *o = c->gi->ops[k];
        bool gen = fe_get(o, HIPDNN_ATTR_POINTWISE_MODE)->one.e == HIPDNN_POINTWISE_GEN_INDEX;
        if (gen)
            TRY(check_gen_index(c, k, o));
        for (int s = 0; !gen && c->m->kind == IR_MOD_MASK && c->s >= 0 && s < 3; s++)
            if (tensor_at(c, o, pw_ins[s]) == c->s)
                return bad(c, "operation #%d (%s) reads the index space (%s_INPUT_UID); only GEN_INDEX "
                           "reads it", k, fe_enum_to_name("PointwiseMode", fe_get(o, HIPDNN_ATTR_POINTWISE_MODE)->one.e),
                           c->m->name);
    }
    return OK;
}

/* Every input but the input uid: a one-element scalar (by value, run-time or in memory) or a
 * tensor in memory broadcasting to [B,Hq,Sq,Skv]. */
static hipdnnStatus_t check_inputs(const chk *c)
{
    for (int i = 0; i < c->gi->n_tensors; i++) {
        fe_tensor_view t = fe_tensor(c->gi->tensors[i].t);
        int64_t n = 1;
        bool bcast = t.rank == 4;
        for (int d = 0; d < t.rank; d++) {
            n *= t.dims[d];
            bcast &= t.dims[d] == 1 || c->want[d] < 0 || t.dims[d] == c->want[d];
        }
        if (i == c->s || c->gi->tensors[i].producer >= 0 || (!t.is_virtual && (n == 1 || bcast)))
            continue;
        fe_dims_text dt = fe_dims_str(t.rank, t.dims);
        return bad(c, "input uid %lld %s is neither %s, a one-element scalar nor a tensor in memory that "
                   "broadcasts to the scores [%lld,%lld,%lld,%lld] (rank 4, each dim 1 or the full size)",
                   (long long)t.uid, dt.s, c->m->kind == IR_MOD_SCORE ? "the score (SCORE_MOD_INPUT_UID)"
                   : "the index space (MASK_MOD_INPUT_UID)", (long long)c->want[0], (long long)c->want[1],
                   (long long)c->want[2], (long long)c->want[3]);
    }
    return OK;
}

/* Every op's result reaches the output (ops are in topological order: one backward pass). */
static hipdnnStatus_t check_reach(const chk *c)
{
    bool *need = base_calloc((size_t)c->gi->n_tensors + 1, sizeof *need);
    if (need == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "checking an SDPA modifier: out of memory");
    need[c->out] = true;
    int lost = -1;
    for (int k = c->gi->n_ops - 1; k >= 0; k--) {
        int y = tensor_at(c, c->gi->ops[k], HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT);
        if (y < 0 || !need[y]) {
            lost = k;
            continue;
        }
        for (int s = 0; s < 3; s++) {
            int ti = tensor_at(c, c->gi->ops[k], pw_ins[s]);
            if (ti >= 0)
                need[ti] = true;
        }
    }
    base_free(need);
    if (lost >= 0)
        return bad(c, "the result of operation #%d does not reach %s_OUTPUT_UID", lost, c->m->name);
    return OK;
}

/* The input and output uids: where they are and what they are. */
static hipdnnStatus_t check_ends(chk *c, int64_t in_uid, int64_t out_uid)
{
    c->s = fe_score_mod_tensor(c->gi, in_uid), c->out = fe_score_mod_tensor(c->gi, out_uid);
    bool optional = c->m->kind == IR_MOD_MASK; /* a mask reading no index leaves it out */
    if ((c->s < 0 && !optional) || (c->s >= 0 && c->gi->tensors[c->s].producer >= 0))
        return bad(c, "%s_INPUT_UID %lld is %s", c->m->name, (long long)in_uid,
                   c->s < 0 ? "not a tensor of the sub-graph" : "produced by an operation of the sub-graph");
    if (c->out < 0 || c->gi->tensors[c->out].producer < 0 || c->out == c->s)
        return bad(c, "%s_OUTPUT_UID %lld is %s", c->m->name, (long long)out_uid,
                   c->out < 0 ? "not a tensor of the sub-graph" : "not produced by an operation of the sub-graph");
    if (c->s >= 0)
        TRY(score_shaped(c, c->m->kind == IR_MOD_SCORE ? "SCORE_MOD_INPUT_UID" : "MASK_MOD_INPUT_UID",
                         fe_tensor(c->gi->tensors[c->s].t), c->m->kind == IR_MOD_SCORE ? HIPDNN_DATA_FLOAT : -1));
    return OK;
}

static hipdnnStatus_t check_one(fe_obj *op, const fe_sdpa_mod *m, const int64_t want[4])
{
    chk c = {.op = op, .m = m, .want = {want[0], want[1], want[2], want[3]}, .s = -1, .out = -1};
    bool g = has(op, m->graph), in = has(op, m->in), out = has(op, m->out);
    if (!g && !in && !out)
        return OK;
    if (!g || !in || !out)
        return bad(&c, "%s_GRAPH_EXT, %s_INPUT_UID_EXT and %s_OUTPUT_UID_EXT come together (%s is missing)",
                   m->name, m->name, m->name, !g ? "the graph" : !in ? "the input uid" : "the output uid");
    TRY(exclusive(&c));
    c.gi = &fe_graph_of(fe_get(op, m->graph)->one.obj)->gi;
    TRY(check_pointwise(&c));
    TRY(check_ends(&c, fe_get(op, m->in)->one.i64, fe_get(op, m->out)->one.i64));
    TRY(check_ops(&c));
    TRY(check_inputs(&c));
    TRY(score_shaped(&c, c.m->kind == IR_MOD_SCORE ? "SCORE_MOD_OUTPUT_UID" : "MASK_MOD_OUTPUT_UID",
                     fe_tensor(c.gi->tensors[c.out].t), m->kind == IR_MOD_SCORE ? HIPDNN_DATA_FLOAT : HIPDNN_DATA_BOOLEAN));
    return check_reach(&c);
}

/* The op's two modifiers share no uid (each binds and lowers on its own). */
static hipdnnStatus_t disjoint(fe_obj *op, const fe_sdpa_mod *a, const fe_sdpa_mod *b)
{
    if (!has(op, a->graph) || !has(op, b->graph))
        return OK;
    const fe_graph_info *ga = &fe_graph_of(fe_get(op, a->graph)->one.obj)->gi;
    const fe_graph_info *gb = &fe_graph_of(fe_get(op, b->graph)->one.obj)->gi;
    for (int i = 0; i < ga->n_tensors; i++) {
        int64_t uid = fe_tensor(ga->tensors[i].t).uid;
        if (fe_score_mod_tensor(gb, uid) >= 0)
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: uid %lld is a tensor of both the score modifier and "
                             "the mask modifier; give each sub-graph uids of its own", op->cls->name, (long long)uid);
    }
    return OK;
}

hipdnnStatus_t fe_check_sdpa_mods(fe_obj *op, int64_t b, int64_t hq, int64_t sq, int64_t skv)
{
    const int64_t want[4] = {b, hq, sq, skv};
    const fe_sdpa_mod *mine[FE_N_SDPA_MODS];
    int n = 0;
    for (int i = 0; i < FE_N_SDPA_MODS; i++)
        if (fe_sdpa_mods[i].type == op->cls->type) {
            mine[n++] = &fe_sdpa_mods[i];
            TRY(check_one(op, &fe_sdpa_mods[i], want));
        }
    return n == 2 ? disjoint(op, mine[0], mine[1]) : OK;
}
