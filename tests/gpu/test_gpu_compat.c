/* test_gpu_compat.c — what hipDNN's frontend does to a GPU plan (suite gpu_compat).
 *
 * hipDNN's frontend takes the first engine the heuristics return (jit_fused on a GPU) and may
 * hand it host pointers: the execute must refuse them with BAD_PARAM naming the tensor, before
 * any kernel runs, and the context must stay usable (a later run on device memory matches the
 * reference). By-value scalars arrive as [1] tensors against operands of higher rank: pointwise
 * regions and a matmul epilogue with such scalars (by value and in memory) must match the
 * reference engine on both JIT engines.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_util.h"
#include "hipdnn_jit.h"

TestSuite(gpu_compat, .init = gpu_setup, .fini = gpu_teardown);

/* A [1] tensor (rank 1): by value when v is not NULL, else in memory. */
static json_t *rank1(int uid, const char *dtype, const float *v)
{
    int64_t one[] = {1};
    json_t *t = tensor(uid, dtype, 1, one, one, false);
    if (v != NULL) {
        json_object_set_new(t, "value_type", json_string("Float32Value"));
        json_object_set_new(t, "value", json_pack("{s:f}", "value", *v));
    }
    return t;
}

static json_t *pw(const char *mode, int in0, int in1, int out)
{
    return node("PointwiseAttributes", json_pack("{s:s, s:i, s:i, s:i}", "operation", mode,
                                                 "in_0_tensor_uid", in0, "in_1_tensor_uid", in1,
                                                 "out_0_tensor_uid", out));
}

/* y = relu(x * s + t): x, y [B,S,D] of dtype, s by value [1], t a [1] fp32 tensor in memory. */
static hipdnnBackendDescriptor_t scalar_graph(const char *dtype, int64_t B, int64_t S, int64_t D)
{
    int64_t dims[] = {B, S, D}, strides[3];
    packed(3, dims, strides, 0);
    float s = (float)rnd(-300, 300) / 100.0f;
    json_t *tensors = json_pack("[o, o, o, o, o, o]", tensor(1, dtype, 3, dims, strides, false), rank1(2, "FLOAT", &s),
                                tensor(3, "FLOAT", 3, dims, strides, true), rank1(4, "FLOAT", NULL),
                                tensor(5, "FLOAT", 3, dims, strides, true), tensor(6, dtype, 3, dims, strides, false));
    json_t *nodes = json_pack("[o, o, o]", pw("MUL", 1, 2, 3), pw("ADD", 3, 4, 5),
                              node("PointwiseAttributes", json_pack("{s:s, s:i, s:i}", "operation", "RELU_FWD",
                                                                    "in_0_tensor_uid", 5, "out_0_tensor_uid", 6)));
    return finalize_graph(tensors, nodes);
}

Test(gpu_compat, rank_1_scalars_in_pointwise_regions)
{
    const char *types[] = {"FLOAT", "BFLOAT16", "HALF"};
    for (int i = 0; i < 3; i++) {
        hipdnnBackendDescriptor_t g = scalar_graph(types[i], rnd(1, 4), rnd(1, 70), 8 * rnd(1, 40));
        char what[64];
        snprintf(what, sizeof what, "rank-1 scalars, %s", types[i]);
        check_graph_both_jit(g, what);
        hipdnnBackendDestroyDescriptor(g);
    }
}

/* C = A·B, then y = C * t with t a [1] fp32 tensor in memory (the matmul's epilogue). */
Test(gpu_compat, rank_1_scalar_in_a_matmul_epilogue)
{
    int64_t M = rnd(1, 200), N = 8 * rnd(1, 30), K = 8 * rnd(1, 30);
    int64_t ad[] = {1, M, K}, bd[] = {1, K, N}, cd[] = {1, M, N}, as[3], bs[3], cs[3];
    packed(3, ad, as, 0), packed(3, bd, bs, 0), packed(3, cd, cs, 0);
    json_t *tensors = json_pack("[o, o, o, o, o]", tensor(1, "BFLOAT16", 3, ad, as, false),
                                tensor(2, "BFLOAT16", 3, bd, bs, false), tensor(3, "FLOAT", 3, cd, cs, true),
                                rank1(4, "FLOAT", NULL), tensor(5, "BFLOAT16", 3, cd, cs, false));
    json_t *nodes = json_pack("[o, o]", node("MatmulAttributes", json_pack("{s:i, s:i, s:i}", "a_tensor_uid", 1,
                                                                           "b_tensor_uid", 2, "c_tensor_uid", 3)),
                              pw("MUL", 3, 4, 5));
    hipdnnBackendDescriptor_t g = finalize_graph(tensors, nodes);
    check_graph_both_jit(g, "matmul * rank-1 scalar");
    hipdnnBackendDestroyDescriptor(g);
}

/* Host pointers (as hipDNN's samples pass with the reference engine in mind) given to the
 * JIT plans: refused by name, nothing launched, and the device still works afterwards. */
Test(gpu_compat, host_pointers_to_a_gpu_plan_are_refused)
{
    const char *engines[] = {"jit_fused", "jit_unfused"};
    hipdnnBackendDescriptor_t g = scalar_graph("FLOAT", 2, 16, 64);
    size_t bytes = 2 * 16 * 64 * sizeof(float);
    for (int e = 0; e < 2; e++) {
        hipdnnBackendDescriptor_t plan = plan_with(g, engines[e]);
        int64_t ws_size = workspace_of(plan);
        void *hx = malloc(bytes), *ht = malloc(4), *hy = malloc(bytes), *dx, *dt, *dy, *dws = NULL;
        memset(hx, 0, bytes), memset(ht, 0, 4);
        TU_OK(hipdnnDeviceMalloc_ext(&dx, bytes));
        TU_OK(hipdnnDeviceMalloc_ext(&dt, 4));
        TU_OK(hipdnnDeviceMalloc_ext(&dy, bytes));
        if (ws_size > 0)
            TU_OK(hipdnnDeviceMalloc_ext(&dws, (size_t)ws_size));
        void *hws = ws_size > 0 ? malloc((size_t)ws_size) : NULL;
        int64_t uids[] = {1, 4, 6};
        void *all_host[] = {hx, ht, hy}, *one_host[] = {dx, dt, hy}, *all_dev[] = {dx, dt, dy};
        cr_expect_eq(try_execute(plan, 3, uids, all_host, dws), HIPDNN_STATUS_BAD_PARAM, "%s", engines[e]);
        cr_expect(strstr(tu_msg(), "is host memory") != NULL, "%s: %s", engines[e], tu_msg());
        cr_expect_eq(try_execute(plan, 3, uids, one_host, dws), HIPDNN_STATUS_BAD_PARAM, "%s", engines[e]);
        cr_expect(strstr(tu_msg(), "tensor uid 6") != NULL, "%s: the output is named: %s", engines[e], tu_msg());
        if (ws_size > 0) {
            cr_expect_eq(try_execute(plan, 3, uids, all_dev, hws), HIPDNN_STATUS_BAD_PARAM, "%s", engines[e]);
            cr_expect(strstr(tu_msg(), "the workspace") != NULL, "%s: %s", engines[e], tu_msg());
        } else { /* a plan without workspace ignores the pack's workspace pointer */
            char host_ws[16];
            cr_expect_eq(try_execute(plan, 3, uids, all_dev, host_ws), HIPDNN_STATUS_SUCCESS, "%s: %s",
                         engines[e], tu_msg());
        }
        /* the context is not poisoned: device memory runs, and hipDNN's sample flow works */
        cr_expect_eq(try_execute(plan, 3, uids, all_dev, dws), HIPDNN_STATUS_SUCCESS, "%s: %s", engines[e], tu_msg());
        TU_OK(hipdnnStreamSynchronize_ext(handle));
        hipdnnDeviceFree_ext(dx), hipdnnDeviceFree_ext(dt), hipdnnDeviceFree_ext(dy);
        if (dws != NULL)
            hipdnnDeviceFree_ext(dws);
        free(hx), free(ht), free(hy), free(hws);
        hipdnnBackendDestroyDescriptor(plan);
    }
    check_graph(g, "after the refusals");
    hipdnnBackendDestroyDescriptor(g);
}
