/* test_custom_op.c — custom ops through providers (include/hipdnn_jit_custom_op.h), on the host:
 * registering a provider (and every refusal of a bad one), a graph with a custom op between two
 * built-in ops that the reference engine runs through the provider's host implementation
 * (checked element by element against an independent computation), and the refusals at
 * finalize: an id no provider owns, a payload or shapes the provider rejects (its reason in
 * the message), never a failure at execute. Public API only.
 *
 * The provider "test" owns "test.affine": y = a·x + b elementwise on FLOAT tensors of equal
 * dims, with (a, b) two doubles in the payload.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipdnn_backend.h"
#include "hipdnn_jit.h"
#include "hipdnn_jit_custom_op.h"
#include "../common/tu.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR

static int refs_run; /* reference calls (the engine really went through the provider) */

static int affine_check(const hipdnnJitCustomOpCall_t *c, char *why, size_t n)
{
    if (strcmp(c->op_id, "test.affine") != 0)
        return snprintf(why, n, "unknown operation '%s' (test has: affine)", c->op_id), 1;
    if (c->payload_size != 2 * sizeof(double))
        return snprintf(why, n, "payload of %zu bytes; want 16 (a, b as doubles)", c->payload_size), 1;
    if (c->num_inputs != 1 || c->num_outputs != 1)
        return snprintf(why, n, "%d inputs, %d outputs; want 1 and 1", c->num_inputs, c->num_outputs), 1;
    const hipdnnJitCustomTensor_t *x = &c->inputs[0], *y = &c->outputs[0];
    if (x->data_type != HIPDNN_DATA_FLOAT || y->data_type != HIPDNN_DATA_FLOAT)
        return snprintf(why, n, "FLOAT tensors only"), 1;
    if (x->rank != y->rank || memcmp(x->dims, y->dims, (size_t)x->rank * sizeof x->dims[0]) != 0)
        return snprintf(why, n, "x and y dims differ"), 1;
    return 0;
}

/* Element i (row-major over dims) of a strided rank-2 view. */
static float *at(const hipdnnJitCustomTensor_t *t, int64_t i)
{
    int64_t r = i / t->dims[1], c = i % t->dims[1];
    return (float *)t->data + r * t->strides[0] + c * t->strides[1];
}

static int affine_reference(const hipdnnJitCustomOpCall_t *c, char *why, size_t n)
{
    (void)why, (void)n;
    double ab[2];
    memcpy(ab, c->payload, sizeof ab);
    const hipdnnJitCustomTensor_t *x = &c->inputs[0], *y = &c->outputs[0];
    for (int64_t i = 0; i < x->dims[0] * x->dims[1]; i++)
        *at(y, i) = (float)(ab[0] * *at(x, i) + ab[1]);
    refs_run++;
    return 0;
}

static const hipdnnJitCustomOpProvider_t test_provider = {
    .api_version = HIPDNN_JIT_CUSTOM_OP_API_VERSION, .name = "test", .version = "1.0",
    .check = affine_check, .reference = affine_reference};

static void register_once(void)
{
    static bool done;
    if (!done)
        TU_OK(hipdnnJitRegisterCustomOpProvider_ext(&test_provider));
    done = true;
}

enum { R = 5, C = 7 };

static hipdnnBackendDescriptor_t tensor(int64_t uid, bool is_virtual)
{
    int64_t dims[] = {R, C};
    return tu_tensor(uid, HIPDNN_DATA_FLOAT, 2, dims, is_virtual, NULL, 0);
}

static hipdnnBackendDescriptor_t custom(const char *id, const void *payload, size_t size,
                                        hipdnnBackendDescriptor_t in, hipdnnBackendDescriptor_t out)
{
    hipdnnBackendDescriptor_t op;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_CUSTOM_OP_DESCRIPTOR_EXT, &op));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT, HIPDNN_TYPE_CHAR,
                                    (int64_t)strlen(id), id));
    if (size > 0)
        TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_CUSTOM_OP_DATA_EXT, HIPDNN_TYPE_CHAR,
                                        (int64_t)size, payload));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_CUSTOM_OP_INPUTS_EXT, DESC, 1, &in));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT, DESC, 1, &out));
    TU_OK(hipdnnBackendFinalize(op));
    return op;
}

/* y = relu(custom(id, payload)(exp(x))): the custom op between two built-in ops. Returns the
 * finalized graph; *descs gets everything to destroy (6). */
static hipdnnBackendDescriptor_t sandwich(hipdnnHandle_t h, const char *id, const void *payload, size_t size,
                                          hipdnnBackendDescriptor_t *descs)
{
    hipdnnBackendDescriptor_t x = tensor(1, false), e = tensor(2, true), a = tensor(3, true), y = tensor(4, false);
    hipdnnBackendDescriptor_t ops[3] = {tu_unary(HIPDNN_POINTWISE_EXP, x, e), custom(id, payload, size, e, a),
                                        tu_unary(HIPDNN_POINTWISE_RELU_FWD, a, y)};
    hipdnnBackendDescriptor_t g;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &h));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 3, ops));
    TU_OK(hipdnnBackendFinalize(g));
    hipdnnBackendDescriptor_t all[] = {x, e, a, y, ops[0], ops[1], ops[2]};
    memcpy(descs, all, sizeof all);
    return g;
}

static void destroy_all(hipdnnBackendDescriptor_t *d, int n)
{
    for (int i = 0; i < n; i++)
        hipdnnBackendDestroyDescriptor(d[i]);
}

static int64_t reference_engine(hipdnnHandle_t h)
{
    int64_t id;
    TU_OK(hipdnnGetEngineIdByName_ext(h, "reference", &id));
    return id;
}

Test(custom_op, runs_between_built_in_ops_on_the_reference_engine)
{
    register_once();
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    double ab[2] = {tu_float(-2.0f, 2.0f), tu_float(-1.0f, 1.0f)};
    hipdnnBackendDescriptor_t d[7], plan;
    hipdnnBackendDescriptor_t g = sandwich(h, "test.affine", ab, sizeof ab, d);
    TU_OK(tu_try_plan(h, g, reference_engine(h), &plan));
    float x[R * C], y[R * C];
    for (int i = 0; i < R * C; i++)
        x[i] = tu_float(-2.0f, 2.0f), y[i] = NAN;
    int64_t uids[] = {1, 4};
    void *ptrs[] = {x, y};
    int64_t ws_size = 0, n = 0;
    TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, &n,
                                    &ws_size));
    void *ws = ws_size > 0 ? malloc((size_t)ws_size) : NULL;
    hipdnnBackendDescriptor_t pack = tu_pack(2, uids, ptrs, ws);
    int before = refs_run;
    TU_OK(hipdnnBackendExecute(h, plan, pack));
    cr_expect_eq(refs_run, before + 1, "the provider's reference ran once");
    for (int i = 0; i < R * C; i++) {
        /* independent: exp and the affine in double, each intermediate rounded to FLOAT */
        double want = fmax(0.0, (double)(float)(ab[0] * (double)(float)exp((double)x[i]) + ab[1]));
        cr_expect(fabs(y[i] - want) <= 1e-6 + 1e-5 * fabs(want), "y[%d] = %.9g, want %.9g (a %g, b %g, seed "
                  "in the log)", i, y[i], want, ab[0], ab[1]);
    }
    free(ws);
    hipdnnBackendDestroyDescriptor(pack), hipdnnBackendDestroyDescriptor(plan), hipdnnBackendDestroyDescriptor(g);
    destroy_all(d, 7);
    TU_OK(hipdnnDestroy(h));
}

/* An unknown provider, an unknown operation of a known one, a bad payload: the graph finalizes
 * (hipDNN's rule: it holds only what the caller said) but no engine plans it, and the refusal
 * names the op and the reason. */
Test(custom_op, refusals_come_at_finalize_with_the_reason)
{
    register_once();
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    double ab[2] = {1.0, 0.0};
    struct {
        const char *id;
        size_t size;
        const char *want[2];
    } cases[] = {
        {"nobody.affine", sizeof ab, {"custom op 'nobody.affine': no provider owns it", "providers: test"}},
        {"test.rotate", sizeof ab, {"provider 'test' refuses it", "unknown operation 'test.rotate'"}},
        {"test.affine", 3, {"provider 'test' refuses it", "payload of 3 bytes; want 16"}},
        {"noprovider", sizeof ab, {"custom op 'noprovider': no provider owns it", "<provider>.<operation>"}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        hipdnnBackendDescriptor_t d[7], plan = NULL;
        hipdnnBackendDescriptor_t g = sandwich(h, cases[k].id, ab, cases[k].size, d);
        TU_EQ(tu_try_plan(h, g, reference_engine(h), &plan), HIPDNN_STATUS_NOT_SUPPORTED);
        for (int w = 0; w < 2; w++)
            cr_expect(strstr(tu_msg(), cases[k].want[w]) != NULL, "%s: want '%s' in: %s", cases[k].id,
                      cases[k].want[w], tu_msg());
        cr_expect_null(plan);
        hipdnnBackendDestroyDescriptor(g);
        destroy_all(d, 7);
    }
    TU_OK(hipdnnDestroy(h));
}

/* The payload is part of the graph key: two payloads, two keys; the same payload, one key. */
Test(custom_op, the_payload_is_part_of_the_graph_key)
{
    register_once();
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    double p1[2] = {1.0, 0.5}, p2[2] = {1.0, 0.25};
    char keys[3][80];
    const double *payloads[3] = {p1, p2, p1};
    for (int i = 0; i < 3; i++) {
        hipdnnBackendDescriptor_t d[7];
        hipdnnBackendDescriptor_t g = sandwich(h, "test.affine", payloads[i], sizeof p1, d);
        int64_t n = 0;
        TU_OK(hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT, HIPDNN_TYPE_CHAR, sizeof keys[i], &n,
                                        keys[i]));
        hipdnnBackendDestroyDescriptor(g);
        destroy_all(d, 7);
    }
    cr_expect_str_neq(keys[0], keys[1], "different payloads share key %s", keys[0]);
    cr_expect_str_eq(keys[0], keys[2]);
    TU_OK(hipdnnDestroy(h));
}

static int no_op(const hipdnnJitCustomOpCall_t *c, char *why, size_t n) { return (void)c, (void)why, (void)n, 0; }

Test(custom_op, bad_providers_are_refused_by_name)
{
    register_once();
    hipdnnJitCustomOpProvider_t p = {.api_version = HIPDNN_JIT_CUSTOM_OP_API_VERSION, .name = "other",
                                     .version = "2", .check = no_op, .reference = no_op};
    struct {
        hipdnnJitCustomOpProvider_t p;
        hipdnnStatus_t st;
        const char *want;
    } cases[] = {
        {p, HIPDNN_STATUS_BAD_PARAM, "the name is taken"},
        {p, HIPDNN_STATUS_VERSION_MISMATCH, "api_version 99"},
        {p, HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "reference is NULL"},
        {p, HIPDNN_STATUS_BAD_PARAM, "name 'a.b' must be"},
        {p, HIPDNN_STATUS_BAD_PARAM, "name '' must be"},
    };
    cases[0].p.name = "test";
    cases[1].p.api_version = 99;
    cases[2].p.reference = NULL;
    cases[3].p.name = "a.b";
    cases[4].p.name = "";
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        TU_EQ(hipdnnJitRegisterCustomOpProvider_ext(&cases[k].p), cases[k].st);
        cr_expect(strstr(tu_msg(), cases[k].want) != NULL, "case %zu: want '%s' in: %s", k, cases[k].want, tu_msg());
    }
    TU_EQ(hipdnnJitRegisterCustomOpProvider_ext(NULL), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
}

/* ---- the GPU side: a provider with a kernel ------------------------------------------------------
 * "gk.scale2": y = 2·x + 1 on packed FLOAT tensors; its kernel is one thread per element. */

static const char scale2_source[] =
    "extern \"C\" __global__ void scale2(const float *x, float *y, long long n)\n"
    "{\n"
    "    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = 2.0f * x[i] + 1.0f;\n"
    "}\n";

static int64_t numel(const hipdnnJitCustomTensor_t *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->rank; d++)
        n *= t->dims[d];
    return n;
}

static int scale2_check(const hipdnnJitCustomOpCall_t *c, char *why, size_t n)
{
    if (strcmp(c->op_id, "gk.scale2") != 0 || c->num_inputs != 1 || c->num_outputs != 1)
        return snprintf(why, n, "gk has only scale2, one input to one output"), 1;
    if (c->inputs[0].data_type != HIPDNN_DATA_FLOAT || c->outputs[0].data_type != HIPDNN_DATA_FLOAT ||
        numel(&c->inputs[0]) != numel(&c->outputs[0]))
        return snprintf(why, n, "FLOAT tensors of one size"), 1;
    return 0;
}

static int scale2_reference(const hipdnnJitCustomOpCall_t *c, char *why, size_t n)
{
    (void)why, (void)n;
    for (int64_t i = 0; i < numel(&c->inputs[0]); i++)
        ((float *)c->outputs[0].data)[i] = 2.0f * ((const float *)c->inputs[0].data)[i] + 1.0f;
    return 0;
}

static int scale2_kernel(const hipdnnJitCustomOpCall_t *c, const char *arch, hipdnnJitKernelSource_t *k, char *why,
                         size_t n)
{
    (void)arch, (void)why, (void)n;
    int64_t count = numel(&c->inputs[0]);
    *k = (hipdnnJitKernelSource_t){.source = scale2_source, .entry = "scale2",
                                   .grid = {(uint32_t)((count + 255) / 256), 1, 1}, .block = {256, 1, 1},
                                   .num_args = 3};
    k->args[0] = (hipdnnJitKernelArg_t){.kind = HIPDNN_JIT_ARG_INPUT, .index = 0};
    k->args[1] = (hipdnnJitKernelArg_t){.kind = HIPDNN_JIT_ARG_OUTPUT, .index = 0};
    k->args[2] = (hipdnnJitKernelArg_t){.kind = HIPDNN_JIT_ARG_INT64, .value = count};
    return 0;
}

static const hipdnnJitCustomOpProvider_t gk_provider = {
    .api_version = HIPDNN_JIT_CUSTOM_OP_API_VERSION, .name = "gk", .version = "3",
    .check = scale2_check, .reference = scale2_reference, .kernel = scale2_kernel};

static hipdnnBackendDescriptor_t one_op_graph(hipdnnHandle_t h, const char *id, int64_t rows,
                                              hipdnnBackendDescriptor_t *descs)
{
    int64_t dims[] = {rows, 33};
    descs[0] = tu_tensor(1, HIPDNN_DATA_FLOAT, 2, dims, false, NULL, 0);
    descs[1] = tu_tensor(2, HIPDNN_DATA_FLOAT, 2, dims, false, NULL, 0);
    descs[2] = custom(id, NULL, 0, descs[0], descs[1]);
    return tu_graph_of(h, descs[2]);
}

static int64_t engine(hipdnnHandle_t h, const char *name)
{
    int64_t id;
    TU_OK(hipdnnGetEngineIdByName_ext(h, name, &id));
    return id;
}

static void register_gk(void)
{
    static bool done;
    if (!done)
        TU_OK(hipdnnJitRegisterCustomOpProvider_ext(&gk_provider));
    done = true;
}

typedef struct built {
    hipdnnStatus_t st;
    int64_t stats[4]; /* kernels, compiled, cached, plan_cached */
} built;

/* A plan of graph g on the named engine, with a kernel cache in dir (NULL: none); destroyed. */
static built plan_on(hipdnnHandle_t h, hipdnnBackendDescriptor_t g, const char *name, const char *dir)
{
    built b = {0};
    hipdnnBackendDescriptor_t e = NULL, cfg = NULL, plan = NULL, cache = NULL;
    int64_t id = engine(h, name);
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINE_DESCRIPTOR, &e));
    TU_OK(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_OPERATION_GRAPH, DESC, 1, &g));
    TU_OK(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &id));
    b.st = hipdnnBackendFinalize(e);
    if (b.st == HIPDNN_STATUS_SUCCESS) {
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
        TU_OK(hipdnnBackendSetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, DESC, 1, &e));
        TU_OK(hipdnnBackendFinalize(cfg));
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
        TU_OK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, DESC, 1, &cfg));
        if (dir != NULL) {
            TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, &cache));
            TU_OK(hipdnnBackendSetAttribute(cache, HIPDNN_ATTR_KERNEL_CACHE_DIRECTORY_EXT, HIPDNN_TYPE_CHAR,
                                            (int64_t)strlen(dir), dir));
            TU_OK(hipdnnBackendFinalize(cache));
            TU_OK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE, DESC, 1, &cache));
        }
        b.st = hipdnnBackendFinalize(plan);
        int64_t n = 0;
        if (b.st == HIPDNN_STATUS_SUCCESS)
            TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE_STATS_EXT,
                                            HIPDNN_TYPE_INT64, 4, &n, b.stats));
    }
    hipdnnBackendDescriptor_t all[] = {plan, cfg, e, cache};
    for (int i = 0; i < 4; i++)
        if (all[i] != NULL)
            hipdnnBackendDestroyDescriptor(all[i]);
    return b;
}

/* Compile-only for sm_90 (real NVRTC, no GPU): the provider's kernel is compiled through the
 * kernel cache, and a second plan takes it from there; a host-only provider's op is refused by
 * the JIT engine with the reason. Skips without NVRTC. */
Test(custom_op, a_providers_kernel_compiles_and_is_cached)
{
    register_once(), register_gk();
    if (hipdnnSetCompileTarget_ext("sm_90", 0) != HIPDNN_STATUS_SUCCESS)
        cr_skip_test("no NVRTC on this machine: %s", tu_msg());
    char dir[] = "/tmp/hipdnn-custom-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    setenv("HIPDNN_CACHE_DISABLE", "1", 1);
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    hipdnnBackendDescriptor_t d[3];
    hipdnnBackendDescriptor_t g = one_op_graph(h, "gk.scale2", 9, d);
    built first = plan_on(h, g, "jit_fused", dir);
    TU_OK(first.st);
    cr_expect(first.stats[0] == 1 && first.stats[1] == 1, "one kernel, compiled: %lld %lld",
              (long long)first.stats[0], (long long)first.stats[1]);
    built second = plan_on(h, g, "jit_fused", dir);
    TU_OK(second.st);
    cr_expect(second.stats[1] == 0 && second.stats[3] == 1, "the second plan compiles nothing (%lld) and comes "
              "from the plan table (%lld)", (long long)second.stats[1], (long long)second.stats[3]);
    hipdnnBackendDestroyDescriptor(g), destroy_all(d, 3);

    double ab[2] = {1, 2};
    hipdnnBackendDescriptor_t d7[7];
    g = sandwich(h, "test.affine", ab, sizeof ab, d7); /* "test" has no kernel */
    built host_only = plan_on(h, g, "jit_fused", NULL);
    TU_EQ(host_only.st, HIPDNN_STATUS_NOT_SUPPORTED);
    cr_expect(strstr(tu_msg(), "custom op 'test.affine'") != NULL && strstr(tu_msg(), "gives no GPU kernel") != NULL,
              "%s", tu_msg());
    hipdnnBackendDestroyDescriptor(g), destroy_all(d7, 7);
    TU_OK(hipdnnDestroy(h));
    hipdnnSetCompileTarget_ext(NULL, 0);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

/* On a GPU: the provider's kernel runs and matches its reference element by element (outputs
 * poisoned first). Skips without a GPU. */
Test(custom_op, a_providers_kernel_runs_on_the_gpu)
{
    register_gk();
    void *dx = NULL, *dy = NULL;
    enum { ROWS = 300, N = ROWS * 33 };
    if (hipdnnDeviceMalloc_ext(&dx, N * sizeof(float)) != HIPDNN_STATUS_SUCCESS)
        cr_skip_test("no GPU: %s", tu_msg());
    TU_OK(hipdnnDeviceMalloc_ext(&dy, N * sizeof(float)));
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    hipdnnBackendDescriptor_t d[3], plan;
    hipdnnBackendDescriptor_t g = one_op_graph(h, "gk.scale2", ROWS, d);
    TU_OK(tu_try_plan(h, g, engine(h, "jit_fused"), &plan));
    static float x[N], y[N];
    for (int i = 0; i < N; i++)
        x[i] = tu_float(-4.0f, 4.0f), y[i] = NAN;
    TU_OK(hipdnnMemcpyHostToDevice_ext(dx, x, sizeof x));
    TU_OK(hipdnnMemcpyHostToDevice_ext(dy, y, sizeof y)); /* poisoned */
    int64_t uids[] = {1, 2};
    void *ptrs[] = {dx, dy};
    hipdnnBackendDescriptor_t pack = tu_pack(2, uids, ptrs, NULL);
    TU_OK(hipdnnBackendExecute(h, plan, pack));
    TU_OK(hipdnnStreamSynchronize_ext(h));
    TU_OK(hipdnnMemcpyDeviceToHost_ext(y, dy, sizeof y));
    int bad = 0;
    for (int i = 0; i < N; i++) {
        float want = 2.0f * x[i] + 1.0f; /* one fma or mul+add: within one rounding */
        if (!(fabsf(y[i] - want) <= 1e-6f + 1e-6f * fabsf(want)) && bad++ < 5)
            cr_log_error("y[%d] = %.9g, want %.9g", i, y[i], want);
    }
    cr_expect_eq(bad, 0, "%d of %d elements off", bad, N);
    hipdnnBackendDestroyDescriptor(pack), hipdnnBackendDestroyDescriptor(plan), hipdnnBackendDestroyDescriptor(g);
    destroy_all(d, 3);
    hipdnnDeviceFree_ext(dx), hipdnnDeviceFree_ext(dy);
    TU_OK(hipdnnDestroy(h));
}
