/* test_fe_op_shapes.c — finalize-time rules of every operation descriptor (fe_check*.c).
 *
 * Written against the public API only (hipdnn_backend.h): tensors are built and finalized,
 * an operation is given a valid set of attributes by a mk_* builder, one attribute is then
 * replaced or added, and finalize must fail with BAD_PARAM and a message that names the
 * descriptor type and the problem. A failed finalize must leave the op unfinalized (a second
 * finalize fails the same way, a fix then finalizes). Every valid builder also runs with
 * tensors in reversed stride order and with garbage strides on size-1 dims: rules read dims
 * only. Shapes use the letters of op-semantics.md (B, H, S, D; N, C, K; M, N, K).
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipdnn_backend.h"

typedef hipdnnBackendDescriptor_t desc;

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

static void pool_free(void)
{
    while (n_pool > 0)
        hipdnnBackendDestroyDescriptor(pool[--n_pool]);
    free(pool);
    pool = NULL;
    cap_pool = 0;
}

#define T(suite, name) Test(suite, name, .fini = pool_free)

/* ---- tensors -------------------------------------------------------------------------------------- */

/* Stride order of the tensors ten() makes. */
enum { ROW_MAJOR, REVERSED, ODD_UNIT_STRIDES, N_LAYOUTS };
static int g_layout = ROW_MAJOR;
static int64_t g_uid;

static void strides_for(int rank, const int64_t *dims, int64_t *s)
{
    int64_t acc = 1;
    for (int k = 0; k < rank; k++) {
        int i = g_layout == REVERSED ? k : rank - 1 - k;
        s[i] = acc;
        acc *= dims[i];
    }
    for (int i = 0; g_layout == ODD_UNIT_STRIDES && i < rank; i++)
        if (dims[i] == 1)
            s[i] = 3331333; /* meaningless: a rule that reads it is wrong */
}

static void check(hipdnnStatus_t st, const char *what)
{
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH] = "";
    if (st != HIPDNN_STATUS_SUCCESS)
        hipdnnGetLastErrorString(msg, sizeof msg);
    cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "%s: %s: %s", what, hipdnnGetErrorString(st), msg);
}

/* A finalized tensor; `value` (size bytes) makes it a by-value scalar. */
static desc tensor(hipdnnDataType_t dt, int rank, const int64_t *dims, const void *value, int size)
{
    desc t;
    int64_t uid = ++g_uid, strides[8];
    strides_for(rank, dims, strides);
    check(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &t), "create tensor");
    track(t);
    check(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &uid), "uid");
    check(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DATA_TYPE, HIPDNN_TYPE_DATA_TYPE, 1, &dt), "dtype");
    check(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, rank, dims), "dims");
    check(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64, rank, strides), "strides");
    if (value != NULL)
        check(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR, size, value), "value");
    check(hipdnnBackendFinalize(t), "finalize tensor");
    return t;
}

#define DIMS(...) (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (const int64_t[]){__VA_ARGS__}
#define TEN(dt, ...) tensor(dt, DIMS(__VA_ARGS__), NULL, 0)
#define F32(...) TEN(HIPDNN_DATA_FLOAT, __VA_ARGS__)
#define I32(...) TEN(HIPDNN_DATA_INT32, __VA_ARGS__)

static desc scalar_f32(float v) { return tensor(HIPDNN_DATA_FLOAT, DIMS(1, 1, 1, 1), &v, 4); }
static desc scalar_i64(int64_t v) { return tensor(HIPDNN_DATA_INT64, DIMS(1, 1, 1, 1), &v, 8); }

/* ---- operations ---------------------------------------------------------------------------------- */

static desc op_new(hipdnnBackendDescriptorType_t type)
{
    desc op;
    check(hipdnnBackendCreateDescriptor(type, &op), "create op");
    return track(op);
}

static void set(desc op, hipdnnBackendAttributeName_t a, hipdnnBackendAttributeType_t type,
                int64_t n, const void *v)
{
    check(hipdnnBackendSetAttribute(op, a, type, n, v), "set attribute");
}
static void set_t(desc op, hipdnnBackendAttributeName_t a, desc t)
{
    set(op, a, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t);
}
static void set_i64(desc op, hipdnnBackendAttributeName_t a, int64_t v) { set(op, a, HIPDNN_TYPE_INT64, 1, &v); }
static void set_i32(desc op, hipdnnBackendAttributeName_t a, int32_t v) { set(op, a, HIPDNN_TYPE_INT32, 1, &v); }
static void set_f32(desc op, hipdnnBackendAttributeName_t a, float v) { set(op, a, HIPDNN_TYPE_FLOAT, 1, &v); }
static void set_bool(desc op, hipdnnBackendAttributeName_t a, bool v) { set(op, a, HIPDNN_TYPE_BOOLEAN, 1, &v); }
static void set_enum(desc op, hipdnnBackendAttributeName_t a, hipdnnBackendAttributeType_t type, int v)
{
    set(op, a, type, 1, &v);
}
static void set_dtype(desc op, hipdnnBackendAttributeName_t a) { set_enum(op, a, HIPDNN_TYPE_DATA_TYPE, HIPDNN_DATA_FLOAT); }
#define SET_I64S(op, a, ...) set(op, a, HIPDNN_TYPE_INT64, DIMS(__VA_ARGS__))
#define SET_I32S(op, a, ...) set(op, a, HIPDNN_TYPE_INT32, (int)(sizeof((int32_t[]){__VA_ARGS__}) / 4), (const int32_t[]){__VA_ARGS__})

static void expect_ok(desc op)
{
    check(hipdnnBackendFinalize(op), "finalize op");
}

/* Finalize fails with BAD_PARAM, the message names an operation descriptor type and contains
 * `needle`, and the op stays unfinalized: finalizing again fails the same way. */
static void expect_bad(desc op, const char *needle)
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

/* ==== pointwise ==================================================================================== */

#define PW_MODE HIPDNN_ATTR_POINTWISE_MODE
#define PW_IN0 HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT
#define PW_IN1 HIPDNN_ATTR_OPERATION_POINTWISE_IN_1_EXT
#define PW_IN2 HIPDNN_ATTR_OPERATION_POINTWISE_IN_2_EXT
#define PW_OUT HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT

static desc pw(hipdnnPointwiseMode_t mode, desc in0, desc in1, desc in2, desc out)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    set_enum(op, PW_MODE, HIPDNN_TYPE_POINTWISE_MODE, mode);
    set_t(op, PW_IN0, in0);
    if (in1)
        set_t(op, PW_IN1, in1);
    if (in2)
        set_t(op, PW_IN2, in2);
    set_t(op, PW_OUT, out);
    return op;
}

/* ADD with broadcasting: [2,3,4] + [1,3,1] -> [2,3,4] */
static desc mk_pw_add(void) { return pw(HIPDNN_POINTWISE_ADD, F32(2, 3, 4), F32(1, 3, 1), NULL, F32(2, 3, 4)); }
static desc mk_pw_relu(void)
{
    desc op = pw(HIPDNN_POINTWISE_RELU_FWD, F32(2, 3), NULL, NULL, F32(2, 3));
    set_f32(op, HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, 0.0f);
    set_f32(op, HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, 6.0f);
    return op;
}
static desc mk_pw_relu_bwd(void) { return pw(HIPDNN_POINTWISE_RELU_BWD, F32(2, 3), F32(2, 3), NULL, F32(2, 3)); }
static desc mk_pw_select(void)
{
    return pw(HIPDNN_POINTWISE_BINARY_SELECT, F32(2, 3), F32(1, 3), TEN(HIPDNN_DATA_BOOLEAN, 2, 1), F32(2, 3));
}
static desc mk_pw_gen_index(void)
{
    desc op = pw(HIPDNN_POINTWISE_GEN_INDEX, F32(4, 8), NULL, NULL, I32(4, 8));
    set_i64(op, HIPDNN_ATTR_POINTWISE_AXIS, 1);
    return op;
}
/* all inputs may be 1 where the output is not: broadcasting onto the output */
static desc mk_pw_scalar_mul(void) { return pw(HIPDNN_POINTWISE_MUL, F32(1, 1), F32(1, 7), NULL, F32(5, 7)); }

T(pointwise, valid) { expect_ok(mk_pw_add()); }
T(pointwise, valid_unary_binary_ternary_gen_index)
{
    expect_ok(mk_pw_relu());
    expect_ok(mk_pw_relu_bwd());
    expect_ok(mk_pw_select());
    expect_ok(mk_pw_gen_index());
    expect_ok(mk_pw_scalar_mul());
}
T(pointwise, unary_with_in1)
{
    desc op = mk_pw_relu();
    set_t(op, PW_IN1, F32(2, 3));
    expect_bad(op, "IN_1 must not be set");
}
T(pointwise, unary_with_in2)
{
    desc op = mk_pw_relu();
    set_t(op, PW_IN2, F32(2, 3));
    expect_bad(op, "IN_2 must not be set");
}
T(pointwise, binary_without_in1) { expect_bad(pw(HIPDNN_POINTWISE_ADD, F32(2, 3), NULL, NULL, F32(2, 3)), "IN_1 is not set"); }
T(pointwise, binary_with_in2)
{
    desc op = mk_pw_add();
    set_t(op, PW_IN2, F32(2, 3, 4));
    expect_bad(op, "IN_2 must not be set");
}
T(pointwise, bwd_without_in1)
{
    expect_bad(pw(HIPDNN_POINTWISE_SIGMOID_BWD, F32(2, 3), NULL, NULL, F32(2, 3)), "IN_1 is not set");
}
T(pointwise, select_without_in2)
{
    expect_bad(pw(HIPDNN_POINTWISE_BINARY_SELECT, F32(2, 3), F32(2, 3), NULL, F32(2, 3)), "IN_2 is not set");
}
T(pointwise, rank_mismatch)
{
    desc op = mk_pw_add();
    set_t(op, PW_IN1, F32(3, 1));
    expect_bad(op, "IN_1 [3,1] has rank 2, OUT_0 [2,3,4] has rank 3");
}
T(pointwise, no_broadcast)
{
    desc op = mk_pw_add();
    set_t(op, PW_IN1, F32(1, 2, 1));
    expect_bad(op, "IN_1 [1,2,1] does not broadcast to OUT_0 [2,3,4]: dim 1 is 2, must be 3 or 1");
}
T(pointwise, output_smaller_than_input)
{
    expect_bad(pw(HIPDNN_POINTWISE_ADD, F32(2, 3, 4), F32(1, 1, 1), NULL, F32(2, 1, 4)),
               "IN_0 [2,3,4] does not broadcast to OUT_0 [2,1,4]");
}
T(pointwise, select_predicate_no_broadcast)
{
    desc op = mk_pw_select();
    set_t(op, PW_IN2, TEN(HIPDNN_DATA_BOOLEAN, 3, 3));
    expect_bad(op, "IN_2 [3,3] does not broadcast");
}
T(pointwise, gen_index_without_axis)
{
    expect_bad(pw(HIPDNN_POINTWISE_GEN_INDEX, F32(4, 8), NULL, NULL, I32(4, 8)), "GEN_INDEX needs HIPDNN_ATTR_POINTWISE_AXIS");
}
T(pointwise, gen_index_axis_out_of_range)
{
    desc op = mk_pw_gen_index();
    set_i64(op, HIPDNN_ATTR_POINTWISE_AXIS, 2);
    expect_bad(op, "HIPDNN_ATTR_POINTWISE_AXIS 2 is outside [0, 2)");
    op = mk_pw_gen_index();
    set_i64(op, HIPDNN_ATTR_POINTWISE_AXIS, -1);
    expect_bad(op, "HIPDNN_ATTR_POINTWISE_AXIS -1 is outside [0, 2)");
}
T(pointwise, relu_clips_inverted)
{
    desc op = mk_pw_relu();
    set_f32(op, HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, 7.0f);
    expect_bad(op, "HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP 7 exceeds HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP 6");
}
T(pointwise, relu_bwd_clips_inverted)
{
    desc op = mk_pw_relu_bwd();
    set_f32(op, HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, 1.0f);
    set_f32(op, HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, 0.5f);
    expect_bad(op, "RELU_LOWER_CLIP 1 exceeds");
}

/* ==== matmul ======================================================================================== */

#define MM_A HIPDNN_ATTR_OPERATION_MATMUL_ADESC
#define MM_B HIPDNN_ATTR_OPERATION_MATMUL_BDESC
#define MM_C HIPDNN_ATTR_OPERATION_MATMUL_CDESC

static desc matmul(desc a, desc b, desc c)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT);
    set_t(op, MM_A, a);
    set_t(op, MM_B, b);
    set_t(op, MM_C, c);
    set_dtype(op, HIPDNN_ATTR_MATMUL_COMP_TYPE);
    return op;
}
static desc mk_matmul(void) { return matmul(F32(4, 64, 32), F32(4, 32, 16), F32(4, 64, 16)); }
/* GQA-style grouped broadcast (Q x K^T, Hq 8, Hk 2) and plain broadcast of a batch of 1 */
static desc mk_matmul_grouped(void) { return matmul(F32(2, 8, 16, 32), F32(2, 2, 32, 16), F32(2, 8, 16, 16)); }
static desc mk_matmul_bcast(void) { return matmul(F32(1, 64, 32), F32(4, 32, 16), F32(4, 64, 16)); }
static desc mk_matmul_2d(void) { return matmul(F32(3, 5), F32(5, 7), F32(3, 7)); }

T(matmul, valid)
{
    expect_ok(mk_matmul());
    expect_ok(mk_matmul_grouped());
    expect_ok(mk_matmul_bcast());
    expect_ok(mk_matmul_2d());
}
T(matmul, rank_below_two) { expect_bad(matmul(F32(5), F32(5), F32(1)), "same rank >= 2"); }
T(matmul, rank_mismatch)
{
    desc op = mk_matmul();
    set_t(op, MM_B, F32(32, 16));
    expect_bad(op, "A [4,64,32], B [32,16] and C [4,64,16] must have the same rank >= 2");
}
T(matmul, k_mismatch)
{
    desc op = mk_matmul();
    set_t(op, MM_B, F32(4, 48, 16));
    expect_bad(op, "HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT: A [4,64,32] and B [4,48,16] disagree on K (32 vs 48)");
}
T(matmul, m_mismatch)
{
    desc op = mk_matmul();
    set_t(op, MM_C, F32(4, 60, 16));
    expect_bad(op, "C [4,60,16] and A [4,64,32] disagree on M (60 vs 64)");
}
T(matmul, n_mismatch)
{
    desc op = mk_matmul();
    set_t(op, MM_C, F32(4, 64, 17));
    expect_bad(op, "disagree on N (17 vs 16)");
}
T(matmul, batch_a)
{
    desc op = mk_matmul();
    set_t(op, MM_A, F32(3, 64, 32));
    expect_bad(op, "batch dim 0 of A [3,64,32] is 3");
}
T(matmul, batch_b_larger_than_c)
{
    desc op = mk_matmul();
    set_t(op, MM_B, F32(8, 32, 16));
    expect_bad(op, "batch dim 0 of B [8,32,16] is 8");
}
T(matmul, grouped_heads_not_dividing)
{
    desc op = mk_matmul_grouped();
    set_t(op, MM_B, F32(2, 3, 32, 16));
    expect_bad(op, "batch dim 1 of B [2,3,32,16]");
}

/* ==== convolutions ================================================================================== */

static void conv_params(desc op, int nsp, const int64_t *pre, const int64_t *post, const int64_t *stride,
                        const int64_t *dil)
{
    set(op, HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS, HIPDNN_TYPE_INT64, nsp, pre);
    set(op, HIPDNN_ATTR_CONVOLUTION_POST_PADDINGS, HIPDNN_TYPE_INT64, nsp, post);
    set(op, HIPDNN_ATTR_CONVOLUTION_FILTER_STRIDES, HIPDNN_TYPE_INT64, nsp, stride);
    set(op, HIPDNN_ATTR_CONVOLUTION_DILATIONS, HIPDNN_TYPE_INT64, nsp, dil);
    set_enum(op, HIPDNN_ATTR_CONVOLUTION_CONV_MODE, HIPDNN_TYPE_CONVOLUTION_MODE, HIPDNN_CROSS_CORRELATION);
    set_dtype(op, HIPDNN_ATTR_CONVOLUTION_COMP_TYPE);
}

static desc conv_fwd(desc x, desc w, desc y)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, x);
    set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, w);
    set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, y);
    return op;
}
/* X [2,8,10,10], W [16,4,3,3] (2 groups), pad 1, stride 2 -> Y [2,16,5,5] */
static desc mk_conv_fwd(void)
{
    desc op = conv_fwd(F32(2, 8, 10, 10), F32(16, 4, 3, 3), F32(2, 16, 5, 5));
    conv_params(op, 2, (int64_t[]){1, 1}, (int64_t[]){1, 1}, (int64_t[]){2, 2}, (int64_t[]){1, 1});
    return op;
}
/* 3-D, depthwise-free, no padding: 6 - 3 + 1 = 4 */
static desc mk_conv_fwd_3d(void)
{
    desc op = conv_fwd(F32(1, 4, 6, 6, 6), F32(8, 4, 3, 3, 3), F32(1, 8, 4, 4, 4));
    conv_params(op, 3, (int64_t[]){0, 0, 0}, (int64_t[]){0, 0, 0}, (int64_t[]){1, 1, 1}, (int64_t[]){1, 1, 1});
    return op;
}
/* depthwise (G = C = K = 4), dilation 2, asymmetric padding: 1 + (9 + 1 + 0 - 4 - 1) = 6 */
static desc mk_conv_fwd_depthwise(void)
{
    desc op = conv_fwd(F32(1, 4, 9, 9), F32(4, 1, 3, 3), F32(1, 4, 6, 5));
    conv_params(op, 2, (int64_t[]){1, 0}, (int64_t[]){0, 0}, (int64_t[]){1, 1}, (int64_t[]){2, 2});
    return op;
}
static desc mk_conv_bwd_data(void)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DESCRIPTOR);
    set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, F32(2, 16, 5, 5));
    set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, F32(16, 4, 3, 3));
    set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, F32(2, 8, 10, 10));
    conv_params(op, 2, (int64_t[]){1, 1}, (int64_t[]){1, 1}, (int64_t[]){2, 2}, (int64_t[]){1, 1});
    return op;
}
static desc mk_conv_bwd_filter(void)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR);
    set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, F32(2, 8, 10, 10));
    set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, F32(2, 16, 5, 5));
    set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, F32(16, 4, 3, 3));
    conv_params(op, 2, (int64_t[]){1, 1}, (int64_t[]){1, 1}, (int64_t[]){2, 2}, (int64_t[]){1, 1});
    return op;
}

#define CONV_X HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X
#define CONV_W HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W
#define CONV_Y HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y

T(conv, valid)
{
    expect_ok(mk_conv_fwd());
    expect_ok(mk_conv_fwd_3d());
    expect_ok(mk_conv_fwd_depthwise());
}
T(conv, rank_3)
{
    desc op = conv_fwd(F32(2, 8, 10), F32(16, 8, 3), F32(2, 16, 8));
    conv_params(op, 1, (int64_t[]){0}, (int64_t[]){0}, (int64_t[]){1}, (int64_t[]){1});
    expect_bad(op, "X [2,8,10], W [16,8,3] and Y [2,16,8] must all have rank 4 or all rank 5");
}
T(conv, ranks_differ)
{
    desc op = mk_conv_fwd();
    set_t(op, CONV_W, F32(16, 4, 3, 3, 1));
    expect_bad(op, "must all have rank 4 or all rank 5");
}
T(conv, param_count)
{
    desc op = mk_conv_fwd();
    SET_I64S(op, HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS, 1, 1, 1);
    expect_bad(op, "HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS has 3 entries; the tensors have 2 spatial dims");
    op = mk_conv_fwd();
    SET_I64S(op, HIPDNN_ATTR_CONVOLUTION_DILATIONS, 1);
    expect_bad(op, "HIPDNN_ATTR_CONVOLUTION_DILATIONS has 1 entries");
}
T(conv, stride_zero)
{
    desc op = mk_conv_fwd();
    SET_I64S(op, HIPDNN_ATTR_CONVOLUTION_FILTER_STRIDES, 2, 0);
    expect_bad(op, "HIPDNN_ATTR_CONVOLUTION_FILTER_STRIDES entry 1 is 0, must be >= 1");
}
T(conv, dilation_zero)
{
    desc op = mk_conv_fwd();
    SET_I64S(op, HIPDNN_ATTR_CONVOLUTION_DILATIONS, 0, 1);
    expect_bad(op, "HIPDNN_ATTR_CONVOLUTION_DILATIONS entry 0 is 0, must be >= 1");
}
T(conv, negative_padding)
{
    desc op = mk_conv_fwd();
    SET_I64S(op, HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS, -1, 1);
    expect_bad(op, "HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS entry 0 is -1, must be >= 0");
    op = mk_conv_fwd();
    SET_I64S(op, HIPDNN_ATTR_CONVOLUTION_POST_PADDINGS, 1, -2);
    expect_bad(op, "HIPDNN_ATTR_CONVOLUTION_POST_PADDINGS entry 1 is -2");
}
T(conv, groups_not_whole)
{
    desc op = mk_conv_fwd();
    set_t(op, CONV_W, F32(16, 3, 3, 3));
    expect_bad(op, "C of X [2,8,10,10] (8) is not a multiple of C of W [16,3,3,3] (3)");
}
T(conv, k_not_divisible_by_groups)
{
    desc op = mk_conv_fwd();
    set_t(op, CONV_W, F32(15, 4, 3, 3));
    expect_bad(op, "K of W [15,4,3,3] (15) is not divisible by the group count 2");
}
T(conv, n_mismatch)
{
    desc op = mk_conv_fwd();
    set_t(op, CONV_Y, F32(3, 16, 5, 5));
    expect_bad(op, "N of Y [3,16,5,5] (3) differs from N of X [2,8,10,10] (2)");
}
T(conv, k_mismatch)
{
    desc op = mk_conv_fwd();
    set_t(op, CONV_Y, F32(2, 8, 5, 5));
    expect_bad(op, "channels of Y [2,8,5,5] (8) differ from K of W [16,4,3,3] (16)");
}
T(conv, spatial_mismatch)
{
    desc op = mk_conv_fwd();
    set_t(op, CONV_Y, F32(2, 16, 5, 6));
    expect_bad(op, "spatial dim 1 of Y [2,16,5,6] is 6, but X [2,8,10,10] and W [16,4,3,3] with padding 1+1, "
                   "stride 2, dilation 1 give 5");
}
T(conv, empty_output)
{
    desc op = conv_fwd(F32(1, 4, 2, 2), F32(4, 4, 5, 5), F32(1, 4, 1, 1));
    conv_params(op, 2, (int64_t[]){0, 0}, (int64_t[]){0, 0}, (int64_t[]){1, 1}, (int64_t[]){1, 1});
    expect_bad(op, "spatial dim 0: the dilated filter (5) is larger than the padded input (2)");
}
T(conv_bwd_data, valid)
{
    expect_ok(mk_conv_bwd_data());
    /* stride 2 leaves DX ambiguous: 9 gives the same DY as 10 */
    desc op = mk_conv_bwd_data();
    set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, F32(2, 8, 9, 10));
    expect_ok(op);
}
T(conv_bwd_data, spatial_mismatch)
{
    desc op = mk_conv_bwd_data();
    set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, F32(2, 8, 12, 10));
    expect_bad(op, "spatial dim 0 of DY [2,16,5,5] is 5, but DX [2,8,12,10]");
}
T(conv_bwd_data, channels)
{
    desc op = mk_conv_bwd_data();
    set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, F32(2, 12, 5, 5));
    expect_bad(op, "channels of DY [2,12,5,5] (12) differ from K of W");
}
T(conv_bwd_filter, valid) { expect_ok(mk_conv_bwd_filter()); }
T(conv_bwd_filter, spatial_mismatch)
{
    desc op = mk_conv_bwd_filter();
    set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, F32(16, 4, 5, 5));
    expect_bad(op, "spatial dim 0 of DY [2,16,5,5] is 5, but X [2,8,10,10] and DW [16,4,5,5]");
}
T(conv_bwd_filter, groups)
{
    desc op = mk_conv_bwd_filter();
    set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, F32(16, 3, 3, 3));
    expect_bad(op, "is not a multiple of C of DW [16,3,3,3] (3)");
}

/* ==== batchnorm family, gen-stats ==================================================================== */

#define BNI(x) HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_##x##_EXT
static desc mk_bn_inference(void)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_BATCHNORM_INFERENCE_DESCRIPTOR_EXT);
    set_t(op, BNI(X), F32(4, 8, 5, 5));
    set_t(op, BNI(MEAN), F32(1, 8, 1, 1));
    set_t(op, BNI(INV_VARIANCE), F32(1, 8, 1, 1));
    set_t(op, BNI(SCALE), F32(1, 8, 1, 1));
    set_t(op, BNI(BIAS), F32(1, 8, 1, 1));
    set_t(op, BNI(Y), F32(4, 8, 5, 5));
    return op;
}
static desc mk_bn_inference_2d(void)
{
    desc op = mk_bn_inference();
    set_t(op, BNI(X), F32(16, 8));
    set_t(op, BNI(Y), F32(16, 8));
    desc pc[4] = {F32(1, 8), F32(1, 8), F32(1, 8), F32(1, 8)};
    set_t(op, BNI(MEAN), pc[0]);
    set_t(op, BNI(INV_VARIANCE), pc[1]);
    set_t(op, BNI(SCALE), pc[2]);
    set_t(op, BNI(BIAS), pc[3]);
    return op;
}

T(bn_inference, valid)
{
    expect_ok(mk_bn_inference());
    expect_ok(mk_bn_inference_2d());
}
T(bn_inference, x_rank_1)
{
    desc op = mk_bn_inference();
    set_t(op, BNI(X), F32(8));
    expect_bad(op, "X [8] has rank 1, must have rank 2..8");
}
T(bn_inference, y_dims)
{
    desc op = mk_bn_inference();
    set_t(op, BNI(Y), F32(4, 8, 5, 6));
    expect_bad(op, "Y [4,8,5,6] must have the dims of X [4,8,5,5]");
}
T(bn_inference, per_channel)
{
    desc op = mk_bn_inference();
    set_t(op, BNI(MEAN), F32(1, 4, 1, 1));
    expect_bad(op, "MEAN [1,4,1,1] must be [1,8,1,1] (per-channel [1,C,1,..] of X)");
    op = mk_bn_inference();
    set_t(op, BNI(INV_VARIANCE), F32(8));
    expect_bad(op, "INV_VARIANCE [8] must be [1,8,1,1]");
    op = mk_bn_inference();
    set_t(op, BNI(SCALE), F32(1, 8, 1, 2));
    expect_bad(op, "SCALE [1,8,1,2] must be [1,8,1,1]");
    op = mk_bn_inference();
    set_t(op, BNI(BIAS), F32(1, 8, 1, 1, 1));
    expect_bad(op, "BIAS [1,8,1,1,1] must be [1,8,1,1]");
}

#define BNV(x) HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_##x##_EXT
static desc mk_bn_inference_variance(void)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_BATCHNORM_INFERENCE_VARIANCE_DESCRIPTOR_EXT);
    set_t(op, BNV(X), F32(4, 8, 5, 5));
    set_t(op, BNV(MEAN), F32(1, 8, 1, 1));
    set_t(op, BNV(VARIANCE), F32(1, 8, 1, 1));
    set_t(op, BNV(SCALE), F32(1, 8, 1, 1));
    set_t(op, BNV(BIAS), F32(1, 8, 1, 1));
    set_t(op, BNV(Y), F32(4, 8, 5, 5));
    set_t(op, BNV(EPSILON), scalar_f32(1e-5f));
    return op;
}
T(bn_inference_variance, valid) { expect_ok(mk_bn_inference_variance()); }
T(bn_inference_variance, epsilon_not_scalar)
{
    desc op = mk_bn_inference_variance();
    set_t(op, BNV(EPSILON), F32(1, 2, 1, 1));
    expect_bad(op, "EPSILON [1,2,1,1] must be a scalar (all dims 1)");
}
T(bn_inference_variance, variance_per_channel)
{
    desc op = mk_bn_inference_variance();
    set_t(op, BNV(VARIANCE), F32(1, 8, 2, 1));
    expect_bad(op, "VARIANCE [1,8,2,1] must be [1,8,1,1]");
}
T(bn_inference_variance, y_and_rank)
{
    desc op = mk_bn_inference_variance();
    set_t(op, BNV(Y), F32(4, 8, 25));
    expect_bad(op, "Y [4,8,25] must have the dims of X");
    op = mk_bn_inference_variance();
    set_t(op, BNV(X), F32(8));
    expect_bad(op, "X [8] has rank 1");
}

#define BNT(x) HIPDNN_ATTR_OPERATION_BATCHNORM_##x##_EXT
static desc mk_bn_training_min(void)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_BATCHNORM_DESCRIPTOR_EXT);
    set_t(op, BNT(X), F32(4, 8, 5, 5));
    set_t(op, BNT(SCALE), F32(1, 8, 1, 1));
    set_t(op, BNT(BIAS), F32(1, 8, 1, 1));
    set_t(op, BNT(EPSILON), scalar_f32(1e-5f));
    set_t(op, BNT(Y), F32(4, 8, 5, 5));
    set_t(op, BNT(MEAN), F32(1, 8, 1, 1));
    set_t(op, BNT(INV_VARIANCE), F32(1, 8, 1, 1));
    return op;
}
static desc mk_bn_training(void)
{
    desc op = mk_bn_training_min();
    set_t(op, BNT(PREV_RUNNING_MEAN), F32(1, 8, 1, 1));
    set_t(op, BNT(PREV_RUNNING_VARIANCE), F32(1, 8, 1, 1));
    set_t(op, BNT(MOMENTUM), scalar_f32(0.1f));
    set_t(op, BNT(NEXT_RUNNING_MEAN), F32(1, 8, 1, 1));
    set_t(op, BNT(NEXT_RUNNING_VARIANCE), F32(1, 8, 1, 1));
    return op;
}
T(bn_training, valid)
{
    expect_ok(mk_bn_training());
    expect_ok(mk_bn_training_min());
}
T(bn_training, x_rank_and_y)
{
    desc op = mk_bn_training();
    set_t(op, BNT(X), F32(8));
    expect_bad(op, "X [8] has rank 1");
    op = mk_bn_training();
    set_t(op, BNT(Y), F32(4, 8, 5, 4));
    expect_bad(op, "Y [4,8,5,4] must have the dims of X [4,8,5,5]");
}
T(bn_training, scalars)
{
    desc op = mk_bn_training();
    set_t(op, BNT(EPSILON), F32(2));
    expect_bad(op, "EPSILON [2] must be a scalar");
    op = mk_bn_training();
    set_t(op, BNT(MOMENTUM), F32(1, 8, 1, 1));
    expect_bad(op, "MOMENTUM [1,8,1,1] must be a scalar");
}
T(bn_training, per_channel)
{
    static const hipdnnBackendAttributeName_t ids[] = {
        BNT(SCALE), BNT(BIAS), BNT(MEAN), BNT(INV_VARIANCE), BNT(PREV_RUNNING_MEAN),
        BNT(PREV_RUNNING_VARIANCE), BNT(NEXT_RUNNING_MEAN), BNT(NEXT_RUNNING_VARIANCE)};
    static const char *const names[] = {"SCALE", "BIAS", "MEAN", "INV_VARIANCE", "PREV_RUNNING_MEAN",
                                        "PREV_RUNNING_VARIANCE", "NEXT_RUNNING_MEAN", "NEXT_RUNNING_VARIANCE"};
    for (int i = 0; i < 8; i++) {
        desc op = mk_bn_training();
        set_t(op, ids[i], F32(1, 8, 5, 5));
        char needle[96];
        snprintf(needle, sizeof needle, "%s [1,8,5,5] must be [1,8,1,1]", names[i]);
        expect_bad(op, needle);
    }
}
T(bn_training, running_stats_together)
{
    desc op = mk_bn_training_min();
    set_t(op, BNT(PREV_RUNNING_MEAN), F32(1, 8, 1, 1));
    set_t(op, BNT(PREV_RUNNING_VARIANCE), F32(1, 8, 1, 1));
    expect_bad(op, "PREV_RUNNING_MEAN, PREV_RUNNING_VARIANCE and MOMENTUM must be set together "
                   "(PREV_RUNNING_MEAN is set, MOMENTUM is not)");
    op = mk_bn_training_min();
    set_t(op, BNT(MOMENTUM), scalar_f32(0.1f));
    expect_bad(op, "must be set together (MOMENTUM is set, PREV_RUNNING_MEAN is not)");
}
T(bn_training, next_requires_prev)
{
    desc op = mk_bn_training_min();
    set_t(op, BNT(NEXT_RUNNING_VARIANCE), F32(1, 8, 1, 1));
    expect_bad(op, "NEXT_RUNNING_VARIANCE is set but PREV_RUNNING_MEAN, PREV_RUNNING_VARIANCE and MOMENTUM are not");
}
T(bn_training, prev_requires_next)
{
    desc op = mk_bn_training_min();
    set_t(op, BNT(PREV_RUNNING_MEAN), F32(1, 8, 1, 1));
    set_t(op, BNT(PREV_RUNNING_VARIANCE), F32(1, 8, 1, 1));
    set_t(op, BNT(MOMENTUM), scalar_f32(0.1f));
    set_t(op, BNT(NEXT_RUNNING_MEAN), F32(1, 8, 1, 1));
    expect_bad(op, "NEXT_RUNNING_VARIANCE must be set when the running statistics");
}

#define BNB(x) HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_##x##_EXT
static desc mk_bn_backward_min(void)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_BATCHNORM_BACKWARD_DESCRIPTOR_EXT);
    set_t(op, BNB(DY), F32(4, 8, 5, 5));
    set_t(op, BNB(X), F32(4, 8, 5, 5));
    set_t(op, BNB(SCALE), F32(1, 8, 1, 1));
    set_t(op, BNB(DX), F32(4, 8, 5, 5));
    set_t(op, BNB(DSCALE), F32(1, 8, 1, 1));
    set_t(op, BNB(DBIAS), F32(1, 8, 1, 1));
    return op;
}
static desc mk_bn_backward(void)
{
    desc op = mk_bn_backward_min();
    set_t(op, BNB(MEAN), F32(1, 8, 1, 1));
    set_t(op, BNB(INV_VARIANCE), F32(1, 8, 1, 1));
    return op;
}
T(bn_backward, valid)
{
    expect_ok(mk_bn_backward());
    expect_ok(mk_bn_backward_min());
}
T(bn_backward, x_rank_dy_dx)
{
    desc op = mk_bn_backward();
    set_t(op, BNB(X), F32(8));
    expect_bad(op, "X [8] has rank 1");
    op = mk_bn_backward();
    set_t(op, BNB(DY), F32(4, 8, 5, 1));
    expect_bad(op, "DY [4,8,5,1] must have the dims of X [4,8,5,5]");
    op = mk_bn_backward();
    set_t(op, BNB(DX), F32(4, 8, 1, 5));
    expect_bad(op, "DX [4,8,1,5] must have the dims of X");
}
T(bn_backward, per_channel)
{
    static const hipdnnBackendAttributeName_t ids[] = {BNB(MEAN), BNB(INV_VARIANCE), BNB(SCALE),
                                                       BNB(DSCALE), BNB(DBIAS)};
    static const char *const names[] = {"MEAN", "INV_VARIANCE", "SCALE", "DSCALE", "DBIAS"};
    for (int i = 0; i < 5; i++) {
        desc op = mk_bn_backward();
        set_t(op, ids[i], F32(4, 8, 1, 1));
        char needle[96];
        snprintf(needle, sizeof needle, "%s [4,8,1,1] must be [1,8,1,1]", names[i]);
        expect_bad(op, needle);
    }
}
T(bn_backward, mean_without_inv_variance)
{
    desc op = mk_bn_backward_min();
    set_t(op, BNB(MEAN), F32(1, 8, 1, 1));
    expect_bad(op, "MEAN and INV_VARIANCE must be set together (MEAN is set, INV_VARIANCE is not)");
    op = mk_bn_backward_min();
    set_t(op, BNB(INV_VARIANCE), F32(1, 8, 1, 1));
    expect_bad(op, "(INV_VARIANCE is set, MEAN is not)");
}

#define GS(x) HIPDNN_ATTR_OPERATION_GENSTATS_##x##_EXT
static desc mk_gen_stats(void)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR);
    set_t(op, GS(XDESC), TEN(HIPDNN_DATA_HALF, 4, 8, 5, 5));
    set_t(op, GS(SUMDESC), F32(1, 8, 1, 1));
    set_t(op, GS(SQSUMDESC), F32(1, 8, 1, 1));
    return op;
}
T(gen_stats, valid)
{
    expect_ok(mk_gen_stats());
    desc op = mk_gen_stats();
    set_i64(op, GS(MODE), 0);
    expect_ok(op);
}
T(gen_stats, per_channel)
{
    desc op = mk_gen_stats();
    set_t(op, GS(SUMDESC), F32(1, 8, 1, 2));
    expect_bad(op, "SUM [1,8,1,2] must be [1,8,1,1] (per-channel");
    op = mk_gen_stats();
    set_t(op, GS(SQSUMDESC), F32(1, 4, 1, 1));
    expect_bad(op, "SQ_SUM [1,4,1,1] must be [1,8,1,1]");
}
T(gen_stats, mode)
{
    desc op = mk_gen_stats();
    set_i64(op, GS(MODE), 1);
    expect_bad(op, "HIPDNN_ATTR_OPERATION_GENSTATS_MODE_EXT is 1");
}
T(gen_stats, x_rank_1)
{
    desc op = mk_gen_stats();
    set_t(op, GS(XDESC), F32(8));
    expect_bad(op, "X [8] has rank 1");
}

/* ==== layernorm, rmsnorm ============================================================================ */

#define LN(x) HIPDNN_ATTR_OPERATION_LAYERNORM_##x##_EXT
static void set_phase(desc op, hipdnnBackendAttributeName_t a, hipdnnNormFwdPhase_t p)
{
    set_enum(op, a, HIPDNN_TYPE_NORM_FWD_PHASE, p);
}
/* X [4,6,8] normalized over the last dim */
static desc mk_layernorm(void)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_LAYERNORM_DESCRIPTOR_EXT);
    set_t(op, LN(X), F32(4, 6, 8));
    set_t(op, LN(SCALE), F32(1, 1, 8));
    set_t(op, LN(BIAS), F32(1, 1, 8));
    set_t(op, LN(EPSILON), tensor(HIPDNN_DATA_FLOAT, DIMS(1), &(float){1e-5f}, 4));
    set_t(op, LN(Y), F32(4, 6, 8));
    set_t(op, LN(MEAN), F32(4, 6, 1));
    set_t(op, LN(INV_VARIANCE), F32(4, 6, 1));
    set_i64(op, LN(NORMALIZED_DIM_COUNT), 1);
    set_phase(op, LN(FWD_PHASE), HIPDNN_NORM_FWD_TRAINING);
    return op;
}
/* over the last two dims, the count inferred from SCALE [1,6,8] */
static desc mk_layernorm_inferred(void)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_LAYERNORM_DESCRIPTOR_EXT);
    set_t(op, LN(X), F32(4, 6, 8));
    set_t(op, LN(SCALE), F32(1, 6, 8));
    set_t(op, LN(BIAS), F32(1, 6, 8));
    set_t(op, LN(EPSILON), scalar_f32(1e-5f));
    set_t(op, LN(Y), F32(4, 6, 8));
    set_t(op, LN(MEAN), F32(4, 1, 1));
    set_t(op, LN(INV_VARIANCE), F32(4, 1, 1));
    set_phase(op, LN(FWD_PHASE), HIPDNN_NORM_FWD_TRAINING);
    return op;
}
/* the cuDNN test form X [N,C,1,1], scale [1,C,1,1], inference */
static desc mk_layernorm_nc11(void)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_LAYERNORM_DESCRIPTOR_EXT);
    set_t(op, LN(X), F32(16, 8, 1, 1));
    set_t(op, LN(SCALE), F32(1, 8, 1, 1));
    set_t(op, LN(BIAS), F32(1, 8, 1, 1));
    set_t(op, LN(EPSILON), scalar_f32(1e-5f));
    set_t(op, LN(Y), F32(16, 8, 1, 1));
    set_phase(op, LN(FWD_PHASE), HIPDNN_NORM_FWD_INFERENCE);
    return op;
}

T(layernorm, valid)
{
    expect_ok(mk_layernorm());
    expect_ok(mk_layernorm_inferred());
    expect_ok(mk_layernorm_nc11());
    desc op = mk_layernorm_inferred();
    set_i64(op, LN(NORMALIZED_DIM_COUNT), 2);
    expect_ok(op);
}
/* 0, the serialized field's default, infers the count like an unset attribute: two dims from
 * SCALE [1,6,8] (stats [4,1,1] fit), where an explicit 1 does not */
T(layernorm, dim_count_0_infers)
{
    desc op = mk_layernorm_inferred();
    set_i64(op, LN(NORMALIZED_DIM_COUNT), 0);
    expect_ok(op);
    op = mk_layernorm_inferred();
    set_i64(op, LN(NORMALIZED_DIM_COUNT), 1);
    expect_bad(op, "SCALE [1,6,8] must be [1,1,8]");
}
T(layernorm, x_rank_1)
{
    desc op = mk_layernorm();
    set_t(op, LN(X), F32(8));
    expect_bad(op, "X [8] has rank 1");
}
T(layernorm, epsilon_not_scalar)
{
    desc op = mk_layernorm();
    set_t(op, LN(EPSILON), F32(2));
    expect_bad(op, "EPSILON [2] must be a scalar");
}
T(layernorm, dim_count_range)
{
    desc op = mk_layernorm();
    set_i64(op, LN(NORMALIZED_DIM_COUNT), -1);
    expect_bad(op, "HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT -1 is outside [1, 2] for X [4,6,8]");
    op = mk_layernorm();
    set_i64(op, LN(NORMALIZED_DIM_COUNT), 3);
    expect_bad(op, "NORMALIZED_DIM_COUNT_EXT 3 is outside [1, 2]");
}
T(layernorm, scale_leading_not_1)
{
    desc op = mk_layernorm();
    set_t(op, LN(SCALE), F32(4, 1, 8));
    expect_bad(op, "SCALE [4,1,8] must be [1,1,8] (1 on the leading dims, X's on the 1 normalized dim(s))");
}
T(layernorm, scale_and_bias_trailing)
{
    desc op = mk_layernorm();
    set_t(op, LN(SCALE), F32(1, 1, 7));
    expect_bad(op, "SCALE [1,1,7] must be [1,1,8]");
    op = mk_layernorm();
    set_t(op, LN(BIAS), F32(1, 6, 8));
    expect_bad(op, "BIAS [1,6,8] must be [1,1,8]");
}
T(layernorm, y_dims)
{
    desc op = mk_layernorm();
    set_t(op, LN(Y), F32(4, 6, 9));
    expect_bad(op, "Y [4,6,9] must have the dims of X [4,6,8]");
}
T(layernorm, training_needs_stats)
{
    desc op = mk_layernorm_nc11();
    set_phase(op, LN(FWD_PHASE), HIPDNN_NORM_FWD_TRAINING);
    expect_bad(op, "HIPDNN_ATTR_OPERATION_LAYERNORM_FWD_PHASE_EXT is TRAINING, which requires MEAN");
    op = mk_layernorm_nc11();
    set_phase(op, LN(FWD_PHASE), HIPDNN_NORM_FWD_TRAINING);
    set_t(op, LN(MEAN), F32(16, 1, 1, 1));
    expect_bad(op, "TRAINING, which requires INV_VARIANCE");
}
T(layernorm, inference_forbids_stats)
{
    desc op = mk_layernorm();
    set_phase(op, LN(FWD_PHASE), HIPDNN_NORM_FWD_INFERENCE);
    expect_bad(op, "is INFERENCE; MEAN must not be set");
}
T(layernorm, stats_dims)
{
    desc op = mk_layernorm();
    set_t(op, LN(MEAN), F32(4, 1, 1));
    expect_bad(op, "MEAN [4,1,1] must be [4,6,1] (X's dims with the 1 normalized dim(s) set to 1)");
    op = mk_layernorm();
    set_t(op, LN(INV_VARIANCE), F32(1, 6, 1));
    expect_bad(op, "INV_VARIANCE [1,6,1] must be [4,6,1]");
}
T(layernorm, inferred_count_checks_stats)
{
    desc op = mk_layernorm_inferred();
    set_t(op, LN(MEAN), F32(4, 6, 1));
    expect_bad(op, "MEAN [4,6,1] must be [4,1,1] (X's dims with the 2 normalized dim(s) set to 1)");
}
T(layernorm, explicit_count_checks_scale)
{
    desc op = mk_layernorm_inferred();
    set_i64(op, LN(NORMALIZED_DIM_COUNT), 1);
    expect_bad(op, "SCALE [1,6,8] must be [1,1,8]");
}

#define RMS(x) HIPDNN_ATTR_OPERATION_RMSNORM_##x##_EXT
static desc mk_rmsnorm(void)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_RMSNORM_DESCRIPTOR_EXT);
    set_t(op, RMS(X), TEN(HIPDNN_DATA_HALF, 4, 6, 8));
    set_t(op, RMS(SCALE), F32(1, 1, 8));
    set_t(op, RMS(EPSILON), scalar_f32(1e-6f));
    set_t(op, RMS(Y), TEN(HIPDNN_DATA_HALF, 4, 6, 8));
    set_t(op, RMS(INV_RMS), F32(4, 6, 1));
    set_phase(op, RMS(FWD_PHASE), HIPDNN_NORM_FWD_TRAINING);
    return op;
}
static desc mk_rmsnorm_bias_inference(void)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_RMSNORM_DESCRIPTOR_EXT);
    set_t(op, RMS(X), F32(32, 16, 1, 1));
    set_t(op, RMS(SCALE), F32(1, 16, 1, 1));
    set_t(op, RMS(BIAS), F32(1, 16, 1, 1));
    set_t(op, RMS(EPSILON), scalar_f32(1e-6f));
    set_t(op, RMS(Y), F32(32, 16, 1, 1));
    set_phase(op, RMS(FWD_PHASE), HIPDNN_NORM_FWD_INFERENCE);
    return op;
}
T(rmsnorm, valid)
{
    expect_ok(mk_rmsnorm());
    expect_ok(mk_rmsnorm_bias_inference());
}
T(rmsnorm, x_y_epsilon)
{
    desc op = mk_rmsnorm();
    set_t(op, RMS(X), F32(8));
    expect_bad(op, "X [8] has rank 1");
    op = mk_rmsnorm();
    set_t(op, RMS(Y), F32(4, 6, 4));
    expect_bad(op, "Y [4,6,4] must have the dims of X [4,6,8]");
    op = mk_rmsnorm();
    set_t(op, RMS(EPSILON), F32(1, 3));
    expect_bad(op, "EPSILON [1,3] must be a scalar");
}
T(rmsnorm, scale_shape)
{
    desc op = mk_rmsnorm();
    set_t(op, RMS(SCALE), F32(2, 1, 8));
    expect_bad(op, "SCALE [2,1,8] must be [1,1,8]");
    op = mk_rmsnorm();
    set_t(op, RMS(SCALE), F32(8));
    expect_bad(op, "SCALE [8] must be [1,1,8]");
}
T(rmsnorm, bias_like_scale)
{
    desc op = mk_rmsnorm();
    set_t(op, RMS(BIAS), F32(1, 1, 4));
    expect_bad(op, "BIAS [1,1,4] must be [1,1,8]");
}
T(rmsnorm, phase)
{
    desc op = mk_rmsnorm_bias_inference();
    set_phase(op, RMS(FWD_PHASE), HIPDNN_NORM_FWD_TRAINING);
    expect_bad(op, "HIPDNN_ATTR_OPERATION_RMSNORM_FWD_PHASE_EXT is TRAINING, which requires INV_RMS");
    op = mk_rmsnorm();
    set_phase(op, RMS(FWD_PHASE), HIPDNN_NORM_FWD_INFERENCE);
    expect_bad(op, "is INFERENCE; INV_RMS must not be set");
}
T(rmsnorm, inv_rms_dims)
{
    desc op = mk_rmsnorm();
    set_t(op, RMS(INV_RMS), F32(4, 6, 8));
    expect_bad(op, "INV_RMS [4,6,8] must be [4,6,1]");
}

/* ==== SDPA forward ===================================================================================== */

#define SF(x) HIPDNN_ATTR_OPERATION_SDPA_FWD_##x
#define SFX(x) HIPDNN_ATTR_OPERATION_SDPA_FWD_##x##_EXT
#define SFA(x) HIPDNN_ATTR_SDPA_FWD_##x##_EXT
/* B 2, Hq 4, Sq 8, D 16; Hk = Hv = 2 (GQA), Skv 10, Dv 12 */
static desc mk_sdpa_fwd(void)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT);
    set_t(op, SF(QDESC), TEN(HIPDNN_DATA_HALF, 2, 4, 8, 16));
    set_t(op, SF(KDESC), TEN(HIPDNN_DATA_HALF, 2, 2, 10, 16));
    set_t(op, SF(VDESC), TEN(HIPDNN_DATA_HALF, 2, 2, 10, 12));
    set_t(op, SF(ODESC), TEN(HIPDNN_DATA_HALF, 2, 4, 8, 12));
    set_f32(op, SFA(ATTN_SCALE_VALUE), 0.25f);
    return op;
}
/* training with every optional input: stats, bias, padding, dropout, alibi + causal, window */
static desc mk_sdpa_fwd_full(void)
{
    desc op = mk_sdpa_fwd();
    set_t(op, SF(STATSDESC), F32(2, 4, 8, 1));
    set_bool(op, SFA(GENERATE_STATS), true);
    set_t(op, SFX(MAX), F32(2, 4, 8, 1));
    set_t(op, SFX(SUM_EXP), F32(2, 4, 8, 1));
    set_t(op, SFX(ATTN_MASK), TEN(HIPDNN_DATA_HALF, 1, 4, 8, 10));
    set_t(op, SF(SEQ_LEN_QDESC), I32(2, 1, 1, 1));
    set_t(op, SF(SEQ_LEN_KVDESC), TEN(HIPDNN_DATA_INT64, 2, 1, 1, 1));
    set_bool(op, SFA(PADDING_MASK), true);
    set_f32(op, SFA(DROPOUT_PROBABILITY), 0.1f);
    set_t(op, SFX(SEED), scalar_i64(1234));
    set_t(op, SFX(OFFSET), scalar_i64(0));
    set_t(op, SFX(RNG_DUMP), F32(2, 4, 8, 10));
    set_bool(op, SFA(ALIBI_MASK), true);
    set_bool(op, SFA(CAUSAL_MASK), true);
    set_i64(op, SFA(LEFT_BOUND), 4);
    set_t(op, SFX(SINK_TOKEN), F32(1, 4, 1, 1));
    return op;
}
/* B 1, Hq 2, Hk 1 (MQA), Sq = Skv = 4, D 32 of type dt; a scale tensor instead of the value */
static desc mk_sdpa_fwd_small(hipdnnDataType_t dt)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT);
    set_t(op, SF(QDESC), TEN(dt, 1, 2, 4, 32));
    set_t(op, SF(KDESC), TEN(dt, 1, 1, 4, 32));
    set_t(op, SF(VDESC), TEN(dt, 1, 1, 4, 32));
    set_t(op, SF(ODESC), TEN(dt, 1, 2, 4, 32));
    set_t(op, SF(SCALEDESC), scalar_f32(0.125f));
    return op;
}
/* FP8 attention (all six factors, both maxima), causal + ALiBi */
static desc mk_sdpa_fwd_fp8(void)
{
    desc op = mk_sdpa_fwd_small(HIPDNN_DATA_FP8_E4M3);
    static const hipdnnBackendAttributeName_t fp8[] = {SFX(DESCALE_Q), SFX(DESCALE_K), SFX(DESCALE_V),
                                                       SFX(DESCALE_S), SFX(SCALE_S), SFX(SCALE_O),
                                                       SFX(AMAX_S), SFX(AMAX_O)};
    for (int i = 0; i < 8; i++)
        set_t(op, fp8[i], F32(1, 1, 1, 1));
    set_i64(op, SFA(RIGHT_BOUND), 0);
    set_bool(op, SFA(ALIBI_MASK), true);
    return op;
}
/* a custom dropout mask and scale */
static desc mk_sdpa_fwd_custom_dropout(void)
{
    desc op = mk_sdpa_fwd_small(HIPDNN_DATA_HALF);
    set_f32(op, SFA(DROPOUT_PROBABILITY), 0.2f);
    set_t(op, SFX(DROPOUT_MASK), TEN(HIPDNN_DATA_HALF, 1, 1, 4, 4));
    set_t(op, SFX(DROPOUT_SCALE), scalar_f32(1.25f));
    return op;
}
/* paged K/V: containers [nblk 6, H 2, bs 4, D], page tables [B,1,P 3,1], Skv <= 12 */
static desc mk_sdpa_fwd_paged_any_skv(void)
{
    desc op = mk_sdpa_fwd();
    set_t(op, SF(KDESC), TEN(HIPDNN_DATA_HALF, 6, 2, 4, 16));
    set_t(op, SF(VDESC), TEN(HIPDNN_DATA_HALF, 6, 2, 4, 12));
    set_t(op, SF(PAGE_TABLE_KDESC), I32(2, 1, 3, 1));
    set_t(op, SF(PAGE_TABLE_VDESC), I32(2, 1, 3, 1));
    set_t(op, SF(SEQ_LEN_QDESC), I32(2, 1, 1, 1));
    set_t(op, SF(SEQ_LEN_KVDESC), I32(2, 1, 1, 1));
    return op;
}
static desc mk_sdpa_fwd_paged(void)
{
    desc op = mk_sdpa_fwd_paged_any_skv();
    set_i32(op, SFA(MAX_SEQ_LEN_KV), 10);
    set_t(op, SFX(ATTN_MASK), TEN(HIPDNN_DATA_HALF, 2, 1, 8, 10));
    return op;
}

T(sdpa_fwd, valid)
{
    expect_ok(mk_sdpa_fwd());
    expect_ok(mk_sdpa_fwd_full());
    expect_ok(mk_sdpa_fwd_fp8());
    expect_ok(mk_sdpa_fwd_custom_dropout());
    expect_ok(mk_sdpa_fwd_paged());
}
T(sdpa_fwd, valid_variants)
{
    desc op = mk_sdpa_fwd();
    set_bool(op, SFA(ALIBI_MASK), true);
    set_bool(op, SFA(CAUSAL_MASK_BOTTOM_RIGHT), true);
    expect_ok(op);
    op = mk_sdpa_fwd_paged_any_skv(); /* without MAX_SEQ_LEN_KV Skv is unknown: any mask width */
    set_t(op, SFX(ATTN_MASK), TEN(HIPDNN_DATA_HALF, 2, 1, 8, 7));
    expect_ok(op);
}
T(sdpa_fwd, rank)
{
    desc op = mk_sdpa_fwd();
    set_t(op, SF(QDESC), TEN(HIPDNN_DATA_HALF, 4, 8, 16));
    expect_bad(op, "Q [4,8,16] has rank 3, must have rank 4");
    op = mk_sdpa_fwd();
    set_t(op, SF(ODESC), TEN(HIPDNN_DATA_HALF, 2, 4, 8, 12, 1));
    expect_bad(op, "O [2,4,8,12,1] has rank 5");
}
T(sdpa_fwd, head_dim)
{
    desc op = mk_sdpa_fwd();
    set_t(op, SF(KDESC), TEN(HIPDNN_DATA_HALF, 2, 2, 10, 8));
    expect_bad(op, "Q [2,4,8,16] and K [2,2,10,8] disagree on the head dim D (16 vs 8)");
}
T(sdpa_fwd, gqa_heads)
{
    desc op = mk_sdpa_fwd();
    set_t(op, SF(KDESC), TEN(HIPDNN_DATA_HALF, 2, 3, 10, 16));
    expect_bad(op, "Q's heads (4) must be a multiple of K's (3) and V's (2)");
    op = mk_sdpa_fwd();
    set_t(op, SF(VDESC), TEN(HIPDNN_DATA_HALF, 2, 8, 10, 12));
    expect_bad(op, "Q's heads (4) must be a multiple of K's (2) and V's (8)");
}
T(sdpa_fwd, kv_batch_and_seq)
{
    desc op = mk_sdpa_fwd();
    set_t(op, SF(KDESC), TEN(HIPDNN_DATA_HALF, 3, 2, 10, 16));
    expect_bad(op, "K [3,2,10,16] must be [2,*,*,*]");
    op = mk_sdpa_fwd();
    set_t(op, SF(VDESC), TEN(HIPDNN_DATA_HALF, 2, 2, 9, 12));
    expect_bad(op, "V [2,2,9,12] must be [2,*,10,*] (V [B,Hv,Skv,Dv] with Q's B and K's Skv)");
}
T(sdpa_fwd, o_dims)
{
    desc op = mk_sdpa_fwd();
    set_t(op, SF(ODESC), TEN(HIPDNN_DATA_HALF, 2, 4, 8, 16));
    expect_bad(op, "O [2,4,8,16] must be [2,4,8,12] (O [B,Hq,Sq,Dv])");
}
T(sdpa_fwd, stats_shapes)
{
    desc op = mk_sdpa_fwd_full();
    set_t(op, SF(STATSDESC), F32(2, 4, 8, 2));
    expect_bad(op, "STATS [2,4,8,2] must be [2,4,8,1] ([B,Hq,Sq,1])");
    op = mk_sdpa_fwd_full();
    set_t(op, SFX(MAX), F32(2, 2, 8, 1));
    expect_bad(op, "MAX [2,2,8,1] must be [2,4,8,1]");
    op = mk_sdpa_fwd_full();
    set_t(op, SFX(SUM_EXP), F32(2, 4, 1, 1));
    expect_bad(op, "SUM_EXP [2,4,1,1] must be [2,4,8,1]");
}
T(sdpa_fwd, generate_stats_needs_stats)
{
    desc op = mk_sdpa_fwd();
    set_bool(op, SFA(GENERATE_STATS), true);
    expect_bad(op, "HIPDNN_ATTR_SDPA_FWD_GENERATE_STATS_EXT is true but STATS is not set");
}
T(sdpa_fwd, attn_mask_broadcast)
{
    desc op = mk_sdpa_fwd();
    set_t(op, SFX(ATTN_MASK), TEN(HIPDNN_DATA_HALF, 2, 4, 8, 9));
    expect_bad(op, "ATTN_MASK [2,4,8,9] does not broadcast to scores [B,Hq,Sq,Skv] [2,4,8,10]: dim 3 is 9");
    op = mk_sdpa_fwd();
    set_t(op, SFX(ATTN_MASK), TEN(HIPDNN_DATA_HALF, 8, 10));
    expect_bad(op, "ATTN_MASK [8,10] has rank 2");
}
T(sdpa_fwd, padding_needs_seq_lens)
{
    desc op = mk_sdpa_fwd();
    set_bool(op, SFA(PADDING_MASK), true);
    set_t(op, SF(SEQ_LEN_QDESC), I32(2, 1, 1, 1));
    expect_bad(op, "HIPDNN_ATTR_SDPA_FWD_PADDING_MASK_EXT needs both SEQ_LEN_Q and SEQ_LEN_KV");
}
T(sdpa_fwd, seq_len_shape_and_type)
{
    desc op = mk_sdpa_fwd_full();
    set_t(op, SF(SEQ_LEN_QDESC), I32(2, 1, 1, 2));
    expect_bad(op, "SEQ_LEN_Q [2,1,1,2] must be [2,1,1,1]");
    op = mk_sdpa_fwd_full();
    set_t(op, SF(SEQ_LEN_KVDESC), I32(3, 1, 1, 1));
    expect_bad(op, "SEQ_LEN_KV [3,1,1,1] must be [2,1,1,1]");
    op = mk_sdpa_fwd_full();
    set_t(op, SF(SEQ_LEN_KVDESC), F32(2, 1, 1, 1));
    expect_bad(op, "SEQ_LEN_KV has data type FLOAT, must be INT32 or INT64");
}
T(sdpa_fwd, dropout_probability_range)
{
    desc op = mk_sdpa_fwd_full();
    set_f32(op, SFA(DROPOUT_PROBABILITY), 1.0f);
    expect_bad(op, "HIPDNN_ATTR_SDPA_FWD_DROPOUT_PROBABILITY_EXT 1 is outside [0, 1)");
    op = mk_sdpa_fwd_full();
    set_f32(op, SFA(DROPOUT_PROBABILITY), -0.5f);
    expect_bad(op, "DROPOUT_PROBABILITY_EXT -0.5 is outside [0, 1)");
}
T(sdpa_fwd, dropout_needs_rng)
{
    desc op = mk_sdpa_fwd();
    set_f32(op, SFA(DROPOUT_PROBABILITY), 0.1f);
    expect_bad(op, "DROPOUT_PROBABILITY_EXT 0.1 needs SEED and OFFSET (or a DROPOUT_MASK)");
    op = mk_sdpa_fwd();
    set_f32(op, SFA(DROPOUT_PROBABILITY), 0.1f);
    set_t(op, SFX(SEED), scalar_i64(7));
    expect_bad(op, "needs SEED and OFFSET");
    op = mk_sdpa_fwd(); /* p == 0: no dropout, nothing needed */
    set_f32(op, SFA(DROPOUT_PROBABILITY), 0.0f);
    expect_ok(op);
}
T(sdpa_fwd, seed_offset_dropout_tensors)
{
    desc op = mk_sdpa_fwd_full();
    set_t(op, SFX(SEED), TEN(HIPDNN_DATA_INT64, 2, 1, 1, 1));
    expect_bad(op, "SEED [2,1,1,1] must be a scalar");
    op = mk_sdpa_fwd_full();
    set_t(op, SFX(OFFSET), scalar_f32(0.0f));
    expect_bad(op, "OFFSET has data type FLOAT, must be INT32 or INT64");
    op = mk_sdpa_fwd_custom_dropout();
    set_t(op, SFX(DROPOUT_MASK), TEN(HIPDNN_DATA_HALF, 1, 1, 4, 5));
    expect_bad(op, "DROPOUT_MASK [1,1,4,5] does not broadcast");
    op = mk_sdpa_fwd_custom_dropout();
    set_t(op, SFX(DROPOUT_SCALE), F32(1, 1, 1, 2));
    expect_bad(op, "DROPOUT_SCALE [1,1,1,2] must be a scalar");
}
T(sdpa_fwd, scale_value_and_tensor)
{
    desc op = mk_sdpa_fwd();
    set_t(op, SF(SCALEDESC), scalar_f32(0.25f));
    expect_bad(op, "HIPDNN_ATTR_SDPA_FWD_ATTN_SCALE_VALUE_EXT and the scale tensor "
                   "HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC are both set");
    op = mk_sdpa_fwd_fp8();
    set_t(op, SF(SCALEDESC), F32(1, 2, 1, 1));
    expect_bad(op, "SCALE [1,2,1,1] must be a scalar");
}
T(sdpa_fwd, bounds)
{
    desc op = mk_sdpa_fwd();
    set_i64(op, SFA(LEFT_BOUND), 0);
    expect_bad(op, "HIPDNN_ATTR_SDPA_FWD_LEFT_BOUND_EXT 0 must be >= 1");
    op = mk_sdpa_fwd();
    set_i64(op, SFA(RIGHT_BOUND), -1);
    expect_bad(op, "HIPDNN_ATTR_SDPA_FWD_RIGHT_BOUND_EXT -1 must be >= 0");
}
T(sdpa_fwd, alibi_needs_causal)
{
    desc op = mk_sdpa_fwd();
    set_bool(op, SFA(ALIBI_MASK), true);
    expect_bad(op, "HIPDNN_ATTR_SDPA_FWD_ALIBI_MASK_EXT needs a causal mask");
    op = mk_sdpa_fwd();
    set_bool(op, SFA(ALIBI_MASK), true);
    set_i64(op, SFA(RIGHT_BOUND), 2);
    expect_bad(op, "ALIBI_MASK_EXT needs a causal mask");
}
T(sdpa_fwd, fp8_scalars)
{
    static const hipdnnBackendAttributeName_t ids[] = {SFX(DESCALE_Q), SFX(DESCALE_K), SFX(DESCALE_V),
                                                       SFX(DESCALE_S), SFX(SCALE_S), SFX(SCALE_O),
                                                       SFX(AMAX_S), SFX(AMAX_O)};
    static const char *const names[] = {"DESCALE_Q", "DESCALE_K", "DESCALE_V", "DESCALE_S",
                                        "SCALE_S", "SCALE_O", "AMAX_S", "AMAX_O"};
    for (int i = 0; i < 8; i++) {
        desc op = mk_sdpa_fwd_fp8();
        set_t(op, ids[i], F32(1, 1, 1, 2));
        char needle[64];
        snprintf(needle, sizeof needle, "%s [1,1,1,2] must be a scalar", names[i]);
        expect_bad(op, needle);
    }
}
/* The six FP8 inputs come together and the maxima only with them; FP8 attention composes with a
 * sink and dropout (the reference engine's definition; no GPU template yet). */
T(sdpa_fwd, fp8_all_or_none)
{
    desc op = mk_sdpa_fwd_small(HIPDNN_DATA_FP8_E4M3);
    static const hipdnnBackendAttributeName_t five[] = {SFX(DESCALE_Q), SFX(DESCALE_K), SFX(DESCALE_V),
                                                        SFX(DESCALE_S), SFX(SCALE_O)};
    for (int i = 0; i < 5; i++)
        set_t(op, five[i], F32(1, 1, 1, 1));
    expect_bad(op, "FP8 attention needs all of DESCALE_Q, DESCALE_K, DESCALE_V, DESCALE_S, SCALE_S and SCALE_O: "
                   "SCALE_S is not set");
    op = mk_sdpa_fwd();
    set_t(op, SFX(AMAX_O), F32(1, 1, 1, 1));
    expect_bad(op, "AMAX_O is an output of FP8 attention");
    op = mk_sdpa_fwd_fp8();
    set_f32(op, SFA(DROPOUT_PROBABILITY), 0.1f);
    set_t(op, SFX(SEED), scalar_i64(1));
    set_t(op, SFX(OFFSET), scalar_i64(0));
    set_t(op, SFX(SINK_TOKEN), F32(1, 2, 1, 1));
    expect_ok(op);
}
T(sdpa_fwd, sink_and_rng_dump)
{
    desc op = mk_sdpa_fwd_full();
    set_t(op, SFX(SINK_TOKEN), F32(1, 2, 1, 1));
    expect_bad(op, "SINK_TOKEN [1,2,1,1] must be [1,4,1,1]");
    op = mk_sdpa_fwd_full();
    set_t(op, SFX(RNG_DUMP), F32(2, 4, 8, 1));
    expect_bad(op, "RNG_DUMP [2,4,8,1] must be [2,4,8,10]");
}
T(sdpa_fwd, paged_tables_together)
{
    desc op = mk_sdpa_fwd();
    set_t(op, SF(PAGE_TABLE_KDESC), I32(2, 1, 3, 1));
    expect_bad(op, "PAGE_TABLE_K and PAGE_TABLE_V must be set together (PAGE_TABLE_K is set, PAGE_TABLE_V is not)");
}
T(sdpa_fwd, paged_needs_seq_lens)
{
    desc op = mk_sdpa_fwd();
    set_t(op, SF(KDESC), TEN(HIPDNN_DATA_HALF, 6, 2, 4, 16));
    set_t(op, SF(VDESC), TEN(HIPDNN_DATA_HALF, 6, 2, 4, 12));
    set_t(op, SF(PAGE_TABLE_KDESC), I32(2, 1, 3, 1));
    set_t(op, SF(PAGE_TABLE_VDESC), I32(2, 1, 3, 1));
    expect_bad(op, "paged K/V (PAGE_TABLE_K, PAGE_TABLE_V) need SEQ_LEN_Q and SEQ_LEN_KV");
}
T(sdpa_fwd, page_table_shape_and_type)
{
    desc op = mk_sdpa_fwd_paged();
    set_t(op, SF(PAGE_TABLE_KDESC), I32(2, 1, 3, 2));
    expect_bad(op, "PAGE_TABLE_K [2,1,3,2] must be [2,1,*,1] ([B,1,P,1])");
    op = mk_sdpa_fwd_paged();
    set_t(op, SF(PAGE_TABLE_VDESC), F32(2, 1, 3, 1));
    expect_bad(op, "PAGE_TABLE_V has data type FLOAT, must be INT32 or INT64");
}
T(sdpa_fwd, paged_max_seq_len)
{
    desc op = mk_sdpa_fwd_paged();
    set_i32(op, SFA(MAX_SEQ_LEN_KV), 13);
    set_t(op, SFX(ATTN_MASK), TEN(HIPDNN_DATA_HALF, 2, 1, 8, 13));
    expect_bad(op, "HIPDNN_ATTR_SDPA_FWD_MAX_SEQ_LEN_KV_EXT 13 is outside [1, 12]");
    op = mk_sdpa_fwd_paged(); /* Skv = MAX_SEQ_LEN_KV = 10: the mask must match it */
    set_t(op, SFX(ATTN_MASK), TEN(HIPDNN_DATA_HALF, 2, 1, 8, 12));
    expect_bad(op, "ATTN_MASK [2,1,8,12] does not broadcast to scores [B,Hq,Sq,Skv] [2,4,8,10]");
}

/* ==== SDPA backward ===================================================================================== */

#define SB(x) HIPDNN_ATTR_OPERATION_SDPA_BWD_##x##_EXT
#define SBA(x) HIPDNN_ATTR_SDPA_BWD_##x##_EXT
static desc mk_sdpa_bwd(void)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_SDPA_BPROP_DESCRIPTOR_EXT);
    set_t(op, SB(Q), TEN(HIPDNN_DATA_BFLOAT16, 2, 4, 8, 16));
    set_t(op, SB(K), TEN(HIPDNN_DATA_BFLOAT16, 2, 2, 10, 16));
    set_t(op, SB(V), TEN(HIPDNN_DATA_BFLOAT16, 2, 2, 10, 12));
    set_t(op, SB(O), TEN(HIPDNN_DATA_BFLOAT16, 2, 4, 8, 12));
    set_t(op, SB(DO), TEN(HIPDNN_DATA_BFLOAT16, 2, 4, 8, 12));
    set_t(op, SB(STATS), F32(2, 4, 8, 1));
    set_t(op, SB(DQ), TEN(HIPDNN_DATA_BFLOAT16, 2, 4, 8, 16));
    set_t(op, SB(DK), TEN(HIPDNN_DATA_BFLOAT16, 2, 2, 10, 16));
    set_t(op, SB(DV), TEN(HIPDNN_DATA_BFLOAT16, 2, 2, 10, 12));
    return op;
}
static desc mk_sdpa_bwd_full(void)
{
    desc op = mk_sdpa_bwd();
    set_t(op, SB(ATTN_MASK), F32(1, 4, 8, 10));
    set_t(op, SB(DBIAS), F32(1, 4, 8, 10));
    set_t(op, SB(SEQ_LEN_Q), I32(2, 1, 1, 1));
    set_t(op, SB(SEQ_LEN_KV), I32(2, 1, 1, 1));
    set_bool(op, SBA(PADDING_MASK), true);
    set_f32(op, SBA(DROPOUT_PROBABILITY), 0.1f);
    set_t(op, SB(SEED), scalar_i64(1));
    set_t(op, SB(OFFSET), scalar_i64(2));
    set_t(op, SB(SCALE), scalar_f32(0.25f));
    set_t(op, SB(DROPOUT_SCALE), scalar_f32(1.1f));
    set_t(op, SB(DROPOUT_SCALE_INV), scalar_f32(0.9f));
    set_bool(op, SBA(CAUSAL_MASK), true);
    set_bool(op, SBA(ALIBI_MASK), true);
    set_i64(op, SBA(LEFT_BOUND), 3);
    return op;
}
T(sdpa_bwd, valid)
{
    expect_ok(mk_sdpa_bwd());
    expect_ok(mk_sdpa_bwd_full());
}
T(sdpa_bwd, qkvo)
{
    desc op = mk_sdpa_bwd();
    set_t(op, SB(K), TEN(HIPDNN_DATA_BFLOAT16, 2, 2, 10, 8));
    expect_bad(op, "disagree on the head dim D (16 vs 8)");
    op = mk_sdpa_bwd();
    set_t(op, SB(V), TEN(HIPDNN_DATA_BFLOAT16, 2, 3, 10, 12));
    expect_bad(op, "Q's heads (4) must be a multiple of K's (2) and V's (3)");
    op = mk_sdpa_bwd();
    set_t(op, SB(O), TEN(HIPDNN_DATA_BFLOAT16, 2, 4, 9, 12));
    expect_bad(op, "O [2,4,9,12] must be [2,4,8,12]");
    op = mk_sdpa_bwd();
    set_t(op, SB(V), TEN(HIPDNN_DATA_BFLOAT16, 1, 2, 10, 12));
    expect_bad(op, "V [1,2,10,12] must be [2,*,10,*]");
}
T(sdpa_bwd, gradients)
{
    desc op = mk_sdpa_bwd();
    set_t(op, SB(DO), TEN(HIPDNN_DATA_BFLOAT16, 2, 4, 8, 16));
    expect_bad(op, "DO [2,4,8,16] must have the dims of O [2,4,8,12]");
    op = mk_sdpa_bwd();
    set_t(op, SB(DQ), TEN(HIPDNN_DATA_BFLOAT16, 2, 4, 8, 12));
    expect_bad(op, "DQ [2,4,8,12] must have the dims of Q [2,4,8,16]");
    op = mk_sdpa_bwd();
    set_t(op, SB(DK), TEN(HIPDNN_DATA_BFLOAT16, 2, 4, 10, 16));
    expect_bad(op, "DK [2,4,10,16] must have the dims of K [2,2,10,16]");
    op = mk_sdpa_bwd();
    set_t(op, SB(DV), TEN(HIPDNN_DATA_BFLOAT16, 2, 2, 10, 16));
    expect_bad(op, "DV [2,2,10,16] must have the dims of V [2,2,10,12]");
}
T(sdpa_bwd, stats)
{
    desc op = mk_sdpa_bwd();
    set_t(op, SB(STATS), F32(2, 4, 8));
    expect_bad(op, "STATS [2,4,8] must be [2,4,8,1] ([B,Hq,Sq,1])");
}
T(sdpa_bwd, dbias)
{
    desc op = mk_sdpa_bwd();
    set_t(op, SB(DBIAS), F32(1, 4, 8, 10));
    expect_bad(op, "DBIAS [1,4,8,10] is set but ATTN_MASK (the bias it is the gradient of) is not");
    op = mk_sdpa_bwd_full();
    set_t(op, SB(DBIAS), F32(2, 4, 8, 10));
    expect_bad(op, "DBIAS [2,4,8,10] must have the dims of ATTN_MASK [1,4,8,10]");
}
T(sdpa_bwd, mask_and_seq_lens)
{
    desc op = mk_sdpa_bwd_full();
    set_t(op, SB(ATTN_MASK), F32(1, 4, 1, 11));
    set_t(op, SB(DBIAS), F32(1, 4, 1, 11));
    expect_bad(op, "ATTN_MASK [1,4,1,11] does not broadcast to scores [B,Hq,Sq,Skv] [2,4,8,10]: dim 3 is 11");
    op = mk_sdpa_bwd();
    set_bool(op, SBA(PADDING_MASK), true);
    expect_bad(op, "HIPDNN_ATTR_SDPA_BWD_PADDING_MASK_EXT needs both SEQ_LEN_Q and SEQ_LEN_KV");
    op = mk_sdpa_bwd_full();
    set_t(op, SB(SEQ_LEN_Q), TEN(HIPDNN_DATA_HALF, 2, 1, 1, 1));
    expect_bad(op, "SEQ_LEN_Q has data type HALF");
    op = mk_sdpa_bwd_full();
    set_t(op, SB(SEQ_LEN_KV), I32(1, 1, 1, 1));
    expect_bad(op, "SEQ_LEN_KV [1,1,1,1] must be [2,1,1,1]");
}
T(sdpa_bwd, dropout)
{
    desc op = mk_sdpa_bwd_full();
    set_f32(op, SBA(DROPOUT_PROBABILITY), 1.5f);
    expect_bad(op, "HIPDNN_ATTR_SDPA_BWD_DROPOUT_PROBABILITY_EXT 1.5 is outside [0, 1)");
    op = mk_sdpa_bwd();
    set_f32(op, SBA(DROPOUT_PROBABILITY), 0.3f);
    set_t(op, SB(OFFSET), scalar_i64(2));
    expect_bad(op, "DROPOUT_PROBABILITY_EXT 0.3 needs SEED and OFFSET");
    op = mk_sdpa_bwd();
    set_f32(op, SBA(DROPOUT_PROBABILITY), 0.3f);
    set_t(op, SB(DROPOUT_MASK), TEN(HIPDNN_DATA_HALF, 2, 4, 8, 10));
    expect_ok(op);
    op = mk_sdpa_bwd_full();
    set_t(op, SB(DROPOUT_SCALE_INV), F32(2, 1, 1, 1));
    expect_bad(op, "DROPOUT_SCALE_INV [2,1,1,1] must be a scalar");
    op = mk_sdpa_bwd_full();
    set_t(op, SB(SEED), I32(1, 1, 2, 1));
    expect_bad(op, "SEED [1,1,2,1] must be a scalar");
}
T(sdpa_bwd, scale_bounds_alibi)
{
    desc op = mk_sdpa_bwd_full();
    set_f32(op, SBA(ATTN_SCALE_VALUE), 0.25f);
    expect_bad(op, "HIPDNN_ATTR_SDPA_BWD_ATTN_SCALE_VALUE_EXT and the scale tensor "
                   "HIPDNN_ATTR_OPERATION_SDPA_BWD_SCALE_EXT are both set");
    op = mk_sdpa_bwd();
    set_i64(op, SBA(LEFT_BOUND), -3);
    expect_bad(op, "HIPDNN_ATTR_SDPA_BWD_LEFT_BOUND_EXT -3 must be >= 1");
    op = mk_sdpa_bwd();
    set_i64(op, SBA(RIGHT_BOUND), -1);
    expect_bad(op, "HIPDNN_ATTR_SDPA_BWD_RIGHT_BOUND_EXT -1 must be >= 0");
    op = mk_sdpa_bwd();
    set_bool(op, SBA(ALIBI_MASK), true);
    expect_bad(op, "HIPDNN_ATTR_SDPA_BWD_ALIBI_MASK_EXT needs a causal mask");
    op = mk_sdpa_bwd();
    set_t(op, SB(SCALE), F32(1, 1, 1, 4));
    expect_bad(op, "SCALE [1,1,1,4] must be a scalar");
}

/* ==== paged cache load =================================================================================== */

#define PCL(x) HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_##x##_EXT
/* container [nblk 6, H 2, bs 4, D 16], page table [B 2,1,P 3,1]: up to 12 tokens a batch */
static desc pcl(desc y)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR);
    set_t(op, PCL(CONTAINER_DESC), TEN(HIPDNN_DATA_HALF, 6, 2, 4, 16));
    set_t(op, PCL(YDESC), y);
    set_t(op, PCL(SEQUENCE_DESC), I32(2, 1, 1, 1));
    set_t(op, PCL(PAGE_TABLE_DESC), I32(2, 1, 3, 1));
    return op;
}
static desc mk_pcl(void) { return pcl(TEN(HIPDNN_DATA_HALF, 2, 2, 12, 16)); }
static desc mk_pcl_transposed(void) { return pcl(TEN(HIPDNN_DATA_HALF, 2, 2, 16, 10)); }

T(paged_cache_load, valid)
{
    expect_ok(mk_pcl());
    expect_ok(mk_pcl_transposed());
}
T(paged_cache_load, ranks)
{
    desc op = mk_pcl();
    set_t(op, PCL(CONTAINER_DESC), TEN(HIPDNN_DATA_HALF, 6, 2, 64));
    expect_bad(op, "CONTAINER [6,2,64] has rank 3, must have rank 4");
    expect_bad(pcl(TEN(HIPDNN_DATA_HALF, 2, 24, 16)), "Y [2,24,16] has rank 3");
}
T(paged_cache_load, page_table)
{
    desc op = mk_pcl();
    set_t(op, PCL(PAGE_TABLE_DESC), I32(2, 2, 3, 1));
    expect_bad(op, "PAGE_TABLE [2,2,3,1] must be [*,1,*,1] ([B,1,P,1])");
    op = mk_pcl();
    set_t(op, PCL(PAGE_TABLE_DESC), F32(2, 1, 3, 1));
    expect_bad(op, "PAGE_TABLE has data type FLOAT, must be INT32 or INT64");
}
T(paged_cache_load, seq_lens)
{
    desc op = mk_pcl();
    set_t(op, PCL(SEQUENCE_DESC), I32(3, 1, 1, 1));
    expect_bad(op, "SEQUENCE [3,1,1,1] must be [2,1,1,1]");
    op = mk_pcl();
    set_t(op, PCL(SEQUENCE_DESC), TEN(HIPDNN_DATA_UINT8, 2, 1, 1, 1));
    expect_bad(op, "SEQUENCE has data type UINT8, must be INT32 or INT64");
}
T(paged_cache_load, y_batch_heads)
{
    expect_bad(pcl(TEN(HIPDNN_DATA_HALF, 3, 2, 12, 16)), "Y [3,2,12,16] must be [B,H,..] with B from PAGE_TABLE");
    expect_bad(pcl(TEN(HIPDNN_DATA_HALF, 2, 4, 12, 16)), "Y [2,4,12,16] must be [B,H,..]");
}
T(paged_cache_load, y_head_dim)
{
    expect_bad(pcl(TEN(HIPDNN_DATA_HALF, 2, 2, 12, 8)), "Y [2,2,12,8] must be [B,H,S,D] or [B,H,D,S] with D = 16");
}
T(paged_cache_load, y_sequence_too_long)
{
    expect_bad(pcl(TEN(HIPDNN_DATA_HALF, 2, 2, 13, 16)), "Y [2,2,13,16]: the sequence dim exceeds the 12 tokens");
    expect_bad(pcl(TEN(HIPDNN_DATA_HALF, 2, 2, 16, 20)), "Y [2,2,16,20]: the sequence dim exceeds");
}

/* ==== block-scale quantize / dequantize ================================================================== */

#define BSQ(x) HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_##x
static desc bsq(desc x, desc y, desc scale, int32_t block)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_BLOCK_SCALE_QUANTIZE_DESCRIPTOR_EXT);
    set_t(op, BSQ(XDESC), x);
    set_t(op, BSQ(YDESC), y);
    set_t(op, BSQ(SCALE_DESC), scale);
    set_i32(op, BSQ(BLOCK_SIZE), block);
    return op;
}
/* MXFP8: X [4,64] in blocks of 32 along the last dim */
static desc mk_bsq(void)
{
    return bsq(F32(4, 64), TEN(HIPDNN_DATA_FP8_E4M3, 4, 64), TEN(HIPDNN_DATA_FP8_E8M0, 4, 2), 32);
}
/* NVFP4 along axis 0, transposed */
static desc mk_bsq_axis0(void)
{
    desc op = bsq(F32(64, 4), TEN(HIPDNN_DATA_FP4_E2M1, 64, 4), TEN(HIPDNN_DATA_FP8_E4M3, 4, 4), 16);
    set_i64(op, BSQ(AXIS_EXT), 0);
    set_bool(op, BSQ(TRANSPOSE_EXT), true);
    return op;
}
T(bs_quantize, valid)
{
    expect_ok(mk_bsq());
    expect_ok(mk_bsq_axis0());
    expect_ok(bsq(F32(2, 32), TEN(HIPDNN_DATA_INT8, 2, 32), TEN(HIPDNN_DATA_FP8_E8M0, 2, 1), 32));
    expect_ok(bsq(F32(2, 32), TEN(HIPDNN_DATA_FP8_E5M2, 2, 32), TEN(HIPDNN_DATA_FP8_E8M0, 2, 1), 32));
}
T(bs_quantize, block_size)
{
    desc op = mk_bsq();
    set_i32(op, BSQ(BLOCK_SIZE), 0);
    expect_bad(op, "HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_BLOCK_SIZE 0 must be > 0");
    op = mk_bsq();
    set_i32(op, BSQ(BLOCK_SIZE), -32);
    expect_bad(op, "BLOCK_SIZE -32 must be > 0");
}
T(bs_quantize, axis_range)
{
    desc op = mk_bsq();
    set_i64(op, BSQ(AXIS_EXT), 2);
    expect_bad(op, "HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_AXIS_EXT 2 is outside [0, 2) for X [4,64]");
    op = mk_bsq();
    set_i64(op, BSQ(AXIS_EXT), -1);
    expect_bad(op, "AXIS_EXT -1 is outside [0, 2)");
}
T(bs_quantize, not_multiple_of_block)
{
    desc op = mk_bsq();
    set_i32(op, BSQ(BLOCK_SIZE), 24);
    expect_bad(op, "X [4,64]: dim 1 (64) is not a multiple of BLOCK_SIZE 24");
    op = mk_bsq(); /* the default axis is the last: dim 0 (4) is never blocked */
    set_i64(op, BSQ(AXIS_EXT), 0);
    expect_bad(op, "dim 0 (4) is not a multiple of BLOCK_SIZE 32");
}
T(bs_quantize, y_dims)
{
    desc op = mk_bsq();
    set_t(op, BSQ(YDESC), TEN(HIPDNN_DATA_FP8_E4M3, 4, 32));
    expect_bad(op, "Y [4,32] must have the dims of X [4,64]");
}
T(bs_quantize, scale_dims)
{
    desc op = mk_bsq();
    set_t(op, BSQ(SCALE_DESC), TEN(HIPDNN_DATA_FP8_E8M0, 4, 4));
    expect_bad(op, "SCALE [4,4] must be [4,2] (X's dims with the blocked axis divided by BLOCK_SIZE)");
    op = mk_bsq_axis0();
    set_t(op, BSQ(SCALE_DESC), TEN(HIPDNN_DATA_FP8_E4M3, 64, 1));
    expect_bad(op, "SCALE [64,1] must be [4,4]");
}
T(bs_quantize, types)
{
    desc op = mk_bsq();
    set_t(op, BSQ(YDESC), TEN(HIPDNN_DATA_HALF, 4, 64));
    expect_bad(op, "Y has data type HALF; must be FP8_E4M3, FP8_E5M2, FP4_E2M1 or INT8");
    op = mk_bsq();
    set_t(op, BSQ(SCALE_DESC), F32(4, 2));
    expect_bad(op, "SCALE has data type FLOAT; must be FP8_E8M0 or FP8_E4M3");
}

#define BSD(x) HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_##x
static desc bsd(desc x, desc scale, desc y)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_BLOCK_SCALE_DEQUANTIZE_DESCRIPTOR_EXT);
    set_t(op, BSD(XDESC), x);
    set_t(op, BSD(SCALE_DESC), scale);
    set_t(op, BSD(YDESC), y);
    return op;
}
/* matmul A [b 2, M 64, K 128] in blocks [1,32] along K */
static desc mk_bsd(void)
{
    desc op = bsd(TEN(HIPDNN_DATA_FP8_E4M3, 2, 64, 128), TEN(HIPDNN_DATA_FP8_E8M0, 2, 64, 4), F32(2, 64, 128));
    SET_I32S(op, BSD(BLOCK_SIZE), 1, 32);
    return op;
}
/* matmul B [b, K 128, N 64] in blocks [32,1] along K; scale padded to the 128x4 layout and
 * shared across the batch */
static desc mk_bsd_b_padded(void)
{
    desc op = bsd(TEN(HIPDNN_DATA_FP8_E4M3, 2, 100, 64), TEN(HIPDNN_DATA_FP8_E8M0, 1, 4, 128), F32(2, 100, 64));
    SET_I32S(op, BSD(BLOCK_SIZE), 32, 1);
    return op;
}
T(bs_dequantize, valid)
{
    expect_ok(mk_bsd());
    expect_ok(mk_bsd_b_padded());
    desc op = bsd(TEN(HIPDNN_DATA_FP4_E2M1, 4, 48), TEN(HIPDNN_DATA_FP8_E4M3, 4, 3), F32(4, 48));
    SET_I32S(op, BSD(BLOCK_SIZE), 16); /* one entry: the last dim */
    expect_ok(op);
}
T(bs_dequantize, block_entries)
{
    desc op = mk_bsd();
    SET_I32S(op, BSD(BLOCK_SIZE), 1, 0);
    expect_bad(op, "HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_BLOCK_SIZE entry 1 is 0, must be > 0");
    op = mk_bsd();
    SET_I32S(op, BSD(BLOCK_SIZE), -1, 32);
    expect_bad(op, "BLOCK_SIZE entry 0 is -1, must be > 0");
    op = mk_bsd();
    SET_I32S(op, BSD(BLOCK_SIZE), 1, 1, 1, 32);
    expect_bad(op, "BLOCK_SIZE has 4 entries, more than X [2,64,128] has dims");
}
T(bs_dequantize, scale_too_small)
{
    desc op = mk_bsd();
    set_t(op, BSD(SCALE_DESC), TEN(HIPDNN_DATA_FP8_E8M0, 2, 64, 3));
    expect_bad(op, "SCALE [2,64,3]: dim 2 is 3, needs at least ceil(128 / 32) = 4 (X [2,64,128])");
    op = mk_bsd();
    set_t(op, BSD(SCALE_DESC), TEN(HIPDNN_DATA_FP8_E8M0, 2, 32, 4));
    expect_bad(op, "SCALE [2,32,4]: dim 1 is 32, needs at least ceil(64 / 1) = 64");
    op = mk_bsd_b_padded(); /* ceil(100 / 32) = 4 */
    set_t(op, BSD(SCALE_DESC), TEN(HIPDNN_DATA_FP8_E8M0, 1, 3, 64));
    expect_bad(op, "dim 1 is 3, needs at least ceil(100 / 32) = 4");
}
T(bs_dequantize, scale_leading_and_rank)
{
    desc op = mk_bsd();
    set_t(op, BSD(SCALE_DESC), TEN(HIPDNN_DATA_FP8_E8M0, 3, 64, 4));
    expect_bad(op, "SCALE [3,64,4]: dim 0 is 3, must be X's (2) or 1");
    op = mk_bsd();
    set_t(op, BSD(SCALE_DESC), TEN(HIPDNN_DATA_FP8_E8M0, 64, 4));
    expect_bad(op, "SCALE [64,4] has rank 2, must have rank 3");
}
T(bs_dequantize, y_dims)
{
    desc op = mk_bsd();
    set_t(op, BSD(YDESC), F32(2, 128, 64));
    expect_bad(op, "Y [2,128,64] must have the dims of X [2,64,128]");
}

/* ==== custom op ============================================================================================ */

#define CO(x) HIPDNN_ATTR_OPERATION_CUSTOM_OP_##x##_EXT
static desc mk_custom(void)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_CUSTOM_OP_DESCRIPTOR_EXT);
    set(op, CO(ID), HIPDNN_TYPE_CHAR, 12, "example.rope");
    desc in[2] = {F32(2, 8, 16), F32(8, 16)}, out = F32(2, 8, 16);
    set(op, CO(INPUTS), HIPDNN_TYPE_BACKEND_DESCRIPTOR, 2, in);
    set(op, CO(OUTPUTS), HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &out);
    return op;
}
T(custom_op, valid) { expect_ok(mk_custom()); }
T(custom_op, no_outputs)
{
    desc op = op_new(HIPDNN_BACKEND_OPERATION_CUSTOM_OP_DESCRIPTOR_EXT);
    set(op, CO(ID), HIPDNN_TYPE_CHAR, 4, "sink");
    desc in = F32(4);
    set(op, CO(INPUTS), HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &in);
    expect_bad(op, "HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT: at least one output is needed");
}
T(custom_op, empty_id)
{
    desc op = mk_custom();
    /* a NUL byte in an id is refused when set (ids are text: "\0ab" used to pass as empty) */
    cr_expect_eq(hipdnnBackendSetAttribute(op, CO(ID), HIPDNN_TYPE_CHAR, 3, "\0ab"), HIPDNN_STATUS_BAD_PARAM);
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
    hipdnnGetLastErrorString(msg, sizeof msg);
    cr_expect(strstr(msg, "HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT: the text has a NUL byte at offset 0"), "%s", msg);
    op = mk_custom();
    set(op, CO(ID), HIPDNN_TYPE_CHAR, 0, "");
    expect_bad(op, "HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT");
}

/* ==== every valid op in every stride order =================================================================== */

static desc (*const valid_ops[])(void) = {
    mk_pw_add, mk_pw_relu, mk_pw_relu_bwd, mk_pw_select, mk_pw_gen_index, mk_pw_scalar_mul,
    mk_matmul, mk_matmul_grouped, mk_matmul_bcast, mk_matmul_2d,
    mk_conv_fwd, mk_conv_fwd_3d, mk_conv_fwd_depthwise, mk_conv_bwd_data, mk_conv_bwd_filter,
    mk_bn_inference, mk_bn_inference_2d, mk_bn_inference_variance, mk_bn_training,
    mk_bn_training_min, mk_bn_backward, mk_bn_backward_min, mk_gen_stats,
    mk_layernorm, mk_layernorm_inferred, mk_layernorm_nc11, mk_rmsnorm, mk_rmsnorm_bias_inference,
    mk_sdpa_fwd, mk_sdpa_fwd_full, mk_sdpa_fwd_fp8, mk_sdpa_fwd_custom_dropout, mk_sdpa_fwd_paged, mk_sdpa_fwd_paged_any_skv, mk_sdpa_bwd, mk_sdpa_bwd_full,
    mk_pcl, mk_pcl_transposed, mk_bsq, mk_bsq_axis0, mk_bsd, mk_bsd_b_padded, mk_custom,
};

T(layouts, every_valid_op_in_every_stride_order)
{
    for (g_layout = 0; g_layout < N_LAYOUTS; g_layout++)
        for (size_t i = 0; i < sizeof valid_ops / sizeof valid_ops[0]; i++) {
            desc op = valid_ops[i]();
            hipdnnStatus_t st = hipdnnBackendFinalize(op);
            char msg[HIPDNN_ERROR_STRING_MAX_LENGTH] = "";
            hipdnnGetLastErrorString(msg, sizeof msg);
            cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "layout %d, builder %zu: %s", g_layout, i, msg);
            pool_free();
        }
}

T(layouts, invalid_stays_invalid_in_every_stride_order)
{
    for (g_layout = 0; g_layout < N_LAYOUTS; g_layout++) {
        desc op = mk_matmul();
        set_t(op, MM_B, F32(4, 48, 16));
        expect_bad(op, "disagree on K (32 vs 48)");
        op = mk_sdpa_fwd();
        set_t(op, SFX(ATTN_MASK), TEN(HIPDNN_DATA_HALF, 2, 1, 8, 9));
        expect_bad(op, "ATTN_MASK [2,1,8,9] does not broadcast");
        pool_free();
    }
}

/* ==== a failed finalize leaves the op unfinalized; a fix then finalizes ======================================== */

/* Setting works only on an unfinalized descriptor, and reading most attributes only on a
 * finalized one: both are observed. */
static void expect_unfinalized(desc op, hipdnnBackendAttributeName_t a)
{
    desc got = NULL;
    int64_t n = 0;
    hipdnnStatus_t st = hipdnnBackendGetAttribute(op, a, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &got);
    cr_assert_eq(st, HIPDNN_STATUS_NOT_INITIALIZED, "readable after a failed finalize");
}

static int64_t uid_of(desc op, hipdnnBackendAttributeName_t a)
{
    desc t = NULL;
    int64_t n = 0, uid = -1;
    check(hipdnnBackendGetAttribute(op, a, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &t), "get tensor");
    cr_assert_eq(n, 1);
    check(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &n, &uid), "get uid");
    hipdnnBackendDestroyDescriptor(t);
    return uid;
}

T(recovery, matmul_fix_b)
{
    desc op = mk_matmul();
    set_t(op, MM_B, F32(4, 31, 16));
    expect_bad(op, "disagree on K");
    expect_unfinalized(op, MM_A);
    desc b = F32(4, 32, 16);
    set_t(op, MM_B, b);
    expect_ok(op);
    int64_t n = 0, b_uid = -1;
    check(hipdnnBackendGetAttribute(b, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &n, &b_uid), "uid");
    cr_assert_eq(uid_of(op, MM_B), b_uid);
    cr_assert_eq(hipdnnBackendSetAttribute(op, MM_B, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b),
                 HIPDNN_STATUS_NOT_INITIALIZED, "finalized now: set must be refused");
}
T(recovery, conv_fix_stride_keeps_values)
{
    desc op = mk_conv_fwd();
    SET_I64S(op, HIPDNN_ATTR_CONVOLUTION_FILTER_STRIDES, 1, 1);
    expect_bad(op, "spatial dim 0 of Y [2,16,5,5] is 5");
    expect_unfinalized(op, CONV_X);
    SET_I64S(op, HIPDNN_ATTR_CONVOLUTION_FILTER_STRIDES, 2, 2);
    expect_ok(op);
    int64_t pre[4] = {0}, n = 0; /* the failed finalize left the attributes as they were */
    check(hipdnnBackendGetAttribute(op, HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS, HIPDNN_TYPE_INT64, 4, &n, pre), "get");
    cr_assert_eq(n, 2);
    cr_assert(pre[0] == 1 && pre[1] == 1);
}
T(recovery, layernorm_fix_phase)
{
    desc op = mk_layernorm();
    set_phase(op, LN(FWD_PHASE), HIPDNN_NORM_FWD_INFERENCE);
    expect_bad(op, "MEAN must not be set");
    expect_unfinalized(op, LN(X));
    set_phase(op, LN(FWD_PHASE), HIPDNN_NORM_FWD_TRAINING);
    expect_ok(op);
}
T(recovery, sdpa_add_stats)
{
    desc op = mk_sdpa_fwd();
    set_bool(op, SFA(GENERATE_STATS), true);
    expect_bad(op, "STATS is not set");
    expect_unfinalized(op, SF(QDESC));
    set_t(op, SF(STATSDESC), F32(2, 4, 8, 1));
    expect_ok(op);
}
T(recovery, pointwise_fix_axis)
{
    desc op = mk_pw_gen_index();
    set_i64(op, HIPDNN_ATTR_POINTWISE_AXIS, 5);
    expect_bad(op, "AXIS 5 is outside [0, 2)");
    expect_unfinalized(op, PW_IN0);
    set_i64(op, HIPDNN_ATTR_POINTWISE_AXIS, 0);
    expect_ok(op);
}
