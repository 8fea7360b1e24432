/* cg_pointwise.c — emits elementwise kernels with kernel_templates/pointwise.hip: pure
 * pointwise regions (block-scale dequantize included), and batchnorm inference (an elementwise
 * op once the statistics are given) with its pointwise epilogue. Also owns the elementwise body
 * other emitters reuse (cg_elementwise: the block quantize's prologue in cg_quant.c).
 *
 * The iteration shape is the dims of the region's results (all must agree). hd_element(i)
 * decomposes i into coordinates c0..c(r-1) over that shape, fastest along the first stored
 * result's contiguous dim (so a warp's accesses coalesce whatever the layout), loads each input
 * once with its own strides (a size-1 dim of an input broadcasts: its coordinate is not used),
 * runs the ops in order into float registers, and stores every result the kernel writes.
 * Vectorized form (choose_vec): when every tensor in memory is contiguous or broadcast along
 * that dim, an element is 8 consecutive positions: 16-byte loads into register arrays, the ops
 * in an unrolled lane loop, 16-byte stores.
 * Dequantize y = x * scale[block(i)]: the scale is read at the coordinates divided by the block
 * sizes (a size-1 scale dim broadcasts); the product of an FP8/FP4/INT8 value and an E8M0/E4M3
 * scale is exact in float, so y is rounded once, as in the reference.
 * Dynamic shapes (ir_graph.dynamic_shape, cg_dyn.c): the element count, the outer dims' sizes
 * and every non-unit stride along them are kernel parameters; the fastest dim stays compiled
 * in (so the vector form is unchanged). Outer dims that index alike for every tensor merge
 * into one (B and S of [B, S, H] become one row index); with GEN_INDEX or a dequantize, which
 * need each dim's coordinate, they stay apart.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "codegen/cg_int.h"

#define THREADS 256

void cg_offset_expr(const ir_tensor *t, int r, const int64_t *div, base_sb *sb)
{
    int n = 0;
    for (int d = 0; d < t->rank; d++) {
        int c = r - t->rank + d;
        if (t->dims[d] == 1 || t->strides[d] == 0)
            continue;
        if (div != NULL && div[d] > 1)
            base_sb_printf(sb, "%s(c%d / %lldLL) * %lldLL", n++ ? " + " : "", c, (long long)div[d],
                           (long long)t->strides[d]);
        else
            base_sb_printf(sb, "%sc%d * %lldLL", n++ ? " + " : "", c, (long long)t->strides[d]);
    }
    if (n == 0)
        base_sb_puts(sb, "0");
}

/* Dynamic-shape indexing (cg_dyn.c): the fastest dim f stays compiled in; the outer dims are
 * grouped (cg_dyn_groups) and their sizes and strides are kernel parameters. */
typedef struct pw_dyn {
    cg_dyn dyn;
    const ir_graph *g;
    int r, f;
    char coord[IR_MAX_RANK][16]; /* per outer dim indexing its group: the coordinate's name
                                 * (c<d>, or g<group> for merged groups, so that a dim of
                                 * size 1 dropping out changes nothing), else "" */
} pw_dyn;

/* The element offset of tensor ti at coordinates c0..: cg_offset_expr, or with pd its dynamic
 * form (a group's stride is its innermost dim's). */
static void offset_expr(pw_dyn *pd, const ir_graph *g, int ti, int r, const int64_t *div, base_sb *sb)
{
    const ir_tensor *t = &g->t[ti];
    if (pd == NULL) {
        cg_offset_expr(t, r, div, sb);
        return;
    }
    int n = 0;
    for (int d = 0; d < r; d++) {
        int td = d - (r - t->rank);
        if ((d != pd->f && pd->coord[d][0] == '\0') || cg_broadcast_along(t, r, d))
            continue;
        char f_name[16];
        snprintf(f_name, sizeof f_name, "c%d", d);
        const char *c = d == pd->f ? f_name : pd->coord[d];
        base_sb_printf(sb, "%s", n++ ? " + " : "");
        if (div != NULL && div[td] > 1)
            base_sb_printf(sb, "(%s / %lldLL) * ", c, (long long)div[td]);
        else
            base_sb_printf(sb, "%s * ", c);
        cg_dyn_put(&pd->dyn, sb, true, t->strides[td], "dy_st%d_%s", ti, c);
    }
    if (n == 0)
        base_sb_puts(sb, "0");
}

static bool is_written(const ir_kernel *k, int ti)
{
    for (int i = 0; i < k->n_writes; i++)
        if (k->writes[i] == ti)
            return true;
    return false;
}

static bool is_read(const ir_kernel *k, int ti)
{
    for (int i = 0; i < k->n_reads; i++)
        if (k->reads[i] == ti)
            return true;
    return false;
}

bool cg_is_elementwise(ir_op_kind kind)
{
    return kind == IR_OP_POINTWISE || kind == IR_OP_BN_INFER || kind == IR_OP_BS_DEQUANTIZE;
}

/* Block size of dequantize dim d (ir_ref_quant.c block_of): trailing dims carry the blocks. */
static int64_t dequant_block(const ir_quant *q, int rank, int d)
{
    int j = d - (rank - q->n_block);
    return j >= 0 && q->block[j] > 0 ? q->block[j] : 1;
}

bool cg_check_elementwise_op(const ir_graph *g, const ir_kernel *k, const ir_op *op, char *why,
                             size_t n)
{
    if (!cg_is_elementwise(op->kind)) {
        snprintf(why, n, "%s in an elementwise kernel has no template yet", ir_op_info_of(op->kind)->name);
        return false;
    }
    for (int s = 0; s < op->n_in + op->n_out; s++) {
        int ti = s < op->n_in ? op->in[s] : op->out[s - op->n_in];
        if (ti < 0)
            continue;
        const ir_tensor *t = &g->t[ti];
        if (cg_dtype_load(t->dtype) == NULL || (is_written(k, ti) && cg_dtype(t->dtype) == NULL)) {
            snprintf(why, n, "tensor uid %lld: data type %d has no kernel support %s", (long long)t->uid,
                     (int)t->dtype, cg_dtype_load(t->dtype) ? "as an output (4-bit elements share "
                     "bytes between threads)" : "yet");
            return false;
        }
    }
    if (op->kind == IR_OP_BS_DEQUANTIZE) {
        int s = op->in[1];
        if (op->a.quant.negative_scale) {
            snprintf(why, n, "block_scale_dequantize: negative_scale has no defined meaning yet");
            return false;
        }
        if (!is_read(k, s) && !g->t[s].by_value && !g->t[s].runtime_scalar) {
            snprintf(why, n, "block_scale_dequantize: a scale computed in the same kernel (uid %lld) "
                     "cannot be read per block", (long long)g->t[s].uid);
            return false;
        }
    }
    return true;
}

static bool check_region(const ir_graph *g, const ir_kernel *k, const ir_tensor **shape, char *why,
                         size_t n)
{
    *shape = NULL;
    for (int i = 0; i < k->n_ops; i++) {
        const ir_op *op = &g->ops[k->ops[i]];
        if (!cg_check_elementwise_op(g, k, op, why, n))
            return false;
        const ir_tensor *o = &g->t[op->out[0]];
        if (*shape == NULL)
            *shape = o;
        else if (o->rank != (*shape)->rank || memcmp(o->dims, (*shape)->dims, sizeof o->dims[0] * (size_t)o->rank)) {
            snprintf(why, n, "pointwise results of different shapes in one region");
            return false;
        }
    }
    return *shape != NULL;
}

/* Loads every operand of op that is not yet in a register (a dequantize scale: see below). */
static void load_inputs(pw_dyn *pd, const ir_graph *g, const ir_op *op, int rank, bool *have, base_sb *sb)
{
    for (int s = 0; s < op->n_in; s++) {
        int ti = op->in[s];
        if (ti < 0 || have[ti] || (op->kind == IR_OP_BS_DEQUANTIZE && s == 1))
            continue;
        char buf[64];
        const char *scalar = cg_scalar_expr(g, ti, buf, sizeof buf);
        base_sb_printf(sb, "    float t%d = ", ti);
        if (scalar != NULL) {
            base_sb_printf(sb, "%s;\n", scalar);
        } else {
            base_sb_printf(sb, "hd_ld<%s>(p%d, ", cg_dtype_load(g->t[ti].dtype), ti);
            offset_expr(pd, g, ti, rank, NULL, sb);
            base_sb_puts(sb, ");\n");
        }
        have[ti] = true;
    }
}

/* Stores result ti when the kernel writes it to memory (under `guard` when not NULL); in a
 * vectorized body (`lanes`), into lane j of its register array o<ti>, stored after the loop. */
static void store(pw_dyn *pd, const ir_graph *g, const ir_kernel *k, int ti, int rank, const char *guard,
                  bool lanes, base_sb *sb)
{
    if (!is_written(k, ti))
        return;
    if (lanes) {
        base_sb_printf(sb, "    o%d[j] = t%d;\n", ti, ti);
        return;
    }
    base_sb_printf(sb, "    %s%s%shd_st<%s>(p%d, ", guard ? "if (" : "", guard ? guard : "", guard ? ") " : "",
                   cg_dtype(g->t[ti].dtype), ti);
    offset_expr(pd, g, ti, rank, NULL, sb);
    base_sb_printf(sb, ", t%d);\n", ti);
}

/* y = (x - mean) * inv * scale + bias; the variance form computes inv = rsqrt(var + eps). */
static void emit_bn_inference(const ir_graph *g, const ir_op *op, base_sb *sb)
{
    const int *in = op->in;
    if (op->a.norm.from_variance)
        base_sb_printf(sb, "    float inv%d = hd_rsqrt(t%d + t%d);\n", op->out[0], in[2], in[5]);
    else
        base_sb_printf(sb, "    float inv%d = t%d;\n", op->out[0], in[2]);
    base_sb_printf(sb, "    float t%d = hd_round<%s>((t%d - t%d) * inv%d * t%d + t%d);\n", op->out[0],
                   cg_dtype_load(g->t[op->out[0]].dtype), in[0], in[1], op->out[0], in[3], in[4]);
}

/* y = x * scale[coordinates / block]; the scale is loaded per element (not kept in `have`: the
 * same tensor read elementwise would be another value). */
static void emit_dequantize(pw_dyn *pd, const ir_graph *g, const ir_op *op, int rank, base_sb *sb)
{
    int x = op->in[0], s = op->in[1], y = op->out[0];
    const ir_tensor *st = &g->t[s];
    char buf[64];
    const char *scalar = cg_scalar_expr(g, s, buf, sizeof buf);
    base_sb_printf(sb, "    float q%d = ", y);
    if (scalar != NULL) {
        base_sb_printf(sb, "%s;\n", scalar);
    } else {
        int64_t div[IR_MAX_RANK];
        for (int d = 0; d < st->rank; d++)
            div[d] = dequant_block(&op->a.quant, st->rank, d);
        base_sb_printf(sb, "hd_ld<%s>(p%d, ", cg_dtype_load(st->dtype), s);
        offset_expr(pd, g, s, rank, div, sb);
        base_sb_puts(sb, ");\n");
    }
    base_sb_printf(sb, "    float t%d = hd_round<%s>(t%d * q%d);\n", y, cg_dtype_load(g->t[y].dtype), x, y);
}

/* The ops of k, element by element; `lanes`: inside the vectorized kernel's lane loop. */
static void elementwise_body(pw_dyn *pd, const ir_graph *g, const ir_kernel *k, int rank, bool *have,
                             const char *guard, bool lanes, base_sb *sb)
{
    for (int i = 0; i < k->n_ops; i++) {
        const ir_op *op = &g->ops[k->ops[i]];
        if (!cg_is_elementwise(op->kind))
            continue;
        load_inputs(pd, g, op, rank, have, sb);
        if (op->kind == IR_OP_BN_INFER) {
            emit_bn_inference(g, op, sb);
        } else if (op->kind == IR_OP_BS_DEQUANTIZE) {
            emit_dequantize(pd, g, op, rank, sb);
        } else {
            char a[16], b[16], c[16], out[16], idx[16];
            snprintf(a, sizeof a, "t%d", op->in[0]);
            snprintf(b, sizeof b, "t%d", op->in[1]);
            snprintf(c, sizeof c, "t%d", op->in[2]);
            snprintf(out, sizeof out, "float t%d", op->out[0]);
            int64_t axis = op->a.pw.axis < 0 ? op->a.pw.axis + rank : op->a.pw.axis;
            snprintf(idx, sizeof idx, "c%lld", (long long)(axis >= 0 && axis < rank ? axis : 0));
            base_sb_puts(sb, "    ");
            cg_pointwise_stmt(sb, op, out, a, op->in[1] >= 0 ? b : NULL, op->in[2] >= 0 ? c : NULL, idx);
            base_sb_printf(sb, "    t%d = hd_round<%s>(t%d);\n", op->out[0],
                           cg_dtype_load(g->t[op->out[0]].dtype), op->out[0]);
        }
        have[op->out[0]] = true;
        store(pd, g, k, op->out[0], rank, guard, lanes, sb);
    }
}

void cg_elementwise(const ir_graph *g, const ir_kernel *k, int rank, bool *have, const char *guard,
                    base_sb *sb)
{
    elementwise_body(NULL, g, k, rank, have, guard, false, sb);
}

/* The iteration order: dims of the region's first stored result from the largest stride to
 * the smallest, so consecutive threads walk its contiguous dim (an NHWC tensor iterates C
 * fastest); order[rank - 1] is the fastest dim. Size-1 dims keep their logical place. */
static void iteration_order(const ir_graph *g, const ir_kernel *k, const ir_tensor *shape, int *order)
{
    const ir_tensor *primary = k->n_writes > 0 ? &g->t[k->writes[0]] : shape;
    int r = shape->rank;
    for (int d = 0; d < r; d++)
        order[d] = d;
    if (primary->rank != r)
        return;
    for (int a = 1; a < r; a++) /* stable insertion sort, stride descending */
        for (int b = a; b > 0; b--) {
            int x = order[b - 1], y = order[b];
            int64_t sx = shape->dims[x] == 1 ? INT64_MAX : primary->strides[x];
            int64_t sy = shape->dims[y] == 1 ? INT64_MAX : primary->strides[y];
            if (sx >= sy)
                break;
            order[b - 1] = y, order[b] = x;
        }
}

void cg_coords(const ir_tensor *shape, const int *order, int vec, const char *index, base_sb *sb)
{
    for (int j = shape->rank - 1; j >= 0; j--) {
        int d = order != NULL ? order[j] : j;
        int64_t n = shape->dims[d] / (j == shape->rank - 1 ? vec : 1);
        base_sb_printf(sb, "    hd_i64 c%d = %s %% %lldLL; %s /= %lldLL;\n", d, index, (long long)n, index,
                       (long long)n);
    }
    if (vec > 1)
        base_sb_printf(sb, "    c%d *= %d;\n", order != NULL ? order[shape->rank - 1] : shape->rank - 1, vec);
}

/* 8 when every tensor the kernel reads or writes in memory is contiguous along the fastest dim
 * f (or broadcast along it), keeps 8-element alignment on its other dims and has a vector type,
 * f's extent is a multiple of 8, and no op needs per-element coordinates along f (GEN_INDEX,
 * dequantize blocks); else 1. */
static int choose_vec(const ir_graph *g, const ir_kernel *k, const ir_tensor *shape, int f, int max_vec)
{
    if ((max_vec > 0 && max_vec < 8) || shape->dims[f] % 8 != 0)
        return 1;
    for (int i = 0; i < k->n_ops; i++) {
        const ir_op *op = &g->ops[k->ops[i]];
        if (op->kind == IR_OP_BS_DEQUANTIZE || (op->kind == IR_OP_POINTWISE && op->a.pw.mode == HIPDNN_POINTWISE_GEN_INDEX))
            return 1;
    }
    for (int a = 0; a < k->n_reads + k->n_writes; a++) {
        int ti = a < k->n_reads ? k->reads[a] : k->writes[a - k->n_reads];
        const ir_tensor *t = &g->t[ti];
        char buf[64];
        if (cg_scalar_expr(g, ti, buf, sizeof buf) != NULL)
            continue;
        if (cg_dtype(t->dtype) == NULL || t->rank > shape->rank)
            return 1;
        for (int d = 0; d < t->rank; d++) {
            int c = shape->rank - t->rank + d; /* the iteration dim this tensor dim follows */
            if (t->dims[d] == 1 || t->strides[d] == 0)
                continue;
            if (c == f ? t->strides[d] != 1 : t->strides[d] % 8 != 0)
                return 1;
        }
    }
    return 8;
}

/* Whether tensor t (of an iteration shape of rank `rank`) varies along iteration dim f. */
static bool varies_along(const ir_tensor *t, int rank, int f)
{
    int d = f - (rank - t->rank);
    return d >= 0 && t->dims[d] != 1 && t->strides[d] != 0;
}

/* Vectorized prologue: each input in memory contiguous along f as an 8-wide register array v<ti>
 * (16-byte loads), broadcast ones as one value; each stored result gets an array o<ti>. */
static void vector_loads(pw_dyn *pd, const ir_graph *g, const ir_kernel *k, int rank, int f, base_sb *sb)
{
    for (int a = 0; a < k->n_reads; a++) {
        int ti = k->reads[a];
        const ir_tensor *t = &g->t[ti];
        char buf[64];
        if (cg_scalar_expr(g, ti, buf, sizeof buf) != NULL)
            continue;
        bool along = varies_along(t, rank, f);
        base_sb_printf(sb, "    float v%d[%d];\n    hd_ldv<%s, %d>(p%d, ", ti, along ? 8 : 1,
                       cg_dtype(t->dtype), along ? 8 : 1, ti);
        offset_expr(pd, g, ti, rank, NULL, sb);
        base_sb_printf(sb, ", v%d);\n", ti);
    }
    for (int a = 0; a < k->n_writes; a++)
        base_sb_printf(sb, "    float o%d[8];\n", k->writes[a]);
}

/* Inside the lane loop: the inputs' lane values, marked as loaded. */
static void lane_inputs(const ir_graph *g, const ir_kernel *k, int rank, int f, bool *have, base_sb *sb)
{
    for (int a = 0; a < k->n_reads; a++) {
        int ti = k->reads[a];
        const ir_tensor *t = &g->t[ti];
        char buf[64];
        if (cg_scalar_expr(g, ti, buf, sizeof buf) != NULL)
            continue;
        base_sb_printf(sb, "    float t%d = v%d[%s];\n", ti, ti, varies_along(t, rank, f) ? "j" : "0");
        have[ti] = true;
    }
}

/* Whether the outer dims may merge: no op needs a single dim's coordinate (GEN_INDEX's axis,
 * a dequantize block). */
static bool coords_free(const ir_graph *g, const ir_kernel *k)
{
    for (int i = 0; i < k->n_ops; i++) {
        const ir_op *op = &g->ops[k->ops[i]];
        if (op->kind == IR_OP_BS_DEQUANTIZE || (op->kind == IR_OP_POINTWISE && op->a.pw.mode == HIPDNN_POINTWISE_GEN_INDEX))
            return false;
    }
    return true;
}

/* Dynamic form of cg_coords: f compiled in, the outer groups' sizes parameters; the slowest
 * group takes what is left of i (the element count bounds it). Marks the coordinates used. */
static void dyn_coords(pw_dyn *pd, const ir_kernel *k, const ir_tensor *shape, const int *order, int vec,
                       base_sb *sb)
{
    const ir_tensor *ts[CG_MAX_ARGS];
    int nt = 0, r = pd->r, f = pd->f, group[IR_MAX_RANK];
    for (int a = 0; a < k->n_reads + k->n_writes && nt < CG_MAX_ARGS; a++) {
        int ti = a < k->n_reads ? k->reads[a] : k->writes[a - k->n_reads];
        if (!pd->g->t[ti].by_value && !pd->g->t[ti].runtime_scalar)
            ts[nt++] = &pd->g->t[ti];
    }
    bool merge = coords_free(pd->g, k);
    int n = cg_dyn_groups(ts, nt, r, shape->dims, order, r - 1, merge, group);
    int64_t fn = shape->dims[f] / vec;
    base_sb_printf(sb, "    hd_i64 c%d = i %% %lldLL; i /= %lldLL;\n", f, (long long)fn, (long long)fn);
    for (int j = 0; j < r - 1 && !merge; j++)
        if (group[j] < 0)
            base_sb_printf(sb, "    hd_i64 c%d = 0;\n", order[j]);
    for (int gi = n - 1; gi >= 0; gi--) { /* fastest group first */
        int d = -1; /* its innermost dim: the coordinate goes with its stride */
        int64_t size = 1;
        for (int j = 0; j < r - 1; j++)
            if (group[j] == gi)
                d = order[j], size *= shape->dims[order[j]];
        char *c = pd->coord[d];
        snprintf(c, sizeof pd->coord[d], merge ? "g%d" : "c%d", merge ? gi : d);
        if (gi == 0) {
            base_sb_printf(sb, "    hd_i64 %s = i;\n", c);
            continue;
        }
        base_sb_printf(sb, "    hd_i64 %s = i %% ", c);
        cg_dyn_put(&pd->dyn, sb, false, size, "dy_sz_%s", c);
        base_sb_puts(sb, "; i /= ");
        cg_dyn_put(&pd->dyn, sb, false, size, "dy_sz_%s", c);
        base_sb_puts(sb, ";\n");
    }
    if (vec > 1)
        base_sb_printf(sb, "    c%d *= %d;\n", f, vec);
}

hipdnnStatus_t cg_emit_pointwise(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                                 cg_kernel *out, char *why, size_t why_len)
{
    const ir_tensor *shape;
    if (!check_region(g, k, &shape, why, why_len))
        return HIPDNN_STATUS_NOT_SUPPORTED;
    int r = shape->rank, order[IR_MAX_RANK] = {0};
    iteration_order(g, k, shape, order);
    int f = order[r - 1], vec = choose_vec(g, k, shape, f, t->max_vec);
    int64_t numel = 1;
    for (int d = 0; d < r; d++)
        numel *= shape->dims[d];
    numel /= vec;
    base_sb defs = {0}, hooks = {0};
    pw_dyn dyn = {.g = g, .r = r, .f = f}, *pd = g->dynamic_shape ? &dyn : NULL;
    hipdnnStatus_t st = pd != NULL ? cg_add_params(g, k, out) : cg_collect_params(g, k, out, &defs);
    bool *have = base_calloc((size_t)g->n_t + 1, sizeof *have);
    if (st == HIPDNN_STATUS_SUCCESS && have == NULL)
        st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "codegen: out of memory");
    if (st == HIPDNN_STATUS_SUCCESS) {
        if (pd != NULL) {
            base_sb_printf(&defs, "#define HD_THREADS %d\n#define HD_NUMEL ", THREADS);
            cg_dyn_put(&dyn.dyn, &defs, false, numel, "dy_numel");
            base_sb_puts(&defs, "\n");
        } else {
            base_sb_printf(&defs, "#define HD_THREADS %d\n#define HD_NUMEL %lldLL\n", THREADS, (long long)numel);
        }
        base_sb_puts(&hooks, "HD_DEVICE void hd_element(hd_i64 i, HD_PARAMS)\n{\n");
        if (pd != NULL)
            dyn_coords(pd, k, shape, order, vec, &hooks);
        else
            cg_coords(shape, order, vec, "i", &hooks);
        if (vec == 1) {
            elementwise_body(pd, g, k, r, have, NULL, false, &hooks);
        } else {
            vector_loads(pd, g, k, r, f, &hooks);
            base_sb_printf(&hooks, "#pragma unroll\n    for (int j = 0; j < %d; j++) {\n", vec);
            lane_inputs(g, k, r, f, have, &hooks);
            elementwise_body(pd, g, k, r, have, NULL, true, &hooks);
            base_sb_puts(&hooks, "    }\n");
            for (int a = 0; a < k->n_writes; a++) {
                const ir_tensor *w = &g->t[k->writes[a]];
                base_sb_printf(&hooks, "    hd_stv<%s, %d>(p%d, ", cg_dtype(w->dtype), vec, k->writes[a]);
                offset_expr(pd, g, k->writes[a], r, NULL, &hooks);
                base_sb_printf(&hooks, ", o%d);\n", k->writes[a]);
            }
        }
        base_sb_puts(&hooks, "}\n");
        if (pd != NULL)
            st = cg_dyn_finish(&dyn.dyn, out, &defs);
        if (st == HIPDNN_STATUS_SUCCESS)
            st = cg_assemble(t, "pointwise.hip", &defs, &hooks, out);
    }
    int64_t blocks = (numel + THREADS - 1) / THREADS, cap = (int64_t)(t->sm_count > 0 ? t->sm_count : 132) * 16;
    out->entry = "hd_pointwise_kernel";
    out->grid[0] = (unsigned)(blocks < cap ? blocks : cap), out->grid[1] = out->grid[2] = 1;
    out->block[0] = THREADS, out->block[1] = out->block[2] = 1;
    out->align = vec == 8 ? 16 : 1;
    base_free(have);
    base_sb_free(&defs);
    base_sb_free(&hooks);
    return st;
}
