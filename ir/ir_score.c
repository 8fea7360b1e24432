/* ir_score.c — score modifiers: the pointwise chains an attention anchor applies to each score.
 *
 * Owns: finding a modifier's ops in a graph (ir_score_mod_mark, ir_score_mod_ops) and its
 * flattened form for the reference (ir_score_mod_build / ir_score_mod_eval). A modifier starts at
 * a score tensor (ir_tensor.score: S·scale, [B,Hq,Sq,Skv], computed inside the anchor), reads
 * one-element scalars besides, and ends in the anchor's IR_SDPA_SCORE_MOD operand; which anchors
 * take one is the `score` column of ir_ops.def. The math of each step is ir_pointwise_eval, the
 * reference pointwise evaluator (ir_ref_pointwise.c); fusion (ir_fuse.c) and codegen
 * (cg_sdpa.c) find the ops through the same two functions. Contract: ir.h.
 */
#include "ir/ir_int.h"

static bool takes_modifier(const ir_op *op)
{
    return ir_op_info_of(op->kind)->score && op->n_in > IR_SDPA_SCORE_MOD && op->in[IR_SDPA_SCORE_MOD] >= 0;
}

/* Marks the pointwise ops whose results reach the modifier slot of `anchor` (every anchor with
 * a modifier when anchor < 0). Ops are topologically sorted, so one backward pass suffices. */
static bool walk(const ir_graph *g, int anchor, bool *mark)
{
    bool *need = base_calloc((size_t)g->n_t + 1, sizeof *need);
    if (need == NULL)
        return false;
    for (int k = g->n_ops - 1; k >= 0; k--) {
        const ir_op *op = &g->ops[k];
        mark[k] = false;
        if ((anchor < 0 || anchor == k) && takes_modifier(op))
            need[op->in[IR_SDPA_SCORE_MOD]] = true;
        if (op->kind != IR_OP_POINTWISE || op->out[0] < 0 || !need[op->out[0]])
            continue;
        mark[k] = true;
        for (int s = 0; s < op->n_in; s++)
            if (op->in[s] >= 0)
                need[op->in[s]] = true;
    }
    base_free(need);
    return true;
}

static hipdnnStatus_t oom(void)
{
    return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "finding a score modifier: out of memory");
}

hipdnnStatus_t ir_score_mod_mark(const ir_graph *g, bool *mark)
{
    return walk(g, -1, mark) ? HIPDNN_STATUS_SUCCESS : oom();
}

int ir_score_mod_ops(const ir_graph *g, int anchor, int *ops, int max)
{
    bool *mark = base_calloc((size_t)g->n_ops + 1, sizeof *mark);
    int n = 0;
    if (mark == NULL || !walk(g, anchor, mark)) {
        base_free(mark);
        oom();
        return -1;
    }
    for (int k = 0; k < g->n_ops && n < max; k++)
        if (mark[k])
            ops[n++] = k;
    base_free(mark);
    return n;
}

/* ---- the flattened chain ------------------------------------------------------------------------ */

static int64_t numel(const ir_tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->rank; d++)
        n *= t->dims[d];
    return n;
}

/* The value of one-element scalar ti: its by-value bytes, else element 0 of its view. */
static bool scalar_value(const ir_graph *g, int ti, const ir_buf *bufs, double *v)
{
    const ir_tensor *t = &g->t[ti];
    int64_t zero[IR_MAX_RANK] = {0};
    if (numel(t) != 1 || t->is_virtual)
        return false;
    if (t->by_value) {
        ir_buf b = {.data = (void *)t->value, .dtype = t->dtype, .rank = 1, .dims = {1}, .strides = {1}};
        *v = ir_load(&b, zero);
        return true;
    }
    if (bufs == NULL || bufs[ti].data == NULL)
        return false;
    *v = ir_load(&bufs[ti], zero);
    return true;
}

/* Operand ti of step `at`: S, an earlier step's result, or a constant. */
static hipdnnStatus_t operand(const ir_graph *g, const int *ops, int at, int ti, const ir_buf *bufs,
                              ir_score_step *st, int s)
{
    st->src[s] = IR_SCORE_NONE;
    if (ti < 0)
        return HIPDNN_STATUS_SUCCESS;
    if (g->t[ti].score) {
        st->src[s] = IR_SCORE_S;
        return HIPDNN_STATUS_SUCCESS;
    }
    for (int j = 0; j < at; j++)
        if (g->ops[ops[j]].out[0] == ti) {
            st->src[s] = j;
            return HIPDNN_STATUS_SUCCESS;
        }
    if (!scalar_value(g, ti, bufs, &st->k[s]))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "score modifier: operand uid %lld is neither the "
                         "score, a modifier result nor a one-element scalar with a value",
                         (long long)g->t[ti].uid);
    st->src[s] = IR_SCORE_CONST;
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t ir_score_mod_build(const ir_graph *g, int anchor, const ir_buf *bufs, ir_score_mod *m)
{
    int ops[IR_SCORE_MAX_STEPS + 1];
    *m = (ir_score_mod){.result = -1};
    if (anchor < 0 || anchor >= g->n_ops || !takes_modifier(&g->ops[anchor]))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "score modifier: op %d takes none", anchor);
    int n = ir_score_mod_ops(g, anchor, ops, IR_SCORE_MAX_STEPS + 1);
    if (n < 0)
        return HIPDNN_STATUS_ALLOC_FAILED;
    if (n > IR_SCORE_MAX_STEPS)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "score modifier: more than %d pointwise ops",
                         IR_SCORE_MAX_STEPS);
    for (int k = 0; k < n; k++) {
        const ir_op *op = &g->ops[ops[k]];
        m->step[k].pw = op->a.pw;
        for (int s = 0; s < 3; s++) {
            hipdnnStatus_t st = operand(g, ops, k, s < op->n_in ? op->in[s] : -1, bufs, &m->step[k], s);
            if (st != HIPDNN_STATUS_SUCCESS)
                return st;
        }
        if (op->out[0] == g->ops[anchor].in[IR_SDPA_SCORE_MOD])
            m->result = k;
    }
    m->n = n;
    if (m->result < 0)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "score modifier: no pointwise op computes its result");
    return HIPDNN_STATUS_SUCCESS;
}

double ir_score_mod_eval(const ir_score_mod *m, double s)
{
    double v[IR_SCORE_MAX_STEPS];
    for (int k = 0; k < m->n; k++) {
        const ir_score_step *st = &m->step[k];
        double x[3];
        for (int i = 0; i < 3; i++)
            x[i] = st->src[i] == IR_SCORE_S ? s : st->src[i] == IR_SCORE_CONST ? st->k[i]
                 : st->src[i] >= 0 ? v[st->src[i]] : 0.0;
        v[k] = ir_pointwise_eval(&st->pw, x[0], x[1], x[2], 0);
    }
    return m->n > 0 ? v[m->result] : s;
}
