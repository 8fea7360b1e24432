/* fe_tensor.c — HIPDNN_BACKEND_TENSOR_DESCRIPTOR and data-type facts.
 *
 * Owns: the tensor attribute table, the pass-by-value scalar (TENSOR_VALUE_EXT: raw bytes of
 * exactly one element, data type set first), and tensor finalize rules: rank 1..8, dims > 0,
 * strides >= 0 and as many as dims, addressable extent within int64, a by-value scalar has
 * one element and is neither virtual nor a run-time parameter.
 */
#include <string.h>

#include "desc/fe_desc.h"

size_t fe_dtype_size(hipdnnDataType_t t)
{
    switch (t) {
    case HIPDNN_DATA_DOUBLE:
    case HIPDNN_DATA_INT64: return 8;
    case HIPDNN_DATA_FLOAT:
    case HIPDNN_DATA_INT32: return 4;
    case HIPDNN_DATA_HALF:
    case HIPDNN_DATA_BFLOAT16: return 2;
    case HIPDNN_DATA_INT8:
    case HIPDNN_DATA_UINT8:
    case HIPDNN_DATA_BOOLEAN:
    case HIPDNN_DATA_FP8_E4M3:
    case HIPDNN_DATA_FP8_E5M2:
    case HIPDNN_DATA_FP8_E8M0:
    case HIPDNN_DATA_FP8_E4M3_FNUZ:
    case HIPDNN_DATA_FP8_E5M2_FNUZ: return 1;
    case HIPDNN_DATA_FP4_E2M1: case HIPDNN_DATA_INT4: case HIPDNN_DATA_FP6_E2M3_EXT:
    case HIPDNN_DATA_FP6_E3M2_EXT: return 0; /* FP4, FP6, INT4: packed below a byte */
    }
    return 0; /* a value outside the enum */
}

bool fe_dtype_valid(int t) { return t >= HIPDNN_DATA_FLOAT && t <= HIPDNN_DATA_FP8_E5M2_FNUZ; }

const char *fe_dtype_name(hipdnnDataType_t t)
{
    static const char *const names[] = {
        "FLOAT", "DOUBLE", "HALF", "INT8", "INT32", "UINT8", "BFLOAT16", "FP8_E4M3", "FP8_E5M2",
        "FP8_E8M0", "FP4_E2M1", "INT4", "FP6_E2M3", "FP6_E3M2", "INT64", "BOOLEAN",
        "FP8_E4M3_FNUZ", "FP8_E5M2_FNUZ"};
    return fe_dtype_valid((int)t) ? names[t] : "an invalid data type";
}

/* Types a pass-by-value scalar may have (hipdnn-api.md §2.3.9). */
static bool by_value_type(hipdnnDataType_t t)
{
    return fe_dtype_size(t) > 0 && t != HIPDNN_DATA_FP8_E8M0;
}

static hipdnnStatus_t set_value(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                                int64_t n, const void *elems)
{
    fe_val *dt = fe_get(o, HIPDNN_ATTR_TENSOR_DATA_TYPE);
    if (dt->n == 0)
        return base_fail(HIPDNN_STATUS_BAD_PARAM,
                         "HIPDNN_BACKEND_TENSOR_DESCRIPTOR %s: set HIPDNN_ATTR_TENSOR_DATA_TYPE first",
                         a->name);
    hipdnnDataType_t t = (hipdnnDataType_t)dt->one.e;
    if (!by_value_type(t))
        return base_fail(HIPDNN_STATUS_BAD_PARAM,
                         "HIPDNN_BACKEND_TENSOR_DESCRIPTOR %s: %s cannot be passed by value",
                         a->name, fe_dtype_name(t));
    if (type == HIPDNN_TYPE_CHAR && n != (int64_t)fe_dtype_size(t))
        return base_fail(HIPDNN_STATUS_BAD_PARAM,
                         "HIPDNN_BACKEND_TENSOR_DESCRIPTOR %s: a %s value is %zu bytes, got %lld",
                         a->name, fe_dtype_name(t), fe_dtype_size(t), (long long)n);
    return fe_set_generic(o, a, type, n, elems);
}

/* The value is raw element bytes, read back as exactly those bytes (no string NUL). */
static hipdnnStatus_t get_value(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                                int64_t requested, int64_t *count, void *elems)
{
    (void)type;
    const fe_val *v = fe_val_of(o, a);
    return fe_get_copy(o, a, requested, count, elems, v->arr, v->n, 1);
}

static hipdnnStatus_t get_is_by_value(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                                      int64_t requested, int64_t *count, void *elems)
{
    (void)type;
    bool by_value = fe_get(o, HIPDNN_ATTR_TENSOR_VALUE_EXT)->n > 0;
    return fe_get_copy(o, a, requested, count, elems, &by_value, 1, sizeof by_value);
}

/* ---- the ragged offset: its uid (hipDNN's form) and its descriptor (cuDNN's form) ---------------- */

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR

/* Attaches offset tensor descriptor `elems` (RAGGED_OFFSET_TENSOR_EXT, or RAGGED_OFFSET_DESC given a
 * descriptor) and sets RAGGED_OFFSET_DESC to its uid. The offsets are integers. */
static hipdnnStatus_t set_ragged_tensor(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                                        int64_t n, const void *elems)
{
    const fe_attr *tensor_row = fe_find_attr(o->cls, HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_TENSOR_EXT);
    const fe_attr *uid_row = fe_find_attr(o->cls, HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC);
    fe_obj *x = NULL;
    if (type != DESC || n != 1 || elems == NULL ||
        fe_unwrap(*(hipdnnBackendDescriptor_t const *)elems, "hipdnnBackendSetAttribute", &x) != HIPDNN_STATUS_SUCCESS ||
        x->cls != &fe_tensor_class || !x->finalized)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_TENSOR_DESCRIPTOR %s: takes one finalized "
                         "TENSOR descriptor (HIPDNN_TYPE_BACKEND_DESCRIPTOR x1), the per-batch offsets", a->name);
    fe_tensor_view t = fe_tensor(x);
    if (t.dtype != HIPDNN_DATA_INT32 && t.dtype != HIPDNN_DATA_INT64)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_TENSOR_DESCRIPTOR %s: the offset tensor uid "
                         "%lld is %s; offsets are INT32 or INT64", a->name, (long long)t.uid, fe_dtype_name(t.dtype));
    if (t.is_virtual || t.by_value)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_TENSOR_DESCRIPTOR %s: the offset tensor uid "
                         "%lld must be in memory (not virtual, not by value)", a->name, (long long)t.uid);
    hipdnnStatus_t st = fe_set_generic(o, tensor_row, DESC, 1, elems);
    return st != HIPDNN_STATUS_SUCCESS ? st : fe_set_generic(o, uid_row, HIPDNN_TYPE_INT64, 1, &t.uid);
}

/* RAGGED_OFFSET_DESC: a uid (INT64), or the offset tensor's descriptor. A uid other than that
 * of a descriptor set before is refused (the two would disagree). */
static hipdnnStatus_t set_ragged(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type, int64_t n,
                                 const void *elems)
{
    if (type == DESC)
        return set_ragged_tensor(o, a, type, n, elems);
    fe_val *attached = fe_get(o, HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_TENSOR_EXT);
    if (type == HIPDNN_TYPE_INT64 && n == 1 && elems != NULL && attached->n > 0 &&
        *(const int64_t *)elems != fe_tensor(attached->one.obj).uid)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_TENSOR_DESCRIPTOR %s: uid %lld, but the offset "
                         "tensor set before has uid %lld", a->name, (long long)*(const int64_t *)elems,
                         (long long)fe_tensor(attached->one.obj).uid);
    return fe_set_generic(o, a, type, n, elems);
}

/* RAGGED_OFFSET_DESC read as a descriptor gives the attached offset tensor. */
static hipdnnStatus_t get_ragged(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                                 int64_t requested, int64_t *count, void *elems)
{
    if (type == DESC)
        return fe_get_generic(o, fe_find_attr(o->cls, HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_TENSOR_EXT), type,
                              requested, count, elems);
    if (type != a->type)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_TENSOR_DESCRIPTOR %s: is HIPDNN_TYPE_INT64 (the "
                         "uid) or HIPDNN_TYPE_BACKEND_DESCRIPTOR (the offset tensor), requested as %s", a->name,
                         fe_type_name(type));
    return fe_get_generic(o, a, type, requested, count, elems);
}

fe_obj *fe_tensor_ragged(fe_obj *t)
{
    fe_val *v = fe_get(t, HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_TENSOR_EXT);
    return v->n > 0 ? v->one.obj : NULL;
}

#define I64 HIPDNN_TYPE_INT64
#define BOOL HIPDNN_TYPE_BOOLEAN
static const fe_attr tensor_attrs[] = {
    SCALAR(HIPDNN_ATTR_TENSOR_UNIQUE_ID, I64, FE_W_I64, "uid", 0, 0),
    STRING(HIPDNN_ATTR_TENSOR_NAME_EXT, "name", 1, 0, 4096),
    {.id = HIPDNN_ATTR_TENSOR_DATA_TYPE, .name = "HIPDNN_ATTR_TENSOR_DATA_TYPE",
     .type = HIPDNN_TYPE_DATA_TYPE, .shape = FE_ONE, .flags = FE_REQ, .min_n = 1, .max_n = 1,
     .field = "data_type", .wire = FE_W_DTYPE, .fb_id = 2},
    ARRAY(HIPDNN_ATTR_TENSOR_STRIDES, I64, FE_W_I64S, "strides", 3, FE_REQ, 1, FE_MAX_RANK),
    ARRAY(HIPDNN_ATTR_TENSOR_DIMENSIONS, I64, FE_W_I64S, "dims", 4, FE_REQ, 1, FE_MAX_RANK),
    SCALAR(HIPDNN_ATTR_TENSOR_IS_VIRTUAL, BOOL, FE_W_BOOL, "virtual", 5, 0),
    {.id = HIPDNN_ATTR_TENSOR_VALUE_EXT, .name = "HIPDNN_ATTR_TENSOR_VALUE_EXT",
     .type = HIPDNN_TYPE_CHAR, .shape = FE_STRING, .min_n = 1, .max_n = 8, .wire = FE_W_NONE,
     .fb_id = -1, .set = set_value, .get = get_value},
    {.id = HIPDNN_ATTR_TENSOR_IS_BY_VALUE, .name = "HIPDNN_ATTR_TENSOR_IS_BY_VALUE", .type = BOOL,
     .shape = FE_ONE, .flags = FE_GET_ONLY, .min_n = 1, .max_n = 1, .fb_id = -1,
     .get = get_is_by_value},
    SCALAR(HIPDNN_ATTR_TENSOR_IS_RUNTIME_PASS_BY_VALUE_EXT, BOOL, FE_W_BOOL,
           "is_runtime_pass_by_value", 8, 0),
    {.id = HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC, .name = "HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC", .type = I64,
     .shape = FE_ONE, .flags = FE_NULL | FE_ANY_TYPE, .min_n = 1, .max_n = 1, .field = "ragged_offset_tensor_uid",
     .wire = FE_W_I64, .fb_id = 9, .set = set_ragged, .get = get_ragged},
    /* the offset tensor's descriptor: not on the wire (the uid is; the graph lists the tensor) */
    {.id = HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_TENSOR_EXT, .name = "HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_TENSOR_EXT",
     .type = DESC, .shape = FE_ONE, .min_n = 1, .max_n = 1, .desc = HIPDNN_BACKEND_TENSOR_DESCRIPTOR,
     .wire = FE_W_NONE, .fb_id = -1, .set = set_ragged_tensor},
    {.id = HIPDNN_ATTR_TENSOR_BYTE_ALIGNMENT, .name = "HIPDNN_ATTR_TENSOR_BYTE_ALIGNMENT", .type = I64,
     .shape = FE_ONE, .min_n = 1, .max_n = 1, .field = "alignment", .wire = FE_W_I64, .fb_id = 10,
     .wire_dflt = 16},
    {.id = HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_MULTIPLIER,
     .name = "HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_MULTIPLIER", .type = I64, .shape = FE_ONE,
     .min_n = 1, .max_n = 1, .field = "ragged_offset_multiplier", .wire = FE_W_I64, .fb_id = 11,
     .wire_dflt = 1},
};

/* ---- finalize ----------------------------------------------------------------------------------- */

#define TFAIL(...) base_fail(HIPDNN_STATUS_BAD_PARAM, "HIPDNN_BACKEND_TENSOR_DESCRIPTOR " __VA_ARGS__)

/* Bytes of `elems` elements of type t (packed 4-bit types: two a byte); false on overflow. */
static bool bytes_of(hipdnnDataType_t t, int64_t elems, int64_t *bytes)
{
    size_t es = fe_dtype_size(t);
    if (es == 0) {
        *bytes = elems / 2 + elems % 2;
        return true;
    }
    return !__builtin_mul_overflow(elems, (int64_t)es, bytes);
}

/* Dims > 0, strides >= 0, and the element count and the extent (the span the strides reach)
 * within HIPDNN_MAX_TENSOR_BYTES_EXT bytes of type t. */
static hipdnnStatus_t check_layout(int64_t uid, hipdnnDataType_t t, int rank, const int64_t *dims,
                                   const int64_t *strides)
{
    int64_t extent = 0, count = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] <= 0)
            return TFAIL("uid %lld: dimension %d is %lld, must be > 0", (long long)uid, i,
                         (long long)dims[i]);
        if (strides[i] < 0)
            return TFAIL("uid %lld: stride %d is %lld, must be >= 0", (long long)uid, i,
                         (long long)strides[i]);
        int64_t span;
        if (__builtin_mul_overflow(dims[i] - 1, strides[i], &span) ||
            __builtin_add_overflow(extent, span, &extent) ||
            __builtin_mul_overflow(count, dims[i], &count))
            return TFAIL("uid %lld: the tensor's extent overflows int64", (long long)uid);
    }
    int64_t bytes, span;
    if (!bytes_of(t, count, &bytes) || !bytes_of(t, extent + (extent < INT64_MAX), &span) ||
        bytes > HIPDNN_MAX_TENSOR_BYTES_EXT || span > HIPDNN_MAX_TENSOR_BYTES_EXT)
        return TFAIL("uid %lld: %lld elements of %s (reaching %lld elements in memory) are more "
                     "than the %lld bytes a tensor may have", (long long)uid, (long long)count,
                     fe_dtype_name(t), (long long)extent + 1, (long long)HIPDNN_MAX_TENSOR_BYTES_EXT);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t tensor_finalize(fe_obj *o)
{
    fe_tensor_view t = fe_tensor(o);
    long long uid = (long long)t.uid;
    int n_strides = (int)fe_get(o, HIPDNN_ATTR_TENSOR_STRIDES)->n;
    if (n_strides != t.rank)
        return TFAIL("uid %lld: %d dimensions but %d strides", uid, t.rank, n_strides);
    hipdnnStatus_t st = check_layout(t.uid, t.dtype, t.rank, t.dims, t.strides);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    bool runtime = fe_get(o, HIPDNN_ATTR_TENSOR_IS_RUNTIME_PASS_BY_VALUE_EXT)->one.b;
    if (t.is_virtual && (t.by_value || runtime))
        return TFAIL("uid %lld: a virtual tensor cannot be passed by value", uid);
    if (t.by_value && runtime)
        return TFAIL("uid %lld: has a constant value and is also a run-time parameter", uid);
    if (t.by_value || runtime) {
        for (int i = 0; i < t.rank; i++)
            if (t.dims[i] != 1)
                return TFAIL("uid %lld: a by-value scalar must have all dimensions 1", uid);
        if (runtime && !by_value_type(t.dtype))
            return TFAIL("uid %lld: %s cannot be passed by value", uid, fe_dtype_name(t.dtype));
    }
    fe_val *ro = fe_get(o, HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC);
    if (ro->n > 0 && ro->one.i64 == t.uid)
        return TFAIL("uid %lld: HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC names the tensor itself", uid);
    fe_val *al = fe_get(o, HIPDNN_ATTR_TENSOR_BYTE_ALIGNMENT);
    if (al->n > 0 && (al->one.i64 <= 0 || (al->one.i64 & (al->one.i64 - 1)) != 0))
        return TFAIL("uid %lld: HIPDNN_ATTR_TENSOR_BYTE_ALIGNMENT %lld is not a power of two", uid,
                     (long long)al->one.i64);
    return HIPDNN_STATUS_SUCCESS;
}

fe_tensor_view fe_tensor(fe_obj *o)
{
    fe_val *dims = fe_get(o, HIPDNN_ATTR_TENSOR_DIMENSIONS);
    return (fe_tensor_view){
        .uid = fe_get(o, HIPDNN_ATTR_TENSOR_UNIQUE_ID)->one.i64,
        .dtype = (hipdnnDataType_t)fe_get(o, HIPDNN_ATTR_TENSOR_DATA_TYPE)->one.e,
        .rank = (int)dims->n,
        .dims = dims->arr,
        .strides = fe_get(o, HIPDNN_ATTR_TENSOR_STRIDES)->arr,
        .is_virtual = fe_get(o, HIPDNN_ATTR_TENSOR_IS_VIRTUAL)->one.b,
        .by_value = fe_get(o, HIPDNN_ATTR_TENSOR_VALUE_EXT)->n > 0,
    };
}

const fe_class fe_tensor_class = {
    .type = HIPDNN_BACKEND_TENSOR_DESCRIPTOR,
    .name = "HIPDNN_BACKEND_TENSOR_DESCRIPTOR",
    .attrs = tensor_attrs,
    .n_attrs = FE_COUNT(tensor_attrs),
    .table = "TensorAttributes",
    .finalize = tensor_finalize,
};
