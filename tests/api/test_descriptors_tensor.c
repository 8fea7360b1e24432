/* test_descriptors_tensor.c — the TENSOR descriptor through the public API: by-value scalars
 * (data type first, exact element size, real and scalar only, boolean bytes), empty names,
 * finalize's layout checks (bad dims and strides, rank above 8; the tensor stays unfinalized and
 * fixable) and required attributes. Part of test_descriptors. Random shapes: the seed is printed.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <hipdnn_backend.h>
#include <pthread.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../common/recipes.h"
#include "../common/tu.h"

#include "td_util.h"

/* ---- tensors ------------------------------------------------------------------------------------------ */

hipdnnBackendDescriptor_t td_new_tensor(int rank, const int64_t *dims, const int64_t *strides,
                                            hipdnnDataType_t dt)
{
    hipdnnBackendDescriptor_t t = NULL;
    int64_t uid = tu_range(1, 1000);
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &uid));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DATA_TYPE, HIPDNN_TYPE_DATA_TYPE, 1, &dt));
    if (rank > 0) {
        TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, rank,
                                        dims));
        TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64, rank,
                                        strides));
    }
    return t;
}

static void random_shape(int rank, int64_t *dims, int64_t *strides)
{
    for (int i = 0; i < rank; i++)
        dims[i] = tu_range(1, 6);
    tu_packed_strides(rank, dims, strides);
}

Test(tensor, value_needs_the_data_type_first)
{
    hipdnnBackendDescriptor_t t = NULL;
    float f = 0.5f;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
    TU_EQ(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR, 4, &f),
          HIPDNN_STATUS_BAD_PARAM);
    cr_expect_neq(strstr(tu_msg(), "HIPDNN_ATTR_TENSOR_DATA_TYPE"), NULL, "message: %s", tu_msg());
    tu_destroy(&t);
}

Test(tensor, value_takes_exactly_the_element_size)
{
    static const struct { hipdnnDataType_t t; int size; } types[] = {
        {HIPDNN_DATA_FLOAT, 4},    {HIPDNN_DATA_DOUBLE, 8},   {HIPDNN_DATA_HALF, 2},
        {HIPDNN_DATA_BFLOAT16, 2}, {HIPDNN_DATA_INT32, 4},    {HIPDNN_DATA_INT64, 8},
        {HIPDNN_DATA_INT8, 1},     {HIPDNN_DATA_UINT8, 1},    {HIPDNN_DATA_BOOLEAN, 1},
        {HIPDNN_DATA_FP8_E4M3, 1}, {HIPDNN_DATA_FP8_E5M2, 1}, {HIPDNN_DATA_FP8_E4M3_FNUZ, 1},
        {HIPDNN_DATA_FP8_E5M2_FNUZ, 1}};
    tu_seed("tensor::value_takes_exactly_the_element_size");
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        int rank = (int)tu_range(1, 8);
        int64_t ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
        unsigned char value[16], back[16];
        tu_bytes(value, sizeof value);
        if (types[i].t == HIPDNN_DATA_BOOLEAN)
            value[0] &= 1;
        hipdnnBackendDescriptor_t t = td_new_tensor(rank, ones, ones, types[i].t);
        int wrong[] = {types[i].size - 1, types[i].size + 1, 16};
        for (int w = 0; w < 3; w++)
            if (wrong[w] > 0)
                TU_EXPECT(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT,
                                                    HIPDNN_TYPE_CHAR, wrong[w], value),
                          HIPDNN_STATUS_BAD_PARAM, "wrong value size");
        TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR,
                                        types[i].size, value));
        TU_OK(hipdnnBackendFinalize(t));
        bool by_value = false;
        int64_t n = 0;
        TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_IS_BY_VALUE, HIPDNN_TYPE_BOOLEAN, 1,
                                        &n, &by_value));
        cr_expect(by_value, "data type %d: IS_BY_VALUE false", (int)types[i].t);
        memset(back, 0xee, sizeof back);
        TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR,
                                        types[i].size, &n, back));
        cr_expect_eq(n, types[i].size, "data type %d: value read back as %lld bytes",
                     (int)types[i].t, (long long)n);
        cr_expect_eq(memcmp(back, value, (size_t)types[i].size), 0,
                     "data type %d: value bytes differ", (int)types[i].t);
        tu_destroy(&t);
    }
    /* packed sub-byte types have no element size: no by-value scalar */
    int64_t one = 1;
    unsigned char b = 1;
    hipdnnBackendDescriptor_t t = td_new_tensor(1, &one, &one, HIPDNN_DATA_FP4_E2M1);
    TU_EQ(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR, 1, &b),
          HIPDNN_STATUS_BAD_PARAM);
    tu_destroy(&t);
}

Test(tensor, is_by_value_is_false_without_a_value)
{
    int64_t dims[8], strides[8];
    tu_seed("tensor::is_by_value_is_false_without_a_value");
    int rank = (int)tu_range(1, 8);
    random_shape(rank, dims, strides);
    hipdnnBackendDescriptor_t t = td_new_tensor(rank, dims, strides, HIPDNN_DATA_FLOAT);
    TU_OK(hipdnnBackendFinalize(t));
    bool by_value = true;
    int64_t n = 0;
    TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_IS_BY_VALUE, HIPDNN_TYPE_BOOLEAN, 1, &n,
                                    &by_value));
    cr_expect_eq(n, 1);
    cr_expect_not(by_value);
    TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR, 0, &n, NULL));
    cr_expect_eq(n, 0, "no value: count %lld", (long long)n);
    tu_destroy(&t);
}

/* A BOOLEAN element is one byte; a caller's byte other than 0 or 1 (here 0x84, found by
 * tests/fuzz/fuzz_api_calls: finalize read it as a C bool, undefined behaviour) is true, and
 * reads back as 1. */
Test(tensor, a_boolean_byte_other_than_0_or_1_is_true)
{
    int64_t dims[] = {2, 3}, strides[] = {3, 1}, n = 0;
    hipdnnBackendDescriptor_t t = td_new_tensor(2, dims, strides, HIPDNN_DATA_FLOAT);
    uint8_t byte = 0x84, back = 0x55;
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_IS_VIRTUAL, HIPDNN_TYPE_BOOLEAN, 1, &byte));
    TU_OK(hipdnnBackendFinalize(t));
    TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_IS_VIRTUAL, HIPDNN_TYPE_BOOLEAN, 1, &n, &back));
    cr_expect_eq(n, 1);
    cr_expect_eq(back, 1, "IS_VIRTUAL set as byte 0x84 reads back as 0x%x", back);
    tu_destroy(&t);
}

/* A name set from no characters and no array (count 0, NULL) is the empty name (found by
 * tests/fuzz/fuzz_api_calls: the NUL check passed the NULL array to memchr, undefined
 * behaviour even for 0 bytes). */
Test(tensor, an_empty_name_from_a_null_array)
{
    int64_t dims[] = {4}, strides[] = {1}, n = -1;
    hipdnnBackendDescriptor_t t = td_new_tensor(1, dims, strides, HIPDNN_DATA_FLOAT);
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_NAME_EXT, HIPDNN_TYPE_CHAR, 3, "abc"));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_NAME_EXT, HIPDNN_TYPE_CHAR, 0, NULL));
    TU_OK(hipdnnBackendFinalize(t));
    char name[8] = "xyz";
    TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_NAME_EXT, HIPDNN_TYPE_CHAR, sizeof name, &n, name));
    cr_expect(n == 1 && name[0] == '\0', "the name reads back as \"%s\" (count %lld)", name, (long long)n);
    tu_destroy(&t);
}

/* Finalize with a broken layout: BAD_PARAM, and the tensor stays unfinalized and fixable. */
static void expect_finalize_fails(hipdnnBackendDescriptor_t t, const char *what)
{
    TU_EXPECT(hipdnnBackendFinalize(t), HIPDNN_STATUS_BAD_PARAM, what);
    int64_t n = 0, uid;
    TU_EXPECT(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &n,
                                        &uid),
              HIPDNN_STATUS_NOT_INITIALIZED, what);
}

Test(tensor, finalize_rejects_bad_dims_and_strides)
{
    tu_seed("tensor::finalize_rejects_bad_dims_and_strides");
    for (int round = 0; round < 20; round++) {
        int64_t dims[8], strides[8];
        int rank = (int)tu_range(1, 8), at = (int)tu_range(0, rank - 1);
        random_shape(rank, dims, strides);
        int64_t bad_dim = tu_rand() & 1 ? 0 : -tu_range(1, 100);
        int64_t saved = dims[at];
        dims[at] = bad_dim;
        hipdnnBackendDescriptor_t t = td_new_tensor(rank, dims, strides, HIPDNN_DATA_HALF);
        expect_finalize_fails(t, "dimension <= 0");
        dims[at] = saved; /* fixed: finalize works */
        TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, rank,
                                        dims));
        TU_OK(hipdnnBackendFinalize(t));
        tu_destroy(&t);

        strides[at] = -tu_range(1, 100);
        t = td_new_tensor(rank, dims, strides, HIPDNN_DATA_HALF);
        expect_finalize_fails(t, "negative stride");
        tu_destroy(&t);
        tu_packed_strides(rank, dims, strides);

        /* strides of another rank */
        int other = rank == 8 ? 7 : rank + 1;
        int64_t more[8] = {1, 1, 1, 1, 1, 1, 1, 1};
        t = td_new_tensor(rank, dims, strides, HIPDNN_DATA_HALF);
        TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64, other,
                                        more));
        expect_finalize_fails(t, "rank of strides differs");
        tu_destroy(&t);
    }
}

Test(tensor, rank_above_8_is_refused)
{
    int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    hipdnnBackendDescriptor_t t = td_new_tensor(0, NULL, NULL, HIPDNN_DATA_FLOAT);
    hipdnnStatus_t a = hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS,
                                                 HIPDNN_TYPE_INT64, 9, nine);
    hipdnnStatus_t b = hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64,
                                                 9, nine);
    /* refused when set, or else at finalize */
    if (a == HIPDNN_STATUS_SUCCESS && b == HIPDNN_STATUS_SUCCESS)
        TU_EQ(hipdnnBackendFinalize(t), HIPDNN_STATUS_BAD_PARAM);
    else
        cr_expect(a == HIPDNN_STATUS_BAD_PARAM || b == HIPDNN_STATUS_BAD_PARAM, "%s / %s",
                  tu_st(a), tu_st(b));
    cr_expect_neq(hipdnnBackendFinalize(t), HIPDNN_STATUS_SUCCESS, "rank 9 finalized");
    tu_destroy(&t);
}

Test(tensor, by_value_must_be_real_and_scalar)
{
    tu_seed("tensor::by_value_must_be_real_and_scalar");
    float f = tu_float(-1, 1);
    bool yes = true;
    int rank = (int)tu_range(1, 8);
    int64_t ones[8] = {1, 1, 1, 1, 1, 1, 1, 1}, dims[8], strides[8];
    /* virtual and by value */
    hipdnnBackendDescriptor_t t = td_new_tensor(rank, ones, ones, HIPDNN_DATA_FLOAT);
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR, 4, &f));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_IS_VIRTUAL, HIPDNN_TYPE_BOOLEAN, 1, &yes));
    expect_finalize_fails(t, "virtual by-value");
    tu_destroy(&t);
    /* by value with a dimension other than 1 */
    memcpy(dims, ones, sizeof dims);
    dims[tu_range(0, rank - 1)] = tu_range(2, 9);
    tu_packed_strides(rank, dims, strides);
    t = td_new_tensor(rank, dims, strides, HIPDNN_DATA_FLOAT);
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR, 4, &f));
    expect_finalize_fails(t, "by-value with a dim != 1");
    tu_destroy(&t);
    /* a compile-time value that is also a run-time parameter */
    t = td_new_tensor(rank, ones, ones, HIPDNN_DATA_FLOAT);
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR, 4, &f));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_IS_RUNTIME_PASS_BY_VALUE_EXT,
                                    HIPDNN_TYPE_BOOLEAN, 1, &yes));
    expect_finalize_fails(t, "constant and run-time by-value");
    tu_destroy(&t);
}

Test(tensor, required_attributes)
{
    int64_t dims[2] = {3, 4}, strides[2] = {4, 1};
    hipdnnDataType_t dt = HIPDNN_DATA_HALF;
    struct { bool dt, dims, strides; const char *missing; } cases[] = {
        {false, true, true, "HIPDNN_ATTR_TENSOR_DATA_TYPE"},
        {true, false, true, "HIPDNN_ATTR_TENSOR_DIMENSIONS"},
        {true, true, false, "HIPDNN_ATTR_TENSOR_STRIDES"},
    };
    for (int i = 0; i < 3; i++) {
        hipdnnBackendDescriptor_t t = NULL;
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
        if (cases[i].dt)
            TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DATA_TYPE, HIPDNN_TYPE_DATA_TYPE,
                                            1, &dt));
        if (cases[i].dims)
            TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, 2,
                                            dims));
        if (cases[i].strides)
            TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64, 2,
                                            strides));
        TU_EXPECT(hipdnnBackendFinalize(t), HIPDNN_STATUS_BAD_PARAM, cases[i].missing);
        cr_expect_neq(strstr(tu_msg(), cases[i].missing), NULL, "message '%s'", tu_msg());
        tu_destroy(&t);
    }
}

