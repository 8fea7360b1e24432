/* fe_engine_ref_ragged.c — the reference engine's attention over packed (THD) tensors
 * (ir_tensor.ragged, graph/fe_lower_ragged.c): batch by batch, each packed operand gathered into
 * a dense [1,H,S,D] buffer in double (rows past the batch's sequence length zero: they do not
 * exist in the packed buffer), every other operand viewed at its batch, the op run by the dense
 * reference (ir_ref_run, with the batch's sequence lengths: the padding mask), and each packed
 * output's existing rows scattered back (one rounding, at that store); rows past a batch's length
 * are never read or written in a packed buffer. Dense outputs (Stats) get the dense semantics at
 * their padding rows. Called by fe_engine_ref.c for an op with a packed operand.
 */
#include <stdio.h>
#include <string.h>

#include "engines/fe_engines.h"

/* The sequence dim of a packed operand follows Sq (Q, O, dO, dQ) or Skv (K, V, dK, dV). */
static bool keyed(const ir_op *op, bool out, int s)
{
    if (op->kind == IR_OP_SDPA_FWD)
        return !out && (s == IR_SDPA_K || s == IR_SDPA_V);
    return out ? s == IR_SDPAB_DK || s == IR_SDPAB_DV : s == IR_SDPAB_K || s == IR_SDPAB_V;
}

typedef struct packed {
    ir_buf dense;       /* [1,H,S,D] doubles */
    double *data;
} packed;

/* Batch b's view of ragged tensor t (buffer buf, offsets ro): rows [0, len). */
static hipdnnStatus_t batch_view(const ir_tensor *t, const ir_buf *buf, const ir_buf *ro, int64_t b, int64_t len,
                                 ir_buf *v)
{
    int64_t at[IR_MAX_RANK] = {b};
    double off = ir_load(ro, at);
    size_t es = fe_dtype_size(t->dtype);
    if (buf->data == NULL || ro->data == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "reference engine: no memory for packed tensor uid %lld or its "
                         "ragged offsets", (long long)t->uid);
    if (!(off >= 0) || off > 0x1p52 || es == 0)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "reference engine: tensor uid %lld: ragged offset %g of batch %lld "
                         "is not an element offset", (long long)t->uid, off, (long long)b);
    *v = *buf;
    v->data = (char *)buf->data + (size_t)off * (size_t)t->ragged_mult * es;
    v->dims[0] = 1, v->dims[2] = len;
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t pack_alloc(packed *p, const ir_tensor *t)
{
    int64_t n = t->dims[1] * t->dims[2] * t->dims[3];
    p->data = base_calloc((size_t)(n > 0 ? n : 1), sizeof *p->data);
    if (p->data == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "reference engine: out of memory");
    p->dense = (ir_buf){.data = p->data, .dtype = HIPDNN_DATA_DOUBLE, .rank = 4,
                        .dims = {1, t->dims[1], t->dims[2], t->dims[3]},
                        .strides = {n, t->dims[2] * t->dims[3], t->dims[3], 1}};
    return HIPDNN_STATUS_SUCCESS;
}

/* Copies rows [0, len) of `from` into `to` (both [1,H,>=len,D]); rows past len of `to` untouched. */
static void copy_rows(const ir_buf *from, ir_buf *to, int64_t len)
{
    int64_t idx[IR_MAX_RANK] = {0};
    for (idx[1] = 0; idx[1] < from->dims[1]; idx[1]++)
        for (idx[2] = 0; idx[2] < len; idx[2]++)
            for (idx[3] = 0; idx[3] < from->dims[3]; idx[3]++)
                ir_store(to, idx, ir_load(from, idx));
}

static int64_t seq_of(const ir_buf *seq, int64_t b, int64_t max)
{
    int64_t at[IR_MAX_RANK] = {b};
    double v = ir_load(seq, at);
    return v != v || v < 0 ? 0 : v > (double)max ? max : (int64_t)v;
}

/* One batch: views and gathers, the dense op, the scatter. */
static hipdnnStatus_t run_batch(const ir_graph *ir, const ir_op *op, ir_buf *bufs, int64_t b, int64_t B,
                                packed *tmp)
{
    bool fwd = op->kind == IR_OP_SDPA_FWD;
    int sq_slot = fwd ? IR_SDPA_SEQ_Q : IR_SDPAB_SEQ_Q, skv_slot = fwd ? IR_SDPA_SEQ_KV : IR_SDPAB_SEQ_KV;
    const ir_tensor *tq = &ir->t[op->in[fwd ? IR_SDPA_Q : IR_SDPAB_Q]], *tk = &ir->t[op->in[fwd ? IR_SDPA_K : IR_SDPAB_K]];
    int64_t sq = seq_of(&bufs[op->in[sq_slot]], b, tq->dims[2]), skv = seq_of(&bufs[op->in[skv_slot]], b, tk->dims[2]);
    ir_buf v[2 * IR_MAX_SLOTS], packed_view[2 * IR_MAX_SLOTS];
    const ir_buf *in[IR_MAX_SLOTS];
    ir_buf *out[IR_MAX_SLOTS];
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    for (int s = 0; s < op->n_in + op->n_out && st == HIPDNN_STATUS_SUCCESS; s++) {
        bool is_out = s >= op->n_in;
        int slot = is_out ? s - op->n_in : s, ti = is_out ? op->out[slot] : op->in[slot];
        if (ti < 0) {
            (is_out ? (void)(out[slot] = NULL) : (void)(in[slot] = NULL));
            continue;
        }
        const ir_tensor *t = &ir->t[ti];
        v[s] = bufs[ti];
        if (t->ragged) {
            int64_t len = keyed(op, is_out, slot) ? skv : sq;
            st = batch_view(t, &bufs[ti], &bufs[t->ragged_t], b, len, &packed_view[s]);
            memset(tmp[s].data, 0, (size_t)(t->dims[1] * t->dims[2] * t->dims[3]) * sizeof *tmp[s].data);
            if (st == HIPDNN_STATUS_SUCCESS && !is_out)
                copy_rows(&packed_view[s], &tmp[s].dense, len);
            v[s] = tmp[s].dense;
        } else if (t->rank >= 1 && t->dims[0] == B && !t->by_value && v[s].data != NULL) { /* its batch b */
            size_t es = fe_dtype_size(t->dtype);
            v[s].data = (char *)v[s].data + (size_t)(b * t->strides[0]) * es;
            v[s].dims[0] = 1;
        }
        if (is_out)
            out[slot] = &v[s];
        else
            in[slot] = &v[s];
    }
    if (st == HIPDNN_STATUS_SUCCESS) {
        ir_ref_ctx c = {in, out, op->n_in, op->n_out};
        st = ir_ref_run(op->kind, &op->a, &c);
    }
    for (int slot = 0; slot < op->n_out && st == HIPDNN_STATUS_SUCCESS; slot++) {
        int ti = op->out[slot], s = op->n_in + slot;
        if (ti >= 0 && ir->t[ti].ragged)
            copy_rows(&tmp[s].dense, &packed_view[s], keyed(op, true, slot) ? skv : sq);
    }
    return st;
}

hipdnnStatus_t fe_ref_run_ragged(const ir_graph *ir, int k, ir_buf *bufs)
{
    const ir_op *op = &ir->ops[k];
    packed tmp[2 * IR_MAX_SLOTS];
    memset(tmp, 0, sizeof tmp);
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    for (int s = 0; s < op->n_in + op->n_out && st == HIPDNN_STATUS_SUCCESS; s++) {
        int ti = s < op->n_in ? op->in[s] : op->out[s - op->n_in];
        if (ti >= 0 && ir->t[ti].ragged)
            st = pack_alloc(&tmp[s], &ir->t[ti]);
    }
    int64_t B = ir->t[op->in[op->kind == IR_OP_SDPA_FWD ? IR_SDPA_Q : IR_SDPAB_Q]].dims[0];
    for (int64_t b = 0; b < B && st == HIPDNN_STATUS_SUCCESS; b++)
        st = run_batch(ir, op, bufs, b, B, tmp);
    for (int s = 0; s < 2 * IR_MAX_SLOTS; s++)
        base_free(tmp[s].data);
    return st;
}
