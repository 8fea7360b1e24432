/* tu_close_ir.c — the tolerance of an IR output and the per-element comparison of one tensor
 * (tu_close_ir.h). */
#include <stdlib.h>

#include "tu_close_ir.h"

static int64_t numel(const ir_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++)
        n *= t->dims[i];
    return n;
}

static double ulp_rank(hipdnnDataType_t t) /* coarser types rank higher */
{
    return tu_tol_for(t, TU_POINTWISE, 1).rtol;
}

/* The family and sum length of an op's result (tu_tol_for's arguments). */
static void op_family(const ir_graph *ir, const ir_op *op, tu_family *f, long long *length)
{
    const ir_tensor *in0 = op->in[0] >= 0 ? &ir->t[op->in[0]] : NULL;
    const ir_tensor *in1 = op->in[1] >= 0 ? &ir->t[op->in[1]] : NULL;
    *f = TU_POINTWISE, *length = 1;
    switch (op->kind) {
    case IR_OP_MATMUL: *f = TU_DOT, *length = in0->dims[in0->rank - 1]; break;
    case IR_OP_CONV_FWD: *f = TU_DOT, *length = numel(in1) / in1->dims[0]; break;  /* C/g·R·S */
    case IR_OP_CONV_DGRAD: *f = TU_DOT, *length = numel(in1) / in1->dims[1]; break; /* K·R·S */
    case IR_OP_CONV_WGRAD: *f = TU_DOT, *length = numel(in1) / in1->dims[1]; break; /* N·P·Q */
    case IR_OP_LAYERNORM:
    case IR_OP_RMSNORM: *f = TU_REDUCTION, *length = numel(&ir->t[op->in[1]]); break; /* scale */
    case IR_OP_BN_TRAIN:
    case IR_OP_BN_BWD:
    case IR_OP_GENSTATS: *f = TU_REDUCTION, *length = numel(in0) / in0->dims[1]; break;
    case IR_OP_SDPA_FWD:
    case IR_OP_SDPA_BWD: *f = TU_ATTENTION; break;
    case IR_OP_PAGED_CACHE_LOAD: *f = TU_EXACT; break;
    default: break; /* pointwise, bn inference, dequantize, quantize, custom */
    }
}

tu_tol tu_tol_of_output(const ir_graph *ir, int ti)
{
    tu_family f = TU_EXACT;
    long long length = 1;
    hipdnnDataType_t coarse = ir->t[ti].dtype;
    int stack[64], n = 0;
    bool *seen = calloc((size_t)ir->n_ops + 1, 1);
    if (ir->t[ti].producer >= 0)
        stack[n++] = ir->t[ti].producer;
    while (n > 0) {
        const ir_op *op = &ir->ops[stack[--n]];
        if (seen[op - ir->ops])
            continue;
        seen[op - ir->ops] = true;
        tu_family of;
        long long ol;
        op_family(ir, op, &of, &ol);
        f = of > f ? of : f, length = ol > length ? ol : length;
        for (int s = 0; s < op->n_in; s++) {
            const ir_tensor *in = op->in[s] >= 0 ? &ir->t[op->in[s]] : NULL;
            if (in == NULL || in->producer < 0 || n == 64)
                continue;
            if (in->is_virtual && ulp_rank(in->dtype) > ulp_rank(coarse))
                coarse = in->dtype;
            stack[n++] = in->producer;
        }
    }
    free(seen);
    return tu_tol_for(coarse, f, length);
}

tu_close_result tu_close_tensor(const ir_graph *ir, int ti, const ir_buf *got, const ir_buf *want,
                                const char *what, bool expect)
{
    int64_t idx[IR_MAX_RANK] = {0}, n = numel(&ir->t[ti]), i = 0;
    double *g = malloc((size_t)n * sizeof *g), *w = malloc((size_t)n * sizeof *w);
    do
        g[i] = ir_load(got, idx), w[i++] = ir_load(want, idx);
    while (ir_next_index(got, idx));
    tu_tol tol = tu_tol_of_output(ir, ti);
    tu_close_result r = tu_close_check(g, w, (size_t)n, tol);
    if (expect)
        tu_expect_close(what, g, w, (size_t)n, tol);
    free(g), free(w);
    return r;
}
