/* fuzz_cache_records.c — libFuzzer harness: everything that decodes kernel-cache bytes read
 * from LMDB, a bundle file or a KERNEL_CACHE descriptor's JSON.
 *
 * Input: one mode byte, then the bytes. Mode bits 0-1 pick the decoder:
 *   0  a kernel record (cache/kc_record.c kc__kernel_check) and its launch metadata
 *      (engines/fe_code_objects.c fe_kernel_meta_parse)
 *   1  a plan record (kc__plan_check)
 *   2  a bundle (cache/kc_bundle.c kc_import_mem) into a fresh in-memory cache
 *   3  HIPDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION_EXT set on a KERNEL_CACHE descriptor, which
 *      finalize decodes (JSON, base64, then the bundle)
 * Unless bit 2 is set, the checksums (and a plan record's key) are recomputed first, so that
 * mutations reach the field checks behind them; with bit 3 a bundle's records are resealed too.
 * Invariants: a record that passes its checks is exactly what the encoder writes for the view
 * it yields (no two byte strings decode alike), and its metadata, when parsed, points inside
 * it; an accepted bundle leaves only records that verify, and its re-export imports to the
 * same list; a refused bundle (BAD_PARAM, a message, no count) leaves the cache empty; a
 * cache JSON that finalizes serializes to a JSON that loads into a second cache and
 * serializes to the same text.
 * Seeds: corpus/cache_records/ (real records, bundles and JSON from fz_seeds: gfx90a plans of
 * the example graphs compiled with hipRTC).
 */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "cache/kc_int.h"
#include "engines/fe_engines.h"
#include "fz.h"

#define KEEP_SUMS 4
#define DEEP 8

static uint64_t sum_around(const uint8_t *d, size_t end) { return XXH64(d + 56, end - 56, XXH64(d, 48, 0)); }

/* ---- resealing (layouts: cache/kc_record.c, kc_bundle.c) -------------------------------------- */

static void reseal_kernel(uint8_t *d, size_t n)
{
    size_t h = n >= 72 ? kc__get32(d + 68) : 0;
    if (h < 56 || h > n)
        return;
    kc__put64(d + 40, XXH64(d + h, n - h, 0));
    kc__put64(d + 48, sum_around(d, h));
}

static void reseal_plan(uint8_t *d, size_t n)
{
    size_t nk = n >= 80 ? kc__get32(d + 32) : 0;
    if (n < 80 || nk > KC_MAX_KNOBS || 80 + 8 * nk > n)
        return;
    int64_t knobs[KC_MAX_KNOBS];
    for (size_t i = 0; i < nk; i++)
        knobs[i] = (int64_t)kc__get64(d + 80 + 8 * i);
    kc_plan_key pk = {.engine_id = (int64_t)kc__get64(d + 72), .knobs = knobs, .n_knobs = nk};
    memcpy(pk.graph.b, d + 56, KC_KEY_SIZE);
    kc_key key;
    kc_plan_key_hash(&pk, &key);
    memcpy(d + 8, key.b, KC_KEY_SIZE);
    kc__put64(d + 48, sum_around(d, n));
}

static void reseal_bundle(uint8_t *d, size_t n, bool deep)
{
    if (n < 48)
        return;
    size_t end = n - 16, at = 32;
    for (uint32_t i = 0; i < kc__get32(d + 12) && at <= end && end - at >= 40; i++) {
        uint64_t len = kc__get64(d + at + 24);
        if (len > end - at - 40)
            break;
        uint8_t *rec = d + at + 40;
        if (deep && d[at] == KC_TABLE_KERNEL)
            reseal_kernel(rec, (size_t)len);
        if (deep && d[at] == KC_TABLE_PLAN)
            reseal_plan(rec, (size_t)len);
        if (deep && len >= 24)
            memcpy(d + at + 8, rec + 8, KC_KEY_SIZE);
        kc__put64(d + at + 32, XXH64(rec, (size_t)len, XXH64(d + at, 32, 0)));
        at += 40 + (size_t)((len + 7) & ~(uint64_t)7);
    }
    kc__put64(d + 24, XXH64(d, 24, 0));
    kc__put64(d + end + 8, XXH64(d + 32, end - 32, 0));
}

/* ---- records ---------------------------------------------------------------------------------- */

static bool inside(const void *p, const void *base, size_t n)
{
    return (const uint8_t *)p >= (const uint8_t *)base && (const uint8_t *)p < (const uint8_t *)base + n;
}

static void check_meta(const kc_kernel *k)
{
    fe_kernel_meta m;
    if (!fe_kernel_meta_parse(k->meta, k->meta_size, &m))
        return;
    FZ_CHECK(m.n_options >= 0 && m.n_options <= FE_KERNEL_META_MAX_OPTIONS, "%d options", m.n_options);
    for (int i = 0; i < m.n_options; i++)
        FZ_CHECK(inside(m.options[i], k->meta, k->meta_size) &&
                     memchr(m.options[i], 0, k->meta_size - (size_t)(m.options[i] - (const char *)k->meta)),
                 "option %d lies outside the metadata", i);
    FZ_CHECK(inside(m.source, k->meta, k->meta_size) && ((const char *)k->meta)[k->meta_size - 1] == '\0',
             "the source lies outside the metadata");
}

/* The key a record says it is stored under (zeros when it is too short to say). */
static kc_key stored_key(const uint8_t *d, size_t n)
{
    kc_key key = {{0}};
    if (n >= 24)
        memcpy(key.b, d + 8, KC_KEY_SIZE);
    return key;
}

/* The encoder's output for a record's view must be the record. */
static void same_record(const char *what, hipdnnStatus_t st, uint8_t *again, size_t len, const uint8_t *d,
                        size_t n)
{
    FZ_CHECK(st == HIPDNN_STATUS_SUCCESS, "a %s record that passes its checks cannot be written (%s)", what,
             hipdnnGetErrorString(st));
    FZ_CHECK(len == n && memcmp(again, d, n) == 0, "a %s record re-encodes to other bytes (%zu, %zu)", what, n,
             len);
    base_free(again);
}

static void kernel_record(uint8_t *d, size_t n)
{
    kc_key key = stored_key(d, n);
    kc_kernel view;
    if (kc__kernel_check(d, n, &key, true, &view) != NULL)
        return;
    uint8_t *again = NULL;
    size_t len = 0;
    hipdnnStatus_t st = kc__kernel_encode(&view, view.created, &again, &len);
    same_record("kernel", st, again, len, d, n);
    check_meta(&view);
}

static void plan_record(uint8_t *d, size_t n)
{
    kc_key key = stored_key(d, n);
    kc_plan view;
    if (kc__plan_check(d, n, &key, NULL, &view) != NULL)
        return;
    size_t nk = kc__get32(d + 32);
    int64_t knobs[KC_MAX_KNOBS];
    for (size_t i = 0; i < nk; i++)
        knobs[i] = (int64_t)kc__get64(d + 80 + 8 * i);
    kc_plan_key pk = {.engine_id = (int64_t)kc__get64(d + 72), .knobs = knobs, .n_knobs = nk};
    memcpy(pk.graph.b, d + 56, KC_KEY_SIZE);
    FZ_CHECK(kc__plan_check(d, n, &key, &pk, NULL) == NULL, "a plan record does not match its own plan key");
    uint8_t *again = NULL;
    size_t len = 0;
    hipdnnStatus_t st = kc__plan_encode(&pk, &view, view.created, &again, &len);
    same_record("plan", st, again, len, d, n);
}

/* ---- bundles ---------------------------------------------------------------------------------- */

static kc_cache *memory_cache(void)
{
    kc_cache *c = NULL;
    FZ_CHECK(kc_open(NULL, &c) == HIPDNN_STATUS_SUCCESS, "opening a memory cache");
    return c;
}

static void same_lists(kc_cache *a, kc_cache *b)
{
    kc_entry *ea, *eb;
    size_t na, nb;
    FZ_CHECK(kc_list(a, &ea, &na) == HIPDNN_STATUS_SUCCESS && kc_list(b, &eb, &nb) == HIPDNN_STATUS_SUCCESS,
             "listing a memory cache");
    FZ_CHECK(na == nb, "a re-exported bundle imports %zu records, the first %zu", nb, na);
    for (size_t i = 0; i < na; i++)
        FZ_CHECK(ea[i].table == eb[i].table && memcmp(&ea[i].key, &eb[i].key, sizeof ea[i].key) == 0 &&
                     ea[i].size == eb[i].size,
                 "record %zu differs after a re-export", i);
    base_free(ea), base_free(eb);
}

static void bundle(const uint8_t *d, size_t n)
{
    kc_cache *c = memory_cache();
    size_t count = 12345;
    fz_clear_error();
    hipdnnStatus_t st = kc_import_mem(c, d, n, &count);
    kc_stats s;
    FZ_CHECK(kc_get_stats(c, &s) == HIPDNN_STATUS_SUCCESS, "stats of a memory cache");
    if (st != HIPDNN_STATUS_SUCCESS) {
        fz_check_refusal(st, "kc_import_mem");
        FZ_CHECK(st == HIPDNN_STATUS_BAD_PARAM, "a bundle refused with %s", hipdnnGetErrorString(st));
        FZ_CHECK(count == 0 && s.front_entries == 0, "a refused bundle counted %zu, stored %llu", count,
                 (unsigned long long)s.front_entries);
        kc_close(c);
        return;
    }
    kc_bad *bad = NULL;
    size_t n_bad = 0;
    FZ_CHECK(kc_verify(c, false, &bad, &n_bad) == HIPDNN_STATUS_SUCCESS && n_bad == 0,
             "an accepted bundle left %zu bad records (%s)", n_bad, n_bad ? bad[0].reason : "");
    base_free(bad);
    uint8_t *out = NULL;
    size_t len = 0, exported = 0, again = 0;
    FZ_CHECK(kc_export_mem(c, &out, &len, &exported) == HIPDNN_STATUS_SUCCESS, "re-exporting an import");
    FZ_CHECK(exported == s.front_entries, "exported %zu of %llu records", exported,
             (unsigned long long)s.front_entries);
    kc_cache *c2 = memory_cache();
    st = kc_import_mem(c2, out, len, &again);
    FZ_CHECK(st == HIPDNN_STATUS_SUCCESS && again == exported, "a re-export imports %zu of %zu records (%s)",
             again, exported, hipdnnGetErrorString(st));
    same_lists(c, c2);
    base_free(out);
    kc_close(c2), kc_close(c);
}

/* ---- the KERNEL_CACHE descriptor's JSON --------------------------------------------------------- */

/* A KERNEL_CACHE loading `json` at finalize; NULL when finalize refused it. */
static hipdnnBackendDescriptor_t cache_from_json(const char *json, size_t n)
{
    hipdnnBackendDescriptor_t kc = NULL;
    FZ_CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, &kc) == HIPDNN_STATUS_SUCCESS,
             "creating a KERNEL_CACHE");
    hipdnnStatus_t st = hipdnnBackendSetAttribute(kc, HIPDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION_EXT,
                                                  HIPDNN_TYPE_CHAR, (int64_t)n, json);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = hipdnnBackendFinalize(kc);
    if (st == HIPDNN_STATUS_SUCCESS)
        return kc;
    fz_check_refusal(st, "a KERNEL_CACHE's JSON");
    FZ_CHECK(st == HIPDNN_STATUS_BAD_PARAM, "a KERNEL_CACHE's JSON refused with %s", hipdnnGetErrorString(st));
    hipdnnBackendDestroyDescriptor(kc);
    return NULL;
}

static char *json_of(hipdnnBackendDescriptor_t kc)
{
    int64_t n = 0;
    hipdnnStatus_t st = hipdnnBackendGetAttribute(kc, HIPDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION_EXT,
                                                  HIPDNN_TYPE_CHAR, 0, &n, NULL);
    FZ_CHECK(st == HIPDNN_STATUS_SUCCESS && n > 0, "sizing a cache's JSON (%s)", hipdnnGetErrorString(st));
    char *s = malloc((size_t)n);
    int64_t m = 0;
    st = hipdnnBackendGetAttribute(kc, HIPDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION_EXT, HIPDNN_TYPE_CHAR, n,
                                   &m, s);
    FZ_CHECK(st == HIPDNN_STATUS_SUCCESS && m == n, "getting a cache's JSON (%s)", hipdnnGetErrorString(st));
    return s;
}

static void cache_json(const uint8_t *d, size_t n)
{
    fz_clear_error();
    hipdnnBackendDescriptor_t kc = cache_from_json((const char *)d, n);
    if (kc == NULL)
        return;
    char *j1 = json_of(kc);
    hipdnnBackendDescriptor_t kc2 = cache_from_json(j1, strlen(j1));
    FZ_CHECK(kc2 != NULL, "a cache's own JSON is refused");
    char *j2 = json_of(kc2);
    FZ_CHECK(strcmp(j1, j2) == 0, "a cache's JSON loaded again serializes otherwise");
    free(j1), free(j2);
    hipdnnBackendDestroyDescriptor(kc), hipdnnBackendDestroyDescriptor(kc2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    unsigned mode = data[0];
    size_t n = size - 1;
    uint8_t *d = malloc(n > 0 ? n : 1); /* exactly n bytes: ASan sees a read past the end */
    FZ_CHECK(d != NULL, "out of memory");
    memcpy(d, data + 1, n);
    switch (mode & 3) {
    case 0:
        if (!(mode & KEEP_SUMS))
            reseal_kernel(d, n);
        kernel_record(d, n);
        break;
    case 1:
        if (!(mode & KEEP_SUMS))
            reseal_plan(d, n);
        plan_record(d, n);
        break;
    case 2:
        if (!(mode & KEEP_SUMS))
            reseal_bundle(d, n, mode & DEEP);
        bundle(d, n);
        break;
    default:
        cache_json(d, n);
        break;
    }
    free(d);
    return 0;
}
