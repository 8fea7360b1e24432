/* ir_score.c — score and mask modifiers: the pointwise chains an attention anchor runs per score.
 *
 * Owns: which slots of which op take a modifier (ir_mod_slot, ir_has_mod), finding a modifier's
 * ops in a graph (ir_score_mod_mark, ir_score_mod_ops, ir_score_mod_ops_of) and its flattened form for the reference
 * (ir_score_mod_build / ir_score_mod_eval). A modifier starts at a score tensor (ir_tensor.score,
 * computed inside the anchor: S·scale [B,Hq,Sq,Skv] for a score modifier, the index space for a
 * mask modifier, which only GEN_INDEX reads), reads GEN_INDEX indices, one-element scalars and
 * tensors in memory broadcast to [B,Hq,Sq,Skv] besides, and ends in one of the anchor's modifier
 * slots; which anchors take one is the `score` column of ir_ops.def. The math of each step is
 * ir_pointwise_eval, the reference pointwise evaluator (ir_ref_pointwise.c); fusion (ir_fuse.c),
 * codegen (cg_sdpa.c) and the block classification (ir_block_mask.c) find the ops through the
 * same functions. Contract: ir.h.
 */
#include "ir/ir_int.h"

int ir_mod_slot(ir_op_kind k, ir_mod_kind kind)
{
    if (!ir_op_info_of(k)->score)
        return -1;
    if (k == IR_OP_SDPA_FWD)
        return kind == IR_MOD_SCORE ? IR_SDPA_SCORE_MOD : kind == IR_MOD_MASK ? IR_SDPA_MASK_MOD : -1;
    if (k == IR_OP_SDPA_BWD)
        return kind == IR_MOD_MASK ? IR_SDPAB_MASK_MOD : -1;
    return -1;
}

bool ir_has_mod(const ir_op *op, ir_mod_kind kind)
{
    int s = ir_mod_slot(op->kind, kind);
    return s >= 0 && s < op->n_in && op->in[s] >= 0;
}

/* Marks the pointwise ops whose results reach a modifier slot of `anchor` (every anchor when
 * anchor < 0) of `kind` (every kind when kind is IR_MOD_KINDS). Ops are topologically sorted,
 * so one backward pass suffices. */
static bool walk(const ir_graph *g, int anchor, ir_mod_kind kind, bool *mark)
{
    bool *need = base_calloc((size_t)g->n_t + 1, sizeof *need);
    if (need == NULL)
        return false;
    for (int k = g->n_ops - 1; k >= 0; k--) {
        const ir_op *op = &g->ops[k];
        mark[k] = false;
        for (int m = 0; m < IR_MOD_KINDS && (anchor < 0 || anchor == k); m++)
            if ((kind == IR_MOD_KINDS || kind == (ir_mod_kind)m) && ir_has_mod(op, (ir_mod_kind)m))
                need[op->in[ir_mod_slot(op->kind, (ir_mod_kind)m)]] = true;
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
    return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "finding a score or mask modifier: out of memory");
}

hipdnnStatus_t ir_score_mod_mark(const ir_graph *g, bool *mark)
{
    return walk(g, -1, IR_MOD_KINDS, mark) ? HIPDNN_STATUS_SUCCESS : oom();
}

/* The ops of anchor's modifiers of `kind` (IR_MOD_KINDS: all), at most max; -1 when out of memory. */
static int chain_ops(const ir_graph *g, int anchor, ir_mod_kind kind, int *ops, int max)
{
    bool *mark = base_calloc((size_t)g->n_ops + 1, sizeof *mark);
    int n = 0;
    if (mark == NULL || !walk(g, anchor, kind, mark)) {
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

int ir_score_mod_ops(const ir_graph *g, int anchor, int *ops, int max)
{
    return chain_ops(g, anchor, IR_MOD_KINDS, ops, max);
}

int ir_score_mod_ops_of(const ir_graph *g, int anchor, ir_mod_kind kind, int *ops, int max)
{
    return chain_ops(g, anchor, kind, ops, max);
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

/* A tensor in memory the chain reads per score: rank 4, each dim 1 or the result's, bound. */
static bool loadable(const ir_graph *g, int ti, const ir_buf *bufs, const int64_t dims[4])
{
    const ir_tensor *t = &g->t[ti];
    if (t->is_virtual || t->by_value || t->runtime_scalar || t->rank != 4 || bufs == NULL ||
        bufs[ti].data == NULL || bufs[ti].rank != 4)
        return false;
    for (int d = 0; d < 4; d++)
        if (t->dims[d] != 1 && t->dims[d] != dims[d])
            return false;
    return true;
}

/* Operand ti of step `at`: S, an earlier step's result, a constant or a tensor in memory. */
static hipdnnStatus_t operand(const ir_graph *g, const int *ops, int at, int ti, const ir_buf *bufs,
                              ir_score_mod *m, int s)
{
    ir_score_step *st = &m->step[at];
    st->src[s] = IR_SCORE_NONE;
    if (ti < 0)
        return HIPDNN_STATUS_SUCCESS;
    if (g->t[ti].score) {
        if (m->kind == IR_MOD_MASK)
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "mask modifier: the index space (uid %lld) is read "
                             "by a pointwise op of mode %d; only GEN_INDEX reads it",
                             (long long)g->t[ti].uid, st->pw.mode);
        st->src[s] = IR_SCORE_S;
        return HIPDNN_STATUS_SUCCESS;
    }
    for (int j = 0; j < at; j++)
        if (g->ops[ops[j]].out[0] == ti) {
            st->src[s] = j;
            return HIPDNN_STATUS_SUCCESS;
        }
    if (scalar_value(g, ti, bufs, &st->k[s])) {
        st->src[s] = IR_SCORE_CONST;
        return HIPDNN_STATUS_SUCCESS;
    }
    if (!loadable(g, ti, bufs, m->dims))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "score or mask modifier: operand uid %lld is neither the "
                         "score, a modifier result, a one-element scalar with a value nor a bound tensor "
                         "in memory broadcasting to [%lld,%lld,%lld,%lld]", (long long)g->t[ti].uid,
                         (long long)m->dims[0], (long long)m->dims[1], (long long)m->dims[2],
                         (long long)m->dims[3]);
    st->src[s] = IR_SCORE_LOAD;
    st->load[s] = &bufs[ti];
    return HIPDNN_STATUS_SUCCESS;
}

/* Step k from op: its mode, result type and operands (a GEN_INDEX reads none: its input is shape). */
static hipdnnStatus_t step_of(const ir_graph *g, const int *ops, int k, const ir_buf *bufs, ir_score_mod *m)
{
    const ir_op *op = &g->ops[ops[k]];
    const ir_tensor *y = &g->t[op->out[0]];
    ir_score_step *st = &m->step[k];
    st->pw = op->a.pw, st->dtype = y->dtype;
    if (op->a.pw.mode == HIPDNN_POINTWISE_GEN_INDEX) {
        int64_t axis = st->pw.axis < 0 ? st->pw.axis + y->rank : st->pw.axis;
        if (y->rank != 4 || axis < 0 || axis >= 4)
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "score or mask modifier: a GEN_INDEX (result uid "
                             "%lld) must give a rank-4 index along axis 0..3", (long long)y->uid);
        st->pw.axis = axis, st->index_zero = y->dims[axis] == 1;
        for (int s = 0; s < 3; s++)
            st->src[s] = IR_SCORE_NONE;
        return HIPDNN_STATUS_SUCCESS;
    }
    for (int s = 0; s < 3; s++) {
        hipdnnStatus_t r = operand(g, ops, k, s < op->n_in ? op->in[s] : -1, bufs, m, s);
        if (r != HIPDNN_STATUS_SUCCESS)
            return r;
    }
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t ir_score_mod_build(const ir_graph *g, int anchor, ir_mod_kind kind, const ir_buf *bufs,
                                  ir_score_mod *m)
{
    int ops[IR_SCORE_MAX_STEPS + 1];
    *m = (ir_score_mod){.kind = kind, .result = -1};
    if (anchor < 0 || anchor >= g->n_ops || !ir_has_mod(&g->ops[anchor], kind))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s modifier: op %d takes none",
                         kind == IR_MOD_MASK ? "mask" : "score", anchor);
    int result = g->ops[anchor].in[ir_mod_slot(g->ops[anchor].kind, kind)];
    if (g->t[result].rank != 4)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "score or mask modifier: the result (uid %lld) must be "
                         "[B,Hq,Sq,Skv]", (long long)g->t[result].uid);
    for (int d = 0; d < 4; d++)
        m->dims[d] = g->t[result].dims[d];
    int n = chain_ops(g, anchor, kind, ops, IR_SCORE_MAX_STEPS + 1);
    if (n < 0)
        return HIPDNN_STATUS_ALLOC_FAILED;
    if (n > IR_SCORE_MAX_STEPS)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "score or mask modifier: more than %d pointwise ops",
                         IR_SCORE_MAX_STEPS);
    for (int k = 0; k < n; k++) {
        hipdnnStatus_t st = step_of(g, ops, k, bufs, m);
        if (st != HIPDNN_STATUS_SUCCESS)
            return st;
        if (g->ops[ops[k]].out[0] == result)
            m->result = k;
    }
    m->n = n;
    if (m->result < 0)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "score or mask modifier: no pointwise op computes its result");
    return HIPDNN_STATUS_SUCCESS;
}

/* ---- evaluation ------------------------------------------------------------------------------------ */

static double load_at(const ir_buf *b, const int64_t idx[4])
{
    int64_t at[IR_MAX_RANK] = {0};
    for (int d = 0; d < 4; d++)
        at[d] = b->dims[d] == 1 ? 0 : idx[d];
    return ir_load(b, at);
}

double ir_score_mod_eval(const ir_score_mod *m, double s, const int64_t idx[4])
{
    double v[IR_SCORE_MAX_STEPS];
    for (int k = 0; k < m->n; k++) {
        const ir_score_step *st = &m->step[k];
        double x[3], y;
        for (int i = 0; i < 3; i++)
            x[i] = st->src[i] == IR_SCORE_S ? s : st->src[i] == IR_SCORE_CONST ? st->k[i]
                 : st->src[i] == IR_SCORE_LOAD ? load_at(st->load[i], idx)
                 : st->src[i] >= 0 ? v[st->src[i]] : 0.0;
        if (st->pw.mode == HIPDNN_POINTWISE_GEN_INDEX)
            y = st->index_zero ? 0.0 : (double)idx[st->pw.axis];
        else
            y = ir_pointwise_eval(&st->pw, x[0], x[1], x[2], 0);
        v[k] = ir_dtype_integral(st->dtype) ? ir_dtype_round(st->dtype, y) : y;
    }
    return m->n > 0 ? v[m->result] : s;
}
