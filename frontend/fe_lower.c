/* fe_lower.c — a finalized operation graph's descriptors -> the fusion IR (ir/ir.h).
 *
 * Owns the mapping from each OPERATION_* descriptor to an IR op: which attribute goes to which
 * operand slot (the table below, in the slot order of ir.h) and how the descriptor's scalar
 * attributes become the op's typed attributes. Tensors are lowered with their uid, type, dims,
 * strides, virtual flag and by-value bytes; the graph's dynamic-shape flag goes to the IR graph
 * (codegen reads it). Features the IR has no slot for (multi-GPU peer
 * statistics, FP8 attention scales) are NOT_SUPPORTED with a message naming them.
 * An SDPA forward's score modifier (fe_score_mod.c checked it) is lowered into the same IR
 * graph: its tensors after the graph's (the input S as a score tensor, every result virtual),
 * its pointwise ops beside the others, its result in the op's IR_SDPA_SCORE_MOD slot. Its
 * uids must differ from the graph's (BAD_PARAM otherwise): in-memory scalars bind by uid.
 */
#include <math.h>
#include <string.h>

#include "frontend/fe_int.h"
#include "ir/ir.h"

typedef struct port {
    hipdnnBackendAttributeName_t id;
    int8_t slot;
    bool out;
} port;

typedef struct lowering {
    hipdnnBackendDescriptorType_t type;
    ir_op_kind kind;
    port ports[32];
} lowering;

#define I(id, s) {id, s, false}
#define O(id, s) {id, s, true}
static const lowering table[] = {
    {HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, IR_OP_POINTWISE,
     {I(HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, 0), I(HIPDNN_ATTR_OPERATION_POINTWISE_IN_1_EXT, 1),
      I(HIPDNN_ATTR_OPERATION_POINTWISE_IN_2_EXT, 2), O(HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, 0)}},
    {HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT, IR_OP_MATMUL,
     {I(HIPDNN_ATTR_OPERATION_MATMUL_ADESC, 0), I(HIPDNN_ATTR_OPERATION_MATMUL_BDESC, 1),
      O(HIPDNN_ATTR_OPERATION_MATMUL_CDESC, 0)}},
    {HIPDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, IR_OP_CONV_FWD,
     {I(HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, 0), I(HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, 1),
      O(HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, 0)}},
    {HIPDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DESCRIPTOR, IR_OP_CONV_DGRAD,
     {I(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, 0), I(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, 1),
      O(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, 0)}},
    {HIPDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR, IR_OP_CONV_WGRAD,
     {I(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, 0), I(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, 1),
      O(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, 0)}},
    {HIPDNN_BACKEND_OPERATION_BATCHNORM_INFERENCE_DESCRIPTOR_EXT, IR_OP_BN_INFER,
     {I(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_X_EXT, 0), I(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_MEAN_EXT, 1),
      I(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_INV_VARIANCE_EXT, 2),
      I(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_SCALE_EXT, 3), I(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_BIAS_EXT, 4),
      O(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_Y_EXT, 0)}},
    {HIPDNN_BACKEND_OPERATION_BATCHNORM_INFERENCE_VARIANCE_DESCRIPTOR_EXT, IR_OP_BN_INFER,
     {I(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_X_EXT, 0),
      I(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_MEAN_EXT, 1),
      I(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_VARIANCE_EXT, 2),
      I(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_SCALE_EXT, 3),
      I(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_BIAS_EXT, 4),
      I(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_EPSILON_EXT, 5),
      O(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_Y_EXT, 0)}},
    {HIPDNN_BACKEND_OPERATION_BATCHNORM_DESCRIPTOR_EXT, IR_OP_BN_TRAIN,
     {I(HIPDNN_ATTR_OPERATION_BATCHNORM_X_EXT, 0), I(HIPDNN_ATTR_OPERATION_BATCHNORM_SCALE_EXT, 1),
      I(HIPDNN_ATTR_OPERATION_BATCHNORM_BIAS_EXT, 2), I(HIPDNN_ATTR_OPERATION_BATCHNORM_EPSILON_EXT, 3),
      I(HIPDNN_ATTR_OPERATION_BATCHNORM_PREV_RUNNING_MEAN_EXT, 4),
      I(HIPDNN_ATTR_OPERATION_BATCHNORM_PREV_RUNNING_VARIANCE_EXT, 5),
      I(HIPDNN_ATTR_OPERATION_BATCHNORM_MOMENTUM_EXT, 6), O(HIPDNN_ATTR_OPERATION_BATCHNORM_Y_EXT, 0),
      O(HIPDNN_ATTR_OPERATION_BATCHNORM_MEAN_EXT, 1), O(HIPDNN_ATTR_OPERATION_BATCHNORM_INV_VARIANCE_EXT, 2),
      O(HIPDNN_ATTR_OPERATION_BATCHNORM_NEXT_RUNNING_MEAN_EXT, 3),
      O(HIPDNN_ATTR_OPERATION_BATCHNORM_NEXT_RUNNING_VARIANCE_EXT, 4)}},
    {HIPDNN_BACKEND_OPERATION_BATCHNORM_BACKWARD_DESCRIPTOR_EXT, IR_OP_BN_BWD,
     {I(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DY_EXT, 0), I(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_X_EXT, 1),
      I(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_SCALE_EXT, 2),
      I(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_MEAN_EXT, 3),
      I(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_INV_VARIANCE_EXT, 4),
      O(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DX_EXT, 0),
      O(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DSCALE_EXT, 1),
      O(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DBIAS_EXT, 2)}},
    {HIPDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR, IR_OP_GENSTATS,
     {I(HIPDNN_ATTR_OPERATION_GENSTATS_XDESC_EXT, 0), O(HIPDNN_ATTR_OPERATION_GENSTATS_SUMDESC_EXT, 0),
      O(HIPDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC_EXT, 1)}},
    {HIPDNN_BACKEND_OPERATION_LAYERNORM_DESCRIPTOR_EXT, IR_OP_LAYERNORM,
     {I(HIPDNN_ATTR_OPERATION_LAYERNORM_X_EXT, 0), I(HIPDNN_ATTR_OPERATION_LAYERNORM_SCALE_EXT, 1),
      I(HIPDNN_ATTR_OPERATION_LAYERNORM_BIAS_EXT, 2), I(HIPDNN_ATTR_OPERATION_LAYERNORM_EPSILON_EXT, 3),
      O(HIPDNN_ATTR_OPERATION_LAYERNORM_Y_EXT, 0), O(HIPDNN_ATTR_OPERATION_LAYERNORM_MEAN_EXT, 1),
      O(HIPDNN_ATTR_OPERATION_LAYERNORM_INV_VARIANCE_EXT, 2)}},
    {HIPDNN_BACKEND_OPERATION_RMSNORM_DESCRIPTOR_EXT, IR_OP_RMSNORM,
     {I(HIPDNN_ATTR_OPERATION_RMSNORM_X_EXT, 0), I(HIPDNN_ATTR_OPERATION_RMSNORM_SCALE_EXT, 1),
      I(HIPDNN_ATTR_OPERATION_RMSNORM_EPSILON_EXT, 2), I(HIPDNN_ATTR_OPERATION_RMSNORM_BIAS_EXT, 3),
      O(HIPDNN_ATTR_OPERATION_RMSNORM_Y_EXT, 0), O(HIPDNN_ATTR_OPERATION_RMSNORM_INV_RMS_EXT, 1)}},
    {HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT, IR_OP_SDPA_FWD,
     {I(HIPDNN_ATTR_OPERATION_SDPA_FWD_QDESC, IR_SDPA_Q), I(HIPDNN_ATTR_OPERATION_SDPA_FWD_KDESC, IR_SDPA_K),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_VDESC, IR_SDPA_V),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_ATTN_MASK_EXT, IR_SDPA_BIAS),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC, IR_SDPA_SCALE),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC, IR_SDPA_SEQ_Q),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC, IR_SDPA_SEQ_KV),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_SEED_EXT, IR_SDPA_SEED),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_OFFSET_EXT, IR_SDPA_OFFSET),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_DROPOUT_MASK_EXT, IR_SDPA_DROPOUT_MASK),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_DROPOUT_SCALE_EXT, IR_SDPA_DROPOUT_SCALE),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_KDESC, IR_SDPA_PAGE_K),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_VDESC, IR_SDPA_PAGE_V),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_SINK_TOKEN_EXT, IR_SDPA_SINK),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_BLOCK_MASK_DESC, IR_SDPA_BLOCK_MASK),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_Q_EXT, IR_SDPA_DESCALE_Q),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_K_EXT, IR_SDPA_DESCALE_K),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_V_EXT, IR_SDPA_DESCALE_V),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_S_EXT, IR_SDPA_DESCALE_S),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALE_S_EXT, IR_SDPA_SCALE_S),
      I(HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALE_O_EXT, IR_SDPA_SCALE_O),
      O(HIPDNN_ATTR_OPERATION_SDPA_FWD_ODESC, IR_SDPA_O), O(HIPDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, IR_SDPA_STATS),
      O(HIPDNN_ATTR_OPERATION_SDPA_FWD_MAX_EXT, IR_SDPA_MAX),
      O(HIPDNN_ATTR_OPERATION_SDPA_FWD_SUM_EXP_EXT, IR_SDPA_SUM_EXP),
      O(HIPDNN_ATTR_OPERATION_SDPA_FWD_RNG_DUMP_EXT, IR_SDPA_RNG_DUMP),
      O(HIPDNN_ATTR_OPERATION_SDPA_FWD_AMAX_S_EXT, IR_SDPA_AMAX_S),
      O(HIPDNN_ATTR_OPERATION_SDPA_FWD_AMAX_O_EXT, IR_SDPA_AMAX_O)}},
    {HIPDNN_BACKEND_OPERATION_SDPA_BPROP_DESCRIPTOR_EXT, IR_OP_SDPA_BWD,
     {I(HIPDNN_ATTR_OPERATION_SDPA_BWD_Q_EXT, IR_SDPAB_Q), I(HIPDNN_ATTR_OPERATION_SDPA_BWD_K_EXT, IR_SDPAB_K),
      I(HIPDNN_ATTR_OPERATION_SDPA_BWD_V_EXT, IR_SDPAB_V), I(HIPDNN_ATTR_OPERATION_SDPA_BWD_O_EXT, IR_SDPAB_O),
      I(HIPDNN_ATTR_OPERATION_SDPA_BWD_DO_EXT, IR_SDPAB_DO),
      I(HIPDNN_ATTR_OPERATION_SDPA_BWD_STATS_EXT, IR_SDPAB_STATS),
      I(HIPDNN_ATTR_OPERATION_SDPA_BWD_ATTN_MASK_EXT, IR_SDPAB_BIAS),
      I(HIPDNN_ATTR_OPERATION_SDPA_BWD_SCALE_EXT, IR_SDPAB_SCALE),
      I(HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_Q_EXT, IR_SDPAB_SEQ_Q),
      I(HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KV_EXT, IR_SDPAB_SEQ_KV),
      I(HIPDNN_ATTR_OPERATION_SDPA_BWD_SEED_EXT, IR_SDPAB_SEED),
      I(HIPDNN_ATTR_OPERATION_SDPA_BWD_OFFSET_EXT, IR_SDPAB_OFFSET),
      I(HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_MASK_EXT, IR_SDPAB_DROPOUT_MASK),
      I(HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_SCALE_EXT, IR_SDPAB_DROPOUT_SCALE),
      I(HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_SCALE_INV_EXT, IR_SDPAB_DROPOUT_SCALE_INV),
      O(HIPDNN_ATTR_OPERATION_SDPA_BWD_DQ_EXT, IR_SDPAB_DQ), O(HIPDNN_ATTR_OPERATION_SDPA_BWD_DK_EXT, IR_SDPAB_DK),
      O(HIPDNN_ATTR_OPERATION_SDPA_BWD_DV_EXT, IR_SDPAB_DV),
      O(HIPDNN_ATTR_OPERATION_SDPA_BWD_DBIAS_EXT, IR_SDPAB_DBIAS)}},
    {HIPDNN_BACKEND_OPERATION_BLOCK_SCALE_QUANTIZE_DESCRIPTOR_EXT, IR_OP_BS_QUANTIZE,
     {I(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_XDESC, 0), O(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_YDESC, 0),
      O(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_SCALE_DESC, 1)}},
    {HIPDNN_BACKEND_OPERATION_BLOCK_SCALE_DEQUANTIZE_DESCRIPTOR_EXT, IR_OP_BS_DEQUANTIZE,
     {I(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_XDESC, 0),
      I(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_SCALE_DESC, 1),
      O(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_YDESC, 0)}},
    {HIPDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR, IR_OP_PAGED_CACHE_LOAD,
     {I(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC_EXT, 0),
      I(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC_EXT, 1),
      I(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC_EXT, 2),
      O(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC_EXT, 0)}},
};
#undef I
#undef O

/* Attributes the IR has no slot for: lowering refuses graphs that set them. */
static const hipdnnBackendAttributeName_t unsupported[] = {
    HIPDNN_ATTR_OPERATION_BATCHNORM_PEER_STATS_EXT, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_PEER_STATS_EXT,
};

/* ---- scalar attributes ------------------------------------------------------------------------------ */

static bool has(fe_obj *o, hipdnnBackendAttributeName_t id)
{
    fe_val *v = fe_get(o, id);
    return v != NULL && v->n > 0;
}

static double f32_or(fe_obj *o, hipdnnBackendAttributeName_t id, double dflt)
{
    return has(o, id) ? fe_get(o, id)->one.f32 : dflt;
}

static int64_t i64_or(fe_obj *o, hipdnnBackendAttributeName_t id, int64_t dflt)
{
    return has(o, id) ? fe_get(o, id)->one.i64 : dflt;
}

static bool bool_of(fe_obj *o, hipdnnBackendAttributeName_t id)
{
    return has(o, id) && fe_get(o, id)->one.b;
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
    p->axis = i64_or(o, HIPDNN_ATTR_POINTWISE_AXIS, 0);
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
    s->has_scale_value = has(o, A(ATTN_SCALE_VALUE_EXT, ATTN_SCALE_VALUE_EXT));
    s->attn_scale = f32_or(o, A(ATTN_SCALE_VALUE_EXT, ATTN_SCALE_VALUE_EXT), 1.0);
    s->alibi = bool_of(o, A(ALIBI_MASK_EXT, ALIBI_MASK_EXT));
    s->padding_mask = bool_of(o, A(PADDING_MASK_EXT, PADDING_MASK_EXT));
    s->has_left = has(o, A(LEFT_BOUND_EXT, LEFT_BOUND_EXT));
    s->left_bound = i64_or(o, A(LEFT_BOUND_EXT, LEFT_BOUND_EXT), 0);
    s->has_right = has(o, A(RIGHT_BOUND_EXT, RIGHT_BOUND_EXT));
    s->right_bound = i64_or(o, A(RIGHT_BOUND_EXT, RIGHT_BOUND_EXT), 0);
    fe_val *align = fe_get(o, A(DIAGONAL_ALIGNMENT_EXT, DIAGONAL_ALIGNMENT_EXT));
    s->bottom_right = align->n > 0 && align->one.e == HIPDNN_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT_EXT;
    /* the deprecated causal flags are the band form with right bound 0 */
    bool causal = bool_of(o, A(CAUSAL_MASK_EXT, CAUSAL_MASK_EXT));
    bool causal_br = bool_of(o, A(CAUSAL_MASK_BOTTOM_RIGHT_EXT, CAUSAL_MASK_BOTTOM_RIGHT_EXT));
    if ((causal || causal_br) && !s->has_right) {
        s->has_right = true;
        s->right_bound = 0;
    }
    s->bottom_right |= causal_br;
    s->dropout_p = f32_or(o, A(DROPOUT_PROBABILITY_EXT, DROPOUT_PROBABILITY_EXT), 0.0);
    s->generate_stats = fwd && (bool_of(o, HIPDNN_ATTR_SDPA_FWD_GENERATE_STATS_EXT) ||
                                has(o, HIPDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC));
#undef A
}

static void lower_quant(fe_obj *o, bool quantize, int x_rank, ir_quant *q)
{
    if (quantize) {
        q->n_block = 1;
        q->block[0] = fe_get(o, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_BLOCK_SIZE)->one.i32;
        q->axis = i64_or(o, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_AXIS_EXT, x_rank - 1);
        q->transpose = bool_of(o, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_TRANSPOSE_EXT);
        return;
    }
    fe_val *b = fe_get(o, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_BLOCK_SIZE);
    q->n_block = (int)b->n;
    for (int i = 0; i < q->n_block && i < IR_MAX_RANK; i++)
        q->block[i] = ((const int32_t *)b->arr)[i];
    q->negative_scale = bool_of(o, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_NEG_SCALE);
}

/* The explicit count, or the frontend's inference from the scale (fe_norm_infer_dims). */
static int normalized_dims(fe_obj *o, hipdnnBackendAttributeName_t scale_id, int given, int x_rank)
{
    if (given > 0)
        return given;
    fe_tensor_view s = fe_tensor(fe_get(o, scale_id)->one.obj);
    return fe_norm_infer_dims(s.dims, s.rank, x_rank);
}

static void lower_attrs(fe_obj *o, ir_op *op, int x_rank)
{
    hipdnnBackendDescriptorType_t t = o->cls->type;
    switch (op->kind) {
    case IR_OP_POINTWISE: lower_pointwise(o, &op->a.pw); break;
    case IR_OP_CONV_FWD:
    case IR_OP_CONV_DGRAD:
    case IR_OP_CONV_WGRAD: lower_conv(o, &op->a.conv); break;
    case IR_OP_BN_INFER:
        op->a.norm.from_variance = t == HIPDNN_BACKEND_OPERATION_BATCHNORM_INFERENCE_VARIANCE_DESCRIPTOR_EXT;
        break;
    case IR_OP_LAYERNORM:
        op->a.norm.phase = fe_get(o, HIPDNN_ATTR_OPERATION_LAYERNORM_FWD_PHASE_EXT)->one.e;
        op->a.norm.normalized_dims = normalized_dims(o, HIPDNN_ATTR_OPERATION_LAYERNORM_SCALE_EXT,
            (int)i64_or(o, HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT, 0), x_rank);
        break;
    case IR_OP_RMSNORM:
        op->a.norm.phase = fe_get(o, HIPDNN_ATTR_OPERATION_RMSNORM_FWD_PHASE_EXT)->one.e;
        op->a.norm.normalized_dims = normalized_dims(o, HIPDNN_ATTR_OPERATION_RMSNORM_SCALE_EXT, 0, x_rank);
        break;
    case IR_OP_SDPA_FWD:
    case IR_OP_SDPA_BWD: lower_sdpa(o, op->kind == IR_OP_SDPA_FWD, &op->a.sdpa); break;
    case IR_OP_BS_QUANTIZE:
    case IR_OP_BS_DEQUANTIZE: lower_quant(o, op->kind == IR_OP_BS_QUANTIZE, x_rank, &op->a.quant); break;
    default: break;
    }
}

/* ---- operands ----------------------------------------------------------------------------------------- */

static int tensor_index(const fe_graph_info *gi, fe_obj *t)
{
    int lo = 0, hi = gi->n_tensors;
    int64_t uid = fe_tensor(t).uid;
    while (lo < hi) { /* gi->tensors are sorted by uid */
        int mid = (lo + hi) / 2;
        if (fe_tensor(gi->tensors[mid].t).uid < uid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static hipdnnStatus_t lower_custom(fe_obj *o, const fe_graph_info *gi, ir_op *op)
{
    fe_val *in = fe_get(o, HIPDNN_ATTR_OPERATION_CUSTOM_OP_INPUTS_EXT);
    fe_val *out = fe_get(o, HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT);
    fe_val *id = fe_get(o, HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT);
    if (in->n > IR_MAX_SLOTS || out->n > IR_MAX_SLOTS)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "custom op with more than %d inputs or outputs",
                         IR_MAX_SLOTS);
    op->kind = IR_OP_CUSTOM;
    op->n_in = (int)in->n, op->n_out = (int)out->n;
    for (int i = 0; i < op->n_in; i++)
        op->in[i] = tensor_index(gi, ((fe_obj **)in->arr)[i]);
    for (int i = 0; i < op->n_out; i++)
        op->out[i] = tensor_index(gi, ((fe_obj **)out->arr)[i]);
    size_t n = (size_t)id->n < sizeof op->a.custom.id - 1 ? (size_t)id->n : sizeof op->a.custom.id - 1;
    memcpy(op->a.custom.id, id->arr, n);
    return HIPDNN_STATUS_SUCCESS;
}

static const lowering *lowering_of(hipdnnBackendDescriptorType_t type)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].type == type)
            return &table[i];
    return NULL;
}

static int compute_type(fe_obj *o, int graph_compute)
{
    for (int i = 0; i < o->cls->n_attrs; i++)
        if ((o->cls->attrs[i].flags & FE_COMPUTE) && o->vals[i].n > 0)
            return o->vals[i].one.e;
    return graph_compute;
}

static hipdnnStatus_t lower_op(fe_obj *o, const fe_graph_info *gi, int graph_compute, ir_op *op)
{
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
        if (has(o, unsupported[i]))
            return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "%s: %s is not supported by this backend",
                             o->cls->name, fe_find_attr(o->cls, unsupported[i])->name);
    *op = (ir_op){.compute = compute_type(o, graph_compute)};
    for (int s = 0; s < IR_MAX_SLOTS; s++)
        op->in[s] = op->out[s] = -1;
    if (o->cls->type == HIPDNN_BACKEND_OPERATION_CUSTOM_OP_DESCRIPTOR_EXT)
        return lower_custom(o, gi, op);
    const lowering *l = lowering_of(o->cls->type);
    op->kind = l->kind;
    op->n_in = ir_op_info_of(l->kind)->n_in;
    op->n_out = ir_op_info_of(l->kind)->n_out;
    int x_rank = 0;
    for (int p = 0; p < (int)(sizeof l->ports / sizeof l->ports[0]) && l->ports[p].id != 0; p++) {
        fe_val *v = fe_get(o, l->ports[p].id);
        if (v->n == 0)
            continue;
        int ti = tensor_index(gi, v->one.obj);
        (l->ports[p].out ? op->out : op->in)[l->ports[p].slot] = ti;
        if (!l->ports[p].out && l->ports[p].slot == 0)
            x_rank = fe_tensor(v->one.obj).rank;
    }
    lower_attrs(o, op, x_rank);
    return HIPDNN_STATUS_SUCCESS;
}

static ir_tensor lower_tensor(fe_obj *t)
{
    fe_tensor_view v = fe_tensor(t);
    ir_tensor it = {.uid = v.uid, .dtype = v.dtype, .rank = v.rank, .is_virtual = v.is_virtual,
                    .by_value = v.by_value};
    memcpy(it.dims, v.dims, (size_t)v.rank * sizeof *v.dims);
    memcpy(it.strides, v.strides, (size_t)v.rank * sizeof *v.strides);
    it.runtime_scalar = fe_get(t, HIPDNN_ATTR_TENSOR_IS_RUNTIME_PASS_BY_VALUE_EXT)->one.b;
    fe_val *val = fe_get(t, HIPDNN_ATTR_TENSOR_VALUE_EXT);
    if (val->n > 0)
        memcpy(it.value, val->arr, (size_t)val->n < sizeof it.value ? (size_t)val->n : sizeof it.value);
    return it;
}

/* The score modifier of SDPA forward o (lowered as *sdpa) into out. */
static hipdnnStatus_t lower_score_mod(fe_obj *o, const fe_graph_info *gi, int graph_compute, ir_graph *out,
                                      ir_op *sdpa)
{
    fe_val *gv = fe_get(o, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_GRAPH_EXT);
    if (o->cls->type != HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT || gv->n == 0)
        return HIPDNN_STATUS_SUCCESS;
    const fe_graph_info *sub = &fe_graph_of(gv->one.obj)->gi;
    int64_t in_uid = i64_or(o, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_INPUT_UID_EXT, 0);
    int64_t out_uid = i64_or(o, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_OUTPUT_UID_EXT, 0);
    int base = out->n_t;
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    for (int i = 0; i < sub->n_tensors && st == HIPDNN_STATUS_SUCCESS; i++) {
        ir_tensor t = lower_tensor(sub->tensors[i].t);
        if (fe_score_mod_tensor(gi, t.uid) >= 0)
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: score modifier tensor uid %lld is also a "
                             "tensor of the graph; give the sub-graph uids of its own", o->cls->name,
                             (long long)t.uid);
        if (t.uid == in_uid)
            t.score = true, t.by_value = t.runtime_scalar = false;
        t.is_virtual |= t.score || sub->tensors[i].producer >= 0; /* never in memory */
        if (ir_add_tensor(out, &t) < 0)
            st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "lowering a graph: out of memory");
    }
    for (int k = 0; k < sub->n_ops && st == HIPDNN_STATUS_SUCCESS; k++) {
        ir_op op;
        st = lower_op(sub->ops[k], sub, graph_compute, &op);
        for (int s = 0; s < IR_MAX_SLOTS; s++) {
            op.in[s] += op.in[s] >= 0 ? base : 0;
            op.out[s] += op.out[s] >= 0 ? base : 0;
        }
        if (st == HIPDNN_STATUS_SUCCESS && ir_add_op(out, &op) < 0)
            st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "lowering a graph: out of memory");
    }
    sdpa->in[IR_SDPA_SCORE_MOD] = base + fe_score_mod_tensor(sub, out_uid);
    return st;
}

/* hipDNN's frontends pass a by-value scalar as a [1] tensor whatever the rank of the other
 * operand, and pointwise ops broadcast it (fe_ops_check.c). A single-element graph input read
 * only by pointwise ops gets their largest output rank here (leading 1s: the same tensor), so
 * kernel templates and the interpreter see equal ranks. Others keep their rank. */
static void widen_pointwise_scalars(ir_graph *g)
{
    for (int ti = 0; ti < g->n_t; ti++) {
        ir_tensor *t = &g->t[ti];
        bool single = true, only_pointwise = true;
        int want = t->rank;
        for (int d = 0; d < t->rank; d++)
            single &= t->dims[d] == 1;
        for (int k = 0; single && k < g->n_ops; k++)
            for (int s = 0; s < IR_MAX_SLOTS; s++) {
                const ir_op *op = &g->ops[k];
                only_pointwise &= op->out[s] != ti;
                if (op->in[s] != ti)
                    continue;
                only_pointwise &= op->kind == IR_OP_POINTWISE;
                if (op->kind == IR_OP_POINTWISE && op->out[0] >= 0 && g->t[op->out[0]].rank > want)
                    want = g->t[op->out[0]].rank;
            }
        if (!single || !only_pointwise || want == t->rank || want > IR_MAX_RANK)
            continue;
        int lead = want - t->rank;
        memmove(t->dims + lead, t->dims, (size_t)t->rank * sizeof *t->dims);
        memmove(t->strides + lead, t->strides, (size_t)t->rank * sizeof *t->strides);
        for (int d = 0; d < lead; d++)
            t->dims[d] = t->strides[d] = 1;
        t->rank = want;
    }
}

hipdnnStatus_t fe_lower(fe_obj *graph, const fe_graph_info *gi, ir_graph *out)
{
    fe_val *gc = fe_get(graph, HIPDNN_ATTR_OPERATIONGRAPH_COMPUTE_DATA_TYPE_EXT);
    int graph_compute = gc->n > 0 ? gc->one.e : HIPDNN_DATA_FLOAT;
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    ir_graph_init(out);
    out->dynamic_shape = bool_of(graph, HIPDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED);
    for (int i = 0; i < gi->n_tensors && st == HIPDNN_STATUS_SUCCESS; i++) {
        ir_tensor t = lower_tensor(gi->tensors[i].t);
        if (ir_add_tensor(out, &t) < 0)
            st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "lowering a graph: out of memory");
    }
    for (int k = 0; k < gi->n_ops && st == HIPDNN_STATUS_SUCCESS; k++) {
        ir_op op;
        st = lower_op(gi->ops[k], gi, graph_compute, &op);
        if (st == HIPDNN_STATUS_SUCCESS)
            st = lower_score_mod(gi->ops[k], gi, graph_compute, out, &op);
        if (st == HIPDNN_STATUS_SUCCESS && ir_add_op(out, &op) < 0)
            st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "lowering a graph: out of memory");
    }
    if (st == HIPDNN_STATUS_SUCCESS) {
        widen_pointwise_scalars(out);
        st = ir_graph_seal(out);
    }
    if (st != HIPDNN_STATUS_SUCCESS)
        ir_graph_free(out);
    return st;
}
