/* fe_plan.c — the EXECUTION_PLAN descriptor and hipdnnBackendExecute.
 *
 * A plan = an engine config (+ an optional KERNEL_CACHE; without one the process-wide cache);
 * finalize builds the engine's plan (all compilation happens here, through that cache) and
 * keeps what the build took from the cache (HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE_STATS_EXT).
 * Execute binds the variant pack's pointers to the graph's tensors (and to the in-memory
 * scalars of SDPA score modifiers, which share the graph's uids) and runs the plan; nothing
 * is compiled on that path.
 */
#include <stdio.h>
#include <string.h>

#include "engines/fe_engines.h"

typedef struct plan_state {
    fe_enginecfg_state cfg;
    fe_plan_impl *impl;
    fe_build_stats stats; /* what the build took from the kernel cache */
    int64_t *uids; /* tensors the variant pack must bind */
    int n_uids;
} plan_state;

/* ---- execution plan ----------------------------------------------------------------------------------- */

/* The uids a variant pack must bind: graph tensors that are neither virtual nor constants,
 * and the in-memory scalars of score modifiers (IR tensors after the graph's own). */
static hipdnnStatus_t collect_uids(plan_state *ps)
{
    const fe_graph_info *gi = &fe_graph_of(ps->cfg.graph)->gi;
    const ir_graph *ir = fe_graph_of(ps->cfg.graph)->ir;
    int n_ir = ir != NULL ? ir->n_t : 0;
    ps->uids = base_malloc(((size_t)gi->n_tensors + (size_t)n_ir + 1) * sizeof *ps->uids);
    if (ps->uids == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "finalizing a plan: out of memory");
    for (int i = 0; i < gi->n_tensors; i++) {
        fe_tensor_view t = fe_tensor(gi->tensors[i].t);
        if (!t.is_virtual && !t.by_value)
            ps->uids[ps->n_uids++] = t.uid;
    }
    for (int i = gi->n_tensors; i < n_ir; i++) {
        bool seen = false;
        for (int j = 0; j < ps->n_uids; j++)
            seen |= ps->uids[j] == ir->t[i].uid;
        if (!ir->t[i].is_virtual && !ir->t[i].by_value && !seen)
            ps->uids[ps->n_uids++] = ir->t[i].uid;
    }
    return HIPDNN_STATUS_SUCCESS;
}

static void plan_release(fe_obj *o)
{
    plan_state *ps = o->priv;
    if (ps == NULL)
        return;
    if (ps->impl != NULL)
        ps->cfg.engine->destroy(ps->impl);
    base_free(ps->uids);
    base_free(ps);
    o->priv = NULL;
}

/* Debug: the engine this plan runs on, its knob values and what the build took from the cache. */
static void log_plan(const plan_state *ps)
{
    if (!base_detail_on(BASE_DETAIL_DEBUG))
        return;
    const fe_engine *e = ps->cfg.engine;
    char knobs[512] = "";
    size_t used = 0;
    for (int i = 0; i < e->n_knobs && used < sizeof knobs; i++)
        used += (size_t)snprintf(knobs + used, sizeof knobs - used, "%s%s=%lld", i ? ", " : "",
                                 e->knobs[i].id, (long long)ps->cfg.knobs[i]);
    base_detail(BASE_DETAIL_DEBUG, "plan for graph %s: engine '%s' (%s, global index %lld; the engine "
                "config's, as the caller chose it from the heuristics), knobs {%s}, workspace %lld bytes; "
                "%lld kernel(s): %lld compiled, %lld from the kernel cache%s",
                fe_graph_of(ps->cfg.graph)->key, e->name, e->type, (long long)e->id, knobs,
                (long long)ps->cfg.workspace, (long long)ps->stats.kernels, (long long)ps->stats.compiled,
                (long long)ps->stats.cached,
                ps->stats.plan_cached ? " (the whole plan from the plan table)" : "");
}

static hipdnnStatus_t plan_finalize(fe_obj *o)
{
    plan_state *ps = base_calloc(1, sizeof *ps);
    if (ps == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "finalizing a plan: out of memory");
    ps->cfg = *(fe_enginecfg_state *)fe_get(o, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG)->one.obj->priv;
    o->priv = ps;
    hipdnnStatus_t st = collect_uids(ps);
    fe_val *kcache = fe_get(o, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE);
    fe_build_ctx ctx = {.cache = kcache->n > 0 ? fe_kernel_cache_of(kcache->one.obj) : kc_default()};
    if (st == HIPDNN_STATUS_SUCCESS)
        st = ps->cfg.engine->build(fe_graph_of(ps->cfg.graph), ps->cfg.knobs, &ctx, &ps->impl);
    ps->stats = ctx.stats;
    if (st == HIPDNN_STATUS_SUCCESS)
        log_plan(ps);
    if (st != HIPDNN_STATUS_SUCCESS)
        plan_release(o);
    return st;
}

static plan_state *plan_of(fe_obj *o) { return o->priv; }

static hipdnnStatus_t get_cache_stats(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t t,
                                      int64_t requested, int64_t *count, void *elems)
{
    (void)t;
    const fe_build_stats *s = &plan_of(o)->stats;
    int64_t v[6] = {s->kernels, s->compiled, s->cached, s->plan_cached, s->kernels_not_stored, s->plan_not_stored};
    if (elems != NULL && requested != 0 && requested < 4)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT, "%s %s: at least 4 elements, %lld requested",
                         o->cls->name, a->name, (long long)requested);
    return fe_get_copy(o, a, requested, count, elems, v, 6, sizeof v[0]); /* 4 requested: the first 4 */
}

static hipdnnStatus_t get_plan_workspace(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t t,
                                         int64_t requested, int64_t *count, void *elems)
{
    (void)t;
    return fe_get_one_i64(o, a, requested, count, elems, plan_of(o)->cfg.workspace);
}

static hipdnnStatus_t get_engine_index(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t t,
                                       int64_t requested, int64_t *count, void *elems)
{
    (void)t;
    return fe_get_one_i64(o, a, requested, count, elems, plan_of(o)->cfg.engine->id);
}

static hipdnnStatus_t get_uids(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t t,
                               int64_t requested, int64_t *count, void *elems)
{
    (void)t;
    plan_state *ps = plan_of(o);
    if (elems != NULL && requested != 0 && requested < ps->n_uids)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT, "%s %s: %lld requested, the plan "
                         "has %d tensors", o->cls->name, a->name, (long long)requested, ps->n_uids);
    return fe_get_copy(o, a, requested, count, elems, ps->uids, ps->n_uids, sizeof *ps->uids);
}

static hipdnnStatus_t get_override(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t t,
                                   int64_t requested, int64_t *count, void *elems)
{
    (void)t;
    fe_val *ov = fe_get(plan_of(o)->cfg.graph, HIPDNN_ATTR_OPERATIONGRAPH_IS_OVERRIDE_SHAPE_ENABLED_EXT);
    bool on = ov->n > 0 && ov->one.b;
    return fe_get_copy(o, a, requested, count, elems, &on, 1, sizeof on);
}

static const fe_attr plan_attrs[] = {
    {.id = HIPDNN_ATTR_EXECUTION_PLAN_HANDLE, .name = "HIPDNN_ATTR_EXECUTION_PLAN_HANDLE",
     .type = HIPDNN_TYPE_HANDLE, .shape = FE_ONE, .min_n = 1, .max_n = 1, .fb_id = -1},
    DESC_ROW(HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, FE_REQ,
             FE_ONE),
    GET_I64(HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, get_plan_workspace),
    {.id = HIPDNN_ATTR_EXECUTION_PLAN_TENSOR_UIDS_EXT, .name = "HIPDNN_ATTR_EXECUTION_PLAN_TENSOR_UIDS_EXT",
     .type = HIPDNN_TYPE_INT64, .shape = FE_ARRAY, .flags = FE_GET_ONLY, .fb_id = -1, .get = get_uids},
    GET_I64(HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_GLOBAL_INDEX_EXT, get_engine_index),
    {.id = HIPDNN_ATTR_EXECUTION_PLAN_IS_OVERRIDE_SHAPE_ENABLED_EXT,
     .name = "HIPDNN_ATTR_EXECUTION_PLAN_IS_OVERRIDE_SHAPE_ENABLED_EXT", .type = HIPDNN_TYPE_BOOLEAN,
     .shape = FE_ONE, .flags = FE_GET_ONLY, .min_n = 1, .max_n = 1, .fb_id = -1, .get = get_override},
    REFUSED(HIPDNN_ATTR_EXECUTION_PLAN_COMPUTED_INTERMEDIATE_UIDS, HIPDNN_TYPE_INT64,
            "intermediates stay inside the plan's workspace"),
    REFUSED(HIPDNN_ATTR_EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS, HIPDNN_TYPE_INT64,
            "intermediates stay inside the plan's workspace"),
    REFUSED(HIPDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, HIPDNN_TYPE_CHAR,
            "plan serialization is not supported yet"),
    DESC_ROW(HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE, HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, 0, FE_ONE),
    {.id = HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE_STATS_EXT, .name = "HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE_STATS_EXT",
     .type = HIPDNN_TYPE_INT64, .shape = FE_ARRAY, .flags = FE_GET_ONLY, .fb_id = -1, .get = get_cache_stats},
    REFUSED(HIPDNN_ATTR_EXECUTION_PLAN_DEVICEPROP, HIPDNN_TYPE_BACKEND_DESCRIPTOR,
            "device-property descriptors are not supported"),
};

const fe_class fe_plan_class = {
    .type = HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR,
    .name = "HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR",
    .attrs = plan_attrs,
    .n_attrs = FE_COUNT(plan_attrs),
    .finalize = plan_finalize,
    .release = plan_release,
};

/* ---- execute ---------------------------------------------------------------------------------------- */

static hipdnnStatus_t finalized_arg(hipdnnBackendDescriptor_t d, hipdnnBackendDescriptorType_t type,
                                    const char *what, fe_obj **o)
{
    hipdnnStatus_t st = fe_unwrap(d, "hipdnnBackendExecute", o);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    if ((*o)->cls->type != type)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "hipdnnBackendExecute: %s is a %s", what,
                         (*o)->cls->name);
    if (!(*o)->finalized)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NOT_FINALIZED, "hipdnnBackendExecute: %s is not "
                         "finalized", what);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t check_bindings(const plan_state *ps, const fe_varpack_view *vp)
{
    for (int i = 0; i < ps->n_uids; i++) {
        void *p;
        if (!fe_varpack_find(vp, ps->uids[i], &p))
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "hipdnnBackendExecute: the variant pack has no "
                             "pointer for tensor uid %lld", (long long)ps->uids[i]);
    }
    if (ps->cfg.workspace > 0 && vp->workspace == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "hipdnnBackendExecute: the plan needs %lld bytes "
                         "of workspace and the variant pack has none", (long long)ps->cfg.workspace);
    if (vp->n_overrides > 0)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "hipdnnBackendExecute: override shapes are "
                         "not supported by engine '%s'", ps->cfg.engine->name);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t execute(hipdnnHandle_t handle, hipdnnBackendDescriptor_t executionPlan,
                              hipdnnBackendDescriptor_t variantPack)
{
    fe_obj *plan, *pack;
    hipdnnStatus_t st = fe_check_handle(handle, "hipdnnBackendExecute");
    if (st == HIPDNN_STATUS_SUCCESS)
        st = finalized_arg(executionPlan, HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, "executionPlan", &plan);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = finalized_arg(variantPack, HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, "variantPack", &pack);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    plan_state *ps = plan_of(plan);
    fe_varpack_view vp = fe_varpack(pack);
    st = check_bindings(ps, &vp);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = ps->cfg.engine->execute(ps->impl, handle, &vp);
    if (st == HIPDNN_STATUS_SUCCESS)
        base_detail(BASE_DETAIL_VERBOSE, "execute: graph %s on engine '%s', %d tensor(s) bound, "
                    "workspace %p, stream %p", fe_graph_of(ps->cfg.graph)->key, ps->cfg.engine->name,
                    ps->n_uids, vp.workspace, (void *)handle->stream);
    return st;
}

static hipdnnStatus_t hipdnnBackendExecute_body(hipdnnHandle_t handle, hipdnnBackendDescriptor_t executionPlan, hipdnnBackendDescriptor_t variantPack);

HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnBackendExecute(hipdnnHandle_t handle,
                                                          hipdnnBackendDescriptor_t executionPlan,
                                                          hipdnnBackendDescriptor_t variantPack)
{
    base_call_begin();
    return base_call_done(hipdnnBackendExecute_body(handle, executionPlan, variantPack));
}

static hipdnnStatus_t hipdnnBackendExecute_body(hipdnnHandle_t handle, hipdnnBackendDescriptor_t executionPlan, hipdnnBackendDescriptor_t variantPack)
{
    return fe_refused(execute(handle, executionPlan, variantPack), "hipdnnBackendExecute");
}
