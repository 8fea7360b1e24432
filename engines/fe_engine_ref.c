/* fe_engine_ref.c — the reference engine: runs a graph on the host with the IR interpreter.
 *
 * Every pointer in the variant pack (and the workspace) is host memory. Ops run one at a time
 * in topological order through ir_ref_run (math in double, one rounding per output element);
 * virtual tensors live packed in the workspace. A score or mask modifier (ir_score.c) is not run
 * op by op: its ops are skipped and the SDPA op evaluates the chain per score (ir_score_mod_build
 * hands it over with its scalars read and its tensors in memory bound), so its tensors take no
 * workspace. A custom op runs its
 * provider's host reference (graph/fe_custom.c); attention over packed (THD) tensors runs batch
 * by batch (fe_engine_ref_ragged.c). It is the oracle every GPU kernel is tested
 * against and the engine of last resort, ranked after every GPU engine. When a GPU runtime is
 * loaded it asks the runtime what each pointer is and refuses device memory instead of
 * touching it.
 */
#include <stdio.h>
#include <string.h>

#include "engines/fe_engines.h"
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
    return true; /* custom ops included: lowering bound each to a provider, which has a reference */
}

/* Whether tensor i lives in the workspace: virtual, and neither a score tensor nor a result
 * of a modifier's op (mod: ir_score_mod_mark's marks). */
static bool in_workspace(const ir_graph *ir, const bool *mod, int i)
{
    const ir_tensor *t = &ir->t[i];
    return t->is_virtual && !t->score && !(t->producer >= 0 && mod[t->producer]);
}

/* Lays virtual tensors out in the workspace; returns its size (-1: out of memory). */
static int64_t layout(const ir_graph *ir, int64_t *offset)
{
    int64_t ws = 0;
    bool *mod = base_calloc((size_t)ir->n_ops + 1, sizeof *mod);
    if (mod == NULL || ir_score_mod_mark(ir, mod) != HIPDNN_STATUS_SUCCESS) {
        base_free(mod);
        return -1;
    }
    for (int i = 0; i < ir->n_t; i++) {
        bool in = in_workspace(ir, mod, i);
        if (offset != NULL)
            offset[i] = in ? ws : -1;
        if (in)
            ws += (fe_ir_tensor_bytes(&ir->t[i]) + REF_ALIGN - 1) / REF_ALIGN * REF_ALIGN;
    }
    base_free(mod);
    return ws;
}

static int64_t ref_workspace(const fe_graph_state *g, const int64_t *knobs)
{
    (void)knobs;
    int64_t ws = layout(g->ir, NULL);
    return ws < 0 ? 0 : ws;
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
    if (layout(g->ir, offset) < 0) {
        base_free(p), base_free(offset);
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "building a reference plan: out of memory");
    }
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
        b.data = p->offset[i] >= 0 ? (char *)pack->workspace + p->offset[i] : NULL;
    else if (t->by_value)
        b.data = t->value;
    else
        fe_varpack_find(pack, t->uid, &b.data);
    return b;
}

/* Runs op k; an op with modifiers gets their chains instead of the (never computed) modifier
 * results. */
static hipdnnStatus_t run_op(const ir_graph *ir, int k, ir_buf *bufs)
{
    const ir_op *op = &ir->ops[k];
    const ir_buf *in[IR_MAX_SLOTS];
    ir_buf *out[IR_MAX_SLOTS];
    ir_score_mod chain[IR_MOD_KINDS];
    const ir_score_mod *has[IR_MOD_KINDS] = {NULL};
    for (int s = 0; s < op->n_in; s++)
        in[s] = op->in[s] >= 0 ? &bufs[op->in[s]] : NULL;
    for (int s = 0; s < op->n_out; s++)
        out[s] = op->out[s] >= 0 ? &bufs[op->out[s]] : NULL;
    if (op->kind == IR_OP_CUSTOM) /* its provider's host implementation */
        return fe_custom_reference(ir, op, in, out);
    if (ir_op_ragged(ir, op)) /* packed (THD) attention, batch by batch */
        return fe_ref_run_ragged(ir, k, bufs);
    for (int m = 0; m < IR_MOD_KINDS; m++) {
        if (!ir_has_mod(op, (ir_mod_kind)m))
            continue;
        hipdnnStatus_t st = ir_score_mod_build(ir, k, (ir_mod_kind)m, bufs, &chain[m]);
        if (st != HIPDNN_STATUS_SUCCESS)
            return st;
        has[m] = &chain[m], in[ir_mod_slot(op->kind, (ir_mod_kind)m)] = NULL;
    }
    ir_ref_ctx c = {in, out, op->n_in, op->n_out};
    ir_ref_mods mods = {has[IR_MOD_SCORE], has[IR_MOD_MASK]};
    return ir_ref_run_mod(op->kind, &op->a, &mods, &c);
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
    bool *mod = base_calloc((size_t)ir->n_ops + 1, sizeof *mod);
    hipdnnStatus_t st = mod != NULL ? HIPDNN_STATUS_SUCCESS
                                    : base_fail(HIPDNN_STATUS_ALLOC_FAILED, "reference engine: out of memory");
    if (mod != NULL)
        st = ir_score_mod_mark(ir, mod);
    for (int k = 0; k < ir->n_ops && st == HIPDNN_STATUS_SUCCESS; k++)
        if (!mod[k]) /* a modifier runs inside its SDPA op */
            st = run_op(ir, k, bufs);
    base_free(mod);
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
