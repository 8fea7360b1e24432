/* test_gpu.c — norms, pointwise regions, batchnorm inference and matmul on the GPU.
 *
 * Every case builds a graph (random shapes each run: odd sizes, strided rows, broadcasting),
 * fills its inputs with fresh random data, runs it through the public API twice — the first
 * heuristic config (which must be the fused JIT engine) on device memory, and the reference
 * engine on host memory — and compares every output: relative error ||out - ref|| / ||ref||
 * within the output type's tolerance, and no NaN left (device outputs are poisoned with 0xFF
 * bytes, a NaN in every float type, before the launch). Skips cleanly without a GPU.
 * Seed: HIPDNN_TEST_SEED replays a run.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_util.h"


TestSuite(gpu, .init = gpu_setup, .fini = gpu_teardown);

/* ---- cases ------------------------------------------------------------------------------------------- */

/* x [R, C] (row stride padded by `pad`) -> layernorm or rmsnorm, optional residual add prologue
 * and fp8 epilogue; `what` (160 bytes) gets its description. */
static hipdnnBackendDescriptor_t norm_graph(bool rms, const char *io, int64_t R, int64_t C, int64_t pad,
                                            bool residual, bool fp8_out, bool training, char *what)
{
    int64_t xd[2] = {R, C}, xs[2], wd[2] = {1, C}, ws[2], sd[2] = {R, 1}, ss[2] = {1, 1};
    packed(2, xd, xs, pad), packed(2, wd, ws, 0);
    json_t *tensors = json_array(), *nodes = json_array();
    json_array_append_new(tensors, tensor(1, io, 2, xd, xs, false));
    json_array_append_new(tensors, tensor(2, "FLOAT", 2, wd, ws, false));
    json_array_append_new(tensors, tensor(3, "FLOAT", 2, wd, ws, false));
    json_array_append_new(tensors, scalar(4, 1e-5f));
    int x = 1;
    if (residual) {
        json_array_append_new(tensors, tensor(10, io, 2, xd, xs, false));
        json_array_append_new(tensors, tensor(11, io, 2, xd, xs, false)); /* the residual stream out */
        json_array_append_new(nodes, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i, s:i}",
            "operation", "ADD", "in_0_tensor_uid", 1, "in_1_tensor_uid", 10, "out_0_tensor_uid", 11)));
        x = 11;
    }
    int y = 5;
    json_array_append_new(tensors, tensor(5, fp8_out ? "FLOAT" : io, 2, xd, xs, fp8_out));
    if (fp8_out) {
        json_array_append_new(tensors, scalar(20, 4.0f));
        json_array_append_new(tensors, tensor(21, "FP8_E4M3", 2, xd, xs, false));
        json_array_append_new(nodes, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i, s:i}",
            "operation", "MUL", "in_0_tensor_uid", 5, "in_1_tensor_uid", 20, "out_0_tensor_uid", 21)));
    }
    (void)y;
    json_t *attrs;
    if (rms) {
        attrs = json_pack("{s:i, s:i, s:i, s:i, s:i, s:s}", "x_tensor_uid", x, "scale_tensor_uid", 2,
                          "epsilon_tensor_uid", 4, "y_tensor_uid", 5, "bias_tensor_uid", 3,
                          "forward_phase", training ? "TRAINING" : "INFERENCE");
        if (training) {
            json_array_append_new(tensors, tensor(7, "FLOAT", 2, sd, ss, false));
            json_object_set_new(attrs, "inv_rms_tensor_uid", json_integer(7));
        }
    } else {
        attrs = json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:s}", "x_tensor_uid", x, "scale_tensor_uid", 2,
                          "bias_tensor_uid", 3, "epsilon_tensor_uid", 4, "y_tensor_uid", 5,
                          "normalized_dim_count", 1, "forward_phase", training ? "TRAINING" : "INFERENCE");
        if (training) {
            json_array_append_new(tensors, tensor(6, "FLOAT", 2, sd, ss, false));
            json_array_append_new(tensors, tensor(7, "FLOAT", 2, sd, ss, false));
            json_object_set_new(attrs, "mean_tensor_uid", json_integer(6));
            json_object_set_new(attrs, "inv_variance_tensor_uid", json_integer(7));
        }
    }
    json_array_append_new(nodes, node(rms ? "RMSNormAttributes" : "LayernormAttributes", attrs));
    snprintf(what, 160, "%s %s [%lld x %lld] pad %lld%s%s%s", rms ? "rmsnorm" : "layernorm", io,
             (long long)R, (long long)C, (long long)pad, residual ? " +residual" : "",
             fp8_out ? " ->fp8" : "", training ? " training" : "");
    return finalize_graph(tensors, nodes);
}

static void norm_case(bool rms, const char *io, int64_t R, int64_t C, int64_t pad, bool residual,
                      bool fp8_out, bool training)
{
    char what[160];
    hipdnnBackendDescriptor_t g = norm_graph(rms, io, R, C, pad, residual, fp8_out, training, what);
    check_graph(g, what);
    hipdnnBackendDestroyDescriptor(g);
}

/* The heuristic's ranked configs of a norm graph: the fused JIT engine's default knobs first,
 * then its other row-kernel settings, the reference engine last; every config computes the same
 * result as the reference. */
Test(gpu, heuristic_configs_all_compute_the_norm)
{
    char what[160], label[320];
    hipdnnBackendDescriptor_t g = norm_graph(false, "BFLOAT16", rnd(1, 200), 8 * rnd(1, 600), 0, true,
                                             false, true, what);
    hipdnnBackendDescriptor_t h, cfgs[64];
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &h));
    TU_OK(hipdnnBackendSetAttribute(h, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    TU_OK(hipdnnBackendSetAttribute(h, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode));
    TU_OK(hipdnnBackendFinalize(h));
    int64_t n = 0;
    TU_OK(hipdnnBackendGetAttribute(h, HIPDNN_ATTR_ENGINEHEUR_RESULTS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 0, &n, NULL));
    cr_assert(n >= 5 && n <= 64, "%lld configs: 4 JIT settings and the reference at least", (long long)n);
    for (int64_t i = 0; i < n; i++)
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]));
    TU_OK(hipdnnBackendGetAttribute(h, HIPDNN_ATTR_ENGINEHEUR_RESULTS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, n, &n, cfgs));
    int64_t first_id = -1, last_id = -1, jit_id = -1, ref_id = -1;
    TU_OK(hipdnnGetEngineIdByName_ext(handle, "jit_fused", &jit_id));
    TU_OK(hipdnnGetEngineIdByName_ext(handle, "reference", &ref_id));
    for (int64_t i = 0; i < n; i++) {
        TU_OK(hipdnnBackendFinalize(cfgs[i]));
        hipdnnBackendDescriptor_t e, plan;
        int64_t cnt, id, n_choices = 0;
        TU_OK(hipdnnBackendGetAttribute(cfgs[i], HIPDNN_ATTR_ENGINECFG_ENGINE, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cnt, &e));
        TU_OK(hipdnnBackendGetAttribute(e, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &cnt, &id));
        TU_OK(hipdnnBackendGetAttribute(cfgs[i], HIPDNN_ATTR_ENGINECFG_KNOB_CHOICES, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 0, &n_choices, NULL));
        hipdnnBackendDestroyDescriptor(e);
        if (i == 0)
            first_id = id;
        if (i == 0)
            cr_expect_eq(n_choices, 0, "the first config is the defaults");
        else if (id == jit_id)
            cr_expect_gt(n_choices, 0, "config %lld: a JIT alternative sets a knob", (long long)i);
        last_id = id;
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
        TU_OK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfgs[i]));
        TU_OK(hipdnnBackendFinalize(plan));
        snprintf(label, sizeof label, "%s, config %lld (engine %lld, %lld knob choices)", what, (long long)i,
                 (long long)id, (long long)n_choices);
        if (id != ref_id) /* the reference engine takes host pointers */
            check_plan(g, plan, NULL, label);
        hipdnnBackendDestroyDescriptor(plan);
    }
    cr_expect_eq(first_id, jit_id, "the fused JIT engine ranks first");
    cr_expect_eq(last_id, ref_id, "the reference engine ranks last");
    for (int64_t i = 0; i < n; i++)
        hipdnnBackendDestroyDescriptor(cfgs[i]);
    hipdnnBackendDestroyDescriptor(h);
    hipdnnBackendDestroyDescriptor(g);
}

Test(gpu, layernorm_random_shapes)
{
    const char *io[] = {"BFLOAT16", "HALF", "FLOAT"};
    for (int i = 0; i < 6; i++) {
        int64_t C = i % 2 ? 8 * rnd(1, 512) : rnd(1, 3000); /* vector path and odd rows */
        norm_case(false, io[i % 3], rnd(1, 300), C, i == 4 ? 8 : 0, false, false, i % 3 != 2);
    }
}

Test(gpu, rmsnorm_random_shapes)
{
    const char *io[] = {"BFLOAT16", "HALF", "FLOAT"};
    for (int i = 0; i < 6; i++) {
        int64_t C = i % 2 ? 8 * rnd(1, 1024) : rnd(1, 2000);
        norm_case(true, io[i % 3], rnd(1, 300), C, i == 3 ? 16 : 0, false, false, i % 2 == 0);
    }
}

Test(gpu, residual_add_rmsnorm)
{
    norm_case(true, "BFLOAT16", rnd(1, 200), 8 * rnd(1, 512), 0, true, false, false);
    norm_case(true, "HALF", rnd(1, 200), rnd(1, 999), 0, true, false, true);
}

Test(gpu, norm_with_fp8_epilogue)
{
    norm_case(true, "BFLOAT16", rnd(1, 200), 8 * rnd(1, 512), 0, false, true, false);
    norm_case(false, "BFLOAT16", rnd(1, 200), rnd(1, 999), 0, false, true, false);
}

/* x [N,C,H,W] (NHWC strides) + bias [1,C,1,1] -> mode -> y (NCHW) */
/* The same with y NHWC too (`nhwc_out`) and C drawn as a multiple of 8 (`c8`): both together
 * take the vectorized kernel (16-byte accesses along C); either alone, the scalar one. */
static void pointwise_layout_case(const char *mode, const char *in_t, const char *out_t, bool nhwc_out, bool c8)
{
    int64_t d[4] = {rnd(1, 4), c8 ? 8 * rnd(1, 12) : rnd(1, 33), rnd(1, 17), rnd(1, 19)};
    int64_t nhwc[4] = {d[1] * d[2] * d[3], 1, d[3] * d[1], d[1]}, nchw[4], bd[4] = {1, d[1], 1, 1}, bs[4];
    packed(4, d, nchw, 0), packed(4, bd, bs, 0);
    json_t *tensors = json_array(), *nodes = json_array();
    json_array_append_new(tensors, tensor(1, in_t, 4, d, nhwc, false));
    json_array_append_new(tensors, tensor(2, "FLOAT", 4, bd, bs, false));
    json_array_append_new(tensors, tensor(3, "FLOAT", 4, d, nchw, true));
    json_array_append_new(tensors, tensor(4, out_t, 4, d, nhwc_out ? nhwc : nchw, false));
    json_array_append_new(nodes, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i, s:i}",
        "operation", "ADD", "in_0_tensor_uid", 1, "in_1_tensor_uid", 2, "out_0_tensor_uid", 3)));
    json_array_append_new(nodes, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i}",
        "operation", mode, "in_0_tensor_uid", 3, "out_0_tensor_uid", 4)));
    hipdnnBackendDescriptor_t g = finalize_graph(tensors, nodes);
    char what[96];
    snprintf(what, sizeof what, "bias + %s %s -> %s [%lld,%lld,%lld,%lld] %s", mode, in_t, out_t, (long long)d[0],
             (long long)d[1], (long long)d[2], (long long)d[3], nhwc_out ? "NHWC -> NHWC" : "NHWC -> NCHW");
    check_graph(g, what);
    hipdnnBackendDestroyDescriptor(g);
}

static void pointwise_case(const char *mode, const char *in_t, const char *out_t)
{
    pointwise_layout_case(mode, in_t, out_t, false, false);
}

Test(gpu, pointwise_regions)
{
    const char *modes[] = {"RELU_FWD", "GELU_FWD", "SIGMOID_FWD", "TANH_FWD", "SWISH_FWD", "EXP",
                           "GELU_APPROX_TANH_FWD", "ABS"};
    const char *types[] = {"BFLOAT16", "HALF", "FLOAT"};
    for (int i = 0; i < 8; i++)
        pointwise_case(modes[i], types[i % 3], types[(i + 1) % 3]);
}

/* Iteration along the stored result's contiguous dim, 8-wide when every tensor allows it. */
Test(gpu, pointwise_layouts_and_vectors)
{
    const char *types[] = {"BFLOAT16", "HALF", "FLOAT"};
    for (int i = 0; i < 6; i++)
        pointwise_layout_case(i % 2 ? "GELU_FWD" : "RELU_FWD", types[i % 3], types[(i + 2) % 3], true, i < 4);
}

/* x [N,C,H,W] NHWC -> batchnorm inference (mean, inv_variance, scale, bias [1,C,1,1]) -> relu */
Test(gpu, bn_inference_relu)
{
    int64_t d[4] = {rnd(1, 4), rnd(1, 40), rnd(1, 13), rnd(1, 11)};
    int64_t nhwc[4] = {d[1] * d[2] * d[3], 1, d[3] * d[1], d[1]}, cd[4] = {1, d[1], 1, 1}, cs[4];
    packed(4, cd, cs, 0);
    json_t *tensors = json_array(), *nodes = json_array();
    json_array_append_new(tensors, tensor(1, "BFLOAT16", 4, d, nhwc, false));
    for (int u = 2; u <= 5; u++)
        json_array_append_new(tensors, tensor(u, "FLOAT", 4, cd, cs, false));
    json_array_append_new(tensors, tensor(6, "FLOAT", 4, d, nhwc, true));
    json_array_append_new(tensors, tensor(7, "BFLOAT16", 4, d, nhwc, false));
    json_array_append_new(nodes, node("BatchnormInferenceAttributes", json_pack("{s:i,s:i,s:i,s:i,s:i,s:i}",
        "x_tensor_uid", 1, "mean_tensor_uid", 2, "inv_variance_tensor_uid", 3, "scale_tensor_uid", 4,
        "bias_tensor_uid", 5, "y_tensor_uid", 6)));
    json_array_append_new(nodes, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i}",
        "operation", "RELU_FWD", "in_0_tensor_uid", 6, "out_0_tensor_uid", 7)));
    hipdnnBackendDescriptor_t g = finalize_graph(tensors, nodes);
    check_graph(g, "bn_inference + relu NHWC bf16");
    hipdnnBackendDestroyDescriptor(g);
}

/* C [Bt, M, K] x [Bt, K, N] -> epilogue. A row-major, B row-major or column-major (`b_kmajor`);
 * A's and B's batch dims are Bt or 1 (broadcast). Odd K pads the contiguous rows to a multiple
 * of 8 elements (the template's 16-byte rows). Epilogue 0: none (C stored in `out`), 1: + bias
 * [1, 1, N] then GELU, 2: + bias [Bt, M, N] then RELU, times 0.5. Tolerance: the output type's
 * (fp32 accumulation over K <= 1024 stays far inside it). */
static void matmul_case(const char *io, const char *out, int64_t bt, int64_t M, int64_t N, int64_t K,
                        bool a_bcast, bool b_bcast, bool b_kmajor, int epi)
{
    int64_t ka = (K + 7) / 8 * 8, kb = b_kmajor ? (K + 7) / 8 * 8 : 0, nb = (N + 7) / 8 * 8;
    int64_t ad[3] = {a_bcast ? 1 : bt, M, K}, as[3] = {M * ka, ka, 1};
    int64_t bd[3] = {b_bcast ? 1 : bt, K, N}, bs[3];
    if (b_kmajor)
        bs[0] = N * kb, bs[1] = 1, bs[2] = kb;
    else
        bs[0] = K * nb, bs[1] = nb, bs[2] = 1;
    int64_t cd[3] = {bt, M, N}, cs[3], vd[3] = {1, 1, N}, vs[3];
    packed(3, cd, cs, 0), packed(3, vd, vs, 0);
    json_t *tensors = json_array(), *nodes = json_array();
    json_array_append_new(tensors, tensor(1, io, 3, ad, as, false));
    json_array_append_new(tensors, tensor(2, io, 3, bd, bs, false));
    json_array_append_new(tensors, tensor(3, epi ? "FLOAT" : out, 3, cd, cs, epi != 0));
    json_array_append_new(nodes, node("MatmulAttributes", json_pack("{s:i, s:i, s:i}", "a_tensor_uid", 1,
                                                                    "b_tensor_uid", 2, "c_tensor_uid", 3)));
    if (epi) {
        json_array_append_new(tensors, epi == 1 ? tensor(4, io, 3, vd, vs, false) : tensor(4, "FLOAT", 3, cd, cs, false));
        json_array_append_new(tensors, tensor(5, "FLOAT", 3, cd, cs, true));
        json_array_append_new(tensors, tensor(6, epi == 1 ? out : "FLOAT", 3, cd, cs, epi != 1));
        json_array_append_new(nodes, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i, s:i}",
            "operation", "ADD", "in_0_tensor_uid", 3, "in_1_tensor_uid", 4, "out_0_tensor_uid", 5)));
        json_array_append_new(nodes, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i}",
            "operation", epi == 1 ? "GELU_FWD" : "RELU_FWD", "in_0_tensor_uid", 5, "out_0_tensor_uid", 6)));
    }
    if (epi == 2) {
        json_t *half = scalar(7, 0.5f); /* rank 3, as the pointwise ranks must agree */
        json_object_set_new(half, "dims", json_pack("[i,i,i]", 1, 1, 1));
        json_object_set_new(half, "strides", json_pack("[i,i,i]", 1, 1, 1));
        json_array_append_new(tensors, half);
        json_array_append_new(tensors, tensor(8, out, 3, cd, cs, false));
        json_array_append_new(nodes, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i, s:i}",
            "operation", "MUL", "in_0_tensor_uid", 6, "in_1_tensor_uid", 7, "out_0_tensor_uid", 8)));
    }
    char what[200];
    snprintf(what, sizeof what, "matmul %s->%s [%lld%s x %lld x %lld] x [%lld%s x %lld x %lld]%s epi %d", io, out,
             (long long)ad[0], a_bcast ? "b" : "", (long long)M, (long long)K, (long long)bd[0],
             b_bcast ? "b" : "", (long long)K, (long long)N, b_kmajor ? " B col-major" : "", epi);
    hipdnnBackendDescriptor_t g = finalize_graph(tensors, nodes);
    check_graph(g, what);
    hipdnnBackendDestroyDescriptor(g);
}

Test(gpu, matmul_bias_gelu_random_shapes)
{
    const char *io[] = {"BFLOAT16", "HALF"};
    for (int i = 0; i < 8; i++) {
        int64_t bt = rnd(1, 3);
        bool odd = i % 2 == 0;
        int64_t M = rnd(1, 300), N = odd ? rnd(1, 300) : 8 * rnd(1, 40), K = odd ? rnd(1, 300) : 8 * rnd(1, 40);
        matmul_case(io[i % 2], io[i % 2], bt, M, N, K, i == 2, i == 5, i % 4 >= 2, 1);
    }
}

Test(gpu, matmul_layouts_and_outputs)
{
    matmul_case("BFLOAT16", "FLOAT", 2, rnd(129, 260), rnd(129, 260), rnd(600, 1000), false, true, false, 0);
    matmul_case("HALF", "HALF", 3, rnd(1, 200), rnd(1, 200), rnd(1, 200), true, false, true, 0);
    matmul_case("BFLOAT16", "BFLOAT16", 1, rnd(1, 200), rnd(1, 200), rnd(1, 200), false, false, true, 2);
    matmul_case("HALF", "FLOAT", 2, rnd(1, 200), rnd(1, 200), rnd(1, 200), false, false, false, 2);
    matmul_case("BFLOAT16", "BFLOAT16", 1, 1, 1, 1, false, false, false, 1);
    matmul_case("HALF", "HALF", 1, 256, 128, 96, false, false, true, 1);
}

