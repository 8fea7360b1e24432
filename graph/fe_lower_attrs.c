/* fe_lower_attrs.c — each operation's typed IR attributes (ir.h's ir_attrs) from its
 * descriptor's scalar attributes: the `lower` column of graph/fe_ops.def.
 *
 * fe_lower.c (the graph walk) has already set the op's kind, compute type and operand slots;
 * a function here fills op->a and may refuse what the IR cannot express. Values the IR keeps
 * are exactly what kernels and the graph key (ir_canon.c) see: an attribute not lowered here
 * must be marked FE_NO_KEY in its attribute row (fe_op_attrs.c), saying why.
 * Does not own: the attribute tables (fe_op_attrs.c), the checks (fe_check*.c).
 */
#include <math.h>
#include <string.h>

#include "graph/fe_graph_int.h"
#include "ir/ir.h"

static double f32_or(fe_obj *o, hipdnnBackendAttributeName_t id, double dflt)
{
    return fe_op_has(o, id) ? fe_get(o, id)->one.f32 : dflt;
}

static void lower_pointwise(fe_obj *o, ir_pointwise *p)
{
    p->mode = fe_get(o, HIPDNN_ATTR_POINTWISE_MODE)->one.e;
    p->relu_lower = f32_or(o, HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, 0.0);
    p->relu_upper = f32_or(o, HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, INFINITY);
    p->relu_slope = f32_or(o, HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, 0.0);
    p->swish_beta = f32_or(o, HIPDNN_ATTR_POINTWISE_SWISH_BETA, 1.0);
    p->elu_alpha = f32_or(o, HIPDNN_ATTR_POINTWISE_ELU_ALPHA, 1.0);
    p->softplus_beta = f32_or(o, HIPDNN_ATTR_POINTWISE_SOFTPLUS_BETA, 1.0);
    p->axis = fe_op_i64_or(o, HIPDNN_ATTR_POINTWISE_AXIS, 0);
}

static void copy_i64s(fe_obj *o, hipdnnBackendAttributeName_t id, int64_t *dst, int n)
{
    const int64_t *src = fe_get(o, id)->arr;
    for (int i = 0; i < n && i < 3; i++)
        dst[i] = src[i];
}

static void lower_conv(fe_obj *o, ir_conv *c)
{
    c->spatial = (int)fe_get(o, HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS)->n;
    copy_i64s(o, HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS, c->pre, c->spatial);
    copy_i64s(o, HIPDNN_ATTR_CONVOLUTION_POST_PADDINGS, c->post, c->spatial);
    copy_i64s(o, HIPDNN_ATTR_CONVOLUTION_FILTER_STRIDES, c->stride, c->spatial);
    copy_i64s(o, HIPDNN_ATTR_CONVOLUTION_DILATIONS, c->dilation, c->spatial);
    c->convolution = fe_get(o, HIPDNN_ATTR_CONVOLUTION_CONV_MODE)->one.e == HIPDNN_CONVOLUTION;
}

static void lower_sdpa(fe_obj *o, bool fwd, ir_sdpa *s)
{
#define A(F, B) (fwd ? HIPDNN_ATTR_SDPA_FWD_##F : HIPDNN_ATTR_SDPA_BWD_##B)
    s->has_scale_value = fe_op_has(o, A(ATTN_SCALE_VALUE_EXT, ATTN_SCALE_VALUE_EXT));
    s->attn_scale = f32_or(o, A(ATTN_SCALE_VALUE_EXT, ATTN_SCALE_VALUE_EXT), 1.0);
    s->alibi = fe_op_flag(o, A(ALIBI_MASK_EXT, ALIBI_MASK_EXT));
    s->padding_mask = fe_op_flag(o, A(PADDING_MASK_EXT, PADDING_MASK_EXT));
    s->has_left = fe_op_has(o, A(LEFT_BOUND_EXT, LEFT_BOUND_EXT));
    s->left_bound = fe_op_i64_or(o, A(LEFT_BOUND_EXT, LEFT_BOUND_EXT), 0);
    s->has_right = fe_op_has(o, A(RIGHT_BOUND_EXT, RIGHT_BOUND_EXT));
    s->right_bound = fe_op_i64_or(o, A(RIGHT_BOUND_EXT, RIGHT_BOUND_EXT), 0);
    fe_val *align = fe_get(o, A(DIAGONAL_ALIGNMENT_EXT, DIAGONAL_ALIGNMENT_EXT));
    s->bottom_right = align->n > 0 && align->one.e == HIPDNN_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT_EXT;
    /* the deprecated causal flags are the band form with right bound 0 */
    bool causal = fe_op_flag(o, A(CAUSAL_MASK_EXT, CAUSAL_MASK_EXT));
    bool causal_br = fe_op_flag(o, A(CAUSAL_MASK_BOTTOM_RIGHT_EXT, CAUSAL_MASK_BOTTOM_RIGHT_EXT));
    if ((causal || causal_br) && !s->has_right) {
        s->has_right = true;
        s->right_bound = 0;
    }
    s->bottom_right |= causal_br;
    s->dropout_p = f32_or(o, A(DROPOUT_PROBABILITY_EXT, DROPOUT_PROBABILITY_EXT), 0.0);
    s->generate_stats = fwd && (fe_op_flag(o, HIPDNN_ATTR_SDPA_FWD_GENERATE_STATS_EXT) ||
                                fe_op_has(o, HIPDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC));
#undef A
}

static void lower_quant(fe_obj *o, bool quantize, int x_rank, ir_quant *q)
{
    if (quantize) {
        q->n_block = 1;
        q->block[0] = fe_get(o, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_BLOCK_SIZE)->one.i32;
        q->axis = fe_op_i64_or(o, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_AXIS_EXT, x_rank - 1);
        q->transpose = fe_op_flag(o, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_TRANSPOSE_EXT);
        return;
    }
    fe_val *b = fe_get(o, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_BLOCK_SIZE);
    q->n_block = (int)b->n;
    for (int i = 0; i < q->n_block && i < IR_MAX_RANK; i++)
        q->block[i] = ((const int32_t *)b->arr)[i];
    q->negative_scale = fe_op_flag(o, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_NEG_SCALE);
}

/* The explicit count, or the frontend's inference from the scale (fe_norm_infer_dims). */
static int normalized_dims(fe_obj *o, hipdnnBackendAttributeName_t scale_id, int given, int x_rank)
{
    if (given > 0)
        return given;
    fe_tensor_view s = fe_tensor(fe_get(o, scale_id)->one.obj);
    return fe_norm_infer_dims(s.dims, s.rank, x_rank);
}

/* ---- the `lower` column ------------------------------------------------------------------------------ */

#define LOWER(NAME) hipdnnStatus_t NAME(fe_obj *o, const fe_graph_info *gi, int x_rank, ir_op *op)
#define UNUSED (void)o, (void)gi, (void)x_rank, (void)op

/* Ops without typed attributes (matmul, batchnorm inference / training / backward, gen-stats,
 * paged cache load). */
LOWER(fe_lower_none)
{
    UNUSED;
    return HIPDNN_STATUS_SUCCESS;
}

LOWER(fe_lower_pointwise)
{
    UNUSED;
    lower_pointwise(o, &op->a.pw);
    return HIPDNN_STATUS_SUCCESS;
}

LOWER(fe_lower_conv)
{
    UNUSED;
    lower_conv(o, &op->a.conv);
    return HIPDNN_STATUS_SUCCESS;
}

/* BN_INFER reads the variance (slot 2) and epsilon (slot 5) instead of the inverse variance. */
LOWER(fe_lower_bn_variance)
{
    UNUSED;
    op->a.norm.from_variance = true;
    return HIPDNN_STATUS_SUCCESS;
}

LOWER(fe_lower_layernorm)
{
    UNUSED;
    op->a.norm.phase = fe_get(o, HIPDNN_ATTR_OPERATION_LAYERNORM_FWD_PHASE_EXT)->one.e;
    op->a.norm.normalized_dims = normalized_dims(o, HIPDNN_ATTR_OPERATION_LAYERNORM_SCALE_EXT,
        (int)fe_op_i64_or(o, HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT, 0), x_rank);
    return HIPDNN_STATUS_SUCCESS;
}

LOWER(fe_lower_rmsnorm)
{
    UNUSED;
    op->a.norm.phase = fe_get(o, HIPDNN_ATTR_OPERATION_RMSNORM_FWD_PHASE_EXT)->one.e;
    op->a.norm.normalized_dims = normalized_dims(o, HIPDNN_ATTR_OPERATION_RMSNORM_SCALE_EXT, 0, x_rank);
    return HIPDNN_STATUS_SUCCESS;
}

LOWER(fe_lower_sdpa_fwd)
{
    UNUSED;
    lower_sdpa(o, true, &op->a.sdpa);
    return HIPDNN_STATUS_SUCCESS;
}

LOWER(fe_lower_sdpa_bwd)
{
    UNUSED;
    lower_sdpa(o, false, &op->a.sdpa);
    return HIPDNN_STATUS_SUCCESS;
}

LOWER(fe_lower_bs_quantize)
{
    UNUSED;
    lower_quant(o, true, x_rank, &op->a.quant);
    return HIPDNN_STATUS_SUCCESS;
}

LOWER(fe_lower_bs_dequantize)
{
    UNUSED;
    lower_quant(o, false, x_rank, &op->a.quant);
    return HIPDNN_STATUS_SUCCESS;
}

/* A custom op's ports are arrays: every input and output in order (the IR's CUSTOM op has
 * variable slots). */
LOWER(fe_lower_custom)
{
    (void)x_rank;
    fe_val *in = fe_get(o, HIPDNN_ATTR_OPERATION_CUSTOM_OP_INPUTS_EXT);
    fe_val *out = fe_get(o, HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT);
    fe_val *id = fe_get(o, HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT);
    if (in->n > IR_MAX_SLOTS || out->n > IR_MAX_SLOTS)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "custom op with more than %d inputs or outputs",
                         IR_MAX_SLOTS);
    op->n_in = (int)in->n, op->n_out = (int)out->n;
    for (int i = 0; i < op->n_in; i++)
        op->in[i] = fe_tensor_index(gi, ((fe_obj **)in->arr)[i]);
    for (int i = 0; i < op->n_out; i++)
        op->out[i] = fe_tensor_index(gi, ((fe_obj **)out->arr)[i]);
    if ((size_t)id->n >= sizeof op->a.custom.id)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "custom op id of %lld characters: at most %zu",
                         (long long)id->n, sizeof op->a.custom.id - 1);
    memcpy(op->a.custom.id, id->arr, (size_t)id->n);
    fe_val *data = fe_get(o, HIPDNN_ATTR_OPERATION_CUSTOM_OP_DATA_EXT);
    if (data->n > 0) {
        if (data->n > UINT32_MAX)
            return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "custom op '%s': a payload of %lld bytes",
                             op->a.custom.id, (long long)data->n);
        op->a.custom.payload = base_malloc((size_t)data->n);
        if (op->a.custom.payload == NULL)
            return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "lowering custom op '%s': out of memory", op->a.custom.id);
        memcpy(op->a.custom.payload, data->arr, (size_t)data->n);
        op->a.custom.payload_size = (uint32_t)data->n;
    }
    return HIPDNN_STATUS_SUCCESS;
}
