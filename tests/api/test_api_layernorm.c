/* test_api_layernorm.c — a layernorm graph built the way a framework builds one.
 *
 * Owns: the end-to-end descriptor path a framework takes (examples/demo.c): tensor
 * descriptors, a by-value epsilon, the LAYERNORM operation, an OPERATIONGRAPH with a handle,
 * finalize; then everything read back through the graph (OPS -> op -> tensors), the JSON form,
 * and a binary round trip into a new graph that serializes identically.
 * Public header only; plain C.
 *
 * Shapes: x, y [rows, D] (BFLOAT16 or HALF); scale, bias [1, D] FLOAT; mean, inv_variance
 * [rows, 1] FLOAT; epsilon a by-value FLOAT [1, 1]. rows and D are random per run.
 */
#include <criterion/criterion.h>
#include <hipdnn_backend.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/tu.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR

enum { X, SCALE, BIAS, EPS, Y, MEAN, INV, N_TENSORS };

static const hipdnnBackendAttributeName_t port[N_TENSORS] = {
    HIPDNN_ATTR_OPERATION_LAYERNORM_X_EXT,    HIPDNN_ATTR_OPERATION_LAYERNORM_SCALE_EXT,
    HIPDNN_ATTR_OPERATION_LAYERNORM_BIAS_EXT, HIPDNN_ATTR_OPERATION_LAYERNORM_EPSILON_EXT,
    HIPDNN_ATTR_OPERATION_LAYERNORM_Y_EXT,    HIPDNN_ATTR_OPERATION_LAYERNORM_MEAN_EXT,
    HIPDNN_ATTR_OPERATION_LAYERNORM_INV_VARIANCE_EXT};

typedef struct problem {
    int64_t rows, d, uid[N_TENSORS];
    hipdnnDataType_t io;
    float epsilon;
    char name[32];
} problem;

/* What a framework does: one finalized tensor descriptor per graph tensor. */
static hipdnnBackendDescriptor_t make_tensor(int64_t uid, hipdnnDataType_t dt, int64_t d0,
                                             int64_t d1, const float *value)
{
    hipdnnBackendDescriptor_t t = NULL;
    int64_t dims[2] = {d0, d1}, strides[2] = {d1, 1};
    bool is_virtual = false;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &uid));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DATA_TYPE, HIPDNN_TYPE_DATA_TYPE, 1, &dt));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, 2, dims));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64, 2, strides));
    if (value != NULL)
        TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR,
                                        sizeof *value, value));
    else
        TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_IS_VIRTUAL, HIPDNN_TYPE_BOOLEAN, 1,
                                        &is_virtual));
    TU_OK(hipdnnBackendFinalize(t));
    return t;
}

static hipdnnBackendDescriptor_t build(hipdnnHandle_t handle, const problem *p)
{
    hipdnnBackendDescriptor_t t[N_TENSORS], op = NULL, graph = NULL;
    hipdnnDataType_t f32 = HIPDNN_DATA_FLOAT;
    t[X] = make_tensor(p->uid[X], p->io, p->rows, p->d, NULL);
    t[SCALE] = make_tensor(p->uid[SCALE], f32, 1, p->d, NULL);
    t[BIAS] = make_tensor(p->uid[BIAS], f32, 1, p->d, NULL);
    t[EPS] = make_tensor(p->uid[EPS], f32, 1, 1, &p->epsilon);
    t[Y] = make_tensor(p->uid[Y], p->io, p->rows, p->d, NULL);
    t[MEAN] = make_tensor(p->uid[MEAN], f32, p->rows, 1, NULL);
    t[INV] = make_tensor(p->uid[INV], f32, p->rows, 1, NULL);

    hipdnnNormFwdPhase_t phase = HIPDNN_NORM_FWD_TRAINING;
    int64_t norm_dims = 1;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_LAYERNORM_DESCRIPTOR_EXT, &op));
    for (int i = 0; i < N_TENSORS; i++) {
        TU_OK(hipdnnBackendSetAttribute(op, port[i], DESC, 1, &t[i]));
        TU_OK(hipdnnBackendDestroyDescriptor(t[i])); /* the op keeps its own reference */
    }
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_LAYERNORM_FWD_PHASE_EXT,
                                    HIPDNN_TYPE_NORM_FWD_PHASE, 1, &phase));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT,
                                    HIPDNN_TYPE_INT64, 1, &norm_dims));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_LAYERNORM_COMP_TYPE_EXT, HIPDNN_TYPE_DATA_TYPE, 1,
                                    &f32));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_NAME_EXT, HIPDNN_TYPE_CHAR, 9,
                                    "layernorm"));
    TU_OK(hipdnnBackendFinalize(op));

    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &graph));
    TU_OK(hipdnnBackendSetAttribute(graph, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1,
                                    &handle));
    TU_OK(hipdnnBackendSetAttribute(graph, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 1, &op));
    TU_OK(hipdnnBackendSetAttribute(graph, HIPDNN_ATTR_OPERATIONGRAPH_NAME_EXT, HIPDNN_TYPE_CHAR,
                                    (int64_t)strlen(p->name), p->name));
    TU_OK(hipdnnBackendSetAttribute(graph, HIPDNN_ATTR_OPERATIONGRAPH_COMPUTE_DATA_TYPE_EXT,
                                    HIPDNN_TYPE_DATA_TYPE, 1, &f32));
    TU_OK(hipdnnBackendSetAttribute(graph, HIPDNN_ATTR_OPERATIONGRAPH_IO_DATA_TYPE_EXT,
                                    HIPDNN_TYPE_DATA_TYPE, 1, &p->io));
    TU_OK(hipdnnBackendDestroyDescriptor(op));
    TU_OK(hipdnnBackendFinalize(graph));
    return graph;
}

static problem random_problem(void)
{
    problem p;
    tu_seed("layernorm");
    p.rows = tu_range(1, 4096);
    p.d = tu_range(1, 8192);
    p.io = tu_rand() & 1 ? HIPDNN_DATA_BFLOAT16 : HIPDNN_DATA_HALF;
    p.epsilon = tu_float(1e-6f, 1e-3f);
    int64_t base = tu_range(0, 1000000);
    for (int i = 0; i < N_TENSORS; i++)
        p.uid[i] = base + 7 * i + tu_range(0, 6); /* distinct, not sorted by port */
    snprintf(p.name, sizeof p.name, "ln_%lld", (long long)tu_range(0, 99999));
    return p;
}

static char *json_of(hipdnnBackendDescriptor_t g)
{
    size_t n = 0;
    TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(g, 0, &n, NULL));
    char *text = malloc(n);
    cr_assert_not_null(text);
    TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(g, n, &n, text));
    cr_expect_eq(strlen(text) + 1, n, "JSON size includes the NUL");
    return text;
}

Test(layernorm, framework_build_then_read_back)
{
    hipdnnHandle_t handle = NULL;
    problem p = random_problem();
    TU_OK(hipdnnCreate(&handle));
    hipdnnBackendDescriptor_t graph = build(handle, &p);

    /* graph -> its one op */
    hipdnnBackendDescriptor_t op = NULL;
    int64_t n = 0;
    TU_OK(hipdnnBackendGetAttribute(graph, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 0, &n, NULL));
    cr_assert_eq(n, 1);
    TU_OK(hipdnnBackendGetAttribute(graph, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 1, &n, &op));
    int type = -1;
    TU_OK(hipdnnBackendGetAttribute(op, HIPDNN_ATTR_OPERATION_TYPE_EXT,
                                    HIPDNN_TYPE_OPERATION_TYPE_EXT, 1, &n, &type));
    cr_expect_eq(type, HIPDNN_OPERATION_TYPE_LAYERNORM_EXT);

    /* op -> each tensor: uid, data type, dims */
    for (int i = 0; i < N_TENSORS; i++) {
        hipdnnBackendDescriptor_t t = NULL;
        int64_t uid = -1, dims[8] = {0};
        hipdnnDataType_t dt = (hipdnnDataType_t)-1;
        TU_OK(hipdnnBackendGetAttribute(op, port[i], DESC, 1, &n, &t));
        TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &n,
                                        &uid));
        cr_expect_eq(uid, p.uid[i], "port %d: uid %lld, expected %lld", i, (long long)uid,
                     (long long)p.uid[i]);
        TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_DATA_TYPE, HIPDNN_TYPE_DATA_TYPE, 1,
                                        &n, &dt));
        cr_expect_eq(dt, i == X || i == Y ? p.io : HIPDNN_DATA_FLOAT, "port %d data type", i);
        TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, 8, &n,
                                        dims));
        cr_expect_eq(n, 2, "port %d rank", i);
        int64_t want0 = i == X || i == Y || i == MEAN || i == INV ? p.rows : 1;
        int64_t want1 = i == MEAN || i == INV || i == EPS ? 1 : p.d;
        cr_expect(dims[0] == want0 && dims[1] == want1, "port %d dims [%lld, %lld]", i,
                  (long long)dims[0], (long long)dims[1]);
        if (i == EPS) {
            float eps = 0;
            bool by_value = false;
            TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_IS_BY_VALUE, HIPDNN_TYPE_BOOLEAN,
                                            1, &n, &by_value));
            cr_expect(by_value);
            TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR,
                                            sizeof eps, &n, &eps));
            cr_expect_eq(n, (int64_t)sizeof eps);
            cr_expect_eq(memcmp(&eps, &p.epsilon, sizeof eps), 0, "epsilon %g, expected %g",
                         (double)eps, (double)p.epsilon);
        }
        TU_OK(hipdnnBackendDestroyDescriptor(t));
    }
    hipdnnNormFwdPhase_t phase = 0;
    int64_t norm_dims = 0;
    hipdnnDataType_t comp = (hipdnnDataType_t)-1;
    TU_OK(hipdnnBackendGetAttribute(op, HIPDNN_ATTR_OPERATION_LAYERNORM_FWD_PHASE_EXT,
                                    HIPDNN_TYPE_NORM_FWD_PHASE, 1, &n, &phase));
    cr_expect_eq(phase, HIPDNN_NORM_FWD_TRAINING);
    TU_OK(hipdnnBackendGetAttribute(op, HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT,
                                    HIPDNN_TYPE_INT64, 1, &n, &norm_dims));
    cr_expect_eq(norm_dims, 1);
    TU_OK(hipdnnBackendGetAttribute(op, HIPDNN_ATTR_LAYERNORM_COMP_TYPE_EXT, HIPDNN_TYPE_DATA_TYPE,
                                    1, &n, &comp));
    cr_expect_eq(comp, HIPDNN_DATA_FLOAT);
    TU_OK(hipdnnBackendDestroyDescriptor(op));

    char name[64] = {0};
    TU_OK(hipdnnBackendGetAttribute(graph, HIPDNN_ATTR_OPERATIONGRAPH_NAME_EXT, HIPDNN_TYPE_CHAR,
                                    sizeof name, &n, name));
    cr_expect_str_eq(name, p.name);
    TU_OK(hipdnnBackendDestroyDescriptor(graph));
    TU_OK(hipdnnDestroy(handle));
}

Test(layernorm, json_form_and_binary_round_trip)
{
    hipdnnHandle_t handle = NULL;
    problem p = random_problem();
    TU_OK(hipdnnCreate(&handle));
    hipdnnBackendDescriptor_t graph = build(handle, &p);

    char *text = json_of(graph);
    json_error_t err;
    json_t *doc = json_loads(text, 0, &err);
    cr_assert_not_null(doc, "%s", err.text);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "name")), p.name);
    json_t *tensors = json_object_get(doc, "tensors"), *nodes = json_object_get(doc, "nodes");
    cr_expect_eq(json_array_size(tensors), N_TENSORS);
    cr_assert_eq(json_array_size(nodes), 1);
    json_t *node = json_array_get(nodes, 0);
    cr_expect_str_eq(json_string_value(json_object_get(node, "attributes_type")),
                     "LayernormAttributes");
    cr_expect_str_eq(json_string_value(json_object_get(node, "name")), "layernorm");
    json_t *attrs = json_object_get(node, "attributes");
    cr_expect_eq(json_integer_value(json_object_get(attrs, "x_tensor_uid")), p.uid[X]);
    cr_expect_eq(json_integer_value(json_object_get(attrs, "epsilon_tensor_uid")), p.uid[EPS]);
    cr_expect_str_eq(json_string_value(json_object_get(attrs, "forward_phase")), "TRAINING");
    /* the epsilon tensor carries its value */
    bool found = false;
    for (size_t i = 0; i < json_array_size(tensors); i++) {
        json_t *t = json_array_get(tensors, i);
        if (json_integer_value(json_object_get(t, "uid")) != p.uid[EPS])
            continue;
        found = true;
        cr_expect_str_eq(json_string_value(json_object_get(t, "value_type")), "Float32Value");
        double v = json_number_value(json_object_get(json_object_get(t, "value"), "value"));
        cr_expect_eq((float)v, p.epsilon, "epsilon %g in JSON, expected %g", v, (double)p.epsilon);
    }
    cr_expect(found, "no epsilon tensor in the JSON");
    json_decref(doc);

    /* binary -> a new graph -> the same JSON */
    size_t len = 0;
    TU_OK(hipdnnBackendGetSerializedBinaryGraph_ext(graph, 0, &len, NULL));
    uint8_t *bin = malloc(len);
    cr_assert_not_null(bin);
    TU_OK(hipdnnBackendGetSerializedBinaryGraph_ext(graph, len, &len, bin));
    hipdnnBackendDescriptor_t again = NULL;
    TU_OK(hipdnnBackendCreateAndDeserializeGraph_ext(&again, bin, len));
    free(bin);
    int64_t n = 0;
    TU_EQ(hipdnnBackendGetAttribute(again, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 0, &n, NULL),
          HIPDNN_STATUS_NOT_INITIALIZED); /* deserialized graphs come back unfinalized */
    TU_EQ(hipdnnBackendFinalize(again), HIPDNN_STATUS_BAD_PARAM); /* no handle yet */
    TU_OK(hipdnnBackendSetAttribute(again, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1,
                                    &handle));
    TU_OK(hipdnnBackendFinalize(again));
    char *text2 = json_of(again);
    cr_expect_str_eq(text2, text, "the binary round trip changed the graph");
    free(text);
    free(text2);
    TU_OK(hipdnnBackendDestroyDescriptor(again));
    TU_OK(hipdnnBackendDestroyDescriptor(graph));
    TU_OK(hipdnnDestroy(handle));
}
