/* kc_table.c — storing and looking up kernels and plans.
 *
 * A lookup tries the front, then LMDB (one read-only transaction; the record is copied out
 * and the transaction ends before it is checked). A record read from LMDB is checked in full
 * (kc_record.c), including the code checksum; a bad one is a miss, counted as corrupt and
 * logged, and stays until it is overwritten or kc_verify(fix) deletes it. A good one enters
 * the front, so the next lookup of it in this process does not touch LMDB. Uses queue
 * last-used times (kc_space.c); they are written once KC_TOUCH_BATCH are pending or the
 * oldest has waited KC_TOUCH_INTERVAL_S, with the next write, or at kc_close / kc_flush.
 * A put writes LMDB (when the handle may) and the front. Results are private copies.
 * kc_peek_*: the maintenance reads (a record by key, checked in full, no use noted).
 */
#include <string.h>

#include "cache/kc_int.h"

static void count(kc_env *e, uint64_t *field)
{
    pthread_mutex_lock(&e->mu);
    (*field)++;
    pthread_mutex_unlock(&e->mu);
}

/* Whether a record last used at `last_used` is due a new last-used time at `now`. last_used comes
 * from the file and may be any value a damaged record holds: compared, never subtracted from. */
static bool touch_due(int64_t now, int64_t last_used) { return last_used <= now - KC_TOUCH_INTERVAL_S; }

/* Writes pending last-used times when enough are pending, or the oldest has waited. */
static void maybe_flush(kc_cache *c, int64_t now)
{
    kc_env *e = c->env;
    pthread_mutex_lock(&e->mu);
    bool due = e->n_touches >= KC_TOUCH_BATCH ||
               (e->n_touches > 0 && now - e->touch_since >= KC_TOUCH_INTERVAL_S);
    pthread_mutex_unlock(&e->mu);
    if (due)
        kc__write(e, NULL, 0);
}

/* The front's copy of a record, noting the use. */
static uint8_t *front_get(kc_cache *c, kc_table t, const kc_key *key, int64_t now, size_t *len,
                          int64_t *last_used)
{
    kc_env *e = c->env;
    pthread_mutex_lock(&e->mu);
    kc_fent *f = kc__front_find(&e->front, t, key);
    uint8_t *copy = f != NULL ? base_memdup(f->data, f->len) : NULL;
    if (copy != NULL) {
        *len = f->len;
        *last_used = f->last_used;
        if (e->mode == KC_MODE_MEMORY) {
            f->last_used = now;
        } else if (kc__writable(c) && touch_due(now, f->last_used)) {
            f->last_used = now;
            kc__touch_queue(e, t, key, now);
        }
    }
    pthread_mutex_unlock(&e->mu);
    return copy;
}

/* LMDB's copy of a record and its last-used time; NULL when absent or unreadable. */
static uint8_t *lmdb_get(kc_env *e, kc_table t, const kc_key *key, size_t *len, int64_t *last_used)
{
    if (e->store == NULL || !e->have_tables)
        return NULL;
    kc_txn *txn = NULL;
    int rc = kc__txn_begin(e, false, &txn);
    if (rc != KC_STORE_OK) {
        kc__store_warn(e, "mdb_txn_begin (lookup)", rc);
        return NULL;
    }
    kc_val k = {KC_KEY_SIZE, key->b}, d;
    uint8_t *copy = NULL;
    rc = kc__get(txn, t == KC_TABLE_KERNEL ? KC_DBI_KERNEL : KC_DBI_PLAN, &k, &d);
    if (rc == KC_STORE_OK && (copy = base_malloc(d.size > 0 ? d.size : 1)) != NULL) {
        memcpy(copy, d.data, d.size);
        if (d.size > 0 && kc__fault_damage())
            copy[d.size / 2] ^= 0x5a;
        *len = d.size;
        *last_used = kc__last_used(txn, t, key);
    } else if (rc != KC_STORE_OK && rc != KC_STORE_NOTFOUND) {
        kc__store_warn(e, "mdb_get", rc);
    }
    kc__txn_abort(e, txn);
    count(e, &e->n.lmdb_reads);
    return copy;
}

static bool miss(kc_env *e, kc_table t, const kc_key *key, uint8_t *d, const char *why)
{
    if (why != NULL) {
        char hex[2 * KC_KEY_SIZE + 1];
        kc_key_hex(key, hex);
        base_log(HIPDNN_SEV_WARN, "kernel cache %s: %s record %s is corrupt (%s); treated as a miss",
                 e->dir[0] != '\0' ? e->dir : "(memory)", kc__table_name(t), hex, why);
        pthread_mutex_lock(&e->mu);
        e->n.corrupt++;
        kc__front_remove(&e->front, t, key);
        pthread_mutex_unlock(&e->mu);
    }
    base_free(d);
    count(e, &e->n.misses);
    return false;
}

/* A record just read from LMDB enters the front; its use is queued if its time is stale. */
static void remember(kc_cache *c, kc_table t, const kc_key *key, const uint8_t *d, size_t len,
                     int64_t last_used, int64_t now)
{
    kc_env *e = c->env;
    pthread_mutex_lock(&e->mu);
    bool touch = kc__writable(c) && touch_due(now, last_used);
    kc__front_put(&e->front, t, key, d, len, touch ? now : last_used, NULL);
    if (touch)
        kc__touch_queue(e, t, key, now);
    e->n.hits++;
    pthread_mutex_unlock(&e->mu);
}

/* Front, then LMDB. *from_lmdb: the record came from LMDB and needs the full check. */
static uint8_t *fetch(kc_cache *c, kc_table t, const kc_key *key, int64_t now, size_t *len,
                      int64_t *last_used, bool *from_lmdb)
{
    *from_lmdb = false;
    uint8_t *d = front_get(c, t, key, now, len, last_used);
    if (d == NULL && c->env->mode != KC_MODE_MEMORY) {
        d = lmdb_get(c->env, t, key, len, last_used);
        *from_lmdb = d != NULL;
    }
    return d;
}

static void hit(kc_cache *c, kc_table t, const kc_key *key, const uint8_t *d, size_t len,
                int64_t last_used, int64_t now, bool from_lmdb)
{
    kc_env *e = c->env;
    if (from_lmdb) {
        remember(c, t, key, d, len, last_used, now);
    } else {
        pthread_mutex_lock(&e->mu);
        e->n.hits++;
        e->n.front_hits++;
        pthread_mutex_unlock(&e->mu);
    }
    if (kc__writable(c))
        maybe_flush(c, now);
}

bool kc_get_kernel(kc_cache *c, const kc_key *key, kc_kernel *out)
{
    if (out != NULL)
        memset(out, 0, sizeof *out);
    if (c == NULL || key == NULL || out == NULL)
        return false;
    int64_t now = kc__now(), last_used = 0;
    size_t len = 0;
    bool from_lmdb;
    uint8_t *d = fetch(c, KC_TABLE_KERNEL, key, now, &len, &last_used, &from_lmdb);
    kc_kernel view;
    const char *why = d != NULL ? kc__kernel_check(d, len, key, from_lmdb, &view) : NULL;
    if (d == NULL || why != NULL)
        return miss(c->env, KC_TABLE_KERNEL, key, d, why);
    hit(c, KC_TABLE_KERNEL, key, d, len, last_used, now, from_lmdb);
    view.last_used = last_used;
    view.owned = d;
    *out = view;
    return true;
}

/* ---- maintenance reads: a record by its key, without noting a use ------------------------------ */

/* The front's copy, else LMDB's; nothing counted, no last-used time queued. */
static uint8_t *peek(kc_cache *c, kc_table t, const kc_key *key, size_t *len, int64_t *last_used)
{
    kc_env *e = c->env;
    pthread_mutex_lock(&e->mu);
    kc_fent *f = kc__front_find(&e->front, t, key);
    uint8_t *d = f != NULL ? base_memdup(f->data, f->len) : NULL;
    if (d != NULL)
        *len = f->len, *last_used = f->last_used;
    pthread_mutex_unlock(&e->mu);
    if (d == NULL && e->mode != KC_MODE_MEMORY)
        d = lmdb_get(e, t, key, len, last_used);
    return d;
}

bool kc_peek_kernel(kc_cache *c, const kc_key *key, kc_kernel *out)
{
    if (out != NULL)
        memset(out, 0, sizeof *out);
    if (c == NULL || key == NULL || out == NULL)
        return false;
    size_t len = 0;
    int64_t last_used = 0;
    uint8_t *d = peek(c, KC_TABLE_KERNEL, key, &len, &last_used);
    kc_kernel view;
    if (d == NULL || kc__kernel_check(d, len, key, true, &view) != NULL) {
        base_free(d);
        return false;
    }
    view.last_used = last_used;
    view.owned = d;
    *out = view;
    return true;
}

bool kc_peek_plan(kc_cache *c, const kc_key *key, kc_plan_key *pk, int64_t knobs[KC_MAX_KNOBS], kc_plan *out,
                  size_t *record_size)
{
    if (out != NULL)
        memset(out, 0, sizeof *out);
    if (c == NULL || key == NULL || pk == NULL || knobs == NULL || out == NULL || record_size == NULL)
        return false;
    size_t len = 0;
    int64_t last_used = 0;
    uint8_t *d = peek(c, KC_TABLE_PLAN, key, &len, &last_used);
    kc_plan view;
    if (d == NULL || kc__plan_check(d, len, key, NULL, &view) != NULL) {
        base_free(d);
        return false;
    }
    kc__plan_key_of(d, pk, knobs);
    view.last_used = last_used;
    view.owned = d;
    *out = view;
    *record_size = len;
    return true;
}

void kc_kernel_release(kc_kernel *k)
{
    if (k == NULL)
        return;
    base_free(k->owned);
    memset(k, 0, sizeof *k);
}

bool kc_get_plan(kc_cache *c, const kc_plan_key *pk, kc_plan *out)
{
    if (out != NULL)
        memset(out, 0, sizeof *out);
    if (c == NULL || pk == NULL || out == NULL || pk->n_knobs > KC_MAX_KNOBS ||
        (pk->knobs == NULL && pk->n_knobs > 0))
        return false;
    kc_key key;
    kc_plan_key_hash(pk, &key);
    int64_t now = kc__now(), last_used = 0;
    size_t len = 0;
    bool from_lmdb;
    uint8_t *d = fetch(c, KC_TABLE_PLAN, &key, now, &len, &last_used, &from_lmdb);
    kc_plan view;
    const char *why = d != NULL ? kc__plan_check(d, len, &key, pk, &view) : NULL;
    if (d == NULL || why != NULL)
        return miss(c->env, KC_TABLE_PLAN, &key, d, why);
    hit(c, KC_TABLE_PLAN, &key, d, len, last_used, now, from_lmdb);
    view.last_used = last_used;
    view.owned = d;
    *out = view;
    return true;
}

void kc_plan_release(kc_plan *p)
{
    if (p == NULL)
        return;
    base_free(p->owned);
    memset(p, 0, sizeof *p);
}

static hipdnnStatus_t store(kc_cache *c, kc_table t, const kc_key *key, const uint8_t *d, size_t len)
{
    kc_env *e = c->env;
    if (len > e->max_bytes / 8)
        return base_fail(HIPDNN_STATUS_BAD_PARAM,
                         "kernel cache %s: a %zu-byte %s record is more than 1/8 of the cache's limit (%llu bytes)",
                         e->dir[0] != '\0' ? e->dir : "(memory)", len, kc__table_name(t),
                         (unsigned long long)e->max_bytes);
    if (kc__writable(c)) {
        kc_rec r = {.table = t, .key = *key, .data = d, .len = len};
        hipdnnStatus_t st = kc__write(e, &r, 1);
        if (st != HIPDNN_STATUS_SUCCESS)
            return st;
    }
    uint64_t dropped = 0;
    pthread_mutex_lock(&e->mu);
    bool kept = kc__front_put(&e->front, t, key, d, len, kc__now(), &dropped);
    if (e->mode == KC_MODE_MEMORY)
        e->n.evicted += dropped, e->n.puts++;
    pthread_mutex_unlock(&e->mu);
    if (!kept && !kc__writable(c))
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "kernel cache: no memory to keep a %zu-byte record", len);
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t kc_put_kernel(kc_cache *c, const kc_kernel *k)
{
    if (c == NULL || k == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "kc_put_kernel: %s is NULL",
                         c == NULL ? "the cache" : "the kernel");
    uint8_t *d = NULL;
    size_t len = 0;
    hipdnnStatus_t st = kc__kernel_encode(k, kc__now(), &d, &len);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    st = store(c, KC_TABLE_KERNEL, &k->key, d, len);
    base_free(d);
    return st;
}

hipdnnStatus_t kc_put_plan(kc_cache *c, const kc_plan_key *pk, const kc_plan *p)
{
    if (c == NULL || pk == NULL || p == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "kc_put_plan: %s is NULL",
                         c == NULL ? "the cache" : pk == NULL ? "the plan key" : "the plan");
    uint8_t *d = NULL;
    size_t len = 0;
    hipdnnStatus_t st = kc__plan_encode(pk, p, kc__now(), &d, &len);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    kc_key key;
    kc_plan_key_hash(pk, &key);
    st = store(c, KC_TABLE_PLAN, &key, d, len);
    base_free(d);
    return st;
}
