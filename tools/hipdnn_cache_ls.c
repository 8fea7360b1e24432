/* hipdnn_cache_ls.c — `hipdnn-cache ls [--json]`: every record of a kernel cache, described.
 *
 * A kernel: key, arch, compiler and version, entry point, record / code / source sizes, created
 * and last-used ages. A plan: key, the graph it was built for (op names, op and tensor counts,
 * graph key), arch and multiprocessor count, engine and knob values, kernel count, size and ages.
 * Text prints one line per record with human sizes and ages; --json an array of objects with
 * times as unix seconds and ages in seconds (the older fields key, kind, arch, compiler, entry,
 * size, code_size, created, last_used, valid stay as they were). Uses hipdnnKernelCacheList_ext,
 * _GetKernel_ext and _GetPlan_ext, which read records without counting a use, so listing never
 * changes what prune --older-than removes. Per-record hit counts are not kept by the cache, so
 * none are shown.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hipdnn_backend.h"
#include "hipdnn_cache.h"
#include "hipdnn_jit.h"

/* What ls adds to a listing entry: the kernel's or the plan's record (either may be NULL). */
typedef struct ls_item {
    const hipdnnKernelCacheEntry_ext_t *e;
    hipdnnKernelCacheKernel_ext_t *k;
    hipdnnKernelCachePlan_ext_t *p;
} ls_item;

static const char *kind_name(hipdnnKernelCacheRecordKind_ext_t t)
{
    return t == HIPDNN_KERNEL_CACHE_RECORD_PLAN_EXT ? "plan" : "kernel";
}

/* ---- JSON ------------------------------------------------------------------------------------ */

json_t *hc_plan_json(const hipdnnKernelCachePlan_ext_t *p, int64_t now)
{
    json_t *knobs = json_object(), *kernels = json_array();
    for (int i = 0; i < p->n_knobs; i++) {
        char name[48];
        if (p->knob_names[i][0] != '\0')
            snprintf(name, sizeof name, "%s", p->knob_names[i]);
        else
            snprintf(name, sizeof name, "knob_%d", i);
        json_object_set_new(knobs, name, json_integer((json_int_t)p->knobs[i]));
    }
    for (int i = 0; i < p->n_kernels; i++)
        json_array_append_new(kernels, json_string(p->kernels[i]));
    char compiler[64] = "";
    if (p->described) /* as a kernel's: "nvrtc 13.0" */
        snprintf(compiler, sizeof compiler, "%s %s", p->compiler, p->compiler_version);
    json_t *graph = p->described ? json_pack("{s:s, s:s, s:i, s:I}", "key", p->graph_key, "ops", p->ops, "n_ops",
                                             p->n_ops, "n_tensors", (json_int_t)p->n_tensors)
                                 : json_null();
    return json_pack("{s:s, s:s, s:b, s:o, s:s, s:i, s:s, s:s, s:I, s:s, s:o, s:i, s:o, s:o, s:I, s:I, s:I, s:o}",
                     "key", p->key, "kind", "plan", "described", p->described, "graph", graph, "arch", p->arch,
                     "sm_count", p->sm_count, "compiler", compiler, "compiler_version", p->compiler_version,
                     "engine_id", (json_int_t)p->engine_id, "engine", p->engine, "knobs", knobs, "n_kernels",
                     p->n_kernels, "kernels", kernels, "size", hc_u64_json(p->size), "created",
                     (json_int_t)p->created, "last_used", (json_int_t)p->last_used, "age_s",
                     (json_int_t)(now > p->created ? now - p->created : 0), "idle_s",
                     p->last_used > 0 ? json_integer(now > p->last_used ? now - p->last_used : 0) : json_null());
}

static json_t *item_json(const ls_item *it, int64_t now)
{
    const hipdnnKernelCacheEntry_ext_t *e = it->e;
    json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:I, s:I, s:b, s:I, s:o}", "key", e->key, "kind",
                          kind_name(e->kind), "arch", e->arch, "compiler", e->compiler, "entry", e->entry, "size",
                          hc_u64_json(e->size), "code_size", hc_u64_json(e->code_size), "created",
                          (json_int_t)e->created, "last_used", (json_int_t)e->last_used, "valid", e->valid, "age_s",
                          (json_int_t)(now > e->created ? now - e->created : 0), "idle_s",
                          e->last_used > 0 ? json_integer(now > e->last_used ? now - e->last_used : 0) : json_null());
    if (j == NULL)
        return NULL;
    if (it->k != NULL) {
        json_object_set_new(j, "compiler_version", json_string(it->k->compiler_version));
        json_object_set_new(j, "source_size",
                            it->k->source != NULL ? hc_u64_json(strlen(it->k->source)) : json_null());
    }
    if (it->p != NULL) { /* the plan's description replaces the listing's empty kernel fields */
        json_t *pj = hc_plan_json(it->p, now);
        const char *name;
        json_t *v;
        json_object_foreach(pj, name, v)
            if (strcmp(name, "valid") != 0)
                json_object_set(j, name, v);
        json_decref(pj);
    }
    return j;
}

/* ---- text ------------------------------------------------------------------------------------ */

void hc_fmt_size(uint64_t n, char *buf, size_t size)
{
    if (n < 1024)
        snprintf(buf, size, "%" PRIu64 " B", n);
    else if (n < (1u << 20))
        snprintf(buf, size, "%.1f KiB", (double)n / 1024);
    else if (n < (1u << 30))
        snprintf(buf, size, "%.1f MiB", (double)n / (1 << 20));
    else
        snprintf(buf, size, "%.1f GiB", (double)n / (1 << 30));
}

/* "add,rmsnorm (2 ops, 5 tensors); jit_fused, 1 kernel" */
static void plan_text(const hipdnnKernelCachePlan_ext_t *p)
{
    if (p->described)
        printf("%s (%d op%s, %" PRId64 " tensors); ", p->ops, p->n_ops, p->n_ops == 1 ? "" : "s", p->n_tensors);
    else
        printf("(a recipe this library does not read); ");
    printf("%s, %d kernel%s", p->engine[0] ? p->engine : "engine ?", p->n_kernels, p->n_kernels == 1 ? "" : "s");
}

static void item_text(const ls_item *it, int64_t now)
{
    const hipdnnKernelCacheEntry_ext_t *e = it->e;
    char size[24], age[24], used[24], arch[80];
    hc_fmt_size(e->size, size, sizeof size);
    hc_fmt_age(now, e->created, age, sizeof age);
    hc_fmt_age(now, e->last_used, used, sizeof used);
    if (it->p != NULL && it->p->sm_count > 0)
        snprintf(arch, sizeof arch, "%s/%d", it->p->arch, it->p->sm_count);
    else
        snprintf(arch, sizeof arch, "%s", it->p != NULL ? it->p->arch : e->arch);
    printf("%-6s  %-32s  %-10s  %10s  %5s  %8s  ", kind_name(e->kind), e->key, arch[0] ? arch : "-", size, age,
           used);
    if (it->p != NULL) {
        plan_text(it->p);
    } else if (it->k != NULL) {
        char code[24], src[24] = "none";
        hc_fmt_size(it->k->code_size, code, sizeof code);
        if (it->k->source != NULL)
            hc_fmt_size(strlen(it->k->source), src, sizeof src);
        printf("%s (%s; code %s, source %s)", e->entry, e->compiler, code, src);
    } else {
        printf("%s", e->entry[0] ? e->entry : "-");
    }
    printf("%s\n", e->valid ? "" : "  (invalid)");
}

/* ---- the command ----------------------------------------------------------------------------- */

/* The record behind a listing entry; false when reading it failed (a message on stderr). */
static bool read_item(hipdnnKernelCache_ext_t c, ls_item *it)
{
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    if (it->e->valid && it->e->kind == HIPDNN_KERNEL_CACHE_RECORD_KERNEL_EXT)
        st = hipdnnKernelCacheGetKernel_ext(c, it->e->key, &it->k);
    else if (it->e->valid && it->e->kind == HIPDNN_KERNEL_CACHE_RECORD_PLAN_EXT)
        st = hipdnnKernelCacheGetPlan_ext(c, it->e->key, &it->p);
    if (st == HIPDNN_STATUS_SUCCESS)
        return true;
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
    hipdnnGetLastErrorString(msg, sizeof msg);
    fprintf(stderr, "hipdnn-cache: ls: reading %s %s: %s\n", kind_name(it->e->kind), it->e->key, msg);
    return false;
}

int hc_ls(hipdnnKernelCache_ext_t c, bool json)
{
    hipdnnKernelCacheEntry_ext_t *v = NULL;
    size_t n = 0;
    if (hipdnnKernelCacheList_ext(c, &v, &n) != HIPDNN_STATUS_SUCCESS) {
        char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
        hipdnnGetLastErrorString(msg, sizeof msg);
        fprintf(stderr, "hipdnn-cache: ls: %s\n", msg);
        return HC_EXIT_FAIL;
    }
    int64_t now = (int64_t)time(NULL);
    json_t *arr = json ? json_array() : NULL;
    bool ok = !json || arr != NULL;
    if (!json)
        printf("%-6s  %-32s  %-10s  %10s  %5s  %8s  %s\n", "KIND", "KEY", "ARCH", "SIZE", "AGE", "LAST USE",
               "WHAT");
    for (size_t i = 0; ok && i < n; i++) {
        ls_item it = {.e = &v[i]};
        ok = read_item(c, &it);
        if (ok && json)
            ok = json_array_append_new(arr, item_json(&it, now)) == 0;
        else if (ok)
            item_text(&it, now);
        hipdnnKernelCacheFree_ext(it.k);
        hipdnnKernelCacheFree_ext(it.p);
    }
    hipdnnKernelCacheFree_ext(v);
    if (!ok) {
        json_decref(arr);
        return HC_EXIT_FAIL;
    }
    if (json && !hc_put_json(arr)) {
        fprintf(stderr, "hipdnn-cache: ls: writing JSON failed\n");
        return HC_EXIT_FAIL;
    }
    return HC_EXIT_OK;
}
