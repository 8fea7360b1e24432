/* test_gpu_kcache.c — plans built from the kernel cache's plan table run correctly: for each
 * graph (random shapes), a plan built afresh into a new in-memory KERNEL_CACHE is checked
 * against the reference engine; a second plan from that cache must take everything from it
 * (stats: nothing compiled, plan from the table) and is checked again; so is a plan of the same
 * graph built with other uids (the recipe maps tensors by canonical number). Graphs cover a
 * fused prologue and several outputs (layernorm training + residual add), workspace slots for
 * virtual tensors (the same graph on jit_unfused), multi-launch kernels with scratch workspace
 * (batchnorm training + ReLU) and a tensor-core matmul with an epilogue.
 */
#include <criterion/criterion.h>

#include "gpu_util.h"

TestSuite(gpu_kcache, .init = gpu_setup, .fini = gpu_teardown);


static hipdnnBackendDescriptor_t new_cache(void)
{
    hipdnnBackendDescriptor_t c;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, &c));
    TU_OK(hipdnnBackendFinalize(c)); /* no directory: in memory, private to this descriptor */
    return c;
}

/* A plan of `engine` for g with cache c (gpu_util's knobs); *st gets its cache stats. */
static hipdnnBackendDescriptor_t cached_plan(hipdnnBackendDescriptor_t g, const char *engine, hipdnnBackendDescriptor_t c,
                                             int64_t st[4])
{
    hipdnnBackendDescriptor_t plan = plan_with_cache(g, engine, c);
    int64_t n = 0;
    TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE_STATS_EXT, HIPDNN_TYPE_INT64, 4,
                                    &n, st));
    return plan;
}

/* Fresh build, plan-table build, plan-table build of the same graph with other uids: all checked. */
static void run_case(hipdnnBackendDescriptor_t (*make)(int base, char *what), const char *engine, gpu_fill_fn fill)
{
    char what[160];
    hipdnnBackendDescriptor_t c = new_cache(), g = make(0, what), g2 = make(500, what);
    int64_t a[4], b[4], d[4];
    hipdnnBackendDescriptor_t p1 = cached_plan(g, engine, c, a);
    cr_expect(a[0] > 0 && a[1] == a[0] && a[3] == 0, "%s: fresh build compiles its %lld kernels", what,
              (long long)a[0]);
    check_plan(g, p1, fill, what);
    hipdnnBackendDescriptor_t p2 = cached_plan(g, engine, c, b);
    cr_expect(b[0] == a[0] && b[1] == 0 && b[2] == a[0] && b[3] == 1, "%s: second build from the plan table "
              "(%lld kernels, %lld compiled, %lld cached, plan %lld)", what, (long long)b[0], (long long)b[1],
              (long long)b[2], (long long)b[3]);
    check_plan(g, p2, fill, what);
    hipdnnBackendDescriptor_t p3 = cached_plan(g2, engine, c, d);
    cr_expect(d[1] == 0 && d[3] == 1, "%s: other uids, same plan", what);
    check_plan(g2, p3, fill, what);
    hipdnnBackendDestroyDescriptor(p3), hipdnnBackendDestroyDescriptor(p2), hipdnnBackendDestroyDescriptor(p1);
    hipdnnBackendDestroyDescriptor(g2), hipdnnBackendDestroyDescriptor(g), hipdnnBackendDestroyDescriptor(c);
}

/* ---- graphs -------------------------------------------------------------------------------------- */

static int64_t rows, cols, extra; /* drawn per test, so both uid variants get the same shape */

/* (x + r) -> layernorm training (y, mean, inv_variance); the sum is virtual. */
static hipdnnBackendDescriptor_t layernorm_residual(int base, char *what)
{
    int64_t xd[2] = {rows, cols}, xs[2], wd[2] = {1, cols}, ws[2], sd[2] = {rows, 1}, ss[2] = {1, 1};
    packed(2, xd, xs, 0), packed(2, wd, ws, 0);
    json_t *t = json_array(), *n = json_array();
    json_array_append_new(t, tensor(base + 1, "BFLOAT16", 2, xd, xs, false));
    json_array_append_new(t, tensor(base + 2, "BFLOAT16", 2, xd, xs, false));
    json_array_append_new(t, tensor(base + 3, "FLOAT", 2, xd, xs, true));
    json_array_append_new(t, tensor(base + 4, "FLOAT", 2, wd, ws, false));
    json_array_append_new(t, tensor(base + 5, "FLOAT", 2, wd, ws, false));
    json_array_append_new(t, scalar(base + 6, 1e-5f));
    json_array_append_new(t, tensor(base + 7, "BFLOAT16", 2, xd, xs, false));
    json_array_append_new(t, tensor(base + 8, "FLOAT", 2, sd, ss, false));
    json_array_append_new(t, tensor(base + 9, "FLOAT", 2, sd, ss, false));
    json_array_append_new(n, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i, s:i}", "operation", "ADD",
        "in_0_tensor_uid", base + 1, "in_1_tensor_uid", base + 2, "out_0_tensor_uid", base + 3)));
    json_array_append_new(n, node("LayernormAttributes", json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:s, s:i, s:i}",
        "x_tensor_uid", base + 3, "scale_tensor_uid", base + 4, "bias_tensor_uid", base + 5, "epsilon_tensor_uid",
        base + 6, "y_tensor_uid", base + 7, "normalized_dim_count", 1, "forward_phase", "TRAINING",
        "mean_tensor_uid", base + 8, "inv_variance_tensor_uid", base + 9)));
    snprintf(what, 160, "residual add + layernorm training bf16 [%lld x %lld]", (long long)rows, (long long)cols);
    return finalize_graph(t, n);
}

/* x [N, C, H, W] (NHWC strides) -> batchnorm training -> y (virtual fp32) -> ReLU -> out. */
static hipdnnBackendDescriptor_t bn_relu(int base, char *what)
{
    int64_t N = rows, C = cols, H = 7, W = 5;
    int64_t xd[4] = {N, C, H, W}, xs[4] = {C * H * W, 1, W * C, C}, cd[4] = {1, C, 1, 1}, cs[4] = {C, 1, 1, 1};
    json_t *t = json_array(), *n = json_array();
    json_array_append_new(t, tensor(base + 1, "HALF", 4, xd, xs, false));
    json_array_append_new(t, tensor(base + 2, "FLOAT", 4, cd, cs, false));
    json_array_append_new(t, tensor(base + 3, "FLOAT", 4, cd, cs, false));
    json_array_append_new(t, scalar(base + 4, 1e-3f));
    json_array_append_new(t, tensor(base + 10, "FLOAT", 4, xd, xs, true));
    json_array_append_new(t, tensor(base + 11, "FLOAT", 4, cd, cs, false));
    json_array_append_new(t, tensor(base + 12, "FLOAT", 4, cd, cs, false));
    json_array_append_new(t, tensor(base + 13, "HALF", 4, xd, xs, false));
    json_array_append_new(n, node("BatchnormAttributes", json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:i}", "x_tensor_uid",
        base + 1, "scale_tensor_uid", base + 2, "bias_tensor_uid", base + 3, "epsilon_tensor_uid", base + 4,
        "y_tensor_uid", base + 10, "mean_tensor_uid", base + 11, "inv_variance_tensor_uid", base + 12)));
    json_array_append_new(n, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i}", "operation", "RELU_FWD",
        "in_0_tensor_uid", base + 10, "out_0_tensor_uid", base + 13)));
    snprintf(what, 160, "batchnorm training + relu fp16 NHWC [%lld x %lld x 7 x 5]", (long long)N, (long long)C);
    return finalize_graph(t, n);
}

/* A [M, K] x B [K, N] -> + bias [1, N] -> ReLU, bf16 out. */
static hipdnnBackendDescriptor_t matmul_bias_relu(int base, char *what)
{
    int64_t M = rows, K = cols, N = extra;
    int64_t ad[2] = {M, K}, as[2], bd[2] = {K, N}, bs[2], cd[2] = {M, N}, cs[2], vd[2] = {1, N}, vs[2];
    packed(2, ad, as, 0), packed(2, bd, bs, 0), packed(2, cd, cs, 0), packed(2, vd, vs, 0);
    json_t *t = json_array(), *n = json_array();
    json_array_append_new(t, tensor(base + 1, "BFLOAT16", 2, ad, as, false));
    json_array_append_new(t, tensor(base + 2, "BFLOAT16", 2, bd, bs, false));
    json_array_append_new(t, tensor(base + 3, "FLOAT", 2, cd, cs, true));
    json_array_append_new(t, tensor(base + 4, "BFLOAT16", 2, vd, vs, false));
    json_array_append_new(t, tensor(base + 5, "FLOAT", 2, cd, cs, true));
    json_array_append_new(t, tensor(base + 6, "BFLOAT16", 2, cd, cs, false));
    json_array_append_new(n, node("MatmulAttributes", json_pack("{s:i, s:i, s:i}", "a_tensor_uid", base + 1,
        "b_tensor_uid", base + 2, "c_tensor_uid", base + 3)));
    json_array_append_new(n, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i, s:i}", "operation", "ADD",
        "in_0_tensor_uid", base + 3, "in_1_tensor_uid", base + 4, "out_0_tensor_uid", base + 5)));
    json_array_append_new(n, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i}", "operation", "RELU_FWD",
        "in_0_tensor_uid", base + 5, "out_0_tensor_uid", base + 6)));
    snprintf(what, 160, "matmul + bias + relu bf16 [%lld x %lld] x [%lld x %lld]", (long long)M, (long long)K,
             (long long)K, (long long)N);
    return finalize_graph(t, n);
}

/* Positive variances are not needed (training computes its own); default fill for all. */

Test(gpu_kcache, fused_norm_with_prologue_from_the_plan_table)
{
    rows = rnd(1, 300), cols = 8 * rnd(1, 200);
    run_case(layernorm_residual, "jit_fused", NULL);
}

Test(gpu_kcache, unfused_workspace_slots_from_the_plan_table)
{
    rows = rnd(1, 300), cols = 8 * rnd(1, 200);
    run_case(layernorm_residual, "jit_unfused", NULL);
}

Test(gpu_kcache, multi_launch_channel_kernel_from_the_plan_table)
{
    rows = rnd(1, 9), cols = rnd(1, 70);
    run_case(bn_relu, "jit_fused", NULL);
}

Test(gpu_kcache, tensor_core_matmul_from_the_plan_table)
{
    rows = rnd(1, 300), cols = 8 * rnd(2, 40), extra = 8 * rnd(8, 40);
    run_case(matmul_bias_relu, "jit_fused", NULL);
}
