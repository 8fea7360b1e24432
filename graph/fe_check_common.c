/* fe_check_common.c — the finalize rules every operation shares, beside its own (fe_check*.c):
 *
 *   outputs     every tensor an operation writes (FE_OUT ports) maps distinct elements to
 *               distinct addresses: no zero stride on a dim of size > 1, no two elements of one
 *               tensor overlapping (what a kernel writing it in parallel needs; inputs may
 *               broadcast with zero strides); interleaved layouts are checked element by
 *               element up to 4M elements and refused, saying so, beyond;
 *   products    the two operands of a matmul or convolution have one data type (mixed types are
 *               cast first with a pointwise IDENTITY, op-semantics.md §1.3, §2.1), and the result
 *               type suits them: a floating type for floating operands, INT32 or FLOAT for
 *               integer ones; 4- and 6-bit packed types are dequantized first.
 * A failing rule is BAD_PARAM naming the operation, the port, the tensor's uid and the rule.
 */
#include <stdlib.h>

#include "graph/fe_check.h"

#define OK HIPDNN_STATUS_SUCCESS

static bool is_float(hipdnnDataType_t t)
{
    switch (t) {
    case HIPDNN_DATA_FLOAT:
    case HIPDNN_DATA_DOUBLE:
    case HIPDNN_DATA_HALF:
    case HIPDNN_DATA_BFLOAT16:
    case HIPDNN_DATA_FP8_E4M3:
    case HIPDNN_DATA_FP8_E5M2:
    case HIPDNN_DATA_FP8_E4M3_FNUZ:
    case HIPDNN_DATA_FP8_E5M2_FNUZ: return true;
    case HIPDNN_DATA_INT8: case HIPDNN_DATA_INT32: case HIPDNN_DATA_UINT8:
    case HIPDNN_DATA_FP8_E8M0: case HIPDNN_DATA_FP4_E2M1: case HIPDNN_DATA_INT4:
    case HIPDNN_DATA_FP6_E2M3_EXT: case HIPDNN_DATA_FP6_E3M2_EXT: case HIPDNN_DATA_INT64:
    case HIPDNN_DATA_BOOLEAN: return false;
    }
    return false; /* a value outside the enum */
}

static bool is_int(hipdnnDataType_t t)
{
    return t == HIPDNN_DATA_INT8 || t == HIPDNN_DATA_UINT8 || t == HIPDNN_DATA_INT32;
}

/* ---- outputs ------------------------------------------------------------------------------------- */

typedef struct axis {
    int64_t dim, stride;
} axis;

static int by_stride(const void *a, const void *b)
{
    const axis *x = a, *y = b;
    return (x->stride > y->stride) - (x->stride < y->stride);
}

typedef enum addresses { DISTINCT, SHARED, UNCHECKED } addresses;

/* Elements tried one by one when the stride rule cannot tell: at most this many, spanning at
 * most this many addresses (a bitset of 4 MiB). */
#define EXACT_MAX_ELEMENTS (1ll << 22)
#define EXACT_MAX_SPAN (1ll << 25)

/* Visits every element's offset, marking it in a bitset of span bits: SHARED at the first offset
 * seen twice; UNCHECKED when the bitset cannot be had. */
static addresses exact_check(const axis *ax, int n, int64_t span)
{
    uint8_t *seen = base_calloc((size_t)(span + 7) / 8, 1);
    if (seen == NULL)
        return UNCHECKED;
    int64_t idx[FE_MAX_RANK] = {0}, off = 0;
    addresses r = DISTINCT;
    for (;;) {
        if (seen[off >> 3] & (1u << (off & 7))) {
            r = SHARED;
            break;
        }
        seen[off >> 3] |= (uint8_t)(1u << (off & 7));
        int d = 0;
        for (; d < n && ++idx[d] == ax[d].dim; d++)
            off -= (ax[d].dim - 1) * ax[d].stride, idx[d] = 0;
        if (d == n)
            break;
        off += ax[d].stride;
    }
    base_free(seen);
    return r;
}

/* Whether tensor t's elements occupy distinct addresses. Taken in increasing stride order, dims
 * of size > 1 that each step past the whole extent of the dims before them are distinct (every
 * dense or padded layout, any permutation); a zero stride is not. Other layouts (dims interleaved:
 * [4, 6] with strides [5, 4] is distinct, with [4, 3] it is not) are checked element by element
 * when small enough (EXACT_MAX_*), else UNCHECKED. *culprit: the first dim that breaks the rule. */
static addresses one_address_each(fe_tensor_view t, int *culprit)
{
    axis ax[FE_MAX_RANK];
    int n = 0;
    int64_t numel = 1, span = 1;
    for (int i = 0; i < t.rank; i++)
        if (t.dims[i] > 1) {
            ax[n++] = (axis){t.dims[i], t.strides[i]};
            numel = t.dims[i] < EXACT_MAX_ELEMENTS / numel ? numel * t.dims[i] : EXACT_MAX_ELEMENTS;
            span += (t.dims[i] - 1) * t.strides[i];
        }
    qsort(ax, (size_t)n, sizeof ax[0], by_stride);
    int64_t reach = 0; /* the largest offset of the dims so far */
    int broken = -1;
    for (int i = 0; i < n && broken < 0; i++) {
        if (ax[i].stride <= reach)
            broken = i;
        reach += (ax[i].dim - 1) * ax[i].stride;
    }
    if (broken < 0)
        return DISTINCT;
    for (*culprit = 0; *culprit < t.rank; (*culprit)++)
        if (t.dims[*culprit] == ax[broken].dim && t.strides[*culprit] == ax[broken].stride)
            break;
    if (ax[broken].stride == 0)
        return SHARED;
    if (numel >= EXACT_MAX_ELEMENTS || span > EXACT_MAX_SPAN) /* strides are non-negative: span bounds every offset */
        return UNCHECKED;
    return exact_check(ax, n, span);
}

static hipdnnStatus_t check_outputs(fe_obj *op)
{
    for (int i = 0; i < op->cls->n_attrs; i++) {
        const fe_attr *a = &op->cls->attrs[i];
        fe_val *v = &op->vals[i];
        if (!(a->flags & FE_OUT) || v->n == 0)
            continue;
        for (int64_t k = 0; k < v->n; k++) {
            fe_obj *obj = a->shape == FE_ONE ? v->one.obj : ((fe_obj **)v->arr)[k];
            fe_tensor_view t = fe_tensor(obj);
            int d = 0;
            addresses r = one_address_each(t, &d);
            if (r == SHARED)
                return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: %s: output tensor uid %lld has "
                                 "overlapping elements (dim %d of size %lld with stride %lld lands "
                                 "on elements of the dims of smaller strides); an output needs one "
                                 "address per element", op->cls->name, a->name, (long long)t.uid, d,
                                 (long long)t.dims[d], (long long)t.strides[d]);
            if (r == UNCHECKED)
                return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: %s: output tensor uid %lld: dim %d of size "
                                 "%lld with stride %lld interleaves with the dims of smaller strides, and "
                                 "the tensor is too large to check element by element that no two "
                                 "elements share an address; an output needs one address per element "
                                 "(give each dim, by increasing stride, a stride past the extent of the "
                                 "ones before it)", op->cls->name, a->name, (long long)t.uid, d,
                                 (long long)t.dims[d], (long long)t.strides[d]);
        }
    }
    return OK;
}

/* ---- products ------------------------------------------------------------------------------------ */

typedef struct product {
    hipdnnBackendDescriptorType_t type;
    hipdnnBackendAttributeName_t a, b, out;
    const char *an, *bn, *outn;
} product;

static const product products[] = {
    {HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT, HIPDNN_ATTR_OPERATION_MATMUL_ADESC,
     HIPDNN_ATTR_OPERATION_MATMUL_BDESC, HIPDNN_ATTR_OPERATION_MATMUL_CDESC, "A", "B", "C"},
    {HIPDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
     HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, "X", "W", "Y"},
    {HIPDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DESCRIPTOR, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
     HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, "DY", "W", "DX"},
    {HIPDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
     HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, "X", "DY", "DW"},
};

static hipdnnDataType_t dtype_of(fe_obj *op, hipdnnBackendAttributeName_t id)
{
    return fe_tensor(fe_get(op, id)->one.obj).dtype;
}

static hipdnnStatus_t check_product(fe_obj *op, const product *p)
{
    hipdnnDataType_t a = dtype_of(op, p->a), b = dtype_of(op, p->b), o = dtype_of(op, p->out);
    const char *d = op->cls->name;
    if (a != b)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: %s is %s and %s is %s: the operands of a "
                         "product must have one data type (cast one with a pointwise IDENTITY)", d,
                         p->an, fe_dtype_name(a), p->bn, fe_dtype_name(b));
    if (!is_float(a) && !is_int(a))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: %s and %s are %s: products take floating or "
                         "8/32-bit integer operands (dequantize packed types first)", d, p->an,
                         p->bn, fe_dtype_name(a));
    if (is_float(a) && !is_float(o))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: %s is %s for %s operands: a product of "
                         "floating operands has a floating result", d, p->outn, fe_dtype_name(o),
                         fe_dtype_name(a));
    if (is_int(a) && o != HIPDNN_DATA_INT32 && o != HIPDNN_DATA_FLOAT)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: %s is %s for %s operands: a product of "
                         "integer operands has an INT32 or FLOAT result", d, p->outn,
                         fe_dtype_name(o), fe_dtype_name(a));
    return OK;
}

hipdnnStatus_t fe_check_op_common(fe_obj *op)
{
    hipdnnStatus_t st = check_outputs(op);
    for (size_t i = 0; st == OK && i < sizeof products / sizeof products[0]; i++)
        if (products[i].type == op->cls->type)
            st = check_product(op, &products[i]);
    return st;
}
