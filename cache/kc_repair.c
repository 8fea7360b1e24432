/* kc_repair.c — replacing a damaged data.mdb: moved aside at open (kc_mode.c), rebuilt from the
 * records that verify by verify --fix (kc_verify.c). Nothing is ever written through a damaged
 * page: LMDB's writes follow the file's own page numbers and sizes, so the repair writes a fresh
 * file and renames it into place.
 *
 * Both replacements run only while this process holds LMDB's exclusive lock: an fcntl write lock
 * on byte 0 of lock.mdb. Every process with the environment open holds a read lock there
 * (mdb_env_excl_lock), so getting it without waiting proves that no other process has the cache
 * open, and while it is held a process that opens the cache waits inside mdb_env_open. When
 * another process holds the cache, nothing is replaced and the caller says so (the damaged file
 * stays; an open degrades to memory mode, verify --fix fails with a message). No lock.mdb at all:
 * nobody has ever opened the directory with locks, so there is nothing to exclude.
 *
 * What another process sees: one that has the cache open blocks the repair (above). One that
 * opens it during the repair waits, then maps the new file. The new file is complete and synced
 * before the rename (rename(2) is atomic), so no process ever maps half of it. Its two meta pages
 * both describe every record kept (a last one-key commit follows the data), so a process that
 * reuses lock.mdb as it stands — LMDB reinitialises the lock file only when it is the first to
 * open — reads the same records whichever meta page lock.mdb's transaction number selects.
 * Records another process stores between a verify pass and the repair's own pass are kept: the
 * repair reads the file again under the lock.
 *
 * The rebuilt file: dir/data.mdb.rebuild-<pid>, a store of its own (one file, no lock file: no
 * one else knows it), filled by the caller's `fill` through kc__sink_put /
 * kc__sink_atime, committed every 64 MiB, synced, renamed to data.mdb. A damaged file moved
 * aside keeps its bytes as dir/data.mdb.corrupt-<UTC time>-<pid>, for a person to look at; only
 * the newest is kept (each can be as large as the cache), the older ones are removed when a new
 * one is moved aside. A rebuild file left by a repair that was killed is removed by the next one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache/kc_int.h"

#define SINK_CHUNK (64ull << 20)
#define MAP_ROUND (64ull << 10)

struct kc_sink {
    kc_store *store;
    kc_txn *txn;
    uint64_t bytes;              /* put since the last commit */
};

/* ---- the exclusive lock ---------------------------------------------------------------------- */

int kc__excl_lock(const char *dir, int *fd_out)
{
    char path[PATH_MAX];
    *fd_out = -1;
    snprintf(path, sizeof path, "%s/lock.mdb", dir);
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : errno;
    struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
    int rc;
    while ((rc = fcntl(fd, F_SETLK, &l)) != 0 && errno == EINTR)
        ;
    if (rc != 0) {
        int err = errno;
        close(fd);
        return err == EACCES ? EAGAIN : err;
    }
    *fd_out = fd;
    return 0;
}

static void sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

static const char *lock_problem(int err)
{
    return err == EAGAIN ? "another process has the cache open" : strerror(err);
}

/* ---- moving a damaged file aside (at open) ---------------------------------------------------- */

#define CORRUPT_PREFIX "data.mdb.corrupt-"
#define REBUILD_PREFIX "data.mdb.rebuild-"

/* Removes the files of dir whose names start with prefix, but `keep` (NULL: none); each removal
 * is logged with `what` they are. */
static void drop_files(const char *dir, const char *prefix, const char *keep, const char *what)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0 || (keep != NULL && strcmp(e->d_name, keep) == 0))
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode) &&
            unlinkat(dirfd(d), e->d_name, 0) == 0)
            base_log(HIPDNN_SEV_WARN, "kernel cache %s: removed %s (%s)", dir, e->d_name, what);
    }
    closedir(d);
}

kc_quarantine kc__quarantine(const char *dir, const char *damage, char *note, size_t note_size)
{
    int fd, err = kc__excl_lock(dir, &fd);
    if (err != 0) {
        snprintf(note, note_size, "data.mdb is damaged (%s); left in place: %s", damage, lock_problem(err));
        return KC_Q_FAILED;
    }
    char again[KC_WHY_MAX];
    if (kc__data_check(dir, again, sizeof again) != KC_FILE_DAMAGED) { /* nobody writes it now */
        if (fd >= 0)
            close(fd);
        return KC_Q_SOUND;
    }
    char from[PATH_MAX], to[PATH_MAX], stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
    snprintf(from, sizeof from, "%s/data.mdb", dir);
    int tail = snprintf(to, sizeof to, "%s/", dir);
    snprintf(to + tail, sizeof to - (size_t)tail, CORRUPT_PREFIX "%s-%ld", stamp, (long)getpid());
    bool moved = rename(from, to) == 0;
    err = errno;
    if (moved) {
        drop_files(dir, CORRUPT_PREFIX, to + tail, "an older damaged file; the newest is kept");
        sync_dir(dir);
    }
    if (fd >= 0)
        close(fd);
    if (moved)
        snprintf(note, note_size, "data.mdb is damaged (%s); moved it to %s and started an empty cache", damage, to);
    else
        snprintf(note, note_size, "data.mdb is damaged (%s); moving it aside failed: %s", damage, strerror(err));
    return moved ? KC_Q_MOVED : KC_Q_FAILED;
}

/* ---- the rebuilt environment ------------------------------------------------------------------ */

static int sink_open(kc_sink *s, const char *path, uint64_t map_bytes)
{
    kc_store_opts o = {.no_lock = true, .no_sync = true, .single_file = true};
    o.map_bytes = (map_bytes + MAP_ROUND - 1) / MAP_ROUND * MAP_ROUND;
    const char *call;
    int rc = kc__store_open(path, &o, &s->store, &call);
    if (rc == KC_STORE_OK)
        rc = kc__store_txn_begin(s->store, true, &s->txn);
    return rc;
}

static int sink_commit(kc_sink *s)
{
    int rc = kc__store_txn_commit(s->txn);
    s->txn = NULL;
    s->bytes = 0;
    return rc;
}

static void sink_close(kc_sink *s)
{
    if (s->txn != NULL)
        kc__store_txn_abort(s->txn);
    kc__store_close(s->store);
    s->txn = NULL, s->store = NULL;
}

static int table_of(kc_table t) { return t == KC_TABLE_KERNEL ? KC_DBI_KERNEL : KC_DBI_PLAN; }

int kc__sink_put(kc_sink *s, kc_table t, const uint8_t *key, const void *val, size_t len)
{
    kc_val k = {KC_KEY_SIZE, key}, v = {len, val};
    int rc = kc__store_put(s->txn, table_of(t), &k, &v);
    if (rc == KC_STORE_OK && (s->bytes += len) >= SINK_CHUNK && (rc = sink_commit(s)) == KC_STORE_OK)
        rc = kc__store_txn_begin(s->store, true, &s->txn);
    return rc;
}

int kc__sink_atime(kc_sink *s, const uint8_t *key, size_t klen, const void *val, size_t vlen, bool *kept)
{
    *kept = false;
    if (klen != 1 + KC_KEY_SIZE || vlen != 8 || (key[0] != KC_TABLE_KERNEL && key[0] != KC_TABLE_PLAN))
        return KC_STORE_OK;
    kc_val rk = {KC_KEY_SIZE, key + 1}, rd;
    int rc = kc__store_get(s->txn, table_of((kc_table)key[0]), &rk, &rd);
    if (rc == KC_STORE_NOTFOUND)
        return KC_STORE_OK; /* its record was dropped */
    kc_val k = {klen, key}, v = {vlen, val};
    if (rc == KC_STORE_OK && (rc = kc__store_put(s->txn, KC_DBI_ATIME, &k, &v)) == KC_STORE_OK)
        *kept = true;
    return rc;
}

/* The data, then a one-key commit, so that both meta pages hold every record; then synced. */
static int sink_finish(kc_sink *s)
{
    uint8_t mark = 0, when[8];
    kc__put64(when, (uint64_t)kc__now());
    kc_val k = {1, &mark}, v = {sizeof when, when}; /* kc_space.c's settle marker */
    int rc = sink_commit(s);
    if (rc == KC_STORE_OK)
        rc = kc__store_txn_begin(s->store, true, &s->txn);
    if (rc == KC_STORE_OK && (rc = kc__store_put(s->txn, KC_DBI_ATIME, &k, &v)) == KC_STORE_OK)
        rc = sink_commit(s);
    return rc == KC_STORE_OK ? kc__store_sync(s->store) : rc;
}

/* ---- rebuilding (verify --fix) ----------------------------------------------------------------- */

static hipdnnStatus_t rebuild_locked(kc_env *e, uint64_t map_bytes, kc_fill_fn fill, void *ctx)
{
    char tmp[PATH_MAX], data[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s/" REBUILD_PREFIX "%ld", e->dir, (long)getpid());
    snprintf(data, sizeof data, "%s/data.mdb", e->dir);
    /* under the exclusive lock no other repair runs: any rebuild file is a dead one's */
    drop_files(e->dir, REBUILD_PREFIX, NULL, "left by a repair that did not finish");
    struct stat st;
    uint64_t size = stat(data, &st) == 0 ? (uint64_t)st.st_size : 0;
    uint64_t want = 2 * size + (1ull << 20); /* the kept records take at most the old file's pages */
    if (want > e->max_bytes) /* the map stays within max_bytes where the records allow */
        want = e->max_bytes > size + (1ull << 20) ? e->max_bytes : size + (1ull << 20);
    map_bytes = map_bytes > want ? map_bytes : want;
    kc_sink s = {0};
    int rc = sink_open(&s, tmp, map_bytes);
    hipdnnStatus_t st_fill = rc == KC_STORE_OK ? fill(ctx, &s) : HIPDNN_STATUS_SUCCESS;
    if (rc == KC_STORE_OK && st_fill == HIPDNN_STATUS_SUCCESS)
        rc = sink_finish(&s);
    sink_close(&s);
    hipdnnStatus_t st_out = st_fill;
    if (st_out == HIPDNN_STATUS_SUCCESS && rc != KC_STORE_OK)
        st_out = kc__store_fail(e, "writing the rebuilt data file", rc);
    if (st_out == HIPDNN_STATUS_SUCCESS && rename(tmp, data) != 0)
        st_out = base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "kernel cache %s: renaming the rebuilt data file into "
                           "place: %s", e->dir, strerror(errno));
    if (st_out == HIPDNN_STATUS_SUCCESS)
        sync_dir(e->dir);
    else
        unlink(tmp);
    return st_out;
}

hipdnnStatus_t kc__rebuild(kc_env *e, kc_fill_fn fill, void *ctx)
{
    pthread_rwlock_wrlock(&e->txn_lock); /* no transaction of this process while the file changes */
    uint64_t map_bytes = kc__env_detach(e);
    int fd, err = kc__excl_lock(e->dir, &fd);
    hipdnnStatus_t st = err == 0 ? rebuild_locked(e, map_bytes, fill, ctx)
                                 : base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "kernel cache %s: verify --fix cannot "
                                             "replace data.mdb: %s (close it there and run it again)", e->dir,
                                             lock_problem(err));
    if (fd >= 0)
        close(fd);
    int rc = kc__env_attach(e);
    pthread_rwlock_unlock(&e->txn_lock);
    if (rc != KC_STORE_OK) {
        base_log(HIPDNN_SEV_WARN, "kernel cache %s: reopening it after the repair failed: %s; the cache is not "
                 "used by this process until it is opened again", e->dir, kc__store_strerror(rc));
        if (st == HIPDNN_STATUS_SUCCESS)
            st = kc__store_fail(e, "mdb_env_open (after the repair)", rc);
    }
    return st;
}
