/* fe_registry.c — the registry: which class implements each descriptor type (0..30).
 *
 * The operations' classes come from the rows of graph/fe_ops.def; the others are listed here.
 * fe_classes[] is declared in desc/fe_desc.h, where objects are made, and defined here, at the
 * top of the stack: the one file that includes every module that defines a class (graph/ and,
 * through engines/fe_engines.h, engines/).
 * Every type can be created and destroyed. INTERMEDIATE_INFO and LAYOUT_INFO have nothing to
 * describe in this backend: they answer every other call with NOT_SUPPORTED and the reason.
 */
#include "engines/fe_engines.h"
#include "graph/fe_graph.h"

extern const fe_class fe_kernel_cache_class; /* fe_kernel_cache_desc.c; the operations' are in fe_desc.h */

/* A type that can be created and destroyed but refuses every other call, saying why. */
#define REFUSED_CLASS(VAR, TYPE, WHY)                                                            \
    static const fe_class VAR = {.type = TYPE, .name = #TYPE, .later = WHY}

REFUSED_CLASS(intermediate_info_class, HIPDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR,
              "not meaningful here: engines keep intermediate tensors in their own workspace");
REFUSED_CLASS(layout_info_class, HIPDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR,
              "not meaningful here: engines take any layout that strides express");

const fe_class *const fe_classes[] = {
#define FE_OP(NAME, TYPE, OP_TYPE, TABLE, IR, CHECK, LOWER) [TYPE] = &fe_##NAME##_class,
#include "graph/fe_ops.def"
#undef FE_OP
    [HIPDNN_INVALID_TYPE] = NULL,
    [HIPDNN_BACKEND_ENGINE_DESCRIPTOR] = &fe_engine_class,
    [HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR] = &fe_enginecfg_class,
    [HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR] = &fe_engineheur_class,
    [HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR] = &fe_plan_class,
    [HIPDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR] = &intermediate_info_class,
    [HIPDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR] = &fe_knob_choice_class,
    [HIPDNN_BACKEND_KNOB_INFO_DESCRIPTOR] = &fe_knob_info_class,
    [HIPDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR] = &layout_info_class,
    [HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR] = &fe_graph_class,
    [HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR] = &fe_variant_pack_class,
    [HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR] = &fe_kernel_cache_class,
    [HIPDNN_BACKEND_TENSOR_DESCRIPTOR] = &fe_tensor_class,
};
const int fe_n_classes = (int)(sizeof fe_classes / sizeof fe_classes[0]);
