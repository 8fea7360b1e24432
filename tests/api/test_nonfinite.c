/* test_nonfinite.c — non-finite float attributes survive serialization: a RELU with an infinite
 * upper clip (the "no clip" value) and a NaN-free graph round-trip through JSON and FlatBuffer.
 * JSON has no spelling for infinity, so the JSON form carries "inf" / "-inf" / "nan" strings
 * (which flatc also reads). Public header only. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hipdnn_backend.h"
#include "../common/tu.h"


static hipdnnBackendDescriptor_t tensor(int64_t uid)
{
    int64_t dims[] = {2, 2}, strides[] = {2, 1};
    hipdnnDataType_t f32 = HIPDNN_DATA_FLOAT;
    hipdnnBackendDescriptor_t t;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &uid));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DATA_TYPE, HIPDNN_TYPE_DATA_TYPE, 1, &f32));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, 2, dims));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64, 2, strides));
    TU_OK(hipdnnBackendFinalize(t));
    return t;
}

static float upper_clip_of(hipdnnBackendDescriptor_t g)
{
    hipdnnBackendDescriptor_t op;
    int64_t n = 0;
    float v = 0;
    TU_OK(hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &op));
    TU_OK(hipdnnBackendGetAttribute(op, HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, HIPDNN_TYPE_FLOAT, 1, &n, &v));
    hipdnnBackendDestroyDescriptor(op);
    return v;
}

Test(nonfinite, infinite_relu_clip_round_trips)
{
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    hipdnnBackendDescriptor_t x = tensor(1), y = tensor(2), op, g, g2, g3;
    hipdnnPointwiseMode_t mode = HIPDNN_POINTWISE_RELU_FWD;
    float inf = INFINITY, lo = -1.0f;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_TYPE_POINTWISE_MODE, 1, &mode));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, HIPDNN_TYPE_FLOAT, 1, &inf));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, HIPDNN_TYPE_FLOAT, 1, &lo));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
    TU_OK(hipdnnBackendFinalize(op));
    g = tu_graph_of(h, op);

    size_t n = 0;
    TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(g, 0, &n, NULL));
    char *json = malloc(n);
    TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(g, n, &n, json));
    cr_expect_not_null(strstr(json, "\"relu_upper_clip\": \"inf\""), "%s", json);
    TU_OK(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g2, json, n));
    TU_OK(hipdnnBackendSetAttribute(g2, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &h));
    TU_OK(hipdnnBackendFinalize(g2));
    cr_expect(isinf(upper_clip_of(g2)) && upper_clip_of(g2) > 0, "JSON keeps +inf");

    TU_OK(hipdnnBackendGetSerializedBinaryGraph_ext(g, 0, &n, NULL));
    uint8_t *bin = malloc(n);
    TU_OK(hipdnnBackendGetSerializedBinaryGraph_ext(g, n, &n, bin));
    TU_OK(hipdnnBackendCreateAndDeserializeGraph_ext(&g3, bin, n));
    TU_OK(hipdnnBackendSetAttribute(g3, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &h));
    TU_OK(hipdnnBackendFinalize(g3));
    cr_expect(isinf(upper_clip_of(g3)) && upper_clip_of(g3) > 0, "the FlatBuffer keeps +inf");
    free(json), free(bin);
    hipdnnBackendDescriptor_t all[] = {g3, g2, g, op, x, y};
    for (int i = 0; i < 6; i++)
        hipdnnBackendDestroyDescriptor(all[i]);
    hipdnnDestroy(h);
}
