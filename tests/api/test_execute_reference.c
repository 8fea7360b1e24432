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

/* ---- FP8 attention on the reference engine ---------------------------------------------------- */

/* The E4M3 byte of k/8 (|k| <= 15: every such value is exact in E4M3). */
static uint8_t e4m3_of_eighths(int k)
{
    if (k == 0)
        return 0;
    int e = 0, a = k < 0 ? -k : k; /* |v| = a/8 = (1 + m/8)·2^e */
    while (a >= 16)
        a /= 2, e++; /* never taken for |k| <= 15 */
    while (a < 8)
        a *= 2, e--;
    return (uint8_t)((k < 0 ? 0x80 : 0) | ((e + 7) << 3) | (a - 8));
}

/* x rounded to E4M3 (round to nearest even; subnormal step 2^-9; finite values up to 448). */
static double e4m3_round(double x)
{
    double a = fabs(x), q = a < 0x1p-6 ? 0x1p-9 : ldexp(1.0, (int)floor(log2(a)) - 3);
    double r = nearbyint(a / q) * q;
    return copysign(r > 448.0 ? 448.0 : r, x);
}

/* SDPA forward with Q, K, V in E4M3 and cuDNN's FP8 factors through the public API on host
 * memory, against the composite written out here: S = Q·Kᵀ·scale·dq·dk, causal, P = softmax,
 * AMAX_S = max P, P8 = e4m3(P·scale_s), O = P8·V·ds·dv, AMAX_O = max |O|, O·scale_o stored
 * (FLOAT). */
Test(execute_reference, fp8_attention)
{
    enum { H = 2, S = 5, SKV = 7, D = 8 };
    int64_t qd[] = {1, H, S, D}, kd[] = {1, H, SKV, D}, one[] = {1, 1, 1, 1}, sd[] = {1, H, S, 1};
    hipdnnBackendDescriptor_t q = tu_tensor(1, HIPDNN_DATA_FP8_E4M3, 4, qd, false, NULL, 0);
    hipdnnBackendDescriptor_t k = tu_tensor(2, HIPDNN_DATA_FP8_E4M3, 4, kd, false, NULL, 0);
    hipdnnBackendDescriptor_t v = tu_tensor(3, HIPDNN_DATA_FP8_E4M3, 4, kd, false, NULL, 0);
    hipdnnBackendDescriptor_t o = tensor(4, 4, qd, false), stats = tensor(5, 4, sd, false);
    hipdnnBackendDescriptor_t f[6], amax[2];
    for (int i = 0; i < 6; i++)
        f[i] = tensor(10 + i, 4, one, false);
    amax[0] = tensor(20, 4, one, false), amax[1] = tensor(21, 4, one, false);
    hipdnnBackendDescriptor_t op;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT, &op));
    set_desc(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_QDESC, q);
    set_desc(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_KDESC, k);
    set_desc(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_VDESC, v);
    set_desc(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_ODESC, o);
    set_desc(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, stats);
    static const hipdnnBackendAttributeName_t fa[6] = {
        HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_Q_EXT, HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_K_EXT,
        HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_V_EXT, HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_S_EXT,
        HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALE_S_EXT, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALE_O_EXT};
    for (int i = 0; i < 6; i++)
        set_desc(op, fa[i], f[i]);
    set_desc(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_AMAX_S_EXT, amax[0]);
    set_desc(op, HIPDNN_ATTR_OPERATION_SDPA_FWD_AMAX_O_EXT, amax[1]);
    float scale = 0.35f;
    bool causal = true, gen = true;
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_SDPA_FWD_ATTN_SCALE_VALUE_EXT, HIPDNN_TYPE_FLOAT, 1, &scale));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_EXT, HIPDNN_TYPE_BOOLEAN, 1, &causal));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_SDPA_FWD_GENERATE_STATS_EXT, HIPDNN_TYPE_BOOLEAN, 1, &gen));
    TU_OK(hipdnnBackendFinalize(op));
    int64_t ws_size = -1;
    hipdnnBackendDescriptor_t plan = plan_for(&op, 1, &ws_size);

    static uint8_t Q[H * S * D], K[H * SKV * D], V[H * SKV * D];
    static int qk[H * S * D], kk[H * SKV * D], vk[H * SKV * D]; /* the eighths stored */
    for (int i = 0; i < H * S * D; i++)
        qk[i] = rand() % 31 - 15, Q[i] = e4m3_of_eighths(qk[i]);
    for (int i = 0; i < H * SKV * D; i++) {
        kk[i] = rand() % 31 - 15, K[i] = e4m3_of_eighths(kk[i]);
        vk[i] = rand() % 31 - 15, V[i] = e4m3_of_eighths(vk[i]);
    }
    float F[6] = {1.0f + 0.5f * urand(), 1.0f + 0.5f * urand(), 1.0f + 0.5f * urand(), 1.0f / 256.0f, 256.0f,
                  2.5f + 1.5f * urand()};
    float O[H * S * D], St[H * S], A[2] = {NAN, NAN};
    for (int i = 0; i < H * S * D; i++)
        O[i] = NAN;
    for (int i = 0; i < H * S; i++)
        St[i] = NAN;
    int64_t uids[] = {1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15, 20, 21};
    void *ptrs[] = {Q, K, V, O, St, &F[0], &F[1], &F[2], &F[3], &F[4], &F[5], &A[0], &A[1]};
    void *ws = malloc((size_t)ws_size + 1);
    execute(plan, 13, uids, ptrs, ws);

    double want_o[H * S * D], got_o[H * S * D], want_st[H * S], got_st[H * S], want_a[2] = {0, 0};
    for (int h = 0; h < H; h++)
        for (int i = 0; i < S; i++) {
            double s[SKV], m = -INFINITY, l = 0.0;
            for (int j = 0; j < SKV; j++) {
                double acc = 0.0;
                for (int d = 0; d < D; d++)
                    acc += qk[(h * S + i) * D + d] / 8.0 * (kk[(h * SKV + j) * D + d] / 8.0);
                s[j] = j > i ? -INFINITY : acc * scale * F[0] * F[1];
                m = s[j] > m ? s[j] : m;
            }
            for (int j = 0; j <= i && j < SKV; j++)
                l += exp(s[j] - m);
            want_st[h * S + i] = m + log(l), got_st[h * S + i] = St[h * S + i];
            for (int d = 0; d < D; d++) {
                double acc = 0.0;
                for (int j = 0; j <= i && j < SKV; j++) {
                    double p = exp(s[j] - m) / l;
                    want_a[0] = p > want_a[0] ? p : want_a[0];
                    acc += e4m3_round(p * F[4]) * (vk[(h * SKV + j) * D + d] / 8.0);
                }
                acc *= (double)F[2] * F[3];
                want_a[1] = fabs(acc) > want_a[1] ? fabs(acc) : want_a[1];
                want_o[(h * S + i) * D + d] = acc * F[5], got_o[(h * S + i) * D + d] = O[(h * S + i) * D + d];
            }
        }
    char what[64];
    snprintf(what, sizeof what, "FP8 attention O, seed %u", seed);
    tu_expect_close(what, got_o, want_o, H * S * D, tu_tol_for(HIPDNN_DATA_FLOAT, TU_DOT, SKV));
    tu_expect_close("FP8 attention Stats", got_st, want_st, H * S, tu_tol_for(HIPDNN_DATA_FLOAT, TU_DOT, D));
    double got_a[2] = {A[0], A[1]};
    tu_expect_close("AMAX_S, AMAX_O", got_a, want_a, 2, tu_tol_for(HIPDNN_DATA_FLOAT, TU_DOT, SKV));
    free(ws);
    hipdnnBackendDestroyDescriptor(plan);
    hipdnnBackendDescriptor_t all[] = {q, k, v, o, stats, f[0], f[1], f[2], f[3], f[4], f[5], amax[0], amax[1], op};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        hipdnnBackendDestroyDescriptor(all[i]);
}
