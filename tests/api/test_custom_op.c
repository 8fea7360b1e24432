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
#include <string.h>

#include "hipdnn_backend.h"
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
