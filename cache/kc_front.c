/* kc_front.c — the in-memory front: a bounded LRU hash map of validated records.
 *
 * Keys are (table, 16-byte key); keys are hashes already, so their first 8 bytes pick the
 * bucket. Entries own a copy of their record. The map is bounded by the bytes of its records:
 * storing past max_bytes drops the least recently used entries. It is the whole store of a
 * memory-mode cache and a read cache in front of LMDB otherwise. Not thread-safe: the
 * environment's mutex guards it (kc_int.h).
 */
#include <string.h>

#include "cache/kc_int.h"

#define MIN_BUCKETS 64

void kc__front_init(kc_front *f, uint64_t max_bytes)
{
    memset(f, 0, sizeof *f);
    f->max_bytes = max_bytes;
}

static size_t bucket_of(const kc_front *f, kc_table t, const kc_key *key)
{
    uint64_t h;
    memcpy(&h, key->b, sizeof h);
    return (size_t)((h ^ (uint64_t)t * 0x9e3779b97f4a7c15ull) & (f->n_buckets - 1));
}

static void unlink_lru(kc_front *f, kc_fent *e)
{
    if (e->newer != NULL)
        e->newer->older = e->older;
    else
        f->newest = e->older;
    if (e->older != NULL)
        e->older->newer = e->newer;
    else
        f->oldest = e->newer;
    e->newer = e->older = NULL;
}

static void push_newest(kc_front *f, kc_fent *e)
{
    e->older = f->newest;
    e->newer = NULL;
    if (f->newest != NULL)
        f->newest->newer = e;
    f->newest = e;
    if (f->oldest == NULL)
        f->oldest = e;
}

static kc_fent **slot_of(kc_front *f, kc_table t, const kc_key *key)
{
    if (f->n_buckets == 0)
        return NULL;
    kc_fent **s = &f->buckets[bucket_of(f, t, key)];
    while (*s != NULL && ((*s)->table != t || memcmp((*s)->key.b, key->b, KC_KEY_SIZE) != 0))
        s = &(*s)->hnext;
    return s;
}

kc_fent *kc__front_find(kc_front *f, kc_table t, const kc_key *key)
{
    kc_fent **s = slot_of(f, t, key);
    if (s == NULL || *s == NULL)
        return NULL;
    unlink_lru(f, *s);
    push_newest(f, *s);
    return *s;
}

static void drop(kc_front *f, kc_fent **s)
{
    kc_fent *e = *s;
    *s = e->hnext;
    unlink_lru(f, e);
    f->bytes -= e->len;
    f->count--;
    base_free(e->data);
    base_free(e);
}

void kc__front_remove(kc_front *f, kc_table t, const kc_key *key)
{
    kc_fent **s = slot_of(f, t, key);
    if (s != NULL && *s != NULL)
        drop(f, s);
}

/* Doubles the bucket array when entries outnumber buckets; keeps the old one on failure. */
static void maybe_rehash(kc_front *f)
{
    if (f->count < f->n_buckets)
        return;
    size_t n = f->n_buckets == 0 ? MIN_BUCKETS : 2 * f->n_buckets;
    kc_fent **b = base_calloc(n, sizeof *b);
    if (b == NULL)
        return;
    kc_fent **old = f->buckets;
    size_t old_n = f->n_buckets;
    f->buckets = b;
    f->n_buckets = n;
    for (size_t i = 0; i < old_n; i++)
        for (kc_fent *e = old[i], *next; e != NULL; e = next) {
            next = e->hnext;
            size_t j = bucket_of(f, e->table, &e->key);
            e->hnext = b[j];
            b[j] = e;
        }
    base_free(old);
}

static void shrink_to_fit(kc_front *f, uint64_t *dropped)
{
    while (f->bytes > f->max_bytes && f->oldest != NULL) {
        kc_fent *victim = f->oldest;
        drop(f, slot_of(f, victim->table, &victim->key));
        if (dropped != NULL)
            (*dropped)++;
    }
}

bool kc__front_put(kc_front *f, kc_table t, const kc_key *key, const uint8_t *data, size_t len,
                   int64_t last_used, uint64_t *dropped)
{
    if (len > f->max_bytes)
        return false;
    maybe_rehash(f);
    if (f->n_buckets == 0)
        return false;
    uint8_t *copy = base_memdup(data, len);
    kc_fent *e = copy != NULL ? base_calloc(1, sizeof *e) : NULL;
    if (e == NULL) {
        base_free(copy);
        return false;
    }
    kc__front_remove(f, t, key);
    *e = (kc_fent){.table = t, .key = *key, .data = copy, .len = len, .last_used = last_used};
    size_t b = bucket_of(f, t, key);
    e->hnext = f->buckets[b];
    f->buckets[b] = e;
    push_newest(f, e);
    f->bytes += len;
    f->count++;
    shrink_to_fit(f, dropped);
    return true;
}

void kc__front_free(kc_front *f)
{
    while (f->oldest != NULL) {
        kc_fent *victim = f->oldest;
        drop(f, slot_of(f, victim->table, &victim->key));
    }
    base_free(f->buckets);
    memset(f, 0, sizeof *f);
}
