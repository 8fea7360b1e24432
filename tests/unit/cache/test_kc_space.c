/* test_kc_space.c — the map grows up to its limit, then least-recently-used records go.
 *
 * Owns: growth from a 256 KiB map (many mdb_env_set_mapsize calls, every record readable
 * after reopening); eviction at a 2 MiB limit under a fake clock, where one record is used
 * all along: it must survive, the survivors among the rest must be exactly the newest ones,
 * and the map must stay within the limit; 1500 puts of mixed sizes (up to 1/8 of the limit) at that
 * limit all succeed (eviction never dead-ends on a full map); last-used batching (a use rewrites the time only
 * when it is older than a minute, written at kc_flush, after a minute, or once 32 are
 * pending; a read-only handle never writes it; kc_close writes the queued uses of records
 * older than a minute — issue 14's NULL + 0 under clang's UBSan); prune by age and by size.
 */
#include <string.h>

#include "base/base.h"
#include "cache/kc_int.h"
#include "kt_util.h"

#define T0 1000000000

static char *dir;

static void setup(void) { dir = kt_tmpdir(); }
static void teardown(void)
{
    kt_clock_off();
    kt_rmrf(dir);
}

TestSuite(kc_space, .init = setup, .fini = teardown);

Test(kc_space, full_map_grows)
{
    tu_seed("kc_space/full_map_grows");
    kc_cache *c = kt_open(dir, 64 << 20, 256 << 10);
    kc_stats s;
    TU_OK(kc_get_stats(c, &s));
    cr_expect_eq(s.map_size, 256 << 10, "the first map is %llu bytes", (unsigned long long)s.map_size);
    size_t sizes[200];
    for (uint64_t i = 0; i < 200; i++) {
        sizes[i] = (size_t)tu_range(4000, 40000);
        kt_put(c, i, sizes[i]);
    }
    TU_OK(kc_get_stats(c, &s));
    cr_expect_gt(s.grown, 2, "the map grew %llu times", (unsigned long long)s.grown);
    cr_expect_gt(s.map_size, 4 << 20);
    cr_expect_leq(s.map_size, 64 << 20);
    cr_expect_eq(s.evicted, 0, "nothing was evicted below the limit");
    cr_expect_eq(s.kernels, 200);
    kc_close(c);
    c = kt_open(dir, 64 << 20, 256 << 10);
    TU_OK(kc_get_stats(c, &s));
    cr_expect_gt(s.map_size, 4 << 20, "a reopened cache keeps its grown map");
    for (uint64_t i = 0; i < 200; i++)
        cr_expect_eq(kt_get(c, i, sizes[i]), 1, "kernel %llu", (unsigned long long)i);
    kt_expect_clean(c, "after growing");
    kc_close(c);
}

Test(kc_space, beyond_the_limit_lru_records_go)
{
    enum { N = 90, CODE = 48 << 10 };
    kc_cache *c = kt_open(dir, 2 << 20, 0);
    kc_stats s;
    for (uint64_t i = 0; i < N; i++) {
        kt_clock_set(T0 + 100 * (int64_t)i);
        kt_put(c, i, CODE);
        if (i % 4 == 3)
            cr_expect_eq(kt_get(c, 0, CODE), 1, "kernel 0 is kept while it is used (after %llu)",
                         (unsigned long long)i);
        TU_OK(kc_get_stats(c, &s));
        cr_assert_leq(s.map_size, 2 << 20, "the map stays within the limit");
    }
    cr_expect_gt(s.evicted, 20, "evicted %llu", (unsigned long long)s.evicted);
    kc_close(c);

    c = kt_open(dir, 2 << 20, 0);
    cr_expect_eq(kt_get(c, 0, CODE), 1, "the record used all along survives");
    int first_kept = -1, kept = 0;
    for (int i = 1; i < N; i++) {
        int r = kt_get(c, (uint64_t)i, CODE);
        cr_expect_neq(r, -1);
        if (r == 1 && first_kept < 0)
            first_kept = i;
        kept += r == 1;
        if (first_kept >= 0)
            cr_expect_eq(r, 1, "kernel %d is newer than kept kernel %d: it must be kept too", i, first_kept);
    }
    cr_expect_gt(kept, 10, "%d kept", kept);
    cr_expect_gt(first_kept, 20, "the oldest unused records went first (first kept: %d)", first_kept);
    TU_OK(kc_get_stats(c, &s));
    cr_expect_leq(s.bytes, 2 << 20);
    kt_expect_clean(c, "after eviction");
    kc_close(c);
}

Test(kc_space, sustained_eviction_with_mixed_sizes)
{
    tu_seed("kc_space/sustained_eviction_with_mixed_sizes");
    kc_cache *c = kt_open(dir, 2 << 20, 128 << 10);
    size_t last = 0;
    int failed = 0;
    for (uint64_t i = 0; i < 1500; i++) {
        last = (size_t)(tu_range(0, 9) == 0 ? tu_range(100000, 255000) : tu_range(1, 40000));
        kt_kernel t;
        kt_make(&t, i, last);
        hipdnnStatus_t st = kc_put_kernel(c, &t.k);
        kt_free(&t);
        if (st != HIPDNN_STATUS_SUCCESS && failed++ < 5)
            cr_log_error("put %llu (%zu bytes): %s", (unsigned long long)i, last, tu_msg());
    }
    cr_expect_eq(failed, 0, "%d puts failed", failed);
    kc_stats s;
    TU_OK(kc_get_stats(c, &s));
    cr_expect_leq(s.map_size, 2 << 20);
    cr_expect_leq(s.bytes, 2 << 20);
    cr_expect_gt(s.evicted, 1000);
    cr_expect_eq(kt_get(c, 1499, last), 1, "the newest record is there");
    kt_expect_clean(c, "after sustained eviction");
    kc_close(c);
}

static int64_t listed_last_used(kc_cache *c, uint64_t id)
{
    kc_entry *en;
    size_t n;
    kc_key k;
    kt_key(id, &k);
    TU_OK(kc_list(c, &en, &n));
    int64_t t = -1;
    for (size_t i = 0; i < n; i++)
        if (memcmp(en[i].key.b, k.b, KC_KEY_SIZE) == 0)
            t = en[i].last_used;
    base_free(en);
    return t;
}

Test(kc_space, last_used_is_batched)
{
    kt_clock_set(T0);
    kc_cache *c = kt_open(dir, 0, 0);
    kt_put(c, 1, 1000);
    cr_expect_eq(listed_last_used(c, 1), T0, "a put records its time");
    kt_clock_set(T0 + 30);
    cr_expect_eq(kt_get(c, 1, 1000), 1);
    TU_OK(kc_flush(c));
    cr_expect_eq(listed_last_used(c, 1), T0, "a use within a minute is not written");
    kt_clock_set(T0 + 100);
    cr_expect_eq(kt_get(c, 1, 1000), 1);
    cr_expect_eq(listed_last_used(c, 1), T0, "a stale use is queued, not written at once");
    TU_OK(kc_flush(c));
    cr_expect_eq(listed_last_used(c, 1), T0 + 100, "kc_flush writes it");
    kt_clock_set(T0 + 200);
    cr_expect_eq(kt_get(c, 1, 1000), 1);
    kt_clock_set(T0 + 290);
    cr_expect_eq(kt_get(c, 1, 1000), 1, "a lookup a minute and a half after the queued use");
    cr_expect_geq(listed_last_used(c, 1), T0 + 200, "a use pending over a minute is written by the next lookup");

    for (uint64_t i = 10; i < 50; i++)
        kt_put(c, i, 500);
    kt_clock_set(T0 + 1000);
    for (uint64_t i = 10; i < 50; i++)
        cr_expect_eq(kt_get(c, i, 500), 1);
    int written = 0;
    for (uint64_t i = 10; i < 50; i++)
        written += listed_last_used(c, i) == T0 + 1000;
    cr_expect_geq(written, 32, "32 pending uses are written without a flush (%d were)", written);
    kc_close(c);

    c = kt_open(dir, 0, 0);
    cr_expect_eq(listed_last_used(c, 49), T0 + 1000, "kc_close wrote the rest");
    kc_options o = {.dir = dir, .read_only = true};
    kc_cache *ro = NULL;
    TU_OK(kc_open(&o, &ro));
    cr_expect_eq(kc_get_mode(ro), KC_MODE_READ_ONLY);
    kt_clock_set(T0 + 5000);
    cr_expect_eq(kt_get(ro, 12, 500), 1);
    kc_close(ro);
    TU_OK(kc_flush(c));
    cr_expect_eq(listed_last_used(c, 12), T0 + 1000, "a read-only handle records no use");
    kc_close(c);
}

/* Issue 14 (4): closing a cache whose records were used more than a minute after they were
 * written flushes the queued last-used times with no record to store; that path once applied a
 * zero offset to a NULL record array (clang's UBSan: "applying zero offset to null pointer"). */
Test(kc_space, close_writes_stale_uses_of_old_records)
{
    kt_clock_set(T0);
    kc_cache *c = kt_open(dir, 0, 0);
    for (uint64_t i = 1; i <= 3; i++)
        kt_put(c, i, 700);
    kc_close(c);
    c = kt_open(dir, 0, 0);
    kt_clock_set(T0 + KC_TOUCH_INTERVAL_S + 5);
    for (uint64_t i = 1; i <= 3; i++)
        cr_expect_eq(kt_get(c, i, 700), 1, "kernel %llu", (unsigned long long)i);
    kc_close(c); /* the only write left: the queued uses */
    c = kt_open(dir, 0, 0);
    for (uint64_t i = 1; i <= 3; i++)
        cr_expect_eq(listed_last_used(c, i), T0 + KC_TOUCH_INTERVAL_S + 5, "kc_close wrote kernel %llu's use",
                     (unsigned long long)i);
    kc_close(c);
}

Test(kc_space, prune_by_age_and_size)
{
    kc_cache *c = kt_open(dir, 0, 0);
    for (uint64_t i = 0; i < 10; i++) {
        kt_clock_set(T0 + 1000 * (int64_t)i);
        kt_put(c, i, 10000);
    }
    kt_clock_set(T0 + 10000);
    size_t removed = 0;
    TU_OK(kc_prune(c, 0, 5500, &removed));
    cr_expect_eq(removed, 5, "records last used before T0+4500 go");
    for (uint64_t i = 0; i < 10; i++)
        cr_expect_eq(listed_last_used(c, i) >= 0, i >= 5, "kernel %llu", (unsigned long long)i);
    kc_stats s;
    TU_OK(kc_get_stats(c, &s));
    uint64_t one = s.bytes / 5;
    TU_OK(kc_prune(c, 3 * one, 0, &removed));
    cr_expect_eq(removed, 2);
    TU_OK(kc_get_stats(c, &s));
    cr_expect_eq(s.kernels, 3);
    cr_expect_leq(s.bytes, 3 * one);
    for (uint64_t i = 0; i < 10; i++)
        cr_expect_eq(kt_get(c, i, 10000), i >= 7 ? 1 : 0, "kernel %llu after the size prune", (unsigned long long)i);
    TU_OK(kc_prune(c, 0, 0, &removed));
    cr_expect_eq(removed, 0, "no limits: nothing goes");
    kt_expect_clean(c, "after prune");
    kc_close(c);
}
