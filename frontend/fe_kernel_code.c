/* fe_kernel_code.c — code objects for emitted kernels, through the kernel cache (cache/).
 *
 * A kernel's cache key is XXH3-128 over a format tag, the compiler (id and version), the target
 * architecture, the compile options, the entry name and the emitted source. The source is
 * deterministic and already carries everything DESIGN.md §3 lists: the kernel's canonical
 * form, the knob values that shaped it, the template and prelude text and the codegen version.
 * A hit loads the stored code object (checksummed by the cache); a miss compiles and stores it.
 * The process-wide cache is kc_default() ($HIPDNN_CACHE_DIR, ...; HIPDNN_CACHE_DISABLE=1 turns
 * it off); a failed store is logged and ignored, since the cache is advisory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "cache/kc.h"
#include "frontend/fe_int.h"
#include "runtime/rt.h"

#define KEY_FORMAT "hipdnn-jit kernel key 1"

static void put_str(XXH3_state_t *s, const char *text)
{
    XXH3_128bits_update(s, text, strlen(text) + 1); /* with its NUL: fields cannot run together */
}

/* The key for compiler `info` (so a caller that has it asks the runtime once). */
static hipdnnStatus_t key_for(const rt_compiler_info *info, const char *source, const char *entry,
                              const char *arch, const char *const *options, int n_options, kc_key *key)
{
    XXH3_state_t *s = XXH3_createState();
    if (s == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "kernel key: out of memory");
    char version[32];
    snprintf(version, sizeof version, "%d.%d", info->major, info->minor);
    XXH3_128bits_reset(s);
    put_str(s, KEY_FORMAT), put_str(s, info->id), put_str(s, version), put_str(s, arch);
    for (int i = 0; i < n_options; i++)
        put_str(s, options[i]);
    put_str(s, ""), put_str(s, entry), put_str(s, source);
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits_digest(s));
    XXH3_freeState(s);
    memcpy(key->b, c.digest, sizeof key->b);
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t fe_kernel_key(const char *source, const char *entry, const char *arch,
                             const char *const *options, int n_options, kc_key *key)
{
    rt_compiler_info info;
    hipdnnStatus_t st = rt_compiler_for(arch, &info);
    return st == HIPDNN_STATUS_SUCCESS ? key_for(&info, source, entry, arch, options, n_options, key) : st;
}

/* A malloc'd copy of n bytes (the caller frees code with free(), as rt_compile's). */
static void *copy_code(const void *code, size_t n)
{
    void *p = malloc(n > 0 ? n : 1);
    if (p != NULL)
        memcpy(p, code, n);
    return p;
}

hipdnnStatus_t fe_kernel_code(const char *source, const char *name, const char *entry, const char *arch,
                              void **code, size_t *code_len, bool *hit)
{
    kc_cache *cache = kc_default();
    kc_key key;
    rt_compiler_info info;
    *hit = false;
    hipdnnStatus_t st = cache != NULL ? rt_compiler_for(arch, &info) : HIPDNN_STATUS_SUCCESS;
    if (st == HIPDNN_STATUS_SUCCESS && cache != NULL)
        st = key_for(&info, source, entry, arch, NULL, 0, &key);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    kc_kernel k;
    if (cache != NULL && kc_get_kernel(cache, &key, &k)) {
        bool same = strcmp(k.arch, arch) == 0 && strcmp(k.entry, entry) == 0 && strcmp(k.compiler, info.id) == 0;
        if (same && (*code = copy_code(k.code, k.code_size)) != NULL) {
            *code_len = k.code_size, *hit = true;
            kc_kernel_release(&k);
            return HIPDNN_STATUS_SUCCESS;
        }
        kc_kernel_release(&k); /* a record for another kernel under this key: compile anew */
    }
    st = rt_compile(source, name, arch, NULL, 0, code, code_len, NULL);
    if (st != HIPDNN_STATUS_SUCCESS || cache == NULL)
        return st;
    char version[32];
    snprintf(version, sizeof version, "%d.%d", info.major, info.minor);
    kc_kernel rec = {.key = key, .arch = arch, .compiler = info.id, .compiler_version = version,
                     .entry = entry, .code = *code, .code_size = *code_len};
    if (kc_put_kernel(cache, &rec) != HIPDNN_STATUS_SUCCESS) {
        char why[HIPDNN_ERROR_STRING_MAX_LENGTH];
        hipdnnGetLastErrorString(why, sizeof why);
        base_log(HIPDNN_SEV_WARN, "kernel cache: %s not stored: %s", name, why);
    }
    return HIPDNN_STATUS_SUCCESS;
}
