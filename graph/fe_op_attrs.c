/* fe_op_attrs.c — the attribute tables of every OPERATION_* descriptor.
 *
 * One table per operation: the hipDNN attribute ids (hipdnn-api.md §2.3), their types and
 * counts, which tensors the op reads (IN) and writes (OUT) and their IR operand slots, the
 * values no kernel depends on (FE_NO_KEY), and the field each maps to in the serialized graph
 * (serialize/schema/hipdnn_graph.fbs; rows are listed in FlatBuffer field order); then one
 * class per row of graph/fe_ops.def. Shape rules live in fe_check*.c, the lowering of the
 * typed attributes in fe_lower_attrs.c, the generic machinery in fe_desc.c.
 * GEN_STATS and PAGED_CACHE_LOAD are not in hipDNN's schema: their attributes are our _EXT
 * ids (include/HipdnnBackendAttributeName.h) and their tables are schema extensions; so are
 * the SDPA forward's score modifier rows (fields 43..45: a nested Graph and two uids) and the
 * mask modifier rows of SDPA forward (46..48) and backward (28..30).
 */
#include <string.h>

#include "graph/fe_graph_int.h"

#define I64 HIPDNN_TYPE_INT64
#define F32 HIPDNN_TYPE_FLOAT
#define BOOL HIPDNN_TYPE_BOOLEAN

/* ---- convolutions: X/W/Y ports plus the shared parameters (fields 3..7) ----------------------- */

#define CONV_PARAMS                                                                              \
    ARRAY(HIPDNN_ATTR_CONVOLUTION_PRE_PADDINGS, I64, FE_W_I64S, "pre_padding", 3, FE_REQ, 1, 6),  \
    ARRAY(HIPDNN_ATTR_CONVOLUTION_POST_PADDINGS, I64, FE_W_I64S, "post_padding", 4, FE_REQ, 1, 6),\
    ARRAY(HIPDNN_ATTR_CONVOLUTION_FILTER_STRIDES, I64, FE_W_I64S, "stride", 5, FE_REQ, 1, 6),     \
    ARRAY(HIPDNN_ATTR_CONVOLUTION_DILATIONS, I64, FE_W_I64S, "dilation", 6, FE_REQ, 1, 6),        \
    {.id = HIPDNN_ATTR_CONVOLUTION_CONV_MODE, .name = "HIPDNN_ATTR_CONVOLUTION_CONV_MODE",       \
     .type = HIPDNN_TYPE_CONVOLUTION_MODE, .shape = FE_ONE, .flags = FE_REQ, .min_n = 1,         \
     .max_n = 1, .field = "conv_mode", .wire = FE_W_CONVMODE, .fb_id = 7},                       \
    COMP_REQ(HIPDNN_ATTR_CONVOLUTION_COMP_TYPE)

static const fe_attr conv_fwd[] = {
    TIN(HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, "x_tensor_uid", 0, 0),
    TIN(HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, "w_tensor_uid", 1, 1),
    TOUT(HIPDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, "y_tensor_uid", 2, 0),
    CONV_PARAMS,
};
static const fe_attr conv_bwd_data[] = {
    TIN(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, "dy_tensor_uid", 0, 0),
    TIN(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, "w_tensor_uid", 1, 1),
    TOUT(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, "dx_tensor_uid", 2, 0),
    CONV_PARAMS,
};
static const fe_attr conv_bwd_filter[] = {
    TIN(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, "x_tensor_uid", 0, 0),
    TIN(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, "dy_tensor_uid", 1, 1),
    TOUT(HIPDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, "dw_tensor_uid", 2, 0),
    CONV_PARAMS,
};

/* ---- batchnorm family -------------------------------------------------------------------------- */

static const fe_attr bn_inference[] = {
    TIN(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_X_EXT, "x_tensor_uid", 0, 0),
    TIN(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_MEAN_EXT, "mean_tensor_uid", 1, 1),
    TIN(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_INV_VARIANCE_EXT, "inv_variance_tensor_uid", 2, 2),
    TIN(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_SCALE_EXT, "scale_tensor_uid", 3, 3),
    TIN(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_BIAS_EXT, "bias_tensor_uid", 4, 4),
    TOUT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_Y_EXT, "y_tensor_uid", 5, 0),
    COMP(HIPDNN_ATTR_BATCHNORM_INF_COMP_TYPE_EXT),
};
static const fe_attr bn_inference_variance[] = {
    TIN(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_X_EXT, "x_tensor_uid", 0, 0),
    TIN(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_MEAN_EXT, "mean_tensor_uid", 1, 1),
    TIN(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_VARIANCE_EXT, "variance_tensor_uid", 2, 2),
    TIN(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_SCALE_EXT, "scale_tensor_uid", 3, 3),
    TIN(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_BIAS_EXT, "bias_tensor_uid", 4, 4),
    TOUT(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_Y_EXT, "y_tensor_uid", 5, 0),
    TIN(HIPDNN_ATTR_OPERATION_BATCHNORM_INFERENCE_VARIANCE_EPSILON_EXT, "epsilon_tensor_uid", 6, 5),
    COMP(HIPDNN_ATTR_BATCHNORM_INF_VAR_COMP_TYPE_EXT),
};
static const fe_attr bn_training[] = {
    TIN(HIPDNN_ATTR_OPERATION_BATCHNORM_X_EXT, "x_tensor_uid", 0, 0),
    TIN(HIPDNN_ATTR_OPERATION_BATCHNORM_SCALE_EXT, "scale_tensor_uid", 1, 1),
    TIN(HIPDNN_ATTR_OPERATION_BATCHNORM_BIAS_EXT, "bias_tensor_uid", 2, 2),
    TIN(HIPDNN_ATTR_OPERATION_BATCHNORM_EPSILON_EXT, "epsilon_tensor_uid", 3, 3),
    TINS_NO_IR(HIPDNN_ATTR_OPERATION_BATCHNORM_PEER_STATS_EXT, "peer_stats_tensor_uid", 4),
    TIN_OPT(HIPDNN_ATTR_OPERATION_BATCHNORM_PREV_RUNNING_MEAN_EXT, "prev_running_mean_tensor_uid", 5, 4),
    TIN_OPT(HIPDNN_ATTR_OPERATION_BATCHNORM_PREV_RUNNING_VARIANCE_EXT,
            "prev_running_variance_tensor_uid", 6, 5),
    TIN_OPT(HIPDNN_ATTR_OPERATION_BATCHNORM_MOMENTUM_EXT, "momentum_tensor_uid", 7, 6),
    TOUT(HIPDNN_ATTR_OPERATION_BATCHNORM_Y_EXT, "y_tensor_uid", 8, 0),
    TOUT_OPT(HIPDNN_ATTR_OPERATION_BATCHNORM_MEAN_EXT, "mean_tensor_uid", 9, 1),
    TOUT_OPT(HIPDNN_ATTR_OPERATION_BATCHNORM_INV_VARIANCE_EXT, "inv_variance_tensor_uid", 10, 2),
    TOUT_OPT(HIPDNN_ATTR_OPERATION_BATCHNORM_NEXT_RUNNING_MEAN_EXT, "next_running_mean_tensor_uid", 11, 3),
    TOUT_OPT(HIPDNN_ATTR_OPERATION_BATCHNORM_NEXT_RUNNING_VARIANCE_EXT,
             "next_running_variance_tensor_uid", 12, 4),
    COMP(HIPDNN_ATTR_BATCHNORM_COMP_TYPE_EXT),
};
static const fe_attr bn_backward[] = {
    TIN(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DY_EXT, "dy_tensor_uid", 0, 0),
    TIN(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_X_EXT, "x_tensor_uid", 1, 1),
    TIN_OPT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_MEAN_EXT, "mean_tensor_uid", 2, 3),
    TIN_OPT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_INV_VARIANCE_EXT, "inv_variance_tensor_uid", 3, 4),
    TIN(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_SCALE_EXT, "scale_tensor_uid", 4, 2),
    TINS_NO_IR(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_PEER_STATS_EXT, "peer_stats_tensor_uid", 5),
    TOUT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DX_EXT, "dx_tensor_uid", 6, 0),
    TOUT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DSCALE_EXT, "dscale_tensor_uid", 7, 1),
    TOUT(HIPDNN_ATTR_OPERATION_BATCHNORM_BACKWARD_DBIAS_EXT, "dbias_tensor_uid", 8, 2),
    COMP(HIPDNN_ATTR_BATCHNORM_BACKWARD_COMP_TYPE_EXT),
};
static const fe_attr gen_stats[] = {
    TIN(HIPDNN_ATTR_OPERATION_GENSTATS_XDESC_EXT, "x_tensor_uid", 0, 0),
    TOUT(HIPDNN_ATTR_OPERATION_GENSTATS_SUMDESC_EXT, "sum_tensor_uid", 1, 0),
    TOUT(HIPDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC_EXT, "sq_sum_tensor_uid", 2, 1),
    /* one valid value (0, SUM_SQSUM): nothing to choose, so not lowered */
    SCALAR(HIPDNN_ATTR_OPERATION_GENSTATS_MODE_EXT, I64, FE_W_I64, "mode", 3, FE_NO_KEY),
    COMP(HIPDNN_ATTR_OPERATION_GENSTATS_MATH_PREC_EXT),
};

/* ---- pointwise ---------------------------------------------------------------------------------- */

static const fe_attr pointwise[] = {
    ENUMV(HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_TYPE_POINTWISE_MODE, "PointwiseMode", "operation", 0,
          FE_REQ),
    SCALAR(HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, F32, FE_W_F32, "relu_lower_clip", 1, FE_NULL),
    SCALAR(HIPDNN_ATTR_POINTWISE_RELU_UPPER_CLIP, F32, FE_W_F32, "relu_upper_clip", 2, FE_NULL),
    SCALAR(HIPDNN_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE, F32, FE_W_F32, "relu_lower_clip_slope", 3, FE_NULL),
    SCALAR(HIPDNN_ATTR_POINTWISE_AXIS, I64, FE_W_I64, "axis_tensor_uid", 4, FE_NULL),
    TIN(HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, "in_0_tensor_uid", 5, 0),
    TIN_OPT(HIPDNN_ATTR_OPERATION_POINTWISE_IN_1_EXT, "in_1_tensor_uid", 6, 1),
    TIN_OPT(HIPDNN_ATTR_OPERATION_POINTWISE_IN_2_EXT, "in_2_tensor_uid", 7, 2),
    TOUT(HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, "out_0_tensor_uid", 8, 0),
    SCALAR(HIPDNN_ATTR_POINTWISE_SWISH_BETA, F32, FE_W_F32, "swish_beta", 9, FE_NULL),
    SCALAR(HIPDNN_ATTR_POINTWISE_ELU_ALPHA, F32, FE_W_F32, "elu_alpha", 10, FE_NULL),
    SCALAR(HIPDNN_ATTR_POINTWISE_SOFTPLUS_BETA, F32, FE_W_F32, "softplus_beta", 11, FE_NULL),
    COMP(HIPDNN_ATTR_POINTWISE_MATH_PREC),
};

/* ---- matmul, norms ------------------------------------------------------------------------------ */

static const fe_attr matmul[] = {
    TIN(HIPDNN_ATTR_OPERATION_MATMUL_ADESC, "a_tensor_uid", 0, 0),
    TIN(HIPDNN_ATTR_OPERATION_MATMUL_BDESC, "b_tensor_uid", 1, 1),
    TOUT(HIPDNN_ATTR_OPERATION_MATMUL_CDESC, "c_tensor_uid", 2, 0),
    COMP(HIPDNN_ATTR_MATMUL_COMP_TYPE),
};
static const fe_attr rmsnorm[] = {
    TIN(HIPDNN_ATTR_OPERATION_RMSNORM_X_EXT, "x_tensor_uid", 0, 0),
    TIN(HIPDNN_ATTR_OPERATION_RMSNORM_SCALE_EXT, "scale_tensor_uid", 1, 1),
    TIN(HIPDNN_ATTR_OPERATION_RMSNORM_EPSILON_EXT, "epsilon_tensor_uid", 2, 2),
    TOUT(HIPDNN_ATTR_OPERATION_RMSNORM_Y_EXT, "y_tensor_uid", 3, 0),
    TIN_OPT(HIPDNN_ATTR_OPERATION_RMSNORM_BIAS_EXT, "bias_tensor_uid", 4, 3),
    TOUT_OPT(HIPDNN_ATTR_OPERATION_RMSNORM_INV_RMS_EXT, "inv_rms_tensor_uid", 5, 1),
    ENUMV(HIPDNN_ATTR_OPERATION_RMSNORM_FWD_PHASE_EXT, HIPDNN_TYPE_NORM_FWD_PHASE, "NormFwdPhase",
          "forward_phase", 6, FE_REQ),
    COMP(HIPDNN_ATTR_RMSNORM_COMP_TYPE_EXT),
};
static const fe_attr layernorm[] = {
    TIN(HIPDNN_ATTR_OPERATION_LAYERNORM_X_EXT, "x_tensor_uid", 0, 0),
    TIN(HIPDNN_ATTR_OPERATION_LAYERNORM_SCALE_EXT, "scale_tensor_uid", 1, 1),
    TIN(HIPDNN_ATTR_OPERATION_LAYERNORM_BIAS_EXT, "bias_tensor_uid", 2, 2),
    TIN(HIPDNN_ATTR_OPERATION_LAYERNORM_EPSILON_EXT, "epsilon_tensor_uid", 3, 3),
    TOUT(HIPDNN_ATTR_OPERATION_LAYERNORM_Y_EXT, "y_tensor_uid", 4, 0),
    SCALAR(HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT, I64, FE_W_I64,
           "normalized_dim_count", 5, 0),
    TOUT_OPT(HIPDNN_ATTR_OPERATION_LAYERNORM_MEAN_EXT, "mean_tensor_uid", 6, 1),
    TOUT_OPT(HIPDNN_ATTR_OPERATION_LAYERNORM_INV_VARIANCE_EXT, "inv_variance_tensor_uid", 7, 2),
    ENUMV(HIPDNN_ATTR_OPERATION_LAYERNORM_FWD_PHASE_EXT, HIPDNN_TYPE_NORM_FWD_PHASE, "NormFwdPhase",
          "forward_phase", 8, FE_REQ),
    COMP(HIPDNN_ATTR_LAYERNORM_COMP_TYPE_EXT),
};

/* ---- attention ------------------------------------------------------------------------------------ */

#define SDPA_BOOL(ID, FIELD, FB) SCALAR(ID, BOOL, FE_W_BOOL, FIELD, FB, 0)
/* A mask modifier's three rows (SDPA forward or backward, DIR FWD or BWD) from field FB on: the
 * lowered sub-graph (its ops, wired to the index space and the op's mask slot) is in the key,
 * the uids naming its input and result are not. */
#define MASK_MOD_ROWS(DIR, FB)                                                                   \
    {.id = HIPDNN_ATTR_OPERATION_SDPA_##DIR##_MASK_MOD_GRAPH_EXT,                                \
     .name = "HIPDNN_ATTR_OPERATION_SDPA_" #DIR "_MASK_MOD_GRAPH_EXT",                           \
     .type = HIPDNN_TYPE_BACKEND_DESCRIPTOR, .shape = FE_ONE, .min_n = 1, .max_n = 1,            \
     .desc = HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, .field = "mask_mod_graph",                \
     .wire = FE_W_GRAPH, .fb_id = FB},                                                           \
    SCALAR(HIPDNN_ATTR_OPERATION_SDPA_##DIR##_MASK_MOD_INPUT_UID_EXT, I64, FE_W_I64,             \
           "mask_mod_input_uid", (FB) + 1, FE_NULL | FE_NO_KEY),                                 \
    SCALAR(HIPDNN_ATTR_OPERATION_SDPA_##DIR##_MASK_MOD_OUTPUT_UID_EXT, I64, FE_W_I64,            \
           "mask_mod_output_uid", (FB) + 2, FE_NULL | FE_NO_KEY)
static const fe_attr sdpa_fwd[] = {
    TIN(HIPDNN_ATTR_OPERATION_SDPA_FWD_QDESC, "q_tensor_uid", 0, IR_SDPA_Q),
    TIN(HIPDNN_ATTR_OPERATION_SDPA_FWD_KDESC, "k_tensor_uid", 1, IR_SDPA_K),
    TIN(HIPDNN_ATTR_OPERATION_SDPA_FWD_VDESC, "v_tensor_uid", 2, IR_SDPA_V),
    TOUT(HIPDNN_ATTR_OPERATION_SDPA_FWD_ODESC, "o_tensor_uid", 3, IR_SDPA_O),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_ATTN_MASK_EXT, "attn_mask_tensor_uid", 4, IR_SDPA_BIAS),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC, "scale_tensor_uid", 5, IR_SDPA_SCALE),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC, "seq_len_q_tensor_uid", 6, IR_SDPA_SEQ_Q),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC, "seq_len_kv_tensor_uid", 7, IR_SDPA_SEQ_KV),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SEED_EXT, "seed_tensor_uid", 8, IR_SDPA_SEED),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_OFFSET_EXT, "offset_tensor_uid", 9, IR_SDPA_OFFSET),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DROPOUT_MASK_EXT, "dropout_mask_tensor_uid", 10, IR_SDPA_DROPOUT_MASK),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DROPOUT_SCALE_EXT, "dropout_scale_tensor_uid", 11, IR_SDPA_DROPOUT_SCALE),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_KDESC, "page_table_k_tensor_uid", 12, IR_SDPA_PAGE_K),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_VDESC, "page_table_v_tensor_uid", 13, IR_SDPA_PAGE_V),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_BLOCK_MASK_DESC, "block_mask_tensor_uid", 14, IR_SDPA_BLOCK_MASK),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SINK_TOKEN_EXT, "sink_token_tensor_uid", 15, IR_SDPA_SINK),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_Q_EXT, "descale_q_tensor_uid", 16, IR_SDPA_DESCALE_Q),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_K_EXT, "descale_k_tensor_uid", 17, IR_SDPA_DESCALE_K),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_V_EXT, "descale_v_tensor_uid", 18, IR_SDPA_DESCALE_V),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_S_EXT, "descale_s_tensor_uid", 19, IR_SDPA_DESCALE_S),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALE_S_EXT, "scale_s_tensor_uid", 20, IR_SDPA_SCALE_S),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALE_O_EXT, "scale_o_tensor_uid", 21, IR_SDPA_SCALE_O),
    TOUT_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, "stats_tensor_uid", 22, IR_SDPA_STATS),
    TOUT_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_MAX_EXT, "max_tensor_uid", 23, IR_SDPA_MAX),
    TOUT_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SUM_EXP_EXT, "sum_exp_tensor_uid", 24, IR_SDPA_SUM_EXP),
    TOUT_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_RNG_DUMP_EXT, "rng_dump_tensor_uid", 25, IR_SDPA_RNG_DUMP),
    TOUT_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_AMAX_S_EXT, "amax_s_tensor_uid", 26, IR_SDPA_AMAX_S),
    TOUT_OPT(HIPDNN_ATTR_OPERATION_SDPA_FWD_AMAX_O_EXT, "amax_o_tensor_uid", 27, IR_SDPA_AMAX_O),
    /* redundant: true requires STATS, and a set STATS makes the stats anyway (fe_lower_attrs.c) */
    SCALAR(HIPDNN_ATTR_SDPA_FWD_GENERATE_STATS_EXT, BOOL, FE_W_BOOL, "generate_stats", 28,
           FE_NULL | FE_NO_KEY),
    SDPA_BOOL(HIPDNN_ATTR_SDPA_FWD_ALIBI_MASK_EXT, "alibi_mask", 29),
    SDPA_BOOL(HIPDNN_ATTR_SDPA_FWD_PADDING_MASK_EXT, "padding_mask", 30),
    SDPA_BOOL(HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_EXT, "causal_mask", 31),
    SDPA_BOOL(HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_BOTTOM_RIGHT_EXT, "causal_mask_bottom_right", 32),
    SCALAR(HIPDNN_ATTR_SDPA_FWD_DROPOUT_PROBABILITY_EXT, F32, FE_W_F32, "dropout_probability", 33, FE_NULL),
    SCALAR(HIPDNN_ATTR_SDPA_FWD_ATTN_SCALE_VALUE_EXT, F32, FE_W_F32, "attn_scale_value", 34, FE_NULL),
    SCALAR(HIPDNN_ATTR_SDPA_FWD_LEFT_BOUND_EXT, I64, FE_W_I64, "left_bound", 35, FE_NULL),
    SCALAR(HIPDNN_ATTR_SDPA_FWD_RIGHT_BOUND_EXT, I64, FE_W_I64, "right_bound", 36, FE_NULL),
    /* paged K/V's Skv bound, checked at finalize; kernels read SEQ_LEN_KV at run time */
    SCALAR(HIPDNN_ATTR_SDPA_FWD_MAX_SEQ_LEN_KV_EXT, HIPDNN_TYPE_INT32, FE_W_I32, "max_seq_len_kv", 37,
           FE_NULL | FE_NO_KEY),
    ENUMV(HIPDNN_ATTR_SDPA_FWD_DIAGONAL_ALIGNMENT_EXT, HIPDNN_TYPE_DIAGONAL_ALIGNMENT_EXT,
          "DiagonalAlignment", "diagonal_alignment", 38, 0),
    /* hints to hipDNN's engines (MMA type, implementation choice): ours choose by knobs */
    {.id = HIPDNN_ATTR_SDPA_FWD_MMA_CORE_MODE_EXT, .name = "HIPDNN_ATTR_SDPA_FWD_MMA_CORE_MODE_EXT",
     .type = HIPDNN_TYPE_DATA_TYPE, .shape = FE_ONE, .flags = FE_NO_KEY, .min_n = 1, .max_n = 1,
     .field = "mma_core_mode", .wire = FE_W_DTYPE, .fb_id = 39},
    ENUMV(HIPDNN_ATTR_SDPA_FWD_IMPLEMENTATION_EXT, HIPDNN_TYPE_ATTENTION_IMPLEMENTATION_EXT,
          "AttentionImplementation", "implementation", 40, FE_NO_KEY),
    /* our extension (fields 43..45, after the tooling strings 41, 42): the score modifier */
    {.id = HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_GRAPH_EXT,
     .name = "HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_GRAPH_EXT", .type = HIPDNN_TYPE_BACKEND_DESCRIPTOR,
     .shape = FE_ONE, .min_n = 1, .max_n = 1, .desc = HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR,
     .field = "score_mod_graph", .wire = FE_W_GRAPH, .fb_id = 43},
    /* uids naming the sub-graph's input and result: the lowered sub-graph (its ops, wired to
     * the score tensor and the IR_SDPA_SCORE_MOD slot) is in the key, the numbers are not */
    SCALAR(HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_INPUT_UID_EXT, I64, FE_W_I64, "score_mod_input_uid", 44,
           FE_NULL | FE_NO_KEY),
    SCALAR(HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_OUTPUT_UID_EXT, I64, FE_W_I64, "score_mod_output_uid", 45,
           FE_NULL | FE_NO_KEY),
    /* our extension (fields 46..48): the mask modifier, keyed like the score modifier */
    MASK_MOD_ROWS(FWD, 46),
    COMP(HIPDNN_ATTR_SDPA_FWD_COMP_TYPE_EXT),
};
static const fe_attr sdpa_bwd[] = {
    TIN(HIPDNN_ATTR_OPERATION_SDPA_BWD_Q_EXT, "q_tensor_uid", 0, IR_SDPAB_Q),
    TIN(HIPDNN_ATTR_OPERATION_SDPA_BWD_K_EXT, "k_tensor_uid", 1, IR_SDPAB_K),
    TIN(HIPDNN_ATTR_OPERATION_SDPA_BWD_V_EXT, "v_tensor_uid", 2, IR_SDPAB_V),
    TIN(HIPDNN_ATTR_OPERATION_SDPA_BWD_O_EXT, "o_tensor_uid", 3, IR_SDPAB_O),
    TIN(HIPDNN_ATTR_OPERATION_SDPA_BWD_DO_EXT, "do_tensor_uid", 4, IR_SDPAB_DO),
    TIN(HIPDNN_ATTR_OPERATION_SDPA_BWD_STATS_EXT, "stats_tensor_uid", 5, IR_SDPAB_STATS),
    TOUT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DQ_EXT, "dq_tensor_uid", 6, IR_SDPAB_DQ),
    TOUT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DK_EXT, "dk_tensor_uid", 7, IR_SDPAB_DK),
    TOUT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DV_EXT, "dv_tensor_uid", 8, IR_SDPAB_DV),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_SCALE_EXT, "scale_tensor_uid", 9, IR_SDPAB_SCALE),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_ATTN_MASK_EXT, "attn_mask_tensor_uid", 10, IR_SDPAB_BIAS),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_Q_EXT, "seq_len_q_tensor_uid", 11, IR_SDPAB_SEQ_Q),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KV_EXT, "seq_len_kv_tensor_uid", 12, IR_SDPAB_SEQ_KV),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_SEED_EXT, "seed_tensor_uid", 13, IR_SDPAB_SEED),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_OFFSET_EXT, "offset_tensor_uid", 14, IR_SDPAB_OFFSET),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_MASK_EXT, "dropout_mask_tensor_uid", 15, IR_SDPAB_DROPOUT_MASK),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_SCALE_EXT, "dropout_scale_tensor_uid", 16, IR_SDPAB_DROPOUT_SCALE),
    TIN_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_SCALE_INV_EXT, "dropout_scale_inv_tensor_uid", 17, IR_SDPAB_DROPOUT_SCALE_INV),
    TOUT_OPT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DBIAS_EXT, "dbias_tensor_uid", 18, IR_SDPAB_DBIAS),
    SDPA_BOOL(HIPDNN_ATTR_SDPA_BWD_ALIBI_MASK_EXT, "alibi_mask", 19),
    SDPA_BOOL(HIPDNN_ATTR_SDPA_BWD_PADDING_MASK_EXT, "padding_mask", 20),
    SDPA_BOOL(HIPDNN_ATTR_SDPA_BWD_CAUSAL_MASK_EXT, "causal_mask", 21),
    SDPA_BOOL(HIPDNN_ATTR_SDPA_BWD_CAUSAL_MASK_BOTTOM_RIGHT_EXT, "causal_mask_bottom_right", 22),
    SCALAR(HIPDNN_ATTR_SDPA_BWD_DROPOUT_PROBABILITY_EXT, F32, FE_W_F32, "dropout_probability", 23, FE_NULL),
    SCALAR(HIPDNN_ATTR_SDPA_BWD_ATTN_SCALE_VALUE_EXT, F32, FE_W_F32, "attn_scale_value", 24, FE_NULL),
    SCALAR(HIPDNN_ATTR_SDPA_BWD_LEFT_BOUND_EXT, I64, FE_W_I64, "left_bound", 25, FE_NULL),
    SCALAR(HIPDNN_ATTR_SDPA_BWD_RIGHT_BOUND_EXT, I64, FE_W_I64, "right_bound", 26, FE_NULL),
    ENUMV(HIPDNN_ATTR_SDPA_BWD_DIAGONAL_ALIGNMENT_EXT, HIPDNN_TYPE_DIAGONAL_ALIGNMENT_EXT,
          "DiagonalAlignment", "diagonal_alignment", 27, 0),
    /* our extension (fields 28..30): the forward's mask modifier */
    MASK_MOD_ROWS(BWD, 28),
    COMP(HIPDNN_ATTR_SDPA_BWD_COMP_TYPE_EXT),
};
static const fe_attr paged_cache_load[] = {
    TIN(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC_EXT, "container_tensor_uid", 0, 0),
    TOUT(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC_EXT, "y_tensor_uid", 1, 0),
    TIN(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC_EXT, "seq_len_tensor_uid", 2, 1),
    TIN(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC_EXT, "page_table_tensor_uid", 3, 2),
    COMP(HIPDNN_ATTR_PAGED_CACHE_LOAD_COMP_TYPE_EXT),
};

/* ---- block-scale quantization, custom op ---------------------------------------------------------- */

static const fe_attr bs_quantize[] = {
    TIN(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_XDESC, "x_tensor_uid", 0, 0),
    TOUT(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_YDESC, "y_tensor_uid", 1, 0),
    TOUT(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_SCALE_DESC, "scale_tensor_uid", 2, 1),
    SCALAR(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_BLOCK_SIZE, HIPDNN_TYPE_INT32, FE_W_I32,
           "block_size", 3, FE_REQ),
    SCALAR(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_AXIS_EXT, I64, FE_W_I64, "axis", 4, FE_NULL),
    SCALAR(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_TRANSPOSE_EXT, BOOL, FE_W_BOOL, "transpose", 5, 0),
    COMP(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_MATH_PREC),
};
static const fe_attr bs_dequantize[] = {
    TIN(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_XDESC, "x_tensor_uid", 0, 0),
    TIN(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_SCALE_DESC, "scale_tensor_uid", 1, 1),
    TOUT(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_YDESC, "y_tensor_uid", 2, 0),
    ARRAY(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_BLOCK_SIZE, HIPDNN_TYPE_INT32, FE_W_I32S,
          "block_size", 3, FE_REQ, 1, FE_MAX_RANK),
    SCALAR(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_NEG_SCALE, BOOL, FE_W_BOOL,
           "is_negative_scale", 4, 0),
    COMP(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_MATH_PREC),
};
static const fe_attr custom_op[] = {
    STRING(HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT, "custom_op_id", 0, FE_REQ, 4096),
    TINS(HIPDNN_ATTR_OPERATION_CUSTOM_OP_INPUTS_EXT, "input_tensor_uids", 1),
    TOUTS(HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT, "output_tensor_uids", 2),
    /* the payload for the op's provider (graph/fe_custom.c): part of the key, it is semantics */
    {.id = HIPDNN_ATTR_OPERATION_CUSTOM_OP_DATA_EXT, .name = "HIPDNN_ATTR_OPERATION_CUSTOM_OP_DATA_EXT",
     .type = HIPDNN_TYPE_CHAR, .shape = FE_STRING, .flags = 0, .field = "data",
     .wire = FE_W_BYTES, .fb_id = 3},
    COMP(HIPDNN_ATTR_CUSTOM_OP_COMP_TYPE_EXT),
};

/* ---- the classes ------------------------------------------------------------------------------------ */

/* One class per row of fe_ops.def: its attribute rows above (the array named by the row), its
 * operation type, serialized table, IR op, check and lower function. */
#define FE_OP(NAME, TYPE, OP_TYPE, TABLE, IR, CHECK, LOWER)                                     \
    const fe_class fe_##NAME##_class = {.type = TYPE, .name = #TYPE, .attrs = NAME,             \
                                        .n_attrs = FE_COUNT(NAME), .op_type = OP_TYPE,           \
                                        .table = TABLE, .finalize = fe_check_op, .ir = IR,       \
                                        .check = CHECK, .lower = LOWER};
#include "graph/fe_ops.def"
#undef FE_OP

static const fe_class *const op_classes[] = {
#define FE_OP(NAME, TYPE, OP_TYPE, TABLE, IR, CHECK, LOWER) &fe_##NAME##_class,
#include "graph/fe_ops.def"
#undef FE_OP
};

const fe_class *fe_op_class_by_table(const char *table)
{
    for (int i = 0; i < FE_COUNT(op_classes); i++)
        if (strcmp(op_classes[i]->table, table) == 0)
            return op_classes[i];
    return NULL;
}
