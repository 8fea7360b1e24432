/* ir_infer.c — shape inference for op outputs.
 *
 * For the ops whose output shape follows from their inputs (pointwise broadcasting, matmul,
 * forward convolution, the y of a normalization) the inferred dims are compared with the
 * declared ones; a mismatch is an error naming the op and both shapes. Outputs of other ops
 * (gradients, statistics) keep their declared shapes, which the frontend validated.
 */
#include <stdio.h>
#include <string.h>

#include "ir/ir_int.h"

typedef struct shape {
    int rank;
    int64_t d[IR_MAX_RANK];
} shape;

static shape of(const ir_graph *g, int ti)
{
    shape s = {g->t[ti].rank, {0}};
    memcpy(s.d, g->t[ti].dims, sizeof s.d);
    return s;
}

/* numpy broadcast of the present inputs; false when two non-1 dims differ. */
static bool broadcast(const ir_graph *g, const ir_op *op, shape *out)
{
    *out = (shape){0};
    for (int s = 0; s < op->n_in; s++)
        if (op->in[s] >= 0 && g->t[op->in[s]].rank > out->rank)
            out->rank = g->t[op->in[s]].rank;
    for (int i = 0; i < out->rank; i++)
        out->d[i] = 1;
    for (int s = 0; s < op->n_in; s++) {
        if (op->in[s] < 0)
            continue;
        shape x = of(g, op->in[s]);
        for (int i = 0; i < x.rank; i++) {
            int64_t *o = &out->d[out->rank - x.rank + i];
            if (x.d[i] != 1 && *o != 1 && *o != x.d[i])
                return false;
            if (x.d[i] != 1)
                *o = x.d[i];
        }
    }
    return true;
}

static bool matmul_shape(const ir_graph *g, const ir_op *op, shape *out)
{
    shape a = of(g, op->in[0]), b = of(g, op->in[1]);
    if (a.rank != b.rank || a.rank < 2 || a.d[a.rank - 1] != b.d[b.rank - 2])
        return false;
    *out = a;
    for (int i = 0; i < a.rank - 2; i++)
        out->d[i] = a.d[i] > b.d[i] ? a.d[i] : b.d[i];
    out->d[a.rank - 1] = b.d[b.rank - 1];
    return true;
}

static bool conv_fwd_shape(const ir_graph *g, const ir_op *op, shape *out)
{
    shape x = of(g, op->in[0]), w = of(g, op->in[1]);
    const ir_conv *c = &op->a.conv;
    if (x.rank != w.rank || x.rank != c->spatial + 2)
        return false;
    *out = x;
    out->d[1] = w.d[0];
    for (int i = 0; i < c->spatial; i++) {
        int64_t span = c->dilation[i] * (w.d[2 + i] - 1) + 1;
        out->d[2 + i] = (x.d[2 + i] + c->pre[i] + c->post[i] - span) / c->stride[i] + 1;
    }
    return true;
}

/* The inferred shape of output slot 0, or false when the op's outputs are not inferred. */
static bool infer(const ir_graph *g, const ir_op *op, shape *out, bool *ok)
{
    *ok = true;
    switch (op->kind) {
    case IR_OP_POINTWISE: *ok = broadcast(g, op, out); return true;
    case IR_OP_MATMUL: *ok = matmul_shape(g, op, out); return true;
    case IR_OP_CONV_FWD: *ok = conv_fwd_shape(g, op, out); return true;
    case IR_OP_BN_INFER:
    case IR_OP_BN_TRAIN:
    case IR_OP_LAYERNORM:
    case IR_OP_RMSNORM: *out = of(g, op->in[0]); return true;
    case IR_OP_CONV_DGRAD: case IR_OP_CONV_WGRAD: case IR_OP_BN_BWD: case IR_OP_GENSTATS:
    case IR_OP_SDPA_FWD: case IR_OP_SDPA_BWD: case IR_OP_BS_QUANTIZE: case IR_OP_BS_DEQUANTIZE:
    case IR_OP_PAGED_CACHE_LOAD: case IR_OP_CUSTOM: case IR_OP_COUNT: return false;
    }
    return false; /* a value outside the enum */
}

/* Pointwise outputs may be larger than every input along a dim (inputs broadcast onto the
 * output), so there an inferred 1 matches anything. */
static bool matches(const ir_op *op, const shape *want, const shape *have)
{
    if (want->rank != have->rank)
        return false;
    for (int i = 0; i < want->rank; i++)
        if (want->d[i] != have->d[i] && !(op->kind == IR_OP_POINTWISE && want->d[i] == 1))
            return false;
    return true;
}

static void fmt(const shape *s, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < s->rank && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, i ? ",%lld" : "%lld", (long long)s->d[i]);
    if (k < n)
        snprintf(buf + k, n - k, "]");
}

hipdnnStatus_t ir_infer_shapes(const ir_graph *g)
{
    for (int k = 0; k < g->n_ops; k++) {
        const ir_op *op = &g->ops[k];
        shape want = {0};
        bool ok;
        if (op->n_out < 1 || op->out[0] < 0 || !infer(g, op, &want, &ok))
            continue;
        shape have = of(g, op->out[0]);
        char a[160], b[160];
        fmt(&have, a, sizeof a);
        if (!ok)
            return base_fail(HIPDNN_STATUS_BAD_PARAM, "IR graph: op %d (%s): inputs do not give "
                             "an output shape (output %s)", k, ir_op_info_of(op->kind)->name, a);
        fmt(&want, b, sizeof b);
        if (!matches(op, &want, &have))
            return base_fail(HIPDNN_STATUS_BAD_PARAM,
                             "IR graph: op %d (%s): output uid %lld is %s, its inputs give %s", k,
                             ir_op_info_of(op->kind)->name, (long long)g->t[op->out[0]].uid, a, b);
    }
    return HIPDNN_STATUS_SUCCESS;
}
