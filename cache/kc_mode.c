/* kc_mode.c — how a cache directory's LMDB environment is opened (kc_env.c calls it for a
 * directory it has not opened yet in this process; kc_trust.c has already accepted it).
 *
 * Owns the decision:
 *   data.mdb damaged (kc_check.c)      -> moved aside (kc_repair.c), then as below without it;
 *                                         when it cannot be moved: unusable
 *   writable directory                 -> LMDB read-write (created on first use, mode 0600)
 *   not writable, data.mdb present     -> LMDB MDB_RDONLY; if even the lock file cannot be
 *                                         opened and none exists (so no process ever locked
 *                                         it), MDB_RDONLY | MDB_NOLOCK
 *   anything else (no data, a file     -> unusable: kc_env.c runs the cache in memory with one
 *   LMDB refuses, an unusable dir)        warning (kc_options.strict: an error instead)
 * Every environment uses MDB_NOTLS (read transactions are not tied to threads) and
 * MDB_NOMETASYNC (one fsync per commit; a crash of the machine may lose the last commit,
 * never the database).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cache/kc_int.h"

#define MAX_READERS 254
#define DEFAULT_FIRST_MAP (64ull << 20)
#define MAP_ROUND (64ull << 10)

/* Opens (creating unless read-only) the three tables. */
static int open_tables(kc_env *e, bool rdonly)
{
    static const char *const names[KC_N_DBI] = {"kernels", "plans", "last_used"};
    MDB_txn *txn = NULL;
    int rc = mdb_txn_begin(e->mdb, NULL, rdonly ? MDB_RDONLY : 0, &txn);
    for (int attempt = 0; rc == MDB_MAP_RESIZED && attempt < 4; attempt++) { /* grown meanwhile */
        if ((rc = mdb_env_set_mapsize(e->mdb, 0)) == MDB_SUCCESS)
            rc = mdb_txn_begin(e->mdb, NULL, rdonly ? MDB_RDONLY : 0, &txn);
    }
    if (rc != MDB_SUCCESS)
        return rc;
    for (int i = 0; rc == MDB_SUCCESS && i < KC_N_DBI; i++)
        rc = mdb_dbi_open(txn, names[i], rdonly ? 0 : MDB_CREATE, &e->dbi[i]);
    if (rc == MDB_NOTFOUND && rdonly) { /* an environment without our tables: always empty */
        mdb_txn_abort(txn);
        return MDB_SUCCESS;
    }
    if (rc != MDB_SUCCESS) {
        mdb_txn_abort(txn);
        return rc;
    }
    rc = mdb_txn_commit(txn);
    e->have_tables = rc == MDB_SUCCESS;
    return rc;
}

int kc__mdb_open(kc_env *e, const kc_options *o, unsigned flags, bool fresh, const char **call)
{
    *call = "mdb_env_create";
    int rc = mdb_env_create(&e->mdb);
    if (rc != MDB_SUCCESS)
        return rc;
    uint64_t first = o->initial_map_bytes != 0 ? o->initial_map_bytes : DEFAULT_FIRST_MAP;
    first = first < e->max_bytes ? first : e->max_bytes;
    first = (first + MAP_ROUND - 1) / MAP_ROUND * MAP_ROUND;
    *call = "mdb_env_set_mapsize";
    if ((rc = mdb_env_set_maxdbs(e->mdb, KC_N_DBI + 1)) == MDB_SUCCESS &&
        (rc = mdb_env_set_maxreaders(e->mdb, MAX_READERS)) == MDB_SUCCESS &&
        (!fresh || (rc = mdb_env_set_mapsize(e->mdb, (size_t)first)) == MDB_SUCCESS)) {
        *call = "mdb_env_open";
        flags |= MDB_NOTLS | MDB_NOMETASYNC | (o->no_sync ? MDB_NOSYNC : 0);
        rc = mdb_env_open(e->mdb, e->dir, flags, 0600);
    }
    if (rc == MDB_SUCCESS) {
        *call = "opening the tables";
        rc = open_tables(e, (flags & MDB_RDONLY) != 0);
    }
    if (rc == MDB_SUCCESS && !(flags & MDB_NOLOCK)) {
        int dead;
        mdb_reader_check(e->mdb, &dead); /* free the slots of readers that were killed */
    }
    if (rc != MDB_SUCCESS) {
        mdb_env_close(e->mdb);
        e->mdb = NULL;
        e->have_tables = false;
    }
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
    int rc = kc__mdb_open(e, o, MDB_RDONLY, false, &call);
    if (rc != MDB_SUCCESS && is_permission(rc) && !file_exists(e->dir, "lock.mdb"))
        rc = kc__mdb_open(e, o, MDB_RDONLY | MDB_NOLOCK, false, &call);
    if (rc == MDB_SUCCESS)
        e->mode = KC_MODE_READ_ONLY;
    else if (is_permission(rc) && !file_writable(e->dir, "lock.mdb"))
        snprintf(why, why_size, "%s: %s; its lock.mdb exists but this user cannot write it, and reading "
                 "without locks is unsafe while its owner may write", call, mdb_strerror(rc));
    else
        snprintf(why, why_size, "%s: %s", call, mdb_strerror(rc));
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
        int rc = kc__mdb_open(e, o, 0, !exists, &call);
        if (rc == MDB_SUCCESS) {
            e->mode = KC_MODE_READ_WRITE;
            return true;
        }
        if (!is_permission(rc)) {
            snprintf(why, why_size, "%s: %s%s", call, mdb_strerror(rc), kc__mdb_hint(rc));
            return false;
        }
    }
    if (open_rdonly(e, o, why, why_size) != MDB_SUCCESS)
        return false;
    if (!o->read_only)
        base_log(HIPDNN_SEV_WARN, "kernel cache %s: the directory is not writable; the cache is read-only "
                 "(new kernels are kept in memory only)", e->dir);
    return true;
}

