/* test_execute_reference.c — the whole public-API path on the host with the reference engine:
 * graph -> heuristics -> engine config -> plan -> variant pack -> execute, compared with the
 * same math written here independently (plain loops in double). Fresh random inputs each run
 * (seed printed), outputs poisoned with NaN before execute.
 * Includes nothing but the public header.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hipdnn_backend.h"
#include "../common/tu.h"
#include "../common/tu_close.h"


static hipdnnHandle_t handle;
static unsigned seed;

static void setup(void)
{
    TU_OK(hipdnnCreate(&handle));
    const char *env = getenv("HIPDNN_TEST_SEED");
    seed = env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL) ^ (unsigned)clock();
    srand(seed);
    cr_log_info("seed %u", seed);
}

static void teardown(void) { hipdnnDestroy(handle); }

TestSuite(execute_reference, .init = setup, .fini = teardown);

static float urand(void) { return (float)rand() / (float)RAND_MAX * 2.0f - 1.0f; }

static hipdnnBackendDescriptor_t tensor(int64_t uid, int rank, const int64_t *dims, bool is_virtual)
{
    return tu_tensor(uid, HIPDNN_DATA_FLOAT, rank, dims, is_virtual, NULL, 0);
}

static void set_desc(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a, hipdnnBackendDescriptor_t v)
{
    TU_OK(hipdnnBackendSetAttribute(d, a, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &v));
}

static hipdnnBackendDescriptor_t pointwise(hipdnnPointwiseMode_t mode, hipdnnBackendDescriptor_t a,
                                           hipdnnBackendDescriptor_t b, hipdnnBackendDescriptor_t y)
{
    hipdnnBackendDescriptor_t op;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_TYPE_POINTWISE_MODE, 1, &mode));
    set_desc(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, a);
    if (b != NULL)
        set_desc(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_1_EXT, b);
    set_desc(op, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, y);
    TU_OK(hipdnnBackendFinalize(op));
    return op;
}

/* graph -> heuristics -> first config -> plan, checking the reference engine is offered. */
static hipdnnBackendDescriptor_t plan_for(hipdnnBackendDescriptor_t *ops, int n, int64_t *workspace)
{
    hipdnnBackendDescriptor_t graph, heur, cfg, plan;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &graph));
    TU_OK(hipdnnBackendSetAttribute(graph, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    TU_OK(hipdnnBackendSetAttribute(graph, HIPDNN_ATTR_OPERATIONGRAPH_OPS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, n, ops));
    TU_OK(hipdnnBackendFinalize(graph));
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode));
    set_desc(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph);
    TU_OK(hipdnnBackendFinalize(heur));
    int64_t count = 0;
    TU_OK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, NULL));
    cr_assert_geq(count, 1, "the reference engine supports every graph here");
    /* host memory: take the reference engine, which ranks last (GPU engines come first) */
    hipdnnBackendDescriptor_t cfgs[8];
    cr_assert_leq(count, 8);
    for (int64_t i = 0; i < count; i++)
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]));
    TU_OK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, count, &count, cfgs));
    cfg = cfgs[count - 1];
    for (int64_t i = 0; i + 1 < count; i++)
        hipdnnBackendDestroyDescriptor(cfgs[i]);
    TU_OK(hipdnnBackendFinalize(cfg));
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    set_desc(plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, cfg);
    TU_OK(hipdnnBackendFinalize(plan));
    TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, &count, workspace));
    hipdnnBackendDestroyDescriptor(cfg);
    hipdnnBackendDestroyDescriptor(heur);
    hipdnnBackendDestroyDescriptor(graph);
    return plan;
}

static void execute(hipdnnBackendDescriptor_t plan, int n, const int64_t *uids, void **ptrs, void *ws)
{
    hipdnnBackendDescriptor_t pack = tu_pack(n, uids, ptrs, ws);
    TU_OK(hipdnnBackendExecute(handle, plan, pack));
    hipdnnBackendDestroyDescriptor(pack);
}

/* y = gelu(A·B + bias): A [1,M,K], B [1,K,N], bias [1,1,N]; c and c+bias virtual. */
Test(execute_reference, matmul_bias_gelu)
{
    const int64_t M = 5 + rand() % 12, K = 3 + rand() % 20, N = 4 + rand() % 9;
    int64_t ad[] = {1, M, K}, bd[] = {1, K, N}, cd[] = {1, M, N}, biasd[] = {1, 1, N};
    hipdnnBackendDescriptor_t a = tensor(10, 3, ad, false), b = tensor(11, 3, bd, false);
    hipdnnBackendDescriptor_t c = tensor(12, 3, cd, true), bias = tensor(13, 3, biasd, false);
    hipdnnBackendDescriptor_t cb = tensor(14, 3, cd, true), y = tensor(15, 3, cd, false);
    hipdnnBackendDescriptor_t mm;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT, &mm));
    set_desc(mm, HIPDNN_ATTR_OPERATION_MATMUL_ADESC, a);
    set_desc(mm, HIPDNN_ATTR_OPERATION_MATMUL_BDESC, b);
    set_desc(mm, HIPDNN_ATTR_OPERATION_MATMUL_CDESC, c);
    TU_OK(hipdnnBackendFinalize(mm));
    hipdnnBackendDescriptor_t ops[] = {pointwise(HIPDNN_POINTWISE_GELU_FWD, cb, NULL, y),
                                       pointwise(HIPDNN_POINTWISE_ADD, c, bias, cb), mm};
    int64_t ws_size = -1;
    hipdnnBackendDescriptor_t plan = plan_for(ops, 3, &ws_size);
    cr_expect_geq(ws_size, (int64_t)(2 * M * N * sizeof(float)), "two virtual tensors live in the workspace");

    float *A = malloc(sizeof(float) * (size_t)(M * K)), *B = malloc(sizeof(float) * (size_t)(K * N));
    float *Bias = malloc(sizeof(float) * (size_t)N), *Y = malloc(sizeof(float) * (size_t)(M * N));
    void *ws = malloc((size_t)ws_size + 1);
    for (int64_t i = 0; i < M * K; i++) A[i] = urand();
    for (int64_t i = 0; i < K * N; i++) B[i] = urand();
    for (int64_t i = 0; i < N; i++) Bias[i] = urand();
    for (int64_t i = 0; i < M * N; i++) Y[i] = NAN;
    int64_t uids[] = {10, 11, 13, 15};
    void *ptrs[] = {A, B, Bias, Y};
    execute(plan, 4, uids, ptrs, ws);

    double *want = malloc(sizeof(double) * (size_t)(M * N)), *got = malloc(sizeof(double) * (size_t)(M * N));
    for (int64_t m = 0; m < M; m++)
        for (int64_t n = 0; n < N; n++) {
            double acc = Bias[n];
            for (int64_t k = 0; k < K; k++)
                acc += (double)A[m * K + k] * B[k * N + n];
            want[m * N + n] = 0.5 * acc * (1.0 + erf(acc / sqrt(2.0)));
            got[m * N + n] = Y[m * N + n]; /* a NaN left here (unwritten) is a mismatch */
        }
    char what[96];
    snprintf(what, sizeof what, "gelu(A·B + bias), M %lld N %lld K %lld, seed %u", (long long)M,
             (long long)N, (long long)K, seed);
    tu_expect_close(what, got, want, (size_t)(M * N), tu_tol_for(HIPDNN_DATA_FLOAT, TU_DOT, K));
    free(A), free(B), free(Bias), free(Y), free(ws), free(want), free(got);
    hipdnnBackendDestroyDescriptor(plan);
    hipdnnBackendDescriptor_t all[] = {a, b, c, bias, cb, y, ops[0], ops[1], ops[2]};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        hipdnnBackendDestroyDescriptor(all[i]);
}

/* A variant pack missing a tensor is refused before anything runs. */
Test(execute_reference, missing_binding_is_bad_param)
{
    int64_t d[] = {4, 4};
    hipdnnBackendDescriptor_t x = tensor(1, 2, d, false), y = tensor(2, 2, d, false);
    hipdnnBackendDescriptor_t op = pointwise(HIPDNN_POINTWISE_RELU_FWD, x, NULL, y);
    int64_t ws_size;
    hipdnnBackendDescriptor_t plan = plan_for(&op, 1, &ws_size);
    float X[16] = {0};
    int64_t uids[] = {1};
    void *ptrs[] = {X};
    hipdnnBackendDescriptor_t pack;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack));
    TU_OK(hipdnnBackendSetAttribute(pack, HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, HIPDNN_TYPE_INT64, 1, uids));
    TU_OK(hipdnnBackendSetAttribute(pack, HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS, HIPDNN_TYPE_VOID_PTR, 1, ptrs));
    TU_OK(hipdnnBackendFinalize(pack));
    cr_expect_eq(hipdnnBackendExecute(handle, plan, pack), HIPDNN_STATUS_BAD_PARAM);
    char msg[512];
    hipdnnGetLastErrorString(msg, sizeof msg);
    cr_expect_not_null(strstr(msg, "uid 2"), "the message names the missing uid: %s", msg);
    hipdnnBackendDestroyDescriptor(pack);
    hipdnnBackendDestroyDescriptor(plan);
    hipdnnBackendDestroyDescriptor(op), hipdnnBackendDestroyDescriptor(x), hipdnnBackendDestroyDescriptor(y);
}

Test(execute_reference, engine_enumeration)
{
    size_t n = 0;
    TU_OK(hipdnnGetEngineCount_ext(handle, &n));
    cr_assert_geq(n, 1);
    int64_t id = -1, by_name = -2;
    char name[64];
    size_t len = sizeof name;
    bool found = false;
    for (size_t i = 0; i < n; i++) {
        len = sizeof name;
        TU_OK(hipdnnGetEngineInfo_ext(handle, i, &id, name, &len, NULL, NULL, NULL, NULL, NULL, NULL));
        found |= strcmp(name, "reference") == 0;
    }
    cr_expect(found, "an engine named 'reference' is listed");
    TU_OK(hipdnnGetEngineIdByName_ext(handle, "reference", &by_name));
    cr_expect_eq(hipdnnGetEngineIdByName_ext(handle, "no-such-engine", &id), HIPDNN_STATUS_NOT_SUPPORTED);
    cr_expect_eq(hipdnnGetEngineInfo_ext(handle, n, &id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                 HIPDNN_STATUS_BAD_PARAM_OUT_OF_BOUND);
}
