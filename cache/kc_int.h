/* kc_int.h — private to cache/: the environment shared by handles, the record codec, the
 * in-memory front, transactions and the write path.
 *
 * Locks (never taken in the other order):
 *   txn_lock (rwlock): every LMDB transaction of this process holds it shared; resizing the
 *       map (mdb_env_set_mapsize needs no transaction open in the process) holds it exclusive.
 *   mu (mutex): the front, the pending last-used times and the counters.
 * The registry lock (kc_env.c) is taken only to open and close environments.
 */
#ifndef HIPDNN_KC_INT_H
#define HIPDNN_KC_INT_H

#include <lmdb.h>
#include <pthread.h>
#include <sys/types.h>

#include "base/base.h"
#include "cache/kc.h"

/* A record's last-used time is rewritten only when it is older than this (seconds), and
 * rewrites are batched: written with the next write, or once this many are pending. */
#define KC_TOUCH_INTERVAL_S 60
#define KC_TOUCH_BATCH 32

enum { KC_DBI_KERNEL, KC_DBI_PLAN, KC_DBI_ATIME, KC_N_DBI };

/* ---- records (kc_record.c) --------------------------------------------------------------------
 * An encoded record as stored under `key` in the table's LMDB database. */
typedef struct kc_rec {
    kc_table table;
    kc_key key;
    const uint8_t *data;
    size_t len;
} kc_rec;

/* Encodes a kernel (checks every field first: BAD_PARAM naming it) into *out (base_free). */
hipdnnStatus_t kc__kernel_encode(const kc_kernel *k, int64_t created, uint8_t **out, size_t *len);
hipdnnStatus_t kc__plan_encode(const kc_plan_key *pk, const kc_plan *p, int64_t created,
                               uint8_t **out, size_t *len);
/* Checks a stored record against its key: NULL when valid, else a static reason. `hash_code`
 * false skips the code checksum (records the front already checked). `view` (optional)
 * receives pointers into `d`. kc__plan_check compares the stored plan key with `pk` unless
 * it is NULL. */
const char *kc__kernel_check(const uint8_t *d, size_t len, const kc_key *key, bool hash_code,
                             kc_kernel *view);
const char *kc__plan_check(const uint8_t *d, size_t len, const kc_key *key, const kc_plan_key *pk,
                           kc_plan *view);
const char *kc__rec_check(kc_table t, const uint8_t *d, size_t len, const kc_key *key);
const char *kc__table_name(kc_table t);

/* Little-endian fields. */
void kc__put16(uint8_t *p, uint16_t v);
void kc__put32(uint8_t *p, uint32_t v);
void kc__put64(uint8_t *p, uint64_t v);
uint16_t kc__get16(const uint8_t *p);
uint32_t kc__get32(const uint8_t *p);
uint64_t kc__get64(const uint8_t *p);

/* ---- the in-memory front (kc_front.c): a bounded LRU hash map of validated records -------- */
typedef struct kc_fent {
    kc_table table;
    kc_key key;
    uint8_t *data;
    size_t len;
    int64_t last_used;                 /* as last read or written to LMDB (or now) */
    struct kc_fent *hnext;             /* hash chain */
    struct kc_fent *newer, *older;     /* LRU list */
} kc_fent;

typedef struct kc_front {
    kc_fent **buckets;
    size_t n_buckets, count;
    kc_fent *newest, *oldest;
    uint64_t bytes, max_bytes;
} kc_front;

void kc__front_init(kc_front *f, uint64_t max_bytes);
void kc__front_free(kc_front *f);
/* Finds an entry and makes it the newest; NULL if absent. */
kc_fent *kc__front_find(kc_front *f, kc_table t, const kc_key *key);
/* Stores a copy of `data` (replacing an entry of the same key), then drops the oldest entries
 * while over max_bytes; *dropped (optional) counts them. False (nothing stored) when the
 * record alone exceeds max_bytes or on allocation failure. */
bool kc__front_put(kc_front *f, kc_table t, const kc_key *key, const uint8_t *data, size_t len,
                   int64_t last_used, uint64_t *dropped);
void kc__front_remove(kc_front *f, kc_table t, const kc_key *key);

/* ---- environments (kc_env.c) --------------------------------------------------------------- */
typedef struct kc_touch {
    kc_table table;
    kc_key key;
    int64_t when;
} kc_touch;

typedef struct kc_counters {
    uint64_t hits, front_hits, misses, corrupt, lmdb_reads, puts, evicted, grown;
} kc_counters;

typedef struct kc_env {
    char *dir;                      /* "" in memory mode */
    dev_t dev;
    ino_t ino;
    int refs;                       /* handles (registry lock) */
    kc_mode mode;
    uint64_t max_bytes;
    MDB_env *mdb;                   /* NULL in memory mode */
    MDB_dbi dbi[KC_N_DBI];
    bool have_tables;               /* false: a read-only environment without our tables */
    pthread_rwlock_t txn_lock;
    pthread_mutex_t mu;
    kc_front front;
    kc_touch *touches;              /* pending last-used times */
    size_t n_touches, cap_touches;
    int64_t touch_since;            /* when the oldest pending one was queued */
    kc_counters n;
    struct kc_env *next;            /* registry */
} kc_env;

struct kc_cache {
    kc_env *env;
    bool read_only;                 /* this handle never writes LMDB */
};

/* Current time in unix seconds (tests may replace the clock). */
int64_t kc__now(void);
extern int64_t (*kc_test_clock)(void);

/* Transactions: begin takes txn_lock shared and handles MDB_MAP_RESIZED (adopts the new map)
 * and MDB_READERS_FULL (clears readers of dead processes, retries once); commit and abort
 * release it. They return LMDB codes. */
int kc__txn_begin(kc_env *e, bool write, MDB_txn **txn);
int kc__txn_commit(kc_env *e, MDB_txn *txn);
void kc__txn_abort(kc_env *e, MDB_txn *txn);
/* Grows the map to at least `want` bytes (not above max_bytes, unless the map is already
 * larger); returns an LMDB code. */
int kc__grow(kc_env *e, uint64_t want);
/* Raises an LMDB failure: "kernel cache DIR: CALL: REASON". */
hipdnnStatus_t kc__mdb_fail(const kc_env *e, const char *call, int rc);
/* Logs an LMDB failure of an advisory path (a lookup) at WARN. */
void kc__mdb_warn(const kc_env *e, const char *call, int rc);
bool kc__writable(const kc_cache *c);
/* mkdir -p giving every directory it creates mode 0700; 0 or an errno. */
int kc__mkdirs(const char *dir);
uint64_t kc__map_size(kc_env *e);
/* The map's size and its used part (up to the last page), in bytes. */
void kc__map_info(kc_env *e, uint64_t *size, uint64_t *used);

/* ---- the write path (kc_space.c) ------------------------------------------------------------ */

/* Stores records (and their last-used time `now`) in LMDB in as few transactions as fit,
 * with pending last-used times; grows the map, then evicts least-recently-used records, when
 * it is full. */
hipdnnStatus_t kc__write(kc_env *e, const kc_rec *recs, size_t n);
/* A record as eviction and pruning see it. */
typedef struct kc_cand {
    kc_table table;
    kc_key key;
    uint64_t size;
    int64_t last_used;
} kc_cand;
/* Every record of both tables with its size and last-used time, oldest first. */
int kc__scan(kc_env *e, MDB_txn *txn, kc_cand **out, size_t *n);
/* Deletes a record, its last-used time, and its front entry. */
int kc__delete(kc_env *e, MDB_txn *txn, kc_table t, const kc_key *key);
/* Writes the pending last-used times whose records exist; an LMDB code. */
int kc__touch_apply(kc_env *e, MDB_txn *txn);
/* The stored last-used time of a record; 0 if none. */
int64_t kc__last_used(kc_env *e, MDB_txn *txn, kc_table t, const kc_key *key);
/* Queues a last-used time (mu held). */
void kc__touch_queue(kc_env *e, kc_table t, const kc_key *key, int64_t when);
/* The last-used key: the table byte then the record key. */
void kc__atime_key(kc_table t, const kc_key *key, uint8_t out[1 + KC_KEY_SIZE]);

#endif
