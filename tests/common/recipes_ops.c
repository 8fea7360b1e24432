/* recipes_ops.c — the recipes of the tensor, graph, convolution, batchnorm, gen-stats,
 * pointwise, matmul, rmsnorm and layernorm descriptors: a valid value for every attribute.
 * Shapes: op-semantics.md (§1.2 conv, §3 norms); letters in comments are N batch, C channels,
 * K filters, H/W spatial.
 */
#include "recipes.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tu.h"

#include "recipes_util.h"

/* ---- recipes --------------------------------------------------------------------------------- */

void recipe_tensor(rc_ctx *c)
{
    static const hipdnnDataType_t by_value[] = {HIPDNN_DATA_FLOAT, HIPDNN_DATA_DOUBLE,
                                                HIPDNN_DATA_HALF, HIPDNN_DATA_BFLOAT16,
                                                HIPDNN_DATA_INT32, HIPDNN_DATA_INT64,
                                                HIPDNN_DATA_INT8, HIPDNN_DATA_UINT8,
                                                HIPDNN_DATA_BOOLEAN, HIPDNN_DATA_FP8_E4M3};
    static const size_t by_value_size[] = {4, 8, 2, 2, 4, 8, 1, 1, 1, 1};
    int rank = (int)tu_range(1, 8), k = (int)tu_range(0, 9);
    int64_t dims[8], strides[8];
    for (int i = 0; i < rank; i++)
        dims[i] = c->full ? 1 : tu_range(1, 5);
    tu_packed_strides(rank, dims, strides);
    if (rcu_next_uid == 0)
        rcu_next_uid = tu_range(1, (int64_t)1 << 40);
    rcu_s_enum(c, HIPDNN_ATTR_TENSOR_DATA_TYPE, c->full ? (int)by_value[k] : (int)rcu_any_float_type());
    rcu_a_i64(c, HIPDNN_ATTR_TENSOR_DIMENSIONS, rank, dims);
    rcu_a_i64(c, HIPDNN_ATTR_TENSOR_STRIDES, rank, strides);
    rcu_s_bool(c, HIPDNN_ATTR_TENSOR_IS_BY_VALUE, c->full);
    if (!c->full)
        return;
    unsigned char bytes[8];
    tu_bytes(bytes, sizeof bytes);
    if (by_value[k] == HIPDNN_DATA_BOOLEAN)
        bytes[0] &= 1;
    rcu_s_i64(c, HIPDNN_ATTR_TENSOR_UNIQUE_ID, rcu_next_uid++);
    rcu_s_name(c, HIPDNN_ATTR_TENSOR_NAME_EXT, "tensor");
    rcu_s_bool(c, HIPDNN_ATTR_TENSOR_IS_VIRTUAL, false);
    rcu_s_bytes(c, HIPDNN_ATTR_TENSOR_VALUE_EXT, bytes, by_value_size[k]);
    rcu_s_bool(c, HIPDNN_ATTR_TENSOR_IS_RUNTIME_PASS_BY_VALUE_EXT, false);
    rcu_s_i64(c, HIPDNN_ATTR_TENSOR_BYTE_ALIGNMENT, (int64_t)1 << tu_range(0, 8));
    rcu_s_i64(c, HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC, tu_range(1, 1000000));
    rcu_s_i64(c, HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_MULTIPLIER, tu_range(1, 64));
}

/* A finalized RELU (or IDENTITY) pointwise op reading `in`, writing a new tensor. */
static hipdnnBackendDescriptor_t pointwise_op(rc_ctx *c, hipdnnBackendDescriptor_t in,
                                              const int64_t *dims, bool out_virtual,
                                              hipdnnPointwiseMode_t mode, const char *name,
                                              hipdnnBackendDescriptor_t *out)
{
    hipdnnBackendDescriptor_t op = NULL;
    *out = rc_tensor(c, -1, HIPDNN_DATA_FLOAT, 2, dims, out_virtual);
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, DESC, 1, &in));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, DESC, 1, out));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_TYPE_POINTWISE_MODE, 1,
                                    &mode));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_NAME_EXT, CHR,
                                    (int64_t)strlen(name), name));
    TU_OK(hipdnnBackendFinalize(op));
    rcu_own(c, op);
    return op;
}

void recipe_graph(rc_ctx *c)
{
    int64_t dims[2] = {tu_range(1, 64), tu_range(1, 64)};
    hipdnnBackendDescriptor_t x = rc_tensor(c, -1, HIPDNN_DATA_FLOAT, 2, dims, false), t, y;
    rc_val *ops = rcu_val(c, HIPDNN_ATTR_OPERATIONGRAPH_OPS);
    size_t engines = 0;
    TU_OK(hipdnnGetEngineCount_ext(c->handle, &engines));
    rcu_s_i64(c, HIPDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, (int64_t)engines);
    rcu_val(c, HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT)->n = 32; /* checked by its form */
    rcu_val(c, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE)->n = 1;
    rcu_val(c, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE)->u.h = c->handle;
    ops->d[0] = pointwise_op(c, x, dims, c->full, HIPDNN_POINTWISE_RELU_FWD, "relu", &t);
    ops->op_type[0] = HIPDNN_OPERATION_TYPE_POINTWISE_EXT;
    ops->n = 1;
    if (!c->full)
        return;
    ops->d[1] = pointwise_op(c, t, dims, false, HIPDNN_POINTWISE_IDENTITY, "identity", &y);
    ops->op_type[1] = HIPDNN_OPERATION_TYPE_POINTWISE_EXT;
    ops->n = 2;
    rcu_s_enum(c, HIPDNN_ATTR_OPERATIONGRAPH_COMPUTE_DATA_TYPE_EXT, HIPDNN_DATA_FLOAT);
    rcu_s_enum(c, HIPDNN_ATTR_OPERATIONGRAPH_INTERMEDIATE_DATA_TYPE_EXT, rcu_any_float_type());
    rcu_s_enum(c, HIPDNN_ATTR_OPERATIONGRAPH_IO_DATA_TYPE_EXT, rcu_any_float_type());
    rcu_s_i64(c, HIPDNN_ATTR_OPERATIONGRAPH_PREFERRED_ENGINE_ID_EXT, (int64_t)tu_rand());
    rcu_s_name(c, HIPDNN_ATTR_OPERATIONGRAPH_NAME_EXT, "graph");
    rcu_s_bool(c, HIPDNN_ATTR_OPERATIONGRAPH_IS_OVERRIDE_SHAPE_ENABLED_EXT, tu_rand() & 1);
    rcu_s_bool(c, HIPDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED, tu_rand() & 1);
}

/* Conv problem: X [N,C,H,W], W [K,C,R,S], Y [N,K,P,Q] (op-semantics.md §1.2, no groups). */
typedef struct conv_shape {
    int64_t x[4], w[4], y[4], pre[2], post[2], stride[2], dil[2];
} conv_shape;

static conv_shape conv_problem(void)
{
    conv_shape s;
    int64_t n = tu_range(1, 3), ch = 4 * tu_range(1, 4), k = 4 * tu_range(1, 4);
    int64_t r = 2 * tu_range(0, 2) + 1; /* 1, 3, 5 */
    for (int i = 0; i < 2; i++) {
        int64_t in = tu_range(r, 20);
        s.pre[i] = s.post[i] = tu_range(0, (r - 1) / 2);
        s.stride[i] = tu_range(1, 2);
        s.dil[i] = 1;
        s.x[2 + i] = in;
        s.w[2 + i] = r;
        s.y[2 + i] = 1 + (in + s.pre[i] + s.post[i] - s.dil[i] * (r - 1) - 1) / s.stride[i];
    }
    s.x[0] = s.y[0] = n;
    s.x[1] = s.w[1] = ch;
    s.w[0] = s.y[1] = k;
    return s;
}

static void conv_params(rc_ctx *c, const conv_shape *s)
{
    rcu_s_enum(c, HIPDNN_ATTR_CONVOLUTION_COMP_TYPE, HIPDNN_DATA_FLOAT);
    rcu_s_enum(c, HIPDNN_ATTR_CONVOLUTION_CONV_MODE,
           tu_rand() & 1 ? HIPDNN_CROSS_CORRELATION : HIPDNN_CONVOLUTION);
    rcu_a_i64(c, HIPDNN_ATTR_CONVOLUTION_DILATIONS, 2, s->dil);
    rcu_a_i64(c, HIPDNN_ATTR_CONVOLUTION_FILTER_STRIDES, 2, s->stride);
    rcu_a_i64(c, HIPDNN_ATTR_CONVOLUTION_POST_PADDINGS, 2, s->post);
    rcu_a_i64(c, HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS, 2, s->pre);
    rcu_op_common(c);
}

void recipe_conv_fwd(rc_ctx *c)
{
    conv_shape s = conv_problem();
    hipdnnDataType_t dt = rcu_any_float_type();
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, dt, 4, s.x, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, dt, 4, s.w, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, dt, 4, s.y, false);
    conv_params(c, &s);
}

void recipe_conv_bwd_data(rc_ctx *c)
{
    conv_shape s = conv_problem();
    hipdnnDataType_t dt = rcu_any_float_type();
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, dt, 4, s.y, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, dt, 4, s.w, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, dt, 4, s.x, false);
    conv_params(c, &s);
}

void recipe_conv_bwd_filter(rc_ctx *c)
{
    conv_shape s = conv_problem();
    hipdnnDataType_t dt = rcu_any_float_type();
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, dt, 4, s.x, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, dt, 4, s.y, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, dt, 4, s.w, false);
    conv_params(c, &s);
}

/* Batchnorm family: X [N,C,H,W], per-channel tensors [1,C,1,1] FLOAT (§3.1-3.3). */
typedef struct bn_shape {
    int64_t x[4], ch[4], peer[4];
    hipdnnDataType_t dt;
} bn_shape;

static bn_shape bn_problem(void)
{
    int64_t n = tu_range(1, 4), ch = tu_range(1, 32), h = tu_range(1, 9), w = tu_range(1, 9);
    return (bn_shape){{n, ch, h, w}, {1, ch, 1, 1}, {2, 4 * ch, 1, 1}, rcu_any_float_type()};
}

void recipe_bn_inference(rc_ctx *c)
{
    bn_shape s = bn_problem();
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_X_EXT, s.dt, 4, s.x, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_MEAN_EXT, F, 4, s.ch, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_INV_VARIANCE_EXT, F, 4, s.ch, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_SCALE_EXT, F, 4, s.ch, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_BIAS_EXT, F, 4, s.ch, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_Y_EXT, s.dt, 4, s.x, false);
    if (c->full)
        rcu_s_enum(c, HIPDNN_ATTR_BATCHNORM_INF_COMP_TYPE_EXT, F);
    rcu_op_common(c);
}

void recipe_bn_inference_variance(rc_ctx *c)
{
    bn_shape s = bn_problem();
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_X_EXT, s.dt, 4, s.x, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_MEAN_EXT, F, 4, s.ch, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_VARIANCE_EXT, F, 4, s.ch, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_SCALE_EXT, F, 4, s.ch, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_BIAS_EXT, F, 4, s.ch, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_Y_EXT, s.dt, 4, s.x, false);
    rcu_put(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_EPSILON_EXT,
        rc_scalar_f32(c, 4, tu_float(1e-6f, 1e-2f)));
    if (c->full)
        rcu_s_enum(c, HIPDNN_ATTR_BATCHNORM_INF_VAR_COMP_TYPE_EXT, F);
    rcu_op_common(c);
}

void recipe_bn_training(rc_ctx *c)
{
    bn_shape s = bn_problem();
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_X_EXT, s.dt, 4, s.x, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_SCALE_EXT, F, 4, s.ch, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BIAS_EXT, F, 4, s.ch, false);
    rcu_put(c, HIPDNN_ATTR_OPERATION_BATCHNORM_EPSILON_EXT, rc_scalar_f32(c, 4, tu_float(1e-6f, 1e-2f)));
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_Y_EXT, s.dt, 4, s.x, false);
    if (c->full) {
        rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_PREV_RUNNING_MEAN_EXT, F, 4, s.ch, false);
        rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_PREV_RUNNING_VARIANCE_EXT, F, 4, s.ch, false);
        rcu_put(c, HIPDNN_ATTR_OPERATION_BATCHNORM_MOMENTUM_EXT, rc_scalar_f32(c, 4, tu_float(0, 1)));
        rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_MEAN_EXT, F, 4, s.ch, false);
        rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INV_VARIANCE_EXT, F, 4, s.ch, false);
        rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_NEXT_RUNNING_MEAN_EXT, F, 4, s.ch, false);
        rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_NEXT_RUNNING_VARIANCE_EXT, F, 4, s.ch, false);
        rcu_s_enum(c, HIPDNN_ATTR_BATCHNORM_COMP_TYPE_EXT, F);
        hipdnnBackendDescriptor_t peers[2] = {rc_tensor(c, -1, F, 4, s.peer, false),
                                              rc_tensor(c, -1, F, 4, s.peer, false)};
        rcu_put_tensors(c, HIPDNN_ATTR_OPERATION_BATCHNORM_PEER_STATS_EXT, 2, peers);
    }
    rcu_op_common(c);
}

void recipe_bn_backward(rc_ctx *c)
{
    bn_shape s = bn_problem();
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DY_EXT, s.dt, 4, s.x, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_X_EXT, s.dt, 4, s.x, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_SCALE_EXT, F, 4, s.ch, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DX_EXT, s.dt, 4, s.x, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DSCALE_EXT, F, 4, s.ch, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DBIAS_EXT, F, 4, s.ch, false);
    if (c->full) {
        rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_MEAN_EXT, F, 4, s.ch, false);
        rcu_tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_INV_VARIANCE_EXT, F, 4, s.ch, false);
        rcu_s_enum(c, HIPDNN_ATTR_BATCHNORM_BACKWARD_COMP_TYPE_EXT, F);
        hipdnnBackendDescriptor_t peers[2] = {rc_tensor(c, -1, F, 4, s.peer, false),
                                              rc_tensor(c, -1, F, 4, s.peer, false)};
        rcu_put_tensors(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_PEER_STATS_EXT, 2, peers);
    }
    rcu_op_common(c);
}

void recipe_gen_stats(rc_ctx *c)
{
    bn_shape s = bn_problem();
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_GENSTATS_XDESC_EXT, s.dt, 4, s.x, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_GENSTATS_SUMDESC_EXT, F, 4, s.ch, false);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC_EXT, F, 4, s.ch, false);
    if (c->full) {
        rcu_s_i64(c, HIPDNN_ATTR_OPERATION_GENSTATS_MODE_EXT, HIPDNN_GENSTATS_MODE_SUM_SQSUM_EXT);
        rcu_s_enum(c, HIPDNN_ATTR_OPERATION_GENSTATS_MATH_PREC_EXT, F);
    }
    rcu_op_common(c);
}

/* Pointwise: full = BINARY_SELECT (x, b, predicate), minimal = a unary mode; [R, D] tensors,
 * the second input broadcast over rows (op-semantics.md §0.4, §2.2). */
void recipe_pointwise(rc_ctx *c)
{
    static const hipdnnPointwiseMode_t unary[] = {
        HIPDNN_POINTWISE_RELU_FWD, HIPDNN_POINTWISE_TANH_FWD, HIPDNN_POINTWISE_SIGMOID_FWD,
        HIPDNN_POINTWISE_EXP, HIPDNN_POINTWISE_IDENTITY, HIPDNN_POINTWISE_ABS};
    int64_t r = tu_range(1, 64), d = tu_range(1, 64);
    hipdnnDataType_t dt = rcu_any_float_type();
    TENSOR(c, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, dt, r, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, dt, r, d);
    if (!c->full) {
        rcu_s_enum(c, HIPDNN_ATTR_POINTWISE_MODE, unary[tu_range(0, 5)]);
        rcu_op_common(c);
        return;
    }
    TENSOR(c, HIPDNN_ATTR_OPERATION_POINTWISE_IN_1_EXT, dt, 1, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_POINTWISE_IN_2_EXT, HIPDNN_DATA_BOOLEAN, r, d);
    rcu_s_enum(c, HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_POINTWISE_BINARY_SELECT);
    rcu_s_f32(c, HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, tu_float(-1, 0));
    rcu_s_f32(c, HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, tu_float(1, 10));
    rcu_s_f32(c, HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, tu_float(0, 0.5f));
    rcu_s_f32(c, HIPDNN_ATTR_POINTWISE_SWISH_BETA, tu_float(0.5f, 2));
    rcu_s_f32(c, HIPDNN_ATTR_POINTWISE_ELU_ALPHA, tu_float(0.5f, 2));
    rcu_s_f32(c, HIPDNN_ATTR_POINTWISE_SOFTPLUS_BETA, tu_float(0.5f, 2));
    rcu_s_enum(c, HIPDNN_ATTR_POINTWISE_MATH_PREC, F);
    rcu_s_i64(c, HIPDNN_ATTR_POINTWISE_AXIS, tu_range(0, 1));
    rcu_op_common(c);
}

/* Matmul: A [B,M,K] x B [B,K,N] -> C [B,M,N] (§2.1). */
void recipe_matmul(rc_ctx *c)
{
    int64_t b = tu_range(1, 4), m = tu_range(1, 64), k = tu_range(1, 64), n = tu_range(1, 64);
    hipdnnDataType_t dt = rcu_any_float_type();
    TENSOR(c, HIPDNN_ATTR_OPERATION_MATMUL_ADESC, dt, b, m, k);
    TENSOR(c, HIPDNN_ATTR_OPERATION_MATMUL_BDESC, dt, b, k, n);
    TENSOR(c, HIPDNN_ATTR_OPERATION_MATMUL_CDESC, dt, b, m, n);
    if (c->full)
        rcu_s_enum(c, HIPDNN_ATTR_MATMUL_COMP_TYPE, F);
    rcu_op_common(c);
}

/* RMSNorm / LayerNorm over the last dim: X [R, D], scale/bias [1, D], stats [R, 1] (§3.6-3.7).
 * Statistics outputs belong to TRAINING: full recipes train, minimal ones infer. */
void recipe_rmsnorm(rc_ctx *c)
{
    int64_t r = tu_range(1, 64), d = tu_range(1, 128);
    hipdnnDataType_t dt = rcu_any_float_type();
    TENSOR(c, HIPDNN_ATTR_OPERATION_RMSNORM_X_EXT, dt, r, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_RMSNORM_SCALE_EXT, F, 1, d);
    rcu_put(c, HIPDNN_ATTR_OPERATION_RMSNORM_EPSILON_EXT, rc_scalar_f32(c, 2, tu_float(1e-6f, 1e-3f)));
    TENSOR(c, HIPDNN_ATTR_OPERATION_RMSNORM_Y_EXT, dt, r, d);
    rcu_s_enum(c, HIPDNN_ATTR_OPERATION_RMSNORM_FWD_PHASE_EXT,
           c->full ? HIPDNN_NORM_FWD_TRAINING : HIPDNN_NORM_FWD_INFERENCE);
    if (c->full) {
        TENSOR(c, HIPDNN_ATTR_OPERATION_RMSNORM_BIAS_EXT, F, 1, d);
        TENSOR(c, HIPDNN_ATTR_OPERATION_RMSNORM_INV_RMS_EXT, F, r, 1);
        rcu_s_enum(c, HIPDNN_ATTR_RMSNORM_COMP_TYPE_EXT, F);
    }
    rcu_op_common(c);
}

void recipe_layernorm(rc_ctx *c)
{
    int64_t r = tu_range(1, 64), d = tu_range(1, 128);
    hipdnnDataType_t dt = rcu_any_float_type();
    TENSOR(c, HIPDNN_ATTR_OPERATION_LAYERNORM_X_EXT, dt, r, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_LAYERNORM_SCALE_EXT, F, 1, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_LAYERNORM_BIAS_EXT, F, 1, d);
    rcu_put(c, HIPDNN_ATTR_OPERATION_LAYERNORM_EPSILON_EXT, rc_scalar_f32(c, 2, tu_float(1e-6f, 1e-3f)));
    TENSOR(c, HIPDNN_ATTR_OPERATION_LAYERNORM_Y_EXT, dt, r, d);
    rcu_s_enum(c, HIPDNN_ATTR_OPERATION_LAYERNORM_FWD_PHASE_EXT,
           c->full ? HIPDNN_NORM_FWD_TRAINING : HIPDNN_NORM_FWD_INFERENCE);
    if (c->full) {
        TENSOR(c, HIPDNN_ATTR_OPERATION_LAYERNORM_MEAN_EXT, F, r, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_LAYERNORM_INV_VARIANCE_EXT, F, r, 1);
        rcu_s_enum(c, HIPDNN_ATTR_LAYERNORM_COMP_TYPE_EXT, F);
        rcu_s_i64(c, HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT, 1);
    }
    rcu_op_common(c);
}

/* SDPA: Q/O [B,H,Sq,D], K/V [B,H,Skv,D], masks [1|B,H,Sq,Skv], stats [B,H,Sq,1], seq lens and
 * page tables INT32 [B,1,..,1], scalars [1,1,1,1] FLOAT (§4.1). K/V double as a paged
 * container with one block per batch (block size Skv), so the page tables are [B,1,1,1]. */
