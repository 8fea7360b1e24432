/* kc_verify.c — kc_verify: every record checked in full, the data file's structure with it, and
 * with `fix` the file rebuilt from the records that verify (kc_repair.c).
 *
 * In LMDB mode the records are read by kc_walk.c (pread, every page number and size checked),
 * not through LMDB: a damaged page makes LMDB read or copy far outside its map, so a check that
 * trusted LMDB could crash on the very files it exists for. The walk reads the snapshot of a
 * read transaction held meanwhile (the meta page LMDB itself reads for it: txnid & 1), so
 * concurrent writers change nothing it reads. A damaged page is reported as a kc_bad of table
 * KC_TABLE_NONE, key zero, naming the page; the records below it cannot be read.
 * `fix` rebuilds when anything is wrong (a bad record, a damaged page, a last-used time without
 * its record) — never deleting in place, which would write through the damaged pages. The
 * rebuild walks the file again under the exclusive lock; what that pass dropped is the report.
 * In memory mode the front is checked, and fixed, in place.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/kc_int.h"

#define ENTRY (1 + KC_KEY_SIZE) /* a table byte and a record key */

typedef struct bad_list {
    kc_bad *v;
    size_t n, cap;
    size_t orphans;             /* last-used times without their record */
    bool damaged;               /* a damaged page */
} bad_list;

typedef struct keys {
    uint8_t *v;                 /* ENTRY bytes each */
    size_t n, cap;
} keys;

typedef struct vstate {
    kc_env *e;
    bad_list *b;
    kc_sink *sink;              /* rebuilding: the records that verify go there */
    keys present, atimes;       /* checking only: what the last-used times are matched against */
    hipdnnStatus_t st;
    int rc;                     /* a store code from the sink */
} vstate;

/* ---- reports ------------------------------------------------------------------------------------ */

static hipdnnStatus_t add_bad(bad_list *b, kc_table t, const void *key, size_t key_len, const char *why)
{
    if (b->n == b->cap) {
        size_t cap = b->cap == 0 ? 16 : 2 * b->cap;
        kc_bad *v = base_realloc(b->v, cap * sizeof *v);
        if (v == NULL)
            return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "kc_verify: no memory for %zu reports", b->n + 1);
        b->v = v, b->cap = cap;
    }
    kc_bad *x = &b->v[b->n++];
    memset(x, 0, sizeof *x);
    x->table = t;
    if (key != NULL)
        memcpy(x->key.b, key, key_len < KC_KEY_SIZE ? key_len : KC_KEY_SIZE);
    snprintf(x->reason, sizeof x->reason, "%s", why);
    return HIPDNN_STATUS_SUCCESS;
}

static bool keys_add(keys *k, uint8_t table, const uint8_t *key)
{
    if (k->n == k->cap) {
        size_t cap = k->cap == 0 ? 256 : 2 * k->cap;
        uint8_t *v = base_realloc(k->v, cap * ENTRY);
        if (v == NULL)
            return false;
        k->v = v, k->cap = cap;
    }
    k->v[k->n * ENTRY] = table;
    memcpy(k->v + k->n * ENTRY + 1, key, KC_KEY_SIZE);
    k->n++;
    return true;
}

static int entry_cmp(const void *a, const void *b) { return memcmp(a, b, ENTRY); }

/* ---- the walk's callbacks -------------------------------------------------------------------------- */

static int stop_with(vstate *v, hipdnnStatus_t st)
{
    v->st = st;
    return st == HIPDNN_STATUS_SUCCESS ? 0 : ECANCELED;
}

static int on_atime(vstate *v, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen)
{
    if (klen == 1)
        return 0; /* kc_space.c's settle marker */
    if (v->sink != NULL) {
        bool kept = false;
        v->rc = kc__sink_atime(v->sink, key, klen, val, vlen, &kept);
        v->b->orphans += !kept;
        return v->rc;
    }
    if (klen != ENTRY || vlen != 8) {
        v->b->orphans++;
        return 0;
    }
    return keys_add(&v->atimes, key[0], key + 1) ? 0 : stop_with(v, base_fail(HIPDNN_STATUS_ALLOC_FAILED,
                                                                             "kc_verify: out of memory"));
}

static int on_record(void *ctx, int t, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen)
{
    vstate *v = ctx;
    if (t == KC_DBI_ATIME)
        return on_atime(v, key, klen, val, vlen);
    kc_table table = t == KC_DBI_KERNEL ? KC_TABLE_KERNEL : KC_TABLE_PLAN;
    kc_key k = {{0}};
    memcpy(k.b, key, klen < KC_KEY_SIZE ? klen : KC_KEY_SIZE);
    const char *why = klen != KC_KEY_SIZE ? "key is not 16 bytes" : kc__rec_check(table, val, vlen, &k);
    if (why != NULL)
        return stop_with(v, add_bad(v->b, table, key, klen, why));
    if (v->sink != NULL)
        return v->rc = kc__sink_put(v->sink, table, key, val, vlen);
    return keys_add(&v->present, (uint8_t)table, key) ? 0 : stop_with(v, base_fail(HIPDNN_STATUS_ALLOC_FAILED,
                                                                                  "kc_verify: out of memory"));
}

static void on_damage(void *ctx, int t, uint64_t pgno, const char *why)
{
    vstate *v = ctx;
    char reason[sizeof v->b->v[0].reason];
    snprintf(reason, sizeof reason, "damaged page %llu of %s: %s", (unsigned long long)pgno,
             kc__walk_table_name(t), why);
    v->b->damaged = true;
    if (v->st == HIPDNN_STATUS_SUCCESS)
        v->st = add_bad(v->b, KC_TABLE_NONE, NULL, 0, reason);
}

/* Last-used times whose record is not in the file. */
static void count_orphans(vstate *v)
{
    if (v->present.n > 1)
        qsort(v->present.v, v->present.n, ENTRY, entry_cmp);
    for (size_t i = 0; i < v->atimes.n; i++)
        v->b->orphans += v->present.n == 0 ||
                         bsearch(v->atimes.v + i * ENTRY, v->present.v, v->present.n, ENTRY, entry_cmp) == NULL;
}

/* ---- walking the file -------------------------------------------------------------------------------- */

static hipdnnStatus_t walk(vstate *v, kc_file *f, const kc_meta *m)
{
    kc_walk_ops ops = {.tables = KC_WALK_ALL, .values = true, .record = on_record, .damage = on_damage, .ctx = v};
    int rc = kc__walk(f, m, &ops);
    if (v->st != HIPDNN_STATUS_SUCCESS)
        return v->st;
    if (v->rc != KC_STORE_OK)
        return kc__store_fail(v->e, "writing the rebuilt data file", v->rc);
    if (rc != 0)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "kc_verify: out of memory walking %s/data.mdb", v->e->dir);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t open_data(kc_env *e, kc_file *f)
{
    char path[PATH_MAX], why[KC_WHY_MAX];
    snprintf(path, sizeof path, "%s/data.mdb", e->dir);
    if (!kc__file_layout_known())
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "kernel cache %s: verify reads LMDB's file layout of "
                         "64-bit little-endian hosts only", e->dir);
    kc_file_state s = kc__file_open(path, f, why, sizeof why);
    if (s == KC_FILE_OK)
        return HIPDNN_STATUS_SUCCESS;
    return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "kernel cache %s: reading data.mdb: %s", e->dir,
                     s == KC_FILE_EMPTY ? "it is empty" : why);
}

/* The snapshot of a read transaction, walked while the transaction is held. */
static hipdnnStatus_t check_snapshot(kc_env *e, vstate *v)
{
    kc_txn *txn = NULL;
    int rc = kc__txn_begin(e, false, &txn);
    if (rc != KC_STORE_OK)
        return kc__store_fail(e, "mdb_txn_begin", rc);
    kc_file f = {.fd = -1};
    kc_meta m;
    hipdnnStatus_t st = open_data(e, &f);
    if (st == HIPDNN_STATUS_SUCCESS && !kc__file_meta_slot(&f, (int)(kc__store_txn_id(txn) & 1), &m))
        st = base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "kernel cache %s: the meta page of the current snapshot "
                       "cannot be read", e->dir);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = walk(v, &f, &m);
    kc__file_close(&f);
    kc__txn_abort(e, txn);
    if (st == HIPDNN_STATUS_SUCCESS)
        count_orphans(v);
    return st;
}

/* kc__rebuild's fill: the file as it is now (nobody else has it open), newest meta page. */
static hipdnnStatus_t fill(void *ctx, kc_sink *s)
{
    vstate *v = ctx;
    kc_file f = {.fd = -1};
    v->sink = s;
    hipdnnStatus_t st = open_data(v->e, &f);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = walk(v, &f, &f.meta);
    kc__file_close(&f);
    return st;
}

static void free_state(vstate *v)
{
    base_free(v->present.v);
    base_free(v->atimes.v);
}

static hipdnnStatus_t verify_lmdb(kc_env *e, bool fix, bad_list *b)
{
    if (!e->have_tables)
        return HIPDNN_STATUS_SUCCESS;
    vstate v = {.e = e, .b = b};
    hipdnnStatus_t st = check_snapshot(e, &v);
    free_state(&v);
    if (st != HIPDNN_STATUS_SUCCESS || !fix || (b->n == 0 && b->orphans == 0 && !b->damaged))
        return st;
    bad_list again = {0};
    vstate r = {.e = e, .b = &again};
    st = kc__rebuild(e, fill, &r);
    free_state(&r);
    if (st != HIPDNN_STATUS_SUCCESS) {
        base_free(again.v);
        return st;
    }
    pthread_mutex_lock(&e->mu);
    for (size_t i = 0; i < again.n; i++)
        kc__front_remove(&e->front, again.v[i].table, &again.v[i].key);
    pthread_mutex_unlock(&e->mu);
    base_log(HIPDNN_SEV_INFO, "kernel cache %s: verify rebuilt data.mdb without %zu bad records or damaged pages "
             "and %zu stray last-used times", e->dir, again.n, again.orphans);
    base_free(b->v);
    *b = again;
    return HIPDNN_STATUS_SUCCESS;
}

/* ---- memory mode, and the entry point ------------------------------------------------------------------ */

static hipdnnStatus_t verify_front(kc_env *e, bool fix, bad_list *b)
{
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    pthread_mutex_lock(&e->mu);
    for (kc_fent *f = e->front.oldest, *next; f != NULL && st == HIPDNN_STATUS_SUCCESS; f = next) {
        next = f->newer;
        const char *why = kc__rec_check(f->table, f->data, f->len, &f->key);
        if (why == NULL)
            continue;
        st = add_bad(b, f->table, f->key.b, KC_KEY_SIZE, why);
        if (fix)
            kc__front_remove(&e->front, f->table, &f->key);
    }
    pthread_mutex_unlock(&e->mu);
    return st;
}

hipdnnStatus_t kc_verify(kc_cache *c, bool fix, kc_bad **bad, size_t *n_bad)
{
    if (c == NULL || bad == NULL || n_bad == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "kc_verify: a NULL argument");
    *bad = NULL;
    *n_bad = 0;
    kc_env *e = c->env;
    bool lmdb = e->store != NULL;
    if (fix && lmdb && !kc__writable(c))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "kernel cache %s: verify --fix needs a writable cache (it is %s)",
                         e->dir, kc_mode_name(kc_get_mode(c)));
    bad_list b = {0};
    hipdnnStatus_t st = lmdb ? verify_lmdb(e, fix, &b) : verify_front(e, fix, &b);
    if (st != HIPDNN_STATUS_SUCCESS) {
        base_free(b.v);
        return st;
    }
    *bad = b.v;
    *n_bad = b.n;
    return HIPDNN_STATUS_SUCCESS;
}
