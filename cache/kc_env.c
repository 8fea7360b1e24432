/* kc_env.c — opening and closing caches: the per-process registry, degraded (memory) opens,
 * and the transaction helpers. Whether a directory may be used at all is kc_trust.c; how its
 * LMDB environment is opened (the modes, a damaged data file) is kc_mode.c.
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
#include <time.h>
#include <unistd.h>

#include "cache/kc_int.h"

#define MIN_MAX_BYTES (1ull << 20)
#define DEFAULT_FRONT (64ull << 20)
#define MAP_ROUND (64ull << 10)

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static kc_env *registry;   /* LMDB environments open in this process */
static kc_env *inherited;  /* the parent's, in a forked child: reachable, never used */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

int64_t (*kc_test_clock)(void);

int64_t kc__now(void) { return kc_test_clock != NULL ? kc_test_clock() : (int64_t)time(NULL); }

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

/* ---- errors ---------------------------------------------------------------------------------- */

static const char *dir_name(const kc_env *e) { return e->dir[0] != '\0' ? e->dir : "(memory)"; }

hipdnnStatus_t kc__store_fail(const kc_env *e, const char *call, int rc)
{
    hipdnnStatus_t st = rc == ENOMEM ? HIPDNN_STATUS_ALLOC_FAILED : HIPDNN_STATUS_INTERNAL_ERROR;
    return base_fail(st, "kernel cache %s: %s failed: %s%s", dir_name(e), call, kc__store_strerror(rc),
                     kc__store_hint(rc));
}

void kc__store_warn(const kc_env *e, const char *call, int rc)
{
    base_log(HIPDNN_SEV_WARN, "kernel cache %s: %s failed: %s%s; treated as a miss", dir_name(e), call,
             kc__store_strerror(rc), kc__store_hint(rc));
}

/* ---- transactions ----------------------------------------------------------------------------- */

/* One attempt: the lock taken shared and kept on success. */
static int begin_once(kc_env *e, bool write, kc_txn **txn)
{
    pthread_rwlock_rdlock(&e->txn_lock);
    int rc = kc__fault(write ? EACCES : KC_STORE_READERS_FULL);
    if (rc == KC_STORE_OK)
        rc = e->store == NULL ? KC_STORE_PANIC /* closed by a failed repair */
                              : kc__store_txn_begin(e->store, write, txn);
    if (rc != KC_STORE_OK)
        pthread_rwlock_unlock(&e->txn_lock);
    return rc;
}

int kc__txn_begin(kc_env *e, bool write, kc_txn **txn)
{
    for (int attempt = 0;; attempt++) {
        int rc = begin_once(e, write, txn);
        if (rc == KC_STORE_OK || attempt >= 4)
            return rc;
        if (rc == KC_STORE_MAP_RESIZED) {
            pthread_rwlock_wrlock(&e->txn_lock);
            rc = kc__store_set_map_size(e->store, 0); /* adopt the size another process set */
            pthread_rwlock_unlock(&e->txn_lock);
            if (rc != KC_STORE_OK)
                return rc;
            continue;
        }
        int dead = 0;
        if (rc == KC_STORE_READERS_FULL && kc__store_reader_check(e->store, &dead) == KC_STORE_OK && dead > 0)
            continue;
        return rc;
    }
}

int kc__txn_commit(kc_env *e, kc_txn *txn)
{
    int rc = kc__fault(ENOSPC);
    if (rc != KC_STORE_OK)
        kc__store_txn_abort(txn); /* what a failed commit leaves: the transaction gone */
    else
        rc = kc__store_txn_commit(txn);
    pthread_rwlock_unlock(&e->txn_lock);
    return rc;
}

void kc__txn_abort(kc_env *e, kc_txn *txn)
{
    kc__store_txn_abort(txn);
    pthread_rwlock_unlock(&e->txn_lock);
}

/* The map size is read from the meta pages inside the map: callers hold txn_lock. */
static uint64_t map_size_locked(kc_env *e)
{
    uint64_t size;
    if (e->store == NULL || kc__store_map_info(e->store, &size, NULL) != KC_STORE_OK)
        return 0;
    return size;
}

uint64_t kc__map_size(kc_env *e)
{
    pthread_rwlock_rdlock(&e->txn_lock);
    uint64_t size = map_size_locked(e);
    pthread_rwlock_unlock(&e->txn_lock);
    return size;
}

void kc__map_info(kc_env *e, uint64_t *size, uint64_t *used)
{
    uint64_t s, u;
    pthread_rwlock_rdlock(&e->txn_lock);
    if (e->store != NULL && kc__store_map_info(e->store, &s, &u) == KC_STORE_OK)
        *size = s, *used = u;
    pthread_rwlock_unlock(&e->txn_lock);
}

int kc__grow(kc_env *e, uint64_t want)
{
    want = (want + MAP_ROUND - 1) / MAP_ROUND * MAP_ROUND;
    pthread_rwlock_wrlock(&e->txn_lock);
    int rc = e->store == NULL ? KC_STORE_PANIC : KC_STORE_OK;
    if (rc == KC_STORE_OK && map_size_locked(e) < want &&
        (rc = kc__store_set_map_size(e->store, want)) == KC_STORE_OK) {
        pthread_mutex_lock(&e->mu);
        e->n.grown++;
        pthread_mutex_unlock(&e->mu);
    }
    pthread_rwlock_unlock(&e->txn_lock);
    return rc;
}

bool kc__writable(const kc_cache *c) { return c->env->mode == KC_MODE_READ_WRITE && !c->read_only; }

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

uint64_t kc__env_detach(kc_env *e)
{
    uint64_t size = map_size_locked(e);
    kc__store_close(e->store);
    e->store = NULL;
    e->have_tables = false;
    return size;
}

int kc__env_attach(kc_env *e)
{
    kc_store_opts o = {.no_sync = e->no_sync};
    const char *call;
    int rc = kc__store_open(e->dir, &o, &e->store, &call);
    e->have_tables = kc__store_has_tables(e->store);
    return rc;
}

static kc_env *find_registered(dev_t dev, ino_t ino)
{
    for (kc_env *e = registry; e != NULL; e = e->next)
        if (e->dev == dev && e->ino == ino)
            return e;
    return NULL;
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

/* The environment for o->dir: registered, or newly opened, or (degraded) a memory one.
 * Registry lock held. */
static hipdnnStatus_t env_for_dir(const kc_options *o, uint64_t max_bytes, uint64_t front, kc_env **out,
                                  char *note, size_t note_size)
{
    kc_open_report r = {.why = "", .note = note, .note_size = note_size};
    struct stat st;
    int err = o->read_only ? 0 : kc__mkdirs(o->dir);
    if (err == 0 && stat(o->dir, &st) != 0)
        err = errno;
    bool trusted = err == 0 && kc__trusted(o->dir, &st, r.why, sizeof r.why);
    r.loud = err == 0 && !trusted;
    if (trusted) {
        kc_env *e = find_registered(st.st_dev, st.st_ino);
        if (e != NULL) {
            e->refs++;
            *out = e;
            return HIPDNN_STATUS_SUCCESS;
        }
    } else if (err != 0) {
        snprintf(r.why, sizeof r.why, "%s", strerror(err));
    }
    kc_env *e = env_new(o->dir, max_bytes, front);
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
    if (o->strict) {
        env_free(e);
        return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "kernel cache %s: cannot be opened: %s", o->dir, r.why);
    }
    base_log(o->read_only && !r.loud ? HIPDNN_SEV_INFO : HIPDNN_SEV_WARN,
             "kernel cache %s: cannot be used (%s); caching in memory only", o->dir, r.why);
    e->front.max_bytes = max_bytes; /* the front is the whole store now */
    e->refs = 1;
    *out = e;
    return HIPDNN_STATUS_SUCCESS;
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
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    if (o.dir == NULL || o.dir[0] == '\0') {
        c->env = env_new("", max, max);
        if (c->env == NULL)
            st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "kc_open: no memory for a memory cache");
        else
            c->env->refs = 1;
    } else {
        pthread_mutex_lock(&registry_mu);
        st = env_for_dir(&o, max, front, &c->env, c->note, sizeof c->note);
        pthread_mutex_unlock(&registry_mu);
    }
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

kc_mode kc_get_mode(const kc_cache *c)
{
    if (c->env->mode == KC_MODE_READ_WRITE && c->read_only)
        return KC_MODE_READ_ONLY;
    return c->env->mode;
}

const char *kc_dir(const kc_cache *c) { return c->env->mode == KC_MODE_MEMORY ? "" : c->env->dir; }

const char *kc_open_note(const kc_cache *c) { return c->note; }

const char *kc_mode_name(kc_mode mode)
{
    switch (mode) {
    case KC_MODE_READ_WRITE: return "read-write";
    case KC_MODE_READ_ONLY: return "read-only";
    case KC_MODE_MEMORY: return "memory";
    }
    return "unknown";
}
