/* fe_cache_api.c — the kernel cache maintenance calls of include/hipdnn_jit.h
 * (hipdnnKernelCache*_ext): thin wrappers over cache/kc.h that turn its records into the
 * public structs (keys as hex, kernel metadata parsed with fe_kernel_meta_parse), so that the
 * hipdnn-cache tool and any other program maintain a cache through the public API.
 * Owns: argument checks, the public structs, the "0 empties" meaning of prune's size limit.
 * Does not own: anything the cache does (cache/kc.h), the metadata format (fe_code_objects.c),
 * what a plan's recipe describes (fe_jit_plan_describe), engines' and knobs' names (fe_engines.h).
 */
#include <stdio.h>
#include <string.h>

#include "engines/fe_engines.h"
#include "hipdnn_jit.h"

#define EXPORT HIPDNN_BACKEND_EXPORT

struct hipdnnKernelCache_ext {
    kc_cache *c;
};

static hipdnnStatus_t null_arg(const char *fn, const char *what)
{
    return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "%s: %s is NULL", fn, what);
}

static hipdnnKernelCacheRecordKind_ext_t kind_of(kc_table t)
{
    switch (t) {
    case KC_TABLE_NONE: return HIPDNN_KERNEL_CACHE_RECORD_FILE_EXT;
    case KC_TABLE_KERNEL: return HIPDNN_KERNEL_CACHE_RECORD_KERNEL_EXT;
    case KC_TABLE_PLAN: return HIPDNN_KERNEL_CACHE_RECORD_PLAN_EXT;
    }
    return HIPDNN_KERNEL_CACHE_RECORD_FILE_EXT;
}

static hipdnnStatus_t hipdnnKernelCacheDefaultDir_ext_body(char *dir, size_t size);

EXPORT hipdnnStatus_t hipdnnKernelCacheDefaultDir_ext(char *dir, size_t size)
{
    base_call_begin();
    return base_call_done(hipdnnKernelCacheDefaultDir_ext_body(dir, size));
}

static hipdnnStatus_t hipdnnKernelCacheDefaultDir_ext_body(char *dir, size_t size)
{
    return dir == NULL ? null_arg("hipdnnKernelCacheDefaultDir_ext", "dir") : kc_default_dir(dir, size, false);
}

static hipdnnStatus_t hipdnnKernelCacheOpen_ext_body(const char *dir, hipdnnKernelCache_ext_t *cache);

EXPORT hipdnnStatus_t hipdnnKernelCacheOpen_ext(const char *dir, hipdnnKernelCache_ext_t *cache)
{
    base_call_begin();
    return base_call_done(hipdnnKernelCacheOpen_ext_body(dir, cache));
}

static hipdnnStatus_t hipdnnKernelCacheOpen_ext_body(const char *dir, hipdnnKernelCache_ext_t *cache)
{
    if (dir == NULL || cache == NULL)
        return null_arg("hipdnnKernelCacheOpen_ext", dir == NULL ? "dir" : "cache");
    *cache = NULL;
    hipdnnKernelCache_ext_t h = base_calloc(1, sizeof *h);
    if (h == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "hipdnnKernelCacheOpen_ext: out of memory");
    kc_options opt = {.dir = dir, .strict = true};
    hipdnnStatus_t st = kc_open(&opt, &h->c);
    if (st != HIPDNN_STATUS_SUCCESS) {
        base_free(h);
        return st;
    }
    *cache = h;
    return HIPDNN_STATUS_SUCCESS;
}

EXPORT void hipdnnKernelCacheClose_ext(hipdnnKernelCache_ext_t cache)
{
    if (cache != NULL)
        kc_close(cache->c);
    base_free(cache);
}

EXPORT void hipdnnKernelCacheFree_ext(void *p) { base_free(p); }

static hipdnnStatus_t hipdnnKernelCacheGetInfo_ext_body(hipdnnKernelCache_ext_t cache, hipdnnKernelCacheInfo_ext_t *info);

EXPORT hipdnnStatus_t hipdnnKernelCacheGetInfo_ext(hipdnnKernelCache_ext_t cache, hipdnnKernelCacheInfo_ext_t *info)
{
    base_call_begin();
    return base_call_done(hipdnnKernelCacheGetInfo_ext_body(cache, info));
}

static hipdnnStatus_t hipdnnKernelCacheGetInfo_ext_body(hipdnnKernelCache_ext_t cache, hipdnnKernelCacheInfo_ext_t *info)
{
    if (cache == NULL || info == NULL)
        return null_arg("hipdnnKernelCacheGetInfo_ext", cache == NULL ? "cache" : "info");
    kc_mode m = kc_get_mode(cache->c);
    *info = (hipdnnKernelCacheInfo_ext_t){.dir = kc_dir(cache->c), .mode = kc_mode_name(m),
                                          .writable = m == KC_MODE_READ_WRITE, .note = kc_open_note(cache->c)};
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t hipdnnKernelCacheGetStats_ext_body(hipdnnKernelCache_ext_t cache, hipdnnKernelCacheStats_ext_t *stats);

EXPORT hipdnnStatus_t hipdnnKernelCacheGetStats_ext(hipdnnKernelCache_ext_t cache,
                                                    hipdnnKernelCacheStats_ext_t *stats)
{
    base_call_begin();
    return base_call_done(hipdnnKernelCacheGetStats_ext_body(cache, stats));
}

static hipdnnStatus_t hipdnnKernelCacheGetStats_ext_body(hipdnnKernelCache_ext_t cache, hipdnnKernelCacheStats_ext_t *stats)
{
    if (cache == NULL || stats == NULL)
        return null_arg("hipdnnKernelCacheGetStats_ext", cache == NULL ? "cache" : "stats");
    kc_stats s;
    hipdnnStatus_t st = kc_get_stats(cache->c, &s);
    if (st == HIPDNN_STATUS_SUCCESS)
        *stats = (hipdnnKernelCacheStats_ext_t){.kernels = s.kernels, .plans = s.plans, .bytes = s.bytes,
                                                .map_size = s.map_size, .map_used = s.map_used,
                                                .max_bytes = s.max_bytes};
    return st;
}

static void entry_of(const kc_entry *e, hipdnnKernelCacheEntry_ext_t *out)
{
    *out = (hipdnnKernelCacheEntry_ext_t){.kind = kind_of(e->table), .size = e->size, .code_size = e->code_size,
                                          .created = e->created, .last_used = e->last_used, .valid = e->valid};
    kc_key_hex(&e->key, out->key);
    snprintf(out->arch, sizeof out->arch, "%s", e->arch);
    snprintf(out->compiler, sizeof out->compiler, "%s", e->compiler);
    snprintf(out->entry, sizeof out->entry, "%s", e->entry);
}

static hipdnnStatus_t hipdnnKernelCacheList_ext_body(hipdnnKernelCache_ext_t cache, hipdnnKernelCacheEntry_ext_t **entries, size_t *count);

EXPORT hipdnnStatus_t hipdnnKernelCacheList_ext(hipdnnKernelCache_ext_t cache, hipdnnKernelCacheEntry_ext_t **entries,
                                                size_t *count)
{
    base_call_begin();
    return base_call_done(hipdnnKernelCacheList_ext_body(cache, entries, count));
}

static hipdnnStatus_t hipdnnKernelCacheList_ext_body(hipdnnKernelCache_ext_t cache, hipdnnKernelCacheEntry_ext_t **entries, size_t *count)
{
    if (cache == NULL || entries == NULL || count == NULL)
        return null_arg("hipdnnKernelCacheList_ext", cache == NULL ? "cache" : entries == NULL ? "entries" : "count");
    *entries = NULL, *count = 0;
    kc_entry *v = NULL;
    size_t n = 0;
    hipdnnStatus_t st = kc_list(cache->c, &v, &n);
    hipdnnKernelCacheEntry_ext_t *out = st == HIPDNN_STATUS_SUCCESS && n > 0 ? base_calloc(n, sizeof *out) : NULL;
    if (st == HIPDNN_STATUS_SUCCESS && n > 0 && out == NULL)
        st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "hipdnnKernelCacheList_ext: out of memory (%zu records)", n);
    for (size_t i = 0; out != NULL && i < n; i++)
        entry_of(&v[i], &out[i]);
    base_free(v);
    if (st == HIPDNN_STATUS_SUCCESS)
        *entries = out, *count = n;
    return st;
}

/* One allocation: the struct, the options array, then the option strings and the source. */
static hipdnnKernelCacheKernel_ext_t *kernel_copy(const kc_kernel *k, const fe_kernel_meta *m, bool has_meta)
{
    size_t strs = 0, n_opt = has_meta ? (size_t)m->n_options : 0;
    for (size_t i = 0; i < n_opt; i++)
        strs += strlen(m->options[i]) + 1;
    strs += has_meta ? strlen(m->source) + 1 : 0;
    size_t head = sizeof(hipdnnKernelCacheKernel_ext_t) + n_opt * sizeof(char *);
    hipdnnKernelCacheKernel_ext_t *out = base_calloc(1, head + strs);
    if (out == NULL)
        return NULL;
    const char **opts = (const char **)(out + 1);
    char *p = (char *)out + head;
    for (size_t i = 0; i < n_opt; i++) {
        size_t len = strlen(m->options[i]) + 1;
        opts[i] = memcpy(p, m->options[i], len), p += len;
    }
    if (has_meta)
        out->source = memcpy(p, m->source, strlen(m->source) + 1);
    out->n_options = (int)n_opt, out->options = opts;
    kc_key_hex(&k->key, out->key);
    snprintf(out->arch, sizeof out->arch, "%s", k->arch);
    snprintf(out->compiler, sizeof out->compiler, "%s", k->compiler);
    snprintf(out->compiler_version, sizeof out->compiler_version, "%s", k->compiler_version);
    snprintf(out->entry, sizeof out->entry, "%s", k->entry);
    out->code_size = k->code_size, out->created = k->created, out->last_used = k->last_used;
    return out;
}

static hipdnnStatus_t hipdnnKernelCacheGetKernel_ext_body(hipdnnKernelCache_ext_t cache, const char *key, hipdnnKernelCacheKernel_ext_t **kernel);

EXPORT hipdnnStatus_t hipdnnKernelCacheGetKernel_ext(hipdnnKernelCache_ext_t cache, const char *key,
                                                     hipdnnKernelCacheKernel_ext_t **kernel)
{
    base_call_begin();
    return base_call_done(hipdnnKernelCacheGetKernel_ext_body(cache, key, kernel));
}

static hipdnnStatus_t hipdnnKernelCacheGetKernel_ext_body(hipdnnKernelCache_ext_t cache, const char *key, hipdnnKernelCacheKernel_ext_t **kernel)
{
    if (cache == NULL || key == NULL || kernel == NULL)
        return null_arg("hipdnnKernelCacheGetKernel_ext", cache == NULL ? "cache" : key == NULL ? "key" : "kernel");
    *kernel = NULL;
    kc_key k;
    if (!kc_key_parse(key, &k))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "hipdnnKernelCacheGetKernel_ext: '%.64s' is not a key "
                         "(32 hex digits)", key);
    kc_kernel rec;
    if (!kc_peek_kernel(cache->c, &k, &rec))
        return HIPDNN_STATUS_SUCCESS;
    fe_kernel_meta m;
    bool has_meta = fe_kernel_meta_parse(rec.meta, rec.meta_size, &m);
    *kernel = kernel_copy(&rec, &m, has_meta);
    kc_kernel_release(&rec);
    return *kernel != NULL ? HIPDNN_STATUS_SUCCESS
                           : base_fail(HIPDNN_STATUS_ALLOC_FAILED, "hipdnnKernelCacheGetKernel_ext: out of memory");
}

static hipdnnStatus_t hipdnnKernelCacheVerify_ext_body(hipdnnKernelCache_ext_t cache, int fix, hipdnnKernelCacheBad_ext_t **bad, size_t *count);

EXPORT hipdnnStatus_t hipdnnKernelCacheVerify_ext(hipdnnKernelCache_ext_t cache, int fix,
                                                  hipdnnKernelCacheBad_ext_t **bad, size_t *count)
{
    base_call_begin();
    return base_call_done(hipdnnKernelCacheVerify_ext_body(cache, fix, bad, count));
}

static hipdnnStatus_t hipdnnKernelCacheVerify_ext_body(hipdnnKernelCache_ext_t cache, int fix, hipdnnKernelCacheBad_ext_t **bad, size_t *count)
{
    if (cache == NULL || bad == NULL || count == NULL)
        return null_arg("hipdnnKernelCacheVerify_ext", cache == NULL ? "cache" : bad == NULL ? "bad" : "count");
    *bad = NULL, *count = 0;
    kc_bad *v = NULL;
    size_t n = 0;
    hipdnnStatus_t st = kc_verify(cache->c, fix != 0, &v, &n);
    hipdnnKernelCacheBad_ext_t *out = st == HIPDNN_STATUS_SUCCESS && n > 0 ? base_calloc(n, sizeof *out) : NULL;
    if (st == HIPDNN_STATUS_SUCCESS && n > 0 && out == NULL)
        st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "hipdnnKernelCacheVerify_ext: out of memory (%zu records)", n);
    for (size_t i = 0; out != NULL && i < n; i++) {
        out[i].kind = kind_of(v[i].table);
        kc_key_hex(&v[i].key, out[i].key);
        snprintf(out[i].reason, sizeof out[i].reason, "%s", v[i].reason);
    }
    base_free(v);
    if (st == HIPDNN_STATUS_SUCCESS)
        *bad = out, *count = n;
    return st;
}

static hipdnnStatus_t hipdnnKernelCachePrune_ext_body(hipdnnKernelCache_ext_t cache, uint64_t max_bytes, int64_t older_than_s, size_t *removed);

EXPORT hipdnnStatus_t hipdnnKernelCachePrune_ext(hipdnnKernelCache_ext_t cache, uint64_t max_bytes,
                                                 int64_t older_than_s, size_t *removed)
{
    base_call_begin();
    return base_call_done(hipdnnKernelCachePrune_ext_body(cache, max_bytes, older_than_s, removed));
}

static hipdnnStatus_t hipdnnKernelCachePrune_ext_body(hipdnnKernelCache_ext_t cache, uint64_t max_bytes, int64_t older_than_s, size_t *removed)
{
    if (cache == NULL)
        return null_arg("hipdnnKernelCachePrune_ext", "cache");
    /* kc_prune reads a size limit of 0 as "none"; a limit of 1 byte leaves no record */
    uint64_t limit = max_bytes == HIPDNN_KERNEL_CACHE_NO_LIMIT_EXT ? 0 : max_bytes == 0 ? 1 : max_bytes;
    return kc_prune(cache->c, limit, older_than_s, removed);
}

static hipdnnStatus_t hipdnnKernelCacheExport_ext_body(hipdnnKernelCache_ext_t cache, const char *path, size_t *records);

EXPORT hipdnnStatus_t hipdnnKernelCacheExport_ext(hipdnnKernelCache_ext_t cache, const char *path, size_t *records)
{
    base_call_begin();
    return base_call_done(hipdnnKernelCacheExport_ext_body(cache, path, records));
}

static hipdnnStatus_t hipdnnKernelCacheExport_ext_body(hipdnnKernelCache_ext_t cache, const char *path, size_t *records)
{
    if (cache == NULL || path == NULL)
        return null_arg("hipdnnKernelCacheExport_ext", cache == NULL ? "cache" : "path");
    return kc_export(cache->c, path, records);
}

static hipdnnStatus_t hipdnnKernelCacheImport_ext_body(hipdnnKernelCache_ext_t cache, const char *path, size_t *records);

EXPORT hipdnnStatus_t hipdnnKernelCacheImport_ext(hipdnnKernelCache_ext_t cache, const char *path, size_t *records)
{
    base_call_begin();
    return base_call_done(hipdnnKernelCacheImport_ext_body(cache, path, records));
}

static hipdnnStatus_t hipdnnKernelCacheImport_ext_body(hipdnnKernelCache_ext_t cache, const char *path, size_t *records)
{
    if (cache == NULL || path == NULL)
        return null_arg("hipdnnKernelCacheImport_ext", cache == NULL ? "cache" : "path");
    return kc_import(cache->c, path, records);
}

/* ---- plans ----------------------------------------------------------------------------------- */

static void plan_fields(hipdnnKernelCachePlan_ext_t *out, const kc_plan *rec, const kc_plan_key *pk, size_t size)
{
    fe_plan_desc d;
    out->described = fe_jit_plan_describe(rec->recipe, rec->recipe_size, &d);
    if (out->described) {
        snprintf(out->graph_key, sizeof out->graph_key, "%s", d.graph_key);
        snprintf(out->ops, sizeof out->ops, "%s", d.ops);
        snprintf(out->arch, sizeof out->arch, "%s", d.arch);
        snprintf(out->compiler, sizeof out->compiler, "%s", d.compiler);
        snprintf(out->compiler_version, sizeof out->compiler_version, "%d.%d", d.cc_major, d.cc_minor);
        out->n_ops = d.n_ops, out->n_tensors = d.n_tensors, out->sm_count = d.sm_count;
    }
    const fe_engine *e = fe_engine_by_id(pk->engine_id);
    snprintf(out->engine, sizeof out->engine, "%s", e != NULL ? e->name : "");
    out->engine_id = pk->engine_id;
    out->size = size, out->created = rec->created, out->last_used = rec->last_used;
}

/* One allocation: the struct, the knob values, the knob-name and kernel-key pointer arrays, then
 * the kernel keys' text. */
static hipdnnKernelCachePlan_ext_t *plan_copy(const kc_key *key, const kc_plan *rec, const kc_plan_key *pk,
                                              size_t size)
{
    size_t nk = pk->n_knobs, nkern = rec->n_kernels;
    size_t head = sizeof(hipdnnKernelCachePlan_ext_t) + nk * sizeof(int64_t) + (nk + nkern) * sizeof(char *);
    hipdnnKernelCachePlan_ext_t *out = base_calloc(1, head + nkern * HIPDNN_KERNEL_CACHE_KEY_CHARS_EXT);
    if (out == NULL)
        return NULL;
    int64_t *knobs = (int64_t *)(out + 1);
    const char **names = (const char **)(knobs + nk), **kernels = names + nk;
    char *text = (char *)out + head;
    const fe_engine *e = fe_engine_by_id(pk->engine_id);
    for (size_t i = 0; i < nk; i++) {
        knobs[i] = pk->knobs[i];
        names[i] = e != NULL && i < (size_t)e->n_knobs ? e->knobs[i].id : "";
    }
    for (size_t i = 0; i < nkern; i++, text += HIPDNN_KERNEL_CACHE_KEY_CHARS_EXT) {
        kc_key_hex(&rec->kernels[i], text);
        kernels[i] = text;
    }
    kc_key_hex(key, out->key);
    out->n_knobs = (int)nk, out->knobs = knobs, out->knob_names = names;
    out->n_kernels = (int)nkern, out->kernels = kernels;
    plan_fields(out, rec, pk, size);
    return out;
}

static hipdnnStatus_t hipdnnKernelCacheGetPlan_ext_body(hipdnnKernelCache_ext_t cache, const char *key,
                                                        hipdnnKernelCachePlan_ext_t **plan);

EXPORT hipdnnStatus_t hipdnnKernelCacheGetPlan_ext(hipdnnKernelCache_ext_t cache, const char *key,
                                                   hipdnnKernelCachePlan_ext_t **plan)
{
    base_call_begin();
    return base_call_done(hipdnnKernelCacheGetPlan_ext_body(cache, key, plan));
}

static hipdnnStatus_t hipdnnKernelCacheGetPlan_ext_body(hipdnnKernelCache_ext_t cache, const char *key,
                                                        hipdnnKernelCachePlan_ext_t **plan)
{
    if (cache == NULL || key == NULL || plan == NULL)
        return null_arg("hipdnnKernelCacheGetPlan_ext", cache == NULL ? "cache" : key == NULL ? "key" : "plan");
    *plan = NULL;
    kc_key k;
    if (!kc_key_parse(key, &k))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "hipdnnKernelCacheGetPlan_ext: '%.64s' is not a key "
                         "(32 hex digits)", key);
    kc_plan rec;
    kc_plan_key pk;
    int64_t knobs[KC_MAX_KNOBS];
    size_t size = 0;
    if (!kc_peek_plan(cache->c, &k, &pk, knobs, &rec, &size))
        return HIPDNN_STATUS_SUCCESS;
    *plan = plan_copy(&k, &rec, &pk, size);
    kc_plan_release(&rec);
    return *plan != NULL ? HIPDNN_STATUS_SUCCESS
                         : base_fail(HIPDNN_STATUS_ALLOC_FAILED, "hipdnnKernelCacheGetPlan_ext: out of memory");
}
