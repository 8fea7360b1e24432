/* test_limits.c — the documented size limits (HipdnnBackendLimits.h), through the public API.
 *
 * A tensor of more than HIPDNN_MAX_TENSOR_BYTES_EXT bytes (counting its elements, and the span its
 * strides reach) is refused at finalize with the uid and the sizes named; before this limit a
 * virtual [1, 2^31, 2^31] FLOAT tensor finalized and the workspace arithmetic (elements × 4)
 * overflowed int64. A graph holds at most HIPDNN_MAX_GRAPH_OPERATIONS_EXT operations, however
 * many sets of HIPDNN_ATTR_OPERATIONGRAPH_OPS it takes (100,000 were accepted before). A refused
 * set leaves the graph as it was.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../common/tu.h"

static hipdnnStatus_t finalize_tensor(hipdnnDataType_t dt, int rank, const int64_t *dims, const int64_t *strides)
{
    hipdnnBackendDescriptor_t t = tu_tensor_unfinalized(7, dt, rank, dims, strides, true);
    hipdnnStatus_t st = hipdnnBackendFinalize(t);
    hipdnnBackendDestroyDescriptor(t);
    return st;
}

Test(limits, tensor_bytes)
{
    const int64_t big = 1LL << 31;
    int64_t dims[] = {1, big, big}, strides[] = {big * big, big, 1};
    TU_EQ(finalize_tensor(HIPDNN_DATA_FLOAT, 3, dims, strides), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "uid 7") != NULL && strstr(tu_msg(), "4611686018427387904 elements of FLOAT") != NULL,
              "%s", tu_msg());
    /* exactly the limit passes, one element more does not: 2^46 FLOATs are 2^48 bytes */
    int64_t d1[] = {1LL << 46}, s1[] = {1};
    TU_OK(finalize_tensor(HIPDNN_DATA_FLOAT, 1, d1, s1));
    d1[0]++;
    TU_EQ(finalize_tensor(HIPDNN_DATA_FLOAT, 1, d1, s1), HIPDNN_STATUS_BAD_PARAM);
    TU_OK(finalize_tensor(HIPDNN_DATA_INT8, 1, d1, s1)); /* a byte each: within the limit */
    /* few elements spread wide: the strides' reach counts */
    int64_t d2[] = {2, 2}, s2[] = {1LL << 47, 1};
    TU_EQ(finalize_tensor(HIPDNN_DATA_HALF, 2, d2, s2), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "reaching 140737488355330 elements") != NULL, "%s", tu_msg());
}

/* A finalized RELU op on [4] tensors with uids 2k+1 -> 2k+2. */
static hipdnnBackendDescriptor_t relu_op(int64_t k)
{
    int64_t dims[] = {4};
    hipdnnBackendDescriptor_t x = tu_tensor(2 * k + 1, HIPDNN_DATA_FLOAT, 1, dims, false, NULL, 0);
    hipdnnBackendDescriptor_t y = tu_tensor(2 * k + 2, HIPDNN_DATA_FLOAT, 1, dims, false, NULL, 0), op;
    hipdnnPointwiseMode_t mode = HIPDNN_POINTWISE_RELU_FWD;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_TYPE_POINTWISE_MODE, 1, &mode));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
    TU_OK(hipdnnBackendFinalize(op));
    hipdnnBackendDestroyDescriptor(x), hipdnnBackendDestroyDescriptor(y);
    return op;
}

static int64_t op_count(hipdnnBackendDescriptor_t g)
{
    int64_t n = -1;
    TU_OK(hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 0, &n, NULL));
    return n;
}

Test(limits, operations_per_graph)
{
    const int64_t max = HIPDNN_MAX_GRAPH_OPERATIONS_EXT;
    hipdnnBackendDescriptor_t *ops = calloc((size_t)max + 1, sizeof *ops), g;
    for (int64_t k = 0; k <= max; k++)
        ops[k] = relu_op(k);
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    TU_EQ(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, max + 1, ops),
          HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "at most 1024") != NULL, "%s", tu_msg());
    /* in two sets: the first fits, the second would pass the limit and changes nothing */
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, max - 1, ops));
    TU_EQ(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 2, ops + max - 1),
          HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "holds 1023, 2 more") != NULL, "%s", tu_msg());
    /* the refused set changed nothing: one more op fits, and the graph holds exactly the limit */
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, ops + max - 1));
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &h));
    TU_OK(hipdnnBackendFinalize(g)); /* 1024 independent ops: a valid graph */
    cr_expect_eq(op_count(g), max);
    hipdnnBackendDestroyDescriptor(g);
    hipdnnDestroy(h);
    for (int64_t k = 0; k <= max; k++)
        hipdnnBackendDestroyDescriptor(ops[k]);
    free(ops);
}
