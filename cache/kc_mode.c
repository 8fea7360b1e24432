/* kc_mode.c — how a cache directory's LMDB environment is opened (kc_env.c calls it for a
 * directory it has not opened yet in this process; kc_trust.c has already accepted it).
 *
 * Owns the decision:
 *   data.mdb damaged (kc_check.c)      -> moved aside (kc_repair.c), then as below without it;
 *                                         when it cannot be moved: unusable
 *   writable directory                 -> LMDB read-write (created on first use, mode 0600)
 *   not writable, data.mdb present     -> LMDB read-only; if even the lock file cannot be
 *                                         opened and none exists (so no process ever locked
 *                                         it), read-only without locks
 *   anything else (no data, a file     -> unusable: kc_env.c runs the cache in memory with one
 *   LMDB refuses, an unusable dir)        warning (kc_options.strict: an error instead)
 * and the first map size of a new environment. The opening itself, and the flags every
 * environment gets (one fsync per commit: a crash of the machine may lose the last commit, never
 * the database), are kc_lmdb.c's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cache/kc_int.h"

#define DEFAULT_FIRST_MAP (64ull << 20)
#define MAP_ROUND (64ull << 10)

/* Opens e's store (fresh: a new environment, first map size from o); a store code, *call
 * naming the step that failed. */
static int store_open(kc_env *e, const kc_options *o, kc_store_opts so, bool fresh, const char **call)
{
    uint64_t first = o->initial_map_bytes != 0 ? o->initial_map_bytes : DEFAULT_FIRST_MAP;
    first = first < e->max_bytes ? first : e->max_bytes;
    so.map_bytes = fresh ? (first + MAP_ROUND - 1) / MAP_ROUND * MAP_ROUND : 0;
    so.no_sync = o->no_sync;
    int rc = kc__store_open(e->dir, &so, &e->store, call);
    e->have_tables = kc__store_has_tables(e->store);
    return rc;
}

static bool file_exists(const char *dir, const char *name)
{
    char path[PATH_MAX];
    struct stat st;
    return snprintf(path, sizeof path, "%s/%s", dir, name) < (int)sizeof path && stat(path, &st) == 0;
}

static bool file_writable(const char *dir, const char *name)
{
    char path[PATH_MAX];
    return snprintf(path, sizeof path, "%s/%s", dir, name) < (int)sizeof path && access(path, W_OK) == 0;
}

static bool is_permission(int rc) { return rc == EACCES || rc == EROFS || rc == EPERM; }

/* Read-only attempts; on failure `why` says why. */
static int open_rdonly(kc_env *e, const kc_options *o, char *why, size_t why_size)
{
    const char *call;
    int rc = store_open(e, o, (kc_store_opts){.read_only = true}, false, &call);
    if (rc != KC_STORE_OK && is_permission(rc) && !file_exists(e->dir, "lock.mdb"))
        rc = store_open(e, o, (kc_store_opts){.read_only = true, .no_lock = true}, false, &call);
    if (rc == KC_STORE_OK)
        e->mode = KC_MODE_READ_ONLY;
    else if (is_permission(rc) && !file_writable(e->dir, "lock.mdb"))
        snprintf(why, why_size, "%s: %s; its lock.mdb exists but this user cannot write it, and reading "
                 "without locks is unsafe while its owner may write", call, kc__store_strerror(rc));
    else
        snprintf(why, why_size, "%s: %s", call, kc__store_strerror(rc));
    return rc;
}

/* A damaged data.mdb (kc_check.c) is moved aside when the directory may be written (the cache
 * then starts empty: *exists false, the warning in r->note); otherwise the directory is
 * unusable (false). */
static bool damaged_data(kc_env *e, const kc_options *o, bool writable, bool *exists, kc_open_report *r)
{
    char damage[KC_WHY_MAX], *why = r->why, *note = r->note;
    size_t why_size = sizeof r->why, note_size = r->note_size;
    if (!*exists || kc__data_check(e->dir, damage, sizeof damage) != KC_FILE_DAMAGED)
        return true;
    r->loud = true;
    if (o->read_only || !writable) {
        snprintf(why, why_size, "data.mdb is damaged (%s); left in place: the %s", damage,
                 o->read_only ? "cache was opened read-only" : "directory is not writable");
        return false;
    }
    kc_quarantine q = kc__quarantine(e->dir, damage, note, note_size);
    if (q == KC_Q_FAILED) {
        snprintf(why, why_size, "%s", note);
        note[0] = '\0';
        return false;
    }
    r->loud = q == KC_Q_MOVED;
    if (q == KC_Q_MOVED)
        base_log(HIPDNN_SEV_WARN, "kernel cache %s: %s", e->dir, note);
    *exists = q != KC_Q_MOVED;
    return true;
}

/* Opens the environment of an existing directory, choosing the mode; false (with r->why)
 * when no LMDB mode works. */
bool kc__open_lmdb(kc_env *e, const kc_options *o, kc_open_report *r)
{
    char *why = r->why;
    size_t why_size = sizeof r->why;
    bool exists = file_exists(e->dir, "data.mdb");
    bool writable = access(e->dir, W_OK) == 0 && (!exists || file_writable(e->dir, "data.mdb"));
    if (!damaged_data(e, o, writable, &exists, r))
        return false;
    if (!exists && (o->read_only || !writable)) {
        snprintf(why, why_size, "%s", o->read_only ? "no cache there yet" : "not writable and holds no cache");
        return false;
    }
    if (writable) {
        const char *call;
        int rc = store_open(e, o, (kc_store_opts){0}, !exists, &call);
        if (rc == KC_STORE_OK) {
            e->mode = KC_MODE_READ_WRITE;
            return true;
        }
        if (!is_permission(rc)) {
            snprintf(why, why_size, "%s: %s%s", call, kc__store_strerror(rc), kc__store_hint(rc));
            return false;
        }
    }
    if (open_rdonly(e, o, why, why_size) != KC_STORE_OK)
        return false;
    if (!o->read_only)
        base_log(HIPDNN_SEV_WARN, "kernel cache %s: the directory is not writable; the cache is read-only "
                 "(new kernels are kept in memory only)", e->dir);
    return true;
}

