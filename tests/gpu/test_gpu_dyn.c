/* test_gpu_dyn.c — dynamic shapes on the GPU: graphs with IS_DYNAMIC_SHAPE_ENABLED at two or
 * three random batch / sequence sizes (one topology per family, tests/common/dyn_graphs.h) are
 * checked against the reference engine, and every plan after the first size compiles no kernel:
 * the kernel cache (a fresh directory per test, HIPDNN_CACHE_DIR) holds as many kernels as after
 * the first plan (the norms' second size is a decode step, S = 1). A static graph at a new size
 * then does compile (the count can move).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "cache/kc.h"
#include "gpu_util.h"
#include "../common/dyn_graphs.h"

/* A fresh cache directory for this test's process, before anything opens the default cache. */
static void dyn_setup(void)
{
    static char dir[] = "/tmp/hipdnn-dyn-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    setenv("HIPDNN_CACHE_DIR", dir, 1);
    unsetenv("HIPDNN_CACHE_DISABLE");
    gpu_setup();
}

TestSuite(gpu_dyn, .init = dyn_setup, .fini = gpu_teardown);

static uint64_t cached_kernels(void)
{
    kc_cache *c = kc_default();
    cr_assert_not_null(c, "the kernel cache is on");
    kc_stats st;
    TU_OK(kc_get_stats(c, &st));
    return st.kernels;
}

/* Plans and checks family f at n_sizes sizes (distinct sequence lengths in [s_lo, s_hi]; with
 * `decode`, the second size has S = 1); the engine's knobs are gpu_set_knobs'. */
static void run_family(dyn_family f, int64_t inner, int n_sizes, int s_lo, int s_hi, bool decode)
{
    cr_assert_eq(cached_kernels(), 0u, "a fresh kernel cache");
    uint64_t first = 0;
    int64_t used[4] = {0};
    for (int i = 0; i < n_sizes; i++) {
        int64_t b = rnd(2, 5), s;
        do
            s = rnd(s_lo, s_hi);
        while ((i > 0 && s == used[0]) || (i > 1 && s == used[1]));
        if (decode && i == 1)
            s = 1;
        used[i] = s;
        char what[128];
        snprintf(what, sizeof what, "%s B=%lld S=%lld inner=%lld", dyn_family_name(f), (long long)b, (long long)s,
                 (long long)inner);
        hipdnnBackendDescriptor_t g = dyn_graph(handle, f, b, s, inner, true);
        hipdnnBackendDescriptor_t plan = plan_with(g, "jit_fused");
        uint64_t now = cached_kernels();
        if (i == 0)
            first = now;
        cr_expect(i > 0 || first > 0, "%s: the first size compiles its kernels", what);
        cr_expect_eq(now, first, "%s: %llu kernels compiled after the first size (want 0: cache hits)", what,
                     (unsigned long long)(now - first));
        cr_log_info("%s: %llu kernels in the cache", what, (unsigned long long)now);
        check_plan(g, plan, NULL, what);
        hipdnnBackendDestroyDescriptor(plan);
        hipdnnBackendDestroyDescriptor(g);
    }
    /* the control: without the flag a new size is a new kernel */
    hipdnnBackendDescriptor_t g = dyn_graph(handle, f, 7, s_hi + 1, inner, false);
    hipdnnBackendDescriptor_t plan = plan_with(g, "jit_fused");
    cr_expect_gt(cached_kernels(), first, "%s: a static graph compiles its own kernels", dyn_family_name(f));
    check_plan(g, plan, NULL, "static control");
    hipdnnBackendDestroyDescriptor(plan);
    hipdnnBackendDestroyDescriptor(g);
}

Test(gpu_dyn, layernorm_training)
{
    run_family(DYN_LAYERNORM, 8 * rnd(16, 256), 3, 2, 700, true);
}

Test(gpu_dyn, rmsnorm_residual)
{
    run_family(DYN_RMSNORM_RESIDUAL, 8 * rnd(16, 512), 3, 2, 700, true);
}

Test(gpu_dyn, rmsnorm_residual_prefetch)
{
    const char *ids[] = {"jit.row_prefetch"};
    const int64_t on[] = {1};
    gpu_set_knobs(1, ids, on);
    run_family(DYN_RMSNORM_RESIDUAL, 8 * rnd(16, 256), 2, 2, 900, true);
    gpu_set_knobs(0, NULL, NULL);
}

Test(gpu_dyn, pointwise_broadcast)
{
    run_family(DYN_POINTWISE_BCAST, 8 * rnd(1, 200), 3, 2, 700, false);
}

Test(gpu_dyn, pointwise_broadcast_odd_hidden)
{
    run_family(DYN_POINTWISE_BCAST, 8 * rnd(1, 100) + 5, 2, 2, 700, false);
}

Test(gpu_dyn, pointwise_padded_rows)
{
    run_family(DYN_POINTWISE_PADDED, 8 * rnd(1, 200), 3, 2, 700, false);
}

Test(gpu_dyn, matmul_bias_wgmma)
{
    run_family(DYN_MATMUL_BIAS, 64 * rnd(1, 4), 3, 2, 400, false);
}

Test(gpu_dyn, matmul_bias_mma_sync)
{
    const char *ids[] = {"jit.matmul_wgmma"};
    const int64_t off[] = {0};
    gpu_set_knobs(1, ids, off);
    run_family(DYN_MATMUL_BIAS, 64 * rnd(1, 4), 2, 2, 400, false);
    gpu_set_knobs(0, NULL, NULL);
}

Test(gpu_dyn, matmul_two_batch_dims)
{
    run_family(DYN_MATMUL_BATCHED, 8 * rnd(4, 24), 3, 2, 300, false);
}

Test(gpu_dyn, matmul_two_batch_dims_mma_sync)
{
    const char *ids[] = {"jit.matmul_wgmma"};
    const int64_t off[] = {0};
    gpu_set_knobs(1, ids, off);
    run_family(DYN_MATMUL_BATCHED, 8 * rnd(4, 24), 2, 2, 300, false);
    gpu_set_knobs(0, NULL, NULL);
}
