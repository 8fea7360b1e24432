/* fe_classes.c — the registry: which class implements each descriptor type (0..30).
 *
 * Every type can be created and destroyed. INTERMEDIATE_INFO and LAYOUT_INFO have nothing to
 * describe in this backend: they answer every other call with NOT_SUPPORTED and the reason.
 */
#include "frontend/fe_int.h"

extern const fe_class fe_conv_fwd_class, fe_conv_bwd_data_class, fe_conv_bwd_filter_class,
    fe_bn_inference_class, fe_bn_inference_variance_class, fe_bn_training_class,
    fe_bn_backward_class, fe_gen_stats_class, fe_pointwise_class, fe_matmul_class,
    fe_rmsnorm_class, fe_layernorm_class, fe_sdpa_fwd_class, fe_sdpa_bwd_class,
    fe_paged_cache_load_class, fe_kernel_cache_class, fe_bs_quantize_class, fe_bs_dequantize_class, fe_custom_op_class;

/* A type that can be created and destroyed but refuses every other call, saying why. */
#define REFUSED_CLASS(VAR, TYPE, WHY)                                                            \
    static const fe_class VAR = {.type = TYPE, .name = #TYPE, .later = WHY}

REFUSED_CLASS(intermediate_info_class, HIPDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR,
              "not meaningful here: engines keep intermediate tensors in their own workspace");
REFUSED_CLASS(layout_info_class, HIPDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR,
              "not meaningful here: engines take any layout that strides express");

const fe_class *const fe_classes[] = {
    [HIPDNN_INVALID_TYPE] = NULL,
    [HIPDNN_BACKEND_ENGINE_DESCRIPTOR] = &fe_engine_class,
    [HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR] = &fe_enginecfg_class,
    [HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR] = &fe_engineheur_class,
    [HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR] = &fe_plan_class,
    [HIPDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR] = &intermediate_info_class,
    [HIPDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR] = &fe_knob_choice_class,
    [HIPDNN_BACKEND_KNOB_INFO_DESCRIPTOR] = &fe_knob_info_class,
    [HIPDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR] = &layout_info_class,
    [HIPDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR] = &fe_gen_stats_class,
    [HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR] = &fe_graph_class,
    [HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR] = &fe_variant_pack_class,
    [HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR] = &fe_kernel_cache_class,
    [HIPDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR] = &fe_paged_cache_load_class,
    [HIPDNN_BACKEND_TENSOR_DESCRIPTOR] = &fe_tensor_class,
    [HIPDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR] = &fe_conv_fwd_class,
    [HIPDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR] = &fe_conv_bwd_filter_class,
    [HIPDNN_BACKEND_OPERATION_BATCHNORM_INFERENCE_DESCRIPTOR_EXT] = &fe_bn_inference_class,
    [HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR] = &fe_pointwise_class,
    [HIPDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DESCRIPTOR] = &fe_conv_bwd_data_class,
    [HIPDNN_BACKEND_OPERATION_BATCHNORM_BACKWARD_DESCRIPTOR_EXT] = &fe_bn_backward_class,
    [HIPDNN_BACKEND_OPERATION_BATCHNORM_INFERENCE_VARIANCE_DESCRIPTOR_EXT] =
        &fe_bn_inference_variance_class,
    [HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT] = &fe_matmul_class,
    [HIPDNN_BACKEND_OPERATION_RMSNORM_DESCRIPTOR_EXT] = &fe_rmsnorm_class,
    [HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT] = &fe_sdpa_fwd_class,
    [HIPDNN_BACKEND_OPERATION_LAYERNORM_DESCRIPTOR_EXT] = &fe_layernorm_class,
    [HIPDNN_BACKEND_OPERATION_BLOCK_SCALE_QUANTIZE_DESCRIPTOR_EXT] = &fe_bs_quantize_class,
    [HIPDNN_BACKEND_OPERATION_BATCHNORM_DESCRIPTOR_EXT] = &fe_bn_training_class,
    [HIPDNN_BACKEND_OPERATION_BLOCK_SCALE_DEQUANTIZE_DESCRIPTOR_EXT] = &fe_bs_dequantize_class,
    [HIPDNN_BACKEND_OPERATION_CUSTOM_OP_DESCRIPTOR_EXT] = &fe_custom_op_class,
    [HIPDNN_BACKEND_OPERATION_SDPA_BPROP_DESCRIPTOR_EXT] = &fe_sdpa_bwd_class,
};
const int fe_n_classes = (int)(sizeof fe_classes / sizeof fe_classes[0]);
