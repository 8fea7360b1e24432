/* test_op_rules.c — the rules every operation shares at finalize (graph/fe_check_common.c),
 * through the public API: an output tensor needs one address per element (zero strides and
 * overlapping strides refused, interleaved ones checked element by element; broadcasting inputs
 * and any permuted dense output accepted), and
 * a matmul's or convolution's operands share one data type with a result type that suits them
 * (before these rules, HALF x FLOAT -> INT8 matmuls finalized and executed). Every refusal names
 * the operation, the port and the rule.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "../common/tu.h"

static hipdnnBackendDescriptor_t tensor(int64_t uid, hipdnnDataType_t dt, int rank, const int64_t *dims,
                                        const int64_t *strides)
{
    hipdnnBackendDescriptor_t t = tu_tensor_unfinalized(uid, dt, rank, dims, strides, false);
    TU_OK(hipdnnBackendFinalize(t));
    return t;
}

static void set_desc(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a, hipdnnBackendDescriptor_t v)
{
    TU_OK(hipdnnBackendSetAttribute(d, a, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &v));
}

/* The finalize status of pointwise `mode` on x (and b, when not NULL) into y. */
static hipdnnStatus_t pointwise(hipdnnPointwiseMode_t mode, hipdnnBackendDescriptor_t x, hipdnnBackendDescriptor_t b,
                                hipdnnBackendDescriptor_t y)
{
    hipdnnBackendDescriptor_t op;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_TYPE_POINTWISE_MODE, 1, &mode));
    set_desc(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, x);
    if (b != NULL)
        set_desc(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_1_EXT, b);
    set_desc(op, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, y);
    hipdnnStatus_t st = hipdnnBackendFinalize(op);
    hipdnnBackendDestroyDescriptor(op);
    return st;
}

/* y = x + b with x [4,6] packed, b [1,6] broadcast (stride 0 on its dim of 1... and on a dim of
 * 4 when bstride0 == 0), y with the given strides; returns the finalize status. */
static hipdnnStatus_t add_with_output(const int64_t *ystrides, int64_t bstride0)
{
    int64_t d[] = {4, 6}, s[] = {6, 1}, bd[] = {4, 6}, bs[] = {bstride0, 1};
    hipdnnBackendDescriptor_t x = tensor(1, HIPDNN_DATA_FLOAT, 2, d, s);
    hipdnnBackendDescriptor_t b = tensor(2, HIPDNN_DATA_FLOAT, 2, bd, bs);
    hipdnnBackendDescriptor_t y = tensor(3, HIPDNN_DATA_FLOAT, 2, d, ystrides);
    hipdnnStatus_t st = pointwise(HIPDNN_POINTWISE_ADD, x, b, y);
    hipdnnBackendDestroyDescriptor(x), hipdnnBackendDestroyDescriptor(b), hipdnnBackendDestroyDescriptor(y);
    return st;
}

Test(op_rules, outputs_need_one_address_per_element)
{
    TU_OK(add_with_output((int64_t[]){6, 1}, 0));  /* a broadcast input (stride 0) is fine */
    TU_OK(add_with_output((int64_t[]){1, 4}, 6));  /* a column-major output */
    TU_OK(add_with_output((int64_t[]){8, 1}, 6));  /* rows padded to 8 */
    TU_EQ(add_with_output((int64_t[]){0, 1}, 6), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT: output tensor uid 3 has overlapping "
                               "elements (dim 0 of size 4 with stride 0") != NULL, "%s", tu_msg());
    TU_EQ(add_with_output((int64_t[]){5, 1}, 6), HIPDNN_STATUS_BAD_PARAM); /* rows overlap by one */
    cr_expect(strstr(tu_msg(), "dim 0 of size 4 with stride 5") != NULL, "%s", tu_msg());
    /* interleaved dims, checked element by element: i·5 + j·4 are distinct for i < 4, j < 6;
     * i·4 + j·3 are not (3·4 = 4·3) */
    TU_OK(add_with_output((int64_t[]){5, 4}, 6));
    TU_EQ(add_with_output((int64_t[]){4, 3}, 6), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "output tensor uid 3 has overlapping elements (dim 0 of size 4 with stride 4") != NULL,
              "%s", tu_msg());
}

/* An interleaved output layout too large to check element by element is refused, saying so. */
Test(op_rules, large_interleaved_outputs_are_refused_with_the_reason)
{
    int64_t d[] = {4096, 4096}, s[] = {4096, 1}, ys[] = {4097, 4095};
    hipdnnBackendDescriptor_t x = tensor(1, HIPDNN_DATA_FLOAT, 2, d, s);
    hipdnnBackendDescriptor_t y = tensor(3, HIPDNN_DATA_FLOAT, 2, d, ys);
    TU_EQ(pointwise(HIPDNN_POINTWISE_RELU_FWD, x, NULL, y), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "too large to check element by element") != NULL, "%s", tu_msg());
    hipdnnBackendDestroyDescriptor(x), hipdnnBackendDestroyDescriptor(y);
}

/* C = A·B with [1,M,K] x [1,K,N] of the given types; returns the finalize status. */
static hipdnnStatus_t matmul(hipdnnDataType_t ta, hipdnnDataType_t tb, hipdnnDataType_t tc)
{
    int64_t ad[] = {1, 8, 16}, as[] = {128, 16, 1}, bd[] = {1, 16, 4}, bs[] = {64, 4, 1}, cd[] = {1, 8, 4},
            cs[] = {32, 4, 1};
    hipdnnBackendDescriptor_t a = tensor(1, ta, 3, ad, as), b = tensor(2, tb, 3, bd, bs);
    hipdnnBackendDescriptor_t c = tensor(3, tc, 3, cd, cs), op;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT, &op));
    set_desc(op, HIPDNN_ATTR_OPERATION_MATMUL_ADESC, a);
    set_desc(op, HIPDNN_ATTR_OPERATION_MATMUL_BDESC, b);
    set_desc(op, HIPDNN_ATTR_OPERATION_MATMUL_CDESC, c);
    hipdnnStatus_t st = hipdnnBackendFinalize(op);
    hipdnnBackendDestroyDescriptor(op), hipdnnBackendDestroyDescriptor(a);
    hipdnnBackendDestroyDescriptor(b), hipdnnBackendDestroyDescriptor(c);
    return st;
}

Test(op_rules, product_data_types)
{
    TU_OK(matmul(HIPDNN_DATA_BFLOAT16, HIPDNN_DATA_BFLOAT16, HIPDNN_DATA_FLOAT));
    TU_OK(matmul(HIPDNN_DATA_HALF, HIPDNN_DATA_HALF, HIPDNN_DATA_HALF));
    TU_OK(matmul(HIPDNN_DATA_FP8_E4M3, HIPDNN_DATA_FP8_E4M3, HIPDNN_DATA_BFLOAT16));
    TU_OK(matmul(HIPDNN_DATA_INT8, HIPDNN_DATA_INT8, HIPDNN_DATA_INT32));
    TU_EQ(matmul(HIPDNN_DATA_HALF, HIPDNN_DATA_FLOAT, HIPDNN_DATA_INT8), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "A is HALF and B is FLOAT: the operands of a product must have one data type") != NULL,
              "%s", tu_msg());
    TU_EQ(matmul(HIPDNN_DATA_HALF, HIPDNN_DATA_HALF, HIPDNN_DATA_INT8), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "C is INT8 for HALF operands") != NULL, "%s", tu_msg());
    TU_EQ(matmul(HIPDNN_DATA_INT8, HIPDNN_DATA_INT8, HIPDNN_DATA_HALF), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "an INT32 or FLOAT result") != NULL, "%s", tu_msg());
    TU_EQ(matmul(HIPDNN_DATA_BOOLEAN, HIPDNN_DATA_BOOLEAN, HIPDNN_DATA_FLOAT), HIPDNN_STATUS_BAD_PARAM);
}
