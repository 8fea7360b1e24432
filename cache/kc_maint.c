/* kc_maint.c — maintenance for the hipdnn-cache CLI: list, stats, prune, flush (verify:
 * kc_verify.c).
 *
 * Each works on both stores: the LMDB tables, or in memory mode the front. Listing and stats
 * read in one read-only transaction. Prune deletes in one write transaction.
 */
#include <stdio.h>
#include <string.h>

#include "cache/kc_int.h"

static const kc_table tables[] = {KC_TABLE_KERNEL, KC_TABLE_PLAN};

static int table_of(kc_table t) { return t == KC_TABLE_KERNEL ? KC_DBI_KERNEL : KC_DBI_PLAN; }

static bool has_lmdb(const kc_env *e) { return e->store != NULL; }

/* ---- a growable array ----------------------------------------------------------------------- */

static void *push(void **v, size_t *n, size_t *cap, size_t size)
{
    if (*n == *cap) {
        size_t nc = *cap == 0 ? 64 : 2 * *cap;
        void *nv = base_realloc(*v, nc * size);
        if (nv == NULL)
            return NULL;
        *v = nv;
        *cap = nc;
    }
    void *slot = (char *)*v + (*n)++ * size;
    memset(slot, 0, size);
    return slot;
}

/* ---- list ---------------------------------------------------------------------------------- */

static void describe(kc_entry *en, kc_table t, const kc_key *key, const uint8_t *d, size_t len)
{
    en->table = t;
    en->key = *key;
    en->size = len;
    if (t == KC_TABLE_KERNEL) {
        kc_kernel k;
        en->valid = kc__kernel_check(d, len, key, false, &k) == NULL;
        if (en->valid) {
            snprintf(en->arch, sizeof en->arch, "%s", k.arch);
            snprintf(en->compiler, sizeof en->compiler, "%.31s %.31s", k.compiler, k.compiler_version);
            snprintf(en->entry, sizeof en->entry, "%s", k.entry);
            en->code_size = k.code_size;
            en->created = k.created;
        }
    } else {
        kc_plan p;
        en->valid = kc__plan_check(d, len, key, NULL, &p) == NULL;
        en->created = en->valid ? p.created : 0;
    }
}

static hipdnnStatus_t list_front(kc_env *e, kc_entry **v, size_t *n)
{
    size_t cap = 0;
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    pthread_mutex_lock(&e->mu);
    for (kc_fent *f = e->front.oldest; f != NULL; f = f->newer) {
        kc_entry *en = push((void **)v, n, &cap, sizeof **v);
        if (en == NULL) {
            st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "kc_list: no memory for %zu entries", *n);
            break;
        }
        describe(en, f->table, &f->key, f->data, f->len);
        en->last_used = f->last_used;
    }
    pthread_mutex_unlock(&e->mu);
    return st;
}

static hipdnnStatus_t list_table(kc_env *e, kc_txn *txn, kc_table t, kc_entry **v, size_t *n, size_t *cap)
{
    kc_cursor *cur = NULL;
    int rc = kc__store_cursor_open(txn, table_of(t), &cur);
    if (rc != KC_STORE_OK)
        return kc__store_fail(e, "mdb_cursor_open", rc);
    kc_val k, d;
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    for (bool first = true; (rc = kc__store_cursor_get(cur, first, &k, &d)) == KC_STORE_OK; first = false) {
        kc_entry *en = push((void **)v, n, cap, sizeof **v);
        if (en == NULL) {
            st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "kc_list: no memory for %zu entries", *n);
            break;
        }
        kc_key key = {{0}};
        memcpy(key.b, k.data, k.size < KC_KEY_SIZE ? k.size : KC_KEY_SIZE);
        describe(en, t, &key, d.data, d.size);
        en->valid = en->valid && k.size == KC_KEY_SIZE;
        en->last_used = kc__last_used(txn, t, &key);
    }
    kc__store_cursor_close(cur);
    if (st == HIPDNN_STATUS_SUCCESS && rc != KC_STORE_NOTFOUND)
        st = kc__store_fail(e, "mdb_cursor_get", rc);
    return st;
}

static hipdnnStatus_t list_lmdb(kc_env *e, kc_entry **v, size_t *n)
{
    if (!e->have_tables)
        return HIPDNN_STATUS_SUCCESS;
    kc_txn *txn = NULL;
    int rc = kc__txn_begin(e, false, &txn);
    if (rc != KC_STORE_OK)
        return kc__store_fail(e, "mdb_txn_begin", rc);
    size_t cap = 0;
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    for (int i = 0; i < 2 && st == HIPDNN_STATUS_SUCCESS; i++)
        st = list_table(e, txn, tables[i], v, n, &cap);
    kc__txn_abort(e, txn);
    return st;
}

hipdnnStatus_t kc_list(kc_cache *c, kc_entry **entries, size_t *n)
{
    if (c == NULL || entries == NULL || n == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "kc_list: a NULL argument");
    *entries = NULL;
    *n = 0;
    hipdnnStatus_t st = has_lmdb(c->env) ? list_lmdb(c->env, entries, n) : list_front(c->env, entries, n);
    if (st != HIPDNN_STATUS_SUCCESS) {
        base_free(*entries);
        *entries = NULL;
        *n = 0;
    }
    return st;
}

/* ---- stats ---------------------------------------------------------------------------------- */

/* Adds a table's records and bytes to s. */
static int count_table(kc_txn *txn, kc_table t, kc_stats *s)
{
    kc_cursor *cur = NULL;
    int rc = kc__store_cursor_open(txn, table_of(t), &cur);
    if (rc != KC_STORE_OK)
        return rc;
    kc_val k, d;
    for (bool first = true; (rc = kc__store_cursor_get(cur, first, &k, &d)) == KC_STORE_OK; first = false) {
        *(t == KC_TABLE_KERNEL ? &s->kernels : &s->plans) += 1;
        s->bytes += d.size;
    }
    kc__store_cursor_close(cur);
    return rc == KC_STORE_NOTFOUND ? KC_STORE_OK : rc;
}

static hipdnnStatus_t stats_lmdb(kc_env *e, kc_stats *s)
{
    kc__map_info(e, &s->map_size, &s->map_used);
    if (!e->have_tables)
        return HIPDNN_STATUS_SUCCESS;
    kc_txn *txn = NULL;
    int rc = kc__txn_begin(e, false, &txn);
    if (rc != KC_STORE_OK)
        return kc__store_fail(e, "mdb_txn_begin", rc);
    for (int i = 0; i < 2 && rc == KC_STORE_OK; i++)
        rc = count_table(txn, tables[i], s);
    kc__txn_abort(e, txn);
    return rc == KC_STORE_OK ? HIPDNN_STATUS_SUCCESS : kc__store_fail(e, "reading the tables", rc);
}

hipdnnStatus_t kc_get_stats(kc_cache *c, kc_stats *s)
{
    if (c == NULL || s == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "kc_get_stats: a NULL argument");
    kc_env *e = c->env;
    memset(s, 0, sizeof *s);
    s->mode = kc_get_mode(c);
    s->max_bytes = e->max_bytes;
    pthread_mutex_lock(&e->mu);
    kc_counters n = e->n;
    s->front_entries = e->front.count;
    s->front_bytes = e->front.bytes;
    if (!has_lmdb(e)) {
        for (kc_fent *f = e->front.oldest; f != NULL; f = f->newer)
            *(f->table == KC_TABLE_KERNEL ? &s->kernels : &s->plans) += 1;
        s->bytes = e->front.bytes;
    }
    pthread_mutex_unlock(&e->mu);
    s->hits = n.hits, s->front_hits = n.front_hits, s->misses = n.misses, s->corrupt = n.corrupt;
    s->lmdb_reads = n.lmdb_reads, s->puts = n.puts, s->evicted = n.evicted, s->grown = n.grown;
    return has_lmdb(e) ? stats_lmdb(e, s) : HIPDNN_STATUS_SUCCESS;
}

/* ---- prune ---------------------------------------------------------------------------------- */

static size_t prune_front(kc_env *e, uint64_t max_bytes, int64_t cutoff)
{
    size_t removed = 0;
    pthread_mutex_lock(&e->mu);
    for (kc_fent *f = e->front.oldest, *next; f != NULL; f = next) {
        next = f->newer;
        if (f->last_used < cutoff || (max_bytes > 0 && e->front.bytes > max_bytes)) {
            kc__front_remove(&e->front, f->table, &f->key);
            removed++;
        }
    }
    pthread_mutex_unlock(&e->mu);
    return removed;
}

static hipdnnStatus_t prune_lmdb(kc_env *e, uint64_t max_bytes, int64_t cutoff, size_t *removed)
{
    kc_txn *txn = NULL;
    int rc = kc__txn_begin(e, true, &txn);
    if (rc != KC_STORE_OK)
        return kc__store_fail(e, "mdb_txn_begin", rc);
    kc_cand *v = NULL;
    size_t n = 0;
    if ((rc = kc__touch_apply(e, txn)) != KC_STORE_OK || (rc = kc__scan(txn, &v, &n)) != KC_STORE_OK) {
        kc__txn_abort(e, txn);
        return kc__store_fail(e, "reading the tables", rc);
    }
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += v[i].size;
    for (size_t i = 0; i < n && rc == KC_STORE_OK; i++) {
        if (v[i].last_used >= cutoff && (max_bytes == 0 || total <= max_bytes))
            break; /* oldest first: the rest are newer and fit */
        rc = kc__delete(e, txn, v[i].table, &v[i].key);
        total -= v[i].size;
        (*removed)++;
    }
    base_free(v);
    if (rc != KC_STORE_OK) {
        kc__txn_abort(e, txn);
        return kc__store_fail(e, "mdb_del", rc);
    }
    if ((rc = kc__txn_commit(e, txn)) != KC_STORE_OK)
        return kc__store_fail(e, "mdb_txn_commit", rc);
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t kc_prune(kc_cache *c, uint64_t max_bytes, int64_t older_than_s, size_t *removed)
{
    size_t dummy = 0;
    removed = removed != NULL ? removed : &dummy;
    *removed = 0;
    if (c == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "kc_prune: the cache is NULL");
    kc_env *e = c->env;
    int64_t cutoff = older_than_s > 0 ? kc__now() - older_than_s : INT64_MIN;
    if (!has_lmdb(e)) {
        *removed = prune_front(e, max_bytes, cutoff);
        return HIPDNN_STATUS_SUCCESS;
    }
    if (!kc__writable(c))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "kernel cache %s: prune needs a writable cache (it is %s)",
                         e->dir, kc_mode_name(kc_get_mode(c)));
    return prune_lmdb(e, max_bytes, cutoff, removed);
}

hipdnnStatus_t kc_flush(kc_cache *c)
{
    if (c == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "kc_flush: the cache is NULL");
    kc_env *e = c->env;
    pthread_mutex_lock(&e->mu);
    bool pending = e->n_touches > 0;
    pthread_mutex_unlock(&e->mu);
    if (!pending || !kc__writable(c))
        return HIPDNN_STATUS_SUCCESS;
    return kc__write(e, NULL, 0);
}
