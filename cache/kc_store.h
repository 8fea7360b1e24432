/* kc_store.h — private to cache/: the key-value store under the cache, in kc_ terms. Its one
 * implementation is kc_lmdb.c, the only file that includes lmdb.h; everything else in cache/
 * (and the cache tests) reaches LMDB through these calls.
 *
 * A store is one LMDB environment with the cache's three tables (KC_DBI_*: "kernels", "plans",
 * "last_used"), opened at kc__store_open (created unless read-only). Transactions, cursors and
 * values are LMDB's semantics exactly: one writer at a time, readers never blocked, a value got
 * in a transaction valid until that transaction ends, a cursor closed before its transaction.
 * Locking between threads of this process (the environment's txn_lock, kc_int.h) is the caller's.
 *
 * Results are ints: KC_STORE_OK, one of the KC_STORE_* codes below (LMDB's own numbers; kc_lmdb.c
 * checks at compile time that they match) or an errno value. kc__store_strerror names any of
 * them, kc__store_hint adds what a cache user should know for a few.
 */
#ifndef HIPDNN_KC_STORE_H
#define HIPDNN_KC_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The tables, by index. */
enum { KC_DBI_KERNEL, KC_DBI_PLAN, KC_DBI_ATIME, KC_N_DBI };

#define KC_STORE_OK 0
#define KC_STORE_NOTFOUND (-30798)       /* no such key; the end of a cursor walk */
#define KC_STORE_CORRUPTED (-30796)      /* a page LMDB found damaged */
#define KC_STORE_PANIC (-30795)          /* the store is unusable (also: no store open) */
#define KC_STORE_MAP_FULL (-30792)       /* the map has no room left */
#define KC_STORE_READERS_FULL (-30790)   /* every reader slot is taken */
#define KC_STORE_MAP_RESIZED (-30785)    /* another process grew the map: adopt it, then retry */

/* Table flags in data.mdb's tree records (kc_file.c checks the main tree has neither). */
#define KC_STORE_DUPSORT 0x04
#define KC_STORE_INTEGERKEY 0x08

typedef struct kc_store kc_store;
typedef struct kc_txn kc_txn;
typedef struct kc_cursor kc_cursor;

/* A key or value: bytes, not owned. */
typedef struct kc_val {
    size_t size;
    const void *data;
} kc_val;

typedef struct kc_store_opts {
    bool read_only;      /* no writes; the tables are not created (kc__store_has_tables) */
    bool no_lock;        /* without lock.mdb: only for a store no other process may open */
    bool no_sync;        /* commits are not synced (kc__store_sync syncs) */
    bool single_file;    /* `path` is the data file itself, not a directory holding data.mdb */
    uint64_t map_bytes;  /* the map size to start with; 0: the file's own (or LMDB's default) */
} kc_store_opts;

/* Opens the store at `path` (a directory with data.mdb and lock.mdb, created mode 0600), then its
 * tables, then clears the reader slots of dead processes (unless no_lock). Every store is opened
 * MDB_NOTLS (read transactions are not tied to threads) and MDB_NOMETASYNC (one fsync a commit).
 * On failure *out is NULL and *call names the step that failed ("mdb_env_create",
 * "mdb_env_set_mapsize", "mdb_env_open", "opening the tables"). */
int kc__store_open(const char *path, const kc_store_opts *o, kc_store **out, const char **call);
/* Closes a store (NULL: nothing); every transaction must have ended. */
void kc__store_close(kc_store *s);
/* False for a read-only store whose file holds none of our tables (it reads as empty), or NULL. */
bool kc__store_has_tables(const kc_store *s);

int kc__store_txn_begin(kc_store *s, bool write, kc_txn **txn);
/* Commit or abort ends the transaction (a failed commit too). */
int kc__store_txn_commit(kc_txn *txn);
void kc__store_txn_abort(kc_txn *txn);
/* The transaction's number: a read transaction reads meta page (id & 1). */
uint64_t kc__store_txn_id(const kc_txn *txn);

int kc__store_get(kc_txn *txn, int table, const kc_val *key, kc_val *val);
int kc__store_put(kc_txn *txn, int table, const kc_val *key, const kc_val *val);
/* KC_STORE_NOTFOUND when the key is absent. */
int kc__store_del(kc_txn *txn, int table, const kc_val *key);

/* A walk over a table in key order: the first record (first true) or the next one;
 * KC_STORE_NOTFOUND past the last. */
int kc__store_cursor_open(kc_txn *txn, int table, kc_cursor **cur);
int kc__store_cursor_get(kc_cursor *cur, bool first, kc_val *key, kc_val *val);
void kc__store_cursor_close(kc_cursor *cur);

/* The pages a table occupies (branch, leaf and overflow) and the page size. */
int kc__store_table_pages(kc_txn *txn, int table, uint64_t *pages, uint64_t *psize);
/* The map's size and (used, optional) its part up to the last page, in bytes. No transaction of
 * this process may be resizing the map meanwhile. */
int kc__store_map_info(kc_store *s, uint64_t *size, uint64_t *used);
/* Sets the map size (0: adopt the size another process set); no transaction of this process may
 * be open. */
int kc__store_set_map_size(kc_store *s, uint64_t bytes);
/* Frees the reader slots of dead processes; *dead counts them. */
int kc__store_reader_check(kc_store *s, int *dead);
/* Flushes everything committed to disk. */
int kc__store_sync(kc_store *s);

/* What a result means ("MDB_MAP_FULL: Environment mapsize limit reached", strerror for errno). */
const char *kc__store_strerror(int rc);
/* " (the cache is at its size limit)" and such for a few results; "" for the rest. */
const char *kc__store_hint(int rc);

#endif
