/* fe_kernel_cache_desc.c — HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR: a kernel cache (cache/) a framework
 * owns and attaches to execution plans (HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE); plans
 * without one use the process-wide cache (kc_default()).
 *
 * Attributes (include/HipdnnBackendAttributeName.h): DIRECTORY_EXT (unset or "": in memory,
 * private to this descriptor), MAX_SIZE_EXT (bytes; default HIPDNN_CACHE_MAX_BYTES or 4 GiB),
 * READ_ONLY_EXT, OPERATION_GRAPH_EXT (the graph the cache is meant for; kept and returned, the
 * cache serves any graph), JSON_REPRESENTATION_EXT (get: the cache's records as JSON; set
 * before finalize: records to load at finalize) and the query IS_ENGINECFG_KERNEL_CACHED.
 * Finalize opens the cache (a directory that cannot be written degrades to read-only or memory
 * with a warning, as kc_open does) and loads the JSON records if set.
 *
 * JSON form: {"format": "hipdnn-jit kernel cache", "version": 1, "records": N,
 *             "bundle": "<base64 of the cache's export bundle (cache/kc_bundle.c)>"}.
 */
#include <jansson.h>
#include <string.h>

#include "engines/fe_engines.h"

#define JSON_FORMAT "hipdnn-jit kernel cache"
#define JSON_VERSION 1

kc_cache *fe_kernel_cache_of(fe_obj *o) { return o != NULL && o->finalized ? o->priv : NULL; }

/* Loads the records of a JSON representation into c. */
static hipdnnStatus_t load_json(kc_cache *c, const char *text, size_t n)
{
    json_error_t err;
    json_t *doc = json_loadb(text, n, 0, &err);
    const char *format = NULL, *bundle = NULL;
    json_int_t version = 0;
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    if (doc == NULL)
        st = base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR "
                       "JSON_REPRESENTATION: not JSON (line %d: %s)", err.line, err.text);
    else if (json_unpack(doc, "{s:s, s:I, s:s}", "format", &format, "version", &version, "bundle", &bundle) != 0 ||
             strcmp(format, JSON_FORMAT) != 0 || version != JSON_VERSION)
        st = base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR JSON_REPRESENTATION: "
                       "not a version-%d \"%s\" object with a \"bundle\" string", JSON_VERSION, JSON_FORMAT);
    base_sb bytes = {0};
    if (st == HIPDNN_STATUS_SUCCESS && !base_b64_decode(bundle, strlen(bundle), &bytes))
        st = bytes.oom ? base_fail(HIPDNN_STATUS_ALLOC_FAILED, "kernel cache JSON: out of memory")
                       : base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR "
                                   "JSON_REPRESENTATION: \"bundle\" is not base64");
    size_t n_records = 0;
    if (st == HIPDNN_STATUS_SUCCESS)
        st = kc_import_mem(c, bytes.p, bytes.len, &n_records);
    base_sb_free(&bytes);
    json_decref(doc);
    return st;
}

static hipdnnStatus_t kcache_finalize(fe_obj *o)
{
    fe_val *dir = fe_get(o, HIPDNN_ATTR_KERNEL_CACHE_DIRECTORY_EXT);
    fe_val *max = fe_get(o, HIPDNN_ATTR_KERNEL_CACHE_MAX_SIZE_EXT);
    fe_val *ro = fe_get(o, HIPDNN_ATTR_KERNEL_CACHE_READ_ONLY_EXT);
    fe_val *json = fe_get(o, HIPDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION_EXT);
    char *path = dir->n > 0 ? base_strndup(dir->arr, (size_t)dir->n) : NULL;
    if (dir->n > 0 && path == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "finalizing a kernel cache: out of memory");
    if (max->n > 0 && max->one.i64 <= 0) {
        base_free(path);
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR "
                         "HIPDNN_ATTR_KERNEL_CACHE_MAX_SIZE_EXT: %lld is not a positive size",
                         (long long)max->one.i64);
    }
    kc_options opt = {.dir = path, .max_bytes = max->n > 0 ? (uint64_t)max->one.i64 : 0,
                      .read_only = ro->n > 0 && ro->one.b};
    kc_cache *c = NULL;
    hipdnnStatus_t st = kc_open(&opt, &c);
    base_free(path);
    if (st == HIPDNN_STATUS_SUCCESS && json->n > 0)
        st = load_json(c, json->arr, (size_t)json->n);
    if (st != HIPDNN_STATUS_SUCCESS) {
        kc_close(c);
        return st;
    }
    o->priv = c;
    return HIPDNN_STATUS_SUCCESS;
}

static void kcache_release(fe_obj *o)
{
    kc_close(o->priv);
    o->priv = NULL;
}

/* ---- gets -------------------------------------------------------------------------------------- */

static hipdnnStatus_t get_json(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                               int64_t requested, int64_t *count, void *elems)
{
    (void)type;
    if (!o->finalized) /* before finalize: what was set, to be loaded */
        return fe_get_generic(o, a, type, requested, count, elems);
    uint8_t *bundle = NULL;
    size_t len = 0, n_records = 0;
    hipdnnStatus_t st = kc_export_mem(o->priv, &bundle, &len, &n_records);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    base_sb sb = {0};
    base_sb_printf(&sb, "{\"format\": \"%s\", \"version\": %d, \"records\": %zu, \"bundle\": \"", JSON_FORMAT,
                   JSON_VERSION, n_records);
    base_b64_encode(bundle, len, &sb);
    base_sb_puts(&sb, "\"}");
    base_free(bundle);
    int64_t need = (int64_t)sb.len + 1;
    if (sb.oom)
        st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "serializing a kernel cache: out of memory");
    else if (elems == NULL || requested == 0)
        st = fe_get_copy(o, a, 0, count, NULL, NULL, need, 1);
    else if (requested < need)
        st = base_fail(HIPDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT, "%s %s: the JSON takes %lld bytes with "
                       "its NUL, %lld requested (query the count first)", o->cls->name, a->name,
                       (long long)need, (long long)requested);
    else {
        memcpy(elems, base_sb_str(&sb), (size_t)need);
        if (count != NULL)
            *count = need;
    }
    base_sb_free(&sb);
    return st;
}

static hipdnnStatus_t get_is_cached(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                                    int64_t requested, int64_t *count, void *elems)
{
    (void)type;
    if (elems == NULL || requested != 1 || count == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s: pass requestedElementCount 1, an elementCount "
                         "pointer and arrayOfElements pointing at a finalized ENGINECFG descriptor",
                         o->cls->name, a->name);
    fe_obj *cfg;
    hipdnnStatus_t st = fe_unwrap(*(hipdnnBackendDescriptor_t *)elems, a->name, &cfg);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    if (cfg->cls->type != HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR || !cfg->finalized)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s %s: the element is a %s%s, not a finalized "
                         "HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR", o->cls->name, a->name, cfg->cls->name,
                         cfg->finalized ? "" : " (not finalized)");
    *count = fe_enginecfg_is_cached(cfg, o->priv) ? 1 : 0;
    return HIPDNN_STATUS_SUCCESS;
}

static const fe_attr kcache_attrs[] = {
    {.id = HIPDNN_ATTR_KERNEL_CACHE_OPERATION_GRAPH_EXT, .name = "HIPDNN_ATTR_KERNEL_CACHE_OPERATION_GRAPH_EXT",
     .type = HIPDNN_TYPE_BACKEND_DESCRIPTOR, .shape = FE_ONE, .min_n = 1, .max_n = 1,
     .desc = HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, .fb_id = -1},
    {.id = HIPDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION_EXT,
     .name = "HIPDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION_EXT", .type = HIPDNN_TYPE_CHAR, .shape = FE_STRING,
     .flags = FE_GET_ANY, .min_n = 0, .max_n = 0, .fb_id = -1, .get = get_json},
    STRING(HIPDNN_ATTR_KERNEL_CACHE_DIRECTORY_EXT, NULL, -1, 0, 4095),
    SCALAR(HIPDNN_ATTR_KERNEL_CACHE_MAX_SIZE_EXT, HIPDNN_TYPE_INT64, FE_W_NONE, NULL, -1, 0),
    SCALAR(HIPDNN_ATTR_KERNEL_CACHE_READ_ONLY_EXT, HIPDNN_TYPE_BOOLEAN, FE_W_NONE, NULL, -1, 0),
    {.id = HIPDNN_ATTR_KERNEL_CACHE_IS_ENGINECFG_KERNEL_CACHED,
     .name = "HIPDNN_ATTR_KERNEL_CACHE_IS_ENGINECFG_KERNEL_CACHED", .type = HIPDNN_TYPE_BACKEND_DESCRIPTOR,
     .shape = FE_ONE, .flags = FE_GET_ONLY, .min_n = 1, .max_n = 1, .fb_id = -1, .get = get_is_cached},
};

const fe_class fe_kernel_cache_class = {
    .type = HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR,
    .name = "HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR",
    .attrs = kcache_attrs,
    .n_attrs = FE_COUNT(kcache_attrs),
    .finalize = kcache_finalize,
    .release = kcache_release,
};
