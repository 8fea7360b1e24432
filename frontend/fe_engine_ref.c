/* fe_engine_ref.c — the reference engine: runs a graph on the host with the IR interpreter.
 *
 * Every pointer in the variant pack (and the workspace) is host memory. Ops run one at a time
 * in topological order through ir_ref_run (math in double, one rounding per output element);
 * virtual tensors live packed in the workspace. It is the oracle every GPU kernel is tested
 * against and the engine of last resort, ranked after every GPU engine. When a GPU runtime is
 * loaded it asks the runtime what each pointer is and refuses device memory instead of
 * touching it.
 */
#include <stdio.h>
#include <string.h>

#include "frontend/fe_int.h"
#include "runtime/rt.h"

#define REF_ALIGN 64

struct fe_plan_impl {
    const fe_graph_state *g;
    int64_t *offset; /* per IR tensor: byte offset in the workspace, -1 when not virtual */
};

static bool ref_supports(const fe_graph_state *g, char *why, size_t n)
{
    if (g->ir == NULL) {
        snprintf(why, n, "%s", g->lower_msg);
        return false;
    }
    for (int k = 0; k < g->ir->n_ops; k++)
        if (g->ir->ops[k].kind == IR_OP_CUSTOM) {
            snprintf(why, n, "custom op '%s' has no reference implementation",
                     g->ir->ops[k].a.custom.id);
            return false;
        }
    return true;
}

/* Lays virtual tensors out in the workspace; returns its size. */
static int64_t layout(const ir_graph *ir, int64_t *offset)
{
    int64_t ws = 0;
    for (int i = 0; i < ir->n_t; i++) {
        if (offset != NULL)
            offset[i] = ir->t[i].is_virtual ? ws : -1;
        if (ir->t[i].is_virtual)
            ws += (fe_ir_tensor_bytes(&ir->t[i]) + REF_ALIGN - 1) / REF_ALIGN * REF_ALIGN;
    }
    return ws;
}

static int64_t ref_workspace(const fe_graph_state *g, const int64_t *knobs)
{
    (void)knobs;
    return layout(g->ir, NULL);
}

static hipdnnStatus_t ref_build(const fe_graph_state *g, const int64_t *knobs, fe_build_ctx *ctx,
                                fe_plan_impl **out)
{
    (void)knobs, (void)ctx; /* nothing to compile */
    fe_plan_impl *p = base_calloc(1, sizeof *p);
    int64_t *offset = base_malloc(((size_t)g->ir->n_t + 1) * sizeof *offset);
    if (p == NULL || offset == NULL) {
        base_free(p), base_free(offset);
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "building a reference plan: out of memory");
    }
    layout(g->ir, offset);
    p->g = g;
    p->offset = offset;
    *out = p;
    return HIPDNN_STATUS_SUCCESS;
}

static void ref_destroy(fe_plan_impl *p)
{
    base_free(p->offset);
    base_free(p);
}

/* A view of tensor i: bound memory, its constant bytes, or its workspace slot. */
static ir_buf view(const fe_plan_impl *p, int i, const fe_varpack_view *pack)
{
    ir_tensor *t = &p->g->ir->t[i];
    ir_buf b = {.dtype = t->dtype, .rank = t->rank};
    memcpy(b.dims, t->dims, sizeof b.dims);
    memcpy(b.strides, t->strides, sizeof b.strides);
    if (t->is_virtual)
        b.data = (char *)pack->workspace + p->offset[i];
    else if (t->by_value)
        b.data = t->value;
    else
        fe_varpack_find(pack, t->uid, &b.data);
    return b;
}

static hipdnnStatus_t run_op(const ir_op *op, ir_buf *bufs)
{
    const ir_buf *in[IR_MAX_SLOTS];
    ir_buf *out[IR_MAX_SLOTS];
    for (int s = 0; s < op->n_in; s++)
        in[s] = op->in[s] >= 0 ? &bufs[op->in[s]] : NULL;
    for (int s = 0; s < op->n_out; s++)
        out[s] = op->out[s] >= 0 ? &bufs[op->out[s]] : NULL;
    ir_ref_ctx c = {in, out, op->n_in, op->n_out};
    return ir_ref_run(op->kind, &op->a, &c);
}

static hipdnnStatus_t refuse_device_memory(const fe_varpack_view *pack)
{
    if (rt_init() != HIPDNN_STATUS_SUCCESS)
        return HIPDNN_STATUS_SUCCESS; /* no GPU: every pointer is host memory */
    for (int i = 0; i < pack->n; i++)
        if (rt_is_device_pointer(pack->ptrs[i]))
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "reference engine: the pointer for tensor uid "
                             "%lld is device memory; this engine runs on the host", (long long)pack->uids[i]);
    if (pack->workspace != NULL && rt_is_device_pointer(pack->workspace))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "reference engine: the workspace is device memory; "
                         "this engine runs on the host");
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t ref_execute(fe_plan_impl *p, hipdnnHandle_t handle, const fe_varpack_view *pack)
{
    (void)handle;
    hipdnnStatus_t st0 = refuse_device_memory(pack);
    if (st0 != HIPDNN_STATUS_SUCCESS)
        return st0;
    const ir_graph *ir = p->g->ir;
    ir_buf *bufs = base_malloc(((size_t)ir->n_t + 1) * sizeof *bufs);
    if (bufs == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "reference engine: out of memory");
    for (int i = 0; i < ir->n_t; i++)
        bufs[i] = view(p, i, pack);
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    for (int k = 0; k < ir->n_ops && st == HIPDNN_STATUS_SUCCESS; k++)
        st = run_op(&ir->ops[k], bufs);
    base_free(bufs);
    return st;
}

const fe_engine fe_reference_engine = {
    .id = 1000,
    .name = "reference",
    .type = "host",
    .supports = ref_supports,
    .workspace = ref_workspace,
    .build = ref_build,
    .execute = ref_execute,
    .destroy = ref_destroy,
};
