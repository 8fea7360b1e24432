/* ir_graph.c — building and sealing an IR graph.
 *
 * Owns: growth of the tensor and op arrays, ir_graph_seal (producers, slot checks, a stable
 * topological order, shape inference for virtual tensors) and consumer counts. A virtual tensor
 * needs a producer unless it is a score tensor (ir_tensor.score: its SDPA op computes it). Lowering from
 * API descriptors is the frontend's job (graph/fe_lower.c); this file knows no descriptors.
 */
#include <string.h>

#include "ir/ir_int.h"

#define GFAIL(...) base_fail(HIPDNN_STATUS_BAD_PARAM, "IR graph: " __VA_ARGS__)

void ir_graph_init(ir_graph *g) { *g = (ir_graph){0}; }

void ir_op_release(ir_op *op)
{
    if (op->kind == IR_OP_CUSTOM) {
        base_free(op->a.custom.payload);
        op->a.custom.payload = NULL, op->a.custom.payload_size = 0;
    }
}

void ir_graph_free(ir_graph *g)
{
    for (int k = 0; k < g->n_ops; k++)
        ir_op_release(&g->ops[k]);
    base_free(g->t);
    base_free(g->ops);
    *g = (ir_graph){0};
}

static bool grow(void **arr, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return true;
    int cap2 = *cap ? *cap * 2 : 16;
    while (cap2 < need)
        cap2 *= 2;
    void *p = base_realloc(*arr, (size_t)cap2 * elem);
    if (p == NULL)
        return false;
    *arr = p;
    *cap = cap2;
    return true;
}

int ir_add_tensor(ir_graph *g, const ir_tensor *t)
{
    if (!grow((void **)&g->t, &g->cap_t, g->n_t + 1, sizeof *g->t))
        return -1;
    g->t[g->n_t] = *t;
    g->t[g->n_t].producer = -1;
    return g->n_t++;
}

int ir_add_op(ir_graph *g, const ir_op *op)
{
    if (!grow((void **)&g->ops, &g->cap_ops, g->n_ops + 1, sizeof *g->ops))
        return -1;
    g->ops[g->n_ops] = *op;
    return g->n_ops++;
}

int ir_consumers(const ir_graph *g, int ti)
{
    int n = 0;
    for (int k = 0; k < g->n_ops; k++)
        for (int s = 0; s < g->ops[k].n_in; s++)
            n += g->ops[k].in[s] == ti;
    return n;
}

/* ---- sealing ------------------------------------------------------------------------------------- */

static hipdnnStatus_t check_slots(const ir_graph *g)
{
    for (int k = 0; k < g->n_ops; k++) {
        const ir_op *op = &g->ops[k];
        if (op->n_in > IR_MAX_SLOTS || op->n_out > IR_MAX_SLOTS || op->n_in < 0 || op->n_out < 0)
            return GFAIL("op %d (%s) has too many operands", k, ir_op_info_of(op->kind)->name);
        for (int s = 0; s < op->n_in + op->n_out; s++) {
            int ti = s < op->n_in ? op->in[s] : op->out[s - op->n_in];
            if (ti < -1 || ti >= g->n_t)
                return GFAIL("op %d (%s) slot %d names tensor %d of %d", k,
                             ir_op_info_of(op->kind)->name, s, ti, g->n_t);
        }
    }
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t set_producers(ir_graph *g)
{
    for (int i = 0; i < g->n_t; i++)
        g->t[i].producer = -1;
    for (int k = 0; k < g->n_ops; k++)
        for (int s = 0; s < g->ops[k].n_out; s++) {
            int ti = g->ops[k].out[s];
            if (ti < 0)
                continue;
            if (g->t[ti].producer >= 0)
                return GFAIL("tensor uid %lld is written by ops %d and %d",
                             (long long)g->t[ti].uid, g->t[ti].producer, k);
            g->t[ti].producer = k;
        }
    for (int i = 0; i < g->n_t; i++)
        if (g->t[i].is_virtual && !g->t[i].score && g->t[i].producer < 0 && ir_consumers(g, i) > 0)
            return GFAIL("virtual tensor uid %lld has no producer", (long long)g->t[i].uid);
    return HIPDNN_STATUS_SUCCESS;
}

/* True when every input of op k is a graph input or produced by an op already placed. */
static bool ready(const ir_graph *g, int k, const bool *placed)
{
    for (int s = 0; s < g->ops[k].n_in; s++) {
        int ti = g->ops[k].in[s];
        if (ti >= 0 && g->t[ti].producer >= 0 && !placed[g->t[ti].producer])
            return false;
    }
    return true;
}

/* Reorders g->ops topologically, keeping the given order among independent ops. */
static hipdnnStatus_t topo_sort(ir_graph *g)
{
    int n = g->n_ops;
    bool *placed = base_calloc((size_t)n + 1, sizeof *placed);
    ir_op *sorted = base_malloc(((size_t)n + 1) * sizeof *sorted);
    if (placed == NULL || sorted == NULL) {
        base_free(placed);
        base_free(sorted);
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "IR graph: out of memory");
    }
    int m = 0;
    for (bool progress = true; progress && m < n;) {
        progress = false;
        for (int k = 0; k < n; k++)
            if (!placed[k] && ready(g, k, placed)) {
                placed[k] = true;
                sorted[m++] = g->ops[k];
                progress = true;
                break; /* restart: earliest ready op first keeps the order stable */
            }
    }
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    if (m < n)
        st = GFAIL("the ops form a cycle");
    else
        memcpy(g->ops, sorted, (size_t)n * sizeof *sorted);
    base_free(placed);
    base_free(sorted);
    return st;
}

/* Packed row-major strides: a virtual tensor's layout is the engine's choice. */
static void pack_strides(ir_tensor *t)
{
    int64_t s = 1;
    for (int i = t->rank - 1; i >= 0; i--) {
        t->strides[i] = s;
        s *= t->dims[i];
    }
}

hipdnnStatus_t ir_graph_seal(ir_graph *g)
{
    hipdnnStatus_t st = check_slots(g);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = set_producers(g);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = topo_sort(g);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = set_producers(g); /* op indices changed */
    if (st == HIPDNN_STATUS_SUCCESS)
        st = ir_infer_shapes(g);
    for (int i = 0; st == HIPDNN_STATUS_SUCCESS && i < g->n_t; i++)
        if (g->t[i].is_virtual)
            pack_strides(&g->t[i]);
    return st;
}

bool ir_op_ragged(const ir_graph *g, const ir_op *op)
{
    for (int s = 0; s < op->n_in; s++)
        if (op->in[s] >= 0 && g->t[op->in[s]].ragged)
            return true;
    for (int s = 0; s < op->n_out; s++)
        if (op->out[s] >= 0 && g->t[op->out[s]].ragged)
            return true;
    return false;
}
