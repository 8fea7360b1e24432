/* os_util.c — the descriptor pool, tensor builder, setters and finalize expectations shared by
 * the test_fe_op_shapes files (os_util.h). Public API only.
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipdnn_backend.h"

#include "os_util.h"

/* ---- descriptor pool: everything a test makes is destroyed by its fini ------------------------ */

static desc *pool;
static int n_pool, cap_pool;

static desc track(desc d)
{
    if (n_pool == cap_pool) {
        cap_pool = cap_pool ? 2 * cap_pool : 64;
        pool = realloc(pool, (size_t)cap_pool * sizeof *pool);
        cr_assert_not_null(pool);
    }
    pool[n_pool++] = d;
    return d;
}

void os_pool_free(void)
{
    while (n_pool > 0)
        hipdnnBackendDestroyDescriptor(pool[--n_pool]);
    free(pool);
    pool = NULL;
    cap_pool = 0;
}

/* ---- tensors -------------------------------------------------------------------------------------- */

int os_layout = ROW_MAJOR;
static int64_t g_uid;

static void strides_for(int rank, const int64_t *dims, int64_t *s)
{
    int64_t acc = 1;
    for (int k = 0; k < rank; k++) {
        int i = os_layout == REVERSED ? k : rank - 1 - k;
        s[i] = acc;
        acc *= dims[i];
    }
    for (int i = 0; os_layout == ODD_UNIT_STRIDES && i < rank; i++)
        if (dims[i] == 1)
            s[i] = 3331333; /* meaningless: a rule that reads it is wrong */
}

void os_check(hipdnnStatus_t st, const char *what)
{
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH] = "";
    if (st != HIPDNN_STATUS_SUCCESS)
        hipdnnGetLastErrorString(msg, sizeof msg);
    cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "%s: %s: %s", what, hipdnnGetErrorString(st), msg);
}

/* A finalized tensor; `value` (size bytes) makes it a by-value scalar. */
desc os_tensor(hipdnnDataType_t dt, int rank, const int64_t *dims, const void *value, int size)
{
    desc t;
    int64_t uid = ++g_uid, strides[8];
    strides_for(rank, dims, strides);
    os_check(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &t), "create tensor");
    track(t);
    os_check(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &uid), "uid");
    os_check(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DATA_TYPE, HIPDNN_TYPE_DATA_TYPE, 1, &dt), "dtype");
    os_check(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, rank, dims), "dims");
    os_check(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64, rank, strides), "strides");
    if (value != NULL)
        os_check(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR, size, value), "value");
    os_check(hipdnnBackendFinalize(t), "finalize tensor");
    return t;
}

desc os_scalar_f32(float v) { return os_tensor(HIPDNN_DATA_FLOAT, DIMS(1, 1, 1, 1), &v, 4); }
desc os_scalar_i64(int64_t v) { return os_tensor(HIPDNN_DATA_INT64, DIMS(1, 1, 1, 1), &v, 8); }

/* ---- operations ---------------------------------------------------------------------------------- */

desc os_op_new(hipdnnBackendDescriptorType_t type)
{
    desc op;
    os_check(hipdnnBackendCreateDescriptor(type, &op), "create op");
    return track(op);
}

void os_set(desc op, hipdnnBackendAttributeName_t a, hipdnnBackendAttributeType_t type,
            int64_t n, const void *v)
{
    os_check(hipdnnBackendSetAttribute(op, a, type, n, v), "set attribute");
}
void os_set_t(desc op, hipdnnBackendAttributeName_t a, desc t)
{
    os_set(op, a, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t);
}
void os_set_i64(desc op, hipdnnBackendAttributeName_t a, int64_t v) { os_set(op, a, HIPDNN_TYPE_INT64, 1, &v); }
void os_set_i32(desc op, hipdnnBackendAttributeName_t a, int32_t v) { os_set(op, a, HIPDNN_TYPE_INT32, 1, &v); }
void os_set_f32(desc op, hipdnnBackendAttributeName_t a, float v) { os_set(op, a, HIPDNN_TYPE_FLOAT, 1, &v); }
void os_set_bool(desc op, hipdnnBackendAttributeName_t a, bool v) { os_set(op, a, HIPDNN_TYPE_BOOLEAN, 1, &v); }
void os_set_enum(desc op, hipdnnBackendAttributeName_t a, hipdnnBackendAttributeType_t type, int v)
{
    os_set(op, a, type, 1, &v);
}
void os_set_dtype(desc op, hipdnnBackendAttributeName_t a) { os_set_enum(op, a, HIPDNN_TYPE_DATA_TYPE, HIPDNN_DATA_FLOAT); }

void os_expect_ok(desc op)
{
    os_check(hipdnnBackendFinalize(op), "finalize op");
}

/* Finalize fails with BAD_PARAM, the message names an operation descriptor type and contains
 * `needle`, and the op stays unfinalized: finalizing again fails the same way. */
void os_expect_bad(desc op, const char *needle)
{
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH], again[HIPDNN_ERROR_STRING_MAX_LENGTH];
    hipdnnStatus_t st = hipdnnBackendFinalize(op);
    hipdnnGetLastErrorString(msg, sizeof msg);
    cr_assert_eq(st, HIPDNN_STATUS_BAD_PARAM, "status %s, message \"%s\" (wanted \"%s\")",
                 hipdnnGetErrorString(st), msg, needle);
    cr_assert(strncmp(msg, "HIPDNN_BACKEND_OPERATION_", 25) == 0, "no descriptor type in \"%s\"", msg);
    cr_assert(strstr(msg, needle) != NULL, "message \"%s\" lacks \"%s\"", msg, needle);
    st = hipdnnBackendFinalize(op);
    hipdnnGetLastErrorString(again, sizeof again);
    cr_assert_eq(st, HIPDNN_STATUS_BAD_PARAM);
    cr_assert_str_eq(again, msg, "second finalize: \"%s\"", again);
}

