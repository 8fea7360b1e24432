/* test_fe_op_shapes.c — finalize-time rules of every operation descriptor (graph/fe_check*.c).
 *
 * Written against the public API only (hipdnn_backend.h): tensors are built and finalized,
 * an operation is given a valid set of attributes by a mk_* builder, one attribute is then
 * replaced or added, and finalize must fail with BAD_PARAM and a message that names the
 * descriptor type and the problem. A failed finalize must leave the op unfinalized (a second
 * finalize fails the same way, a fix then finalizes). Every valid builder also runs with
 * tensors in reversed stride order and with garbage strides on size-1 dims: rules read dims
 * only. Shapes use the letters of op-semantics.md (B, H, S, D; N, C, K; M, N, K).
 *
 * This file: every valid builder in every stride order, and a failed finalize leaving the op
 * unfinalized and fixable. The rules of each op family are in test_fe_op_shapes_<family>.c
 * (gemm, norm, sdpa, quant), the shared helpers in os_util.c.
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipdnn_backend.h"

#include "os_util.h"

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
    for (os_layout = 0; os_layout < N_LAYOUTS; os_layout++)
        for (size_t i = 0; i < sizeof valid_ops / sizeof valid_ops[0]; i++) {
            desc op = valid_ops[i]();
            hipdnnStatus_t st = hipdnnBackendFinalize(op);
            char msg[HIPDNN_ERROR_STRING_MAX_LENGTH] = "";
            hipdnnGetLastErrorString(msg, sizeof msg);
            cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "layout %d, builder %zu: %s", os_layout, i, msg);
            os_pool_free();
        }
}

T(layouts, invalid_stays_invalid_in_every_stride_order)
{
    for (os_layout = 0; os_layout < N_LAYOUTS; os_layout++) {
        desc op = mk_matmul();
        os_set_t(op, MM_B, F32(4, 48, 16));
        os_expect_bad(op, "disagree on K (32 vs 48)");
        op = mk_sdpa_fwd();
        os_set_t(op, SFX(ATTN_MASK), TEN(HIPDNN_DATA_HALF, 2, 1, 8, 9));
        os_expect_bad(op, "ATTN_MASK [2,1,8,9] does not broadcast");
        os_pool_free();
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
    os_check(hipdnnBackendGetAttribute(op, a, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &t), "get tensor");
    cr_assert_eq(n, 1);
    os_check(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &n, &uid), "get uid");
    hipdnnBackendDestroyDescriptor(t);
    return uid;
}

T(recovery, matmul_fix_b)
{
    desc op = mk_matmul();
    os_set_t(op, MM_B, F32(4, 31, 16));
    os_expect_bad(op, "disagree on K");
    expect_unfinalized(op, MM_A);
    desc b = F32(4, 32, 16);
    os_set_t(op, MM_B, b);
    os_expect_ok(op);
    int64_t n = 0, b_uid = -1;
    os_check(hipdnnBackendGetAttribute(b, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &n, &b_uid), "uid");
    cr_assert_eq(uid_of(op, MM_B), b_uid);
    cr_assert_eq(hipdnnBackendSetAttribute(op, MM_B, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b),
                 HIPDNN_STATUS_NOT_INITIALIZED, "finalized now: set must be refused");
}
T(recovery, conv_fix_stride_keeps_values)
{
    desc op = mk_conv_fwd();
    SET_I64S(op, HIPDNN_ATTR_CONVOLUTION_FILTER_STRIDES, 1, 1);
    os_expect_bad(op, "spatial dim 0 of Y [2,16,5,5] is 5");
    expect_unfinalized(op, CONV_X);
    SET_I64S(op, HIPDNN_ATTR_CONVOLUTION_FILTER_STRIDES, 2, 2);
    os_expect_ok(op);
    int64_t pre[4] = {0}, n = 0; /* the failed finalize left the attributes as they were */
    os_check(hipdnnBackendGetAttribute(op, HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS, HIPDNN_TYPE_INT64, 4, &n, pre), "get");
    cr_assert_eq(n, 2);
    cr_assert(pre[0] == 1 && pre[1] == 1);
}
T(recovery, layernorm_fix_phase)
{
    desc op = mk_layernorm();
    set_phase(op, LN(FWD_PHASE), HIPDNN_NORM_FWD_INFERENCE);
    os_expect_bad(op, "MEAN must not be set");
    expect_unfinalized(op, LN(X));
    set_phase(op, LN(FWD_PHASE), HIPDNN_NORM_FWD_TRAINING);
    os_expect_ok(op);
}
T(recovery, sdpa_add_stats)
{
    desc op = mk_sdpa_fwd();
    os_set_bool(op, SFA(GENERATE_STATS), true);
    os_expect_bad(op, "STATS is not set");
    expect_unfinalized(op, SF(QDESC));
    os_set_t(op, SF(STATSDESC), F32(2, 4, 8, 1));
    os_expect_ok(op);
}
T(recovery, pointwise_fix_axis)
{
    desc op = mk_pw_gen_index();
    os_set_i64(op, HIPDNN_ATTR_POINTWISE_AXIS, 5);
    os_expect_bad(op, "AXIS 5 is outside [0, 2)");
    expect_unfinalized(op, PW_IN0);
    os_set_i64(op, HIPDNN_ATTR_POINTWISE_AXIS, 0);
    os_expect_ok(op);
}
