/* fe_engine.c — the engine registry, engine enumeration (_ext calls) and the ENGINE descriptor.
 *
 * The registry lists every engine in heuristic rank order, best first: jit_fused, jit_unfused
 * (one kernel per op: runs what the fused one cannot), then the reference engine. An ENGINE descriptor names one engine (global index) for one finalized graph; it
 * finalizes only if the engine supports the graph, and reports the engine's name, knobs
 * (as new KNOB_INFO descriptors) and behavior notes.
 */
#include <string.h>

#include "engines/fe_engines.h"

#define EXPORT HIPDNN_BACKEND_EXPORT
#define PLUGIN_NAME "hipdnn-jit"

const fe_engine *const fe_engines[] = {&fe_jit_engine, &fe_jit_unfused_engine, &fe_reference_engine};
const int fe_n_engines = (int)(sizeof fe_engines / sizeof fe_engines[0]);

const fe_engine *fe_engine_by_id(int64_t id)
{
    for (int i = 0; i < fe_n_engines; i++)
        if (fe_engines[i]->id == id)
            return fe_engines[i];
    return NULL;
}

/* ---- the ENGINE descriptor ------------------------------------------------------------------------ */

static const fe_engine *engine_of(fe_obj *o)
{
    return fe_engine_by_id(fe_get(o, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX)->one.i64);
}

hipdnnStatus_t fe_engine_device_failure(const fe_engine *e)
{
    hipdnnStatus_t st = e->device != NULL ? e->device() : HIPDNN_STATUS_SUCCESS;
    return st == HIPDNN_STATUS_NOT_SUPPORTED ? HIPDNN_STATUS_SUCCESS : st; /* absent: `supports` says why */
}

static hipdnnStatus_t engine_finalize(fe_obj *o)
{
    int64_t id = fe_get(o, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX)->one.i64;
    const fe_engine *e = fe_engine_by_id(id);
    if (e == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM,
                         "HIPDNN_BACKEND_ENGINE_DESCRIPTOR: no engine has global index %lld",
                         (long long)id);
    char why[256] = "";
    fe_obj *g = fe_get(o, HIPDNN_ATTR_ENGINE_OPERATION_GRAPH)->one.obj;
    hipdnnStatus_t dev = fe_engine_device_failure(e);
    if (dev != HIPDNN_STATUS_SUCCESS)
        return dev;
    if (!e->supports(fe_graph_of(g), why, sizeof why))
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED,
                         "HIPDNN_BACKEND_ENGINE_DESCRIPTOR: engine '%s' does not support this "
                         "graph: %s", e->name, why);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t get_knob_info(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                                    int64_t requested, int64_t *count, void *elems)
{
    (void)type;
    const fe_engine *e = engine_of(o);
    if (elems == NULL || requested == 0)
        return fe_get_copy(o, a, 0, count, NULL, NULL, e->n_knobs, 0);
    hipdnnBackendDescriptor_t *out = elems;
    int64_t k = requested < e->n_knobs ? requested : e->n_knobs;
    for (int64_t i = 0; i < k; i++) {
        fe_obj *info;
        hipdnnStatus_t st = fe_knob_info_make(&e->knobs[i], &info);
        if (st == HIPDNN_STATUS_SUCCESS) {
            st = fe_wrap(info, &out[i]);
            fe_obj_unref(info);
        }
        if (st != HIPDNN_STATUS_SUCCESS) {
            while (i-- > 0)
                fe_destroy_descriptor(out[i]);
            return st;
        }
    }
    if (count != NULL)
        *count = k;
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t get_notes(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                                int64_t requested, int64_t *count, void *elems)
{
    (void)type;
    const fe_engine *e = engine_of(o);
    return fe_get_copy(o, a, requested, count, elems, e->notes, e->n_notes, sizeof(int));
}

static hipdnnStatus_t get_name(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                               int64_t requested, int64_t *count, void *elems)
{
    (void)type;
    const char *name = engine_of(o)->name;
    int64_t len = (int64_t)strlen(name);
    if (elems == NULL || requested == 0)
        return fe_get_copy(o, a, 0, count, NULL, NULL, len + 1, 1);
    int64_t k = requested - 1 < len ? requested - 1 : len;
    memcpy(elems, name, (size_t)k);
    ((char *)elems)[k] = '\0';
    if (count != NULL)
        *count = k + 1;
    return HIPDNN_STATUS_SUCCESS;
}

#define GET_ONLY_ROW(ID, TYPE, SHAPE, FN)                                                        \
    {.id = ID, .name = #ID, .type = TYPE, .shape = SHAPE, .flags = FE_GET_ONLY, .min_n = 0,      \
     .max_n = 0, .fb_id = -1, .get = FN}
static const fe_attr engine_attrs[] = {
    {.id = HIPDNN_ATTR_ENGINE_OPERATION_GRAPH, .name = "HIPDNN_ATTR_ENGINE_OPERATION_GRAPH",
     .type = HIPDNN_TYPE_BACKEND_DESCRIPTOR, .shape = FE_ONE, .flags = FE_REQ, .min_n = 1,
     .max_n = 1, .desc = HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, .fb_id = -1},
    SCALAR(HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, FE_W_NONE, NULL, -1, FE_REQ),
    GET_ONLY_ROW(HIPDNN_ATTR_ENGINE_KNOB_INFO, HIPDNN_TYPE_BACKEND_DESCRIPTOR, FE_ARRAY, get_knob_info),
    GET_ONLY_ROW(HIPDNN_ATTR_ENGINE_BEHAVIOR_NOTE, HIPDNN_TYPE_BEHAVIOR_NOTE, FE_ARRAY, get_notes),
    GET_ONLY_ROW(HIPDNN_ATTR_ENGINE_NAME_EXT, HIPDNN_TYPE_CHAR, FE_STRING, get_name),
    REFUSED(HIPDNN_ATTR_ENGINE_NUMERICAL_NOTE, HIPDNN_TYPE_NUMERICAL_NOTE,
            "numerical notes are not reported by this backend"),
    REFUSED(HIPDNN_ATTR_ENGINE_LAYOUT_INFO, HIPDNN_TYPE_BACKEND_DESCRIPTOR,
            "engines take any layout expressible by strides; there is no layout info"),
    REFUSED(HIPDNN_ATTR_ENGINE_CU_COUNT_TARGET_EXT, HIPDNN_TYPE_INT64,
            "engines use the whole device; a CU count target is not supported"),
    REFUSED(HIPDNN_ATTR_ENGINE_DEVICEPROP, HIPDNN_TYPE_BACKEND_DESCRIPTOR,
            "device-property descriptors are not supported"),
    REFUSED(HIPDNN_ATTR_KNOB_INFO_SERIALIZED_VALUE, HIPDNN_TYPE_FLATBUFFER_DATA_STRUCT_EXT,
            "serialized knobs are not supported; read HIPDNN_ATTR_ENGINE_KNOB_INFO"),
};

const fe_class fe_engine_class = {
    .type = HIPDNN_BACKEND_ENGINE_DESCRIPTOR,
    .name = "HIPDNN_BACKEND_ENGINE_DESCRIPTOR",
    .attrs = engine_attrs,
    .n_attrs = FE_COUNT(engine_attrs),
    .finalize = engine_finalize,
};

/* ---- engine enumeration ------------------------------------------------------------------------------ */

static hipdnnStatus_t hipdnnGetEngineCount_ext_body(hipdnnHandle_t handle, size_t *numEngines);

EXPORT hipdnnStatus_t hipdnnGetEngineCount_ext(hipdnnHandle_t handle, size_t *numEngines)
{
    base_call_begin();
    return base_call_done(hipdnnGetEngineCount_ext_body(handle, numEngines));
}

static hipdnnStatus_t hipdnnGetEngineCount_ext_body(hipdnnHandle_t handle, size_t *numEngines)
{
    hipdnnStatus_t st = fe_check_handle(handle, "hipdnnGetEngineCount_ext");
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    if (numEngines == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER,
                         "hipdnnGetEngineCount_ext: numEngines is NULL");
    *numEngines = (size_t)fe_n_engines;
    return HIPDNN_STATUS_SUCCESS;
}

/* The engine at `index` in alphabetical order of names. */
static const fe_engine *by_name_rank(size_t index)
{
    for (int i = 0; i < fe_n_engines; i++) {
        size_t rank = 0;
        for (int j = 0; j < fe_n_engines; j++)
            rank += strcmp(fe_engines[j]->name, fe_engines[i]->name) < 0;
        if (rank == index)
            return fe_engines[i];
    }
    return NULL;
}

/* Two-call string output: NULL buffer -> length (with NUL); else *len is the buffer size. */
static hipdnnStatus_t put_string(const char *s, char *buf, size_t *len, const char *what)
{
    if (len == NULL)
        return HIPDNN_STATUS_SUCCESS; /* the caller does not want this string */
    size_t need = strlen(s) + 1;
    if (buf == NULL) {
        *len = need;
        return HIPDNN_STATUS_SUCCESS;
    }
    if (*len < need)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT,
                         "hipdnnGetEngineInfo_ext: %s needs %zu bytes, the buffer has %zu", what,
                         need, *len);
    memcpy(buf, s, need);
    *len = need;
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t hipdnnGetEngineInfo_ext_body(hipdnnHandle_t handle, size_t engineIndex, int64_t *engineId, char *engineName, size_t *engineNameLen, char *pluginName, size_t *pluginNameLen, char *version, size_t *versionLen, char *type, size_t *typeLen);

EXPORT hipdnnStatus_t hipdnnGetEngineInfo_ext(hipdnnHandle_t handle, size_t engineIndex,
                                              int64_t *engineId, char *engineName,
                                              size_t *engineNameLen, char *pluginName,
                                              size_t *pluginNameLen, char *version,
                                              size_t *versionLen, char *type, size_t *typeLen)
{
    base_call_begin();
    return base_call_done(hipdnnGetEngineInfo_ext_body(handle, engineIndex, engineId, engineName, engineNameLen, pluginName, pluginNameLen, version, versionLen, type, typeLen));
}

static hipdnnStatus_t hipdnnGetEngineInfo_ext_body(hipdnnHandle_t handle, size_t engineIndex, int64_t *engineId, char *engineName, size_t *engineNameLen, char *pluginName, size_t *pluginNameLen, char *version, size_t *versionLen, char *type, size_t *typeLen)
{
    hipdnnStatus_t st = fe_check_handle(handle, "hipdnnGetEngineInfo_ext");
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    const fe_engine *e = by_name_rank(engineIndex);
    if (e == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_OUT_OF_BOUND,
                         "hipdnnGetEngineInfo_ext: engine index %zu out of range (%d engines)",
                         engineIndex, fe_n_engines);
    if (engineId != NULL)
        *engineId = e->id;
    st = put_string(e->name, engineName, engineNameLen, "the engine name");
    if (st == HIPDNN_STATUS_SUCCESS)
        st = put_string(PLUGIN_NAME, pluginName, pluginNameLen, "the plugin name");
    if (st == HIPDNN_STATUS_SUCCESS)
        st = put_string(fe_version_string(), version, versionLen, "the version");
    if (st == HIPDNN_STATUS_SUCCESS)
        st = put_string(e->type, type, typeLen, "the type");
    return st;
}

static hipdnnStatus_t hipdnnGetEngineIdByName_ext_body(hipdnnHandle_t handle, const char *engineName, int64_t *engineId);

EXPORT hipdnnStatus_t hipdnnGetEngineIdByName_ext(hipdnnHandle_t handle, const char *engineName,
                                                  int64_t *engineId)
{
    base_call_begin();
    return base_call_done(hipdnnGetEngineIdByName_ext_body(handle, engineName, engineId));
}

static hipdnnStatus_t hipdnnGetEngineIdByName_ext_body(hipdnnHandle_t handle, const char *engineName, int64_t *engineId)
{
    hipdnnStatus_t st = fe_check_handle(handle, "hipdnnGetEngineIdByName_ext");
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    if (engineName == NULL || engineId == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER,
                         "hipdnnGetEngineIdByName_ext: engineName and engineId must be non-NULL");
    for (int i = 0; i < fe_n_engines; i++)
        if (strcmp(fe_engines[i]->name, engineName) == 0) {
            *engineId = fe_engines[i]->id;
            return HIPDNN_STATUS_SUCCESS;
        }
    return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "hipdnnGetEngineIdByName_ext: no engine named '%s'",
                     engineName);
}

/* ---- plugins: custom-op providers (graph/fe_custom_plugins.c); every engine is built in ------------ */

static hipdnnStatus_t hipdnnSetEnginePluginPaths_ext_body(size_t numPaths, const char *const *pluginPaths, hipdnnPluginLoadingMode_ext_t loadingMode);

EXPORT hipdnnStatus_t hipdnnSetEnginePluginPaths_ext(size_t numPaths, const char *const *pluginPaths,
                                                     hipdnnPluginLoadingMode_ext_t loadingMode)
{
    base_call_begin();
    return base_call_done(hipdnnSetEnginePluginPaths_ext_body(numPaths, pluginPaths, loadingMode));
}

static hipdnnStatus_t hipdnnSetEnginePluginPaths_ext_body(size_t numPaths, const char *const *pluginPaths, hipdnnPluginLoadingMode_ext_t loadingMode)
{
    if (loadingMode != HIPDNN_PLUGIN_LOADING_ADDITIVE && loadingMode != HIPDNN_PLUGIN_LOADING_ABSOLUTE)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "hipdnnSetEnginePluginPaths_ext: loadingMode %d is "
                         "not a hipdnnPluginLoadingMode_ext_t", (int)loadingMode);
    if (numPaths > 0 && pluginPaths == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "hipdnnSetEnginePluginPaths_ext: "
                         "pluginPaths is NULL with numPaths %zu", numPaths);
    for (size_t i = 0; i < numPaths; i++)
        if (pluginPaths[i] == NULL)
            return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER,
                             "hipdnnSetEnginePluginPaths_ext: pluginPaths[%zu] is NULL", i);
    return fe_custom_load_plugins(numPaths, pluginPaths); /* custom-op plugins; engines are built in */
}

static hipdnnStatus_t hipdnnGetLoadedEnginePluginPaths_ext_body(hipdnnHandle_t handle, size_t *numPluginPaths, char **pluginPaths, size_t *maxStringLen);

EXPORT hipdnnStatus_t hipdnnGetLoadedEnginePluginPaths_ext(hipdnnHandle_t handle, size_t *numPluginPaths,
                                                           char **pluginPaths, size_t *maxStringLen)
{
    base_call_begin();
    return base_call_done(hipdnnGetLoadedEnginePluginPaths_ext_body(handle, numPluginPaths, pluginPaths, maxStringLen));
}

static hipdnnStatus_t hipdnnGetLoadedEnginePluginPaths_ext_body(hipdnnHandle_t handle, size_t *numPluginPaths, char **pluginPaths, size_t *maxStringLen)
{
    hipdnnStatus_t st = fe_check_handle(handle, "hipdnnGetLoadedEnginePluginPaths_ext");
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    if (numPluginPaths == NULL || maxStringLen == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "hipdnnGetLoadedEnginePluginPaths_ext: "
                         "numPluginPaths and maxStringLen must be non-NULL");
    const char *paths[64];
    size_t n = fe_custom_plugin_paths(paths, 64), longest = 0, size[64];
    n = n < 64 ? n : 64;
    for (size_t i = 0; i < n; i++) {
        size[i] = strlen(paths[i]) + 1;
        longest = size[i] > longest ? size[i] : longest;
    }
    if (pluginPaths == NULL) { /* size query */
        *numPluginPaths = n, *maxStringLen = longest;
        return HIPDNN_STATUS_SUCCESS;
    }
    if (*numPluginPaths < n || *maxStringLen < longest)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT, "hipdnnGetLoadedEnginePluginPaths_ext: room "
                         "for %zu paths of %zu bytes; %zu paths of up to %zu bytes are loaded", *numPluginPaths,
                         *maxStringLen, n, longest);
    for (size_t i = 0; i < n; i++)
        if (pluginPaths[i] == NULL) /* checked before any copy: a failed call writes nothing */
            return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "hipdnnGetLoadedEnginePluginPaths_ext: "
                             "pluginPaths[%zu] is NULL", i);
    for (size_t i = 0; i < n; i++)
        memcpy(pluginPaths[i], paths[i], size[i]);
    *numPluginPaths = n, *maxStringLen = longest;
    return HIPDNN_STATUS_SUCCESS;
}

/* OPERATIONGRAPH's ENGINE_GLOBAL_COUNT (the graph's attribute row names this getter). */
hipdnnStatus_t fe_graph_get_engine_count(fe_obj *o, const fe_attr *a,
                                         hipdnnBackendAttributeType_t type, int64_t requested,
                                         int64_t *count, void *elems)
{
    (void)type;
    int64_t n = fe_n_engines;
    return fe_get_copy(o, a, requested, count, elems, &n, 1, sizeof n);
}
