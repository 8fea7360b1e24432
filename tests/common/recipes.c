/* recipes.c — attribute tables and recipes of every graph-side descriptor (see recipes.h).
 *
 * Tables: hipdnn-api.md §2.3 and include/HipdnnBackendAttributeName.h. Shapes in the recipes:
 * op-semantics.md (§1.2 conv, §3 norms, §4 SDPA, §5 block scaling); letters in comments are
 * N batch, C channels, K filters, H/W spatial, B batch, H heads, S sequence, D head dim.
 */
#include "recipes.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tu.h"

/* ---- the tables ---------------------------------------------------------------------------- */

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR
#define DT HIPDNN_TYPE_DATA_TYPE
#define I64 HIPDNN_TYPE_INT64
#define I32 HIPDNN_TYPE_INT32
#define F32 HIPDNN_TYPE_FLOAT
#define BOOL HIPDNN_TYPE_BOOLEAN
#define CHR HIPDNN_TYPE_CHAR

#define ROW(ID, TY, KIND, REQ, MAX) {ID, #ID, TY, KIND, REQ, MAX, false}
/* Mutually exclusive optional attributes (a full recipe sets one of them per variant). */
#define T_ALT(ID) {ID, #ID, DESC, RC_TENSOR, false, 1, true}
#define ONE_ALT(ID, TY) {ID, #ID, TY, RC_SCALAR, false, 1, true}
#define T_REQ(ID) ROW(ID, DESC, RC_TENSOR, true, 1)
#define T_OPT(ID) ROW(ID, DESC, RC_TENSOR, false, 1)
#define T_ARR(ID) ROW(ID, DESC, RC_TENSORS, false, 0)
#define ONE(ID, TY) ROW(ID, TY, RC_SCALAR, false, 1)
#define ONE_REQ(ID, TY) ROW(ID, TY, RC_SCALAR, true, 1)
#define ARR_REQ(ID, TY, MAX) ROW(ID, TY, RC_ARRAY, true, MAX)
#define STR(ID) ROW(ID, CHR, RC_STRING, false, 0)
#define STR_REQ(ID) ROW(ID, CHR, RC_STRING, true, 0)
#define GET_ONLY(ID, TY) ROW(ID, TY, RC_GET_ONLY, false, 1)
#define DECLARED(ID, TY) ROW(ID, TY, RC_DECLARED, false, 1)
/* Every operation descriptor (hipdnn-api.md §1.6, last row). */
#define OP_COMMON                                                                                \
    STR(HIPDNN_ATTR_OPERATION_NAME_EXT),                                                        \
        GET_ONLY(HIPDNN_ATTR_OPERATION_TYPE_EXT, HIPDNN_TYPE_OPERATION_TYPE_EXT)

static const rc_attr tensor_attrs[] = {
    ONE(HIPDNN_ATTR_TENSOR_UNIQUE_ID, I64),
    STR(HIPDNN_ATTR_TENSOR_NAME_EXT),
    ONE_REQ(HIPDNN_ATTR_TENSOR_DATA_TYPE, DT),
    ARR_REQ(HIPDNN_ATTR_TENSOR_DIMENSIONS, I64, 8),
    ARR_REQ(HIPDNN_ATTR_TENSOR_STRIDES, I64, 8),
    ONE(HIPDNN_ATTR_TENSOR_IS_VIRTUAL, BOOL),
    /* raw bytes of one element: exactly the data type's size, read back as such */
    ROW(HIPDNN_ATTR_TENSOR_VALUE_EXT, CHR, RC_ARRAY, false, 8),
    GET_ONLY(HIPDNN_ATTR_TENSOR_IS_BY_VALUE, BOOL),
    ONE(HIPDNN_ATTR_TENSOR_IS_RUNTIME_PASS_BY_VALUE_EXT, BOOL),
    ONE(HIPDNN_ATTR_TENSOR_BYTE_ALIGNMENT, I64),
    ONE(HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC, I64),
    ONE(HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_MULTIPLIER, I64),
};

static const rc_attr graph_attrs[] = {
    ONE_REQ(HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE),
    ROW(HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, RC_OPS, true, 0),
    /* the header still says "declared only": it answers the engine count */
    GET_ONLY(HIPDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, I64),
    /* the header calls 603 "declared only"; newer hipDNN reads it as an optional flag */
    ONE(HIPDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED, BOOL),
    ONE(HIPDNN_ATTR_OPERATIONGRAPH_COMPUTE_DATA_TYPE_EXT, DT),
    ONE(HIPDNN_ATTR_OPERATIONGRAPH_INTERMEDIATE_DATA_TYPE_EXT, DT),
    ONE(HIPDNN_ATTR_OPERATIONGRAPH_IO_DATA_TYPE_EXT, DT),
    ONE(HIPDNN_ATTR_OPERATIONGRAPH_PREFERRED_ENGINE_ID_EXT, I64),
    STR(HIPDNN_ATTR_OPERATIONGRAPH_NAME_EXT),
    ONE(HIPDNN_ATTR_OPERATIONGRAPH_IS_OVERRIDE_SHAPE_ENABLED_EXT, BOOL),
    /* 32 lowercase hex digits (the header's "not yet answered" is stale) */
    GET_ONLY(HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT, CHR),
};

#define CONV_PARAMS                                                                              \
    ONE_REQ(HIPDNN_ATTR_CONVOLUTION_COMP_TYPE, DT),                                             \
        ONE_REQ(HIPDNN_ATTR_CONVOLUTION_CONV_MODE, HIPDNN_TYPE_CONVOLUTION_MODE),               \
        ARR_REQ(HIPDNN_ATTR_CONVOLUTION_DILATIONS, I64, 0),                                     \
        ARR_REQ(HIPDNN_ATTR_CONVOLUTION_FILTER_STRIDES, I64, 0),                                \
        ARR_REQ(HIPDNN_ATTR_CONVOLUTION_POST_PADDINGS, I64, 0),                                 \
        ARR_REQ(HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS, I64, 0)

static const rc_attr conv_fwd_attrs[] = {
    T_REQ(HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W),
    T_REQ(HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X),
    T_REQ(HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y),
    CONV_PARAMS,
    OP_COMMON,
};
static const rc_attr conv_bwd_filter_attrs[] = {
    T_REQ(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X),
    T_REQ(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY),
    T_REQ(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW),
    CONV_PARAMS,
    OP_COMMON,
};
static const rc_attr conv_bwd_data_attrs[] = {
    T_REQ(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY),
    T_REQ(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W),
    T_REQ(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX),
    CONV_PARAMS,
    OP_COMMON,
};
static const rc_attr bn_inference_attrs[] = {
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_X_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_MEAN_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_INV_VARIANCE_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_SCALE_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_BIAS_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_Y_EXT),
    ONE(HIPDNN_ATTR_BATCHNORM_INF_COMP_TYPE_EXT, DT),
    OP_COMMON,
};
static const rc_attr bn_inference_variance_attrs[] = {
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_X_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_MEAN_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_VARIANCE_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_SCALE_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_BIAS_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_Y_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_EPSILON_EXT),
    ONE(HIPDNN_ATTR_BATCHNORM_INF_VAR_COMP_TYPE_EXT, DT),
    OP_COMMON,
};
static const rc_attr bn_backward_attrs[] = {
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DY_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_X_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_SCALE_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DX_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DSCALE_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DBIAS_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_MEAN_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_INV_VARIANCE_EXT),
    ONE(HIPDNN_ATTR_BATCHNORM_BACKWARD_COMP_TYPE_EXT, DT),
    T_ARR(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_PEER_STATS_EXT),
    OP_COMMON,
};
static const rc_attr bn_training_attrs[] = {
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_X_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_SCALE_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_BIAS_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_EPSILON_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_BATCHNORM_Y_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_BATCHNORM_PREV_RUNNING_MEAN_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_BATCHNORM_PREV_RUNNING_VARIANCE_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_BATCHNORM_MOMENTUM_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_BATCHNORM_MEAN_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_BATCHNORM_INV_VARIANCE_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_BATCHNORM_NEXT_RUNNING_MEAN_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_BATCHNORM_NEXT_RUNNING_VARIANCE_EXT),
    ONE(HIPDNN_ATTR_BATCHNORM_COMP_TYPE_EXT, DT),
    T_ARR(HIPDNN_ATTR_OPERATION_BATCHNORM_PEER_STATS_EXT),
    OP_COMMON,
};
static const rc_attr pointwise_attrs[] = {
    T_REQ(HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_POINTWISE_IN_1_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_POINTWISE_IN_2_EXT),
    ONE_REQ(HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_TYPE_POINTWISE_MODE),
    ONE(HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, F32),
    ONE(HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, F32),
    ONE(HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, F32),
    ONE(HIPDNN_ATTR_POINTWISE_SWISH_BETA, F32),
    ONE(HIPDNN_ATTR_POINTWISE_ELU_ALPHA, F32),
    ONE(HIPDNN_ATTR_POINTWISE_SOFTPLUS_BETA, F32),
    ONE(HIPDNN_ATTR_POINTWISE_MATH_PREC, DT),
    ONE(HIPDNN_ATTR_POINTWISE_AXIS, I64),
    OP_COMMON,
};
static const rc_attr matmul_attrs[] = {
    T_REQ(HIPDNN_ATTR_OPERATION_MATMUL_ADESC),
    T_REQ(HIPDNN_ATTR_OPERATION_MATMUL_BDESC),
    T_REQ(HIPDNN_ATTR_OPERATION_MATMUL_CDESC),
    ONE(HIPDNN_ATTR_MATMUL_COMP_TYPE, DT),
    OP_COMMON,
};
static const rc_attr rmsnorm_attrs[] = {
    T_REQ(HIPDNN_ATTR_OPERATION_RMSNORM_X_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_RMSNORM_SCALE_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_RMSNORM_EPSILON_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_RMSNORM_Y_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_RMSNORM_BIAS_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_RMSNORM_INV_RMS_EXT),
    ONE_REQ(HIPDNN_ATTR_OPERATION_RMSNORM_FWD_PHASE_EXT, HIPDNN_TYPE_NORM_FWD_PHASE),
    ONE(HIPDNN_ATTR_RMSNORM_COMP_TYPE_EXT, DT),
    OP_COMMON,
};
static const rc_attr layernorm_attrs[] = {
    T_REQ(HIPDNN_ATTR_OPERATION_LAYERNORM_X_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_LAYERNORM_SCALE_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_LAYERNORM_BIAS_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_LAYERNORM_EPSILON_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_LAYERNORM_Y_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_LAYERNORM_MEAN_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_LAYERNORM_INV_VARIANCE_EXT),
    ONE_REQ(HIPDNN_ATTR_OPERATION_LAYERNORM_FWD_PHASE_EXT, HIPDNN_TYPE_NORM_FWD_PHASE),
    ONE(HIPDNN_ATTR_LAYERNORM_COMP_TYPE_EXT, DT),
    ONE(HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT, I64),
    OP_COMMON,
};
static const rc_attr sdpa_fwd_attrs[] = {
    T_REQ(HIPDNN_ATTR_OPERATION_SDPA_FWD_QDESC),
    T_REQ(HIPDNN_ATTR_OPERATION_SDPA_FWD_KDESC),
    T_REQ(HIPDNN_ATTR_OPERATION_SDPA_FWD_VDESC),
    T_REQ(HIPDNN_ATTR_OPERATION_SDPA_FWD_ODESC),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_ATTN_MASK_EXT),
    T_ALT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SEED_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_OFFSET_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DROPOUT_MASK_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DROPOUT_SCALE_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_KDESC),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_VDESC),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_BLOCK_MASK_DESC),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SINK_TOKEN_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_Q_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_K_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_V_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_S_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALE_S_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALE_O_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_MAX_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SUM_EXP_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_RNG_DUMP_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_AMAX_S_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_AMAX_O_EXT),
    ONE(HIPDNN_ATTR_SDPA_FWD_GENERATE_STATS_EXT, BOOL),
    ONE(HIPDNN_ATTR_SDPA_FWD_ALIBI_MASK_EXT, BOOL),
    ONE(HIPDNN_ATTR_SDPA_FWD_PADDING_MASK_EXT, BOOL),
    ONE(HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_EXT, BOOL),
    ONE(HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_BOTTOM_RIGHT_EXT, BOOL),
    ONE(HIPDNN_ATTR_SDPA_FWD_DROPOUT_PROBABILITY_EXT, F32),
    ONE_ALT(HIPDNN_ATTR_SDPA_FWD_ATTN_SCALE_VALUE_EXT, F32),
    ONE(HIPDNN_ATTR_SDPA_FWD_LEFT_BOUND_EXT, I64),
    ONE(HIPDNN_ATTR_SDPA_FWD_RIGHT_BOUND_EXT, I64),
    ONE(HIPDNN_ATTR_SDPA_FWD_MAX_SEQ_LEN_KV_EXT, I32),
    ONE(HIPDNN_ATTR_SDPA_FWD_DIAGONAL_ALIGNMENT_EXT, HIPDNN_TYPE_DIAGONAL_ALIGNMENT_EXT),
    ONE(HIPDNN_ATTR_SDPA_FWD_MMA_CORE_MODE_EXT, DT),
    ONE(HIPDNN_ATTR_SDPA_FWD_IMPLEMENTATION_EXT, HIPDNN_TYPE_ATTENTION_IMPLEMENTATION_EXT),
    ONE(HIPDNN_ATTR_SDPA_FWD_COMP_TYPE_EXT, DT),
    OP_COMMON,
};
static const rc_attr sdpa_bwd_attrs[] = {
    T_REQ(HIPDNN_ATTR_OPERATION_SDPA_BWD_Q_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_SDPA_BWD_K_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_SDPA_BWD_V_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_SDPA_BWD_O_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_SDPA_BWD_DO_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_SDPA_BWD_STATS_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_SDPA_BWD_DQ_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_SDPA_BWD_DK_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_SDPA_BWD_DV_EXT),
    T_ALT(HIPDNN_ATTR_OPERATION_SDPA_BWD_SCALE_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_ATTN_MASK_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_Q_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KV_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_SEED_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_OFFSET_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_MASK_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_SCALE_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_SCALE_INV_EXT),
    T_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DBIAS_EXT),
    ONE(HIPDNN_ATTR_SDPA_BWD_ALIBI_MASK_EXT, BOOL),
    ONE(HIPDNN_ATTR_SDPA_BWD_PADDING_MASK_EXT, BOOL),
    ONE(HIPDNN_ATTR_SDPA_BWD_CAUSAL_MASK_EXT, BOOL),
    ONE(HIPDNN_ATTR_SDPA_BWD_CAUSAL_MASK_BOTTOM_RIGHT_EXT, BOOL),
    ONE(HIPDNN_ATTR_SDPA_BWD_DROPOUT_PROBABILITY_EXT, F32),
    ONE_ALT(HIPDNN_ATTR_SDPA_BWD_ATTN_SCALE_VALUE_EXT, F32),
    ONE(HIPDNN_ATTR_SDPA_BWD_LEFT_BOUND_EXT, I64),
    ONE(HIPDNN_ATTR_SDPA_BWD_RIGHT_BOUND_EXT, I64),
    ONE(HIPDNN_ATTR_SDPA_BWD_DIAGONAL_ALIGNMENT_EXT, HIPDNN_TYPE_DIAGONAL_ALIGNMENT_EXT),
    ONE(HIPDNN_ATTR_SDPA_BWD_COMP_TYPE_EXT, DT),
    OP_COMMON,
};
static const rc_attr bs_quantize_attrs[] = {
    T_REQ(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_XDESC),
    T_REQ(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_YDESC),
    T_REQ(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_SCALE_DESC),
    ONE_REQ(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_BLOCK_SIZE, I32),
    ONE(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_AXIS_EXT, I64),
    ONE(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_TRANSPOSE_EXT, BOOL),
    ONE(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_MATH_PREC, DT),
    OP_COMMON,
};
static const rc_attr bs_dequantize_attrs[] = {
    T_REQ(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_XDESC),
    T_REQ(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_SCALE_DESC),
    T_REQ(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_YDESC),
    ARR_REQ(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_BLOCK_SIZE, I32, 0),
    ONE(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_NEG_SCALE, BOOL),
    ONE(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_MATH_PREC, DT),
    OP_COMMON,
};
static const rc_attr custom_op_attrs[] = {
    T_ARR(HIPDNN_ATTR_OPERATION_CUSTOM_OP_INPUTS_EXT),
    ROW(HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT, DESC, RC_TENSORS, true, 0),
    STR_REQ(HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT),
    STR(HIPDNN_ATTR_OPERATION_CUSTOM_OP_DATA_EXT),
    ONE(HIPDNN_ATTR_CUSTOM_OP_COMP_TYPE_EXT, DT),
    OP_COMMON,
};
static const rc_attr gen_stats_attrs[] = {
    T_REQ(HIPDNN_ATTR_OPERATION_GENSTATS_XDESC_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_GENSTATS_SUMDESC_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC_EXT),
    ONE(HIPDNN_ATTR_OPERATION_GENSTATS_MODE_EXT, I64),
    ONE(HIPDNN_ATTR_OPERATION_GENSTATS_MATH_PREC_EXT, DT),
    OP_COMMON,
};
static const rc_attr paged_cache_load_attrs[] = {
    T_REQ(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC_EXT),
    T_REQ(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC_EXT),
    ONE(HIPDNN_ATTR_PAGED_CACHE_LOAD_COMP_TYPE_EXT, DT),
    OP_COMMON,
};

/* ---- helpers used by the recipes ------------------------------------------------------------- */

static int64_t g_next_uid; /* uids are unique across every recipe of a test program */

static rc_val *val(rc_ctx *c, hipdnnBackendAttributeName_t id)
{
    int i = rc_index(c->spec, id);
    cr_assert_geq(i, 0, "recipe for %s uses attribute %d, which its table lacks", c->spec->name,
                  (int)id);
    return &c->v[i];
}

static void own(rc_ctx *c, hipdnnBackendDescriptor_t d)
{
    cr_assert_lt(c->n_owned, RC_MAX_OWNED, "recipe owns too many descriptors");
    c->owned[c->n_owned++] = d;
}

hipdnnBackendDescriptor_t rc_tensor(rc_ctx *c, int64_t uid, hipdnnDataType_t dt, int rank,
                                    const int64_t *dims, bool is_virtual)
{
    if (g_next_uid == 0)
        g_next_uid = tu_range(1, (int64_t)1 << 40);
    if (uid < 0)
        uid = g_next_uid++;
    hipdnnBackendDescriptor_t t = tu_tensor(uid, dt, rank, dims, is_virtual, NULL, 0);
    own(c, t);
    return t;
}

/* A by-value scalar of `rank` dims of 1, holding the `size` bytes at value. */
static hipdnnBackendDescriptor_t scalar(rc_ctx *c, int rank, hipdnnDataType_t dt,
                                        const void *value, size_t size)
{
    int64_t ones[8] = {1, 1, 1, 1, 1, 1, 1, 1}, uid;
    hipdnnBackendDescriptor_t t = NULL;
    if (g_next_uid == 0)
        g_next_uid = tu_range(1, (int64_t)1 << 40);
    uid = g_next_uid++;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, I64, 1, &uid));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DATA_TYPE, DT, 1, &dt));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS, I64, rank, ones));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_STRIDES, I64, rank, ones));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, CHR, (int64_t)size, value));
    TU_OK(hipdnnBackendFinalize(t));
    own(c, t);
    return t;
}

hipdnnBackendDescriptor_t rc_scalar_f32(rc_ctx *c, int rank, float value)
{
    return scalar(c, rank, HIPDNN_DATA_FLOAT, &value, sizeof value);
}

static int64_t uid_of(hipdnnBackendDescriptor_t t)
{
    int64_t uid = 0, n = 0;
    TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, I64, 1, &n, &uid));
    return uid;
}

/* Puts tensors ts[0..n) as the value of attribute id. */
static void put_tensors(rc_ctx *c, hipdnnBackendAttributeName_t id, int n,
                        const hipdnnBackendDescriptor_t *ts)
{
    rc_val *v = val(c, id);
    cr_assert_leq(n, RC_MAX_DESCS);
    v->n = n;
    for (int i = 0; i < n; i++) {
        v->d[i] = ts[i];
        v->uid[i] = uid_of(ts[i]);
    }
}

static void put(rc_ctx *c, hipdnnBackendAttributeName_t id, hipdnnBackendDescriptor_t t)
{
    put_tensors(c, id, 1, &t);
}

/* A new tensor as the value of attribute id. */
static hipdnnBackendDescriptor_t tensor(rc_ctx *c, hipdnnBackendAttributeName_t id,
                                        hipdnnDataType_t dt, int rank, const int64_t *dims,
                                        bool is_virtual)
{
    hipdnnBackendDescriptor_t t = rc_tensor(c, -1, dt, rank, dims, is_virtual);
    put(c, id, t);
    return t;
}
#define TENSOR(C, ID, DT_, ...)                                                                  \
    tensor(C, ID, DT_, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)),               \
           (int64_t[]){__VA_ARGS__}, false)

static void s_i64(rc_ctx *c, hipdnnBackendAttributeName_t id, int64_t x)
{
    rc_val *v = val(c, id);
    v->n = 1;
    v->u.i64[0] = x;
}
static void s_i32(rc_ctx *c, hipdnnBackendAttributeName_t id, int32_t x)
{
    rc_val *v = val(c, id);
    v->n = 1;
    v->u.i32[0] = x;
}
static void s_f32(rc_ctx *c, hipdnnBackendAttributeName_t id, float x)
{
    rc_val *v = val(c, id);
    v->n = 1;
    v->u.f32 = x;
}
static void s_bool(rc_ctx *c, hipdnnBackendAttributeName_t id, bool x)
{
    rc_val *v = val(c, id);
    v->n = 1;
    v->u.b = x;
}
static void s_enum(rc_ctx *c, hipdnnBackendAttributeName_t id, int x)
{
    rc_val *v = val(c, id);
    v->n = 1;
    v->u.e = x;
}
static void a_i64(rc_ctx *c, hipdnnBackendAttributeName_t id, int n, const int64_t *x)
{
    rc_val *v = val(c, id);
    v->n = n;
    memcpy(v->u.i64, x, (size_t)n * sizeof *x);
}
static void a_i32(rc_ctx *c, hipdnnBackendAttributeName_t id, int n, const int32_t *x)
{
    rc_val *v = val(c, id);
    v->n = n;
    memcpy(v->u.i32, x, (size_t)n * sizeof *x);
}
static void s_bytes(rc_ctx *c, hipdnnBackendAttributeName_t id, const void *p, size_t n)
{
    rc_val *v = val(c, id);
    cr_assert_leq(n, sizeof v->u.s);
    v->n = (int64_t)n;
    memcpy(v->u.s, p, n);
}
/* A random printable name "<prefix>_xxxx...". */
static void s_name(rc_ctx *c, hipdnnBackendAttributeName_t id, const char *prefix)
{
    char s[RC_STR_MAX];
    int len = snprintf(s, sizeof s, "%s_", prefix);
    int extra = (int)tu_range(1, 40);
    for (int i = 0; i < extra && len < RC_STR_MAX - 1; i++)
        s[len++] = "abcdefghijklmnopqrstuvwxyz0123456789-_."[tu_range(0, 38)];
    s_bytes(c, id, s, (size_t)len);
}

static hipdnnDataType_t any_float_type(void)
{
    static const hipdnnDataType_t t[] = {HIPDNN_DATA_FLOAT, HIPDNN_DATA_HALF, HIPDNN_DATA_BFLOAT16};
    return t[tu_range(0, 2)];
}

/* The common op attributes: a name in a full recipe, the expected operation type always. */
static void op_common(rc_ctx *c)
{
    if (c->full)
        s_name(c, HIPDNN_ATTR_OPERATION_NAME_EXT, "op");
    s_enum(c, HIPDNN_ATTR_OPERATION_TYPE_EXT, c->spec->op_type);
}

/* ---- recipes --------------------------------------------------------------------------------- */

static void recipe_tensor(rc_ctx *c)
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
    if (g_next_uid == 0)
        g_next_uid = tu_range(1, (int64_t)1 << 40);
    s_enum(c, HIPDNN_ATTR_TENSOR_DATA_TYPE, c->full ? (int)by_value[k] : (int)any_float_type());
    a_i64(c, HIPDNN_ATTR_TENSOR_DIMENSIONS, rank, dims);
    a_i64(c, HIPDNN_ATTR_TENSOR_STRIDES, rank, strides);
    s_bool(c, HIPDNN_ATTR_TENSOR_IS_BY_VALUE, c->full);
    if (!c->full)
        return;
    unsigned char bytes[8];
    tu_bytes(bytes, sizeof bytes);
    if (by_value[k] == HIPDNN_DATA_BOOLEAN)
        bytes[0] &= 1;
    s_i64(c, HIPDNN_ATTR_TENSOR_UNIQUE_ID, g_next_uid++);
    s_name(c, HIPDNN_ATTR_TENSOR_NAME_EXT, "tensor");
    s_bool(c, HIPDNN_ATTR_TENSOR_IS_VIRTUAL, false);
    s_bytes(c, HIPDNN_ATTR_TENSOR_VALUE_EXT, bytes, by_value_size[k]);
    s_bool(c, HIPDNN_ATTR_TENSOR_IS_RUNTIME_PASS_BY_VALUE_EXT, false);
    s_i64(c, HIPDNN_ATTR_TENSOR_BYTE_ALIGNMENT, (int64_t)1 << tu_range(0, 8));
    s_i64(c, HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC, tu_range(1, 1000000));
    s_i64(c, HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_MULTIPLIER, tu_range(1, 64));
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
    own(c, op);
    return op;
}

static void recipe_graph(rc_ctx *c)
{
    int64_t dims[2] = {tu_range(1, 64), tu_range(1, 64)};
    hipdnnBackendDescriptor_t x = rc_tensor(c, -1, HIPDNN_DATA_FLOAT, 2, dims, false), t, y;
    rc_val *ops = val(c, HIPDNN_ATTR_OPERATIONGRAPH_OPS);
    size_t engines = 0;
    TU_OK(hipdnnGetEngineCount_ext(c->handle, &engines));
    s_i64(c, HIPDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, (int64_t)engines);
    val(c, HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT)->n = 32; /* checked by its form */
    val(c, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE)->n = 1;
    val(c, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE)->u.h = c->handle;
    ops->d[0] = pointwise_op(c, x, dims, c->full, HIPDNN_POINTWISE_RELU_FWD, "relu", &t);
    ops->op_type[0] = HIPDNN_OPERATION_TYPE_POINTWISE_EXT;
    ops->n = 1;
    if (!c->full)
        return;
    ops->d[1] = pointwise_op(c, t, dims, false, HIPDNN_POINTWISE_IDENTITY, "identity", &y);
    ops->op_type[1] = HIPDNN_OPERATION_TYPE_POINTWISE_EXT;
    ops->n = 2;
    s_enum(c, HIPDNN_ATTR_OPERATIONGRAPH_COMPUTE_DATA_TYPE_EXT, HIPDNN_DATA_FLOAT);
    s_enum(c, HIPDNN_ATTR_OPERATIONGRAPH_INTERMEDIATE_DATA_TYPE_EXT, any_float_type());
    s_enum(c, HIPDNN_ATTR_OPERATIONGRAPH_IO_DATA_TYPE_EXT, any_float_type());
    s_i64(c, HIPDNN_ATTR_OPERATIONGRAPH_PREFERRED_ENGINE_ID_EXT, (int64_t)tu_rand());
    s_name(c, HIPDNN_ATTR_OPERATIONGRAPH_NAME_EXT, "graph");
    s_bool(c, HIPDNN_ATTR_OPERATIONGRAPH_IS_OVERRIDE_SHAPE_ENABLED_EXT, tu_rand() & 1);
    s_bool(c, HIPDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED, tu_rand() & 1);
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
    s_enum(c, HIPDNN_ATTR_CONVOLUTION_COMP_TYPE, HIPDNN_DATA_FLOAT);
    s_enum(c, HIPDNN_ATTR_CONVOLUTION_CONV_MODE,
           tu_rand() & 1 ? HIPDNN_CROSS_CORRELATION : HIPDNN_CONVOLUTION);
    a_i64(c, HIPDNN_ATTR_CONVOLUTION_DILATIONS, 2, s->dil);
    a_i64(c, HIPDNN_ATTR_CONVOLUTION_FILTER_STRIDES, 2, s->stride);
    a_i64(c, HIPDNN_ATTR_CONVOLUTION_POST_PADDINGS, 2, s->post);
    a_i64(c, HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS, 2, s->pre);
    op_common(c);
}

static void recipe_conv_fwd(rc_ctx *c)
{
    conv_shape s = conv_problem();
    hipdnnDataType_t dt = any_float_type();
    tensor(c, HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, dt, 4, s.x, false);
    tensor(c, HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, dt, 4, s.w, false);
    tensor(c, HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, dt, 4, s.y, false);
    conv_params(c, &s);
}

static void recipe_conv_bwd_data(rc_ctx *c)
{
    conv_shape s = conv_problem();
    hipdnnDataType_t dt = any_float_type();
    tensor(c, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, dt, 4, s.y, false);
    tensor(c, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, dt, 4, s.w, false);
    tensor(c, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, dt, 4, s.x, false);
    conv_params(c, &s);
}

static void recipe_conv_bwd_filter(rc_ctx *c)
{
    conv_shape s = conv_problem();
    hipdnnDataType_t dt = any_float_type();
    tensor(c, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, dt, 4, s.x, false);
    tensor(c, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, dt, 4, s.y, false);
    tensor(c, HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, dt, 4, s.w, false);
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
    return (bn_shape){{n, ch, h, w}, {1, ch, 1, 1}, {2, 4 * ch, 1, 1}, any_float_type()};
}

#define F HIPDNN_DATA_FLOAT
static void recipe_bn_inference(rc_ctx *c)
{
    bn_shape s = bn_problem();
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_X_EXT, s.dt, 4, s.x, false);
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_MEAN_EXT, F, 4, s.ch, false);
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_INV_VARIANCE_EXT, F, 4, s.ch, false);
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_SCALE_EXT, F, 4, s.ch, false);
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_BIAS_EXT, F, 4, s.ch, false);
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_Y_EXT, s.dt, 4, s.x, false);
    if (c->full)
        s_enum(c, HIPDNN_ATTR_BATCHNORM_INF_COMP_TYPE_EXT, F);
    op_common(c);
}

static void recipe_bn_inference_variance(rc_ctx *c)
{
    bn_shape s = bn_problem();
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_X_EXT, s.dt, 4, s.x, false);
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_MEAN_EXT, F, 4, s.ch, false);
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_VARIANCE_EXT, F, 4, s.ch, false);
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_SCALE_EXT, F, 4, s.ch, false);
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_BIAS_EXT, F, 4, s.ch, false);
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_Y_EXT, s.dt, 4, s.x, false);
    put(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_EPSILON_EXT,
        rc_scalar_f32(c, 4, tu_float(1e-6f, 1e-2f)));
    if (c->full)
        s_enum(c, HIPDNN_ATTR_BATCHNORM_INF_VAR_COMP_TYPE_EXT, F);
    op_common(c);
}

static void recipe_bn_training(rc_ctx *c)
{
    bn_shape s = bn_problem();
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_X_EXT, s.dt, 4, s.x, false);
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_SCALE_EXT, F, 4, s.ch, false);
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BIAS_EXT, F, 4, s.ch, false);
    put(c, HIPDNN_ATTR_OPERATION_BATCHNORM_EPSILON_EXT, rc_scalar_f32(c, 4, tu_float(1e-6f, 1e-2f)));
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_Y_EXT, s.dt, 4, s.x, false);
    if (c->full) {
        tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_PREV_RUNNING_MEAN_EXT, F, 4, s.ch, false);
        tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_PREV_RUNNING_VARIANCE_EXT, F, 4, s.ch, false);
        put(c, HIPDNN_ATTR_OPERATION_BATCHNORM_MOMENTUM_EXT, rc_scalar_f32(c, 4, tu_float(0, 1)));
        tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_MEAN_EXT, F, 4, s.ch, false);
        tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_INV_VARIANCE_EXT, F, 4, s.ch, false);
        tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_NEXT_RUNNING_MEAN_EXT, F, 4, s.ch, false);
        tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_NEXT_RUNNING_VARIANCE_EXT, F, 4, s.ch, false);
        s_enum(c, HIPDNN_ATTR_BATCHNORM_COMP_TYPE_EXT, F);
        hipdnnBackendDescriptor_t peers[2] = {rc_tensor(c, -1, F, 4, s.peer, false),
                                              rc_tensor(c, -1, F, 4, s.peer, false)};
        put_tensors(c, HIPDNN_ATTR_OPERATION_BATCHNORM_PEER_STATS_EXT, 2, peers);
    }
    op_common(c);
}

static void recipe_bn_backward(rc_ctx *c)
{
    bn_shape s = bn_problem();
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DY_EXT, s.dt, 4, s.x, false);
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_X_EXT, s.dt, 4, s.x, false);
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_SCALE_EXT, F, 4, s.ch, false);
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DX_EXT, s.dt, 4, s.x, false);
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DSCALE_EXT, F, 4, s.ch, false);
    tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DBIAS_EXT, F, 4, s.ch, false);
    if (c->full) {
        tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_MEAN_EXT, F, 4, s.ch, false);
        tensor(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_INV_VARIANCE_EXT, F, 4, s.ch, false);
        s_enum(c, HIPDNN_ATTR_BATCHNORM_BACKWARD_COMP_TYPE_EXT, F);
        hipdnnBackendDescriptor_t peers[2] = {rc_tensor(c, -1, F, 4, s.peer, false),
                                              rc_tensor(c, -1, F, 4, s.peer, false)};
        put_tensors(c, HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_PEER_STATS_EXT, 2, peers);
    }
    op_common(c);
}

static void recipe_gen_stats(rc_ctx *c)
{
    bn_shape s = bn_problem();
    tensor(c, HIPDNN_ATTR_OPERATION_GENSTATS_XDESC_EXT, s.dt, 4, s.x, false);
    tensor(c, HIPDNN_ATTR_OPERATION_GENSTATS_SUMDESC_EXT, F, 4, s.ch, false);
    tensor(c, HIPDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC_EXT, F, 4, s.ch, false);
    if (c->full) {
        s_i64(c, HIPDNN_ATTR_OPERATION_GENSTATS_MODE_EXT, HIPDNN_GENSTATS_MODE_SUM_SQSUM_EXT);
        s_enum(c, HIPDNN_ATTR_OPERATION_GENSTATS_MATH_PREC_EXT, F);
    }
    op_common(c);
}

/* Pointwise: full = BINARY_SELECT (x, b, predicate), minimal = a unary mode; [R, D] tensors,
 * the second input broadcast over rows (op-semantics.md §0.4, §2.2). */
static void recipe_pointwise(rc_ctx *c)
{
    static const hipdnnPointwiseMode_t unary[] = {
        HIPDNN_POINTWISE_RELU_FWD, HIPDNN_POINTWISE_TANH_FWD, HIPDNN_POINTWISE_SIGMOID_FWD,
        HIPDNN_POINTWISE_EXP, HIPDNN_POINTWISE_IDENTITY, HIPDNN_POINTWISE_ABS};
    int64_t r = tu_range(1, 64), d = tu_range(1, 64);
    hipdnnDataType_t dt = any_float_type();
    TENSOR(c, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, dt, r, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, dt, r, d);
    if (!c->full) {
        s_enum(c, HIPDNN_ATTR_POINTWISE_MODE, unary[tu_range(0, 5)]);
        op_common(c);
        return;
    }
    TENSOR(c, HIPDNN_ATTR_OPERATION_POINTWISE_IN_1_EXT, dt, 1, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_POINTWISE_IN_2_EXT, HIPDNN_DATA_BOOLEAN, r, d);
    s_enum(c, HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_POINTWISE_BINARY_SELECT);
    s_f32(c, HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, tu_float(-1, 0));
    s_f32(c, HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, tu_float(1, 10));
    s_f32(c, HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, tu_float(0, 0.5f));
    s_f32(c, HIPDNN_ATTR_POINTWISE_SWISH_BETA, tu_float(0.5f, 2));
    s_f32(c, HIPDNN_ATTR_POINTWISE_ELU_ALPHA, tu_float(0.5f, 2));
    s_f32(c, HIPDNN_ATTR_POINTWISE_SOFTPLUS_BETA, tu_float(0.5f, 2));
    s_enum(c, HIPDNN_ATTR_POINTWISE_MATH_PREC, F);
    s_i64(c, HIPDNN_ATTR_POINTWISE_AXIS, tu_range(0, 1));
    op_common(c);
}

/* Matmul: A [B,M,K] x B [B,K,N] -> C [B,M,N] (§2.1). */
static void recipe_matmul(rc_ctx *c)
{
    int64_t b = tu_range(1, 4), m = tu_range(1, 64), k = tu_range(1, 64), n = tu_range(1, 64);
    hipdnnDataType_t dt = any_float_type();
    TENSOR(c, HIPDNN_ATTR_OPERATION_MATMUL_ADESC, dt, b, m, k);
    TENSOR(c, HIPDNN_ATTR_OPERATION_MATMUL_BDESC, dt, b, k, n);
    TENSOR(c, HIPDNN_ATTR_OPERATION_MATMUL_CDESC, dt, b, m, n);
    if (c->full)
        s_enum(c, HIPDNN_ATTR_MATMUL_COMP_TYPE, F);
    op_common(c);
}

/* RMSNorm / LayerNorm over the last dim: X [R, D], scale/bias [1, D], stats [R, 1] (§3.6-3.7).
 * Statistics outputs belong to TRAINING: full recipes train, minimal ones infer. */
static void recipe_rmsnorm(rc_ctx *c)
{
    int64_t r = tu_range(1, 64), d = tu_range(1, 128);
    hipdnnDataType_t dt = any_float_type();
    TENSOR(c, HIPDNN_ATTR_OPERATION_RMSNORM_X_EXT, dt, r, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_RMSNORM_SCALE_EXT, F, 1, d);
    put(c, HIPDNN_ATTR_OPERATION_RMSNORM_EPSILON_EXT, rc_scalar_f32(c, 2, tu_float(1e-6f, 1e-3f)));
    TENSOR(c, HIPDNN_ATTR_OPERATION_RMSNORM_Y_EXT, dt, r, d);
    s_enum(c, HIPDNN_ATTR_OPERATION_RMSNORM_FWD_PHASE_EXT,
           c->full ? HIPDNN_NORM_FWD_TRAINING : HIPDNN_NORM_FWD_INFERENCE);
    if (c->full) {
        TENSOR(c, HIPDNN_ATTR_OPERATION_RMSNORM_BIAS_EXT, F, 1, d);
        TENSOR(c, HIPDNN_ATTR_OPERATION_RMSNORM_INV_RMS_EXT, F, r, 1);
        s_enum(c, HIPDNN_ATTR_RMSNORM_COMP_TYPE_EXT, F);
    }
    op_common(c);
}

static void recipe_layernorm(rc_ctx *c)
{
    int64_t r = tu_range(1, 64), d = tu_range(1, 128);
    hipdnnDataType_t dt = any_float_type();
    TENSOR(c, HIPDNN_ATTR_OPERATION_LAYERNORM_X_EXT, dt, r, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_LAYERNORM_SCALE_EXT, F, 1, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_LAYERNORM_BIAS_EXT, F, 1, d);
    put(c, HIPDNN_ATTR_OPERATION_LAYERNORM_EPSILON_EXT, rc_scalar_f32(c, 2, tu_float(1e-6f, 1e-3f)));
    TENSOR(c, HIPDNN_ATTR_OPERATION_LAYERNORM_Y_EXT, dt, r, d);
    s_enum(c, HIPDNN_ATTR_OPERATION_LAYERNORM_FWD_PHASE_EXT,
           c->full ? HIPDNN_NORM_FWD_TRAINING : HIPDNN_NORM_FWD_INFERENCE);
    if (c->full) {
        TENSOR(c, HIPDNN_ATTR_OPERATION_LAYERNORM_MEAN_EXT, F, r, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_LAYERNORM_INV_VARIANCE_EXT, F, r, 1);
        s_enum(c, HIPDNN_ATTR_LAYERNORM_COMP_TYPE_EXT, F);
        s_i64(c, HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT, 1);
    }
    op_common(c);
}

/* SDPA: Q/O [B,H,Sq,D], K/V [B,H,Skv,D], masks [1|B,H,Sq,Skv], stats [B,H,Sq,1], seq lens and
 * page tables INT32 [B,1,..,1], scalars [1,1,1,1] FLOAT (§4.1). K/V double as a paged
 * container with one block per batch (block size Skv), so the page tables are [B,1,1,1]. */
typedef struct sdpa_shape {
    int64_t b, h, sq, skv, d;
    hipdnnDataType_t dt;
} sdpa_shape;

static sdpa_shape sdpa_problem(void)
{
    return (sdpa_shape){tu_range(1, 2), tu_range(1, 4), tu_range(1, 64), tu_range(1, 64),
                        8 * tu_range(1, 8),
                        tu_rand() & 1 ? HIPDNN_DATA_HALF : HIPDNN_DATA_BFLOAT16};
}

static void recipe_sdpa_fwd(rc_ctx *c)
{
    sdpa_shape s = sdpa_problem();
    int64_t b = s.b, h = s.h, sq = s.sq, skv = s.skv, d = s.d;
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_QDESC, s.dt, b, h, sq, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_KDESC, s.dt, b, h, skv, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_VDESC, s.dt, b, h, skv, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_ODESC, s.dt, b, h, sq, d);
    if (c->full) {
        int64_t seed = (int64_t)tu_rand(), offset = tu_range(0, 1 << 20);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_ATTN_MASK_EXT, s.dt, 1, h, sq, skv);
        if (c->variant == 0) /* the scale as a tensor, or (variant 1) as a value */
            put(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC, rc_scalar_f32(c, 4, tu_float(0.05f, 1)));
        else
            s_f32(c, HIPDNN_ATTR_SDPA_FWD_ATTN_SCALE_VALUE_EXT, tu_float(0.05f, 1));
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC, HIPDNN_DATA_INT32, b, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC, HIPDNN_DATA_INT32, b, 1, 1, 1);
        put(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_SEED_EXT,
            scalar(c, 4, HIPDNN_DATA_INT64, &seed, sizeof seed));
        put(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_OFFSET_EXT,
            scalar(c, 4, HIPDNN_DATA_INT64, &offset, sizeof offset));
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_DROPOUT_MASK_EXT, s.dt, b, h, sq, skv);
        put(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_DROPOUT_SCALE_EXT, rc_scalar_f32(c, 4, 1.25f));
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_KDESC, HIPDNN_DATA_INT32, b, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_VDESC, HIPDNN_DATA_INT32, b, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_BLOCK_MASK_DESC, HIPDNN_DATA_UINT8, b, h,
               (sq + 127) / 128, ((skv + 127) / 128 + 7) / 8);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_SINK_TOKEN_EXT, F, 1, h, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_Q_EXT, F, 1, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_K_EXT, F, 1, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_V_EXT, F, 1, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_S_EXT, F, 1, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALE_S_EXT, F, 1, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALE_O_EXT, F, 1, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, F, b, h, sq, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_MAX_EXT, F, b, h, sq, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_SUM_EXP_EXT, F, b, h, sq, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_RNG_DUMP_EXT, F, b, h, sq, skv);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_AMAX_S_EXT, F, 1, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_AMAX_O_EXT, F, 1, 1, 1, 1);
        s_bool(c, HIPDNN_ATTR_SDPA_FWD_GENERATE_STATS_EXT, true);
        s_bool(c, HIPDNN_ATTR_SDPA_FWD_ALIBI_MASK_EXT, tu_rand() & 1);
        s_bool(c, HIPDNN_ATTR_SDPA_FWD_PADDING_MASK_EXT, true);
        s_bool(c, HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_EXT, false);
        s_bool(c, HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_BOTTOM_RIGHT_EXT, false);
        s_f32(c, HIPDNN_ATTR_SDPA_FWD_DROPOUT_PROBABILITY_EXT, tu_float(0.01f, 0.5f));
        s_i64(c, HIPDNN_ATTR_SDPA_FWD_LEFT_BOUND_EXT, tu_range(1, skv));
        s_i64(c, HIPDNN_ATTR_SDPA_FWD_RIGHT_BOUND_EXT, 0);
        s_i32(c, HIPDNN_ATTR_SDPA_FWD_MAX_SEQ_LEN_KV_EXT, (int32_t)skv);
        s_enum(c, HIPDNN_ATTR_SDPA_FWD_DIAGONAL_ALIGNMENT_EXT, (int)tu_range(0, 1));
        s_enum(c, HIPDNN_ATTR_SDPA_FWD_MMA_CORE_MODE_EXT, s.dt);
        s_enum(c, HIPDNN_ATTR_SDPA_FWD_IMPLEMENTATION_EXT, (int)tu_range(0, 2));
        s_enum(c, HIPDNN_ATTR_SDPA_FWD_COMP_TYPE_EXT, F);
    }
    op_common(c);
}

static void recipe_sdpa_bwd(rc_ctx *c)
{
    sdpa_shape s = sdpa_problem();
    int64_t b = s.b, h = s.h, sq = s.sq, skv = s.skv, d = s.d;
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_Q_EXT, s.dt, b, h, sq, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_K_EXT, s.dt, b, h, skv, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_V_EXT, s.dt, b, h, skv, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_O_EXT, s.dt, b, h, sq, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_DO_EXT, s.dt, b, h, sq, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_STATS_EXT, F, b, h, sq, 1);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_DQ_EXT, s.dt, b, h, sq, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_DK_EXT, s.dt, b, h, skv, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_DV_EXT, s.dt, b, h, skv, d);
    if (c->full) {
        int64_t seed = (int64_t)tu_rand(), offset = tu_range(0, 1 << 20);
        if (c->variant == 0)
            put(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_SCALE_EXT, rc_scalar_f32(c, 4, tu_float(0.05f, 1)));
        else
            s_f32(c, HIPDNN_ATTR_SDPA_BWD_ATTN_SCALE_VALUE_EXT, tu_float(0.05f, 1));
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_ATTN_MASK_EXT, s.dt, 1, h, sq, skv);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_Q_EXT, HIPDNN_DATA_INT32, b, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KV_EXT, HIPDNN_DATA_INT32, b, 1, 1, 1);
        put(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_SEED_EXT,
            scalar(c, 4, HIPDNN_DATA_INT64, &seed, sizeof seed));
        put(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_OFFSET_EXT,
            scalar(c, 4, HIPDNN_DATA_INT64, &offset, sizeof offset));
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_MASK_EXT, s.dt, b, h, sq, skv);
        put(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_SCALE_EXT, rc_scalar_f32(c, 4, 1.25f));
        put(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_SCALE_INV_EXT, rc_scalar_f32(c, 4, 0.8f));
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_DBIAS_EXT, s.dt, 1, h, sq, skv);
        s_bool(c, HIPDNN_ATTR_SDPA_BWD_ALIBI_MASK_EXT, tu_rand() & 1);
        s_bool(c, HIPDNN_ATTR_SDPA_BWD_PADDING_MASK_EXT, true);
        s_bool(c, HIPDNN_ATTR_SDPA_BWD_CAUSAL_MASK_EXT, false);
        s_bool(c, HIPDNN_ATTR_SDPA_BWD_CAUSAL_MASK_BOTTOM_RIGHT_EXT, false);
        s_f32(c, HIPDNN_ATTR_SDPA_BWD_DROPOUT_PROBABILITY_EXT, tu_float(0.01f, 0.5f));
        s_i64(c, HIPDNN_ATTR_SDPA_BWD_LEFT_BOUND_EXT, tu_range(1, skv));
        s_i64(c, HIPDNN_ATTR_SDPA_BWD_RIGHT_BOUND_EXT, 0);
        s_enum(c, HIPDNN_ATTR_SDPA_BWD_DIAGONAL_ALIGNMENT_EXT, (int)tu_range(0, 1));
        s_enum(c, HIPDNN_ATTR_SDPA_BWD_COMP_TYPE_EXT, F);
    }
    op_common(c);
}

/* Paged cache load: container [B*blocks, H, bs, D] -> Y [B,H,S,D] (virtual), seq lens
 * [B,1,1,1] and page table [B,1,blocks,1] INT32 (§4.8). */
static void recipe_paged_cache_load(rc_ctx *c)
{
    int64_t b = tu_range(1, 3), h = tu_range(1, 4), bs = (int64_t)1 << tu_range(0, 4);
    int64_t s = tu_range(1, 64), d = 8 * tu_range(1, 8), blocks = (s + bs - 1) / bs;
    hipdnnDataType_t dt = tu_rand() & 1 ? HIPDNN_DATA_HALF : HIPDNN_DATA_BFLOAT16;
    TENSOR(c, HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC_EXT, dt, b * blocks, h, bs, d);
    tensor(c, HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC_EXT, dt, 4, (int64_t[]){b, h, s, d},
           true);
    TENSOR(c, HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC_EXT, HIPDNN_DATA_INT32, b, 1, 1, 1);
    TENSOR(c, HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC_EXT, HIPDNN_DATA_INT32, b, 1,
           blocks, 1);
    if (c->full)
        s_enum(c, HIPDNN_ATTR_PAGED_CACHE_LOAD_COMP_TYPE_EXT, F);
    op_common(c);
}

/* Block scaling along the last dim: X [M, K], scales [M, K/32] FP8_E8M0 (§5.2-5.3). */
static void recipe_bs_quantize(rc_ctx *c)
{
    int64_t m = tu_range(1, 64), k = 32 * tu_range(1, 8);
    TENSOR(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_XDESC, F, m, k);
    TENSOR(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_YDESC, HIPDNN_DATA_FP8_E4M3, m, k);
    TENSOR(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_SCALE_DESC, HIPDNN_DATA_FP8_E8M0, m, k / 32);
    s_i32(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_BLOCK_SIZE, 32);
    if (c->full) {
        s_i64(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_AXIS_EXT, 1);
        s_bool(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_TRANSPOSE_EXT, false);
        s_enum(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_MATH_PREC, F);
    }
    op_common(c);
}

static void recipe_bs_dequantize(rc_ctx *c)
{
    int64_t m = tu_range(1, 64), k = 32 * tu_range(1, 8);
    TENSOR(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_XDESC, HIPDNN_DATA_FP8_E4M3, m, k);
    TENSOR(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_SCALE_DESC, HIPDNN_DATA_FP8_E8M0, m, k / 32);
    tensor(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_YDESC, F, 2, (int64_t[]){m, k}, true);
    a_i32(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_BLOCK_SIZE, 2, (int32_t[]){1, 32});
    if (c->full) {
        s_bool(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_NEG_SCALE, tu_rand() & 1);
        s_enum(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_MATH_PREC, F);
    }
    op_common(c);
}

static void recipe_custom_op(rc_ctx *c)
{
    static const char id[] = "example.rope";
    int64_t dims[3] = {tu_range(1, 4), tu_range(1, 32), 8 * tu_range(1, 8)};
    hipdnnBackendDescriptor_t out = rc_tensor(c, -1, HIPDNN_DATA_HALF, 3, dims, false);
    s_bytes(c, HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT, id, sizeof id - 1);
    put_tensors(c, HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT, 1, &out);
    if (c->full) {
        hipdnnBackendDescriptor_t in[2] = {rc_tensor(c, -1, HIPDNN_DATA_HALF, 3, dims, false),
                                           rc_tensor(c, -1, F, 3, (int64_t[]){1, dims[1], dims[2]},
                                                     false)};
        unsigned char data[40];
        tu_bytes(data, sizeof data);
        put_tensors(c, HIPDNN_ATTR_OPERATION_CUSTOM_OP_INPUTS_EXT, 2, in);
        s_bytes(c, HIPDNN_ATTR_OPERATION_CUSTOM_OP_DATA_EXT, data, (size_t)tu_range(1, 40));
        s_enum(c, HIPDNN_ATTR_CUSTOM_OP_COMP_TYPE_EXT, F);
    }
    op_common(c);
}
#undef F

/* ---- the registry ----------------------------------------------------------------------------- */

#define SPEC(TYPE, OPTYPE, ATTRS, RECIPE)                                                          \
    {TYPE, #TYPE, OPTYPE, ATTRS, (int)(sizeof ATTRS / sizeof ATTRS[0]), RECIPE, 1}
#define SPEC2(TYPE, OPTYPE, ATTRS, RECIPE)                                                         \
    {TYPE, #TYPE, OPTYPE, ATTRS, (int)(sizeof ATTRS / sizeof ATTRS[0]), RECIPE, 2}

const rc_desc rc_specs[] = {
    SPEC(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, -1, tensor_attrs, recipe_tensor),
    SPEC(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, -1, graph_attrs, recipe_graph),
    SPEC(HIPDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR, HIPDNN_OPERATION_TYPE_GEN_STATS_EXT,
         gen_stats_attrs, recipe_gen_stats),
    SPEC(HIPDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR,
         HIPDNN_OPERATION_TYPE_PAGED_CACHE_LOAD_EXT, paged_cache_load_attrs,
         recipe_paged_cache_load),
    SPEC(HIPDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
         HIPDNN_OPERATION_TYPE_CONVOLUTION_FORWARD_EXT, conv_fwd_attrs, recipe_conv_fwd),
    SPEC(HIPDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
         HIPDNN_OPERATION_TYPE_CONVOLUTION_BACKWARD_WEIGHTS_EXT, conv_bwd_filter_attrs,
         recipe_conv_bwd_filter),
    SPEC(HIPDNN_BACKEND_OPERATION_BATCHNORM_INFERENCE_DESCRIPTOR_EXT,
         HIPDNN_OPERATION_TYPE_BATCHNORM_INFERENCE_EXT, bn_inference_attrs, recipe_bn_inference),
    SPEC(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, HIPDNN_OPERATION_TYPE_POINTWISE_EXT,
         pointwise_attrs, recipe_pointwise),
    SPEC(HIPDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DESCRIPTOR,
         HIPDNN_OPERATION_TYPE_CONVOLUTION_BACKWARD_DATA_EXT, conv_bwd_data_attrs,
         recipe_conv_bwd_data),
    SPEC(HIPDNN_BACKEND_OPERATION_BATCHNORM_BACKWARD_DESCRIPTOR_EXT,
         HIPDNN_OPERATION_TYPE_BATCHNORM_BACKWARD_EXT, bn_backward_attrs, recipe_bn_backward),
    SPEC(HIPDNN_BACKEND_OPERATION_BATCHNORM_INFERENCE_VARIANCE_DESCRIPTOR_EXT,
         HIPDNN_OPERATION_TYPE_BATCHNORM_INFERENCE_VARIANCE_EXT, bn_inference_variance_attrs,
         recipe_bn_inference_variance),
    SPEC(HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT, HIPDNN_OPERATION_TYPE_MATMUL_EXT,
         matmul_attrs, recipe_matmul),
    SPEC(HIPDNN_BACKEND_OPERATION_RMSNORM_DESCRIPTOR_EXT, HIPDNN_OPERATION_TYPE_RMSNORM_EXT,
         rmsnorm_attrs, recipe_rmsnorm),
    SPEC2(HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT, HIPDNN_OPERATION_TYPE_SDPA_FORWARD_EXT,
         sdpa_fwd_attrs, recipe_sdpa_fwd),
    SPEC(HIPDNN_BACKEND_OPERATION_LAYERNORM_DESCRIPTOR_EXT, HIPDNN_OPERATION_TYPE_LAYERNORM_EXT,
         layernorm_attrs, recipe_layernorm),
    SPEC(HIPDNN_BACKEND_OPERATION_BLOCK_SCALE_QUANTIZE_DESCRIPTOR_EXT,
         HIPDNN_OPERATION_TYPE_BLOCK_SCALE_QUANTIZE_EXT, bs_quantize_attrs, recipe_bs_quantize),
    SPEC(HIPDNN_BACKEND_OPERATION_BATCHNORM_DESCRIPTOR_EXT, HIPDNN_OPERATION_TYPE_BATCHNORM_EXT,
         bn_training_attrs, recipe_bn_training),
    SPEC(HIPDNN_BACKEND_OPERATION_BLOCK_SCALE_DEQUANTIZE_DESCRIPTOR_EXT,
         HIPDNN_OPERATION_TYPE_BLOCK_SCALE_DEQUANTIZE_EXT, bs_dequantize_attrs,
         recipe_bs_dequantize),
    SPEC(HIPDNN_BACKEND_OPERATION_CUSTOM_OP_DESCRIPTOR_EXT, HIPDNN_OPERATION_TYPE_CUSTOM_OP_EXT,
         custom_op_attrs, recipe_custom_op),
    SPEC2(HIPDNN_BACKEND_OPERATION_SDPA_BPROP_DESCRIPTOR_EXT, HIPDNN_OPERATION_TYPE_SDPA_BACKWARD_EXT,
         sdpa_bwd_attrs, recipe_sdpa_bwd),
};
const int rc_n_specs = (int)(sizeof rc_specs / sizeof rc_specs[0]);

const rc_refused rc_refused_types[] = {
    {HIPDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR, HIPDNN_ATTR_INTERMEDIATE_INFO_SIZE,
     "not meaningful here"},
    {HIPDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR, HIPDNN_ATTR_LAYOUT_INFO_TENSOR_UID, "not meaningful here"},
};
const int rc_n_refused_types = (int)(sizeof rc_refused_types / sizeof rc_refused_types[0]);

const rc_desc *rc_spec_of(hipdnnBackendDescriptorType_t type)
{
    for (int i = 0; i < rc_n_specs; i++)
        if (rc_specs[i].type == type)
            return &rc_specs[i];
    return NULL;
}

int rc_index(const rc_desc *spec, hipdnnBackendAttributeName_t id)
{
    for (int i = 0; i < spec->n_attrs; i++)
        if (spec->attrs[i].id == id)
            return i;
    return -1;
}

size_t rc_elem_size(hipdnnBackendAttributeType_t t)
{
    switch (t) {
    case HIPDNN_TYPE_BOOLEAN:
    case HIPDNN_TYPE_CHAR: return 1;
    case HIPDNN_TYPE_INT32: return 4;
    case HIPDNN_TYPE_INT64: return 8;
    case HIPDNN_TYPE_FLOAT: return sizeof(float);
    case HIPDNN_TYPE_DOUBLE: return sizeof(double);
    case HIPDNN_TYPE_HANDLE: return sizeof(hipdnnHandle_t);
    case HIPDNN_TYPE_VOID_PTR: return sizeof(void *);
    case HIPDNN_TYPE_BACKEND_DESCRIPTOR: return sizeof(hipdnnBackendDescriptor_t);
    default: return sizeof(int);
    }
}

/* ---- applying and checking --------------------------------------------------------------------- */

int rc_variants(const rc_desc *spec)
{
    return spec->variants > 1 ? spec->variants : 1;
}

void rc_fill_variant(rc_ctx *c, const rc_desc *spec, bool full, int variant,
                     hipdnnHandle_t handle)
{
    memset(c, 0, sizeof *c);
    c->spec = spec;
    c->full = full;
    c->variant = variant % rc_variants(spec);
    c->handle = handle;
    cr_assert_leq(spec->n_attrs, RC_MAX_ATTRS);
    spec->recipe(c);
    /* the recipe must cover the table: every required attribute, every settable one if full */
    for (int i = 0; i < spec->n_attrs; i++) {
        const rc_attr *a = &spec->attrs[i];
        bool settable = a->kind != RC_GET_ONLY && a->kind != RC_DECLARED && !a->alt;
        if (a->required || (full && settable) || a->kind == RC_GET_ONLY)
            cr_assert_gt(c->v[i].n, 0, "recipe for %s (%s) leaves %s unset", spec->name,
                         full ? "full" : "minimal", a->name);
    }
}

void rc_fill(rc_ctx *c, const rc_desc *spec, bool full, hipdnnHandle_t handle)
{
    rc_fill_variant(c, spec, full, 0, handle);
}

static const void *elements(const rc_val *v, const rc_attr *a)
{
    if (a->type == HIPDNN_TYPE_BACKEND_DESCRIPTOR)
        return v->d;
    if (a->type == HIPDNN_TYPE_CHAR)
        return v->u.s;
    return &v->u;
}

hipdnnStatus_t rc_set(const rc_ctx *c, hipdnnBackendDescriptor_t d, int i)
{
    const rc_attr *a = &c->spec->attrs[i];
    return hipdnnBackendSetAttribute(d, a->id, a->type, c->v[i].n, elements(&c->v[i], a));
}

hipdnnBackendDescriptor_t rc_create(const rc_ctx *c, int skip)
{
    hipdnnBackendDescriptor_t d = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(c->spec->type, &d));
    /* the data type first: a by-value tensor's VALUE_EXT needs it */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < c->spec->n_attrs; i++) {
            const rc_attr *a = &c->spec->attrs[i];
            bool first = a->id == HIPDNN_ATTR_TENSOR_DATA_TYPE;
            if (i == skip || c->v[i].n == 0 || a->kind == RC_GET_ONLY ||
                a->kind == RC_DECLARED || first != (pass == 0))
                continue;
            hipdnnStatus_t st = rc_set(c, d, i);
            cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "%s: setting %s -> %s [%s]", c->spec->name,
                         a->name, tu_st(st), tu_msg());
        }
    return d;
}

hipdnnBackendDescriptor_t rc_build(const rc_ctx *c)
{
    hipdnnBackendDescriptor_t d = rc_create(c, -1);
    hipdnnStatus_t st = hipdnnBackendFinalize(d);
    cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "finalizing a %s %s -> %s [%s]",
                 c->full ? "full" : "minimal", c->spec->name, tu_st(st), tu_msg());
    return d;
}

/* Checks the descriptors returned for a descriptor-valued attribute. */
static void check_descs(const rc_ctx *c, const rc_attr *a, const rc_val *v,
                        hipdnnBackendDescriptor_t *got, int64_t n)
{
    for (int64_t k = 0; k < n; k++) {
        cr_expect_neq(got[k], NULL, "%s %s: element %lld is NULL", c->spec->name, a->name,
                      (long long)k);
        if (got[k] == NULL)
            continue;
        if (a->kind == RC_OPS) {
            int type = -1;
            int64_t cnt = 0;
            hipdnnStatus_t st = hipdnnBackendGetAttribute(got[k], HIPDNN_ATTR_OPERATION_TYPE_EXT,
                                                          HIPDNN_TYPE_OPERATION_TYPE_EXT, 1,
                                                          &cnt, &type);
            cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s", tu_msg());
            cr_expect_eq(type, v->op_type[k], "%s %s[%lld]: operation type %d, expected %d",
                         c->spec->name, a->name, (long long)k, type, v->op_type[k]);
        } else {
            int64_t uid = -1, cnt = 0;
            hipdnnStatus_t st = hipdnnBackendGetAttribute(got[k], HIPDNN_ATTR_TENSOR_UNIQUE_ID,
                                                          I64, 1, &cnt, &uid);
            cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s", tu_msg());
            cr_expect_eq(uid, v->uid[k], "%s %s[%lld]: uid %lld, expected %lld", c->spec->name,
                         a->name, (long long)k, (long long)uid, (long long)v->uid[k]);
        }
        cr_expect_eq(hipdnnBackendDestroyDescriptor(got[k]), HIPDNN_STATUS_SUCCESS);
    }
}

int64_t rc_count(const rc_ctx *c, int i)
{
    const rc_attr *a = &c->spec->attrs[i];
    bool nul = a->kind == RC_STRING || (a->kind == RC_GET_ONLY && a->type == CHR);
    return nul && c->v[i].n > 0 ? c->v[i].n + 1 : c->v[i].n;
}

void rc_check_get(const rc_ctx *c, hipdnnBackendDescriptor_t d, int i)
{
    const rc_attr *a = &c->spec->attrs[i];
    const rc_val *v = &c->v[i];
    int64_t n = -7;
    hipdnnStatus_t st = hipdnnBackendGetAttribute(d, a->id, a->type, 0, &n, NULL);
    if (a->kind == RC_DECLARED) {
        cr_expect_eq(st, HIPDNN_STATUS_NOT_SUPPORTED, "%s %s (declared only): get -> %s",
                     c->spec->name, a->name, tu_st(st));
        return;
    }
    cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s %s: size query -> %s [%s]", c->spec->name,
                 a->name, tu_st(st), tu_msg());
    int64_t want = rc_count(c, i);
    cr_expect_eq(n, want, "%s %s: size query says %lld, expected %lld", c->spec->name, a->name,
                 (long long)n, (long long)want);
    if (v->n == 0 || st != HIPDNN_STATUS_SUCCESS)
        return;
    if (a->type == HIPDNN_TYPE_BACKEND_DESCRIPTOR) {
        hipdnnBackendDescriptor_t got[RC_MAX_DESCS + 1] = {0};
        n = -7;
        st = hipdnnBackendGetAttribute(d, a->id, a->type, v->n, &n, got);
        cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s %s: get -> %s [%s]", c->spec->name, a->name,
                     tu_st(st), tu_msg());
        cr_expect_eq(n, v->n, "%s %s: got %lld descriptors, expected %lld", c->spec->name,
                     a->name, (long long)n, (long long)v->n);
        cr_expect_eq(got[v->n], NULL, "%s %s: wrote past the requested count", c->spec->name,
                     a->name);
        if (st == HIPDNN_STATUS_SUCCESS)
            check_descs(c, a, v, got, n < v->n ? (n < 0 ? 0 : n) : v->n);
        return;
    }
    if (a->kind == RC_GET_ONLY && a->type == CHR) { /* a graph key: 32 lowercase hex digits */
        char key[64];
        memset(key, 0x55, sizeof key);
        st = hipdnnBackendGetAttribute(d, a->id, a->type, sizeof key, &n, key);
        cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s %s: %s", c->spec->name, a->name, tu_st(st));
        cr_expect_eq(n, 33, "%s %s: count %lld", c->spec->name, a->name, (long long)n);
        bool hex = key[32] == '\0';
        for (int k = 0; k < 32; k++)
            hex &= (key[k] >= '0' && key[k] <= '9') || (key[k] >= 'a' && key[k] <= 'f');
        cr_expect(hex, "%s %s: '%.40s' is not 32 lowercase hex digits", c->spec->name, a->name,
                  key);
        return;
    }
    /* plain values: poison, request exactly what is there (+1 NUL for strings) */
    size_t es = rc_elem_size(a->type), bytes = (size_t)want * es;
    unsigned char buf[RC_STR_MAX + 64];
    memset(buf, 0xa5, sizeof buf);
    n = -7;
    st = hipdnnBackendGetAttribute(d, a->id, a->type, want, &n, buf);
    cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s %s: get -> %s [%s]", c->spec->name, a->name,
                 tu_st(st), tu_msg());
    cr_expect_eq(n, want, "%s %s: get wrote %lld elements, expected %lld", c->spec->name,
                 a->name, (long long)n, (long long)want);
    cr_expect_eq(memcmp(buf, elements(v, a), (size_t)v->n * es), 0, "%s %s: value differs",
                 c->spec->name, a->name);
    if (a->kind == RC_STRING)
        cr_expect_eq(buf[v->n], 0, "%s %s: not NUL-terminated", c->spec->name, a->name);
    cr_expect_eq(buf[bytes], 0xa5, "%s %s: wrote past the requested count", c->spec->name,
                 a->name);
}

void rc_release(rc_ctx *c)
{
    while (c->n_owned > 0) {
        hipdnnStatus_t st = hipdnnBackendDestroyDescriptor(c->owned[--c->n_owned]);
        cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "destroying a recipe descriptor: %s", tu_msg());
    }
}
