/* fe_heuristics.c — HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: ranking engine configs for a graph.
 *
 * Finalize collects the engines that support the graph, in registry (rank) order, with the
 * graph's preferred engine (HIPDNN_ATTR_OPERATIONGRAPH_PREFERRED_ENGINE_ID_EXT) moved first; each
 * engine contributes its knob settings for the graph, best first (fe_engine.configs; the defaults
 * when it has no heuristic). With FIND_FIRST_EXT only the first config is kept. When no engine
 * supports the graph, finalize is NOT_SUPPORTED with every engine's reason in the message (a
 * caller never holds an empty ranking without knowing why). A device that is there but fails
 * (fe_engine.device) fails finalize with the runtime's status and message: a GPU engine is not
 * left out of the ranking in silence for it. RESULTS follows the cuDNN protocol: a query returns the count; the caller then
 * passes that many ENGINECFG descriptors it created, and each gets the ENGINE and the KNOB_CHOICES
 * of its rank set (the caller finalizes them).
 */
#include <stdio.h>
#include <string.h>

#include "engines/fe_engines.h"

#define MAX_RESULTS 64

typedef struct heur_config {
    const fe_engine *engine;
    int64_t knobs[FE_MAX_KNOBS];
} heur_config;

typedef struct heur_state {
    heur_config cfg[MAX_RESULTS];
    int n;
} heur_state;

/* Appends engine e's configs for graph g, best first. */
static void add_configs(heur_state *hs, const fe_engine *e, const fe_graph_state *g)
{
    int64_t (*knobs)[FE_MAX_KNOBS] = NULL;
    int room = MAX_RESULTS - hs->n, n = 0;
    if (e->configs != NULL && (knobs = base_calloc((size_t)room, sizeof *knobs)) != NULL)
        n = e->configs(g, knobs, room);
    if (n <= 0) { /* no heuristic (or no memory for it): the defaults */
        for (int k = 0; k < e->n_knobs; k++)
            hs->cfg[hs->n].knobs[k] = e->knobs[k].dflt;
        hs->cfg[hs->n++].engine = e;
    }
    for (int i = 0; i < n; i++) {
        memcpy(hs->cfg[hs->n].knobs, knobs[i], sizeof knobs[i]);
        hs->cfg[hs->n++].engine = e;
    }
    base_free(knobs);
}

static hipdnnStatus_t heur_finalize(fe_obj *o)
{
    heur_state *hs = base_calloc(1, sizeof *hs);
    if (hs == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "finalizing heuristics: out of memory");
    fe_obj *g = fe_get(o, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH)->one.obj;
    fe_val *pref = fe_get(g, HIPDNN_ATTR_OPERATIONGRAPH_PREFERRED_ENGINE_ID_EXT);
    bool find_first = fe_get(o, HIPDNN_ATTR_ENGINEHEUR_FIND_FIRST_EXT)->one.b;
    char why[256], whys[HIPDNN_ERROR_STRING_MAX_LENGTH] = "";
    size_t used = 0;
    for (int pass = 0; pass < 2; pass++) /* pass 0: the preferred engine, pass 1: the rest */
        for (int i = 0; i < fe_n_engines && hs->n < MAX_RESULTS; i++) {
            const fe_engine *e = fe_engines[i];
            bool preferred = pref->n > 0 && pref->one.i64 == e->id;
            if (preferred != (pass == 0))
                continue;
            why[0] = '\0';
            hipdnnStatus_t dev = fe_engine_device_failure(e);
            if (dev != HIPDNN_STATUS_SUCCESS) {
                base_free(hs); /* a device that failed, not one that is absent: say so */
                return dev;
            }
            bool yes = e->supports(fe_graph_of(g), why, sizeof why);
            int before = hs->n;
            if (yes)
                add_configs(hs, e, fe_graph_of(g));
            if (yes)
                base_detail(BASE_DETAIL_DEBUG, "heuristics for graph %s: engine '%s' supports it: configs "
                            "ranked %d..%d%s", fe_graph_of(g)->key, e->name, before + 1, hs->n,
                            preferred ? " (the caller's preferred engine, ranked first)" : "");
            else
                base_detail(BASE_DETAIL_DEBUG, "heuristics for graph %s: engine '%s' does not support it: %s",
                            fe_graph_of(g)->key, e->name, why[0] ? why : "-");
            if (!yes && used < sizeof whys)
                used += (size_t)snprintf(whys + used, sizeof whys - used, "%s%s: %s", used ? "; " : "",
                                         e->name, why[0] ? why : "not supported");
        }
    if (hs->n == 0) { /* every engine turned the graph down: say why, each in its words */
        base_free(hs);
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: no engine "
                         "supports this graph (%s)", whys);
    }
    if (find_first && hs->n > 1)
        hs->n = 1;
    o->priv = hs;
    return HIPDNN_STATUS_SUCCESS;
}

static void heur_release(fe_obj *o)
{
    base_free(o->priv);
    o->priv = NULL;
}

/* A finalized KNOB_CHOICE setting knob `def` to v, wrapped in a new handle. */
static hipdnnStatus_t make_choice(const fe_knob_def *def, int64_t v, hipdnnBackendDescriptor_t *out)
{
    fe_obj *c;
    hipdnnStatus_t st = fe_obj_new(&fe_knob_choice_class, &c);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    st = fe_set_attr(c, HIPDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, HIPDNN_TYPE_CHAR, (int64_t)strlen(def->id),
                     def->id);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_set_attr(c, HIPDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, HIPDNN_TYPE_INT64, 1, &v);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_finalize(c);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_wrap(c, out);
    fe_obj_unref(c);
    return st;
}

/* Sets the ENGINE of config hc, and a KNOB_CHOICE for each knob that is not at its default, on
 * a caller-created, unfinalized ENGINECFG. */
static hipdnnStatus_t fill_config(fe_obj *heur, const heur_config *hc, hipdnnBackendDescriptor_t cfg_h)
{
    fe_obj *cfg, *eng;
    hipdnnStatus_t st = fe_unwrap(cfg_h, "HIPDNN_ATTR_ENGINEHEUR_RESULTS", &cfg);
    if (st == HIPDNN_STATUS_SUCCESS && cfg->cls->type != HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_ATTR_ENGINEHEUR_RESULTS: results go into "
                         "ENGINECFG descriptors, got a %s", cfg->cls->name);
    if (st != HIPDNN_STATUS_SUCCESS || (st = fe_obj_new(&fe_engine_class, &eng)) != 0)
        return st;
    const fe_engine *e = hc->engine;
    hipdnnBackendDescriptor_t g_h = NULL, e_h = NULL, choices[FE_MAX_KNOBS];
    int n_choices = 0;
    st = fe_wrap(fe_get(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH)->one.obj, &g_h);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_set_attr(eng, HIPDNN_ATTR_ENGINE_OPERATION_GRAPH, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g_h);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_set_attr(eng, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &e->id);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_finalize(eng);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_wrap(eng, &e_h);
    for (int k = 0; k < e->n_knobs && st == HIPDNN_STATUS_SUCCESS; k++)
        if (hc->knobs[k] != e->knobs[k].dflt &&
            (st = make_choice(&e->knobs[k], hc->knobs[k], &choices[n_choices])) == HIPDNN_STATUS_SUCCESS)
            n_choices++;
    if (st == HIPDNN_STATUS_SUCCESS && n_choices > 0)
        st = fe_set_attr(cfg, HIPDNN_ATTR_ENGINECFG_KNOB_CHOICES, HIPDNN_TYPE_BACKEND_DESCRIPTOR,
                         n_choices, choices);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_set_attr(cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &e_h);
    while (n_choices > 0)
        fe_destroy_descriptor(choices[--n_choices]);
    if (g_h != NULL)
        fe_destroy_descriptor(g_h);
    if (e_h != NULL)
        fe_destroy_descriptor(e_h);
    fe_obj_unref(eng);
    return st;
}

static hipdnnStatus_t get_results(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                                  int64_t requested, int64_t *count, void *elems)
{
    (void)type;
    heur_state *hs = o->priv;
    if (elems == NULL || requested == 0)
        return fe_get_copy(o, a, 0, count, NULL, NULL, hs->n, 0);
    int64_t k = requested < hs->n ? requested : hs->n;
    for (int64_t i = 0; i < k; i++) {
        hipdnnStatus_t st = fill_config(o, &hs->cfg[i], ((hipdnnBackendDescriptor_t *)elems)[i]);
        if (st != HIPDNN_STATUS_SUCCESS)
            return st;
    }
    if (count != NULL)
        *count = k;
    return HIPDNN_STATUS_SUCCESS;
}

static const fe_attr heur_attrs[] = {
    {.id = HIPDNN_ATTR_ENGINEHEUR_MODE, .name = "HIPDNN_ATTR_ENGINEHEUR_MODE",
     .type = HIPDNN_TYPE_HEUR_MODE, .shape = FE_ONE, .flags = FE_REQ, .min_n = 1, .max_n = 1,
     .fb_id = -1},
    {.id = HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, .name = "HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH",
     .type = HIPDNN_TYPE_BACKEND_DESCRIPTOR, .shape = FE_ONE, .flags = FE_REQ, .min_n = 1,
     .max_n = 1, .desc = HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, .fb_id = -1},
    {.id = HIPDNN_ATTR_ENGINEHEUR_RESULTS, .name = "HIPDNN_ATTR_ENGINEHEUR_RESULTS",
     .type = HIPDNN_TYPE_BACKEND_DESCRIPTOR, .shape = FE_ARRAY, .flags = FE_GET_ONLY,
     .fb_id = -1, .get = get_results},
    SCALAR(HIPDNN_ATTR_ENGINEHEUR_FIND_FIRST_EXT, HIPDNN_TYPE_BOOLEAN, FE_W_NONE, NULL, -1, 0),
    ARRAY(HIPDNN_ATTR_ENGINEHEUR_POLICY_ORDER_EXT, HIPDNN_TYPE_INT64, FE_W_NONE, NULL, -1, 0, 1, 16),
    REFUSED(HIPDNN_ATTR_ENGINEHEUR_SM_COUNT_TARGET, HIPDNN_TYPE_INT64,
            "engines use the whole device; an SM count target is not supported"),
    REFUSED(HIPDNN_ATTR_ENGINEHEUR_DEVICEPROP, HIPDNN_TYPE_BACKEND_DESCRIPTOR,
            "device-property descriptors are not supported"),
};

const fe_class fe_engineheur_class = {
    .type = HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR,
    .name = "HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR",
    .attrs = heur_attrs,
    .n_attrs = FE_COUNT(heur_attrs),
    .finalize = heur_finalize,
    .release = heur_release,
};
