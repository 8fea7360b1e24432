/* fe_enginecfg.c — HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR: an ENGINE + knob choices.
 *
 * Finalize resolves the knob values (defaults filled, each choice checked against the engine's
 * knob: known id, integer, in range, on the stride or in the valid list, no duplicates) and asks
 * the engine for the workspace size; what it keeps (fe_enginecfg_state, fe_engines.h) is what a
 * plan (fe_plan.c) builds from and what the KERNEL_CACHE descriptor asks about
 * (fe_enginecfg_is_cached).
 */
#include <string.h>

#include "engines/fe_engines.h"

static hipdnnStatus_t check_choice(const fe_knob_def *k, const fe_knob_choice_view *c)
{
    if (c->type != HIPDNN_TYPE_INT64)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR: knob '%s' "
                         "takes an INT64 value", k->id);
    bool ok = c->i64 >= k->min && c->i64 <= k->max && (k->stride <= 1 || (c->i64 - k->min) % k->stride == 0);
    for (int i = 0; ok && k->valid != NULL && i < k->n_valid && k->valid[i] != c->i64; i++)
        ok = i + 1 < k->n_valid;
    if (!ok)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR: %lld is not "
                         "a valid value of knob '%s' (%lld..%lld)", (long long)c->i64, k->id,
                         (long long)k->min, (long long)k->max);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t resolve_knobs(fe_obj *o, fe_enginecfg_state *cs)
{
    const fe_engine *e = cs->engine;
    bool chosen[FE_MAX_KNOBS] = {false};
    for (int i = 0; i < e->n_knobs && i < FE_MAX_KNOBS; i++)
        cs->knobs[i] = e->knobs[i].dflt;
    fe_val *ch = fe_get(o, HIPDNN_ATTR_ENGINECFG_KNOB_CHOICES);
    for (int64_t c = 0; c < ch->n; c++) {
        fe_knob_choice_view v = fe_knob_choice(((fe_obj **)ch->arr)[c]);
        int k = 0;
        while (k < e->n_knobs && strcmp(e->knobs[k].id, v.id) != 0)
            k++;
        if (k == e->n_knobs)
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR: engine "
                             "'%s' has no knob '%s'", e->name, v.id);
        if (chosen[k])
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR: knob "
                             "'%s' chosen twice", v.id);
        hipdnnStatus_t st = check_choice(&e->knobs[k], &v);
        if (st != HIPDNN_STATUS_SUCCESS)
            return st;
        chosen[k] = true;
        cs->knobs[k] = v.i64;
    }
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t cfg_finalize(fe_obj *o)
{
    fe_enginecfg_state *cs = base_calloc(1, sizeof *cs);
    if (cs == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "finalizing an engine config: out of memory");
    fe_obj *eng = fe_get(o, HIPDNN_ATTR_ENGINECFG_ENGINE)->one.obj;
    cs->engine = fe_engine_by_id(fe_get(eng, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX)->one.i64);
    cs->graph = fe_get(eng, HIPDNN_ATTR_ENGINE_OPERATION_GRAPH)->one.obj;
    hipdnnStatus_t st = resolve_knobs(o, cs);
    if (st != HIPDNN_STATUS_SUCCESS) {
        base_free(cs);
        return st;
    }
    cs->workspace = cs->engine->workspace(fe_graph_of(cs->graph), cs->knobs);
    o->priv = cs;
    return HIPDNN_STATUS_SUCCESS;
}

static void free_priv(fe_obj *o)
{
    base_free(o->priv);
    o->priv = NULL;
}

static hipdnnStatus_t get_cfg_workspace(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t t,
                                        int64_t requested, int64_t *count, void *elems)
{
    (void)t;
    return fe_get_one_i64(o, a, requested, count, elems, ((fe_enginecfg_state *)o->priv)->workspace);
}

static const fe_attr cfg_attrs[] = {
    DESC_ROW(HIPDNN_ATTR_ENGINECFG_ENGINE, HIPDNN_BACKEND_ENGINE_DESCRIPTOR, FE_REQ, FE_ONE),
    DESC_ROW(HIPDNN_ATTR_ENGINECFG_KNOB_CHOICES, HIPDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, FE_APPEND,
             FE_ARRAY),
    GET_I64(HIPDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, get_cfg_workspace),
    REFUSED(HIPDNN_ATTR_ENGINECFG_INTERMEDIATE_INFO, HIPDNN_TYPE_BACKEND_DESCRIPTOR,
            "engines keep intermediates in their own workspace; there is no intermediate info"),
    REFUSED(HIPDNN_ATTR_KNOB_CHOICE_SERIALIZED_VALUE, HIPDNN_TYPE_FLATBUFFER_DATA_STRUCT_EXT,
            "serialized knob settings are not supported; use HIPDNN_ATTR_ENGINECFG_KNOB_CHOICES"),
};

const fe_class fe_enginecfg_class = {
    .type = HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR,
    .name = "HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR",
    .attrs = cfg_attrs,
    .n_attrs = FE_COUNT(cfg_attrs),
    .finalize = cfg_finalize,
    .release = free_priv,
};


bool fe_enginecfg_is_cached(fe_obj *cfg, kc_cache *c)
{
    const fe_enginecfg_state *cs = cfg->priv;
    return cs->engine->is_cached != NULL && cs->engine->is_cached(fe_graph_of(cs->graph), cs->knobs, c);
}
