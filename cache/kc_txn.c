/* kc_txn.c — an open environment as the layers above use it: its transactions (this process's
 * txn_lock, retries, fault injection), the map's size and growth, raising and logging store
 * failures, the clock, detaching and reattaching the store around a repair, and the handle's
 * accessors (mode, directory, open note).
 *
 * Below it only the store (kc_lmdb.c) and fault injection (kc_fault.c); everything that reads or
 * writes records (kc_space.c, kc_maint.c, kc_table.c, kc_bundle.c, kc_verify.c, kc_repair.c)
 * sits above it, and opening and closing (kc_env.c, kc_mode.c) above those. It calls nothing
 * above itself, so no call cycle passes through it.
 */
#include <errno.h>
#include <time.h>

#include "cache/kc_int.h"

#define MAP_ROUND (64ull << 10)

int64_t (*kc_test_clock)(void);

int64_t kc__now(void) { return kc_test_clock != NULL ? kc_test_clock() : (int64_t)time(NULL); }

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

/* ---- repairs --------------------------------------------------------------------------------- */

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

/* ---- the handle's accessors ------------------------------------------------------------------ */

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