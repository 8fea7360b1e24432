/* fe_graph_int.h — private to graph/: the per-operation functions the op table names (each
 * row's check and lower), the rules every operation shares, the SDPA modifiers' rules and the
 * normalized-dims rule that the checks and the lowering both use.
 */
#ifndef HIPDNN_FE_GRAPH_INT_H
#define HIPDNN_FE_GRAPH_INT_H

#include "graph/fe_graph.h"

/* ---- fe_check*.c: per-operation finalize rules; fe_lower_attrs.c: per-operation lowering -- */

/* The finalize hook of every operation class: the shared rules, then the class's `check`. */
hipdnnStatus_t fe_check_op(fe_obj *op);
/* Each operation's class, check and lower function (the rows of fe_ops.def). */
#define FE_OP(NAME, TYPE, OP_TYPE, TABLE, IR, CHECK, LOWER)                                     \
    hipdnnStatus_t CHECK(fe_obj *op);                                                           \
    hipdnnStatus_t LOWER(fe_obj *o, const fe_graph_info *gi, int x_rank, ir_op *op);
#include "graph/fe_ops.def"
#undef FE_OP
/* The rules every op shares (fe_check_common.c): outputs with one address per element, and the data
 * types of a matmul's or convolution's operands and result. */
hipdnnStatus_t fe_check_op_common(fe_obj *op);
/* fe_check_score_mod.c: an SDPA op's modifiers — which class takes which, their three attributes
 * (graph, input uid, output uid), the IR operand slot of the result — and their rules against
 * the scores [b,hq,sq,skv] (skv < 0: unknown). */
typedef struct fe_sdpa_mod {
    hipdnnBackendDescriptorType_t type; /* the SDPA class that takes it */
    ir_mod_kind kind;
    const char *name;                   /* "SCORE_MOD" or "MASK_MOD": messages */
    hipdnnBackendAttributeName_t graph, in, out;
    int slot;                           /* IR operand slot of the result (ir.h) */
} fe_sdpa_mod;
#define FE_N_SDPA_MODS 3
extern const fe_sdpa_mod fe_sdpa_mods[FE_N_SDPA_MODS];
hipdnnStatus_t fe_check_sdpa_mods(fe_obj *op, int64_t b, int64_t hq, int64_t sq, int64_t skv);
/* The index of the tensor with `uid` in gi->tensors, -1 when none. */
int fe_score_mod_tensor(const fe_graph_info *gi, int64_t uid);
/* Layernorm/rmsnorm without NORMALIZED_DIM_COUNT: the normalized trailing dims run from
 * scale's first non-1 dim after dim 0 to the end (an all-ones scale: the last dim). The one
 * rule; lowering writes its result into the IR so every engine uses it. */
int fe_norm_infer_dims(const int64_t *scale_dims, int scale_rank, int x_rank);

#endif
