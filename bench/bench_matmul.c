/* bench_matmul.c — times the fused matmul + bias + GELU graph built through the public API and
 * run by the fused JIT engine (kernel_templates/matmul.hip), and prints TFLOP/s.
 *
 * Graph: y [1, M, N] bf16 = GELU(A [1, M, K] · B [1, K, N] + bias [1, 1, N]), bf16 operands, fp32
 * accumulation, A and B row-major. Flops counted: 2·M·N·K (the epilogue is not counted).
 * Timing: CUDA events around each execute after warm-up, median of REPS, inputs rotated over
 * SETS buffer sets (each larger than L2). Output: one line per case, "case M N K ms TFLOP/s",
 * for bench/compare_matmul.py. Device memory comes from the library's runtime (runtime/rt.h):
 * the benchmark otherwise uses only the public API.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipdnn_backend.h"
#include "runtime/rt.h"

#define SETS 2
#define REPS 30

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

static json_t *tensor(int uid, const char *dt, int64_t d0, int64_t d1, int64_t d2, bool is_virtual)
{
    return json_pack("{s:i, s:s, s:[I,I,I], s:[I,I,I], s:b}", "uid", uid, "data_type", dt, "strides",
                     (json_int_t)(d1 * d2), (json_int_t)d2, (json_int_t)1, "dims", (json_int_t)d0,
                     (json_int_t)d1, (json_int_t)d2, "virtual", is_virtual);
}

static json_t *node(const char *type, json_t *attrs)
{
    return json_pack("{s:s, s:s, s:o}", "compute_data_type", "FLOAT", "attributes_type", type, "attributes", attrs);
}

/* uids: 1 a, 2 b, 3 c (virtual fp32), 4 bias, 5 c + bias (virtual), 6 y. */
static hipdnnBackendDescriptor_t build(int64_t M, int64_t N, int64_t K)
{
    json_t *t = json_array(), *n = json_array();
    json_array_append_new(t, tensor(1, "BFLOAT16", 1, M, K, false));
    json_array_append_new(t, tensor(2, "BFLOAT16", 1, K, N, false));
    json_array_append_new(t, tensor(3, "FLOAT", 1, M, N, true));
    json_array_append_new(t, tensor(4, "BFLOAT16", 1, 1, N, false));
    json_array_append_new(t, tensor(5, "FLOAT", 1, M, N, true));
    json_array_append_new(t, tensor(6, "BFLOAT16", 1, M, N, false));
    json_array_append_new(n, node("MatmulAttributes", json_pack("{s:i,s:i,s:i}", "a_tensor_uid", 1,
                                  "b_tensor_uid", 2, "c_tensor_uid", 3)));
    json_array_append_new(n, node("PointwiseAttributes", json_pack("{s:s,s:i,s:i,s:i}", "operation", "ADD",
                                  "in_0_tensor_uid", 3, "in_1_tensor_uid", 4, "out_0_tensor_uid", 5)));
    json_array_append_new(n, node("PointwiseAttributes", json_pack("{s:s,s:i,s:i}", "operation", "GELU_FWD",
                                  "in_0_tensor_uid", 5, "out_0_tensor_uid", 6)));
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

static void run_case(int64_t M, int64_t N, int64_t K)
{
    hipdnnBackendDescriptor_t g = build(M, N, K), plan = plan_of(g);
    void *bias, *bufs[SETS][3];
    CHECK(rt_malloc(&bias, (size_t)N * 2));
    fill_random_bf16(bias, (size_t)N);
    hipdnnBackendDescriptor_t packs[SETS];
    for (int s = 0; s < SETS; s++) {
        size_t elems[3] = {(size_t)(M * K), (size_t)(K * N), (size_t)(M * N)};
        for (int b = 0; b < 3; b++) {
            CHECK(rt_malloc(&bufs[s][b], elems[b] * 2));
            fill_random_bf16(bufs[s][b], elems[b]);
        }
        int64_t uids[4] = {1, 2, 4, 6};
        void *ptrs[4] = {bufs[s][0], bufs[s][1], bias, bufs[s][2]};
        packs[s] = pack_of(4, uids, ptrs);
    }
    for (int i = 0; i < 5; i++)
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
    double flops = 2.0 * (double)M * (double)N * (double)K;
    printf("%-14s %6lld %6lld %6lld %9.4f %8.1f\n", "mm_bias_gelu", (long long)M, (long long)N, (long long)K,
           ms[REPS / 2], flops / (ms[REPS / 2] * 1e-3) / 1e12);
    fflush(stdout);
    for (int s = 0; s < SETS; s++) {
        hipdnnBackendDestroyDescriptor(packs[s]);
        for (int b = 0; b < 3; b++)
            rt_free(bufs[s][b]);
    }
    rt_free(bias);
    rt_event_destroy(ev[0]), rt_event_destroy(ev[1]);
    hipdnnBackendDestroyDescriptor(plan), hipdnnBackendDestroyDescriptor(g);
}

int main(int argc, char **argv)
{
    static const int64_t sizes[] = {4096, 8192};
    if (rt_init() != HIPDNN_STATUS_SUCCESS) {
        fprintf(stderr, "bench_matmul: no GPU\n");
        return 1;
    }
    CHECK(hipdnnCreate(&handle));
    srand(1);
    printf("%-14s %6s %6s %6s %9s %8s\n", "case", "M", "N", "K", "ms", "TFLOP/s");
    for (size_t s = 0; s < 2; s++)
        if (argc < 2 || atoll(argv[1]) == sizes[s])
            run_case(sizes[s], sizes[s], sizes[s]);
    hipdnnDestroy(handle);
    return 0;
}
