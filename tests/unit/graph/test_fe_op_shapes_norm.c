/* test_fe_op_shapes_norm.c — finalize-time rules of the batchnorm family (inference,
 * inference-variance, training, backward), gen-stats, layernorm and rmsnorm descriptors
 * (graph/fe_check_norm.c); part of test_fe_op_shapes (see test_fe_op_shapes.c for the method).
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipdnn_backend.h"

#include "os_util.h"

/* ==== batchnorm family, gen-stats ==================================================================== */

#define BNI(x) HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_##x##_EXT
desc mk_bn_inference(void)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_BATCHNORM_INFERENCE_DESCRIPTOR_EXT);
    os_set_t(op, BNI(X), F32(4, 8, 5, 5));
    os_set_t(op, BNI(MEAN), F32(1, 8, 1, 1));
    os_set_t(op, BNI(INV_VARIANCE), F32(1, 8, 1, 1));
    os_set_t(op, BNI(SCALE), F32(1, 8, 1, 1));
    os_set_t(op, BNI(BIAS), F32(1, 8, 1, 1));
    os_set_t(op, BNI(Y), F32(4, 8, 5, 5));
    return op;
}
desc mk_bn_inference_2d(void)
{
    desc op = mk_bn_inference();
    os_set_t(op, BNI(X), F32(16, 8));
    os_set_t(op, BNI(Y), F32(16, 8));
    desc pc[4] = {F32(1, 8), F32(1, 8), F32(1, 8), F32(1, 8)};
    os_set_t(op, BNI(MEAN), pc[0]);
    os_set_t(op, BNI(INV_VARIANCE), pc[1]);
    os_set_t(op, BNI(SCALE), pc[2]);
    os_set_t(op, BNI(BIAS), pc[3]);
    return op;
}

T(bn_inference, valid)
{
    os_expect_ok(mk_bn_inference());
    os_expect_ok(mk_bn_inference_2d());
}
T(bn_inference, x_rank_1)
{
    desc op = mk_bn_inference();
    os_set_t(op, BNI(X), F32(8));
    os_expect_bad(op, "X [8] has rank 1, must have rank 2..8");
}
T(bn_inference, y_dims)
{
    desc op = mk_bn_inference();
    os_set_t(op, BNI(Y), F32(4, 8, 5, 6));
    os_expect_bad(op, "Y [4,8,5,6] must have the dims of X [4,8,5,5]");
}
T(bn_inference, per_channel)
{
    desc op = mk_bn_inference();
    os_set_t(op, BNI(MEAN), F32(1, 4, 1, 1));
    os_expect_bad(op, "MEAN [1,4,1,1] must be [1,8,1,1] (per-channel [1,C,1,..] of X)");
    op = mk_bn_inference();
    os_set_t(op, BNI(INV_VARIANCE), F32(8));
    os_expect_bad(op, "INV_VARIANCE [8] must be [1,8,1,1]");
    op = mk_bn_inference();
    os_set_t(op, BNI(SCALE), F32(1, 8, 1, 2));
    os_expect_bad(op, "SCALE [1,8,1,2] must be [1,8,1,1]");
    op = mk_bn_inference();
    os_set_t(op, BNI(BIAS), F32(1, 8, 1, 1, 1));
    os_expect_bad(op, "BIAS [1,8,1,1,1] must be [1,8,1,1]");
}

#define BNV(x) HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_##x##_EXT
desc mk_bn_inference_variance(void)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_BATCHNORM_INFERENCE_VARIANCE_DESCRIPTOR_EXT);
    os_set_t(op, BNV(X), F32(4, 8, 5, 5));
    os_set_t(op, BNV(MEAN), F32(1, 8, 1, 1));
    os_set_t(op, BNV(VARIANCE), F32(1, 8, 1, 1));
    os_set_t(op, BNV(SCALE), F32(1, 8, 1, 1));
    os_set_t(op, BNV(BIAS), F32(1, 8, 1, 1));
    os_set_t(op, BNV(Y), F32(4, 8, 5, 5));
    os_set_t(op, BNV(EPSILON), os_scalar_f32(1e-5f));
    return op;
}
T(bn_inference_variance, valid) { os_expect_ok(mk_bn_inference_variance()); }
T(bn_inference_variance, epsilon_not_scalar)
{
    desc op = mk_bn_inference_variance();
    os_set_t(op, BNV(EPSILON), F32(1, 2, 1, 1));
    os_expect_bad(op, "EPSILON [1,2,1,1] must be a scalar (all dims 1)");
}
T(bn_inference_variance, variance_per_channel)
{
    desc op = mk_bn_inference_variance();
    os_set_t(op, BNV(VARIANCE), F32(1, 8, 2, 1));
    os_expect_bad(op, "VARIANCE [1,8,2,1] must be [1,8,1,1]");
}
T(bn_inference_variance, y_and_rank)
{
    desc op = mk_bn_inference_variance();
    os_set_t(op, BNV(Y), F32(4, 8, 25));
    os_expect_bad(op, "Y [4,8,25] must have the dims of X");
    op = mk_bn_inference_variance();
    os_set_t(op, BNV(X), F32(8));
    os_expect_bad(op, "X [8] has rank 1");
}

#define BNT(x) HIPDNN_ATTR_OPERATION_BATCHNORM_##x##_EXT
desc mk_bn_training_min(void)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_BATCHNORM_DESCRIPTOR_EXT);
    os_set_t(op, BNT(X), F32(4, 8, 5, 5));
    os_set_t(op, BNT(SCALE), F32(1, 8, 1, 1));
    os_set_t(op, BNT(BIAS), F32(1, 8, 1, 1));
    os_set_t(op, BNT(EPSILON), os_scalar_f32(1e-5f));
    os_set_t(op, BNT(Y), F32(4, 8, 5, 5));
    os_set_t(op, BNT(MEAN), F32(1, 8, 1, 1));
    os_set_t(op, BNT(INV_VARIANCE), F32(1, 8, 1, 1));
    return op;
}
desc mk_bn_training(void)
{
    desc op = mk_bn_training_min();
    os_set_t(op, BNT(PREV_RUNNING_MEAN), F32(1, 8, 1, 1));
    os_set_t(op, BNT(PREV_RUNNING_VARIANCE), F32(1, 8, 1, 1));
    os_set_t(op, BNT(MOMENTUM), os_scalar_f32(0.1f));
    os_set_t(op, BNT(NEXT_RUNNING_MEAN), F32(1, 8, 1, 1));
    os_set_t(op, BNT(NEXT_RUNNING_VARIANCE), F32(1, 8, 1, 1));
    return op;
}
T(bn_training, valid)
{
    os_expect_ok(mk_bn_training());
    os_expect_ok(mk_bn_training_min());
}
T(bn_training, x_rank_and_y)
{
    desc op = mk_bn_training();
    os_set_t(op, BNT(X), F32(8));
    os_expect_bad(op, "X [8] has rank 1");
    op = mk_bn_training();
    os_set_t(op, BNT(Y), F32(4, 8, 5, 4));
    os_expect_bad(op, "Y [4,8,5,4] must have the dims of X [4,8,5,5]");
}
T(bn_training, scalars)
{
    desc op = mk_bn_training();
    os_set_t(op, BNT(EPSILON), F32(2));
    os_expect_bad(op, "EPSILON [2] must be a scalar");
    op = mk_bn_training();
    os_set_t(op, BNT(MOMENTUM), F32(1, 8, 1, 1));
    os_expect_bad(op, "MOMENTUM [1,8,1,1] must be a scalar");
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
        os_set_t(op, ids[i], F32(1, 8, 5, 5));
        char needle[96];
        snprintf(needle, sizeof needle, "%s [1,8,5,5] must be [1,8,1,1]", names[i]);
        os_expect_bad(op, needle);
    }
}
T(bn_training, running_stats_together)
{
    desc op = mk_bn_training_min();
    os_set_t(op, BNT(PREV_RUNNING_MEAN), F32(1, 8, 1, 1));
    os_set_t(op, BNT(PREV_RUNNING_VARIANCE), F32(1, 8, 1, 1));
    os_expect_bad(op, "PREV_RUNNING_MEAN, PREV_RUNNING_VARIANCE and MOMENTUM must be set together "
                   "(PREV_RUNNING_MEAN is set, MOMENTUM is not)");
    op = mk_bn_training_min();
    os_set_t(op, BNT(MOMENTUM), os_scalar_f32(0.1f));
    os_expect_bad(op, "must be set together (MOMENTUM is set, PREV_RUNNING_MEAN is not)");
}
T(bn_training, next_requires_prev)
{
    desc op = mk_bn_training_min();
    os_set_t(op, BNT(NEXT_RUNNING_VARIANCE), F32(1, 8, 1, 1));
    os_expect_bad(op, "NEXT_RUNNING_VARIANCE is set but PREV_RUNNING_MEAN, PREV_RUNNING_VARIANCE and MOMENTUM are not");
}
T(bn_training, prev_requires_next)
{
    desc op = mk_bn_training_min();
    os_set_t(op, BNT(PREV_RUNNING_MEAN), F32(1, 8, 1, 1));
    os_set_t(op, BNT(PREV_RUNNING_VARIANCE), F32(1, 8, 1, 1));
    os_set_t(op, BNT(MOMENTUM), os_scalar_f32(0.1f));
    os_set_t(op, BNT(NEXT_RUNNING_MEAN), F32(1, 8, 1, 1));
    os_expect_bad(op, "NEXT_RUNNING_VARIANCE must be set when the running statistics");
}

#define BNB(x) HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_##x##_EXT
desc mk_bn_backward_min(void)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_BATCHNORM_BACKWARD_DESCRIPTOR_EXT);
    os_set_t(op, BNB(DY), F32(4, 8, 5, 5));
    os_set_t(op, BNB(X), F32(4, 8, 5, 5));
    os_set_t(op, BNB(SCALE), F32(1, 8, 1, 1));
    os_set_t(op, BNB(DX), F32(4, 8, 5, 5));
    os_set_t(op, BNB(DSCALE), F32(1, 8, 1, 1));
    os_set_t(op, BNB(DBIAS), F32(1, 8, 1, 1));
    return op;
}
desc mk_bn_backward(void)
{
    desc op = mk_bn_backward_min();
    os_set_t(op, BNB(MEAN), F32(1, 8, 1, 1));
    os_set_t(op, BNB(INV_VARIANCE), F32(1, 8, 1, 1));
    return op;
}
T(bn_backward, valid)
{
    os_expect_ok(mk_bn_backward());
    os_expect_ok(mk_bn_backward_min());
}
T(bn_backward, x_rank_dy_dx)
{
    desc op = mk_bn_backward();
    os_set_t(op, BNB(X), F32(8));
    os_expect_bad(op, "X [8] has rank 1");
    op = mk_bn_backward();
    os_set_t(op, BNB(DY), F32(4, 8, 5, 1));
    os_expect_bad(op, "DY [4,8,5,1] must have the dims of X [4,8,5,5]");
    op = mk_bn_backward();
    os_set_t(op, BNB(DX), F32(4, 8, 1, 5));
    os_expect_bad(op, "DX [4,8,1,5] must have the dims of X");
}
T(bn_backward, per_channel)
{
    static const hipdnnBackendAttributeName_t ids[] = {BNB(MEAN), BNB(INV_VARIANCE), BNB(SCALE),
                                                       BNB(DSCALE), BNB(DBIAS)};
    static const char *const names[] = {"MEAN", "INV_VARIANCE", "SCALE", "DSCALE", "DBIAS"};
    for (int i = 0; i < 5; i++) {
        desc op = mk_bn_backward();
        os_set_t(op, ids[i], F32(4, 8, 1, 1));
        char needle[96];
        snprintf(needle, sizeof needle, "%s [4,8,1,1] must be [1,8,1,1]", names[i]);
        os_expect_bad(op, needle);
    }
}
T(bn_backward, mean_without_inv_variance)
{
    desc op = mk_bn_backward_min();
    os_set_t(op, BNB(MEAN), F32(1, 8, 1, 1));
    os_expect_bad(op, "MEAN and INV_VARIANCE must be set together (MEAN is set, INV_VARIANCE is not)");
    op = mk_bn_backward_min();
    os_set_t(op, BNB(INV_VARIANCE), F32(1, 8, 1, 1));
    os_expect_bad(op, "(INV_VARIANCE is set, MEAN is not)");
}

#define GS(x) HIPDNN_ATTR_OPERATION_GENSTATS_##x##_EXT
desc mk_gen_stats(void)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR);
    os_set_t(op, GS(XDESC), TEN(HIPDNN_DATA_HALF, 4, 8, 5, 5));
    os_set_t(op, GS(SUMDESC), F32(1, 8, 1, 1));
    os_set_t(op, GS(SQSUMDESC), F32(1, 8, 1, 1));
    return op;
}
T(gen_stats, valid)
{
    os_expect_ok(mk_gen_stats());
    desc op = mk_gen_stats();
    os_set_i64(op, GS(MODE), 0);
    os_expect_ok(op);
}
T(gen_stats, per_channel)
{
    desc op = mk_gen_stats();
    os_set_t(op, GS(SUMDESC), F32(1, 8, 1, 2));
    os_expect_bad(op, "SUM [1,8,1,2] must be [1,8,1,1] (per-channel");
    op = mk_gen_stats();
    os_set_t(op, GS(SQSUMDESC), F32(1, 4, 1, 1));
    os_expect_bad(op, "SQ_SUM [1,4,1,1] must be [1,8,1,1]");
}
T(gen_stats, mode)
{
    desc op = mk_gen_stats();
    os_set_i64(op, GS(MODE), 1);
    os_expect_bad(op, "HIPDNN_ATTR_OPERATION_GENSTATS_MODE_EXT is 1");
}
T(gen_stats, x_rank_1)
{
    desc op = mk_gen_stats();
    os_set_t(op, GS(XDESC), F32(8));
    os_expect_bad(op, "X [8] has rank 1");
}

/* ==== layernorm, rmsnorm ============================================================================ */

void set_phase(desc op, hipdnnBackendAttributeName_t a, hipdnnNormFwdPhase_t p)
{
    os_set_enum(op, a, HIPDNN_TYPE_NORM_FWD_PHASE, p);
}
/* X [4,6,8] normalized over the last dim */
desc mk_layernorm(void)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_LAYERNORM_DESCRIPTOR_EXT);
    os_set_t(op, LN(X), F32(4, 6, 8));
    os_set_t(op, LN(SCALE), F32(1, 1, 8));
    os_set_t(op, LN(BIAS), F32(1, 1, 8));
    os_set_t(op, LN(EPSILON), os_tensor(HIPDNN_DATA_FLOAT, DIMS(1), &(float){1e-5f}, 4));
    os_set_t(op, LN(Y), F32(4, 6, 8));
    os_set_t(op, LN(MEAN), F32(4, 6, 1));
    os_set_t(op, LN(INV_VARIANCE), F32(4, 6, 1));
    os_set_i64(op, LN(NORMALIZED_DIM_COUNT), 1);
    set_phase(op, LN(FWD_PHASE), HIPDNN_NORM_FWD_TRAINING);
    return op;
}
/* over the last two dims, the count inferred from SCALE [1,6,8] */
desc mk_layernorm_inferred(void)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_LAYERNORM_DESCRIPTOR_EXT);
    os_set_t(op, LN(X), F32(4, 6, 8));
    os_set_t(op, LN(SCALE), F32(1, 6, 8));
    os_set_t(op, LN(BIAS), F32(1, 6, 8));
    os_set_t(op, LN(EPSILON), os_scalar_f32(1e-5f));
    os_set_t(op, LN(Y), F32(4, 6, 8));
    os_set_t(op, LN(MEAN), F32(4, 1, 1));
    os_set_t(op, LN(INV_VARIANCE), F32(4, 1, 1));
    set_phase(op, LN(FWD_PHASE), HIPDNN_NORM_FWD_TRAINING);
    return op;
}
/* the cuDNN test form X [N,C,1,1], scale [1,C,1,1], inference */
desc mk_layernorm_nc11(void)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_LAYERNORM_DESCRIPTOR_EXT);
    os_set_t(op, LN(X), F32(16, 8, 1, 1));
    os_set_t(op, LN(SCALE), F32(1, 8, 1, 1));
    os_set_t(op, LN(BIAS), F32(1, 8, 1, 1));
    os_set_t(op, LN(EPSILON), os_scalar_f32(1e-5f));
    os_set_t(op, LN(Y), F32(16, 8, 1, 1));
    set_phase(op, LN(FWD_PHASE), HIPDNN_NORM_FWD_INFERENCE);
    return op;
}

T(layernorm, valid)
{
    os_expect_ok(mk_layernorm());
    os_expect_ok(mk_layernorm_inferred());
    os_expect_ok(mk_layernorm_nc11());
    desc op = mk_layernorm_inferred();
    os_set_i64(op, LN(NORMALIZED_DIM_COUNT), 2);
    os_expect_ok(op);
}
/* 0, the serialized field's default, infers the count like an unset attribute: two dims from
 * SCALE [1,6,8] (stats [4,1,1] fit), where an explicit 1 does not */
T(layernorm, dim_count_0_infers)
{
    desc op = mk_layernorm_inferred();
    os_set_i64(op, LN(NORMALIZED_DIM_COUNT), 0);
    os_expect_ok(op);
    op = mk_layernorm_inferred();
    os_set_i64(op, LN(NORMALIZED_DIM_COUNT), 1);
    os_expect_bad(op, "SCALE [1,6,8] must be [1,1,8]");
}
T(layernorm, x_rank_1)
{
    desc op = mk_layernorm();
    os_set_t(op, LN(X), F32(8));
    os_expect_bad(op, "X [8] has rank 1");
}
T(layernorm, epsilon_not_scalar)
{
    desc op = mk_layernorm();
    os_set_t(op, LN(EPSILON), F32(2));
    os_expect_bad(op, "EPSILON [2] must be a scalar");
}
T(layernorm, dim_count_range)
{
    desc op = mk_layernorm();
    os_set_i64(op, LN(NORMALIZED_DIM_COUNT), -1);
    os_expect_bad(op, "HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT -1 is outside [1, 2] for X [4,6,8]");
    op = mk_layernorm();
    os_set_i64(op, LN(NORMALIZED_DIM_COUNT), 3);
    os_expect_bad(op, "NORMALIZED_DIM_COUNT_EXT 3 is outside [1, 2]");
}
T(layernorm, scale_leading_not_1)
{
    desc op = mk_layernorm();
    os_set_t(op, LN(SCALE), F32(4, 1, 8));
    os_expect_bad(op, "SCALE [4,1,8] must be [1,1,8] (1 on the leading dims, X's on the 1 normalized dim(s))");
}
T(layernorm, scale_and_bias_trailing)
{
    desc op = mk_layernorm();
    os_set_t(op, LN(SCALE), F32(1, 1, 7));
    os_expect_bad(op, "SCALE [1,1,7] must be [1,1,8]");
    op = mk_layernorm();
    os_set_t(op, LN(BIAS), F32(1, 6, 8));
    os_expect_bad(op, "BIAS [1,6,8] must be [1,1,8]");
}
T(layernorm, y_dims)
{
    desc op = mk_layernorm();
    os_set_t(op, LN(Y), F32(4, 6, 9));
    os_expect_bad(op, "Y [4,6,9] must have the dims of X [4,6,8]");
}
T(layernorm, training_needs_stats)
{
    desc op = mk_layernorm_nc11();
    set_phase(op, LN(FWD_PHASE), HIPDNN_NORM_FWD_TRAINING);
    os_expect_bad(op, "HIPDNN_ATTR_OPERATION_LAYERNORM_FWD_PHASE_EXT is TRAINING, which requires MEAN");
    op = mk_layernorm_nc11();
    set_phase(op, LN(FWD_PHASE), HIPDNN_NORM_FWD_TRAINING);
    os_set_t(op, LN(MEAN), F32(16, 1, 1, 1));
    os_expect_bad(op, "TRAINING, which requires INV_VARIANCE");
}
T(layernorm, inference_forbids_stats)
{
    desc op = mk_layernorm();
    set_phase(op, LN(FWD_PHASE), HIPDNN_NORM_FWD_INFERENCE);
    os_expect_bad(op, "is INFERENCE; MEAN must not be set");
}
T(layernorm, stats_dims)
{
    desc op = mk_layernorm();
    os_set_t(op, LN(MEAN), F32(4, 1, 1));
    os_expect_bad(op, "MEAN [4,1,1] must be [4,6,1] (X's dims with the 1 normalized dim(s) set to 1)");
    op = mk_layernorm();
    os_set_t(op, LN(INV_VARIANCE), F32(1, 6, 1));
    os_expect_bad(op, "INV_VARIANCE [1,6,1] must be [4,6,1]");
}
T(layernorm, inferred_count_checks_stats)
{
    desc op = mk_layernorm_inferred();
    os_set_t(op, LN(MEAN), F32(4, 6, 1));
    os_expect_bad(op, "MEAN [4,6,1] must be [4,1,1] (X's dims with the 2 normalized dim(s) set to 1)");
}
T(layernorm, explicit_count_checks_scale)
{
    desc op = mk_layernorm_inferred();
    os_set_i64(op, LN(NORMALIZED_DIM_COUNT), 1);
    os_expect_bad(op, "SCALE [1,6,8] must be [1,1,8]");
}

#define RMS(x) HIPDNN_ATTR_OPERATION_RMSNORM_##x##_EXT
desc mk_rmsnorm(void)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_RMSNORM_DESCRIPTOR_EXT);
    os_set_t(op, RMS(X), TEN(HIPDNN_DATA_HALF, 4, 6, 8));
    os_set_t(op, RMS(SCALE), F32(1, 1, 8));
    os_set_t(op, RMS(EPSILON), os_scalar_f32(1e-6f));
    os_set_t(op, RMS(Y), TEN(HIPDNN_DATA_HALF, 4, 6, 8));
    os_set_t(op, RMS(INV_RMS), F32(4, 6, 1));
    set_phase(op, RMS(FWD_PHASE), HIPDNN_NORM_FWD_TRAINING);
    return op;
}
desc mk_rmsnorm_bias_inference(void)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_RMSNORM_DESCRIPTOR_EXT);
    os_set_t(op, RMS(X), F32(32, 16, 1, 1));
    os_set_t(op, RMS(SCALE), F32(1, 16, 1, 1));
    os_set_t(op, RMS(BIAS), F32(1, 16, 1, 1));
    os_set_t(op, RMS(EPSILON), os_scalar_f32(1e-6f));
    os_set_t(op, RMS(Y), F32(32, 16, 1, 1));
    set_phase(op, RMS(FWD_PHASE), HIPDNN_NORM_FWD_INFERENCE);
    return op;
}
T(rmsnorm, valid)
{
    os_expect_ok(mk_rmsnorm());
    os_expect_ok(mk_rmsnorm_bias_inference());
}
T(rmsnorm, x_y_epsilon)
{
    desc op = mk_rmsnorm();
    os_set_t(op, RMS(X), F32(8));
    os_expect_bad(op, "X [8] has rank 1");
    op = mk_rmsnorm();
    os_set_t(op, RMS(Y), F32(4, 6, 4));
    os_expect_bad(op, "Y [4,6,4] must have the dims of X [4,6,8]");
    op = mk_rmsnorm();
    os_set_t(op, RMS(EPSILON), F32(1, 3));
    os_expect_bad(op, "EPSILON [1,3] must be a scalar");
}
T(rmsnorm, scale_shape)
{
    desc op = mk_rmsnorm();
    os_set_t(op, RMS(SCALE), F32(2, 1, 8));
    os_expect_bad(op, "SCALE [2,1,8] must be [1,1,8]");
    op = mk_rmsnorm();
    os_set_t(op, RMS(SCALE), F32(8));
    os_expect_bad(op, "SCALE [8] must be [1,1,8]");
}
T(rmsnorm, bias_like_scale)
{
    desc op = mk_rmsnorm();
    os_set_t(op, RMS(BIAS), F32(1, 1, 4));
    os_expect_bad(op, "BIAS [1,1,4] must be [1,1,8]");
}
T(rmsnorm, phase)
{
    desc op = mk_rmsnorm_bias_inference();
    set_phase(op, RMS(FWD_PHASE), HIPDNN_NORM_FWD_TRAINING);
    os_expect_bad(op, "HIPDNN_ATTR_OPERATION_RMSNORM_FWD_PHASE_EXT is TRAINING, which requires INV_RMS");
    op = mk_rmsnorm();
    set_phase(op, RMS(FWD_PHASE), HIPDNN_NORM_FWD_INFERENCE);
    os_expect_bad(op, "is INFERENCE; INV_RMS must not be set");
}
T(rmsnorm, inv_rms_dims)
{
    desc op = mk_rmsnorm();
    os_set_t(op, RMS(INV_RMS), F32(4, 6, 8));
    os_expect_bad(op, "INV_RMS [4,6,8] must be [4,6,1]");
}

