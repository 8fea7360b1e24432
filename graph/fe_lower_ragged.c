/* fe_lower_ragged.c — packed (THD) tensors into the IR: a tensor with a ragged offset
 * (HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC, desc/fe_tensor.c) gets ir_tensor.ragged, the index of
 * its offset tensor and the offset multiplier (HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_MULTIPLIER).
 *
 * Semantics (cuDNN's ragged offsets): batch b of the tensor starts at element offsets[b]·mult of
 * its buffer; within a batch, heads, rows and columns follow the strides of dims 1..3 (dim 0's
 * stride is not used); rows past the batch's sequence length (SEQ_LEN_Q / SEQ_LEN_KV) do not
 * exist in the buffer. Owns the checks of where such a tensor may be: attention operands only
 * (SDPA forward Q, K, V, O; backward Q, K, V, O, dO, dQ, dK, dV), rank 4, offsets [>= B+1,1,1,1],
 * the op with its sequence lengths (the padding mask: they say which rows exist), and none of
 * what would number or read the batch as a whole (Philox dropout, a dropout mask, paged K/V, a
 * bias, the block mask, score or mask modifiers, RNG_DUMP). Everything else is refused with the
 * reason (NOT_SUPPORTED). Called by fe_lower.c once the ops are lowered.
 */
#include <string.h>

#include "graph/fe_graph_int.h"
#include "ir/ir.h"

#define RFAIL(...) base_fail(HIPDNN_STATUS_NOT_SUPPORTED, __VA_ARGS__)

/* The slots that may hold a ragged tensor: forward inputs / outputs, backward inputs / outputs. */
static bool ragged_slot(const ir_op *op, bool out, int s)
{
    if (op->kind == IR_OP_SDPA_FWD)
        return out ? s == IR_SDPA_O : s == IR_SDPA_Q || s == IR_SDPA_K || s == IR_SDPA_V;
    if (op->kind == IR_OP_SDPA_BWD)
        return out ? s == IR_SDPAB_DQ || s == IR_SDPAB_DK || s == IR_SDPAB_DV
                   : s == IR_SDPAB_Q || s == IR_SDPAB_K || s == IR_SDPAB_V || s == IR_SDPAB_O || s == IR_SDPAB_DO;
    return false;
}

/* An attention op with a ragged operand: its lengths present, nothing that numbers or reads the
 * batch as a whole. */
static hipdnnStatus_t check_op(const ir_graph *g, int k)
{
    const ir_op *op = &g->ops[k];
    bool fwd = op->kind == IR_OP_SDPA_FWD;
    int seq_q = fwd ? IR_SDPA_SEQ_Q : IR_SDPAB_SEQ_Q, seq_kv = fwd ? IR_SDPA_SEQ_KV : IR_SDPAB_SEQ_KV;
    if (op->in[seq_q] < 0 || op->in[seq_kv] < 0)
        return RFAIL("op %d (%s): a packed (ragged) operand needs SEQ_LEN_Q and SEQ_LEN_KV (with the padding "
                     "mask): they say which rows of each batch exist", k, fwd ? "SDPA forward" : "SDPA backward");
    const int refused_fwd[] = {IR_SDPA_BIAS, IR_SDPA_SEED, IR_SDPA_DROPOUT_MASK, IR_SDPA_PAGE_K, IR_SDPA_PAGE_V,
                               IR_SDPA_BLOCK_MASK, IR_SDPA_SCORE_MOD, IR_SDPA_MASK_MOD, IR_SDPA_DESCALE_Q};
    const int refused_bwd[] = {IR_SDPAB_BIAS, IR_SDPAB_SEED, IR_SDPAB_DROPOUT_MASK, IR_SDPAB_MASK_MOD};
    const int *refused = fwd ? refused_fwd : refused_bwd;
    int n = fwd ? (int)(sizeof refused_fwd / sizeof *refused_fwd) : (int)(sizeof refused_bwd / sizeof *refused_bwd);
    for (int i = 0; i < n; i++)
        if (refused[i] < op->n_in && op->in[refused[i]] >= 0)
            return RFAIL("op %d: packed (ragged) attention with a bias, dropout, paged K/V, a block mask, FP8 "
                         "factors or score / mask modifiers is not supported yet (operand slot %d)", k, refused[i]);
    if (fwd && op->n_out > IR_SDPA_RNG_DUMP && op->out[IR_SDPA_RNG_DUMP] >= 0)
        return RFAIL("op %d: packed (ragged) attention with RNG_DUMP is not supported yet", k);
    for (int s = 0; s < op->n_in; s++)
        if (op->in[s] >= 0 && g->t[op->in[s]].ragged && !ragged_slot(op, false, s))
            return RFAIL("op %d: input slot %d holds a packed (ragged) tensor; only Q, K, V, O and dO may", k, s);
    for (int s = 0; s < op->n_out; s++)
        if (op->out[s] >= 0 && g->t[op->out[s]].ragged && !ragged_slot(op, true, s))
            return RFAIL("op %d: output slot %d is a packed (ragged) tensor; only O, dQ, dK and dV may", k, s);
    int q = fwd ? IR_SDPA_Q : IR_SDPAB_Q;
    int64_t B = g->t[op->in[q]].dims[0];
    for (int s = 0; s < op->n_in + op->n_out; s++) {
        int ti = s < op->n_in ? op->in[s] : op->out[s - op->n_in];
        if (ti < 0 || !g->t[ti].ragged)
            continue;
        const ir_tensor *ro = &g->t[g->t[ti].ragged_t];
        if (ro->rank < 1 || ro->dims[0] < B + 1 || ro->is_virtual || ro->by_value)
            return RFAIL("tensor uid %lld: its ragged offsets (uid %lld) must hold B + 1 = %lld values in memory "
                         "([B+1,1,1,1])", (long long)g->t[ti].uid, (long long)ro->uid, (long long)(B + 1));
    }
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t fe_lower_ragged(const fe_graph_info *gi, ir_graph *out)
{
    bool any = false;
    for (int i = 0; i < gi->n_tensors; i++) { /* the graph's tensors are out->t[0 .. n_tensors) */
        fe_obj *t = gi->tensors[i].t;
        fe_obj *ro = fe_tensor_ragged(t);
        fe_val *uid = fe_get(t, HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC);
        if (uid->n == 0)
            continue;
        int64_t want = ro != NULL ? fe_tensor(ro).uid : uid->one.i64; /* cuDNN's form, or hipDNN's uid */
        int at = -1;
        for (int j = 0; at < 0 && j < gi->n_tensors; j++)
            if (fe_tensor(gi->tensors[j].t).uid == want)
                at = j;
        if (at < 0)
            return RFAIL("tensor uid %lld: its ragged offsets (uid %lld) are not a tensor of the graph",
                         (long long)out->t[i].uid, (long long)uid->one.i64);
        if (out->t[i].rank != 4)
            return RFAIL("tensor uid %lld: a packed (ragged) tensor must be rank 4 ([B,H,S,D])", (long long)out->t[i].uid);
        fe_val *mult = fe_get(t, HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_MULTIPLIER);
        out->t[i].ragged = true, out->t[i].ragged_t = at;
        out->t[i].ragged_mult = mult->n > 0 ? mult->one.i64 : 1;
        if (out->t[i].ragged_mult < 1)
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "tensor uid %lld: ragged offset multiplier %lld; it must be "
                             "1 or more", (long long)out->t[i].uid, (long long)out->t[i].ragged_mult);
        any = true;
    }
    for (int k = 0; any && k < out->n_ops; k++) {
        const ir_op *op = &out->ops[k];
        if (!ir_op_ragged(out, op))
            continue;
        if (op->kind != IR_OP_SDPA_FWD && op->kind != IR_OP_SDPA_BWD)
            return RFAIL("op %d reads or writes a packed (ragged) tensor; only attention (SDPA forward and "
                         "backward) takes them", k);
        hipdnnStatus_t st = check_op(out, k);
        if (st != HIPDNN_STATUS_SUCCESS)
            return st;
    }
    return HIPDNN_STATUS_SUCCESS;
}
