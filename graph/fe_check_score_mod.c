/* fe_check_score_mod.c — the finalize rules of an SDPA forward's score modifier.
 *
 * Owns fe_check_score_mod (called by fe_check_sdpa.c's SDPA forward rule): the three attributes
 * HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_{GRAPH,INPUT_UID,OUTPUT_UID}_EXT come together; the
 * FE rule that a score modifier excludes ALiBi, the causal flags, the band bounds and the
 * padding mask (op-semantics.md §4.2); and the sub-graph's shape: POINTWISE operations only
 * (no GEN_INDEX: a score has no element index of its own), the input uid S read by the
 * sub-graph and produced by none of its ops, the output uid produced by one, both
 * [B,Hq,Sq,Skv] FLOAT, every other input a one-element scalar, every op on the way to the
 * output. Each failure is BAD_PARAM naming the attribute, the uid or the op. Nothing is
 * modified. Lowering the modifier into the IR is fe_lower.c's; sub-graph tensors share the
 * graph's uid space (its in-memory scalars are bound in the variant pack by uid).
 */
#include <stdarg.h>
#include <stdio.h>

#include "graph/fe_check.h"

#define OK HIPDNN_STATUS_SUCCESS

static hipdnnStatus_t bad(const char *fmt, ...) BASE_PRINTF(1, 2);
static hipdnnStatus_t bad(const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT score "
                     "modifier: %s", msg);
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

/* The attributes that a modifier excludes (the FE rule). */
static hipdnnStatus_t exclusive(fe_obj *op)
{
    static const hipdnnBackendAttributeName_t ids[] = {
        HIPDNN_ATTR_SDPA_FWD_ALIBI_MASK_EXT, HIPDNN_ATTR_SDPA_FWD_PADDING_MASK_EXT,
        HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_EXT, HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_BOTTOM_RIGHT_EXT,
        HIPDNN_ATTR_SDPA_FWD_LEFT_BOUND_EXT, HIPDNN_ATTR_SDPA_FWD_RIGHT_BOUND_EXT};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        fe_val *v = fe_get(op, ids[i]);
        bool on = v->n > 0 && (v->type != HIPDNN_TYPE_BOOLEAN || v->one.b);
        if (on)
            return bad("%s is set; a score modifier excludes ALiBi, the causal masks, the band "
                       "bounds and the padding mask", fe_find_attr(op->cls, ids[i])->name);
    }
    return OK;
}

/* S and the result: [B,Hq,Sq,Skv] FLOAT (want[3] < 0: Skv unknown, paged K/V). */
static hipdnnStatus_t score_shaped(const char *what, fe_tensor_view t, const int64_t want[4])
{
    bool ok = t.rank == 4 && t.dtype == HIPDNN_DATA_FLOAT;
    for (int d = 0; ok && d < 4; d++)
        ok = want[d] < 0 || t.dims[d] == want[d];
    if (ok)
        return OK;
    return bad("%s uid %lld must be a FLOAT [%lld,%lld,%lld,%lld] tensor (B,Hq,Sq,Skv of the scores)",
               what, (long long)t.uid, (long long)want[0], (long long)want[1], (long long)want[2],
               (long long)want[3]);
}

static hipdnnStatus_t check_ops(const fe_graph_info *gi)
{
    for (int k = 0; k < gi->n_ops; k++) {
        fe_obj *o = gi->ops[k];
        if (o->cls->type != HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR)
            return bad("operation #%d of HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_GRAPH_EXT is a %s; "
                       "a score modifier holds POINTWISE operations only", k, o->cls->name);
        if (fe_get(o, HIPDNN_ATTR_POINTWISE_MODE)->one.e == HIPDNN_POINTWISE_GEN_INDEX)
            return bad("operation #%d is GEN_INDEX; a score has no element index to generate", k);
    }
    return OK;
}

/* Every input but S is a one-element scalar. */
static hipdnnStatus_t check_inputs(const fe_graph_info *gi, int s)
{
    for (int i = 0; i < gi->n_tensors; i++) {
        fe_tensor_view t = fe_tensor(gi->tensors[i].t);
        int64_t n = 1;
        for (int d = 0; d < t.rank; d++)
            n *= t.dims[d];
        if (i != s && gi->tensors[i].producer < 0 && (n != 1 || t.is_virtual))
            return bad("input uid %lld is neither the score (SCORE_MOD_INPUT_UID) nor a one-element "
                       "scalar (by value, run-time, or in memory)", (long long)t.uid);
    }
    return OK;
}

static int out_tensor(const fe_graph_info *gi, fe_obj *op)
{
    fe_val *v = fe_get(op, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT);
    return v->n > 0 ? fe_score_mod_tensor(gi, fe_tensor(v->one.obj).uid) : -1;
}

/* Every op's result reaches the output (ops are in topological order: one backward pass). */
static hipdnnStatus_t check_reach(const fe_graph_info *gi, int out)
{
    static const hipdnnBackendAttributeName_t ins[3] = {HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT,
        HIPDNN_ATTR_OPERATION_POINTWISE_IN_1_EXT, HIPDNN_ATTR_OPERATION_POINTWISE_IN_2_EXT};
    bool *need = base_calloc((size_t)gi->n_tensors + 1, sizeof *need);
    if (need == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "checking a score modifier: out of memory");
    need[out] = true;
    int lost = -1;
    for (int k = gi->n_ops - 1; k >= 0; k--) {
        int y = out_tensor(gi, gi->ops[k]);
        if (y < 0 || !need[y]) {
            lost = k;
            continue;
        }
        for (int s = 0; s < 3; s++) {
            fe_val *v = fe_get(gi->ops[k], ins[s]);
            int ti = v->n > 0 ? fe_score_mod_tensor(gi, fe_tensor(v->one.obj).uid) : -1;
            if (ti >= 0)
                need[ti] = true;
        }
    }
    base_free(need);
    if (lost >= 0)
        return bad("the result of operation #%d does not reach SCORE_MOD_OUTPUT_UID", lost);
    return OK;
}

hipdnnStatus_t fe_check_score_mod(fe_obj *op, int64_t b, int64_t hq, int64_t sq, int64_t skv)
{
    bool g = has(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_GRAPH_EXT);
    bool in = has(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_INPUT_UID_EXT);
    bool out = has(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_OUTPUT_UID_EXT);
    if (!g && !in && !out)
        return OK;
    if (!g || !in || !out)
        return bad("SCORE_MOD_GRAPH_EXT, SCORE_MOD_INPUT_UID_EXT and SCORE_MOD_OUTPUT_UID_EXT come "
                   "together (%s is missing)", !g ? "the graph" : !in ? "the input uid" : "the output uid");
    hipdnnStatus_t st = exclusive(op);
    const fe_graph_info *gi = &fe_graph_of(fe_get(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_GRAPH_EXT)->one.obj)->gi;
    int64_t in_uid = fe_get(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_INPUT_UID_EXT)->one.i64;
    int64_t out_uid = fe_get(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_OUTPUT_UID_EXT)->one.i64;
    int s = fe_score_mod_tensor(gi, in_uid), m = fe_score_mod_tensor(gi, out_uid);
    int64_t want[4] = {b, hq, sq, skv};
    if (st == OK)
        st = check_ops(gi);
    if (st == OK && (s < 0 || gi->tensors[s].producer >= 0))
        st = bad("SCORE_MOD_INPUT_UID %lld is %s", (long long)in_uid,
                 s < 0 ? "not a tensor of the sub-graph" : "produced by an operation of the sub-graph");
    if (st == OK && (m < 0 || gi->tensors[m].producer < 0 || m == s))
        st = bad("SCORE_MOD_OUTPUT_UID %lld is %s", (long long)out_uid,
                 m < 0 ? "not a tensor of the sub-graph" : "not produced by an operation of the sub-graph");
    if (st == OK)
        st = score_shaped("SCORE_MOD_INPUT_UID", fe_tensor(gi->tensors[s].t), want);
    if (st == OK)
        st = score_shaped("SCORE_MOD_OUTPUT_UID", fe_tensor(gi->tensors[m].t), want);
    if (st == OK)
        st = check_inputs(gi, s);
    return st == OK ? check_reach(gi, m) : st;
}
