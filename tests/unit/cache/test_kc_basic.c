/* test_kc_basic.c — the kernel cache's contract on a healthy directory and in memory.
 *
 * Owns: put/get round trips of kernels (every field, random code sizes, metadata past 64 KB) and plans, across a
 * close and reopen; misses for other keys (one flipped bit each) and for plan keys that differ
 * in graph, engine, a knob or the knob count; overwrites; the front (a second lookup does not
 * read LMDB); memory mode and its byte bound; argument checks with messages; key hex helpers;
 * and allocation failures injected at every allocation of a scenario (each call fails cleanly
 * or succeeds; leaks are LeakSanitizer's to find in the ASan build).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "kt_util.h"

static char *dir;

static void setup(void) { dir = kt_tmpdir(); }
static void teardown(void) { kt_rmrf(dir); }

TestSuite(kc_basic, .init = setup, .fini = teardown);

Test(kc_basic, kernel_round_trip_survives_reopen)
{
    tu_seed("kc_basic/kernel_round_trip_survives_reopen");
    enum { N = 12 };
    size_t sizes[N];
    int64_t before = (int64_t)time(NULL);
    kc_cache *c = kt_open(dir, 0, 0);
    cr_expect_eq(kc_get_mode(c), KC_MODE_READ_WRITE);
    cr_expect_str_eq(kc_dir(c), dir);
    for (int i = 0; i < N; i++) {
        sizes[i] = (size_t)tu_range(1, 300000);
        kt_put(c, (uint64_t)i, sizes[i]);
    }
    for (int i = 0; i < N; i++)
        cr_expect_eq(kt_get(c, (uint64_t)i, sizes[i]), 1, "kernel %d in the writing handle", i);
    kc_close(c);

    c = kt_open(dir, 0, 0);
    kc_key key;
    kt_key(3, &key);
    kc_kernel got;
    cr_assert(kc_get_kernel(c, &key, &got), "kernel 3 after reopening");
    cr_expect(kt_matches(&got, 3, sizes[3]));
    cr_expect(got.created >= before && got.created <= (int64_t)time(NULL) + 1, "created %lld",
              (long long)got.created);
    cr_expect(got.last_used >= got.created, "last used %lld", (long long)got.last_used);
    cr_expect_eq((uintptr_t)got.code % 16, 0, "code is 16-byte aligned");
    kc_kernel_release(&got);
    cr_expect_null(got.owned, "release zeroes the record");
    kc_stats s;
    TU_OK(kc_get_stats(c, &s));
    cr_expect_eq(s.lmdb_reads, 1);
    cr_expect_eq(s.front_hits, 0);
    cr_expect_eq(s.kernels, N);
    cr_expect_eq(kt_get(c, 3, sizes[3]), 1);
    TU_OK(kc_get_stats(c, &s));
    cr_expect_eq(s.lmdb_reads, 1, "the second lookup is served by the front");
    cr_expect_eq(s.front_hits, 1);
    cr_expect_eq(s.hits, 2);
    for (int i = 0; i < N; i++)
        cr_expect_eq(kt_get(c, (uint64_t)i, sizes[i]), 1, "kernel %d after reopening", i);
    kt_expect_clean(c, "after the round trip");
    kc_close(c);
}

/* Metadata past 64 KB (a kernel record keeps its emitted source there; an attention backward's is
 * ~70 KB): the header size no longer fits 16 bits, and the record must still round trip. */
Test(kc_basic, kernel_with_large_metadata_round_trips)
{
    tu_seed("kc_basic/kernel_with_large_metadata_round_trips");
    kc_cache *c = kt_open(dir, 0, 0);
    kt_kernel t;
    kt_make(&t, 41, (size_t)tu_range(1, 5000));
    size_t meta_size = (size_t)tu_range(65536, KC_MAX_META);
    uint8_t *meta = malloc(meta_size);
    cr_assert_not_null(meta);
    tu_bytes(meta, meta_size);
    t.k.meta = meta, t.k.meta_size = meta_size;
    TU_OK(kc_put_kernel(c, &t.k));
    kc_close(c);
    c = kt_open(dir, 0, 0);
    kc_kernel got;
    cr_assert(kc_get_kernel(c, &t.k.key, &got), "a record with %zu bytes of metadata reads back", meta_size);
    cr_expect_eq(got.meta_size, meta_size);
    cr_expect(memcmp(got.meta, meta, meta_size) == 0, "metadata bytes");
    cr_expect_eq(got.code_size, t.k.code_size);
    cr_expect(memcmp(got.code, t.k.code, t.k.code_size) == 0, "code bytes");
    cr_expect_str_eq(got.entry, t.k.entry);
    kc_kernel_release(&got);
    kt_expect_clean(c, "after the large record");
    kc_close(c);
    free(meta);
    kt_free(&t);
}

Test(kc_basic, other_keys_miss)
{
    tu_seed("kc_basic/other_keys_miss");
    kc_cache *c = kt_open(dir, 0, 0);
    for (uint64_t i = 0; i < 20; i++)
        kt_put(c, i, 1000 + i);
    cr_expect_eq(kt_get(c, 20, 1020), 0, "a key never stored");
    for (uint64_t i = 0; i < 20; i++) {
        kc_key key;
        kt_key(i, &key);
        int bit = (int)tu_range(0, 127);
        key.b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        kc_kernel got;
        cr_expect_not(kc_get_kernel(c, &key, &got), "kernel %llu with bit %d flipped", (unsigned long long)i, bit);
        cr_expect_null(got.code, "a miss leaves the record zeroed");
    }
    kc_stats s;
    TU_OK(kc_get_stats(c, &s));
    cr_expect_eq(s.misses, 21);
    cr_expect_eq(s.corrupt, 0);
    kc_close(c);
}

Test(kc_basic, put_overwrites)
{
    kc_cache *c = kt_open(dir, 0, 0);
    kt_put(c, 7, 5000);
    kt_kernel t;
    kt_make(&t, 7, 7000);
    t.k.entry = "renamed";
    TU_OK(kc_put_kernel(c, &t.k));
    kc_close(c);
    c = kt_open(dir, 0, 0);
    kc_kernel got;
    cr_assert(kc_get_kernel(c, &t.k.key, &got));
    cr_expect_str_eq(got.entry, "renamed");
    cr_expect_eq(got.code_size, 7000);
    cr_expect_eq(memcmp(got.code, t.code, 7000), 0);
    kc_kernel_release(&got);
    kt_free(&t);
    kc_close(c);
}

static void expect_plan(kc_cache *c, const kc_plan_key *pk, const kc_key *kernels, size_t n, const uint8_t *recipe,
                        size_t rn)
{
    kc_plan p;
    cr_assert(kc_get_plan(c, pk, &p), "the plan is found");
    cr_expect_eq(p.n_kernels, n);
    cr_expect_eq(memcmp(p.kernels, kernels, n * sizeof *kernels), 0);
    cr_expect_eq(p.recipe_size, rn);
    cr_expect_eq(memcmp(p.recipe, recipe, rn), 0);
    cr_expect_gt(p.created, 0);
    kc_plan_release(&p);
}

Test(kc_basic, plan_round_trip_and_key_fields)
{
    tu_seed("kc_basic/plan_round_trip_and_key_fields");
    int64_t knobs[4] = {tu_range(0, 9), tu_range(-5, 5), 1 << 20, tu_range(0, 1)};
    kc_key kernels[3];
    uint8_t recipe[333];
    tu_bytes(recipe, sizeof recipe);
    for (int i = 0; i < 3; i++)
        kt_key(100 + (uint64_t)i, &kernels[i]);
    kc_plan_key pk = {.engine_id = 2, .knobs = knobs, .n_knobs = 4};
    tu_bytes(pk.graph.b, KC_KEY_SIZE);
    kc_plan plan = {.kernels = kernels, .n_kernels = 3, .recipe = recipe, .recipe_size = sizeof recipe};
    kc_cache *c = kt_open(dir, 0, 0);
    TU_OK(kc_put_plan(c, &pk, &plan));
    expect_plan(c, &pk, kernels, 3, recipe, sizeof recipe);
    kc_close(c);

    c = kt_open(dir, 0, 0);
    expect_plan(c, &pk, kernels, 3, recipe, sizeof recipe);
    kc_plan p;
    kc_plan_key other = pk;
    other.engine_id = 3;
    cr_expect_not(kc_get_plan(c, &other, &p), "another engine misses");
    other = pk;
    other.graph.b[tu_range(0, 15)] ^= 0x10;
    cr_expect_not(kc_get_plan(c, &other, &p), "another graph misses");
    int64_t knobs2[4];
    memcpy(knobs2, knobs, sizeof knobs);
    knobs2[tu_range(0, 3)] += 1;
    other = pk;
    other.knobs = knobs2;
    cr_expect_not(kc_get_plan(c, &other, &p), "another knob value misses");
    other = pk;
    other.n_knobs = 3;
    cr_expect_not(kc_get_plan(c, &other, &p), "fewer knobs miss");
    kc_plan_key none = {.graph = pk.graph, .engine_id = 2};
    kc_plan empty = {0};
    TU_OK(kc_put_plan(c, &none, &empty));
    cr_assert(kc_get_plan(c, &none, &p), "a plan without knobs, kernels or recipe");
    cr_expect_eq(p.n_kernels, 0);
    cr_expect_eq(p.recipe_size, 0);
    kc_plan_release(&p);
    expect_plan(c, &pk, kernels, 3, recipe, sizeof recipe);
    kc_stats s;
    TU_OK(kc_get_stats(c, &s));
    cr_expect_eq(s.plans, 2);
    cr_expect_eq(s.kernels, 0);
    kt_expect_clean(c, "plans");
    kc_close(c);
}

Test(kc_basic, memory_mode_is_bounded_lru)
{
    kc_options o = {.max_bytes = 1 << 20};
    kc_cache *c = NULL;
    TU_OK(kc_open(&o, &c));
    cr_expect_eq(kc_get_mode(c), KC_MODE_MEMORY);
    cr_expect_str_eq(kc_dir(c), "");
    for (uint64_t i = 0; i < 40; i++) {
        kt_put(c, i, 64 << 10);
        if (i >= 2)
            cr_expect_eq(kt_get(c, 0, 64 << 10), 1, "kernel 0 stays while it is used (after %llu)",
                         (unsigned long long)i);
    }
    kc_stats s;
    TU_OK(kc_get_stats(c, &s));
    cr_expect_leq(s.bytes, 1 << 20);
    cr_expect_gt(s.evicted, 0);
    cr_expect_eq(kt_get(c, 39, 64 << 10), 1, "the newest is kept");
    cr_expect_eq(kt_get(c, 1, 64 << 10), 0, "an old unused one is gone");
    cr_expect_eq(s.lmdb_reads, 0);
    kc_entry *en;
    size_t n;
    TU_OK(kc_list(c, &en, &n));
    cr_expect_eq(n, s.kernels);
    for (size_t i = 0; i < n; i++)
        cr_expect(en[i].valid && en[i].table == KC_TABLE_KERNEL && en[i].code_size == 64 << 10);
    base_free(en);
    kt_expect_clean(c, "memory");
    size_t removed;
    TU_OK(kc_prune(c, 256 << 10, 0, &removed));
    TU_OK(kc_get_stats(c, &s));
    cr_expect_leq(s.bytes, 256 << 10);
    cr_expect_gt(removed, 0);
    kc_close(c);
}

Test(kc_basic, bad_arguments_fail_with_messages)
{
    kc_cache *c = kt_open(dir, 2 << 20, 0);
    kt_kernel t;
    kt_make(&t, 1, 100);
    kc_kernel k = t.k;
    TU_EQ(kc_put_kernel(NULL, &k), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    TU_EQ(kc_put_kernel(c, NULL), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    k.arch = NULL;
    TU_EQ(kc_put_kernel(c, &k), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    cr_expect(strstr(tu_msg(), "arch") != NULL, "message: %s", tu_msg());
    k = t.k;
    k.arch = "";
    TU_EQ(kc_put_kernel(c, &k), HIPDNN_STATUS_BAD_PARAM);
    char long_entry[KC_MAX_ENTRY + 2];
    memset(long_entry, 'e', sizeof long_entry - 1);
    long_entry[sizeof long_entry - 1] = '\0';
    k = t.k;
    k.entry = long_entry;
    TU_EQ(kc_put_kernel(c, &k), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "entry") != NULL, "message: %s", tu_msg());
    k = t.k;
    k.code_size = 0;
    TU_EQ(kc_put_kernel(c, &k), HIPDNN_STATUS_BAD_PARAM);
    k = t.k;
    k.meta_size = KC_MAX_META + 1;
    TU_EQ(kc_put_kernel(c, &k), HIPDNN_STATUS_BAD_PARAM);
    k = t.k;
    uint8_t *big = calloc(1, 1 << 18);
    k.code = big;
    k.code_size = 1 << 18;
    TU_EQ(kc_put_kernel(c, &k), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "1/8") != NULL, "message: %s", tu_msg());
    k.code_size = (1 << 18) - 4096;
    TU_OK(kc_put_kernel(c, &k));
    free(big);
    kc_plan_key pk = {.n_knobs = 2};
    kc_plan p = {0};
    TU_EQ(kc_put_plan(c, &pk, &p), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    int64_t knobs[KC_MAX_KNOBS + 1] = {0};
    pk.knobs = knobs;
    pk.n_knobs = KC_MAX_KNOBS + 1;
    TU_EQ(kc_put_plan(c, &pk, &p), HIPDNN_STATUS_BAD_PARAM);
    kc_kernel got;
    cr_expect_not(kc_get_kernel(c, NULL, &got));
    cr_expect_not(kc_get_kernel(NULL, &t.k.key, &got));
    cr_expect_not(kc_get_plan(c, &pk, &p), "an over-long knob vector is a miss");
    TU_EQ(kc_open(NULL, NULL), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    kc_stats s;
    TU_OK(kc_get_stats(c, &s));
    cr_expect_eq(s.kernels + s.plans, 1, "nothing but the one valid kernel was stored");
    kt_free(&t);
    kc_close(c);
    kc_close(NULL);
}

Test(kc_basic, key_hex)
{
    tu_seed("kc_basic/key_hex");
    kc_key k, back;
    tu_bytes(k.b, sizeof k.b);
    char hex[33];
    kc_key_hex(&k, hex);
    cr_expect_eq(strlen(hex), 32);
    cr_assert(kc_key_parse(hex, &back));
    cr_expect_eq(memcmp(k.b, back.b, 16), 0);
    hex[5] = 'g';
    cr_expect_not(kc_key_parse(hex, &back));
    cr_expect_not(kc_key_parse("00", &back));
    cr_expect_not(kc_key_parse(NULL, &back));
    cr_expect(kc_key_parse("000102030405060708090A0B0C0D0E0F", &back));
    cr_expect_eq(back.b[10], 10);
}

/* ---- allocation failures ----------------------------------------------------------------------- */

/* One pass of the scenario; returns the number of calls that failed. */
static int scenario(const char *path)
{
    int failed = 0;
    kc_options o = {.dir = path, .max_bytes = 4 << 20, .no_sync = true};
    kc_cache *c = NULL;
    if (kc_open(&o, &c) != HIPDNN_STATUS_SUCCESS)
        return 1;
    kc_cache *m = NULL;
    failed += kc_open(NULL, &m) != HIPDNN_STATUS_SUCCESS;
    kt_kernel t;
    kt_make(&t, 9, 3000);
    failed += kc_put_kernel(c, &t.k) != HIPDNN_STATUS_SUCCESS;
    kc_kernel got;
    if (kc_get_kernel(c, &t.k.key, &got)) {
        cr_expect(kt_matches(&got, 9, 3000), "a hit under injection is still right");
        kc_kernel_release(&got);
    }
    int64_t knobs[2] = {1, 2};
    kc_plan_key pk = {.engine_id = 1, .knobs = knobs, .n_knobs = 2};
    kc_plan p = {.kernels = &t.k.key, .n_kernels = 1, .recipe = "abc", .recipe_size = 3};
    failed += kc_put_plan(c, &pk, &p) != HIPDNN_STATUS_SUCCESS;
    kc_plan gp;
    if (kc_get_plan(c, &pk, &gp))
        kc_plan_release(&gp);
    uint8_t *bundle = NULL;
    size_t len = 0;
    failed += kc_export_mem(c, &bundle, &len, NULL) != HIPDNN_STATUS_SUCCESS;
    if (m != NULL && bundle != NULL)
        failed += kc_import_mem(m, bundle, len, NULL) != HIPDNN_STATUS_SUCCESS;
    base_free(bundle);
    kc_entry *en = NULL;
    size_t n;
    failed += kc_list(c, &en, &n) != HIPDNN_STATUS_SUCCESS;
    base_free(en);
    kc_bad *bad = NULL;
    failed += kc_verify(c, true, &bad, &n) != HIPDNN_STATUS_SUCCESS;
    base_free(bad);
    kt_free(&t);
    kc_close(m);
    kc_close(c);
    return failed;
}

Test(kc_basic, allocation_failures_fail_cleanly)
{
    int with_failures = 0;
    for (long nth = 1; nth < 500; nth++) {
        char *d = kt_tmpdir();
        base_alloc_fail_at(nth, false);
        long before = base_alloc_count();
        int failed = scenario(d);
        long used = base_alloc_count() - before;
        base_alloc_fail_at(0, false);
        with_failures += failed > 0;
        cr_expect_eq(scenario(d), 0, "after failing allocation %ld the cache works again", nth);
        kt_rmrf(d);
        if (used < nth)
            break; /* the scenario made fewer allocations: every one has failed once */
    }
    cr_expect_gt(with_failures, 5, "injected failures surfaced as statuses");
}
