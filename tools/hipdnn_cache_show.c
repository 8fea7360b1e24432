/* hipdnn_cache_show.c — `hipdnn-cache show KEY [--source] [--json]`: one record of a kernel cache.
 *
 * A kernel record: key, arch, compiler and version, entry, sizes, created, last used, and the
 * compile options and emitted HIP source its metadata carries (written by frontend/
 * fe_kernel_code.c, read back with fe_kernel_meta_parse: the one internal header this tool
 * reads besides cache/kc.h). --source prints that source alone, byte for byte as it was
 * compiled (so it can be diffed or compiled again); with --json it is the "source" field.
 * A plan record shows its kind, size and times (it has no source). A key no record has, or a
 * record that fails its checks, is exit status 1 with one line on stderr.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "cache/kc.h"
#include "frontend/fe_int.h"
#include "hipdnn_cache.h"

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

static int show_kernel(const kc_kernel *k, const kc_entry *e, const char *hex, bool source, bool json)
{
    fe_kernel_meta m;
    bool has_meta = fe_kernel_meta_parse(k->meta, k->meta_size, &m);
    if (source && !has_meta) {
        fprintf(stderr, "hipdnn-cache: show: kernel %s carries no source (its record was not written by "
                "hipdnn-jit's JIT engines)\n", hex);
        return HC_EXIT_FAIL;
    }
    size_t src_len = has_meta ? strlen(m.source) : 0;
    if (source && !json) {
        fwrite(m.source, 1, src_len, stdout);
        return HC_EXIT_OK;
    }
    char created[40], used[40];
    fmt_time(k->created, created, sizeof created);
    fmt_time(k->last_used, used, sizeof used);
    if (json) {
        json_t *opts = json_array();
        for (int i = 0; i < m.n_options && has_meta; i++)
            json_array_append_new(opts, json_string(m.options[i]));
        json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:I, s:I, s:o}", "key", hex, "kind",
                              "kernel", "arch", k->arch, "compiler", k->compiler, "compiler_version",
                              k->compiler_version, "entry", k->entry, "size", u64_json(e != NULL ? e->size : 0),
                              "code_size", u64_json(k->code_size), "source_size", u64_json(src_len), "created",
                              (json_int_t)k->created, "last_used", (json_int_t)k->last_used, "options", opts);
        if (j != NULL && source)
            json_object_set_new(j, "source", json_string(m.source));
        return show_json(j);
    }
    printf("key        %s\nkind       kernel\narch       %s\ncompiler   %s %s\nentry      %s\n", hex, k->arch,
           k->compiler, k->compiler_version, k->entry);
    if (e != NULL)
        printf("size       %" PRIu64 " bytes\n", e->size);
    printf("code       %zu bytes\n", k->code_size);
    if (has_meta)
        printf("source     %zu bytes (hipdnn-cache show %s --source)\n", src_len, hex);
    else
        printf("source     not recorded\n");
    printf("created    %s\nlast used  %s\noptions   ", created, used);
    for (int i = 0; i < m.n_options && has_meta; i++)
        printf(" %s", m.options[i]);
    printf("%s\n", has_meta && m.n_options > 0 ? "" : " (none)");
    return HC_EXIT_OK;
}

static int show_plan(const kc_entry *e, const char *hex, bool source, bool json)
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
static const kc_entry *find_entry(const kc_entry *v, size_t n, const kc_key *key)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(v[i].key.b, key->b, KC_KEY_SIZE) == 0)
            return &v[i];
    return NULL;
}

int hc_show(kc_cache *c, const char *hex, bool source, bool json)
{
    kc_key key;
    if (!kc_key_parse(hex, &key)) {
        fprintf(stderr, "hipdnn-cache: show: '%s' is not a key (32 hex digits, as ls prints) "
                "(see hipdnn-cache --help)\n", hex);
        return HC_EXIT_USAGE;
    }
    char canon[2 * KC_KEY_SIZE + 1];
    kc_key_hex(&key, canon);
    kc_entry *v = NULL;
    size_t n = 0;
    if (kc_list(c, &v, &n) != HIPDNN_STATUS_SUCCESS) {
        char msg[512];
        base_last_error(msg, sizeof msg, true);
        fprintf(stderr, "hipdnn-cache: show: listing %s: %s\n", kc_dir(c), msg);
        return HC_EXIT_FAIL;
    }
    const kc_entry *e = find_entry(v, n, &key);
    kc_kernel k;
    int rc = HC_EXIT_FAIL;
    if (e != NULL && e->table == KC_TABLE_PLAN) {
        rc = show_plan(e, canon, source, json);
    } else if (kc_get_kernel(c, &key, &k)) {
        rc = show_kernel(&k, e, canon, source, json);
        kc_kernel_release(&k);
    } else if (e != NULL) {
        fprintf(stderr, "hipdnn-cache: show: kernel %s in %s fails its checks (hipdnn-cache verify --fix "
                "removes it)\n", canon, kc_dir(c));
    } else {
        fprintf(stderr, "hipdnn-cache: show: no record has key %s in %s\n", canon, kc_dir(c));
    }
    base_free(v);
    return rc;
}
