/* fe_info_api.c — what this library can use on this machine, for tools (hipdnn-cache --version):
 * the run-time compilers found (hipdnnGetCompilers_ext, over runtime/'s rt_compiler_at) and the
 * kernel cache's format and key schema versions (hipdnnKernelCacheGetSchema_ext, from cache/kc.h
 * and engines/fe_engines.h, where each version is defined next to what it versions).
 * Owns: the public structs and argument checks. Does not own: finding compilers, the formats.
 */
#include <stdio.h>

#include "cache/kc.h"
#include "engines/fe_engines.h"
#include "hipdnn_jit.h"
#include "runtime/rt.h"

#define EXPORT HIPDNN_BACKEND_EXPORT

static void compiler_of(const rt_compiler_entry *e, hipdnnCompilerInfo_ext_t *out)
{
    *out = (hipdnnCompilerInfo_ext_t){.found = e->found, .major = e->found ? e->info.major : 0,
                                      .minor = e->found ? e->info.minor : 0};
    snprintf(out->id, sizeof out->id, "%s", e->info.id);
    snprintf(out->platform, sizeof out->platform, "%s", e->platform);
    snprintf(out->targets, sizeof out->targets, "%s", e->arch_prefix);
    snprintf(out->reason, sizeof out->reason, "%.255s", e->found ? "" : e->why);
}

static hipdnnStatus_t hipdnnGetCompilers_ext_body(hipdnnCompilerInfo_ext_t *compilers, int capacity, int *count);

EXPORT hipdnnStatus_t hipdnnGetCompilers_ext(hipdnnCompilerInfo_ext_t *compilers, int capacity, int *count)
{
    base_call_begin();
    return base_call_done(hipdnnGetCompilers_ext_body(compilers, capacity, count));
}

static hipdnnStatus_t hipdnnGetCompilers_ext_body(hipdnnCompilerInfo_ext_t *compilers, int capacity, int *count)
{
    if (count == NULL || (compilers == NULL && capacity > 0))
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "hipdnnGetCompilers_ext: %s is NULL",
                         count == NULL ? "count" : "compilers");
    if (capacity < 0)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "hipdnnGetCompilers_ext: capacity %d is negative", capacity);
    size_t n = rt_compiler_count();
    for (size_t i = 0; i < n && i < (size_t)capacity; i++) {
        rt_compiler_entry e;
        hipdnnStatus_t st = rt_compiler_at(i, &e);
        if (st != HIPDNN_STATUS_SUCCESS)
            return st;
        compiler_of(&e, &compilers[i]);
    }
    *count = (int)n;
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t hipdnnKernelCacheGetSchema_ext_body(hipdnnKernelCacheSchema_ext_t *schema);

EXPORT hipdnnStatus_t hipdnnKernelCacheGetSchema_ext(hipdnnKernelCacheSchema_ext_t *schema)
{
    base_call_begin();
    return base_call_done(hipdnnKernelCacheGetSchema_ext_body(schema));
}

static hipdnnStatus_t hipdnnKernelCacheGetSchema_ext_body(hipdnnKernelCacheSchema_ext_t *schema)
{
    if (schema == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "hipdnnKernelCacheGetSchema_ext: schema is NULL");
    *schema = (hipdnnKernelCacheSchema_ext_t){.record_format = KC_FORMAT_VERSION,
                                              .kernel_key = FE_KERNEL_KEY_SCHEMA,
                                              .plan_key = FE_PLAN_KEY_SCHEMA,
                                              .plan_recipe = FE_PLAN_RECIPE_VERSION,
                                              .bundle_format = KC_BUNDLE_VERSION};
    return HIPDNN_STATUS_SUCCESS;
}
