/* cg_pointwise.c — emits elementwise kernels with kernel_templates/pointwise.hip: pure
 * pointwise regions, and batchnorm inference (an elementwise op once the statistics are given)
 * with its pointwise epilogue.
 *
 * The iteration shape is the dims of the region's results (all must agree). hd_element(i)
 * decomposes i into coordinates c0..c(r-1) over that shape, loads each input once with its own
 * strides (a size-1 dim of an input broadcasts: its coordinate is not used), runs the ops in
 * order into float registers, and stores every result the kernel writes.
 */
#include <stdio.h>
#include <string.h>

#include "codegen/cg_int.h"

#define THREADS 256

/* Offset expression of tensor ti at coordinates c0.. of an iteration shape of rank r. */
static void offset_expr(const ir_tensor *t, int r, base_sb *sb)
{
    int n = 0;
    for (int d = 0; d < t->rank; d++) {
        int c = r - t->rank + d;
        if (t->dims[d] == 1 || t->strides[d] == 0)
            continue;
        base_sb_printf(sb, "%sc%d * %lldLL", n++ ? " + " : "", c, (long long)t->strides[d]);
    }
    if (n == 0)
        base_sb_puts(sb, "0");
}

static bool check_region(const ir_graph *g, const ir_kernel *k, const ir_tensor **shape, char *why,
                         size_t n)
{
    *shape = NULL;
    for (int i = 0; i < k->n_ops; i++) {
        const ir_op *op = &g->ops[k->ops[i]];
        if (op->kind != IR_OP_POINTWISE && op->kind != IR_OP_BN_INFER) {
            snprintf(why, n, "%s in a pointwise region has no template yet", ir_op_info_of(op->kind)->name);
            return false;
        }
        const ir_tensor *o = &g->t[op->out[0]];
        if (*shape == NULL)
            *shape = o;
        else if (o->rank != (*shape)->rank || memcmp(o->dims, (*shape)->dims, sizeof o->dims[0] * (size_t)o->rank)) {
            snprintf(why, n, "pointwise results of different shapes in one region");
            return false;
        }
        for (int s = 0; s < op->n_in + op->n_out; s++) {
            int ti = s < op->n_in ? op->in[s] : op->out[s - op->n_in];
            if (ti >= 0 && cg_dtype(g->t[ti].dtype) == NULL) {
                snprintf(why, n, "tensor uid %lld: data type %d has no kernel support yet",
                         (long long)g->t[ti].uid, (int)g->t[ti].dtype);
                return false;
            }
        }
    }
    return *shape != NULL;
}

/* Loads every operand of op that is not yet in a register. */
static void load_inputs(const ir_graph *g, const ir_op *op, int rank, bool *have, base_sb *sb)
{
    for (int s = 0; s < op->n_in; s++) {
        int ti = op->in[s];
        if (ti < 0 || have[ti])
            continue;
        char buf[64];
        const char *scalar = cg_scalar_expr(g, ti, buf, sizeof buf);
        base_sb_printf(sb, "    float t%d = ", ti);
        if (scalar != NULL) {
            base_sb_printf(sb, "%s;\n", scalar);
        } else {
            base_sb_printf(sb, "hd_ld<%s>(p%d, ", cg_dtype(g->t[ti].dtype), ti);
            offset_expr(&g->t[ti], rank, sb);
            base_sb_puts(sb, ");\n");
        }
        have[ti] = true;
    }
}

static bool is_written(const ir_kernel *k, int ti)
{
    for (int i = 0; i < k->n_writes; i++)
        if (k->writes[i] == ti)
            return true;
    return false;
}

static void store(const ir_graph *g, const ir_kernel *k, int ti, int rank, base_sb *sb);

/* y = (x - mean) * inv * scale + bias; the variance form computes inv = rsqrt(var + eps). */
static void emit_bn_inference(const ir_graph *g, const ir_kernel *k, const ir_op *op, int rank,
                              bool *have, base_sb *sb)
{
    const int *in = op->in;
    if (op->a.norm.from_variance)
        base_sb_printf(sb, "    float inv%d = hd_rsqrt(t%d + t%d);\n", op->out[0], in[2], in[5]);
    else
        base_sb_printf(sb, "    float inv%d = t%d;\n", op->out[0], in[2]);
    base_sb_printf(sb, "    float t%d = hd_round<%s>((t%d - t%d) * inv%d * t%d + t%d);\n", op->out[0],
                   cg_dtype(g->t[op->out[0]].dtype), in[0], in[1], op->out[0], in[3], in[4]);
    have[op->out[0]] = true;
    store(g, k, op->out[0], rank, sb);
}

static void emit_element(const ir_graph *g, const ir_kernel *k, const ir_tensor *shape, bool *have,
                         base_sb *sb)
{
    int r = shape->rank;
    base_sb_puts(sb, "HD_DEVICE void hd_element(hd_i64 i, HD_PARAMS)\n{\n");
    for (int d = r - 1; d >= 0; d--)
        base_sb_printf(sb, "    hd_i64 c%d = i %% %lldLL; i /= %lldLL;\n", d,
                       (long long)shape->dims[d], (long long)shape->dims[d]);
    for (int i = 0; i < k->n_ops; i++) {
        const ir_op *op = &g->ops[k->ops[i]];
        load_inputs(g, op, r, have, sb);
        if (op->kind == IR_OP_BN_INFER) {
            emit_bn_inference(g, k, op, r, have, sb);
            continue;
        }
        char a[16], b[16], c[16], out[16], idx[16];
        snprintf(a, sizeof a, "t%d", op->in[0]);
        snprintf(b, sizeof b, "t%d", op->in[1]);
        snprintf(c, sizeof c, "t%d", op->in[2]);
        snprintf(out, sizeof out, "float t%d", op->out[0]);
        int64_t axis = op->a.pw.axis < 0 ? op->a.pw.axis + r : op->a.pw.axis;
        snprintf(idx, sizeof idx, "c%lld", (long long)(axis >= 0 && axis < r ? axis : 0));
        base_sb_puts(sb, "    ");
        cg_pointwise_stmt(sb, op, out, a, op->in[1] >= 0 ? b : NULL, op->in[2] >= 0 ? c : NULL, idx);
        base_sb_printf(sb, "    t%d = hd_round<%s>(t%d);\n", op->out[0], cg_dtype(g->t[op->out[0]].dtype),
                       op->out[0]);
        have[op->out[0]] = true;
        store(g, k, op->out[0], r, sb);
    }
    base_sb_puts(sb, "}\n");
}

/* Stores result ti when the kernel writes it to memory. */
static void store(const ir_graph *g, const ir_kernel *k, int ti, int rank, base_sb *sb)
{
    if (!is_written(k, ti))
        return;
    base_sb_printf(sb, "    hd_st<%s>(p%d, ", cg_dtype(g->t[ti].dtype), ti);
    offset_expr(&g->t[ti], rank, sb);
    base_sb_printf(sb, ", t%d);\n", ti);
}

hipdnnStatus_t cg_emit_pointwise(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                                 cg_kernel *out, char *why, size_t why_len)
{
    const ir_tensor *shape;
    if (!check_region(g, k, &shape, why, why_len))
        return HIPDNN_STATUS_NOT_SUPPORTED;
    int64_t numel = 1;
    for (int d = 0; d < shape->rank; d++)
        numel *= shape->dims[d];
    base_sb defs = {0}, hooks = {0};
    hipdnnStatus_t st = cg_collect_params(g, k, out, &defs);
    bool *have = base_calloc((size_t)g->n_t + 1, sizeof *have);
    if (st == HIPDNN_STATUS_SUCCESS && have == NULL)
        st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "codegen: out of memory");
    if (st == HIPDNN_STATUS_SUCCESS) {
        base_sb_printf(&defs, "#define HD_THREADS %d\n#define HD_NUMEL %lldLL\n", THREADS, (long long)numel);
        emit_element(g, k, shape, have, &hooks);
        st = cg_assemble(t, "pointwise.hip", &defs, &hooks, out);
    }
    int64_t blocks = (numel + THREADS - 1) / THREADS, cap = (int64_t)(t->sm_count > 0 ? t->sm_count : 132) * 16;
    out->entry = "hd_pointwise_kernel";
    out->grid[0] = (unsigned)(blocks < cap ? blocks : cap), out->grid[1] = out->grid[2] = 1;
    out->block[0] = THREADS, out->block[1] = out->block[2] = 1;
    out->align = 1;
    base_free(have);
    base_sb_free(&defs);
    base_sb_free(&hooks);
    return st;
}
