/* ir_ref.c — the reference interpreter's dispatch.
 *
 * Owns: ir_ref_run (and ir_ref_run_mod, the same with an SDPA's score and mask modifiers), which checks what every reference kernel relies on (a context, element
 * types that ir_load/ir_store implement, sane views) and calls the op family's ir_ref_* function
 * (ir_int.h). CUSTOM ops are their providers' (the reference engine calls them): NOT_SUPPORTED here. The op table (ir_op_info_of) is
 * ir_ops.c's; the SDPA kernels are ir_ref_sdpa.c's.
 */
#include "ir/ir_int.h"

static hipdnnStatus_t check_types(const ir_ref_ctx *c)
{
    for (int i = 0; i < c->n_in + c->n_out; i++) {
        const ir_buf *b = i < c->n_in ? c->in[i] : c->out[i - c->n_in];
        if (b == NULL)
            continue;
        if (b->rank < 0 || b->rank > IR_MAX_RANK || (b->data == NULL && ir_buf_numel(b) > 0))
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "reference: operand %d: bad view", i);
        if (!ir_dtype_supported(b->dtype))
            return base_fail(HIPDNN_STATUS_NOT_SUPPORTED,
                             "reference: operand %d: data type %d not supported", i,
                             (int)b->dtype);
    }
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t dispatch(ir_op_kind k, const ir_attrs *a, const ir_ref_mods *mods,
                               const ir_ref_ctx *c)
{
    switch (k) {
    case IR_OP_POINTWISE: return ir_ref_pointwise(&a->pw, c);
    case IR_OP_MATMUL: return ir_ref_matmul(c);
    case IR_OP_CONV_FWD:
    case IR_OP_CONV_DGRAD:
    case IR_OP_CONV_WGRAD: return ir_ref_conv(k, &a->conv, c);
    case IR_OP_BN_INFER: return ir_ref_bn_infer(&a->norm, c);
    case IR_OP_BN_TRAIN: return ir_ref_bn_train(c);
    case IR_OP_BN_BWD: return ir_ref_bn_bwd(c);
    case IR_OP_GENSTATS: return ir_ref_genstats(c);
    case IR_OP_LAYERNORM: return ir_ref_layernorm(&a->norm, c);
    case IR_OP_RMSNORM: return ir_ref_rmsnorm(&a->norm, c);
    case IR_OP_SDPA_FWD: return ir_ref_sdpa_fwd_mod(&a->sdpa, mods, c);
    case IR_OP_SDPA_BWD: return ir_ref_sdpa_bwd_mod(&a->sdpa, mods, c);
    case IR_OP_BS_QUANTIZE: return ir_ref_bs_quantize(&a->quant, c);
    case IR_OP_BS_DEQUANTIZE: return ir_ref_bs_dequantize(&a->quant, c);
    case IR_OP_PAGED_CACHE_LOAD: return ir_ref_paged_cache_load(c);
    case IR_OP_CUSTOM: /* its provider's job (the reference engine calls it, graph/fe_custom.c) */
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED,
                         "reference: custom op '%.*s' is run by its provider, not the interpreter",
                         (int)sizeof a->custom.id, a->custom.id);
    case IR_OP_COUNT: break;
    }
    return base_fail(HIPDNN_STATUS_BAD_PARAM, "reference: unknown op kind %d", (int)k);
}

hipdnnStatus_t ir_ref_run(ir_op_kind k, const ir_attrs *a, const ir_ref_ctx *c)
{
    return ir_ref_run_mod(k, a, NULL, c);
}

hipdnnStatus_t ir_ref_run_mod(ir_op_kind k, const ir_attrs *a, const ir_ref_mods *mods,
                              const ir_ref_ctx *c)
{
    if (a == NULL || c == NULL || (c->n_in > 0 && c->in == NULL) ||
        (c->n_out > 0 && c->out == NULL))
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "reference: null attrs or context");
    hipdnnStatus_t st = check_types(c);
    bool bad_score = mods != NULL && mods->score != NULL && ir_mod_slot(k, IR_MOD_SCORE) < 0;
    bool bad_mask = mods != NULL && mods->mask != NULL && ir_mod_slot(k, IR_MOD_MASK) < 0;
    if (st == HIPDNN_STATUS_SUCCESS && (bad_score || bad_mask))
        st = base_fail(HIPDNN_STATUS_BAD_PARAM, "reference: a %s modifier on %s", bad_score ? "score" : "mask",
                       ir_op_info_of(k)->name);
    return st != HIPDNN_STATUS_SUCCESS ? st : dispatch(k, a, mods, c);
}
