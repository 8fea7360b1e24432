/* test_fault_cache.c — a failing kernel cache never fails a plan, never serves a damaged record,
 * and recovers on the next good run; its maintenance calls fail with a status and change nothing.
 *
 * Owns: the cache sweeps. The LMDB calls of cache/ fail one at a time (kc_test_fault_at,
 * cache/kc_fault.c: a read transaction refused with KC_STORE_READERS_FULL, a write one with
 * EACCES as on a read-only environment, KC_STORE_CORRUPTED from a read, KC_STORE_MAP_FULL from a
 * write, ENOSPC from a commit), or one record read from LMDB comes back damaged, while the GPU scenario of
 * fault_scenario.c runs on the fake runtime (fault_rt.c):
 *   - compiling into a fresh cache: no API call may fail; the launches are the clean run's; the
 *     directory holds no bad record; when the plan's KERNEL_CACHE_STATS_EXT says every record
 *     was stored the next good run takes the whole plan from the cache, and kernels it says were
 *     stored are not compiled again; two good runs later the whole plan is cached;
 *   - building from a filled cache: no API call may fail (a failed lookup compiles instead), the
 *     launches are the clean run's, and a run whose read was damaged did not build its plan from
 *     what it read (the checksum turned it into a miss);
 *   - the hipdnn-cache tool's library calls (kc_list, kc_get_stats, kc_export_mem, kc_import_mem,
 *     kc_verify, kc_prune, kc_flush) on a filled cache: each returns SUCCESS or INTERNAL_ERROR
 *     with a message giving LMDB's reason for the injected error; a failed one leaves the cache as it was, and the same
 *     call retried succeeds.
 * Not repeated here (tests/unit/cache): damaged data files, read-only and untrusted directories,
 * real map growth and eviction, allocation failures inside cache/.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/tu.h"
#include "../unit/cache/kt_util.h"
#include "cache/kc_int.h"
#include "fault_rt.h"
#include "fault_scenario.h"

static long kc_fired(void) { return kc_test_faults(); }

static void kc_off(void) { kc_test_fault_at(0, false); }

/* explain NULL: a cache fault must never fail an API call. */
static const fs_injector kc_injector = {.name = "kernel cache", .fired = kc_fired, .off = kc_off};

static void setup(void)
{
    fault_rt_install();
    kt_count_warnings("kernel cache");
}

TestSuite(fault_cache, .init = setup, .timeout = 300);

static const fs_graph graph = {.file = "matmul.json", .engine = "jit_unfused"}; /* three kernels */

/* A good run on dir; its stats. */
static void good_run(const char *dir, const char *want, int64_t stats[6])
{
    fs_run r = {.inj = &kc_injector};
    char *trace = fs_scenario(&r, &graph, dir);
    cr_assert_str_eq(trace, want);
    free(trace);
    memcpy(stats, r.stats, sizeof r.stats);
}

static void expect_clean(const char *dir, const char *when)
{
    kc_cache *c = kt_open(dir, 0, 0);
    kt_expect_clean(c, when);
    kc_close(c);
}

/* One scenario on dir with the nth LMDB call failing (or read damaged); true when a fault fired.
 * Its launches must be the clean run's, and the device left empty. */
static bool faulted_run(long nth, bool damage, const char *dir, const char *want, fs_run *r)
{
    long before = kc_test_faults();
    kc_test_fault_at(nth, damage);
    char *trace = fs_scenario(r, &graph, dir);
    kc_off();
    cr_assert_str_eq(trace, want, "LMDB call %ld failing changed the launches", nth);
    free(trace);
    fs_expect_device_empty("a failing cache");
    return kc_test_faults() != before;
}

/* ---- plans ----------------------------------------------------------------------------------------------- */

Test(fault_cache, compiling_into_a_failing_cache)
{
    char *dir = kt_tmpdir();
    int64_t clean[6];
    fs_run r0 = {.inj = &kc_injector};
    char *want = fs_scenario(&r0, &graph, dir);
    memcpy(clean, r0.stats, sizeof clean);
    kt_rmrf(dir);
    cr_assert(clean[0] == 3 && clean[1] == 3 && clean[4] == 0 && clean[5] == 0, "clean run: %lld kernels, %lld "
              "compiled, %lld / %lld not stored", (long long)clean[0], (long long)clean[1], (long long)clean[4],
              (long long)clean[5]);
    long nth = 1, not_stored = 0;
    for (;; nth++) {
        dir = kt_tmpdir();
        fs_run r = {.inj = &kc_injector};
        bool fired = faulted_run(nth, false, dir, want, &r);
        char when[64];
        snprintf(when, sizeof when, "after LMDB call %ld failed", nth);
        expect_clean(dir, when);
        if (r.stats[4] != 0) { /* a kernel not stored: no plan record names it */
            kc_cache *c = kt_open(dir, 0, 0);
            kc_stats st;
            TU_OK(kc_get_stats(c, &st));
            kc_close(c);
            cr_assert(r.stats[5] == 1 && st.plans == 0, "%s: a kernel was not stored, yet the plan record was "
                      "(reported %lld, %llu in the cache)", when, (long long)r.stats[5], (unsigned long long)st.plans);
        }
        int64_t next[6], third[6];
        good_run(dir, want, next);
        cr_assert(r.stats[4] + r.stats[5] != 0 || next[3] == 1, "%s: the plan and its kernels were reported "
                  "stored, the next run did not find them", when);
        cr_assert(r.stats[4] != 0 || next[1] == 0, "%s: every kernel was reported stored, the next run compiled %lld",
                  when, (long long)next[1]);
        good_run(dir, want, third);
        cr_assert(third[3] == 1 && third[1] == 0, "%s: two good runs later the plan is not all cached", when);
        not_stored += r.stats[4] + r.stats[5];
        kt_rmrf(dir);
        if (!fired)
            break;
    }
    fprintf(stderr, "fault_cache (compiling): %ld injection points, %ld records reported not stored, %d cache "
            "warnings\n", nth - 1, not_stored, kt_warnings());
    cr_expect_gt(nth - 1, 5);
    cr_expect_gt(not_stored, 0, "no failed store was ever reported in the plan's stats");
    free(want);
}

static void sweep_filled(bool damage)
{
    char *dir = kt_tmpdir();
    fs_run r0 = {.inj = &kc_injector};
    free(fs_scenario(&r0, &graph, dir));
    int64_t clean[6];
    char *want = fs_scenario(&r0, &graph, dir);
    memcpy(clean, r0.stats, sizeof clean);
    cr_assert_eq(clean[3], 1, "the clean run did not take the plan from the cache");
    long nth = 1, rebuilt = 0;
    for (;; nth++) {
        fs_run r = {.inj = &kc_injector};
        bool fired = faulted_run(nth, damage, dir, want, &r);
        if (damage && fired)
            cr_assert_eq(r.stats[3], 0, "read %ld came back damaged and the plan was still built from the cache",
                         nth);
        rebuilt += r.stats[3] == 0;
        if (!fired)
            break;
    }
    expect_clean(dir, "after the sweep");
    int64_t last[6];
    good_run(dir, want, last);
    cr_expect_eq(last[3], 1, "after the sweep the plan is no longer cached");
    fprintf(stderr, "fault_cache (filled cache%s): %ld injection points, %ld runs rebuilt the plan\n",
            damage ? ", damaged reads" : "", nth - 1, rebuilt);
    cr_expect_gt(nth - 1, 2);
    cr_expect_gt(rebuilt, 0, "no fault ever made a run build its plan anew");
    free(want);
    kt_rmrf(dir);
}

Test(fault_cache, lookups_in_a_failing_cache)
{
    sweep_filled(false);
}

Test(fault_cache, damaged_reads_are_misses)
{
    sweep_filled(true);
}

/* ---- the hipdnn-cache tool's calls ------------------------------------------------------------------------ */

static uint8_t *bundle; /* the filled cache's export, for kc_import_mem */
static size_t bundle_len;

static hipdnnStatus_t do_list(kc_cache *c)
{
    kc_entry *e = NULL;
    size_t n = 0;
    hipdnnStatus_t st = kc_list(c, &e, &n);
    base_free(e);
    return st;
}

static hipdnnStatus_t do_stats(kc_cache *c)
{
    kc_stats s;
    return kc_get_stats(c, &s);
}

static hipdnnStatus_t do_export(kc_cache *c)
{
    uint8_t *b = NULL;
    size_t len = 0, n = 0;
    hipdnnStatus_t st = kc_export_mem(c, &b, &len, &n);
    base_free(b);
    return st;
}

static hipdnnStatus_t do_import(kc_cache *c) { return kc_import_mem(c, bundle, bundle_len, NULL); }

static hipdnnStatus_t do_verify(kc_cache *c)
{
    kc_bad *bad = NULL;
    size_t n = 0;
    hipdnnStatus_t st = kc_verify(c, false, &bad, &n);
    base_free(bad);
    return st;
}

static hipdnnStatus_t do_prune(kc_cache *c) { return kc_prune(c, (uint64_t)1 << 40, 0, NULL); }

static hipdnnStatus_t do_flush(kc_cache *c) { return kc_flush(c); }

/* Before kc_flush: every kernel used an hour after the last time, so their last-used times are
 * pending. */
static void use_kernels(kc_cache *c)
{
    static int64_t hours;
    kc_entry *e = NULL;
    size_t n = 0;
    TU_OK(kc_list(c, &e, &n));
    kt_clock_set(time(NULL) + 3600 * ++hours);
    for (size_t i = 0; i < n; i++) {
        kc_kernel k;
        if (e[i].table == KC_TABLE_KERNEL && kc_get_kernel(c, &e[i].key, &k))
            kc_kernel_release(&k);
    }
    base_free(e);
}

static const struct {
    const char *name;
    hipdnnStatus_t (*fn)(kc_cache *c);
    void (*prepare)(kc_cache *c); /* optional, before each attempt */
} maint[] = {{"kc_list", do_list, NULL},         {"kc_get_stats", do_stats, NULL}, {"kc_export_mem", do_export, NULL},
             {"kc_import_mem", do_import, NULL}, {"kc_verify", do_verify, NULL},  {"kc_prune", do_prune, NULL},
             {"kc_flush", do_flush, use_kernels}};

/* Call i of `maint` with the nth LMDB call failing; true when a fault fired. */
static bool maint_once(kc_cache *c, size_t i, long nth)
{
    if (maint[i].prepare != NULL)
        maint[i].prepare(c);
    kt_snapshot before = kt_snap(c);
    long fired = kc_test_faults();
    kc_test_fault_at(nth, false);
    hipdnnStatus_t st = maint[i].fn(c);
    kc_off();
    kt_clock_off();
    bool hit = kc_test_faults() != fired;
    if (st == HIPDNN_STATUS_SUCCESS)
        return hit;
    cr_assert(hit, "%s failed without an injected fault: %s [%s]", maint[i].name, tu_st(st), tu_msg());
    cr_assert_eq(st, HIPDNN_STATUS_INTERNAL_ERROR, "%s with LMDB call %ld failing: %s [%s]", maint[i].name, nth,
                 tu_st(st), tu_msg());
    const char *reason = kc__store_strerror(kc_test_fault_error());
    cr_assert(strstr(tu_msg(), "kernel cache") != NULL && strstr(tu_msg(), reason) != NULL,
              "%s: the message does not give LMDB's reason (%s): %s", maint[i].name, reason, tu_msg());
    kt_snapshot after = kt_snap(c);
    cr_assert(memcmp(&before, &after, sizeof before) == 0, "a failed %s changed the cache", maint[i].name);
    st = maint[i].fn(c);
    cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "retrying %s: %s [%s]", maint[i].name, tu_st(st), tu_msg());
    return true;
}

Test(fault_cache, tool_calls_on_a_failing_cache)
{
    char *dir = kt_tmpdir();
    fs_run r0 = {.inj = &kc_injector};
    free(fs_scenario(&r0, &graph, dir));
    kc_cache *c = kt_open(dir, 0, 0);
    size_t n = 0;
    TU_OK(kc_export_mem(c, &bundle, &bundle_len, &n));
    cr_assert_eq(n, 4, "3 kernels and a plan: %zu records", n);
    for (size_t i = 0; i < sizeof maint / sizeof maint[0]; i++) {
        long nth = 1;
        while (maint_once(c, i, nth))
            nth++;
        fprintf(stderr, "fault_cache (%s): %ld injection points\n", maint[i].name, nth - 1);
        cr_expect_gt(nth - 1, 0, "%s made no LMDB call that can fail", maint[i].name);
    }
    kt_expect_clean(c, "after the tool's calls");
    kc_close(c);
    base_free(bundle);
    kt_rmrf(dir);
}
