/* kc_default.c — the environment variables behind the default cache, and creating its directory.
 *
 *   HIPDNN_CACHE_DIR        the cache directory (else $XDG_CACHE_HOME/hipdnn-jit, else
 *                           $HOME/.cache/hipdnn-jit; only absolute values are used: a relative
 *                           one is ignored with a warning, once)
 *   HIPDNN_CACHE_MAX_BYTES  the map size limit: bytes, or with a K/M/G/T suffix (powers of
 *                           1024, an optional trailing "B" or "iB"); default 4 GiB
 *   HIPDNN_CACHE_DISABLE    anything but "" or "0": no default cache
 * kc__mkdirs creates a cache directory (the default one, or kc_open's) with mode 0700. The default
 * cache itself, kc_default(), opens through kc_open and so lives with it in kc_env.c; this file
 * calls nothing else in cache/.
 */
#include <ctype.h>
#include <stdatomic.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cache/kc_int.h"

#define DEFAULT_MAX_BYTES (4ull << 30)

/* An environment variable's value when it is an absolute path; a set, non-empty relative one is
 * ignored with a warning (once per variable and process: the current directory a relative cache
 * directory would depend on changes under a program's feet). */
static const char *absolute_env(const char *name)
{
    static _Atomic bool warned[2];
    const char *v = getenv(name);
    if (v != NULL && v[0] != '\0' && v[0] != '/') {
        int k = strcmp(name, "HIPDNN_CACHE_DIR") == 0 ? 0 : 1;
        if (!atomic_exchange(&warned[k], true))
            base_log(HIPDNN_SEV_WARN, "kernel cache: %s=\"%s\" is not an absolute path: ignored", name, v);
        return NULL;
    }
    return v != NULL && v[0] == '/' ? v : NULL;
}

hipdnnStatus_t kc_default_dir(char *buf, size_t size, bool create)
{
    if (buf == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "kc_default_dir: buf is NULL");
    const char *dir = absolute_env("HIPDNN_CACHE_DIR"), *xdg = absolute_env("XDG_CACHE_HOME");
    const char *home = absolute_env("HOME");
    int n;
    if (dir != NULL)
        n = snprintf(buf, size, "%s", dir);
    else if (xdg != NULL)
        n = snprintf(buf, size, "%s/hipdnn-jit", xdg);
    else if (home != NULL)
        n = snprintf(buf, size, "%s/.cache/hipdnn-jit", home);
    else
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "kernel cache: none of HIPDNN_CACHE_DIR, XDG_CACHE_HOME, HOME "
                         "is set to an absolute path");
    if (n < 0 || (size_t)n >= size)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT,
                         "kc_default_dir: the directory needs %d bytes, the buffer has %zu", n + 1, size);
    int err = create ? kc__mkdirs(buf) : 0;
    if (err != 0)
        return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "kernel cache: cannot create %s: %s", buf, strerror(err));
    return HIPDNN_STATUS_SUCCESS;
}

/* An integer and one optional unit: "1048576", "64K", "512MiB", "4G" (not "1.5G"). */
static bool parse_bytes(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)s[0]))
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0)
        return false;
    int shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;
    default: break;
    }
    if (shift > 0 && toupper((unsigned char)*end) == 'I')
        end++;
    if (toupper((unsigned char)*end) == 'B')
        end++;
    if (*end != '\0' || v == 0 || v > (UINT64_MAX >> shift))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

uint64_t kc_default_max_bytes(void)
{
    const char *s = getenv("HIPDNN_CACHE_MAX_BYTES");
    uint64_t v;
    if (s == NULL || s[0] == '\0')
        return DEFAULT_MAX_BYTES;
    if (parse_bytes(s, &v))
        return v;
    base_log(HIPDNN_SEV_WARN, "HIPDNN_CACHE_MAX_BYTES=\"%s\" is not a size (e.g. 4G, 512M, 1048576); using 4 GiB", s);
    return DEFAULT_MAX_BYTES;
}

bool kc_disabled_by_env(void)
{
    const char *s = getenv("HIPDNN_CACHE_DISABLE");
    return s != NULL && s[0] != '\0' && strcmp(s, "0") != 0;
}

/* mkdir -p with mode 0700 for every directory it creates. 0 or an errno. */
int kc__mkdirs(const char *dir)
{
    char path[PATH_MAX];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof path)
        return ENAMETOOLONG;
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        char saved = path[i];
        path[i] = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            return errno;
        path[i] = saved;
    }
    struct stat st;
    if (stat(dir, &st) != 0)
        return errno;
    return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}
