/* hipdnn_cache_version.c — `hipdnn-cache --version [--json]`: what a bug report needs about this
 * installation: the library's version (hipdnnVersionString_ext), the kernel cache's record
 * format and key schema versions (hipdnnKernelCacheGetSchema_ext: a cache written under other
 * ones misses), and the run-time compilers found here with their versions, or why not
 * (hipdnnGetCompilers_ext). Public API only; a compiler not found is not an error.
 */
#include <jansson.h>
#include <stdio.h>

#include "hipdnn_backend.h"
#include "hipdnn_cache.h"
#include "hipdnn_jit.h"

#define MAX_COMPILERS 8

static int fail(const char *what)
{
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
    hipdnnGetLastErrorString(msg, sizeof msg);
    fprintf(stderr, "hipdnn-cache: --version: %s: %s\n", what, msg);
    return HC_EXIT_FAIL;
}

static json_t *compiler_json(const hipdnnCompilerInfo_ext_t *c)
{
    json_t *j = json_pack("{s:s, s:s, s:s, s:b}", "id", c->id, "platform", c->platform, "targets", c->targets,
                          "found", c->found);
    if (j == NULL)
        return NULL;
    if (c->found) {
        char v[32];
        snprintf(v, sizeof v, "%d.%d", c->major, c->minor);
        json_object_set_new(j, "version", json_string(v));
    } else {
        json_object_set_new(j, "reason", json_string(c->reason));
    }
    return j;
}

static int version_json(const hipdnnKernelCacheSchema_ext_t *s, const hipdnnCompilerInfo_ext_t *cc, int n)
{
    json_t *arr = json_array();
    for (int i = 0; arr != NULL && i < n; i++)
        json_array_append_new(arr, compiler_json(&cc[i]));
    json_t *j = json_pack("{s:s, s:s, s:{s:i, s:i, s:i, s:i, s:i}, s:o}", "tool", "hipdnn-cache", "library",
                          hipdnnVersionString_ext(), "cache_schema", "record_format", s->record_format,
                          "kernel_key", s->kernel_key, "plan_key", s->plan_key, "plan_recipe", s->plan_recipe,
                          "bundle_format", s->bundle_format, "compilers", arr);
    bool ok = j != NULL && json_dumpf(j, stdout, JSON_INDENT(2)) == 0;
    json_decref(j);
    fputc('\n', stdout);
    if (!ok)
        fprintf(stderr, "hipdnn-cache: --version: writing JSON failed\n");
    return ok ? HC_EXIT_OK : HC_EXIT_FAIL;
}

int hc_version(bool json)
{
    hipdnnKernelCacheSchema_ext_t s;
    hipdnnCompilerInfo_ext_t cc[MAX_COMPILERS];
    int n = 0;
    if (hipdnnKernelCacheGetSchema_ext(&s) != HIPDNN_STATUS_SUCCESS)
        return fail("the cache schema");
    if (hipdnnGetCompilers_ext(cc, MAX_COMPILERS, &n) != HIPDNN_STATUS_SUCCESS)
        return fail("the compilers");
    n = n < MAX_COMPILERS ? n : MAX_COMPILERS;
    if (json)
        return version_json(&s, cc, n);
    printf("hipdnn-cache (hipdnn-jit) %s\n", hipdnnVersionString_ext());
    printf("kernel cache  record format %d, kernel key schema %d, plan key schema %d, plan recipe %d, "
           "bundle format %d\n", s.record_format, s.kernel_key, s.plan_key, s.plan_recipe, s.bundle_format);
    for (int i = 0; i < n; i++) {
        printf("%-13s %s", i == 0 ? "compilers" : "", cc[i].id);
        if (cc[i].found)
            printf(" %d.%d (%s* targets)\n", cc[i].major, cc[i].minor, cc[i].targets);
        else
            printf(": not found (%s* targets): %s\n", cc[i].targets, cc[i].reason);
    }
    return HC_EXIT_OK;
}
