/* hipdnn_cache_show.c — `hipdnn-cache show KEY [--source] [--json]`: one record of a kernel cache.
 *
 * A kernel record: key, arch, compiler and version, entry, sizes, created, last used, and the
 * compile options and emitted HIP source its metadata carries (hipdnnKernelCacheList_ext and
 * hipdnnKernelCacheGetKernel_ext of include/hipdnn_jit.h). --source prints that source alone, byte for byte as it was
 * compiled (so it can be diffed or compiled again); with --json it is the "source" field.
 * A plan record (hipdnnKernelCacheGetPlan_ext): the graph it was built for, target, compiler,
 * engine and knob values, its kernels' keys in launch order, size and times (it has no source). A key no record has, or a
 * record that fails its checks, is exit status 1 with one line on stderr.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hipdnn_backend.h"
#include "hipdnn_cache.h"
#include "hipdnn_jit.h"

/* "2026-11-29 21:51:26 UTC"; "never" for a time never recorded. */
static void fmt_time(int64_t t, char *buf, size_t size)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (t <= 0 || gmtime_r(&tt, &tm) == NULL || strftime(buf, size, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
        snprintf(buf, size, "never");
}

static int show_json(json_t *j)
{
    if (hc_put_json(j))
        return HC_EXIT_OK;
    fprintf(stderr, "hipdnn-cache: show: writing JSON failed\n");
    return HC_EXIT_FAIL;
}

static int show_kernel(const hipdnnKernelCacheKernel_ext_t *k, const hipdnnKernelCacheEntry_ext_t *e, bool source,
                       bool json)
{
    bool has_meta = k->source != NULL;
    if (source && !has_meta) {
        fprintf(stderr, "hipdnn-cache: show: kernel %s carries no source (its record was not written by "
                "hipdnn-jit's JIT engines)\n", k->key);
        return HC_EXIT_FAIL;
    }
    size_t src_len = has_meta ? strlen(k->source) : 0;
    if (source && !json) {
        fwrite(k->source, 1, src_len, stdout);
        return HC_EXIT_OK;
    }
    char created[40], used[40];
    fmt_time(k->created, created, sizeof created);
    fmt_time(k->last_used, used, sizeof used);
    if (json) {
        json_t *opts = json_array();
        for (int i = 0; i < k->n_options; i++)
            json_array_append_new(opts, json_string(k->options[i]));
        json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:I, s:I, s:o}", "key", k->key, "kind",
                              "kernel", "arch", k->arch, "compiler", k->compiler, "compiler_version",
                              k->compiler_version, "entry", k->entry, "size", hc_u64_json(e != NULL ? e->size : 0),
                              "code_size", hc_u64_json(k->code_size), "source_size", hc_u64_json(src_len), "created",
                              (json_int_t)k->created, "last_used", (json_int_t)k->last_used, "options", opts);
        if (j != NULL && source)
            json_object_set_new(j, "source", json_string(k->source));
        return show_json(j);
    }
    printf("key        %s\nkind       kernel\narch       %s\ncompiler   %s %s\nentry      %s\n", k->key, k->arch,
           k->compiler, k->compiler_version, k->entry);
    if (e != NULL)
        printf("size       %" PRIu64 " bytes\n", e->size);
    printf("code       %zu bytes\n", k->code_size);
    if (has_meta)
        printf("source     %zu bytes (hipdnn-cache show %s --source)\n", src_len, k->key);
    else
        printf("source     not recorded\n");
    printf("created    %s\nlast used  %s\noptions   ", created, used);
    for (int i = 0; i < k->n_options; i++)
        printf(" %s", k->options[i]);
    printf("%s\n", k->n_options > 0 ? "" : " (none)");
    return HC_EXIT_OK;
}

/* "jit.tile_m=64 jit.warps=4 ..." (knob_<i> where the engine is not this library's). */
static void print_knobs(const hipdnnKernelCachePlan_ext_t *p)
{
    int col = 11;
    for (int i = 0; i < p->n_knobs; i++) {
        char one[96];
        int n = p->knob_names[i][0] != '\0' ? snprintf(one, sizeof one, "%s=%" PRId64, p->knob_names[i], p->knobs[i])
                                             : snprintf(one, sizeof one, "knob_%d=%" PRId64, i, p->knobs[i]);
        if (col + 1 + n > 100 && col > 11) {
            printf("\n%11s", "");
            col = 11;
        }
        printf(" %s", one);
        col += 1 + n;
    }
    printf("%s\n", p->n_knobs > 0 ? "" : " (none)");
}

static int show_plan(const hipdnnKernelCachePlan_ext_t *p, bool source, bool json)
{
    if (source) {
        fprintf(stderr, "hipdnn-cache: show: %s is a plan record; only kernel records carry a source\n", p->key);
        return HC_EXIT_FAIL;
    }
    if (json)
        return show_json(hc_plan_json(p, (int64_t)time(NULL)));
    char created[40], used[40], size[24];
    fmt_time(p->created, created, sizeof created);
    fmt_time(p->last_used, used, sizeof used);
    hc_fmt_size(p->size, size, sizeof size);
    printf("key        %s\nkind       plan\n", p->key);
    if (p->described)
        printf("graph      %s (%d op%s, %" PRId64 " tensors; graph key %s)\ntarget     %s, %d multiprocessors\n"
               "compiler   %s %s\n", p->ops, p->n_ops, p->n_ops == 1 ? "" : "s", p->n_tensors, p->graph_key, p->arch,
               p->sm_count, p->compiler, p->compiler_version);
    else
        printf("graph      not described (a recipe of another hipdnn-jit version)\n");
    printf("engine     %s (id %" PRId64 ")\nknobs     ", p->engine[0] ? p->engine : "unknown", p->engine_id);
    print_knobs(p);
    printf("kernels    %d\n", p->n_kernels);
    for (int i = 0; i < p->n_kernels; i++)
        printf("           %s\n", p->kernels[i]);
    printf("size       %s (%" PRIu64 " bytes)\ncreated    %s\nlast used  %s\n", size, p->size, created, used);
    return HC_EXIT_OK;
}

/* The listing's entry for key (kernels first), or NULL. */
static const hipdnnKernelCacheEntry_ext_t *find_entry(const hipdnnKernelCacheEntry_ext_t *v, size_t n,
                                                      const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].key, key) == 0)
            return &v[i];
    return NULL;
}

int hc_show(hipdnnKernelCache_ext_t c, const char *hex, bool source, bool json)
{
    char canon[HIPDNN_KERNEL_CACHE_KEY_CHARS_EXT];
    if (!hc_key_canon(hex, canon)) {
        return hc_usage_error("show", "show: '%s' is not a key (32 hex digits, as ls prints)", hex);
    }
    hipdnnKernelCacheEntry_ext_t *v = NULL;
    size_t n = 0;
    if (hipdnnKernelCacheList_ext(c, &v, &n) != HIPDNN_STATUS_SUCCESS) {
        char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
        hipdnnGetLastErrorString(msg, sizeof msg);
        fprintf(stderr, "hipdnn-cache: show: listing %s: %s\n", hc_dir(c), msg);
        return HC_EXIT_FAIL;
    }
    const hipdnnKernelCacheEntry_ext_t *e = find_entry(v, n, canon);
    hipdnnKernelCacheKernel_ext_t *k = NULL;
    int rc = HC_EXIT_FAIL;
    hipdnnKernelCachePlan_ext_t *p = NULL;
    if (e != NULL && e->kind == HIPDNN_KERNEL_CACHE_RECORD_PLAN_EXT) {
        if (hipdnnKernelCacheGetPlan_ext(c, canon, &p) != HIPDNN_STATUS_SUCCESS) {
            char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
            hipdnnGetLastErrorString(msg, sizeof msg);
            fprintf(stderr, "hipdnn-cache: show: reading plan %s: %s\n", canon, msg);
        } else if (p == NULL) {
            fprintf(stderr, "hipdnn-cache: show: plan %s in %s fails its checks (hipdnn-cache verify --fix "
                    "removes it)\n", canon, hc_dir(c));
        } else {
            rc = show_plan(p, source, json);
            hipdnnKernelCacheFree_ext(p);
        }
    } else if (hipdnnKernelCacheGetKernel_ext(c, canon, &k) != HIPDNN_STATUS_SUCCESS) {
        char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
        hipdnnGetLastErrorString(msg, sizeof msg);
        fprintf(stderr, "hipdnn-cache: show: reading kernel %s: %s\n", canon, msg);
    } else if (k != NULL) {
        rc = show_kernel(k, e, source, json);
        hipdnnKernelCacheFree_ext(k);
    } else if (e != NULL) {
        fprintf(stderr, "hipdnn-cache: show: kernel %s in %s fails its checks (hipdnn-cache verify --fix "
                "removes it)\n", canon, hc_dir(c));
    } else {
        fprintf(stderr, "hipdnn-cache: show: no record has key %s in %s\n", canon, hc_dir(c));
    }
    hipdnnKernelCacheFree_ext(v);
    return rc;
}
