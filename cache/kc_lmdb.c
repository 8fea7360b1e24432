/* kc_lmdb.c — the store (kc_store.h) on LMDB: the only file of the library that includes lmdb.h.
 *
 * Owns: the LMDB environment and its settings (reader slots, the number of tables, the flags
 * every environment is opened with), the names of our tables and opening them, and the
 * translation of kc_ handles, values and results to LMDB's. A kc_txn * is LMDB's MDB_txn * and a
 * kc_cursor * its MDB_cursor * under our names; a transaction finds its store's table handles
 * through the environment's user context. Does not own: when to open what (kc_mode.c), locking
 * between this process's threads and retries (kc_txn.c), what a record means (kc_record.c).
 */
#include <errno.h>
#include <lmdb.h>
#include <stdlib.h>

#include "cache/kc_store.h"

#define MAX_READERS 254

_Static_assert(KC_STORE_OK == MDB_SUCCESS, "kc_store.h's codes are LMDB's");
_Static_assert(KC_STORE_NOTFOUND == MDB_NOTFOUND, "kc_store.h's codes are LMDB's");
_Static_assert(KC_STORE_CORRUPTED == MDB_CORRUPTED, "kc_store.h's codes are LMDB's");
_Static_assert(KC_STORE_PANIC == MDB_PANIC, "kc_store.h's codes are LMDB's");
_Static_assert(KC_STORE_MAP_FULL == MDB_MAP_FULL, "kc_store.h's codes are LMDB's");
_Static_assert(KC_STORE_READERS_FULL == MDB_READERS_FULL, "kc_store.h's codes are LMDB's");
_Static_assert(KC_STORE_MAP_RESIZED == MDB_MAP_RESIZED, "kc_store.h's codes are LMDB's");
_Static_assert(KC_STORE_DUPSORT == MDB_DUPSORT && KC_STORE_INTEGERKEY == MDB_INTEGERKEY,
               "kc_store.h's table flags are LMDB's");

struct kc_store {
    MDB_env *env;
    MDB_dbi dbi[KC_N_DBI];
    bool have_tables;
};

static MDB_txn *txn_of(kc_txn *t) { return (MDB_txn *)t; }
static MDB_cursor *cur_of(kc_cursor *c) { return (MDB_cursor *)c; }
static MDB_val val_of(const kc_val *v) { return (MDB_val){v->size, (void *)v->data}; }
static kc_val from_val(MDB_val v) { return (kc_val){v.mv_size, v.mv_data}; }

static MDB_dbi dbi_of(kc_txn *t, int table)
{
    const kc_store *s = mdb_env_get_userctx(mdb_txn_env(txn_of(t)));
    return s->dbi[table];
}

/* ---- opening -------------------------------------------------------------------------------- */

/* Opens (creating unless read-only) the three tables. */
static int open_tables(kc_store *s, bool rdonly)
{
    static const char *const names[KC_N_DBI] = {"kernels", "plans", "last_used"};
    MDB_txn *txn = NULL;
    int rc = mdb_txn_begin(s->env, NULL, rdonly ? MDB_RDONLY : 0, &txn);
    for (int attempt = 0; rc == MDB_MAP_RESIZED && attempt < 4; attempt++) { /* grown meanwhile */
        if ((rc = mdb_env_set_mapsize(s->env, 0)) == MDB_SUCCESS)
            rc = mdb_txn_begin(s->env, NULL, rdonly ? MDB_RDONLY : 0, &txn);
    }
    if (rc != MDB_SUCCESS)
        return rc;
    for (int i = 0; rc == MDB_SUCCESS && i < KC_N_DBI; i++)
        rc = mdb_dbi_open(txn, names[i], rdonly ? 0 : MDB_CREATE, &s->dbi[i]);
    if (rc == MDB_NOTFOUND && rdonly) { /* an environment without our tables: always empty */
        mdb_txn_abort(txn);
        return MDB_SUCCESS;
    }
    if (rc != MDB_SUCCESS) {
        mdb_txn_abort(txn);
        return rc;
    }
    rc = mdb_txn_commit(txn);
    s->have_tables = rc == MDB_SUCCESS;
    return rc;
}

static unsigned open_flags(const kc_store_opts *o)
{
    return MDB_NOTLS | MDB_NOMETASYNC | (o->read_only ? MDB_RDONLY : 0) | (o->no_lock ? MDB_NOLOCK : 0) |
           (o->no_sync ? MDB_NOSYNC : 0) | (o->single_file ? MDB_NOSUBDIR : 0);
}

static int env_open(kc_store *s, const char *path, const kc_store_opts *o, const char **call)
{
    *call = "mdb_env_create";
    int rc = mdb_env_create(&s->env);
    if (rc != MDB_SUCCESS)
        return rc;
    mdb_env_set_userctx(s->env, s);
    *call = "mdb_env_set_mapsize";
    if ((rc = mdb_env_set_maxdbs(s->env, KC_N_DBI + 1)) == MDB_SUCCESS &&
        (rc = mdb_env_set_maxreaders(s->env, MAX_READERS)) == MDB_SUCCESS &&
        (o->map_bytes == 0 || (rc = mdb_env_set_mapsize(s->env, (size_t)o->map_bytes)) == MDB_SUCCESS)) {
        *call = "mdb_env_open";
        rc = mdb_env_open(s->env, path, open_flags(o), 0600);
    }
    return rc;
}

/* The handle is allocated with calloc, like LMDB's own environment, not base_calloc: injected
 * allocation failures (tests) must not make a repair's reopen fail where LMDB's would not. */
int kc__store_open(const char *path, const kc_store_opts *o, kc_store **out, const char **call)
{
    *out = NULL;
    kc_store *s = calloc(1, sizeof *s);
    if (s == NULL) {
        *call = "mdb_env_create";
        return ENOMEM;
    }
    int rc = env_open(s, path, o, call);
    if (rc == MDB_SUCCESS) {
        *call = "opening the tables";
        rc = open_tables(s, o->read_only);
    }
    if (rc == MDB_SUCCESS && !o->no_lock) {
        int dead;
        mdb_reader_check(s->env, &dead); /* free the slots of readers that were killed */
    }
    if (rc != MDB_SUCCESS) {
        kc__store_close(s);
        return rc;
    }
    *out = s;
    return MDB_SUCCESS;
}

void kc__store_close(kc_store *s)
{
    if (s == NULL)
        return;
    if (s->env != NULL)
        mdb_env_close(s->env);
    free(s);
}

bool kc__store_has_tables(const kc_store *s) { return s != NULL && s->have_tables; }

/* ---- transactions and records ---------------------------------------------------------------- */

int kc__store_txn_begin(kc_store *s, bool write, kc_txn **txn)
{
    MDB_txn *t = NULL;
    int rc = mdb_txn_begin(s->env, NULL, write ? 0 : MDB_RDONLY, &t);
    *txn = (kc_txn *)t;
    return rc;
}

int kc__store_txn_commit(kc_txn *txn) { return mdb_txn_commit(txn_of(txn)); }

void kc__store_txn_abort(kc_txn *txn) { mdb_txn_abort(txn_of(txn)); }

uint64_t kc__store_txn_id(const kc_txn *txn) { return mdb_txn_id(txn_of((kc_txn *)txn)); }

int kc__store_get(kc_txn *txn, int table, const kc_val *key, kc_val *val)
{
    MDB_val k = val_of(key), v;
    int rc = mdb_get(txn_of(txn), dbi_of(txn, table), &k, &v);
    if (rc == MDB_SUCCESS)
        *val = from_val(v);
    return rc;
}

int kc__store_put(kc_txn *txn, int table, const kc_val *key, const kc_val *val)
{
    MDB_val k = val_of(key), v = val_of(val);
    return mdb_put(txn_of(txn), dbi_of(txn, table), &k, &v, 0);
}

int kc__store_del(kc_txn *txn, int table, const kc_val *key)
{
    MDB_val k = val_of(key);
    return mdb_del(txn_of(txn), dbi_of(txn, table), &k, NULL);
}

int kc__store_cursor_open(kc_txn *txn, int table, kc_cursor **cur)
{
    MDB_cursor *c = NULL;
    int rc = mdb_cursor_open(txn_of(txn), dbi_of(txn, table), &c);
    *cur = (kc_cursor *)c;
    return rc;
}

int kc__store_cursor_get(kc_cursor *cur, bool first, kc_val *key, kc_val *val)
{
    MDB_val k, v;
    int rc = mdb_cursor_get(cur_of(cur), &k, &v, first ? MDB_FIRST : MDB_NEXT);
    if (rc == MDB_SUCCESS)
        *key = from_val(k), *val = from_val(v);
    return rc;
}

void kc__store_cursor_close(kc_cursor *cur) { mdb_cursor_close(cur_of(cur)); }

/* ---- the map ---------------------------------------------------------------------------------- */

int kc__store_table_pages(kc_txn *txn, int table, uint64_t *pages, uint64_t *psize)
{
    MDB_stat st;
    int rc = mdb_stat(txn_of(txn), dbi_of(txn, table), &st);
    if (rc == MDB_SUCCESS) {
        *pages = (uint64_t)st.ms_branch_pages + st.ms_leaf_pages + st.ms_overflow_pages;
        *psize = st.ms_psize;
    }
    return rc;
}

int kc__store_map_info(kc_store *s, uint64_t *size, uint64_t *used)
{
    MDB_envinfo info;
    MDB_stat st;
    if (s == NULL)
        return EINVAL;
    int rc = mdb_env_info(s->env, &info);
    if (rc == MDB_SUCCESS && used != NULL)
        rc = mdb_env_stat(s->env, &st);
    if (rc != MDB_SUCCESS)
        return rc;
    *size = info.me_mapsize;
    if (used != NULL)
        *used = (uint64_t)(info.me_last_pgno + 1) * st.ms_psize;
    return MDB_SUCCESS;
}

int kc__store_set_map_size(kc_store *s, uint64_t bytes)
{
    return s == NULL ? EINVAL : mdb_env_set_mapsize(s->env, (size_t)bytes);
}

int kc__store_reader_check(kc_store *s, int *dead) { return s == NULL ? EINVAL : mdb_reader_check(s->env, dead); }

int kc__store_sync(kc_store *s) { return mdb_env_sync(s->env, 1); }

/* ---- results ---------------------------------------------------------------------------------- */

const char *kc__store_strerror(int rc) { return mdb_strerror(rc); }

const char *kc__store_hint(int rc)
{
    switch (rc) {
    case MDB_READERS_FULL: return " (too many processes or threads reading the cache at once)";
    case MDB_MAP_FULL: return " (the cache is at its size limit)";
    case MDB_MAP_RESIZED: return " (another process keeps growing the map)";
    case MDB_INVALID: return " (data.mdb is not an LMDB file)";
    case MDB_VERSION_MISMATCH: return " (written by another LMDB version)";
    default: return "";
    }
}
