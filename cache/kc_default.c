/* kc_default.c — the process-wide default cache and the environment variables behind it.
 *
 *   HIPDNN_CACHE_DIR        the cache directory (else $XDG_CACHE_HOME/hipdnn-jit, else
 *                           $HOME/.cache/hipdnn-jit; only absolute values are used: a relative
 *                           one is ignored with a warning, once)
 *   HIPDNN_CACHE_MAX_BYTES  the map size limit: bytes, or with a K/M/G/T suffix (powers of
 *                           1024, an optional trailing "B" or "iB"); default 4 GiB
 *   HIPDNN_CACHE_DISABLE    anything but "" or "0": no default cache
 * The default cache is opened on the first kc_default() call of a process (of a forked child
 * too: the child opens its own) and stays open until the process exits.
 */
#include <ctype.h>
#include <stdatomic.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/kc_int.h"

#define DEFAULT_MAX_BYTES (4ull << 30)

static pthread_mutex_t default_mu = PTHREAD_MUTEX_INITIALIZER;
static bool default_done;
static kc_cache *default_cache;
static kc_cache *parent_default; /* a forked child's copy of its parent's: never used */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void fork_prepare(void) { pthread_mutex_lock(&default_mu); }
static void fork_parent(void) { pthread_mutex_unlock(&default_mu); }

static void fork_child(void)
{
    if (default_cache != NULL)
        parent_default = default_cache;
    default_cache = NULL;
    default_done = false;
    pthread_mutex_unlock(&default_mu);
}

static void install_atfork(void) { pthread_atfork(fork_prepare, fork_parent, fork_child); }

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

static kc_cache *open_default(void)
{
    if (kc_disabled_by_env()) {
        base_log(HIPDNN_SEV_INFO, "kernel cache: disabled by HIPDNN_CACHE_DISABLE");
        return NULL;
    }
    char dir[PATH_MAX];
    kc_options o = {0};
    if (kc_default_dir(dir, sizeof dir, false) == HIPDNN_STATUS_SUCCESS)
        o.dir = dir;
    else
        base_log(HIPDNN_SEV_WARN, "kernel cache: no cache directory; caching in memory only");
    kc_cache *c = NULL;
    kc_open(&o, &c); /* degrades to memory by itself; NULL only without memory */
    return c;
}

kc_cache *kc_default(void)
{
    pthread_once(&atfork_once, install_atfork);
    pthread_mutex_lock(&default_mu);
    if (!default_done) {
        default_cache = open_default();
        default_done = true;
    }
    kc_cache *c = default_cache;
    pthread_mutex_unlock(&default_mu);
    return c;
}
