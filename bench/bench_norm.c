/* bench_norm.c — times fused norm graphs built through the public API and run by the fused JIT
 * engine, and prints achieved bandwidth.
 *
 * Graphs (bf16 I/O, fp32 scale/bias and statistics math):
 *   layernorm        y = LN(x)
 *   rmsnorm          y = RMS(x)
 *   add_rmsnorm      h = x + r (written), y = RMS(h)     (residual stream + norm, one kernel)
 *   rmsnorm_fp8      y = fp8_e4m3(RMS(x) * 4)
 * Bytes counted: each tensor the kernel must read or write once (x, r, y, h; weights and
 * statistics are negligible and not counted). Timing: CUDA events around each launch after
 * warm-up, median of 50, inputs rotated over 4 buffer sets (> L2) so the cache does not serve
 * them. Output: one line per case, "case rows cols ms GB/s", for bench/compare.py.
 * Device memory comes from the library's runtime (runtime/rt.h): the benchmark otherwise uses
 * only the public API.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipdnn_backend.h"
#include "runtime/rt.h"

#define SETS 4
#define REPS 50

#define CHECK(call)                                                                              \
    do {                                                                                        \
        hipdnnStatus_t st_ = (call);                                                            \
        if (st_ != HIPDNN_STATUS_SUCCESS) {                                                     \
            char m_[HIPDNN_ERROR_STRING_MAX_LENGTH];                                            \
            hipdnnGetLastErrorString(m_, sizeof m_);                                            \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, m_);                   \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

static hipdnnHandle_t handle;

static json_t *tensor(int uid, const char *dt, int64_t r, int64_t c, bool is_virtual)
{
    return json_pack("{s:i, s:s, s:[I,I], s:[I,I], s:b}", "uid", uid, "data_type", dt, "strides",
                     (json_int_t)c, (json_int_t)1, "dims", (json_int_t)r, (json_int_t)c, "virtual", is_virtual);
}

static json_t *scalar(int uid, double v)
{
    return json_pack("{s:i, s:s, s:[i,i], s:[i,i], s:s, s:{s:f}}", "uid", uid, "data_type", "FLOAT",
                     "strides", 1, 1, "dims", 1, 1, "value_type", "Float32Value", "value", "value", v);
}

static json_t *node(const char *type, json_t *attrs)
{
    return json_pack("{s:s, s:s, s:o}", "compute_data_type", "FLOAT", "attributes_type", type, "attributes", attrs);
}

/* The graph of one case; uids: 1 x, 2 scale, 3 bias, 4 eps, 5 y, 10 r, 11 h, 21 y8. */
static hipdnnBackendDescriptor_t build(const char *kind, int64_t R, int64_t C)
{
    json_t *t = json_array(), *n = json_array();
    bool rms = strcmp(kind, "layernorm") != 0, fp8 = strstr(kind, "fp8") != NULL;
    bool residual = strncmp(kind, "add_", 4) == 0;
    json_array_append_new(t, tensor(1, "BFLOAT16", R, C, false));
    json_array_append_new(t, tensor(2, "FLOAT", 1, C, false));
    json_array_append_new(t, tensor(3, "FLOAT", 1, C, false));
    json_array_append_new(t, scalar(4, 1e-5));
    json_array_append_new(t, tensor(5, fp8 ? "FLOAT" : "BFLOAT16", R, C, fp8));
    int x = 1;
    if (residual) {
        json_array_append_new(t, tensor(10, "BFLOAT16", R, C, false));
        json_array_append_new(t, tensor(11, "BFLOAT16", R, C, false));
        json_array_append_new(n, node("PointwiseAttributes", json_pack("{s:s,s:i,s:i,s:i}", "operation", "ADD",
                                      "in_0_tensor_uid", 1, "in_1_tensor_uid", 10, "out_0_tensor_uid", 11)));
        x = 11;
    }
    if (fp8) {
        json_array_append_new(t, scalar(20, 4.0));
        json_array_append_new(t, tensor(21, "FP8_E4M3", R, C, false));
        json_array_append_new(n, node("PointwiseAttributes", json_pack("{s:s,s:i,s:i,s:i}", "operation", "MUL",
                                      "in_0_tensor_uid", 5, "in_1_tensor_uid", 20, "out_0_tensor_uid", 21)));
    }
    if (rms)
        json_array_append_new(n, node("RMSNormAttributes", json_pack("{s:i,s:i,s:i,s:i,s:s}", "x_tensor_uid", x,
            "scale_tensor_uid", 2, "epsilon_tensor_uid", 4, "y_tensor_uid", 5, "forward_phase", "INFERENCE")));
    else
        json_array_append_new(n, node("LayernormAttributes", json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:s}", "x_tensor_uid", x,
            "scale_tensor_uid", 2, "bias_tensor_uid", 3, "epsilon_tensor_uid", 4, "y_tensor_uid", 5,
            "normalized_dim_count", 1, "forward_phase", "INFERENCE")));
    json_t *doc = json_pack("{s:o, s:o}", "tensors", t, "nodes", n);
    char *text = json_dumps(doc, 0);
    hipdnnBackendDescriptor_t g;
    CHECK(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, text, strlen(text)));
    CHECK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    CHECK(hipdnnBackendFinalize(g));
    free(text);
    json_decref(doc);
    return g;
}

static hipdnnBackendDescriptor_t plan_of(hipdnnBackendDescriptor_t g)
{
    hipdnnBackendDescriptor_t heur, cfg, plan, eng;
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    int64_t n = 0;
    char name[64] = "";
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    CHECK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode));
    CHECK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    CHECK(hipdnnBackendFinalize(heur));
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    CHECK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &cfg));
    CHECK(hipdnnBackendFinalize(cfg));
    CHECK(hipdnnBackendGetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &eng));
    CHECK(hipdnnBackendGetAttribute(eng, HIPDNN_ATTR_ENGINE_NAME_EXT, HIPDNN_TYPE_CHAR, sizeof name, &n, name));
    if (strcmp(name, "jit_fused") != 0) {
        fprintf(stderr, "the first engine is '%s', not jit_fused\n", name);
        exit(1);
    }
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    CHECK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg));
    CHECK(hipdnnBackendFinalize(plan));
    hipdnnBackendDestroyDescriptor(eng), hipdnnBackendDestroyDescriptor(cfg), hipdnnBackendDestroyDescriptor(heur);
    return plan;
}

static hipdnnBackendDescriptor_t pack_of(int n, int64_t *uids, void **ptrs)
{
    hipdnnBackendDescriptor_t p;
    void *ws = NULL;
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &p));
    CHECK(hipdnnBackendSetAttribute(p, HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, HIPDNN_TYPE_INT64, n, uids));
    CHECK(hipdnnBackendSetAttribute(p, HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS, HIPDNN_TYPE_VOID_PTR, n, ptrs));
    CHECK(hipdnnBackendSetAttribute(p, HIPDNN_ATTR_VARIANT_PACK_WORKSPACE, HIPDNN_TYPE_VOID_PTR, 1, &ws));
    CHECK(hipdnnBackendFinalize(p));
    return p;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Random bf16 values in [-2, 2) from a fast generator (the timed kernels never see zeros). */
static void fill_random_bf16(void *dev, size_t n)
{
    unsigned short *h = malloc(n * 2);
    unsigned s = (unsigned)rand() | 1u;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        float f = (float)(s >> 8) * (4.0f / 16777216.0f) - 2.0f;
        unsigned u;
        memcpy(&u, &f, 4);
        h[i] = (unsigned short)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
    }
    CHECK(rt_memcpy_h2d(dev, h, n * 2));
    free(h);
}

static void run_case(const char *kind, int64_t R, int64_t C)
{
    hipdnnBackendDescriptor_t g = build(kind, R, C), plan = plan_of(g);
    bool residual = strncmp(kind, "add_", 4) == 0, fp8 = strstr(kind, "fp8") != NULL;
    size_t elems = (size_t)(R * C);
    float *w = malloc((size_t)C * 4);
    for (int64_t i = 0; i < C; i++)
        w[i] = 1.0f + (float)rand() / RAND_MAX * 0.1f;
    void *scale, *bias;
    CHECK(rt_malloc(&scale, (size_t)C * 4));
    CHECK(rt_malloc(&bias, (size_t)C * 4));
    CHECK(rt_memcpy_h2d(scale, w, (size_t)C * 4));
    CHECK(rt_memcpy_h2d(bias, w, (size_t)C * 4));
    hipdnnBackendDescriptor_t packs[SETS];
    void *bufs[SETS][4];
    for (int s = 0; s < SETS; s++) {
        int64_t uids[6] = {1, 2, 3, fp8 ? 21 : 5, 10, 11};
        for (int b = 0; b < 4; b++)
            CHECK(rt_malloc(&bufs[s][b], elems * 2));
        fill_random_bf16(bufs[s][0], elems);
        fill_random_bf16(bufs[s][2], elems);
        void *ptrs[6] = {bufs[s][0], scale, bias, bufs[s][1], bufs[s][2], bufs[s][3]};
        packs[s] = pack_of(residual ? 6 : 4, uids, ptrs);
    }
    for (int i = 0; i < 10; i++)
        CHECK(hipdnnBackendExecute(handle, plan, packs[i % SETS]));
    rt_event ev[2];
    CHECK(rt_event_create(&ev[0]));
    CHECK(rt_event_create(&ev[1]));
    float ms[REPS];
    for (int i = 0; i < REPS; i++) {
        CHECK(rt_event_record(ev[0], NULL));
        CHECK(hipdnnBackendExecute(handle, plan, packs[i % SETS]));
        CHECK(rt_event_record(ev[1], NULL));
        CHECK(rt_event_elapsed_ms(ev[0], ev[1], &ms[i]));
    }
    qsort(ms, REPS, sizeof ms[0], cmp_float);
    double bytes = (double)elems * (2 /* x */ + (fp8 ? 1 : 2) /* y */ + (residual ? 4 : 0) /* r, h */);
    printf("%-12s %6lld %6lld %9.4f %8.1f\n", kind, (long long)R, (long long)C, ms[REPS / 2],
           bytes / (ms[REPS / 2] * 1e-3) / 1e9);
    fflush(stdout);
    for (int s = 0; s < SETS; s++) {
        hipdnnBackendDestroyDescriptor(packs[s]);
        for (int b = 0; b < 4; b++)
            rt_free(bufs[s][b]);
    }
    rt_free(scale), rt_free(bias), free(w);
    rt_event_destroy(ev[0]), rt_event_destroy(ev[1]);
    hipdnnBackendDestroyDescriptor(plan), hipdnnBackendDestroyDescriptor(g);
}

int main(int argc, char **argv)
{
    static const int64_t shapes[][2] = {{16384, 4096}, {65536, 4096}, {32768, 8192}, {8192, 1024}};
    const char *kinds[] = {"layernorm", "rmsnorm", "add_rmsnorm", "rmsnorm_fp8"};
    if (rt_init() != HIPDNN_STATUS_SUCCESS) {
        fprintf(stderr, "bench_norm: no GPU\n");
        return 1;
    }
    CHECK(hipdnnCreate(&handle));
    srand(1);
    printf("%-12s %6s %6s %9s %8s\n", "case", "rows", "cols", "ms", "GB/s");
    for (size_t k = 0; k < 4; k++)
        for (size_t s = 0; s < 4; s++)
            if (argc < 2 || strstr(argv[1], kinds[k]) != NULL)
                run_case(kinds[k], shapes[s][0], shapes[s][1]);
    hipdnnDestroy(handle);
    return 0;
}
