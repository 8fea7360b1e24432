/* hipdnn_cache_show.c — `hipdnn-cache show KEY [--source] [--json]`: one record of a kernel cache.
 *
 * A kernel record: key, arch, compiler and version, entry, sizes, created, last used, and the
 * compile options and emitted HIP source its metadata carries (hipdnnKernelCacheList_ext and
 * hipdnnKernelCacheGetKernel_ext of include/hipdnn_jit.h). --source prints that source alone, byte for byte as it was
 * compiled (so it can be diffed or compiled again); with --json it is the "source" field.
 * A plan record shows its kind, size and times (it has no source). A key no record has, or a
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

static json_t *u64_json(uint64_t v) { return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v); }

static int show_json(json_t *j)
{
    bool ok = j != NULL && json_dumpf(j, stdout, JSON_INDENT(2)) == 0;
    json_decref(j);
    fputc('\n', stdout);
    if (ok)
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
                              k->compiler_version, "entry", k->entry, "size", u64_json(e != NULL ? e->size : 0),
                              "code_size", u64_json(k->code_size), "source_size", u64_json(src_len), "created",
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

static int show_plan(const hipdnnKernelCacheEntry_ext_t *e, const char *hex, bool source, bool json)
{
    if (source) {
        fprintf(stderr, "hipdnn-cache: show: %s is a plan record; only kernel records carry a source\n", hex);
        return HC_EXIT_FAIL;
    }
    if (json)
        return show_json(json_pack("{s:s, s:s, s:o, s:I, s:I}", "key", hex, "kind", "plan", "size",
                                   u64_json(e->size), "created", (json_int_t)e->created, "last_used",
                                   (json_int_t)e->last_used));
    char created[40], used[40];
    fmt_time(e->created, created, sizeof created);
    fmt_time(e->last_used, used, sizeof used);
    printf("key        %s\nkind       plan\nsize       %" PRIu64 " bytes\ncreated    %s\nlast used  %s\n", hex,
           e->size, created, used);
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
        fprintf(stderr, "hipdnn-cache: show: '%s' is not a key (32 hex digits, as ls prints) "
                "(see hipdnn-cache --help)\n", hex);
        return HC_EXIT_USAGE;
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
    if (e != NULL && e->kind == HIPDNN_KERNEL_CACHE_RECORD_PLAN_EXT) {
        rc = show_plan(e, canon, source, json);
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
