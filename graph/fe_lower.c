/* fe_lower.c — a finalized operation graph's descriptors -> the fusion IR (ir/ir.h).
 *
 * Owns the graph walk: every tensor, then every op as its class says (graph/fe_ops.def):
 * the IR op (`ir`), each tensor attribute into the operand slot its attribute row names
 * (fe_op_attrs.c, the slot order of ir.h), the compute type, then the op's typed attributes
 * (`lower`, fe_lower_attrs.c). Tensors are lowered with their uid, type, dims, strides,
 * virtual flag and by-value bytes; the graph's dynamic-shape flag goes to the IR graph
 * (codegen reads it). Attributes the IR has no slot for (FE_NO_IR: multi-GPU peer
 * statistics) are NOT_SUPPORTED with a message naming them.
 * An SDPA op's score and mask modifiers (fe_check_score_mod.c checked them) are lowered into
 * the same IR graph: their tensors after the graph's (the input S or index space as a score
 * tensor, every result virtual), their pointwise ops beside the others, each result in the op's
 * slot (fe_sdpa_mods: IR_SDPA_SCORE_MOD, IR_SDPA_MASK_MOD, IR_SDPAB_MASK_MOD). Their uids must
 * differ from the graph's (BAD_PARAM otherwise): their tensors in memory bind by uid. Packed
 * (ragged) tensors: fe_lower_ragged.c.
 */
#include <math.h>
#include <string.h>

#include "graph/fe_graph_int.h"
#include "ir/ir.h"

/* ---- operands ----------------------------------------------------------------------------------------- */

int fe_tensor_index(const fe_graph_info *gi, fe_obj *t)
{
    int lo = 0, hi = gi->n_tensors;
    int64_t uid = fe_tensor(t).uid;
    while (lo < hi) { /* gi->tensors are sorted by uid */
        int mid = (lo + hi) / 2;
        if (fe_tensor(gi->tensors[mid].t).uid < uid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int compute_type(fe_obj *o, int graph_compute)
{
    for (int i = 0; i < o->cls->n_attrs; i++)
        if ((o->cls->attrs[i].flags & FE_COMPUTE) && o->vals[i].n > 0)
            return o->vals[i].one.e;
    return graph_compute;
}

/* The op's tensors into the IR operand slots its attribute rows name (fe_op_attrs.c), then
 * its typed attributes (the class's `lower`, fe_lower_attrs.c). */
static hipdnnStatus_t lower_op(fe_obj *o, const fe_graph_info *gi, int graph_compute, ir_op *op)
{
    const fe_class *cls = o->cls;
    for (int i = 0; i < cls->n_attrs; i++)
        if ((cls->attrs[i].flags & FE_NO_IR) && o->vals[i].n > 0)
            return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "%s: %s is not supported by this backend",
                             cls->name, cls->attrs[i].name);
    *op = (ir_op){.kind = (ir_op_kind)cls->ir, .compute = compute_type(o, graph_compute)};
    for (int s = 0; s < IR_MAX_SLOTS; s++)
        op->in[s] = op->out[s] = -1;
    op->n_in = ir_op_info_of((ir_op_kind)cls->ir)->n_in;
    op->n_out = ir_op_info_of((ir_op_kind)cls->ir)->n_out;
    int x_rank = 0;
    for (int i = 0; i < cls->n_attrs; i++) {
        const fe_attr *a = &cls->attrs[i];
        if (!(a->flags & (FE_IN | FE_OUT)) || a->shape != FE_ONE || o->vals[i].n == 0)
            continue;
        fe_obj *t = o->vals[i].one.obj;
        ((a->flags & FE_OUT) ? op->out : op->in)[a->slot] = fe_tensor_index(gi, t);
        if ((a->flags & FE_IN) && a->slot == 0)
            x_rank = fe_tensor(t).rank;
    }
    return cls->lower(o, gi, x_rank, op);
}

static ir_tensor lower_tensor(fe_obj *t)
{
    fe_tensor_view v = fe_tensor(t);
    ir_tensor it = {.uid = v.uid, .dtype = v.dtype, .rank = v.rank, .is_virtual = v.is_virtual,
                    .by_value = v.by_value};
    memcpy(it.dims, v.dims, (size_t)v.rank * sizeof *v.dims);
    memcpy(it.strides, v.strides, (size_t)v.rank * sizeof *v.strides);
    it.runtime_scalar = fe_get(t, HIPDNN_ATTR_TENSOR_IS_RUNTIME_PASS_BY_VALUE_EXT)->one.b;
    fe_val *val = fe_get(t, HIPDNN_ATTR_TENSOR_VALUE_EXT);
    if (val->n > 0)
        memcpy(it.value, val->arr, (size_t)val->n < sizeof it.value ? (size_t)val->n : sizeof it.value);
    return it;
}

/* Modifier m of SDPA op o (lowered as *sdpa) into out: its tensors after the graph's (the input
 * uid as a score tensor, every result virtual), its ops, its result in m's slot. */
static hipdnnStatus_t lower_mod(fe_obj *o, const fe_sdpa_mod *m, const fe_graph_info *gi, int graph_compute,
                                ir_graph *out, ir_op *sdpa)
{
    fe_val *gv = fe_get(o, m->graph);
    if (o->cls->type != m->type || gv->n == 0)
        return HIPDNN_STATUS_SUCCESS;
    const fe_graph_info *sub = &fe_graph_of(gv->one.obj)->gi;
    int64_t in_uid = fe_op_i64_or(o, m->in, 0), out_uid = fe_op_i64_or(o, m->out, 0);
    int base = out->n_t;
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    for (int i = 0; i < sub->n_tensors && st == HIPDNN_STATUS_SUCCESS; i++) {
        ir_tensor t = lower_tensor(sub->tensors[i].t);
        if (fe_score_mod_tensor(gi, t.uid) >= 0)
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: %s modifier tensor uid %lld is also a "
                             "tensor of the graph; give the sub-graph uids of its own", o->cls->name,
                             m->kind == IR_MOD_SCORE ? "score" : "mask", (long long)t.uid);
        if (t.uid == in_uid)
            t.score = true, t.by_value = t.runtime_scalar = false;
        t.is_virtual |= t.score || sub->tensors[i].producer >= 0; /* never in memory */
        if (ir_add_tensor(out, &t) < 0)
            st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "lowering a graph: out of memory");
    }
    for (int k = 0; k < sub->n_ops && st == HIPDNN_STATUS_SUCCESS; k++) {
        ir_op op;
        st = lower_op(sub->ops[k], sub, graph_compute, &op);
        for (int s = 0; s < IR_MAX_SLOTS; s++) {
            op.in[s] += op.in[s] >= 0 ? base : 0;
            op.out[s] += op.out[s] >= 0 ? base : 0;
        }
        if (st == HIPDNN_STATUS_SUCCESS && ir_add_op(out, &op) < 0)
            st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "lowering a graph: out of memory");
    }
    sdpa->in[m->slot] = base + fe_score_mod_tensor(sub, out_uid);
    return st;
}

/* The score and mask modifiers of SDPA op o (fe_check_score_mod.c checked them). */
static hipdnnStatus_t lower_mods(fe_obj *o, const fe_graph_info *gi, int graph_compute, ir_graph *out,
                                 ir_op *sdpa)
{
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    for (int i = 0; i < FE_N_SDPA_MODS && st == HIPDNN_STATUS_SUCCESS; i++)
        st = lower_mod(o, &fe_sdpa_mods[i], gi, graph_compute, out, sdpa);
    return st;
}

/* hipDNN's frontends pass a by-value scalar as a [1] tensor whatever the rank of the other
 * operand, and pointwise ops broadcast it (fe_check_pointwise.c). A single-element graph input read
 * only by pointwise ops gets their largest output rank here (leading 1s: the same tensor), so
 * kernel templates and the interpreter see equal ranks. Others keep their rank. */
static void widen_pointwise_scalars(ir_graph *g)
{
    for (int ti = 0; ti < g->n_t; ti++) {
        ir_tensor *t = &g->t[ti];
        bool single = true, only_pointwise = true;
        int want = t->rank;
        for (int d = 0; d < t->rank; d++)
            single &= t->dims[d] == 1;
        for (int k = 0; single && k < g->n_ops; k++)
            for (int s = 0; s < IR_MAX_SLOTS; s++) {
                const ir_op *op = &g->ops[k];
                only_pointwise &= op->out[s] != ti;
                if (op->in[s] != ti)
                    continue;
                only_pointwise &= op->kind == IR_OP_POINTWISE;
                if (op->kind == IR_OP_POINTWISE && op->out[0] >= 0 && g->t[op->out[0]].rank > want)
                    want = g->t[op->out[0]].rank;
            }
        if (!single || !only_pointwise || want == t->rank || want > IR_MAX_RANK)
            continue;
        int lead = want - t->rank;
        memmove(t->dims + lead, t->dims, (size_t)t->rank * sizeof *t->dims);
        memmove(t->strides + lead, t->strides, (size_t)t->rank * sizeof *t->strides);
        for (int d = 0; d < lead; d++)
            t->dims[d] = t->strides[d] = 1;
        t->rank = want;
    }
}

hipdnnStatus_t fe_lower(fe_obj *graph, const fe_graph_info *gi, ir_graph *out)
{
    fe_val *gc = fe_get(graph, HIPDNN_ATTR_OPERATIONGRAPH_COMPUTE_DATA_TYPE_EXT);
    int graph_compute = gc->n > 0 ? gc->one.e : HIPDNN_DATA_FLOAT;
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    ir_graph_init(out);
    out->dynamic_shape = fe_op_flag(graph, HIPDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED);
    for (int i = 0; i < gi->n_tensors && st == HIPDNN_STATUS_SUCCESS; i++) {
        ir_tensor t = lower_tensor(gi->tensors[i].t);
        if (ir_add_tensor(out, &t) < 0)
            st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "lowering a graph: out of memory");
    }
    for (int k = 0; k < gi->n_ops && st == HIPDNN_STATUS_SUCCESS; k++) {
        ir_op op = {0};
        st = lower_op(gi->ops[k], gi, graph_compute, &op);
        if (st == HIPDNN_STATUS_SUCCESS)
            st = lower_mods(gi->ops[k], gi, graph_compute, out, &op);
        if (st == HIPDNN_STATUS_SUCCESS && ir_add_op(out, &op) < 0)
            st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "lowering a graph: out of memory");
        if (st != HIPDNN_STATUS_SUCCESS)
            ir_op_release(&op); /* what lower_op allocated, when the graph did not take it */
    }
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_lower_ragged(gi, out); /* packed (THD) tensors: fe_lower_ragged.c */
    if (st == HIPDNN_STATUS_SUCCESS) {
        widen_pointwise_scalars(out);
        st = ir_graph_seal(out);
    }
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_custom_bind(out);
    if (st != HIPDNN_STATUS_SUCCESS)
        ir_graph_free(out);
    return st;
}

int64_t fe_ir_tensor_bytes(const ir_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++)
        n *= t->dims[i];
    size_t es = fe_dtype_size(t->dtype);
    return es > 0 ? n * (int64_t)es : (n + 1) / 2;
}
