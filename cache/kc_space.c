/* kc_space.c — the LMDB write path: storing records, last-used times, map growth and
 * least-recently-used eviction.
 *
 * Owns the third table, "last_used": key = table byte + record key, value = unix seconds
 * (8 bytes, little-endian). A record's time is written when it is stored and, on use, only
 * when the stored one is older than KC_TOUCH_INTERVAL_S; those uses are queued and written
 * with the next write transaction (or by kc_flush), so reads stay read-only transactions.
 *
 * Space: the map grows (double, or what a write needs) while it is below max_bytes
 * (with no transaction of this process open: kc__grow). The live pages of
 * the tables are kept under 3/4 of max_bytes: a write that would pass that first deletes the
 * least recently used records down to 5/8, in a transaction of its own (details at "making
 * room" below). Large writes (imports) are split into transactions of at most CHUNK_BYTES.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cache/kc_int.h"

#define CHUNK_BYTES (64ull << 20)
#define MAX_ROUNDS 10

static int table_of(kc_table t) { return t == KC_TABLE_KERNEL ? KC_DBI_KERNEL : KC_DBI_PLAN; }

void kc__atime_key(kc_table t, const kc_key *key, uint8_t out[1 + KC_KEY_SIZE])
{
    out[0] = (uint8_t)t;
    memcpy(out + 1, key->b, KC_KEY_SIZE);
}

static int put_atime(kc_txn *txn, kc_table t, const kc_key *key, int64_t when)
{
    uint8_t k[1 + KC_KEY_SIZE], v[8];
    kc__atime_key(t, key, k);
    kc__put64(v, (uint64_t)when);
    kc_val mk = {sizeof k, k}, mv = {sizeof v, v};
    return kc__put(txn, KC_DBI_ATIME, &mk, &mv);
}

/* ---- pending last-used times ----------------------------------------------------------------- */

void kc__touch_queue(kc_env *e, kc_table t, const kc_key *key, int64_t when)
{
    for (size_t i = 0; i < e->n_touches; i++) {
        kc_touch *p = &e->touches[i];
        if (p->table == t && memcmp(p->key.b, key->b, KC_KEY_SIZE) == 0) {
            p->when = p->when > when ? p->when : when;
            return;
        }
    }
    if (e->n_touches == e->cap_touches) {
        size_t cap = e->cap_touches == 0 ? KC_TOUCH_BATCH : 2 * e->cap_touches;
        kc_touch *v = base_realloc(e->touches, cap * sizeof *v);
        if (v == NULL)
            return; /* a lost last-used time only makes eviction less exact */
        e->touches = v;
        e->cap_touches = cap;
    }
    if (e->n_touches == 0)
        e->touch_since = when;
    e->touches[e->n_touches++] = (kc_touch){.table = t, .key = *key, .when = when};
}

static void touches_take(kc_env *e, kc_touch **v, size_t *n)
{
    pthread_mutex_lock(&e->mu);
    *v = e->touches;
    *n = e->n_touches;
    e->touches = NULL;
    e->n_touches = e->cap_touches = 0;
    pthread_mutex_unlock(&e->mu);
}

static void touches_give_back(kc_env *e, kc_touch *v, size_t n)
{
    pthread_mutex_lock(&e->mu);
    for (size_t i = 0; i < n; i++)
        kc__touch_queue(e, v[i].table, &v[i].key, v[i].when);
    pthread_mutex_unlock(&e->mu);
    base_free(v);
}

static int apply_touches(kc_txn *txn, const kc_touch *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        kc_val k = {KC_KEY_SIZE, v[i].key.b}, d;
        int rc = kc__get(txn, table_of(v[i].table), &k, &d); /* a record evicted since: skip */
        if (rc == KC_STORE_OK)
            rc = put_atime(txn, v[i].table, &v[i].key, v[i].when);
        if (rc != KC_STORE_OK && rc != KC_STORE_NOTFOUND)
            return rc;
    }
    return KC_STORE_OK;
}

int kc__touch_apply(kc_env *e, kc_txn *txn)
{
    kc_touch *v;
    size_t n = 0;
    touches_take(e, &v, &n);
    int rc = apply_touches(txn, v, n);
    if (rc != KC_STORE_OK)
        touches_give_back(e, v, n);
    else
        base_free(v);
    return rc;
}

/* ---- scanning and deleting ------------------------------------------------------------------- */

static int cand_cmp(const void *a, const void *b)
{
    const kc_cand *x = a, *y = b;
    if (x->last_used != y->last_used)
        return x->last_used < y->last_used ? -1 : 1;
    if (x->table != y->table)
        return x->table < y->table ? -1 : 1;
    return memcmp(x->key.b, y->key.b, KC_KEY_SIZE);
}

int64_t kc__last_used(kc_txn *txn, kc_table t, const kc_key *key)
{
    uint8_t k[1 + KC_KEY_SIZE];
    kc__atime_key(t, key, k);
    kc_val mk = {sizeof k, k}, mv;
    if (kc__store_get(txn, KC_DBI_ATIME, &mk, &mv) != KC_STORE_OK || mv.size != 8)
        return 0;
    return (int64_t)kc__get64(mv.data);
}

static int scan_table(kc_txn *txn, kc_table t, kc_cand **v, size_t *n, size_t *cap)
{
    kc_cursor *cur = NULL;
    int rc = kc__store_cursor_open(txn, table_of(t), &cur);
    if (rc != KC_STORE_OK)
        return rc;
    kc_val k, d;
    for (bool first = true; rc == KC_STORE_OK; first = false) {
        if ((rc = kc__store_cursor_get(cur, first, &k, &d)) != KC_STORE_OK)
            break;
        if (k.size != KC_KEY_SIZE)
            continue; /* a foreign key: kc_verify reports it */
        if (*n == *cap) {
            size_t nc = *cap == 0 ? 256 : 2 * *cap;
            kc_cand *nv = base_realloc(*v, nc * sizeof *nv);
            if (nv == NULL) {
                rc = ENOMEM;
                break;
            }
            *v = nv;
            *cap = nc;
        }
        kc_cand *c = &(*v)[(*n)++];
        c->table = t;
        memcpy(c->key.b, k.data, KC_KEY_SIZE);
        c->size = d.size;
        c->last_used = kc__last_used(txn, t, &c->key);
    }
    kc__store_cursor_close(cur);
    return rc == KC_STORE_NOTFOUND ? KC_STORE_OK : rc;
}

int kc__scan(kc_txn *txn, kc_cand **out, size_t *n)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    int rc = scan_table(txn, KC_TABLE_KERNEL, out, n, &cap);
    if (rc == KC_STORE_OK)
        rc = scan_table(txn, KC_TABLE_PLAN, out, n, &cap);
    if (rc != KC_STORE_OK) {
        base_free(*out);
        *out = NULL;
        *n = 0;
        return rc;
    }
    if (*n > 1)
        qsort(*out, *n, sizeof **out, cand_cmp);
    return KC_STORE_OK;
}

int kc__delete(kc_env *e, kc_txn *txn, kc_table t, const kc_key *key)
{
    uint8_t ak[1 + KC_KEY_SIZE];
    kc__atime_key(t, key, ak);
    kc_val k = {KC_KEY_SIZE, key->b}, a = {sizeof ak, ak};
    int rc = kc__store_del(txn, table_of(t), &k);
    if (rc == KC_STORE_OK || rc == KC_STORE_NOTFOUND)
        rc = kc__store_del(txn, KC_DBI_ATIME, &a);
    pthread_mutex_lock(&e->mu);
    kc__front_remove(&e->front, t, key);
    pthread_mutex_unlock(&e->mu);
    return rc == KC_STORE_NOTFOUND ? KC_STORE_OK : rc;
}

/* ---- making room ----------------------------------------------------------------------------
 * LMDB reuses a freed page only once no reader can see it, and never in the transaction right
 * after the one that freed it; a transaction that finds no reusable page and no room fails,
 * deletes included. So the cache keeps its live pages (all three tables) under the fill limit
 * and evicts before a write would pass it, down to the eviction target; the free pages this
 * leaves let eviction itself always run. KC_STORE_MAP_FULL below the limit (fragmentation: no run of
 * free pages long enough for a large record) also evicts. Each eviction is followed by a
 * small "settle" commit so that the retried write can reuse the pages it freed. */

#define OVER_BUDGET (-30700) /* not a store code: the write would pass the fill limit */

static uint64_t fill_limit(const kc_env *e) { return e->max_bytes / 4 * 3; }
static uint64_t evict_target(const kc_env *e) { return e->max_bytes / 8 * 5; }

/* Pages of the three tables, in bytes. */
static uint64_t live_bytes(kc_txn *txn)
{
    uint64_t pages = 0, psize = 4096;
    for (int i = 0; i < KC_N_DBI; i++) {
        uint64_t p, size;
        if (kc__store_table_pages(txn, i, &p, &size) == KC_STORE_OK)
            pages += p, psize = size;
    }
    return pages * psize;
}

/* Bytes a record occupies: whole pages once it overflows a leaf. */
static uint64_t footprint(uint64_t size)
{
    return size > 2048 ? (size + 16 + 4095) / 4096 * 4096 + 64 : size + 64;
}

/* Commits a one-key write so the next transaction may reuse what the last one freed. */
static void settle(kc_env *e)
{
    kc_txn *txn = NULL;
    if (kc__txn_begin(e, true, &txn) != KC_STORE_OK)
        return;
    uint8_t k = 0, v[8];
    kc__put64(v, (uint64_t)kc__now());
    kc_val mk = {1, &k}, mv = {sizeof v, v};
    if (kc__store_put(txn, KC_DBI_ATIME, &mk, &mv) == KC_STORE_OK)
        kc__txn_commit(e, txn);
    else
        kc__txn_abort(e, txn);
}

/* Deletes least recently used records until about `target` bytes are free. KC_STORE_MAP_FULL when
 * there is nothing left to delete, or no page to delete with. */
static int evict_once(kc_env *e, uint64_t target, const kc_touch *tv, size_t tn, const char **call)
{
    kc_txn *txn = NULL;
    *call = "mdb_txn_begin (eviction)";
    int rc = kc__txn_begin(e, true, &txn);
    if (rc != KC_STORE_OK)
        return rc;
    kc_cand *v = NULL;
    size_t n = 0, i = 0;
    uint64_t freed = 0;
    *call = "scanning for eviction";
    rc = apply_touches(txn, tv, tn); /* the latest uses count */
    if (rc == KC_STORE_OK)
        rc = kc__scan(txn, &v, &n);
    *call = "mdb_del (eviction)";
    for (; rc == KC_STORE_OK && i < n && freed < target; i++) {
        rc = kc__delete(e, txn, v[i].table, &v[i].key);
        freed += footprint(v[i].size);
    }
    base_free(v);
    if (rc == KC_STORE_OK && i == 0)
        rc = KC_STORE_MAP_FULL;
    if (rc != KC_STORE_OK) {
        kc__txn_abort(e, txn);
        return rc;
    }
    *call = "mdb_txn_commit (eviction)";
    if ((rc = kc__txn_commit(e, txn)) != KC_STORE_OK)
        return rc;
    settle(e);
    pthread_mutex_lock(&e->mu);
    e->n.evicted += i;
    pthread_mutex_unlock(&e->mu);
    base_log(HIPDNN_SEV_INFO, "kernel cache %s: at its limit of %llu bytes; evicted the %zu least recently "
             "used records (about %llu bytes)", e->dir, (unsigned long long)e->max_bytes, i,
             (unsigned long long)freed);
    return KC_STORE_OK;
}

/* A map with no page left even for deleting: grow it if it may, else commit a settle (its
 * transaction may use pages the previous one freed), and try once more. */
static int evict(kc_env *e, uint64_t target, const kc_touch *tv, size_t tn, const char **call)
{
    int rc = evict_once(e, target, tv, tn, call);
    if (rc != KC_STORE_MAP_FULL)
        return rc;
    uint64_t cur = kc__map_size(e);
    if (cur < e->max_bytes)
        kc__grow(e, e->max_bytes);
    else
        settle(e);
    return evict_once(e, target, tv, tn, call);
}

/* After a write failed with `cause`: grow the map, or evict (more each round). */
static int make_room(kc_env *e, int cause, uint64_t need, uint64_t excess, int round, const kc_touch *tv,
                     size_t tn, const char **call)
{
    uint64_t cur = kc__map_size(e);
    if (cause == KC_STORE_MAP_FULL && cur < e->max_bytes) {
        uint64_t want = cur * 2 > cur + need ? cur * 2 : cur + need;
        *call = "mdb_env_set_mapsize";
        return kc__grow(e, want < e->max_bytes ? want : e->max_bytes);
    }
    uint64_t target = cause == OVER_BUDGET ? excess : need + e->max_bytes / 16;
    return evict(e, round < 20 ? target << round : UINT64_MAX, tv, tn, call);
}

static int put_rec(kc_txn *txn, const kc_rec *r, int64_t now)
{
    kc_val k = {KC_KEY_SIZE, r->key.b}, d = {r->len, r->data};
    int rc = kc__put(txn, table_of(r->table), &k, &d);
    return rc != KC_STORE_OK ? rc : put_atime(txn, r->table, &r->key, now);
}

/* One attempt. OVER_BUDGET (with *excess, the bytes to free) when the records would pass the
 * fill limit. */
static int try_write(kc_env *e, const kc_rec *recs, size_t n, uint64_t need, const kc_touch *tv, size_t tn,
                     uint64_t *excess, const char **call)
{
    kc_txn *txn = NULL;
    *call = "mdb_txn_begin";
    int rc = kc__txn_begin(e, true, &txn);
    if (rc != KC_STORE_OK)
        return rc;
    uint64_t live = n > 0 ? live_bytes(txn) : 0;
    if (n > 0 && live + need > fill_limit(e)) {
        kc__txn_abort(e, txn);
        *excess = live + need - evict_target(e); /* > 0: the fill limit is above the target */
        return OVER_BUDGET;
    }
    int64_t now = kc__now();
    *call = "mdb_put";
    for (size_t i = 0; i < n && rc == KC_STORE_OK; i++)
        rc = put_rec(txn, &recs[i], now);
    if (rc == KC_STORE_OK) {
        *call = "writing last-used times";
        rc = apply_touches(txn, tv, tn);
    }
    if (rc != KC_STORE_OK) {
        kc__txn_abort(e, txn);
        return rc;
    }
    *call = "mdb_txn_commit";
    return kc__txn_commit(e, txn);
}

static hipdnnStatus_t write_chunk(kc_env *e, const kc_rec *recs, size_t n)
{
    uint64_t need = 0, excess = 0;
    for (size_t i = 0; i < n; i++)
        need += footprint(recs[i].len) + 64;
    kc_touch *tv = NULL;
    size_t tn = 0;
    touches_take(e, &tv, &tn);
    const char *call = "";
    int rc = KC_STORE_OK;
    for (int round = 0; round < MAX_ROUNDS; round++) {
        rc = try_write(e, recs, n, need, tv, tn, &excess, &call);
        if (rc != KC_STORE_MAP_FULL && rc != OVER_BUDGET)
            break;
        const char *room_call;
        int room = make_room(e, rc, need, excess, round, tv, tn, &room_call);
        if (room != KC_STORE_OK) {
            if (room != KC_STORE_MAP_FULL)
                call = room_call, rc = room;
            break;
        }
    }
    if (rc != KC_STORE_OK) {
        touches_give_back(e, tv, tn);
        if (rc == OVER_BUDGET)
            return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "kernel cache %s: %llu bytes do not fit under the "
                             "cache's fill limit (3/4 of %llu bytes) even after eviction", e->dir,
                             (unsigned long long)need, (unsigned long long)e->max_bytes);
        return kc__store_fail(e, call, rc);
    }
    base_free(tv);
    pthread_mutex_lock(&e->mu);
    e->n.puts += n;
    pthread_mutex_unlock(&e->mu);
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t kc__write(kc_env *e, const kc_rec *recs, size_t n)
{
    if (n == 0) /* only the pending last-used times; recs may be NULL (no offset applied to it) */
        return write_chunk(e, NULL, 0);
    size_t i = 0;
    do {
        size_t j = i;
        uint64_t bytes = 0;
        while (j < n && (j == i || bytes + recs[j].len <= CHUNK_BYTES))
            bytes += recs[j++].len;
        hipdnnStatus_t st = write_chunk(e, recs + i, j - i);
        if (st != HIPDNN_STATUS_SUCCESS)
            return st;
        i = j;
    } while (i < n);
    return HIPDNN_STATUS_SUCCESS;
}
