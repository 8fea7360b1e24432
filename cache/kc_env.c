/* kc_env.c — opening and closing caches: the per-process registry, degraded (memory) opens, and
 * kc_default(), the process's shared handle. The top of cache/: it calls kc_trust.c (may the
 * directory be used), kc_mode.c (how its LMDB environment is opened: the modes, a damaged data
 * file), kc_default.c (the environment variables), kc_maint.c (flushing at close) and kc_txn.c;
 * nothing in cache/ calls it. What an open environment offers the rest is kc_txn.c.
 *
 * The registry: one store (kc_store.h: an LMDB environment) per directory (by device and inode)
 * per process, shared by every handle on it (LMDB forbids opening an environment twice in a
 * process). After fork() the child forgets the parent's environments (kept reachable, never
 * used).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/kc_int.h"

#define MIN_MAX_BYTES (1ull << 20)
#define DEFAULT_FRONT (64ull << 20)

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static kc_env *registry;   /* LMDB environments open in this process */
static kc_env *inherited;  /* the parent's, in a forked child: reachable, never used */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void fork_prepare(void) { pthread_mutex_lock(&registry_mu); }
static void fork_parent(void) { pthread_mutex_unlock(&registry_mu); }

static void fork_child(void)
{
    while (registry != NULL) {
        kc_env *e = registry;
        registry = e->next;
        e->next = inherited;
        inherited = e;
    }
    pthread_mutex_unlock(&registry_mu);
}

static void install_atfork(void) { pthread_atfork(fork_prepare, fork_parent, fork_child); }

/* ---- environments ----------------------------------------------------------------------------- */

static kc_env *env_new(const char *dir, uint64_t max_bytes, uint64_t front_bytes)
{
    kc_env *e = base_calloc(1, sizeof *e);
    if (e == NULL)
        return NULL;
    e->dir = base_strndup(dir, strlen(dir));
    if (e->dir == NULL) {
        base_free(e);
        return NULL;
    }
    e->max_bytes = max_bytes;
    e->mode = KC_MODE_MEMORY;
    pthread_rwlock_init(&e->txn_lock, NULL);
    pthread_mutex_init(&e->mu, NULL);
    kc__front_init(&e->front, front_bytes);
    return e;
}

static void env_free(kc_env *e)
{
    kc__store_close(e->store);
    kc__front_free(&e->front);
    pthread_rwlock_destroy(&e->txn_lock);
    pthread_mutex_destroy(&e->mu);
    base_free(e->touches);
    base_free(e->dir);
    base_free(e);
}

static kc_env *find_registered(dev_t dev, ino_t ino)
{
    for (kc_env *e = registry; e != NULL; e = e->next)
        if (e->dev == dev && e->ino == ino)
            return e;
    return NULL;
}

/* Creates o->dir (unless read-only) and stats it into *st: true when kc_trust.c accepts it; else
 * r->why says why (r->loud: an untrusted directory is worth a warning). */
static bool dir_usable(const kc_options *o, struct stat *st, kc_open_report *r)
{
    int err = o->read_only ? 0 : kc__mkdirs(o->dir);
    if (err == 0 && stat(o->dir, st) != 0)
        err = errno;
    bool trusted = err == 0 && kc__trusted(o->dir, st, r->why, sizeof r->why);
    r->loud = err == 0 && !trusted;
    if (err != 0)
        snprintf(r->why, sizeof r->why, "%s", strerror(err));
    return trusted;
}

/* A directory that cannot be used: an error under `strict`, else e runs in memory. */
static hipdnnStatus_t degrade(kc_env *e, const kc_options *o, const kc_open_report *r, uint64_t max_bytes,
                              kc_env **out)
{
    if (o->strict) {
        env_free(e);
        return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "kernel cache %s: cannot be opened: %s", o->dir, r->why);
    }
    base_log(o->read_only && !r->loud ? HIPDNN_SEV_INFO : HIPDNN_SEV_WARN,
             "kernel cache %s: cannot be used (%s); caching in memory only", o->dir, r->why);
    e->front.max_bytes = max_bytes; /* the front is the whole store now */
    e->refs = 1;
    *out = e;
    return HIPDNN_STATUS_SUCCESS;
}

/* The environment for o->dir: registered, or newly opened, or (degraded) a memory one.
 * Registry lock held. */
static hipdnnStatus_t env_for_dir(const kc_options *o, uint64_t max_bytes, uint64_t front, kc_env **out,
                                  char *note, size_t note_size)
{
    kc_open_report r = {.why = "", .note = note, .note_size = note_size};
    struct stat st;
    bool trusted = dir_usable(o, &st, &r);
    kc_env *e = trusted ? find_registered(st.st_dev, st.st_ino) : NULL;
    if (e != NULL) {
        e->refs++;
        *out = e;
        return HIPDNN_STATUS_SUCCESS;
    }
    e = env_new(o->dir, max_bytes, front);
    if (e == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "kernel cache %s: no memory to open it", o->dir);
    e->no_sync = o->no_sync;
    if (trusted && kc__open_lmdb(e, o, &r)) {
        e->dev = st.st_dev;
        e->ino = st.st_ino;
        e->refs = 1;
        e->next = registry;
        registry = e;
        *out = e;
        return HIPDNN_STATUS_SUCCESS;
    }
    return degrade(e, o, &r, max_bytes, out);
}

/* c->env: a memory environment when o names no directory, else env_for_dir's. */
static hipdnnStatus_t env_for(const kc_options *o, uint64_t max, uint64_t front, kc_cache *c)
{
    if (o->dir == NULL || o->dir[0] == '\0') {
        c->env = env_new("", max, max);
        if (c->env == NULL)
            return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "kc_open: no memory for a memory cache");
        c->env->refs = 1;
        return HIPDNN_STATUS_SUCCESS;
    }
    pthread_mutex_lock(&registry_mu);
    hipdnnStatus_t st = env_for_dir(o, max, front, &c->env, c->note, sizeof c->note);
    pthread_mutex_unlock(&registry_mu);
    return st;
}

hipdnnStatus_t kc_open(const kc_options *opt, kc_cache **out)
{
    if (out == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "kc_open: out is NULL");
    *out = NULL;
    kc_options o = opt != NULL ? *opt : (kc_options){0};
    if (o.dir != NULL && strlen(o.dir) >= PATH_MAX - 16)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "kc_open: the directory name is longer than %d bytes",
                         PATH_MAX - 16);
    uint64_t max = o.max_bytes != 0 ? o.max_bytes : kc_default_max_bytes();
    max = max < MIN_MAX_BYTES ? MIN_MAX_BYTES : max;
    uint64_t front = o.front_bytes != 0 ? o.front_bytes : DEFAULT_FRONT;
    front = front < max ? front : max;
    kc_cache *c = base_calloc(1, sizeof *c);
    if (c == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "kc_open: no memory for a handle");
    pthread_once(&atfork_once, install_atfork);
    hipdnnStatus_t st = env_for(&o, max, front, c);
    if (st != HIPDNN_STATUS_SUCCESS) {
        base_free(c);
        return st;
    }
    c->read_only = o.read_only;
    *out = c;
    return HIPDNN_STATUS_SUCCESS;
}

static void unregister(kc_env *e)
{
    for (kc_env **p = &registry; *p != NULL; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            return;
        }
}

void kc_close(kc_cache *c)
{
    if (c == NULL)
        return;
    kc_env *e = c->env;
    if (kc__writable(c))
        kc_flush(c);
    pthread_mutex_lock(&registry_mu);
    bool last = --e->refs == 0;
    if (last)
        unregister(e);
    pthread_mutex_unlock(&registry_mu);
    if (last)
        env_free(e);
    base_free(c);
}

/* ---- the default cache (kc_default) ---------------------------------------------------------- */

static pthread_mutex_t default_mu = PTHREAD_MUTEX_INITIALIZER;
static bool default_done;
static kc_cache *default_cache;
static kc_cache *parent_default; /* a forked child's copy of its parent's: never used */
static pthread_once_t default_atfork_once = PTHREAD_ONCE_INIT;

static void default_fork_prepare(void) { pthread_mutex_lock(&default_mu); }
static void default_fork_parent(void) { pthread_mutex_unlock(&default_mu); }

static void default_fork_child(void)
{
    if (default_cache != NULL)
        parent_default = default_cache;
    default_cache = NULL;
    default_done = false;
    pthread_mutex_unlock(&default_mu);
}

static void default_install_atfork(void)
{
    pthread_atfork(default_fork_prepare, default_fork_parent, default_fork_child);
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
    pthread_once(&default_atfork_once, default_install_atfork);
    pthread_mutex_lock(&default_mu);
    if (!default_done) {
        default_cache = open_default();
        default_done = true;
    }
    kc_cache *c = default_cache;
    pthread_mutex_unlock(&default_mu);
    return c;
}
