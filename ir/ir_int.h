/* ir_int.h — private to ir/: the reference kernels of each op family, called by ir_ref_run.
 *
 * Every function reads its operands from c->in[slot] (NULL when an optional operand is absent)
 * and writes every element of each present c->out[slot]; math in double, one rounding to the
 * output type on store (ir_store). Slot orders are documented in ir.h.
 */
#ifndef HIPDNN_IR_INT_H
#define HIPDNN_IR_INT_H

#include "ir/ir.h"

#define IR_IN(c, i) ((i) < (c)->n_in ? (c)->in[i] : NULL)
#define IR_OUT(c, i) ((i) < (c)->n_out ? (c)->out[i] : NULL)

hipdnnStatus_t ir_ref_pointwise(const ir_pointwise *p, const ir_ref_ctx *c);
hipdnnStatus_t ir_ref_matmul(const ir_ref_ctx *c);
hipdnnStatus_t ir_ref_conv(ir_op_kind k, const ir_conv *p, const ir_ref_ctx *c); /* FWD/DGRAD/WGRAD */
hipdnnStatus_t ir_ref_bn_infer(const ir_norm *p, const ir_ref_ctx *c);
hipdnnStatus_t ir_ref_bn_train(const ir_ref_ctx *c);
hipdnnStatus_t ir_ref_bn_bwd(const ir_ref_ctx *c);
hipdnnStatus_t ir_ref_genstats(const ir_ref_ctx *c);
hipdnnStatus_t ir_ref_layernorm(const ir_norm *p, const ir_ref_ctx *c);
hipdnnStatus_t ir_ref_rmsnorm(const ir_norm *p, const ir_ref_ctx *c);
hipdnnStatus_t ir_ref_bs_quantize(const ir_quant *p, const ir_ref_ctx *c);
hipdnnStatus_t ir_ref_bs_dequantize(const ir_quant *p, const ir_ref_ctx *c);
hipdnnStatus_t ir_ref_paged_cache_load(const ir_ref_ctx *c);
hipdnnStatus_t ir_ref_sdpa_fwd(const ir_sdpa *p, const ir_ref_ctx *c);
/* The forward and backward with modifiers (mods NULL, or a NULL member: none): the score
 * modifier applied to each S·scale, the mask modifier's false scores masked to −inf. */
hipdnnStatus_t ir_ref_sdpa_fwd_mod(const ir_sdpa *p, const ir_ref_mods *mods, const ir_ref_ctx *c);
hipdnnStatus_t ir_ref_sdpa_bwd(const ir_sdpa *p, const ir_ref_ctx *c);
hipdnnStatus_t ir_ref_sdpa_bwd_mod(const ir_sdpa *p, const ir_ref_mods *mods, const ir_ref_ctx *c);

/* Checks inferable output shapes against the declared ones (ir_infer.c). */
hipdnnStatus_t ir_infer_shapes(const ir_graph *g);

/* The dropout decision of SDPA element (b, h, i, j) of a [B, H, Sq, Skv] score matrix:
 * true = kept. Defined once here so the reference and every GPU kernel agree (see ir_philox.c). */
bool ir_dropout_keep(uint64_t seed, uint64_t offset, int64_t linear_index, double p);

/* ---- helpers shared by the reference kernels (ir_dtype.c) ---------------------------------- */
/* true when ir_load/ir_store implement type t (every type but FP6 and unknown values). */
bool ir_dtype_supported(hipdnnDataType_t t);
/* true for the integer types and BOOLEAN (values ir_dtype_round makes whole). */
bool ir_dtype_integral(hipdnnDataType_t t);
/* true when b broadcasts onto `dims` (numpy rules, right-aligned): each dim of b equals the
 * matching dim or is 1; extra leading dims of b must be 1. */
bool ir_bcast_ok(const ir_buf *b, const int64_t *dims, int rank);
/* The index into b (b->rank entries) of the element that broadcasts to idx (rank entries). */
void ir_bcast_index(const ir_buf *b, const int64_t *idx, int rank, int64_t *bidx);

#endif
