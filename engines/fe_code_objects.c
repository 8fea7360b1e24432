/* fe_code_objects.c — code objects for emitted kernels, through the kernel cache (cache/).
 *
 * A kernel's cache key is XXH3-128 over a format tag, the compiler (id and version), the target
 * architecture, the compile options, the entry name and the emitted source. The source is
 * deterministic and already carries everything DESIGN.md §3 lists: the kernel's canonical
 * form, the knob values that shaped it, the template and prelude text and the codegen version.
 * A hit loads the stored code object (checksummed by the cache); a miss compiles and stores it,
 * with the compile options and the emitted source as the record's metadata (what `hipdnn-cache
 * show --source` prints). The cache is the plan's (a KERNEL_CACHE descriptor) or the
 * process-wide kc_default(); a failed store is logged and reported to the caller (the plan's
 * cache stats count it), never raised, since the cache is advisory.
 * Also counts this process's compiles (tests use it to tell a hit from a compile).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "cache/kc.h"
#include "engines/fe_engines.h"
#include "runtime/rt.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define KEY_FORMAT "hipdnn-jit kernel key " STR(FE_KERNEL_KEY_SCHEMA)

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

/* ---- the record's metadata: compile options and the emitted source ---------------------------------
 * META_MAGIC, then each option with its NUL, an empty string, then the source with its NUL. */

#define META_MAGIC "HJKM1"

static hipdnnStatus_t meta_build(const char *const *options, int n_options, const char *source, base_sb *sb)
{
    base_sb_putn(sb, META_MAGIC, sizeof META_MAGIC);
    for (int i = 0; i < n_options; i++)
        base_sb_putn(sb, options[i], strlen(options[i]) + 1);
    base_sb_putn(sb, "", 1);
    base_sb_putn(sb, source, strlen(source) + 1);
    return sb->oom ? base_fail(HIPDNN_STATUS_ALLOC_FAILED, "kernel record: out of memory") : HIPDNN_STATUS_SUCCESS;
}

/* The NUL-terminated string at *at within n bytes, advancing past it; NULL when none. */
static const char *next_str(const char *meta, size_t n, size_t *at)
{
    const char *end = *at < n ? memchr(meta + *at, '\0', n - *at) : NULL;
    if (end == NULL)
        return NULL;
    const char *s = meta + *at;
    *at = (size_t)(end - meta) + 1;
    return s;
}

bool fe_kernel_meta_parse(const void *meta, size_t n, fe_kernel_meta *out)
{
    const char *m = meta;
    size_t at = 0;
    *out = (fe_kernel_meta){0};
    const char *magic = m != NULL ? next_str(m, n, &at) : NULL;
    if (magic == NULL || strcmp(magic, META_MAGIC) != 0)
        return false;
    for (;;) {
        const char *opt = next_str(m, n, &at);
        if (opt == NULL)
            return false;
        if (opt[0] == '\0')
            break;
        if (out->n_options == FE_KERNEL_META_MAX_OPTIONS)
            return false;
        out->options[out->n_options++] = opt;
    }
    out->source = next_str(m, n, &at);
    return out->source != NULL && at == n;
}

/* Stores a compiled kernel; a failure is logged and reported (false), never raised (the cache is
 * advisory). */
static bool store(kc_cache *cache, const kc_key *key, const rt_compiler_info *info, const char *source,
                  const char *name, const char *entry, const char *arch, const void *code, size_t code_len)
{
    char version[32];
    snprintf(version, sizeof version, "%d.%d", info->major, info->minor);
    base_sb meta = {0};
    hipdnnStatus_t st = meta_build(NULL, 0, source, &meta);
    kc_kernel rec = {.key = *key, .arch = arch, .compiler = info->id, .compiler_version = version,
                     .entry = entry, .meta = meta.p, .meta_size = meta.len, .code = code,
                     .code_size = code_len};
    if (st == HIPDNN_STATUS_SUCCESS)
        st = kc_put_kernel(cache, &rec);
    base_sb_free(&meta);
    if (st != HIPDNN_STATUS_SUCCESS) {
        char why[HIPDNN_ERROR_STRING_MAX_LENGTH];
        base_last_error(why, sizeof why, true);
        base_log(HIPDNN_SEV_WARN, "kernel cache: %s not stored: %s", name, why);
    }
    return st == HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t fe_kernel_code(kc_cache *cache, const char *source, const char *name, const char *entry,
                              const char *arch, void **code, size_t *code_len, kc_key *key, bool *hit,
                              bool *stored)
{
    rt_compiler_info info;
    bool ignored;
    stored = stored != NULL ? stored : &ignored;
    *hit = false, *stored = true;
    hipdnnStatus_t st = rt_compiler_for(arch, &info);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = key_for(&info, source, entry, arch, NULL, 0, key);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    kc_kernel k;
    if (cache != NULL && kc_get_kernel(cache, key, &k)) {
        bool same = strcmp(k.arch, arch) == 0 && strcmp(k.entry, entry) == 0 && strcmp(k.compiler, info.id) == 0;
        if (same && (*code = copy_code(k.code, k.code_size)) != NULL) {
            *code_len = k.code_size, *hit = true;
            kc_kernel_release(&k);
            return HIPDNN_STATUS_SUCCESS;
        }
        kc_kernel_release(&k); /* a record for another kernel under this key: compile anew */
    }
    st = rt_compile(source, name, arch, NULL, 0, code, code_len, NULL);
    if (st == HIPDNN_STATUS_SUCCESS)
        fe_count_compile();
    if (st == HIPDNN_STATUS_SUCCESS && cache != NULL)
        *stored = store(cache, key, &info, source, name, entry, arch, *code, *code_len);
    return st;
}

/* ---- this process's compile count ------------------------------------------------------------------ */

static _Atomic uint64_t n_compiled;

void fe_count_compile(void) { n_compiled++; }

uint64_t fe_compile_count(void) { return n_compiled; }
