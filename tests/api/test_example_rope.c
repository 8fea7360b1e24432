/* test_example_rope.c — the example custom-op plugin (examples/plugins/rope.c, "example.rope")
 * loaded through hipdnnSetEnginePluginPaths_ext, in a graph between built-in ops:
 * y = −rope(|x|, cos, sin), with x in the [B, S, H, D] memory layout seen as [B, H, S, D]
 * (strided), both pair styles. On the reference engine (CPU CI) per element against the
 * formula computed here; compile-only for sm_90 in FLOAT and BFLOAT16 (NVRTC, no GPU); on a GPU,
 * the JIT plan against the reference engine's result (skips without one). Public API only.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hipdnn_backend.h"
#include "hipdnn_jit.h"
#include "../common/tu.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR
enum { B = 2, H = 3, S = 5, D = 8, N = B * H * S * D, HALF = D / 2 };

static void load_plugin(void)
{
    /* the build's plugin, or HIPDNN_TEST_ROPE_PLUGIN where the test runs from a bundle elsewhere */
    const char *env = getenv("HIPDNN_TEST_ROPE_PLUGIN");
    const char *paths[] = {env != NULL && env[0] ? env : EXAMPLE_ROPE_PLUGIN};
    TU_OK(hipdnnSetEnginePluginPaths_ext(1, paths, HIPDNN_PLUGIN_LOADING_ADDITIVE));
}

/* [B, H, S, D] dims over [B, S, H, D] memory */
static hipdnnBackendDescriptor_t bhsd(int64_t uid, hipdnnDataType_t dt, bool is_virtual)
{
    int64_t dims[] = {B, H, S, D}, strides[] = {S * H * D, D, H * D, 1};
    hipdnnBackendDescriptor_t t = tu_tensor_unfinalized(uid, dt, 4, dims, strides, is_virtual);
    TU_OK(hipdnnBackendFinalize(t));
    return t;
}

/* y = −rope(|x|); descs gets the 9 descriptors to destroy. */
static hipdnnBackendDescriptor_t graph(hipdnnHandle_t h, hipdnnDataType_t dt, uint8_t style,
                                       hipdnnBackendDescriptor_t *d)
{
    int64_t cs_dims[] = {S, HALF};
    d[0] = bhsd(1, dt, false), d[1] = bhsd(2, dt, true), d[2] = bhsd(3, dt, true), d[3] = bhsd(4, dt, false);
    d[4] = tu_tensor(5, HIPDNN_DATA_FLOAT, 2, cs_dims, false, NULL, 0);
    d[5] = tu_tensor(6, HIPDNN_DATA_FLOAT, 2, cs_dims, false, NULL, 0);
    d[6] = tu_unary(HIPDNN_POINTWISE_ABS, d[0], d[1]);
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_CUSTOM_OP_DESCRIPTOR_EXT, &d[7]));
    TU_OK(hipdnnBackendSetAttribute(d[7], HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT, HIPDNN_TYPE_CHAR, 12, "example.rope"));
    TU_OK(hipdnnBackendSetAttribute(d[7], HIPDNN_ATTR_OPERATION_CUSTOM_OP_DATA_EXT, HIPDNN_TYPE_CHAR, 1, &style));
    hipdnnBackendDescriptor_t ins[] = {d[1], d[4], d[5]};
    TU_OK(hipdnnBackendSetAttribute(d[7], HIPDNN_ATTR_OPERATION_CUSTOM_OP_INPUTS_EXT, DESC, 3, ins));
    TU_OK(hipdnnBackendSetAttribute(d[7], HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT, DESC, 1, &d[2]));
    TU_OK(hipdnnBackendFinalize(d[7]));
    d[8] = tu_unary(HIPDNN_POINTWISE_NEG, d[2], d[3]);
    hipdnnBackendDescriptor_t ops[] = {d[6], d[7], d[8]}, g;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &h));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 3, ops));
    TU_OK(hipdnnBackendFinalize(g));
    return g;
}

static void destroy(hipdnnBackendDescriptor_t g, hipdnnBackendDescriptor_t *d)
{
    hipdnnBackendDestroyDescriptor(g);
    for (int i = 0; i < 9; i++)
        hipdnnBackendDestroyDescriptor(d[i]);
}

static void inputs(float *x, float *cs, float *sn)
{
    for (int i = 0; i < N; i++)
        x[i] = tu_float(-3.0f, 3.0f);
    for (int i = 0; i < S * HALF; i++) {
        float a = tu_float(0.0f, 6.3f);
        cs[i] = cosf(a), sn[i] = sinf(a);
    }
}

/* Runs the graph's plan on engine `name` with host (reference) or device buffers; y poisoned. */
static hipdnnStatus_t run(hipdnnHandle_t h, hipdnnBackendDescriptor_t g, const char *name, const float *x,
                          const float *cs, const float *sn, float *y, bool device)
{
    int64_t id;
    TU_OK(hipdnnGetEngineIdByName_ext(h, name, &id));
    hipdnnBackendDescriptor_t plan;
    hipdnnStatus_t st = tu_try_plan(h, g, id, &plan);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    int64_t ws_size = 0, n = 0;
    TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, &n,
                                    &ws_size));
    const size_t sizes[] = {N * sizeof(float), S * HALF * sizeof(float), S * HALF * sizeof(float), N * sizeof(float)};
    const void *host[] = {x, cs, sn, y};
    void *ptrs[4], *ws = NULL;
    for (int i = 0; i < 4; i++) {
        if (device) {
            TU_OK(hipdnnDeviceMalloc_ext(&ptrs[i], sizes[i]));
            TU_OK(hipdnnMemcpyHostToDevice_ext(ptrs[i], host[i], sizes[i])); /* y: its poison */
        } else {
            ptrs[i] = (void *)host[i];
        }
    }
    if (ws_size > 0 && device)
        TU_OK(hipdnnDeviceMalloc_ext(&ws, (size_t)ws_size));
    else if (ws_size > 0)
        ws = malloc((size_t)ws_size);
    int64_t uids[] = {1, 5, 6, 4};
    hipdnnBackendDescriptor_t pack = tu_pack(4, uids, ptrs, ws);
    st = hipdnnBackendExecute(h, plan, pack);
    if (device) {
        TU_OK(hipdnnStreamSynchronize_ext(h));
        TU_OK(hipdnnMemcpyDeviceToHost_ext(y, ptrs[3], sizes[3]));
        for (int i = 0; i < 4; i++)
            hipdnnDeviceFree_ext(ptrs[i]);
        hipdnnDeviceFree_ext(ws);
    } else {
        free(ws);
    }
    hipdnnBackendDestroyDescriptor(pack), hipdnnBackendDestroyDescriptor(plan);
    return st;
}

Test(example_rope, runs_on_the_reference_engine_between_built_in_ops)
{
    load_plugin();
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    for (uint8_t style = 0; style < 2; style++) {
        static float x[N], y[N], cs[S * HALF], sn[S * HALF];
        inputs(x, cs, sn);
        for (int i = 0; i < N; i++)
            y[i] = NAN;
        hipdnnBackendDescriptor_t d[9];
        hipdnnBackendDescriptor_t g = graph(h, HIPDNN_DATA_FLOAT, style, d);
        TU_OK(run(h, g, "reference", x, cs, sn, y, false));
        int bad = 0;
        for (int b = 0; b < B; b++)
            for (int hh = 0; hh < H; hh++)
                for (int s = 0; s < S; s++)
                    for (int i = 0; i < HALF; i++) {
                        int p = style ? 2 * i : i, q = style ? 2 * i + 1 : i + HALF;
                        int64_t row = (int64_t)b * S * H * D + (int64_t)s * H * D + (int64_t)hh * D; /* [B,S,H,D] */
                        double xp = fabs(x[row + p]), xq = fabs(x[row + q]), co = cs[s * HALF + i], si = sn[s * HALF + i];
                        double want[2] = {-(xp * co - xq * si), -(xq * co + xp * si)};
                        float got[2] = {y[row + p], y[row + q]};
                        for (int k = 0; k < 2; k++)
                            if (!(fabs(got[k] - want[k]) <= 1e-6 + 1e-6 * fabs(want[k])) && bad++ < 5)
                                cr_log_error("style %d [%d,%d,%d,%d]: got %.9g, want %.9g", style, b, hh, s,
                                             k ? q : p, got[k], want[k]);
                    }
        cr_expect_eq(bad, 0, "style %d: %d of %d elements off", style, bad, N);
        destroy(g, d);
    }
    TU_OK(hipdnnDestroy(h));
}

Test(example_rope, compiles_for_sm_90_in_float_and_bf16)
{
    load_plugin();
    if (hipdnnSetCompileTarget_ext("sm_90", 0) != HIPDNN_STATUS_SUCCESS)
        cr_skip_test("no NVRTC on this machine: %s", tu_msg());
    setenv("HIPDNN_CACHE_DISABLE", "1", 1);
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    int64_t id;
    TU_OK(hipdnnGetEngineIdByName_ext(h, "jit_fused", &id));
    hipdnnDataType_t types[] = {HIPDNN_DATA_FLOAT, HIPDNN_DATA_BFLOAT16};
    for (int t = 0; t < 2; t++) {
        hipdnnBackendDescriptor_t d[9], plan;
        hipdnnBackendDescriptor_t g = graph(h, types[t], 1, d);
        TU_OK(tu_try_plan(h, g, id, &plan)); /* compiles the built-in kernels and the plugin's */
        int64_t st[4] = {0}, n = 0;
        TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE_STATS_EXT, HIPDNN_TYPE_INT64, 4,
                                        &n, st));
        cr_expect_geq(st[0], 2, "type %d: the plugin's kernel and at least one built-in (%lld)", t, (long long)st[0]);
        hipdnnBackendDestroyDescriptor(plan);
        destroy(g, d);
    }
    TU_OK(hipdnnDestroy(h));
    hipdnnSetCompileTarget_ext(NULL, 0);
}

Test(example_rope, the_gpu_plan_matches_the_reference_engine)
{
    tu_need_gpu();
    load_plugin();
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    for (uint8_t style = 0; style < 2; style++) {
        static float x[N], want[N], got[N], cs[S * HALF], sn[S * HALF];
        inputs(x, cs, sn);
        for (int i = 0; i < N; i++)
            want[i] = got[i] = NAN;
        hipdnnBackendDescriptor_t d[9];
        hipdnnBackendDescriptor_t g = graph(h, HIPDNN_DATA_FLOAT, style, d);
        TU_OK(run(h, g, "reference", x, cs, sn, want, false));
        TU_OK(run(h, g, "jit_fused", x, cs, sn, got, true));
        int bad = 0;
        for (int i = 0; i < N; i++)
            if (!(fabsf(got[i] - want[i]) <= 1e-5f + 1e-5f * fabsf(want[i])) && bad++ < 5)
                cr_log_error("style %d, element %d: GPU %.9g, reference %.9g", style, i, got[i], want[i]);
        cr_expect_eq(bad, 0, "style %d: %d of %d elements off", style, bad, N);
        destroy(g, d);
    }
    TU_OK(hipdnnDestroy(h));
}
