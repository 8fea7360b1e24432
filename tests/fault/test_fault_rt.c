/* test_fault_rt.c — every failing runtime call ends in a clear status, leaks nothing on the
 * device, and can be retried.
 *
 * Owns: the runtime sweeps. The fake runtime (fault_rt.c) stands in for the GPU; the scenario
 * (fault_scenario.c: heuristics, plan finalize with JIT compile, device memory, execute with
 * events, sync, teardown) runs once clean, then once for every call to the runtime that can fail,
 * N = 1, 2, ... until a run reaches no Nth call. A failed API call must return the status the
 * runtime raised, with a last-error message naming the failed driver or compiler call; the same
 * call retried without injection must succeed; the run must then complete with the same launches
 * as the clean run, and leave the device without allocations, modules, events or compiler
 * programs. Each graph is swept twice: compiling into a fresh kernel cache each run, and building
 * the plan from a cache a clean run filled (module loads from cached code objects instead of
 * compiles: another sequence of calls).
 * Graphs (tests/fault/graphs): a pointwise region, a layernorm, and matmul + bias + GELU (wgmma
 * with tensor maps and more than 48 KiB of shared memory on the fake sm_90), the last also
 * through jit_unfused (three kernels, intermediates in workspace), and causal attention with
 * jit.sdpa_persist 4 (a counter the plan keeps per stream).
 * Leaks of host memory are left to LeakSanitizer (the ASan build).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../common/tu.h"
#include "../unit/cache/kt_util.h"
#include "fault_rt.h"
#include "fault_scenario.h"

/* ---- the injector ---------------------------------------------------------------------------------------- */

static long rt_fired(void) { return fault_rt_last_fault().count; }

static void rt_off(void) { fault_rt_fail_at(0); }

static void rt_explain(const char *call, hipdnnStatus_t st)
{
    fault_rt_fault f = fault_rt_last_fault();
    cr_assert_eq(st, f.status, "%s returned %s after %s failed with %s [%s]", call, tu_st(st), f.call,
                 tu_st(f.status), tu_msg());
    cr_assert_not_null(strstr(tu_msg(), f.call), "%s: the message does not name the failed %s: %s", call, f.call,
                       tu_msg());
}

static const fs_injector rt_injector = {.name = "runtime", .fired = rt_fired, .off = rt_off, .explain = rt_explain};

/* ---- the sweep ------------------------------------------------------------------------------------------- */

static char *cache_dir;

static void setup(void)
{
    fault_rt_install();
    cache_dir = kt_tmpdir();
    setenv("HIPDNN_CACHE_DIR", cache_dir, 1); /* the process-wide cache, should anything use it */
}

static void teardown(void)
{
    kt_rmrf(cache_dir);
    cache_dir = NULL;
}

TestSuite(fault_rt, .init = setup, .fini = teardown, .timeout = 300);

/* One run with the Nth runtime call failing (0: none) into `dir` (NULL: a fresh directory each
 * run); returns whether a fault fired. */
static bool run_once(const fs_graph *g, long nth, const char *dir, const char *want, fs_run *total)
{
    char *fresh = dir == NULL ? kt_tmpdir() : NULL;
    fs_run r = {.inj = &rt_injector};
    long before = rt_fired();
    fault_rt_fail_at(nth);
    char *trace = fs_scenario(&r, g, dir != NULL ? dir : fresh);
    fault_rt_fail_at(0);
    bool fired = rt_fired() != before;
    char when[96];
    snprintf(when, sizeof when, "%s on %s, runtime call %ld failing", g->file, g->engine, nth);
    if (want != NULL)
        cr_assert_str_eq(trace, want, "%s: the launches differ from the clean run's", when);
    fs_expect_device_empty(when);
    free(trace);
    kt_rmrf(fresh);
    total->failures += r.failures, total->absorbed += r.absorbed;
    return fired;
}

/* Sweeps N over the runtime calls of g's scenario, compiling (cached false) or from a filled
 * cache; returns the number of injection points. */
static long sweep(const fs_graph *g, bool cached)
{
    char *dir = kt_tmpdir(); /* compiling: the clean run's; cached: every run's */
    fs_run clean = {.inj = &rt_injector};
    if (cached) { /* fill it */
        free(fs_scenario(&clean, g, dir));
        fs_expect_device_empty("filling the cache");
    }
    long calls = fault_rt_calls();
    char *want = fs_scenario(&clean, g, dir);
    calls = fault_rt_calls() - calls;
    cr_assert_eq(clean.failures + clean.absorbed, 0);
    cr_assert_neq(want[0], '\0', "the clean run launched nothing");
    cr_assert_eq(clean.stats[3], cached ? 1 : 0, "plan from the cache: %lld", (long long)clean.stats[3]);
    cr_assert_eq(clean.stats[1], cached ? 0 : clean.stats[0], "%lld of %lld kernels compiled",
                 (long long)clean.stats[1], (long long)clean.stats[0]);
    fs_expect_device_empty("the clean run");
    fs_run total = {0};
    long nth = 1;
    while (run_once(g, nth, cached ? dir : NULL, want, &total))
        nth++;
    fprintf(stderr, "fault_rt %s on %s (%s): %ld runtime calls per clean run, %ld injection points: %d calls "
            "failed and were retried, %d faults absorbed\n  calls so far: %s\n", g->file, g->engine,
            cached ? "plan from the cache" : "compiled", calls, nth - 1, total.failures, total.absorbed,
            fault_rt_counts());
    cr_expect_geq(nth - 1, calls, "a run ended before its %ld calls were all made to fail", calls);
    cr_expect_gt(total.failures, 0, "no injected fault ever reached the caller");
    free(want);
    kt_rmrf(dir);
    return nth - 1;
}

static void sweep_both(const char *file, const char *engine)
{
    tu_seed("fault_rt");
    fs_graph g = {.file = file, .engine = engine};
    cr_expect_gt(sweep(&g, false), 10);
    cr_expect_gt(sweep(&g, true), 10);
}

Test(fault_rt, pointwise)
{
    sweep_both("pointwise.json", "jit_fused");
}

Test(fault_rt, layernorm)
{
    sweep_both("layernorm.json", "jit_fused");
}

Test(fault_rt, matmul_bias_gelu)
{
    sweep_both("matmul.json", "jit_fused");
}

Test(fault_rt, matmul_bias_gelu_unfused)
{
    sweep_both("matmul.json", "jit_unfused");
}

/* Attention on the persistent grid with the dynamic scheduler (jit.sdpa_persist 4): its execute
 * also allocates and zeroes the plan's work-tile counter for the stream (engines/fe_jit_counters.c),
 * two more calls that can fail; the plan's destruction frees it. */
Test(fault_rt, attention_dynamic_scheduler)
{
    tu_seed("fault_rt");
    fs_graph g = {.file = "attention.json", .engine = "jit_fused", .knob = "jit.sdpa_persist", .knob_value = 4};
    cr_expect_gt(sweep(&g, false), 10);
    cr_expect_gt(sweep(&g, true), 10);
}
