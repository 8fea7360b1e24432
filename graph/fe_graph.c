/* fe_graph.c — HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR and graph structure analysis.
 *
 * Owns: the op-graph attribute table and fe_graph_analyse, which every consumer of a graph
 * (finalize, the serializers, later the IR lowering) uses to see its structure: tensors
 * deduplicated by UID (two different tensor descriptors with one UID is an error), at most one
 * producer per tensor, every virtual tensor produced inside the graph, no operation appended
 * twice, and the operations in a topological order (a cycle is an error).
 */
#include <stdlib.h>
#include <string.h>

#include "graph/fe_graph.h"

#define FE_MAX_GRAPH_OPS 16384
#define GFAIL(...) base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: " __VA_ARGS__)

/* One use of a tensor by an operation. */
typedef struct tref {
    int64_t uid;
    fe_obj *t;
    int op;    /* index into the ops as appended */
    bool out;  /* written by the op */
} tref;

static int cmp_tref(const void *pa, const void *pb)
{
    const tref *a = pa, *b = pb;
    if (a->uid != b->uid)
        return a->uid < b->uid ? -1 : 1;
    return a->op - b->op;
}

/* Appends op #k's tensor uses to refs (refs NULL: counts them). A ragged tensor's offset tensor
 * (fe_tensor_ragged) is an input of every op that uses the ragged tensor. */
static int collect_refs(fe_obj *op, int k, tref *refs)
{
    int n = 0;
    for (int i = 0; i < op->cls->n_attrs; i++) {
        const fe_attr *a = &op->cls->attrs[i];
        fe_val *v = &op->vals[i];
        if (a->desc != HIPDNN_BACKEND_TENSOR_DESCRIPTOR)
            continue;
        fe_obj *const *ts = a->shape == FE_ONE ? &v->one.obj : (fe_obj *const *)v->arr;
        for (int64_t j = 0; j < v->n; j++) {
            fe_obj *ro = fe_tensor_ragged(ts[j]);
            if (refs != NULL)
                refs[n] = (tref){fe_tensor(ts[j]).uid, ts[j], k, (a->flags & FE_OUT) != 0};
            if (refs != NULL && ro != NULL)
                refs[n + 1] = (tref){fe_tensor(ro).uid, ro, k, false};
            n += ro != NULL ? 2 : 1;
        }
    }
    return n;
}

static int count_refs(fe_obj *op) { return collect_refs(op, 0, NULL); }

static hipdnnStatus_t check_ops_unique(fe_obj *const *ops, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (ops[i] == ops[j])
                return GFAIL("operation #%d (%s) was added twice (also as #%d)", j,
                             ops[j]->cls->name, i);
    return HIPDNN_STATUS_SUCCESS;
}

/* Checks one uid group refs[lo, hi) and records its producer. */
static hipdnnStatus_t check_group(const tref *refs, int lo, int hi, fe_graph_tensor *gt)
{
    long long uid = (long long)refs[lo].uid;
    gt->t = refs[lo].t;
    gt->producer = -1;
    for (int i = lo; i < hi; i++) {
        if (refs[i].t != refs[lo].t)
            return GFAIL("two different tensor descriptors share UID %lld", uid);
        if (!refs[i].out)
            continue;
        if (gt->producer >= 0 && gt->producer != refs[i].op)
            return GFAIL("tensor UID %lld is written by operations #%d and #%d", uid,
                         gt->producer, refs[i].op);
        if (gt->producer == refs[i].op)
            return GFAIL("operation #%d writes tensor UID %lld twice", refs[i].op, uid);
        gt->producer = refs[i].op;
    }
    for (int i = lo; i < hi; i++)
        if (!refs[i].out && refs[i].op == gt->producer)
            return GFAIL("operation #%d reads its own output UID %lld (a cycle)", gt->producer, uid);
    if (fe_tensor(gt->t).is_virtual && gt->producer < 0)
        return GFAIL("virtual tensor UID %lld is read but no operation of the graph produces it",
                     uid);
    return HIPDNN_STATUS_SUCCESS;
}

/* Kahn's algorithm over op -> op edges (producer of an input -> reader); stable by index. */
static hipdnnStatus_t topo_order(fe_obj *const *ops, int n_ops, const tref *refs, int n_refs,
                                 const int *producer_of_ref, fe_obj **order)
{
    int *indeg = base_calloc((size_t)n_ops, sizeof *indeg);
    bool *done = base_calloc((size_t)n_ops, sizeof *done);
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    if (indeg == NULL || done == NULL) {
        st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "analysing an operation graph: out of memory");
        goto out;
    }
    for (int i = 0; i < n_refs; i++)
        if (!refs[i].out && producer_of_ref[i] >= 0)
            indeg[refs[i].op]++;
    for (int placed = 0; placed < n_ops; placed++) {
        int k = 0;
        while (k < n_ops && (done[k] || indeg[k] > 0))
            k++;
        if (k == n_ops) {
            st = GFAIL("the operations form a cycle (%d of %d could be ordered)", placed, n_ops);
            goto out;
        }
        done[k] = true;
        order[placed] = ops[k];
        for (int i = 0; i < n_refs; i++)
            if (!refs[i].out && producer_of_ref[i] == k)
                indeg[refs[i].op]--;
    }
out:
    base_free(indeg);
    base_free(done);
    return st;
}

static hipdnnStatus_t analyse_refs(fe_obj *const *ops, int n_ops, tref *refs, int n_refs,
                                   fe_graph_info *gi)
{
    qsort(refs, (size_t)n_refs, sizeof *refs, cmp_tref);
    int *prod = base_malloc((size_t)n_refs * sizeof *prod + 1);
    gi->tensors = base_calloc((size_t)n_refs + 1, sizeof *gi->tensors);
    gi->ops = base_calloc((size_t)n_ops, sizeof *gi->ops);
    if (prod == NULL || gi->tensors == NULL || gi->ops == NULL) {
        base_free(prod);
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "analysing an operation graph: out of memory");
    }
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    for (int lo = 0, hi; lo < n_refs && st == HIPDNN_STATUS_SUCCESS; lo = hi) {
        for (hi = lo; hi < n_refs && refs[hi].uid == refs[lo].uid;)
            hi++;
        fe_graph_tensor *gt = &gi->tensors[gi->n_tensors++];
        st = check_group(refs, lo, hi, gt);
        for (int i = lo; i < hi; i++)
            prod[i] = gt->producer;
    }
    if (st == HIPDNN_STATUS_SUCCESS)
        st = topo_order(ops, n_ops, refs, n_refs, prod, gi->ops);
    if (st == HIPDNN_STATUS_SUCCESS) {
        gi->n_ops = n_ops;
        /* producers as positions in the topological order */
        for (int i = 0; i < gi->n_tensors; i++)
            for (int k = 0; gi->tensors[i].producer >= 0 && k < n_ops; k++)
                if (gi->ops[k] == ops[gi->tensors[i].producer]) {
                    gi->tensors[i].producer = k;
                    break;
                }
    }
    base_free(prod);
    return st;
}

/* The tensor of uid `uid` among gi's (sorted by uid), or NULL. */
static fe_obj *tensor_of_uid(const fe_graph_info *gi, int64_t uid)
{
    int lo = 0, hi = gi->n_tensors;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (fe_tensor(gi->tensors[mid].t).uid < uid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < gi->n_tensors && fe_tensor(gi->tensors[lo].t).uid == uid ? gi->tensors[lo].t : NULL;
}

/* A ragged tensor's offsets are a tensor of the graph: attached (then collected with it), or
 * named by uid only and used by some operation. */
static hipdnnStatus_t check_ragged(const fe_graph_info *gi)
{
    for (int i = 0; i < gi->n_tensors; i++) {
        fe_obj *t = gi->tensors[i].t;
        fe_val *uid = fe_get(t, HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC);
        if (uid->n == 0 || fe_tensor_ragged(t) != NULL)
            continue;
        fe_obj *ro = tensor_of_uid(gi, uid->one.i64);
        if (ro == NULL)
            return GFAIL("tensor UID %lld: its ragged offset UID %lld is not a tensor of the graph; give the "
                         "offset tensor itself (HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC as a descriptor, or "
                         "HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_TENSOR_EXT)", (long long)fe_tensor(t).uid,
                         (long long)uid->one.i64);
        fe_tensor_view v = fe_tensor(ro);
        if (v.dtype != HIPDNN_DATA_INT32 && v.dtype != HIPDNN_DATA_INT64)
            return GFAIL("tensor UID %lld: its ragged offset UID %lld is %s; offsets are INT32 or INT64",
                         (long long)fe_tensor(t).uid, (long long)v.uid, fe_dtype_name(v.dtype));
    }
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t fe_graph_analyse(fe_obj *graph, fe_graph_info *out)
{
    fe_val *opsv = fe_get(graph, HIPDNN_ATTR_OPERATIONGRAPH_OPS);
    fe_obj *const *ops = opsv->arr;
    int n_ops = (int)opsv->n;
    *out = (fe_graph_info){0};
    if (n_ops == 0)
        return GFAIL("the graph has no operations (set HIPDNN_ATTR_OPERATIONGRAPH_OPS)");
    if (n_ops > FE_MAX_GRAPH_OPS) /* the analysis is quadratic in the op count */
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: %d "
                         "operations; at most %d are supported", n_ops, FE_MAX_GRAPH_OPS);
    hipdnnStatus_t st = check_ops_unique(ops, n_ops);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    int n_refs = 0;
    for (int k = 0; k < n_ops; k++)
        n_refs += count_refs(ops[k]);
    tref *refs = base_malloc((size_t)n_refs * sizeof *refs + 1);
    if (refs == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "analysing an operation graph: out of memory");
    for (int k = 0, n = 0; k < n_ops; k++)
        n += collect_refs(ops[k], k, refs + n);
    st = analyse_refs(ops, n_ops, refs, n_refs, out);
    base_free(refs);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = check_ragged(out);
    if (st != HIPDNN_STATUS_SUCCESS)
        fe_graph_info_free(out);
    return st;
}

void fe_graph_info_free(fe_graph_info *gi)
{
    base_free(gi->ops);
    base_free(gi->tensors);
    *gi = (fe_graph_info){0};
}

/* ---- the descriptor class ------------------------------------------------------------------------ */

static hipdnnStatus_t set_handle(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                                 int64_t n, const void *elems)
{
    if (type == a->type && n == 1 && elems != NULL) {
        hipdnnHandle_t h;
        memcpy(&h, elems, sizeof h);
        if (h == NULL || h->magic != FE_HANDLE_MAGIC)
            return base_fail(HIPDNN_STATUS_BAD_PARAM,
                             "HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR %s: not a live handle "
                             "from hipdnnCreate", a->name);
    }
    return fe_set_generic(o, a, type, n, elems);
}

/* HIPDNN_LOG_LEVEL=debug and up: the kernels the graph fuses into. */
static void log_partition(const fe_graph_state *gs)
{
    ir_partition p;
    if (!base_detail_on(BASE_DETAIL_DEBUG) || ir_fuse(gs->ir, &p) != HIPDNN_STATUS_SUCCESS)
        return;
    base_sb sb = {0};
    ir_partition_dump(gs->ir, &p, &sb);
    base_detail(BASE_DETAIL_DEBUG, "graph %s:\n%s", gs->key, base_sb_str(&sb));
    base_sb_free(&sb);
    ir_partition_free(&p);
}

/* Lowers the finalized graph to the IR and keys it. A graph the IR cannot express stays a valid
 * graph: the reason is kept for whoever asks for its IR or key. */
static hipdnnStatus_t lower(fe_obj *o, fe_graph_state *gs)
{
    ir_graph *ir = base_calloc(1, sizeof *ir);
    if (ir == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "finalizing an operation graph: out of memory");
    hipdnnStatus_t st = fe_lower(o, &gs->gi, ir);
    bool lowered = st == HIPDNN_STATUS_SUCCESS; /* fe_lower frees what it built on failure */
    ir_key key;
    int *tid = lowered ? base_malloc(((size_t)ir->n_t + 1) * sizeof *tid) : NULL;
    if (lowered && tid == NULL)
        st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "finalizing an operation graph: out of memory");
    if (lowered && tid != NULL && (st = ir_graph_canon(ir, &key, tid, &gs->n_canon)) == HIPDNN_STATUS_SUCCESS) {
        gs->ir = ir, gs->canon_tid = tid;
        ir_key_hex(&key, gs->key);
        log_partition(gs);
        return st;
    }
    base_free(tid);
    if (lowered) /* keying failed: st no longer says that the graph was built */
        ir_graph_free(ir);
    base_free(ir);
    gs->lower_status = st;
    base_last_error(gs->lower_msg, sizeof gs->lower_msg, false);
    return st == HIPDNN_STATUS_NOT_SUPPORTED ? HIPDNN_STATUS_SUCCESS : st;
}

static hipdnnStatus_t graph_finalize(fe_obj *o)
{
    fe_graph_state *gs = base_calloc(1, sizeof *gs);
    if (gs == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "finalizing an operation graph: out of memory");
    hipdnnStatus_t st = fe_graph_analyse(o, &gs->gi);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = lower(o, gs);
    if (st != HIPDNN_STATUS_SUCCESS) {
        fe_graph_info_free(&gs->gi);
        base_free(gs);
        return st;
    }
    o->priv = gs;
    return HIPDNN_STATUS_SUCCESS;
}

static void graph_release(fe_obj *o)
{
    fe_graph_state *gs = o->priv;
    if (gs == NULL)
        return;
    fe_graph_info_free(&gs->gi);
    if (gs->ir != NULL)
        ir_graph_free(gs->ir);
    base_free(gs->ir);
    base_free(gs->canon_tid);
    base_free(gs);
    o->priv = NULL;
}

static hipdnnStatus_t get_key(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                              int64_t requested, int64_t *count, void *elems)
{
    (void)type;
    fe_graph_state *gs = o->priv;
    if (gs->ir == NULL)
        return base_fail(gs->lower_status, "HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR %s: the graph "
                         "has no IR: %s", a->name, gs->lower_msg);
    if (elems == NULL || requested == 0)
        return fe_get_copy(o, a, 0, count, NULL, NULL, 33, 1);
    int64_t k = requested - 1 < 32 ? requested - 1 : 32;
    memcpy(elems, gs->key, (size_t)k);
    ((char *)elems)[k] = '\0';
    if (count != NULL)
        *count = k + 1;
    return HIPDNN_STATUS_SUCCESS;
}

#define DT HIPDNN_TYPE_DATA_TYPE
static const fe_attr graph_attrs[] = {
    {.id = HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, .name = "HIPDNN_ATTR_OPERATIONGRAPH_HANDLE",
     .type = HIPDNN_TYPE_HANDLE, .shape = FE_ONE, .flags = FE_REQ, .min_n = 1, .max_n = 1,
     .fb_id = -1, .set = set_handle},
    {.id = HIPDNN_ATTR_OPERATIONGRAPH_OPS, .name = "HIPDNN_ATTR_OPERATIONGRAPH_OPS",
     .type = HIPDNN_TYPE_BACKEND_DESCRIPTOR, .shape = FE_ARRAY, .flags = FE_ANY_OP | FE_APPEND,
     .min_n = 1, .max_n = HIPDNN_MAX_GRAPH_OPERATIONS_EXT, .fb_id = -1},
    {.id = HIPDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT,
     .name = "HIPDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT", .type = HIPDNN_TYPE_INT64,
     .shape = FE_ONE, .flags = FE_GET_ONLY, .min_n = 1, .max_n = 1, .fb_id = -1,
     .get = fe_graph_get_engine_count},
    SCALAR(HIPDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED, HIPDNN_TYPE_BOOLEAN, FE_W_NONE,
           NULL, -1, 0),
    SCALAR(HIPDNN_ATTR_OPERATIONGRAPH_COMPUTE_DATA_TYPE_EXT, DT, FE_W_DTYPE, "compute_data_type", 1, 0),
    SCALAR(HIPDNN_ATTR_OPERATIONGRAPH_INTERMEDIATE_DATA_TYPE_EXT, DT, FE_W_DTYPE,
           "intermediate_data_type", 2, 0),
    SCALAR(HIPDNN_ATTR_OPERATIONGRAPH_IO_DATA_TYPE_EXT, DT, FE_W_DTYPE, "io_data_type", 3, 0),
    SCALAR(HIPDNN_ATTR_OPERATIONGRAPH_PREFERRED_ENGINE_ID_EXT, HIPDNN_TYPE_INT64, FE_W_I64,
           "preferred_engine_id", 6, FE_NULL),
    STRING(HIPDNN_ATTR_OPERATIONGRAPH_NAME_EXT, "name", 0, 0, 4096),
    SCALAR(HIPDNN_ATTR_OPERATIONGRAPH_IS_OVERRIDE_SHAPE_ENABLED_EXT, HIPDNN_TYPE_BOOLEAN, FE_W_BOOL,
           "is_override_shape_enabled", 7, 0),
    {.id = HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT, .name = "HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT",
     .type = HIPDNN_TYPE_CHAR, .shape = FE_STRING, .flags = FE_GET_ONLY, .fb_id = -1, .get = get_key},
};

const fe_class fe_graph_class = {
    .type = HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR,
    .name = "HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR",
    .attrs = graph_attrs,
    .n_attrs = FE_COUNT(graph_attrs),
    .table = "Graph",
    .finalize = graph_finalize,
    .release = graph_release,
};
