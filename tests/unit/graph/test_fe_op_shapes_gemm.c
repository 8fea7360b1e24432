/* test_fe_op_shapes_gemm.c — finalize-time rules of the pointwise, matmul and convolution
 * (forward, backward data, backward filter) descriptors (graph/fe_check_pointwise.c,
 * fe_check_gemm.c); part of test_fe_op_shapes (see test_fe_op_shapes.c for the method).
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipdnn_backend.h"

#include "os_util.h"

/* ==== pointwise ==================================================================================== */

#define PW_MODE HIPDNN_ATTR_POINTWISE_MODE
#define PW_IN1 HIPDNN_ATTR_OPERATION_POINTWISE_IN_1_EXT
#define PW_IN2 HIPDNN_ATTR_OPERATION_POINTWISE_IN_2_EXT
#define PW_OUT HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT

static desc pw(hipdnnPointwiseMode_t mode, desc in0, desc in1, desc in2, desc out)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    os_set_enum(op, PW_MODE, HIPDNN_TYPE_POINTWISE_MODE, mode);
    os_set_t(op, PW_IN0, in0);
    if (in1)
        os_set_t(op, PW_IN1, in1);
    if (in2)
        os_set_t(op, PW_IN2, in2);
    os_set_t(op, PW_OUT, out);
    return op;
}

/* ADD with broadcasting: [2,3,4] + [1,3,1] -> [2,3,4] */
desc mk_pw_add(void) { return pw(HIPDNN_POINTWISE_ADD, F32(2, 3, 4), F32(1, 3, 1), NULL, F32(2, 3, 4)); }
desc mk_pw_relu(void)
{
    desc op = pw(HIPDNN_POINTWISE_RELU_FWD, F32(2, 3), NULL, NULL, F32(2, 3));
    os_set_f32(op, HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, 0.0f);
    os_set_f32(op, HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, 6.0f);
    return op;
}
desc mk_pw_relu_bwd(void) { return pw(HIPDNN_POINTWISE_RELU_BWD, F32(2, 3), F32(2, 3), NULL, F32(2, 3)); }
desc mk_pw_select(void)
{
    return pw(HIPDNN_POINTWISE_BINARY_SELECT, F32(2, 3), F32(1, 3), TEN(HIPDNN_DATA_BOOLEAN, 2, 1), F32(2, 3));
}
desc mk_pw_gen_index(void)
{
    desc op = pw(HIPDNN_POINTWISE_GEN_INDEX, F32(4, 8), NULL, NULL, I32(4, 8));
    os_set_i64(op, HIPDNN_ATTR_POINTWISE_AXIS, 1);
    return op;
}
/* all inputs may be 1 where the output is not: broadcasting onto the output */
desc mk_pw_scalar_mul(void) { return pw(HIPDNN_POINTWISE_MUL, F32(1, 1), F32(1, 7), NULL, F32(5, 7)); }

T(pointwise, valid) { os_expect_ok(mk_pw_add()); }
T(pointwise, valid_unary_binary_ternary_gen_index)
{
    os_expect_ok(mk_pw_relu());
    os_expect_ok(mk_pw_relu_bwd());
    os_expect_ok(mk_pw_select());
    os_expect_ok(mk_pw_gen_index());
    os_expect_ok(mk_pw_scalar_mul());
}
T(pointwise, unary_with_in1)
{
    desc op = mk_pw_relu();
    os_set_t(op, PW_IN1, F32(2, 3));
    os_expect_bad(op, "IN_1 must not be set");
}
T(pointwise, unary_with_in2)
{
    desc op = mk_pw_relu();
    os_set_t(op, PW_IN2, F32(2, 3));
    os_expect_bad(op, "IN_2 must not be set");
}
T(pointwise, binary_without_in1) { os_expect_bad(pw(HIPDNN_POINTWISE_ADD, F32(2, 3), NULL, NULL, F32(2, 3)), "IN_1 is not set"); }
T(pointwise, binary_with_in2)
{
    desc op = mk_pw_add();
    os_set_t(op, PW_IN2, F32(2, 3, 4));
    os_expect_bad(op, "IN_2 must not be set");
}
T(pointwise, bwd_without_in1)
{
    os_expect_bad(pw(HIPDNN_POINTWISE_SIGMOID_BWD, F32(2, 3), NULL, NULL, F32(2, 3)), "IN_1 is not set");
}
T(pointwise, select_without_in2)
{
    os_expect_bad(pw(HIPDNN_POINTWISE_BINARY_SELECT, F32(2, 3), F32(2, 3), NULL, F32(2, 3)), "IN_2 is not set");
}
T(pointwise, rank_mismatch)
{
    desc op = mk_pw_add();
    os_set_t(op, PW_IN1, F32(3, 1));
    os_expect_bad(op, "IN_1 [3,1] has rank 2, OUT_0 [2,3,4] has rank 3");
}
T(pointwise, no_broadcast)
{
    desc op = mk_pw_add();
    os_set_t(op, PW_IN1, F32(1, 2, 1));
    os_expect_bad(op, "IN_1 [1,2,1] does not broadcast to OUT_0 [2,3,4]: dim 1 is 2, must be 3 or 1");
}
T(pointwise, output_smaller_than_input)
{
    os_expect_bad(pw(HIPDNN_POINTWISE_ADD, F32(2, 3, 4), F32(1, 1, 1), NULL, F32(2, 1, 4)),
               "IN_0 [2,3,4] does not broadcast to OUT_0 [2,1,4]");
}
T(pointwise, select_predicate_no_broadcast)
{
    desc op = mk_pw_select();
    os_set_t(op, PW_IN2, TEN(HIPDNN_DATA_BOOLEAN, 3, 3));
    os_expect_bad(op, "IN_2 [3,3] does not broadcast");
}
T(pointwise, gen_index_without_axis)
{
    os_expect_bad(pw(HIPDNN_POINTWISE_GEN_INDEX, F32(4, 8), NULL, NULL, I32(4, 8)), "GEN_INDEX needs HIPDNN_ATTR_POINTWISE_AXIS");
}
T(pointwise, gen_index_axis_out_of_range)
{
    desc op = mk_pw_gen_index();
    os_set_i64(op, HIPDNN_ATTR_POINTWISE_AXIS, 2);
    os_expect_bad(op, "HIPDNN_ATTR_POINTWISE_AXIS 2 is outside [0, 2)");
    op = mk_pw_gen_index();
    os_set_i64(op, HIPDNN_ATTR_POINTWISE_AXIS, -1);
    os_expect_bad(op, "HIPDNN_ATTR_POINTWISE_AXIS -1 is outside [0, 2)");
}
T(pointwise, relu_clips_inverted)
{
    desc op = mk_pw_relu();
    os_set_f32(op, HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, 7.0f);
    os_expect_bad(op, "HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP 7 exceeds HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP 6");
}
T(pointwise, relu_bwd_clips_inverted)
{
    desc op = mk_pw_relu_bwd();
    os_set_f32(op, HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, 1.0f);
    os_set_f32(op, HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, 0.5f);
    os_expect_bad(op, "RELU_LOWER_CLIP 1 exceeds");
}

/* ==== matmul ======================================================================================== */

#define MM_C HIPDNN_ATTR_OPERATION_MATMUL_CDESC

static desc matmul(desc a, desc b, desc c)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT);
    os_set_t(op, MM_A, a);
    os_set_t(op, MM_B, b);
    os_set_t(op, MM_C, c);
    os_set_dtype(op, HIPDNN_ATTR_MATMUL_COMP_TYPE);
    return op;
}
desc mk_matmul(void) { return matmul(F32(4, 64, 32), F32(4, 32, 16), F32(4, 64, 16)); }
/* GQA-style grouped broadcast (Q x K^T, Hq 8, Hk 2) and plain broadcast of a batch of 1 */
desc mk_matmul_grouped(void) { return matmul(F32(2, 8, 16, 32), F32(2, 2, 32, 16), F32(2, 8, 16, 16)); }
desc mk_matmul_bcast(void) { return matmul(F32(1, 64, 32), F32(4, 32, 16), F32(4, 64, 16)); }
desc mk_matmul_2d(void) { return matmul(F32(3, 5), F32(5, 7), F32(3, 7)); }

T(matmul, valid)
{
    os_expect_ok(mk_matmul());
    os_expect_ok(mk_matmul_grouped());
    os_expect_ok(mk_matmul_bcast());
    os_expect_ok(mk_matmul_2d());
}
T(matmul, rank_below_two) { os_expect_bad(matmul(F32(5), F32(5), F32(1)), "same rank >= 2"); }
T(matmul, rank_mismatch)
{
    desc op = mk_matmul();
    os_set_t(op, MM_B, F32(32, 16));
    os_expect_bad(op, "A [4,64,32], B [32,16] and C [4,64,16] must have the same rank >= 2");
}
T(matmul, k_mismatch)
{
    desc op = mk_matmul();
    os_set_t(op, MM_B, F32(4, 48, 16));
    os_expect_bad(op, "HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT: A [4,64,32] and B [4,48,16] disagree on K (32 vs 48)");
}
T(matmul, m_mismatch)
{
    desc op = mk_matmul();
    os_set_t(op, MM_C, F32(4, 60, 16));
    os_expect_bad(op, "C [4,60,16] and A [4,64,32] disagree on M (60 vs 64)");
}
T(matmul, n_mismatch)
{
    desc op = mk_matmul();
    os_set_t(op, MM_C, F32(4, 64, 17));
    os_expect_bad(op, "disagree on N (17 vs 16)");
}
T(matmul, batch_a)
{
    desc op = mk_matmul();
    os_set_t(op, MM_A, F32(3, 64, 32));
    os_expect_bad(op, "batch dim 0 of A [3,64,32] is 3");
}
T(matmul, batch_b_larger_than_c)
{
    desc op = mk_matmul();
    os_set_t(op, MM_B, F32(8, 32, 16));
    os_expect_bad(op, "batch dim 0 of B [8,32,16] is 8");
}
T(matmul, grouped_heads_not_dividing)
{
    desc op = mk_matmul_grouped();
    os_set_t(op, MM_B, F32(2, 3, 32, 16));
    os_expect_bad(op, "batch dim 1 of B [2,3,32,16]");
}

/* ==== convolutions ================================================================================== */

static void conv_params(desc op, int nsp, const int64_t *pre, const int64_t *post, const int64_t *stride,
                        const int64_t *dil)
{
    os_set(op, HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS, HIPDNN_TYPE_INT64, nsp, pre);
    os_set(op, HIPDNN_ATTR_CONVOLUTION_POST_PADDINGS, HIPDNN_TYPE_INT64, nsp, post);
    os_set(op, HIPDNN_ATTR_CONVOLUTION_FILTER_STRIDES, HIPDNN_TYPE_INT64, nsp, stride);
    os_set(op, HIPDNN_ATTR_CONVOLUTION_DILATIONS, HIPDNN_TYPE_INT64, nsp, dil);
    os_set_enum(op, HIPDNN_ATTR_CONVOLUTION_CONV_MODE, HIPDNN_TYPE_CONVOLUTION_MODE, HIPDNN_CROSS_CORRELATION);
    os_set_dtype(op, HIPDNN_ATTR_CONVOLUTION_COMP_TYPE);
}

static desc conv_fwd(desc x, desc w, desc y)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    os_set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, x);
    os_set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, w);
    os_set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, y);
    return op;
}
/* X [2,8,10,10], W [16,4,3,3] (2 groups), pad 1, stride 2 -> Y [2,16,5,5] */
desc mk_conv_fwd(void)
{
    desc op = conv_fwd(F32(2, 8, 10, 10), F32(16, 4, 3, 3), F32(2, 16, 5, 5));
    conv_params(op, 2, (int64_t[]){1, 1}, (int64_t[]){1, 1}, (int64_t[]){2, 2}, (int64_t[]){1, 1});
    return op;
}
/* 3-D, depthwise-free, no padding: 6 - 3 + 1 = 4 */
desc mk_conv_fwd_3d(void)
{
    desc op = conv_fwd(F32(1, 4, 6, 6, 6), F32(8, 4, 3, 3, 3), F32(1, 8, 4, 4, 4));
    conv_params(op, 3, (int64_t[]){0, 0, 0}, (int64_t[]){0, 0, 0}, (int64_t[]){1, 1, 1}, (int64_t[]){1, 1, 1});
    return op;
}
/* depthwise (G = C = K = 4), dilation 2, asymmetric padding: 1 + (9 + 1 + 0 - 4 - 1) = 6 */
desc mk_conv_fwd_depthwise(void)
{
    desc op = conv_fwd(F32(1, 4, 9, 9), F32(4, 1, 3, 3), F32(1, 4, 6, 5));
    conv_params(op, 2, (int64_t[]){1, 0}, (int64_t[]){0, 0}, (int64_t[]){1, 1}, (int64_t[]){2, 2});
    return op;
}
desc mk_conv_bwd_data(void)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DESCRIPTOR);
    os_set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, F32(2, 16, 5, 5));
    os_set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, F32(16, 4, 3, 3));
    os_set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, F32(2, 8, 10, 10));
    conv_params(op, 2, (int64_t[]){1, 1}, (int64_t[]){1, 1}, (int64_t[]){2, 2}, (int64_t[]){1, 1});
    return op;
}
desc mk_conv_bwd_filter(void)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR);
    os_set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, F32(2, 8, 10, 10));
    os_set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, F32(2, 16, 5, 5));
    os_set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, F32(16, 4, 3, 3));
    conv_params(op, 2, (int64_t[]){1, 1}, (int64_t[]){1, 1}, (int64_t[]){2, 2}, (int64_t[]){1, 1});
    return op;
}

#define CONV_W HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W
#define CONV_Y HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y

T(conv, valid)
{
    os_expect_ok(mk_conv_fwd());
    os_expect_ok(mk_conv_fwd_3d());
    os_expect_ok(mk_conv_fwd_depthwise());
}
T(conv, rank_3)
{
    desc op = conv_fwd(F32(2, 8, 10), F32(16, 8, 3), F32(2, 16, 8));
    conv_params(op, 1, (int64_t[]){0}, (int64_t[]){0}, (int64_t[]){1}, (int64_t[]){1});
    os_expect_bad(op, "X [2,8,10], W [16,8,3] and Y [2,16,8] must all have rank 4 or all rank 5");
}
T(conv, ranks_differ)
{
    desc op = mk_conv_fwd();
    os_set_t(op, CONV_W, F32(16, 4, 3, 3, 1));
    os_expect_bad(op, "must all have rank 4 or all rank 5");
}
T(conv, param_count)
{
    desc op = mk_conv_fwd();
    SET_I64S(op, HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS, 1, 1, 1);
    os_expect_bad(op, "HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS has 3 entries; the tensors have 2 spatial dims");
    op = mk_conv_fwd();
    SET_I64S(op, HIPDNN_ATTR_CONVOLUTION_DILATIONS, 1);
    os_expect_bad(op, "HIPDNN_ATTR_CONVOLUTION_DILATIONS has 1 entries");
}
T(conv, stride_zero)
{
    desc op = mk_conv_fwd();
    SET_I64S(op, HIPDNN_ATTR_CONVOLUTION_FILTER_STRIDES, 2, 0);
    os_expect_bad(op, "HIPDNN_ATTR_CONVOLUTION_FILTER_STRIDES entry 1 is 0, must be >= 1");
}
T(conv, dilation_zero)
{
    desc op = mk_conv_fwd();
    SET_I64S(op, HIPDNN_ATTR_CONVOLUTION_DILATIONS, 0, 1);
    os_expect_bad(op, "HIPDNN_ATTR_CONVOLUTION_DILATIONS entry 0 is 0, must be >= 1");
}
T(conv, negative_padding)
{
    desc op = mk_conv_fwd();
    SET_I64S(op, HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS, -1, 1);
    os_expect_bad(op, "HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS entry 0 is -1, must be >= 0");
    op = mk_conv_fwd();
    SET_I64S(op, HIPDNN_ATTR_CONVOLUTION_POST_PADDINGS, 1, -2);
    os_expect_bad(op, "HIPDNN_ATTR_CONVOLUTION_POST_PADDINGS entry 1 is -2");
}
T(conv, groups_not_whole)
{
    desc op = mk_conv_fwd();
    os_set_t(op, CONV_W, F32(16, 3, 3, 3));
    os_expect_bad(op, "C of X [2,8,10,10] (8) is not a multiple of C of W [16,3,3,3] (3)");
}
T(conv, k_not_divisible_by_groups)
{
    desc op = mk_conv_fwd();
    os_set_t(op, CONV_W, F32(15, 4, 3, 3));
    os_expect_bad(op, "K of W [15,4,3,3] (15) is not divisible by the group count 2");
}
T(conv, n_mismatch)
{
    desc op = mk_conv_fwd();
    os_set_t(op, CONV_Y, F32(3, 16, 5, 5));
    os_expect_bad(op, "N of Y [3,16,5,5] (3) differs from N of X [2,8,10,10] (2)");
}
T(conv, k_mismatch)
{
    desc op = mk_conv_fwd();
    os_set_t(op, CONV_Y, F32(2, 8, 5, 5));
    os_expect_bad(op, "channels of Y [2,8,5,5] (8) differ from K of W [16,4,3,3] (16)");
}
T(conv, spatial_mismatch)
{
    desc op = mk_conv_fwd();
    os_set_t(op, CONV_Y, F32(2, 16, 5, 6));
    os_expect_bad(op, "spatial dim 1 of Y [2,16,5,6] is 6, but X [2,8,10,10] and W [16,4,3,3] with padding 1+1, "
                   "stride 2, dilation 1 give 5");
}
T(conv, empty_output)
{
    desc op = conv_fwd(F32(1, 4, 2, 2), F32(4, 4, 5, 5), F32(1, 4, 1, 1));
    conv_params(op, 2, (int64_t[]){0, 0}, (int64_t[]){0, 0}, (int64_t[]){1, 1}, (int64_t[]){1, 1});
    os_expect_bad(op, "spatial dim 0: the dilated filter (5) is larger than the padded input (2)");
}
T(conv_bwd_data, valid)
{
    os_expect_ok(mk_conv_bwd_data());
    /* stride 2 leaves DX ambiguous: 9 gives the same DY as 10 */
    desc op = mk_conv_bwd_data();
    os_set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, F32(2, 8, 9, 10));
    os_expect_ok(op);
}
T(conv_bwd_data, spatial_mismatch)
{
    desc op = mk_conv_bwd_data();
    os_set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, F32(2, 8, 12, 10));
    os_expect_bad(op, "spatial dim 0 of DY [2,16,5,5] is 5, but DX [2,8,12,10]");
}
T(conv_bwd_data, channels)
{
    desc op = mk_conv_bwd_data();
    os_set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, F32(2, 12, 5, 5));
    os_expect_bad(op, "channels of DY [2,12,5,5] (12) differ from K of W");
}
T(conv_bwd_filter, valid) { os_expect_ok(mk_conv_bwd_filter()); }
T(conv_bwd_filter, spatial_mismatch)
{
    desc op = mk_conv_bwd_filter();
    os_set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, F32(16, 4, 5, 5));
    os_expect_bad(op, "spatial dim 0 of DY [2,16,5,5] is 5, but X [2,8,10,10] and DW [16,4,5,5]");
}
T(conv_bwd_filter, groups)
{
    desc op = mk_conv_bwd_filter();
    os_set_t(op, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, F32(16, 3, 3, 3));
    os_expect_bad(op, "is not a multiple of C of DW [16,3,3,3] (3)");
}

