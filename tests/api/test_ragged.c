/* test_ragged.c — ragged (packed, THD) tensors on the descriptors and the graph: the offset
 * tensor given by descriptor (HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC as cuDNN takes it, or
 * HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_TENSOR_EXT) or by uid (hipDNN's form), read back both ways;
 * the refusals (a non-integer, unfinalized or virtual offset tensor, a uid that disagrees with
 * the attached tensor, a uid no tensor of the graph has); the graph holding the offset tensor
 * as an input, so its JSON form lists it and reads back the same; and a packed tensor anywhere
 * but in attention refused with the reason (attention over packed tensors: test_ragged_sdpa.c).
 * Public API only.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "hipdnn_backend.h"
#include "hipdnn_jit.h"
#include "../common/tu.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR
#define RO HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC
#define RO_TENSOR HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_TENSOR_EXT

static hipdnnBackendDescriptor_t offsets(int64_t uid, hipdnnDataType_t dt, bool is_virtual)
{
    int64_t dims[] = {5, 1, 1, 1};
    return tu_tensor(uid, dt, 4, dims, is_virtual, NULL, 0);
}

/* x [4, 8, 16] FLOAT (THD-like: tokens, heads, dims), unfinalized */
static hipdnnBackendDescriptor_t ragged_x(int64_t uid)
{
    int64_t dims[] = {4, 8, 16}, strides[] = {128, 16, 1};
    return tu_tensor_unfinalized(uid, HIPDNN_DATA_FLOAT, 3, dims, strides, false);
}

static int64_t get_uid(hipdnnBackendDescriptor_t t)
{
    int64_t n = 0, uid = -1;
    TU_OK(hipdnnBackendGetAttribute(t, RO, HIPDNN_TYPE_INT64, 1, &n, &uid));
    cr_assert_eq(n, 1);
    return uid;
}

Test(ragged, the_offset_tensor_by_descriptor_reads_back_both_ways)
{
    hipdnnBackendDescriptor_t ro = offsets(9, HIPDNN_DATA_INT32, false), x = ragged_x(1), got = NULL;
    TU_OK(hipdnnBackendSetAttribute(x, RO, DESC, 1, &ro));
    TU_OK(hipdnnBackendFinalize(x));
    cr_expect_eq(get_uid(x), 9, "the descriptor form sets the uid");
    int64_t n = 0;
    TU_OK(hipdnnBackendGetAttribute(x, RO, DESC, 1, &n, &got)); /* a new handle, ours to destroy */
    cr_expect_eq(n, 1);
    int64_t uid = 0;
    TU_OK(hipdnnBackendGetAttribute(got, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &n, &uid));
    cr_expect_eq(uid, 9, "read as a descriptor: the offset tensor");
    tu_destroy(&got);
    /* the extension attribute is the same thing under its own name */
    hipdnnBackendDescriptor_t y = ragged_x(2);
    TU_OK(hipdnnBackendSetAttribute(y, RO_TENSOR, DESC, 1, &ro));
    TU_OK(hipdnnBackendSetAttribute(y, RO, HIPDNN_TYPE_INT64, 1, &(int64_t){9}));
    TU_OK(hipdnnBackendFinalize(y));
    cr_expect_eq(get_uid(y), 9);
    tu_destroy(&x), tu_destroy(&y), tu_destroy(&ro);
}

Test(ragged, bad_offset_tensors_are_refused_by_name)
{
    hipdnnBackendDescriptor_t flt = offsets(9, HIPDNN_DATA_FLOAT, false), virt = offsets(10, HIPDNN_DATA_INT64, true);
    hipdnnBackendDescriptor_t ok = offsets(11, HIPDNN_DATA_INT64, false), x = ragged_x(1);
    hipdnnBackendDescriptor_t unfinal = ragged_x(12);
    TU_EQ(hipdnnBackendSetAttribute(x, RO, DESC, 1, &flt), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "uid 9 is FLOAT; offsets are INT32 or INT64") != NULL, "%s", tu_msg());
    TU_EQ(hipdnnBackendSetAttribute(x, RO, DESC, 1, &virt), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "must be in memory") != NULL, "%s", tu_msg());
    TU_EQ(hipdnnBackendSetAttribute(x, RO_TENSOR, DESC, 1, &unfinal), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "one finalized TENSOR descriptor") != NULL, "%s", tu_msg());
    TU_OK(hipdnnBackendSetAttribute(x, RO, DESC, 1, &ok));
    TU_EQ(hipdnnBackendSetAttribute(x, RO, HIPDNN_TYPE_INT64, 1, &(int64_t){12}), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "uid 12, but the offset tensor set before has uid 11") != NULL, "%s", tu_msg());
    TU_OK(hipdnnBackendFinalize(x));
    cr_expect_eq(get_uid(x), 11, "a refused set changes nothing");
    hipdnnBackendDescriptor_t self = ragged_x(3);
    TU_OK(hipdnnBackendSetAttribute(self, RO, HIPDNN_TYPE_INT64, 1, &(int64_t){3}));
    TU_EQ(hipdnnBackendFinalize(self), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "names the tensor itself") != NULL, "%s", tu_msg());
    tu_destroy(&flt), tu_destroy(&virt), tu_destroy(&ok), tu_destroy(&x), tu_destroy(&unfinal), tu_destroy(&self);
}

/* y = relu(x) with x ragged; `attach`: the offset tensor by descriptor, else by uid only. */
static hipdnnBackendDescriptor_t relu_graph(hipdnnHandle_t h, bool attach, hipdnnBackendDescriptor_t *d,
                                            hipdnnStatus_t want)
{
    d[0] = offsets(9, HIPDNN_DATA_INT64, false), d[1] = ragged_x(1);
    if (attach)
        TU_OK(hipdnnBackendSetAttribute(d[1], RO, DESC, 1, &d[0]));
    else
        TU_OK(hipdnnBackendSetAttribute(d[1], RO, HIPDNN_TYPE_INT64, 1, &(int64_t){9}));
    TU_OK(hipdnnBackendFinalize(d[1]));
    int64_t dims[] = {4, 8, 16};
    d[2] = tu_tensor(2, HIPDNN_DATA_FLOAT, 3, dims, false, NULL, 0);
    d[3] = tu_unary(HIPDNN_POINTWISE_RELU_FWD, d[1], d[2]);
    hipdnnBackendDescriptor_t g;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &h));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 1, &d[3]));
    TU_EQ(hipdnnBackendFinalize(g), want);
    return g;
}

static char *json_of(hipdnnBackendDescriptor_t g)
{
    size_t n = 0;
    TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(g, 0, &n, NULL));
    char *text = malloc(n);
    TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(g, n, &n, text));
    return text;
}

Test(ragged, the_graph_holds_the_offset_tensor_and_a_relu_of_it_is_refused_with_the_reason)
{
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    hipdnnBackendDescriptor_t d[4];
    hipdnnBackendDescriptor_t g = relu_graph(h, true, d, HIPDNN_STATUS_SUCCESS);
    char *text = json_of(g);
    cr_expect(strstr(text, "\"ragged_offset_tensor_uid\": 9") != NULL, "the uid is written: %s", text);
    cr_expect(strstr(text, "\"uid\": 9") != NULL, "the offset tensor is one of the graph's: %s", text);
    hipdnnBackendDescriptor_t back = tu_json_graph(h, text, strlen(text), "the ragged graph's JSON");
    char *again = json_of(back);
    cr_expect_str_eq(again, text, "the JSON form reads back to the same graph");
    hipdnnBackendDescriptor_t plan = NULL;
    int64_t ref = -1;
    TU_OK(hipdnnGetEngineIdByName_ext(h, "reference", &ref));
    TU_EQ(tu_try_plan(h, back, ref, &plan), HIPDNN_STATUS_NOT_SUPPORTED); /* packed: attention operands only */
    cr_expect(strstr(tu_msg(), "tensor uid 1: a packed (ragged) tensor must be rank 4") != NULL, "%s", tu_msg());
    free(again), free(text);
    tu_destroy(&back), tu_destroy(&g);
    for (int i = 0; i < 4; i++)
        tu_destroy(&d[i]);
    TU_OK(hipdnnDestroy(h));
}

Test(ragged, a_uid_no_tensor_of_the_graph_has_is_refused)
{
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    hipdnnBackendDescriptor_t d[4];
    hipdnnBackendDescriptor_t g = relu_graph(h, false, d, HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "tensor UID 1: its ragged offset UID 9 is not a tensor of the graph") != NULL, "%s",
              tu_msg());
    tu_destroy(&g);
    for (int i = 0; i < 4; i++)
        tu_destroy(&d[i]);
    /* in JSON, the uid must be in the tensor list */
    static const char bad[] =
        "{\"tensors\": [{\"uid\": 1, \"data_type\": \"FLOAT\", \"dims\": [4], \"strides\": [1], "
        "\"ragged_offset_tensor_uid\": 7}, {\"uid\": 2, \"data_type\": \"FLOAT\", \"dims\": [4], \"strides\": [1]}], "
        "\"nodes\": [{\"name\": \"r\", \"attributes_type\": \"PointwiseAttributes\", \"attributes\": "
        "{\"operation\": \"RELU_FWD\", \"in_0_tensor_uid\": 1, \"out_0_tensor_uid\": 2}}]}";
    hipdnnBackendDescriptor_t j = NULL;
    TU_EQ(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&j, bad, sizeof bad - 1), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "ragged_offset_tensor_uid 7 is not in \"tensors\"") != NULL, "%s", tu_msg());
    cr_expect_null(j);
    TU_OK(hipdnnDestroy(h));
}
