/* kc_bundle.c — export and import of a cache as one portable bundle file.
 *
 * Bundle format, version 1 (integers little-endian):
 *   header, 32 bytes:
 *      0   8  magic "HDKCBNDL"
 *      8   4  bundle version (1)
 *     12   4  record count N
 *     16   8  total size of the bundle in bytes
 *     24   8  XXH64 of bytes [0, 24)
 *   N records, each:
 *      0   1  table (1 kernel, 2 plan)
 *      1   7  zero
 *      8  16  key
 *     24   8  record length L
 *     32   8  XXH64 of the L record bytes, seeded with XXH64 of this entry's bytes [0, 32)
 *     40   L  the record, exactly as the cache stores it (kc_record.c)
 *             zero padding to a multiple of 8
 *   trailer, 16 bytes:
 *      0   8  "HDKCEND" and a NUL
 *      8   8  XXH64 of every record byte, [32, start of the trailer)
 * Import checks all of it — sizes, zero bytes, every checksum, every record in full against
 * its key — before anything is written; then writes the records (kc__write: as few
 * transactions as fit) with the import time as their last use.
 * Export writes a temporary file next to the target and renames it into place.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "cache/kc_int.h"

#define B_MAGIC "HDKCBNDL"
#define B_END "HDKCEND"
#define B_VERSION KC_BUNDLE_VERSION
#define B_HEAD 32
#define B_ENTRY 40
#define B_TRAIL 16

/* ---- export ------------------------------------------------------------------------------- */

typedef struct sink {
    FILE *f;               /* a file, or */
    base_sb *sb;           /* memory */
    XXH64_state_t *h;      /* over the records */
    uint64_t size, count, skipped;
    bool failed;
} sink;

static void emit(sink *s, const void *p, size_t n)
{
    if (s->failed || n == 0)
        return;
    if (s->f != NULL)
        s->failed = fwrite(p, 1, n, s->f) != n;
    else
        base_sb_putn(s->sb, p, n), s->failed = s->sb->oom;
    if (s->h != NULL)
        XXH64_update(s->h, p, n);
    s->size += n;
}

static void emit_record(sink *s, kc_table t, const kc_key *key, const uint8_t *d, size_t len)
{
    if (kc__rec_check(t, d, len, key) != NULL) {
        s->skipped++;
        return;
    }
    uint8_t e[B_ENTRY] = {0}, pad[8] = {0};
    e[0] = (uint8_t)t;
    memcpy(e + 8, key->b, KC_KEY_SIZE);
    kc__put64(e + 24, len);
    kc__put64(e + 32, XXH64(d, len, XXH64(e, 32, 0)));
    emit(s, e, sizeof e);
    emit(s, d, len);
    emit(s, pad, (8 - len % 8) % 8);
    s->count++;
}

static void header(const sink *s, uint8_t h[B_HEAD])
{
    memcpy(h, B_MAGIC, 8);
    kc__put32(h + 8, B_VERSION);
    kc__put32(h + 12, (uint32_t)s->count);
    kc__put64(h + 16, s->size);
    kc__put64(h + 24, XXH64(h, 24, 0));
}

/* A table's records into the sink. */
static int export_table(kc_txn *txn, kc_table t, sink *s)
{
    kc_cursor *cur = NULL;
    int rc = kc__store_cursor_open(txn, t == KC_TABLE_KERNEL ? KC_DBI_KERNEL : KC_DBI_PLAN, &cur);
    if (rc != KC_STORE_OK)
        return rc;
    kc_val k, d;
    for (bool first = true; (rc = kc__store_cursor_get(cur, first, &k, &d)) == KC_STORE_OK; first = false) {
        kc_key key;
        if (k.size != KC_KEY_SIZE) {
            s->skipped++;
            continue;
        }
        memcpy(key.b, k.data, KC_KEY_SIZE);
        emit_record(s, t, &key, d.data, d.size);
    }
    kc__store_cursor_close(cur);
    return rc == KC_STORE_NOTFOUND ? KC_STORE_OK : rc;
}

static int export_lmdb(kc_env *e, sink *s)
{
    if (!e->have_tables)
        return KC_STORE_OK;
    kc_txn *txn = NULL;
    int rc = kc__txn_begin(e, false, &txn);
    if (rc != KC_STORE_OK)
        return rc;
    for (int t = KC_TABLE_KERNEL; rc == KC_STORE_OK && t <= KC_TABLE_PLAN; t++)
        rc = export_table(txn, (kc_table)t, s);
    kc__txn_abort(e, txn);
    return rc;
}

static void export_front(kc_env *e, sink *s)
{
    pthread_mutex_lock(&e->mu);
    for (kc_fent *f = e->front.oldest; f != NULL; f = f->newer)
        emit_record(s, f->table, &f->key, f->data, f->len);
    pthread_mutex_unlock(&e->mu);
}

/* Writes the whole bundle to the sink; the header is written last (it holds the size). */
static hipdnnStatus_t export_to(kc_cache *c, sink *s, const char *dest)
{
    kc_env *e = c->env;
    uint8_t h[B_HEAD] = {0}, t[B_TRAIL] = {0};
    emit(s, h, sizeof h); /* a placeholder: rewritten at the end */
    if ((s->h = XXH64_createState()) == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "kernel cache export: no memory");
    XXH64_reset(s->h, 0);
    int rc = KC_STORE_OK;
    if (e->store != NULL)
        rc = export_lmdb(e, s);
    else
        export_front(e, s);
    memcpy(t, B_END, 8);
    kc__put64(t + 8, XXH64_digest(s->h));
    XXH64_freeState(s->h);
    s->h = NULL;
    if (rc != KC_STORE_OK)
        return kc__store_fail(e, "reading the tables for export", rc);
    emit(s, t, sizeof t);
    header(s, h);
    if (!s->failed && s->f != NULL)
        s->failed = fseek(s->f, 0, SEEK_SET) != 0 || fwrite(h, 1, sizeof h, s->f) != sizeof h;
    else if (!s->failed)
        memcpy(s->sb->p, h, sizeof h);
    if (s->failed)
        return s->f != NULL ? base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "kernel cache export: writing %s: %s", dest,
                                        strerror(errno))
                            : base_fail(HIPDNN_STATUS_ALLOC_FAILED, "kernel cache export: no memory for the bundle");
    if (s->skipped > 0)
        base_log(HIPDNN_SEV_WARN, "kernel cache export to %s: skipped %llu corrupt records", dest,
                 (unsigned long long)s->skipped);
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t kc_export_mem(kc_cache *c, uint8_t **buf, size_t *len, size_t *n_records)
{
    if (c == NULL || buf == NULL || len == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "kc_export_mem: a NULL argument");
    *buf = NULL;
    *len = 0;
    base_sb sb = {0};
    sink s = {.sb = &sb};
    hipdnnStatus_t st = export_to(c, &s, "memory");
    if (st != HIPDNN_STATUS_SUCCESS) {
        base_sb_free(&sb);
        return st;
    }
    *buf = (uint8_t *)sb.p;
    *len = sb.len;
    if (n_records != NULL)
        *n_records = (size_t)s.count;
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t kc_export(kc_cache *c, const char *path, size_t *n_records)
{
    if (c == NULL || path == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "kc_export: a NULL argument");
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "kc_export: the path is too long");
    FILE *f = fopen(tmp, "wb");
    if (f == NULL)
        return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "kernel cache export: cannot create %s: %s", tmp,
                         strerror(errno));
    sink s = {.f = f};
    hipdnnStatus_t st = export_to(c, &s, path);
    bool closed = fflush(f) == 0 && fsync(fileno(f)) == 0;
    closed = fclose(f) == 0 && closed;
    if (st == HIPDNN_STATUS_SUCCESS && (!closed || rename(tmp, path) != 0))
        st = base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "kernel cache export: writing %s: %s", path, strerror(errno));
    if (st != HIPDNN_STATUS_SUCCESS)
        remove(tmp);
    else if (n_records != NULL)
        *n_records = (size_t)s.count;
    return st;
}

/* ---- import -------------------------------------------------------------------------------- */

static hipdnnStatus_t reject(const char *src, const char *fmt, ...) BASE_PRINTF(2, 3);
static hipdnnStatus_t reject(const char *src, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return base_fail(HIPDNN_STATUS_BAD_PARAM, "kernel cache bundle %s: %s; nothing was imported", src, msg);
}

static hipdnnStatus_t check_header(const uint8_t *b, size_t len, const char *src, uint32_t *count)
{
    if (len < B_HEAD + B_TRAIL)
        return reject(src, "%zu bytes is too short for a bundle", len);
    if (memcmp(b, B_MAGIC, 8) != 0)
        return reject(src, "not a kernel cache bundle (bad magic)");
    if (kc__get64(b + 24) != XXH64(b, 24, 0))
        return reject(src, "header checksum mismatch");
    if (kc__get32(b + 8) != B_VERSION)
        return reject(src, "bundle version %u (this library reads %d)", kc__get32(b + 8), B_VERSION);
    if (kc__get64(b + 16) != len)
        return reject(src, "the header says %llu bytes but there are %zu (truncated?)",
                      (unsigned long long)kc__get64(b + 16), len);
    *count = kc__get32(b + 12);
    if (*count > (len - B_HEAD - B_TRAIL) / B_ENTRY)
        return reject(src, "%u records cannot fit in %zu bytes", *count, len);
    return HIPDNN_STATUS_SUCCESS;
}

/* Checks record i at *off and fills r (pointing into b); advances *off. */
static hipdnnStatus_t check_entry(const uint8_t *b, size_t end, size_t *off, uint32_t i, const char *src,
                                  kc_rec *r)
{
    const uint8_t *e = b + *off;
    if (end - *off < B_ENTRY)
        return reject(src, "record %u at offset %zu: truncated entry header", i, *off);
    static const uint8_t zero[7] = {0};
    if ((e[0] != KC_TABLE_KERNEL && e[0] != KC_TABLE_PLAN) || memcmp(e + 1, zero, 7) != 0)
        return reject(src, "record %u at offset %zu: bad table byte or reserved bytes", i, *off);
    uint64_t len = kc__get64(e + 24);
    if (len > end - *off - B_ENTRY)
        return reject(src, "record %u at offset %zu: length %llu runs past the end", i, *off,
                      (unsigned long long)len);
    size_t pad = (size_t)((8 - len % 8) % 8);
    if (pad > end - *off - B_ENTRY - len || memcmp(e + B_ENTRY + len, zero, pad) != 0)
        return reject(src, "record %u at offset %zu: bad padding", i, *off);
    if (kc__get64(e + 32) != XXH64(e + B_ENTRY, (size_t)len, XXH64(e, 32, 0)))
        return reject(src, "record %u at offset %zu: checksum mismatch", i, *off);
    *r = (kc_rec){.table = (kc_table)e[0], .data = e + B_ENTRY, .len = (size_t)len};
    memcpy(r->key.b, e + 8, KC_KEY_SIZE);
    const char *why = kc__rec_check(r->table, r->data, r->len, &r->key);
    if (why != NULL) {
        char hex[2 * KC_KEY_SIZE + 1];
        kc_key_hex(&r->key, hex);
        return reject(src, "record %u at offset %zu (%s %s): %s", i, *off, kc__table_name(r->table), hex, why);
    }
    *off += B_ENTRY + (size_t)len + pad;
    return HIPDNN_STATUS_SUCCESS;
}

/* Checks a whole bundle; *recs (base_free) points into b. */
static hipdnnStatus_t parse(const uint8_t *b, size_t len, const char *src, kc_rec **recs, size_t *n)
{
    uint32_t count = 0;
    hipdnnStatus_t st = check_header(b, len, src, &count);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    kc_rec *v = base_calloc(count > 0 ? count : 1, sizeof *v);
    if (v == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "kernel cache bundle %s: no memory for %u records", src, count);
    size_t off = B_HEAD, end = len - B_TRAIL;
    for (uint32_t i = 0; i < count && st == HIPDNN_STATUS_SUCCESS; i++)
        st = check_entry(b, end, &off, i, src, &v[i]);
    if (st == HIPDNN_STATUS_SUCCESS && off != end)
        st = reject(src, "%u records end at offset %zu, but the trailer is at %zu", count, off, end);
    else if (st == HIPDNN_STATUS_SUCCESS && memcmp(b + end, B_END, 8) != 0)
        st = reject(src, "bad trailer (truncated?)");
    else if (st == HIPDNN_STATUS_SUCCESS && kc__get64(b + end + 8) != XXH64(b + B_HEAD, end - B_HEAD, 0))
        st = reject(src, "checksum over the records mismatch");
    if (st != HIPDNN_STATUS_SUCCESS) {
        base_free(v);
        return st;
    }
    *recs = v;
    *n = count;
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t store_all(kc_cache *c, const kc_rec *v, size_t n, const char *src)
{
    kc_env *e = c->env;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += v[i].len;
    if (total > e->max_bytes / 4 * 3)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "kernel cache bundle %s: %llu bytes of records exceed what "
                         "the cache may hold (3/4 of its limit of %llu bytes); nothing was imported", src,
                         (unsigned long long)total, (unsigned long long)e->max_bytes);
    if (e->store != NULL)
        return kc__write(e, v, n);
    int64_t now = kc__now();
    pthread_mutex_lock(&e->mu);
    for (size_t i = 0; i < n; i++)
        kc__front_put(&e->front, v[i].table, &v[i].key, v[i].data, v[i].len, now, &e->n.evicted);
    e->n.puts += n;
    pthread_mutex_unlock(&e->mu);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t import_from(kc_cache *c, const uint8_t *b, size_t len, const char *src, size_t *n_records)
{
    if (c->env->store != NULL && !kc__writable(c))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "kernel cache %s: import needs a writable cache (it is %s)",
                         c->env->dir, kc_mode_name(kc_get_mode(c)));
    kc_rec *v = NULL;
    size_t n = 0;
    hipdnnStatus_t st = parse(b, len, src, &v, &n);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    st = store_all(c, v, n, src);
    base_free(v);
    if (st == HIPDNN_STATUS_SUCCESS && n_records != NULL)
        *n_records = n;
    return st;
}

hipdnnStatus_t kc_import_mem(kc_cache *c, const void *buf, size_t len, size_t *n_records)
{
    if (c == NULL || (buf == NULL && len > 0))
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "kc_import_mem: a NULL argument");
    if (n_records != NULL)
        *n_records = 0;
    return import_from(c, buf != NULL ? buf : (const void *)"", len, "(memory)", n_records);
}

static hipdnnStatus_t read_file(const char *path, uint64_t limit, uint8_t **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "kernel cache import: cannot open %s: %s", path,
                         strerror(errno));
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    uint8_t *b = NULL;
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0)
        st = base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "kernel cache import: cannot read %s: %s", path, strerror(errno));
    else if ((uint64_t)size > limit)
        st = reject(path, "%ld bytes, more than the cache's limit allows", size);
    else if ((b = base_malloc(size > 0 ? (size_t)size : 1)) == NULL)
        st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "kernel cache import: no memory for %s (%ld bytes)", path, size);
    else if (fread(b, 1, (size_t)size, f) != (size_t)size)
        st = base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "kernel cache import: reading %s failed", path);
    fclose(f);
    if (st != HIPDNN_STATUS_SUCCESS) {
        base_free(b);
        return st;
    }
    *out = b;
    *len = (size_t)size;
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t kc_import(kc_cache *c, const char *path, size_t *n_records)
{
    if (c == NULL || path == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "kc_import: a NULL argument");
    if (n_records != NULL)
        *n_records = 0;
    uint8_t *b = NULL;
    size_t len = 0;
    uint64_t limit = 2 * c->env->max_bytes + (1u << 20);
    hipdnnStatus_t st = read_file(path, limit, &b, &len);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    st = import_from(c, b, len, path, n_records);
    base_free(b);
    return st;
}
