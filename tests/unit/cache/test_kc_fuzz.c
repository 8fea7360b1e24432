/* test_kc_fuzz.c — mutated bundles never crash the importer or damage the cache.
 *
 * Owns: mutation corpora generated here from a valid bundle (6 kernels, 2 plans) and fed to
 * kc_import_mem on an LMDB cache holding records of its own:
 *   - truncation at every length, and every single-bit flip (each must be rejected: every
 *     byte is under a checksum or must be zero);
 *   - random overwrites of 1-8 bytes with the bundle's checksums recomputed, so the structural
 *     checks are reached;
 *   - the same with each record's own checksums recomputed too ("deep"), so the record's
 *     field checks are reached and some mutants are valid records (accepted);
 *   - every aligned 32- and 64-bit word replaced with 0, 1, -1, the bundle length +-1, a
 *     record length, 2^31, 2^63 (deep-resealed);
 *   - structural edits: a duplicated entry, two entries swapped, an entry dropped, the count
 *     changed, garbage after a valid header.
 * Every input must give SUCCESS or BAD_PARAM; a rejection leaves a message, counts nothing
 * and leaves the cache exactly as it was (list and stats); an acceptance leaves a cache whose
 * every record verifies. Inputs are copied to exact-size heap blocks so that ASan
 * (`./build.sh test`) sees any read past the end. Seeds are printed; HIPDNN_TEST_SEED replays.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "base/base.h"
#include "cache/kc_int.h"
#include "kt_util.h"

#define MAX_REPORTS 25

static char *dir;
static kc_cache *cache;
static kt_snapshot snap;

typedef struct tally {
    int cases, accepted, rejected, wrong, reported;
} tally;

static void setup(void)
{
    dir = kt_tmpdir();
    cache = kt_open(dir, 64 << 20, 0);
    for (uint64_t i = 900; i < 904; i++)
        kt_put(cache, i, 2500);
    snap = kt_snap(cache);
}

static void teardown(void)
{
    kc_close(cache);
    kt_rmrf(dir);
}

TestSuite(kc_fuzz, .init = setup, .fini = teardown, .timeout = 600);

static void report(tally *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(tally *t, const char *fmt, ...)
{
    t->wrong++;
    if (t->reported++ < MAX_REPORTS) {
        char buf[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        cr_expect_fail("%s", buf);
    }
}

static void check_clean(tally *t, const char *what)
{
    kc_bad *bad;
    size_t n;
    if (kc_verify(cache, false, &bad, &n) != HIPDNN_STATUS_SUCCESS || n != 0)
        report(t, "%s: accepted, and now the cache has %zu bad records [%s]", what, n, n ? bad[0].reason : tu_msg());
    base_free(bad);
}

/* Feeds one input; must_reject: the mutation cannot leave a valid bundle. */
static void feed(tally *t, const uint8_t *bytes, size_t len, bool must_reject, const char *what)
{
    uint8_t *copy = malloc(len > 0 ? len : 1);
    cr_assert_not_null(copy);
    memcpy(copy, bytes, len);
    char msg[8];
    hipdnnGetLastErrorString(msg, sizeof msg);
    size_t n = 12345;
    hipdnnStatus_t st = kc_import_mem(cache, copy, len, &n);
    free(copy);
    t->cases++;
    if (st == HIPDNN_STATUS_SUCCESS) {
        t->accepted++;
        if (must_reject)
            report(t, "%s: accepted, but it cannot be a valid bundle", what);
        check_clean(t, what);
        snap = kt_snap(cache);
        return;
    }
    t->rejected++;
    if (st != HIPDNN_STATUS_BAD_PARAM)
        report(t, "%s: status %s [%s]", what, tu_st(st), tu_msg());
    if (n != 0)
        report(t, "%s: rejected, but %zu records counted", what, n);
    if (tu_msg()[0] == '\0')
        report(t, "%s: rejected without a message", what);
    kt_snapshot now = kt_snap(cache);
    if (memcmp(&now, &snap, sizeof now) != 0)
        report(t, "%s: rejected, but the cache changed", what);
}

static void summary(const tally *t, const char *family)
{
    cr_log_info("%s: %d cases, %d accepted, %d rejected, %d wrong", family, t->cases, t->accepted, t->rejected,
                t->wrong);
    cr_expect_eq(t->wrong, 0, "%s: %d wrong outcomes", family, t->wrong);
}

/* ---- the corpus ------------------------------------------------------------------------------------ */

static uint8_t *corpus(size_t *len)
{
    kc_cache *m = NULL;
    TU_OK(kc_open(NULL, &m));
    for (uint64_t i = 0; i < 6; i++)
        kt_put(m, i, (size_t)tu_range(1, 300));
    for (int i = 0; i < 2; i++) {
        int64_t knobs[2] = {i, 7};
        kc_plan_key pk = {.engine_id = i, .knobs = knobs, .n_knobs = (size_t)i + 1};
        kt_key(77 + (uint64_t)i, &pk.graph);
        kc_key ks[3];
        for (int j = 0; j < 3; j++)
            kt_key((uint64_t)j, &ks[j]);
        kc_plan p = {.kernels = ks, .n_kernels = 3, .recipe = "launch-recipe", .recipe_size = 13};
        TU_OK(kc_put_plan(m, &pk, &p));
    }
    uint8_t *b;
    size_t n;
    TU_OK(kc_export_mem(m, &b, len, &n));
    cr_assert_eq(n, 8);
    kc_close(m);
    return b;
}

/* Recomputes a record's own checksums (formats in cache/kc_record.c), as far as it can. */
static void reseal_record(uint8_t *d, size_t len)
{
    if (len < 80)
        return;
    if (memcmp(d, "HDKK", 4) == 0) {
        size_t h = kc__get32(d + 68);
        if (h < 56 || h > len)
            return;
        kc__put64(d + 40, XXH64(d + h, len - h, 0));
        kc__put64(d + 48, XXH64(d + 56, h - 56, XXH64(d, 48, 0)));
    } else if (memcmp(d, "HDKP", 4) == 0) {
        kc__put64(d + 48, XXH64(d + 56, len - 56, XXH64(d, 48, 0)));
    }
}

static void reseal_deep(uint8_t *b, size_t len)
{
    size_t offs[64];
    size_t n = kt_bundle_entries(b, len, offs, 64);
    for (size_t i = 0; i < n; i++)
        reseal_record(b + offs[i] + 40, (size_t)kc__get64(b + offs[i] + 24));
    kt_bundle_reseal(b, len, true);
}

/* ---- families ------------------------------------------------------------------------------------- */

Test(kc_fuzz, truncations_and_bit_flips)
{
    tu_seed("kc_fuzz/truncations_and_bit_flips");
    size_t len;
    uint8_t *good = corpus(&len);
    tally t = {0};
    char what[96];
    for (size_t cut = 0; cut < len; cut++) {
        snprintf(what, sizeof what, "truncated to %zu of %zu bytes", cut, len);
        feed(&t, good, cut, true, what);
    }
    uint8_t *b = malloc(len);
    for (size_t i = 0; i < len; i++)
        for (int bit = 0; bit < 8; bit++) {
            memcpy(b, good, len);
            b[i] ^= (uint8_t)(1u << bit);
            snprintf(what, sizeof what, "bit %d of byte %zu flipped", bit, i);
            feed(&t, b, len, true, what);
        }
    feed(&t, good, len, false, "the intact corpus");
    cr_expect_eq(t.accepted, 1, "only the intact bundle is accepted");
    summary(&t, "truncations and bit flips");
    free(b);
    base_free(good);
}

static void overwrite_family(bool deep, int cases, const char *family)
{
    size_t len;
    uint8_t *good = corpus(&len);
    uint8_t *b = malloc(len);
    tally t = {0};
    char what[128];
    for (int c = 0; c < cases; c++) {
        memcpy(b, good, len);
        int k = (int)tu_range(1, 8);
        size_t at = (size_t)tu_range(0, (int64_t)len - 1);
        for (int j = 0; j < k && at + (size_t)j < len; j++)
            b[at + (size_t)j] = (uint8_t)tu_range(0, 255);
        deep ? reseal_deep(b, len) : kt_bundle_reseal(b, len, true);
        snprintf(what, sizeof what, "%s: %d bytes at %zu overwritten", family, k, at);
        feed(&t, b, len, false, what);
    }
    summary(&t, family);
    free(b);
    base_free(good);
}

Test(kc_fuzz, overwrites_with_bundle_checksums_fixed)
{
    tu_seed("kc_fuzz/overwrites_with_bundle_checksums_fixed");
    overwrite_family(false, 3000, "resealed overwrites");
}

Test(kc_fuzz, overwrites_with_record_checksums_fixed)
{
    tu_seed("kc_fuzz/overwrites_with_record_checksums_fixed");
    overwrite_family(true, 3000, "deep-resealed overwrites");
}

Test(kc_fuzz, interesting_words)
{
    tu_seed("kc_fuzz/interesting_words");
    size_t len;
    uint8_t *good = corpus(&len);
    uint8_t *b = malloc(len);
    tally t = {0};
    char what[128];
    const uint64_t values[] = {0, 1, UINT64_MAX, len, len - 1, len + 1, 80, 0x80000000ull, 1ull << 63, 16, 0xffff};
    for (int width = 4; width <= 8; width += 4)
        for (size_t at = 0; at + (size_t)width <= len; at += (size_t)width)
            for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
                memcpy(b, good, len);
                width == 4 ? kc__put32(b + at, (uint32_t)values[v]) : kc__put64(b + at, values[v]);
                reseal_deep(b, len);
                snprintf(what, sizeof what, "%d-byte word at %zu = %llu", width, at, (unsigned long long)values[v]);
                feed(&t, b, len, false, what);
            }
    summary(&t, "interesting words");
    free(b);
    base_free(good);
}

Test(kc_fuzz, structural_edits)
{
    tu_seed("kc_fuzz/structural_edits");
    size_t len;
    uint8_t *good = corpus(&len);
    size_t offs[64];
    size_t n = kt_bundle_entries(good, len, offs, 64);
    cr_assert_eq(n, 8);
    tally t = {0};
    char what[128];
    uint8_t *b = malloc(2 * len + 4096);
    for (size_t i = 0; i < n; i++) {
        size_t end = i + 1 < n ? offs[i + 1] : len - 16, sz = end - offs[i];
        /* duplicated entry i: valid (a record imported twice) */
        memcpy(b, good, end);
        memcpy(b + end, good + offs[i], sz);
        memcpy(b + end + sz, good + end, len - end);
        kc__put32(b + 12, (uint32_t)n + 1);
        kc__put64(b + 16, len + sz);
        kt_bundle_reseal(b, len + sz, false);
        snprintf(what, sizeof what, "entry %zu duplicated", i);
        feed(&t, b, len + sz, false, what);
        /* entry i dropped, count kept: must be rejected; count fixed: valid */
        memcpy(b, good, offs[i]);
        memcpy(b + offs[i], good + end, len - end);
        kc__put64(b + 16, len - sz);
        kt_bundle_reseal(b, len - sz, false);
        snprintf(what, sizeof what, "entry %zu dropped, count kept", i);
        feed(&t, b, len - sz, true, what);
        kc__put32(b + 12, (uint32_t)n - 1);
        kt_bundle_reseal(b, len - sz, false);
        snprintf(what, sizeof what, "entry %zu dropped", i);
        feed(&t, b, len - sz, false, what);
    }
    for (int c = 0; c < 200; c++) { /* garbage after a valid header */
        size_t glen = (size_t)tu_range(16, 4000);
        memcpy(b, good, 32);
        tu_bytes(b + 32, glen);
        kc__put32(b + 12, (uint32_t)tu_range(0, 40));
        kc__put64(b + 16, 32 + glen);
        kt_bundle_reseal(b, 32 + glen, tu_range(0, 1) != 0);
        snprintf(what, sizeof what, "%zu bytes of garbage after the header", glen);
        feed(&t, b, 32 + glen, true, what);
    }
    for (int c = 0; c < 100; c++) { /* two entries swapped: valid */
        size_t i = (size_t)tu_range(0, (int64_t)n - 2);
        size_t a0 = offs[i], a1 = offs[i + 1], b1 = i + 2 < n ? offs[i + 2] : len - 16;
        memcpy(b, good, len);
        memcpy(b + a0, good + a1, b1 - a1);
        memcpy(b + a0 + (b1 - a1), good + a0, a1 - a0);
        kt_bundle_reseal(b, len, false);
        snprintf(what, sizeof what, "entries %zu and %zu swapped", i, i + 1);
        feed(&t, b, len, false, what);
    }
    cr_expect_geq(t.accepted, 2 * (int)n, "duplicates, drops and swaps are valid bundles");
    summary(&t, "structural edits");
    free(b);
    base_free(good);
}

Test(kc_fuzz, memory_cache_target)
{
    tu_seed("kc_fuzz/memory_cache_target");
    kc_close(cache);
    TU_OK(kc_open(NULL, &cache));
    snap = kt_snap(cache);
    overwrite_family(true, 1500, "deep-resealed overwrites into a memory cache");
}
