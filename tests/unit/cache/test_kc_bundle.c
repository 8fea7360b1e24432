/* test_kc_bundle.c — export and import of the portable bundle.
 *
 * Owns: a round trip through a file between two LMDB caches (every kernel and plan comes back
 * exactly, the re-exported bundle is byte-identical), between memory and LMDB caches, export
 * skipping a corrupt record; and rejection: truncations, flipped bytes in the header, a
 * record and the trailer, changed counts, sizes and versions (with checksums recomputed so the
 * deeper checks are reached), a damaged record inside a correctly checksummed entry, empty
 * and missing files, a bundle over the cache's limit, import into a read-only handle — each
 * with a message, and the target cache unchanged and clean.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "cache/kc_int.h"
#include "kt_util.h"

#define NK 30

static char *dir_a, *dir_b;
static size_t sizes[NK];

static void setup(void)
{
    dir_a = kt_tmpdir();
    dir_b = kt_tmpdir();
}

static void teardown(void)
{
    kt_rmrf(dir_a);
    kt_rmrf(dir_b);
}

TestSuite(kc_bundle, .init = setup, .fini = teardown);

static kc_plan_key plan_key(int i, int64_t *knobs)
{
    kc_plan_key pk = {.engine_id = i, .knobs = knobs, .n_knobs = 3};
    kt_key(500 + (uint64_t)i, &pk.graph);
    knobs[0] = i, knobs[1] = 2 * i, knobs[2] = -i;
    return pk;
}

/* Fills a cache with NK kernels and 3 plans. */
static void fill(kc_cache *c)
{
    for (int i = 0; i < NK; i++) {
        sizes[i] = (size_t)tu_range(1, 50000);
        kt_put(c, (uint64_t)i, sizes[i]);
    }
    for (int i = 0; i < 3; i++) {
        int64_t knobs[3];
        kc_plan_key pk = plan_key(i, knobs);
        kc_key ks[2];
        kt_key((uint64_t)i, &ks[0]);
        kt_key((uint64_t)i + 1, &ks[1]);
        kc_plan p = {.kernels = ks, .n_kernels = 2, .recipe = "recipe bytes", .recipe_size = 6 + (size_t)i};
        TU_OK(kc_put_plan(c, &pk, &p));
    }
}

static void expect_all(kc_cache *c, const char *what)
{
    for (int i = 0; i < NK; i++)
        cr_expect_eq(kt_get(c, (uint64_t)i, sizes[i]), 1, "%s: kernel %d", what, i);
    for (int i = 0; i < 3; i++) {
        int64_t knobs[3];
        kc_plan_key pk = plan_key(i, knobs);
        kc_plan p;
        cr_assert(kc_get_plan(c, &pk, &p), "%s: plan %d", what, i);
        cr_expect_eq(p.n_kernels, 2);
        cr_expect_eq(p.recipe_size, 6 + (size_t)i);
        kc_plan_release(&p);
    }
    kt_expect_clean(c, what);
}

static char *bundle_path(void)
{
    static char p[600];
    snprintf(p, sizeof p, "%s/cache.bundle", dir_b);
    return p;
}

Test(kc_bundle, file_round_trip_between_caches)
{
    tu_seed("kc_bundle/file_round_trip_between_caches");
    kc_cache *a = kt_open(dir_a, 0, 0);
    fill(a);
    size_t n = 0;
    TU_OK(kc_export(a, bundle_path(), &n));
    cr_expect_eq(n, NK + 3);
    uint8_t *ba, *bb;
    size_t la, lb;
    TU_OK(kc_export_mem(a, &ba, &la, &n));
    kc_close(a);

    char sub[600];
    snprintf(sub, sizeof sub, "%s/b", dir_b);
    kc_cache *b = kt_open(sub, 0, 0);
    TU_OK(kc_import(b, bundle_path(), &n));
    cr_expect_eq(n, NK + 3);
    expect_all(b, "imported");
    TU_OK(kc_export_mem(b, &bb, &lb, &n));
    cr_expect_eq(la, lb);
    cr_expect(la == lb && memcmp(ba, bb, la) == 0, "exporting the imported cache gives the same bundle");
    TU_OK(kc_import(b, bundle_path(), &n));
    cr_expect_eq(n, NK + 3, "importing twice overwrites");
    kc_stats s;
    TU_OK(kc_get_stats(b, &s));
    cr_expect_eq(s.kernels, NK);
    cr_expect_eq(s.plans, 3);
    base_free(ba);
    base_free(bb);
    kc_close(b);
}

Test(kc_bundle, memory_and_lmdb_caches_exchange_bundles)
{
    tu_seed("kc_bundle/memory_and_lmdb_caches_exchange_bundles");
    kc_cache *m = NULL;
    TU_OK(kc_open(NULL, &m));
    fill(m);
    uint8_t *b;
    size_t len, n;
    TU_OK(kc_export_mem(m, &b, &len, &n));
    cr_expect_eq(n, NK + 3);
    kc_cache *a = kt_open(dir_a, 0, 0);
    TU_OK(kc_import_mem(a, b, len, &n));
    base_free(b);
    expect_all(a, "memory -> LMDB");
    kc_cache *m2 = NULL;
    TU_OK(kc_open(NULL, &m2));
    TU_OK(kc_export_mem(a, &b, &len, &n));
    TU_OK(kc_import_mem(m2, b, len, &n));
    base_free(b);
    expect_all(m2, "LMDB -> memory");
    kc_close(m);
    kc_close(m2);
    kc_close(a);

    kc_cache *empty = kt_open(dir_b, 0, 0);
    TU_OK(kc_export_mem(empty, &b, &len, &n));
    cr_expect_eq(n, 0);
    cr_expect_eq(len, 48, "an empty bundle is a header and a trailer");
    TU_OK(kc_import_mem(empty, b, len, &n));
    base_free(b);
    kc_close(empty);
}

Test(kc_bundle, export_skips_corrupt_records)
{
    tu_seed("kc_bundle/export_skips_corrupt_records");
    kc_cache *a = kt_open(dir_a, 0, 0);
    fill(a);
    kc_close(a);
    kc_key k;
    kt_key(4, &k);
    size_t len;
    uint8_t *v = kt_raw_get(dir_a, "kernels", k.b, KC_KEY_SIZE, &len);
    cr_assert_not_null(v);
    v[len - 1] ^= 1;
    kt_raw_put(dir_a, "kernels", k.b, KC_KEY_SIZE, v, len);
    free(v);
    a = kt_open(dir_a, 0, 0);
    size_t n;
    TU_OK(kc_export(a, bundle_path(), &n));
    cr_expect_eq(n, NK + 3 - 1, "the corrupt record is left out");
    kc_close(a);
    kc_cache *b = kt_open(dir_a, 0, 0);
    TU_OK(kc_import(b, bundle_path(), &n));
    kc_close(b);
}

/* ---- rejection --------------------------------------------------------------------------------- */

static uint8_t *good_bundle(size_t *len)
{
    kc_cache *a = kt_open(dir_a, 0, 0);
    fill(a);
    uint8_t *b;
    size_t n;
    TU_OK(kc_export_mem(a, &b, len, &n));
    kc_close(a);
    return b;
}

/* The target cache: a few records of its own. */
static kc_cache *target(void)
{
    kc_cache *c = kt_open(dir_b, 0, 0);
    for (uint64_t i = 1000; i < 1005; i++)
        kt_put(c, i, 3333);
    return c;
}

static void expect_rejected(kc_cache *c, const uint8_t *b, size_t len, const char *what, const char *msg_part)
{
    kt_snapshot before = kt_snap(c);
    uint8_t *copy = malloc(len > 0 ? len : 1);
    memcpy(copy, b, len);
    size_t n = 99;
    hipdnnStatus_t st = kc_import_mem(c, copy, len, &n);
    free(copy);
    cr_expect_eq(st, HIPDNN_STATUS_BAD_PARAM, "%s: status %s [%s]", what, tu_st(st), tu_msg());
    cr_expect_eq(n, 0, "%s: nothing counted as imported", what);
    cr_expect(strstr(tu_msg(), "nothing was imported") != NULL, "%s: message: %s", what, tu_msg());
    cr_expect(msg_part == NULL || strstr(tu_msg(), msg_part) != NULL, "%s: message should mention \"%s\": %s",
              what, msg_part, tu_msg());
    kt_snapshot after = kt_snap(c);
    cr_expect(memcmp(&before, &after, sizeof before) == 0, "%s: the cache changed", what);
}

Test(kc_bundle, bad_bundles_are_rejected_and_change_nothing)
{
    tu_seed("kc_bundle/bad_bundles_are_rejected_and_change_nothing");
    size_t len;
    uint8_t *good = good_bundle(&len);
    uint8_t *b = malloc(len);
    kc_cache *c = target();
    size_t offs[64];
    size_t ne = kt_bundle_entries(good, len, offs, 64);
    cr_assert_eq(ne, NK + 3);

    expect_rejected(c, good, 0, "empty", "too short");
    expect_rejected(c, good, 47, "47 bytes", "too short");
    for (int i = 0; i < 20; i++) {
        size_t cut = (size_t)tu_range(48, (int64_t)len - 1);
        expect_rejected(c, good, cut, "truncated", NULL);
    }
    memcpy(b, good, len);
    b[0] ^= 1;
    expect_rejected(c, b, len, "magic", "magic");
    memcpy(b, good, len);
    b[13] ^= 1;
    expect_rejected(c, b, len, "count, checksum not updated", "header checksum");
    kt_bundle_reseal(b, len, false);
    expect_rejected(c, b, len, "count, resealed", NULL);
    memcpy(b, good, len);
    kc__put32(b + 8, 2);
    kt_bundle_reseal(b, len, false);
    expect_rejected(c, b, len, "version 2", "version 2");
    memcpy(b, good, len);
    kc__put64(b + 16, len + 8);
    kt_bundle_reseal(b, len, false);
    expect_rejected(c, b, len, "size field", "truncated");
    memcpy(b, good, len);
    b[len - 4] ^= 0x40;
    expect_rejected(c, b, len, "trailer", "checksum over the records");
    memcpy(b, good, len);
    b[len - 16] ^= 0x40;
    kt_bundle_reseal(b, len, false);
    expect_rejected(c, b, len, "trailer magic", "trailer");

    size_t e = offs[tu_range(0, (int64_t)ne - 1)];
    uint64_t rl = kc__get64(good + e + 24);
    memcpy(b, good, len);
    b[e + 40 + (size_t)tu_range(0, (int64_t)rl - 1)] ^= 0x08;
    expect_rejected(c, b, len, "a record byte", "checksum mismatch");
    kt_bundle_reseal(b, len, true);
    expect_rejected(c, b, len, "a record byte, resealed entry", NULL);
    memcpy(b, good, len);
    b[e] = 3;
    kt_bundle_reseal(b, len, true);
    expect_rejected(c, b, len, "table byte", "table byte");
    memcpy(b, good, len);
    b[e + 8] ^= 1; /* the entry's key no longer matches the record's */
    kt_bundle_reseal(b, len, true);
    expect_rejected(c, b, len, "entry key", "key");
    memcpy(b, good, len);
    kc__put64(b + e + 24, rl + 8);
    kt_bundle_reseal(b, len, true);
    expect_rejected(c, b, len, "record length", NULL);
    memcpy(b, good, len);
    kc__put64(b + e + 24, UINT64_MAX - 3);
    kt_bundle_reseal(b, len, true);
    expect_rejected(c, b, len, "huge record length", "runs past the end");

    free(b);
    kc_close(c);
    c = kt_open(dir_b, 0, 0);
    kt_expect_clean(c, "after the rejected imports");
    for (uint64_t i = 1000; i < 1005; i++)
        cr_expect_eq(kt_get(c, i, 3333), 1);
    kc_stats s;
    TU_OK(kc_get_stats(c, &s));
    cr_expect_eq(s.kernels, 5, "only the target's own kernels");
    cr_expect_eq(s.plans, 0);
    size_t n;
    TU_OK(kc_import_mem(c, good, len, &n));
    cr_expect_eq(n, NK + 3, "the intact bundle still imports");
    free(good);
    kc_close(c);
}

Test(kc_bundle, files_limits_and_read_only_handles)
{
    tu_seed("kc_bundle/files_limits_and_read_only_handles");
    kc_cache *c = target();
    size_t n;
    char missing[600];
    snprintf(missing, sizeof missing, "%s/nope.bundle", dir_a);
    TU_EQ(kc_import(c, missing, &n), HIPDNN_STATUS_INTERNAL_ERROR);
    cr_expect(strstr(tu_msg(), "nope.bundle") != NULL, "message names the file: %s", tu_msg());
    FILE *f = fopen(bundle_path(), "wb");
    fputs("not a bundle at all, but long enough to have a header and a trailer....", f);
    fclose(f);
    TU_EQ(kc_import(c, bundle_path(), &n), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), bundle_path()) != NULL && strstr(tu_msg(), "magic") != NULL, "message: %s",
              tu_msg());
    kc_close(c);

    size_t len;
    uint8_t *good = good_bundle(&len);
    kc_options o = {.dir = dir_b, .read_only = true};
    kc_cache *ro = NULL;
    TU_OK(kc_open(&o, &ro));
    TU_EQ(kc_import_mem(ro, good, len, &n), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "writable") != NULL, "message: %s", tu_msg());
    kc_close(ro);

    char small_dir[600];
    snprintf(small_dir, sizeof small_dir, "%s/small", dir_b);
    kc_cache *small = kt_open(small_dir, 1 << 20, 0);
    kc_cache *big = kt_open(dir_a, 0, 0);
    for (uint64_t i = 0; i < 40; i++)
        kt_put(big, 2000 + i, 40000);
    uint8_t *b;
    TU_OK(kc_export_mem(big, &b, &len, &n));
    kt_snapshot before = kt_snap(small);
    TU_EQ(kc_import_mem(small, b, len, &n), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "limit") != NULL, "message: %s", tu_msg());
    kt_snapshot after = kt_snap(small);
    cr_expect(memcmp(&before, &after, sizeof before) == 0, "the small cache is unchanged");
    base_free(b);
    free(good);
    kc_close(small);
    kc_close(big);
}
