/* kc_int.h — private to cache/: the environment shared by handles, the record codec, the
 * in-memory front, transactions and the write path.
 *
 * Locks (never taken in the other order):
 *   txn_lock (rwlock): every store transaction of this process holds it shared; resizing the
 *       map (kc__store_set_map_size needs no transaction open in the process) holds it exclusive.
 *   mu (mutex): the front, the pending last-used times and the counters.
 * The registry lock (kc_env.c) is taken only to open and close environments.
 * The files call each other in layers, never in a cycle (cache/README.md, "Layers"): kc_env.c
 * on top, kc_lmdb.c (the store, kc_store.h: the only file with lmdb.h) at the bottom.
 */
#ifndef HIPDNN_KC_INT_H
#define HIPDNN_KC_INT_H

#include <limits.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "base/base.h"
#include "cache/kc.h"
#include "cache/kc_store.h"

/* A record's last-used time is rewritten only when it is older than this (seconds), and
 * rewrites are batched: written with the next write, or once this many are pending. */
#define KC_TOUCH_INTERVAL_S 60
/* Room for one reason in a message. */
#define KC_WHY_MAX 256
#define KC_TOUCH_BATCH 32

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
/* The plan key a record that passed kc__plan_check stores; knobs: KC_MAX_KNOBS values. */
void kc__plan_key_of(const uint8_t *d, kc_plan_key *pk, int64_t *knobs);
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

/* ---- environments (opened by kc_env.c, used through kc_txn.c) ----------------------------- */
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
    kc_store *store;                /* NULL in memory mode (or after a failed repair) */
    bool no_sync;                   /* kc_options.no_sync, for reopening after a repair */
    bool have_tables;               /* false: a read-only environment without our tables
                                     * (kc__store_has_tables, kept here: read without txn_lock) */
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
    char note[2 * KC_WHY_MAX + 256];  /* what the open repaired (kc_open_note), or "" */
};

/* ---- fault injection (kc_fault.c; tests only) ---------------------------------------------
 * kc_test_fault_at(nth, damage): the nth LMDB call from now that goes through kc__fault fails
 * with the error it passes (damage: the nth record read from LMDB, kc__fault_damage, comes back
 * with a byte changed); 0 switches it off. kc_test_faults counts the faults injected so far,
 * kc_test_fault_error gives the last one's error (0 for a damaged read). */
void kc_test_fault_at(long nth, bool damage);
long kc_test_faults(void);
int kc_test_fault_error(void);
/* err when this call is the one to fail, else KC_STORE_OK. */
int kc__fault(int err);
bool kc__fault_damage(void);
/* kc__store_get / kc__store_put of the record paths, through kc__fault. */
int kc__get(kc_txn *txn, int table, const kc_val *key, kc_val *val);
int kc__put(kc_txn *txn, int table, const kc_val *key, const kc_val *val);

/* ---- an open environment (kc_txn.c) ------------------------------------------------------------ */

/* Current time in unix seconds (tests may replace the clock). */
int64_t kc__now(void);
extern int64_t (*kc_test_clock)(void);
/* Transactions: begin takes txn_lock shared and handles KC_STORE_MAP_RESIZED (adopts the new
 * map) and KC_STORE_READERS_FULL (clears readers of dead processes, retries once); commit and
 * abort release it. They return store codes (kc_store.h). */
int kc__txn_begin(kc_env *e, bool write, kc_txn **txn);
int kc__txn_commit(kc_env *e, kc_txn *txn);
void kc__txn_abort(kc_env *e, kc_txn *txn);
/* Grows the map to at least `want` bytes (not above max_bytes, unless the map is already
 * larger); returns a store code. */
int kc__grow(kc_env *e, uint64_t want);
/* Raises a store failure: "kernel cache DIR: CALL failed: REASON". */
hipdnnStatus_t kc__store_fail(const kc_env *e, const char *call, int rc);
/* Logs a store failure of an advisory path (a lookup) at WARN. */
void kc__store_warn(const kc_env *e, const char *call, int rc);
bool kc__writable(const kc_cache *c);
uint64_t kc__map_size(kc_env *e);
/* The map's size and its used part (up to the last page), in bytes. */
void kc__map_info(kc_env *e, uint64_t *size, uint64_t *used);
/* For a repair, with txn_lock held exclusively: close the store (returning its map size) and
 * open it again read-write (a store code; on failure e->store stays NULL and transactions
 * fail). */
uint64_t kc__env_detach(kc_env *e);
int kc__env_attach(kc_env *e);

/* ---- the default directory (kc_default.c) --------------------------------------------------- */

/* mkdir -p giving every directory it creates mode 0700; 0 or an errno. */
int kc__mkdirs(const char *dir);

/* ---- opening a directory's environment (kc_mode.c) ----------------------------------------- */

/* What the open found wrong: why (when it fails), note (what a repair did), loud (worth a
 * warning even for a read-only open). */
typedef struct kc_open_report {
    char why[PATH_MAX + 2 * KC_WHY_MAX];
    char *note;
    size_t note_size;
    bool loud;
} kc_open_report;
/* Chooses the mode and opens e (e->mode set); false (r->why) when no LMDB mode works. */
bool kc__open_lmdb(kc_env *e, const kc_options *o, kc_open_report *r);

/* ---- trust (kc_trust.c) ---------------------------------------------------------------------- */

/* May the directory (st: its stat) be used? False with why: not this user's, writable by group
 * or others, or lock.mdb / data.mdb a link, not a regular file, or not this user's. */
bool kc__trusted(const char *dir, const struct stat *st, char *why, size_t why_size);

/* ---- repairs (kc_repair.c) ------------------------------------------------------------------- */

/* LMDB's exclusive lock on dir/lock.mdb (F_SETLK, no wait): 0 (*fd to close; -1 when there is
 * no lock file), EAGAIN when another process has the cache open, or an errno. */
int kc__excl_lock(const char *dir, int *fd);
/* Moves a damaged dir/data.mdb aside, holding the exclusive lock and checking the file once
 * more under it (a check made while another process wrote can be wrong): MOVED (note says
 * where), SOUND (not damaged after all: nothing done), FAILED (note says why not). */
typedef enum kc_quarantine { KC_Q_MOVED, KC_Q_SOUND, KC_Q_FAILED } kc_quarantine;
kc_quarantine kc__quarantine(const char *dir, const char *damage, char *note, size_t note_size);
/* The environment a rebuild fills; records go in with these (store codes). kc__sink_atime keeps
 * a last-used time only when its record was kept (*kept). */
typedef struct kc_sink kc_sink;
int kc__sink_put(kc_sink *s, kc_table t, const uint8_t *key, const void *val, size_t len);
int kc__sink_atime(kc_sink *s, const uint8_t *key, size_t klen, const void *val, size_t vlen, bool *kept);
typedef hipdnnStatus_t (*kc_fill_fn)(void *ctx, kc_sink *s);
/* Rebuilds data.mdb from what `fill` puts, and swaps it in (protocol in kc_repair.c). Fails,
 * changing nothing, when another process has the cache open. */
hipdnnStatus_t kc__rebuild(kc_env *e, kc_fill_fn fill, void *ctx);

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
int kc__scan(kc_txn *txn, kc_cand **out, size_t *n);
/* Deletes a record, its last-used time, and its front entry. */
int kc__delete(kc_env *e, kc_txn *txn, kc_table t, const kc_key *key);
/* Writes the pending last-used times whose records exist; a store code. */
int kc__touch_apply(kc_env *e, kc_txn *txn);
/* The stored last-used time of a record; 0 if none. */
int64_t kc__last_used(kc_txn *txn, kc_table t, const kc_key *key);
/* Queues a last-used time (mu held). */
void kc__touch_queue(kc_env *e, kc_table t, const kc_key *key, int64_t when);
/* The last-used key: the table byte then the record key. */
void kc__atime_key(kc_table t, const kc_key *key, uint8_t out[1 + KC_KEY_SIZE]);

/* ---- data.mdb without LMDB (kc_file.c: meta pages, reads; kc_walk.c; kc_check.c: the open check) */

#define KC_PAGEHDRSZ 16
#define KC_P_BRANCH 0x01
#define KC_P_LEAF 0x02
#define KC_P_OVERFLOW 0x04
#define KC_P_META 0x08
#define KC_P_LEAF2 0x20
#define KC_P_SUBP 0x40
#define KC_DB_SIZE 48            /* a tree record (in a meta page, or a table in the main tree) */
#define KC_DB_ROOT 40            /* its root page number */
#define KC_NO_PAGE UINT64_MAX    /* an empty tree's root */

typedef struct kc_meta {
    uint32_t psize;
    uint64_t mapsize, last_pg, txnid;
    uint64_t free_root, main_root;
} kc_meta;

typedef struct kc_file {
    int fd;
    uint64_t size, pages;        /* bytes, whole pages */
    kc_meta meta;                /* the meta page LMDB would open (the higher txnid) */
} kc_file;

typedef enum kc_file_state {
    KC_FILE_OK,                  /* LMDB may map it (or the layout is unknown here: not checked) */
    KC_FILE_EMPTY,               /* 0 bytes: LMDB starts it afresh */
    KC_FILE_ABSENT,
    KC_FILE_UNREADABLE,          /* open/fstat failed (why: strerror) */
    KC_FILE_FOREIGN,             /* LMDB's development data version (999): LMDB refuses it itself */
    KC_FILE_DAMAGED,             /* why says how */
} kc_file_state;

/* Native loads (LMDB's file is in the host's byte order). */
uint16_t kc__u16(const uint8_t *p);
uint32_t kc__u32(const uint8_t *p);
uint64_t kc__u64(const uint8_t *p);
/* True on 64-bit little-endian hosts, the layout kc_file.c knows; elsewhere nothing is checked. */
bool kc__file_layout_known(void);
/* Opens a data file (O_NOFOLLOW, never mapped) and reads its meta pages. f->fd is -1 unless
 * the state is OK, EMPTY, FOREIGN or DAMAGED; kc__file_close in every case. */
kc_file_state kc__file_open(const char *path, kc_file *f, char *why, size_t why_size);
void kc__file_close(kc_file *f);
/* Meta page `slot` (0 or 1), read until two reads agree; false when it is unreadable or bad. */
bool kc__file_meta_slot(kc_file *f, int slot, kc_meta *out);
/* len bytes at byte `offset` of page pgno; false on a short read. */
bool kc__file_read(kc_file *f, uint64_t pgno, uint64_t offset, void *buf, size_t len);
/* The check before LMDB maps dir/data.mdb: both meta pages, the main tree and our tables' root
 * pages; when the file is shorter than its last page, every tree, for a page past the end.
 * Damage seen while another process committed is looked at again (nothing protects the pages
 * read from reuse). DAMAGED (why) or OK (also for a missing, empty or foreign file: LMDB
 * handles those). */
kc_file_state kc__data_check(const char *dir, char *why, size_t why_size);

/* The trees kc__walk reports on: our tables by KC_DBI_* index, and these. */
enum { KC_WALK_T_MAIN = -2, KC_WALK_T_FREE = -1 };
#define KC_WALK_FREE (1u << KC_N_DBI)
#define KC_WALK_ALL (((1u << KC_N_DBI) - 1) | KC_WALK_FREE)

typedef struct kc_walk_ops {
    unsigned tables;  /* trees walked in full (1 << KC_DBI_*, KC_WALK_FREE); the others' root
                       * pages only. The main tree always. */
    bool values;      /* hand every record of a walked table to `record` */
    /* A record; its value lives until the call returns. Nonzero stops the walk (returned). */
    int (*record)(void *ctx, int table, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen);
    /* A damaged page of tree `table`; the walk skips it and what lies below it. */
    void (*damage)(void *ctx, int table, uint64_t pgno, const char *why);
    void *ctx;
} kc_walk_ops;

/* Walks the trees of meta page m. Returns 0, ENOMEM, or what ops->record returned. */
int kc__walk(kc_file *f, const kc_meta *m, const kc_walk_ops *ops);
/* "the kernels table", "the free-page list", ... */
const char *kc__walk_table_name(int table);

#endif
