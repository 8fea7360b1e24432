/* cg_quant.c — emits block-scale quantize kernels with kernel_templates/blockquant.hip: a
 * BS_QUANTIZE anchor with its elementwise prologue, or an elementwise anchor (batchnorm
 * inference) whose epilogue ends in a quantize tail. (A quantize at the end of a norm is the
 * row kernel's job: cg_rownorm.c.)
 *
 * Blocks are HD_BLOCK consecutive elements of x along `axis`; blk numbers them in row-major
 * order over the scale's dims (x's dims with dims[axis] / block). The hooks decompose blk into
 * coordinates c0..c(r-1) of element j (c_axis = block index * BLOCK + j) and address x, y,
 * the prologue's operands (cg_elementwise) and the scale with their own strides.
 * What the template can emit (anything else is NOT_SUPPORTED with a reason):
 *   y     FP8_E4M3, FP8_E5M2, INT8, or FP4_E2M1 with an even block, unit stride along the axis
 *         and even strides elsewhere (two elements per byte, written by one thread)
 *   scale FP8_E8M0 or FP8_E4M3
 *   x     a dim along the axis that the block divides (the frontend requires it too; the
 *         reference also defines a short last block); any loadable type, any strides
 *   prologue  pointwise / dequantize / batchnorm-inference ops whose results have x's dims
 * Fast path (HD_QVEC 8): when blocks hold a multiple of 8 elements (at most HOLD_MAX), the
 * prologue is pointwise only, every tensor in memory that varies along the axis has unit stride
 * there and 8-element multiples elsewhere, and the jit.vector_width knob allows it, a thread
 * reads 8 elements per access (16 bytes for bf16) and writes 8 codes per store; pointers must
 * then be 16-byte aligned.
 */
#include <stdio.h>
#include <string.h>

#include "codegen/cg_int.h"

#define THREADS 256
#define HOLD_MAX 64 /* blocks up to this many elements stay in registers */
#define QVEC 8      /* elements per access on the fast path */

typedef struct quant {
    const ir_graph *g;
    const ir_kernel *k;
    const ir_op *op;
    int x, y, s;      /* tensor indices */
    int rank, axis;
    int64_t block, blocks;
    bool vec;         /* the 8-wide fast path */
} quant;

static bool fail(char *why, size_t n, const char *msg)
{
    snprintf(why, n, "%s", msg);
    return false;
}

static bool written(const ir_kernel *k, int ti)
{
    for (int i = 0; i < k->n_writes; i++)
        if (k->writes[i] == ti)
            return true;
    return false;
}

double cg_quant_max(hipdnnDataType_t t)
{
    switch (t) {
    case HIPDNN_DATA_FP8_E4M3: return 448.0;
    case HIPDNN_DATA_FP8_E5M2: return 57344.0;
    case HIPDNN_DATA_INT8: return 127.0;
    case HIPDNN_DATA_FP4_E2M1: return 6.0;
    case HIPDNN_DATA_FLOAT: case HIPDNN_DATA_DOUBLE: case HIPDNN_DATA_HALF: case HIPDNN_DATA_INT32:
    case HIPDNN_DATA_UINT8: case HIPDNN_DATA_BFLOAT16: case HIPDNN_DATA_FP8_E8M0:
    case HIPDNN_DATA_INT4: case HIPDNN_DATA_FP6_E2M3_EXT: case HIPDNN_DATA_FP6_E3M2_EXT:
    case HIPDNN_DATA_INT64: case HIPDNN_DATA_BOOLEAN: case HIPDNN_DATA_FP8_E4M3_FNUZ:
    case HIPDNN_DATA_FP8_E5M2_FNUZ: return 0.0;
    }
    return 0.0; /* a value outside the enum */
}

bool cg_check_quant_types(const ir_graph *g, const ir_op *op, char *why, size_t n)
{
    hipdnnDataType_t yt = g->t[op->out[0]].dtype, st = g->t[op->out[1]].dtype;
    if (cg_quant_max(yt) == 0.0 || (st != HIPDNN_DATA_FP8_E8M0 && st != HIPDNN_DATA_FP8_E4M3)) {
        snprintf(why, n, "block_scale_quantize to type %d with scale type %d has no kernel (elements "
                 "FP8_E4M3, FP8_E5M2, INT8, FP4_E2M1; scales FP8_E8M0, FP8_E4M3)", (int)yt, (int)st);
        return false;
    }
    if (cg_dtype_load(g->t[op->in[0]].dtype) == NULL) {
        snprintf(why, n, "block_scale_quantize input uid %lld: data type %d has no kernel support yet",
                 (long long)g->t[op->in[0]].uid, (int)g->t[op->in[0]].dtype);
        return false;
    }
    return true;
}

/* x's dims, y = x's, scale = x's with the axis divided; the block divides the axis. */
static bool check_shapes(quant *q, char *why, size_t n)
{
    const ir_tensor *x = &q->g->t[q->x], *y = &q->g->t[q->y], *s = &q->g->t[q->s];
    int64_t axis = q->op->a.quant.axis < 0 ? q->op->a.quant.axis + x->rank : q->op->a.quant.axis;
    q->rank = x->rank, q->axis = (int)axis;
    q->block = q->op->a.quant.n_block > 0 ? q->op->a.quant.block[0] : 0;
    if (axis < 0 || axis >= x->rank || q->block < 1 || y->rank != x->rank || s->rank != x->rank)
        return fail(why, n, "block_scale_quantize: axis, block size or ranks the kernel cannot use");
    if (x->dims[axis] % q->block != 0)
        return fail(why, n, "block_scale_quantize: a short last block (x's axis not a multiple of the "
                    "block) has no kernel");
    q->blocks = 1;
    for (int d = 0; d < x->rank; d++) {
        int64_t want = d == axis ? x->dims[d] / q->block : x->dims[d];
        if (y->dims[d] != x->dims[d] || s->dims[d] != want)
            return fail(why, n, "block_scale_quantize: y or scale dims do not match x");
        q->blocks *= want;
    }
    if (y->dtype != HIPDNN_DATA_FP4_E2M1)
        return true;
    bool ok = q->block % 2 == 0 && (y->dims[axis] == 1 || y->strides[axis] == 1);
    for (int d = 0; ok && d < y->rank; d++)
        ok = d == axis || y->dims[d] == 1 || y->strides[d] % 2 == 0;
    return ok || fail(why, n, "block_scale_quantize to FP4 needs an even block, unit stride along the "
                      "axis and even strides elsewhere (two elements share a byte)");
}

/* The quantize is the kernel's last op; every other op is elementwise with x's dims. */
static bool check(quant *q, char *why, size_t n)
{
    const ir_kernel *k = q->k;
    const ir_op *last = &q->g->ops[k->ops[k->n_ops - 1]];
    if (last->kind != IR_OP_BS_QUANTIZE)
        return fail(why, n, "a block-scale quantize kernel must end with the quantize");
    q->op = last, q->x = last->in[0], q->y = last->out[0], q->s = last->out[1];
    if (!cg_check_quant_types(q->g, last, why, n) || !check_shapes(q, why, n))
        return false;
    const ir_tensor *x = &q->g->t[q->x];
    for (int i = 0; i + 1 < k->n_ops; i++) {
        const ir_op *op = &q->g->ops[k->ops[i]];
        if (!cg_check_elementwise_op(q->g, k, op, why, n))
            return false;
        const ir_tensor *o = &q->g->t[op->out[0]];
        if (o->rank != x->rank || memcmp(o->dims, x->dims, sizeof o->dims[0] * (size_t)o->rank) != 0)
            return fail(why, n, "an op before a block quantize whose result does not have x's dims");
    }
    return true;
}

/* ---- hooks ----------------------------------------------------------------------------------------- */

/* Declares c0..c(r-1): element j of block blk. */
static void block_coords(const quant *q, base_sb *sb)
{
    const ir_tensor *x = &q->g->t[q->x];
    base_sb_puts(sb, "    hd_i64 b_ = blk;\n");
    for (int d = q->rank - 1; d >= 0; d--) {
        int64_t nd = d == q->axis ? x->dims[d] / q->block : x->dims[d];
        if (d == q->axis)
            base_sb_printf(sb, "    hd_i64 c%d = b_ %% %lldLL * %lldLL + j; b_ /= %lldLL;\n", d, (long long)nd,
                           (long long)q->block, (long long)nd);
        else
            base_sb_printf(sb, "    hd_i64 c%d = b_ %% %lldLL; b_ /= %lldLL;\n", d, (long long)nd, (long long)nd);
    }
    base_sb_puts(sb, "    (void)b_;\n");
}

static void emit_qx(const quant *q, bool *have, base_sb *sb)
{
    base_sb_puts(sb, "HD_DEVICE float hd_qx(hd_i64 blk, int j, bool first, HD_PARAMS)\n{\n    (void)first;\n");
    block_coords(q, sb);
    cg_elementwise(q->g, q->k, q->rank, have, "first", sb);
    if (!have[q->x]) {
        char buf[64];
        const char *scalar = cg_scalar_expr(q->g, q->x, buf, sizeof buf);
        base_sb_printf(sb, "    float t%d = ", q->x);
        if (scalar != NULL) {
            base_sb_printf(sb, "%s;\n", scalar);
        } else {
            base_sb_printf(sb, "hd_ld<%s>(p%d, ", cg_dtype_load(q->g->t[q->x].dtype), q->x);
            cg_offset_expr(&q->g->t[q->x], q->rank, NULL, sb);
            base_sb_puts(sb, ");\n");
        }
    }
    base_sb_printf(sb, "    return t%d;\n}\n", q->x);
}

static void emit_stores(const quant *q, base_sb *sb)
{
    const ir_tensor *y = &q->g->t[q->y], *s = &q->g->t[q->s];
    int64_t div[IR_MAX_RANK];
    for (int d = 0; d < q->rank; d++)
        div[d] = d == q->axis ? q->block : 1;
    base_sb_puts(sb, "HD_DEVICE void hd_store_scale(hd_i64 blk, hd_u8 code, HD_PARAMS)\n{\n");
    if (written(q->k, q->s)) {
        base_sb_puts(sb, "    const int j = 0;\n");
        block_coords(q, sb);
        base_sb_printf(sb, "    ((hd_u8 *)p%d)[", q->s);
        cg_offset_expr(s, q->rank, div, sb);
        base_sb_puts(sb, "] = code;\n");
    }
    base_sb_puts(sb, "}\n");
    base_sb_puts(sb, "HD_DEVICE void hd_store_q(hd_i64 blk, int j, float q, HD_PARAMS)\n{\n");
    if (written(q->k, q->y) && y->dtype != HIPDNN_DATA_FP4_E2M1) {
        block_coords(q, sb);
        base_sb_printf(sb, "    hd_st<%s>(p%d, ", cg_dtype(y->dtype), q->y);
        cg_offset_expr(y, q->rank, NULL, sb);
        base_sb_puts(sb, ", q);\n");
    }
    base_sb_puts(sb, "}\n");
    base_sb_puts(sb, "HD_DEVICE void hd_store_fp4x2(hd_i64 blk, int j, hd_u8 b, HD_PARAMS)\n{\n");
    if (written(q->k, q->y) && y->dtype == HIPDNN_DATA_FP4_E2M1) {
        block_coords(q, sb);
        base_sb_printf(sb, "    ((hd_u8 *)p%d)[(", q->y);
        cg_offset_expr(y, q->rank, NULL, sb);
        base_sb_puts(sb, ") >> 1] = b;\n");
    }
    base_sb_puts(sb, "}\n");
}

/* ---- the 8-wide fast path ---------------------------------------------------------------------------- */

/* Whether t varies along the quantized axis (its dim there, right-aligned, is not 1). */
static bool along_axis(const quant *q, const ir_tensor *t)
{
    int d = q->axis - (q->rank - t->rank);
    return d >= 0 && t->dims[d] != 1;
}

/* Unit stride along the axis, 8-element multiples elsewhere (or it does not vary there). */
static bool vec_layout(const quant *q, const ir_tensor *t)
{
    if (t->by_value || t->runtime_scalar || !along_axis(q, t))
        return true;
    for (int d = 0; d < t->rank; d++) {
        bool axis = d == q->axis - (q->rank - t->rank);
        if (t->dims[d] != 1 && (axis ? t->strides[d] != 1 : t->strides[d] % QVEC != 0))
            return false;
    }
    return true;
}

static bool vec_ok(const quant *q, const cg_target *t)
{
    if ((t->max_vec > 0 && t->max_vec < QVEC) || q->block % QVEC != 0 || q->block > HOLD_MAX)
        return false;
    for (int i = 0; i < q->k->n_ops; i++) {
        const ir_op *op = &q->g->ops[q->k->ops[i]];
        if (op != q->op && op->kind != IR_OP_POINTWISE)
            return false;
    }
    for (int i = 0; i < q->k->n_reads; i++)
        if (!vec_layout(q, &q->g->t[q->k->reads[i]]))
            return false;
    for (int i = 0; i < q->k->n_writes; i++)
        if (q->k->writes[i] != q->s && !vec_layout(q, &q->g->t[q->k->writes[i]]))
            return false;
    return true;
}

/* Declares float t<ti>[HD_QVEC]: tensor ti at elements j .. j + 8 of the block. */
static void vec_load(const quant *q, int ti, bool *have, base_sb *sb)
{
    if (ti < 0 || have[ti])
        return;
    have[ti] = true;
    const ir_tensor *t = &q->g->t[ti];
    char buf[64];
    const char *scalar = cg_scalar_expr(q->g, ti, buf, sizeof buf);
    base_sb_printf(sb, "    float t%d[HD_QVEC];\n", ti);
    if (scalar != NULL || !along_axis(q, t)) { /* one value for the 8 */
        base_sb_puts(sb, "    {\n        float b_ = ");
        if (scalar != NULL) {
            base_sb_puts(sb, scalar);
        } else {
            base_sb_printf(sb, "hd_ld<%s>(p%d, ", cg_dtype_load(t->dtype), ti);
            cg_offset_expr(t, q->rank, NULL, sb);
            base_sb_puts(sb, ")");
        }
        base_sb_printf(sb, ";\n        for (int k = 0; k < HD_QVEC; k++) t%d[k] = b_;\n    }\n", ti);
        return;
    }
    base_sb_printf(sb, "    hd_ldv<%s, HD_QVEC>(p%d, ", cg_dtype_load(t->dtype), ti);
    cg_offset_expr(t, q->rank, NULL, sb);
    base_sb_printf(sb, ", t%d);\n", ti);
}

static void emit_qx_vec(const quant *q, bool *have, base_sb *sb)
{
    base_sb_puts(sb, "HD_DEVICE void hd_qx_vec(hd_i64 blk, int j, float *v, HD_PARAMS)\n{\n");
    block_coords(q, sb);
    for (int i = 0; i < q->k->n_ops; i++) {
        const ir_op *op = &q->g->ops[q->k->ops[i]];
        if (op == q->op)
            continue;
        for (int s = 0; s < op->n_in; s++)
            vec_load(q, op->in[s], have, sb);
        char a[24], b[24], c[24], out[24], idx[32];
        snprintf(a, sizeof a, "t%d[k]", op->in[0]);
        snprintf(b, sizeof b, "t%d[k]", op->in[1]);
        snprintf(c, sizeof c, "t%d[k]", op->in[2]);
        snprintf(out, sizeof out, "t%d[k]", op->out[0]);
        int64_t axis = op->a.pw.axis < 0 ? op->a.pw.axis + q->rank : op->a.pw.axis;
        axis = axis >= 0 && axis < q->rank ? axis : 0;
        snprintf(idx, sizeof idx, axis == q->axis ? "(c%d + k)" : "c%d", (int)axis);
        base_sb_printf(sb, "    float t%d[HD_QVEC];\n    for (int k = 0; k < HD_QVEC; k++) ", op->out[0]);
        cg_pointwise_stmt(sb, op, out, a, op->in[1] >= 0 ? b : NULL, op->in[2] >= 0 ? c : NULL, idx);
        base_sb_printf(sb, "    for (int k = 0; k < HD_QVEC; k++) t%d[k] = hd_round<%s>(t%d[k]);\n", op->out[0],
                       cg_dtype_load(q->g->t[op->out[0]].dtype), op->out[0]);
        have[op->out[0]] = true;
        if (written(q->k, op->out[0])) {
            base_sb_printf(sb, "    hd_stv<%s, HD_QVEC>(p%d, ", cg_dtype(q->g->t[op->out[0]].dtype), op->out[0]);
            cg_offset_expr(&q->g->t[op->out[0]], q->rank, NULL, sb);
            base_sb_printf(sb, ", t%d);\n", op->out[0]);
        }
    }
    vec_load(q, q->x, have, sb);
    base_sb_printf(sb, "    for (int k = 0; k < HD_QVEC; k++) v[k] = t%d[k];\n}\n", q->x);
}

/* 8 codes in one store: 8 bytes (hd_store_qvec), or 4 for FP4 (hd_store_fp4x8); offsets are
 * multiples of 8 elements. The hook the element type does not use stays empty. */
static void emit_store_qvec(const quant *q, base_sb *sb)
{
    const ir_tensor *y = &q->g->t[q->y];
    bool fp4 = y->dtype == HIPDNN_DATA_FP4_E2M1, w = written(q->k, q->y);
    base_sb_puts(sb, "HD_DEVICE void hd_store_qvec(hd_i64 blk, int j, const float *q, HD_PARAMS)\n{\n");
    if (w && !fp4) {
        block_coords(q, sb);
        base_sb_puts(sb, "    hd_i64 o = ");
        cg_offset_expr(y, q->rank, NULL, sb);
        base_sb_printf(sb, ";\n    hd_vec8 w;\n    for (int k = 0; k < HD_QVEC; k++)\n"
                       "        hd_st<%s>(&w, k, q[k]);\n    *(hd_vec8 *)((hd_u8 *)p%d + o) = w;\n",
                       cg_dtype(y->dtype), q->y);
    }
    base_sb_puts(sb, "}\nHD_DEVICE void hd_store_fp4x8(hd_i64 blk, int j, hd_u32 w, HD_PARAMS)\n{\n");
    if (w && fp4) {
        block_coords(q, sb);
        base_sb_puts(sb, "    hd_i64 o = ");
        cg_offset_expr(y, q->rank, NULL, sb);
        base_sb_printf(sb, ";\n    *(hd_u32 *)((hd_u8 *)p%d + (o >> 1)) = w;\n", q->y);
    }
    base_sb_puts(sb, "}\n");
}

hipdnnStatus_t cg_emit_quantize(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                                cg_kernel *out, char *why, size_t why_len)
{
    quant q = {.g = g, .k = k};
    if (k->n_ops < 1 || !check(&q, why, why_len))
        return HIPDNN_STATUS_NOT_SUPPORTED;
    const ir_tensor *y = &g->t[q.y];
    base_sb defs = {0}, hooks = {0};
    hipdnnStatus_t st = cg_collect_params(g, k, out, &defs);
    bool *have = base_calloc((size_t)g->n_t + 1, sizeof *have);
    if (st == HIPDNN_STATUS_SUCCESS && have == NULL)
        st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "codegen: out of memory");
    if (st == HIPDNN_STATUS_SUCCESS) {
        bool fp4 = y->dtype == HIPDNN_DATA_FP4_E2M1;
        q.vec = vec_ok(&q, t);
        base_sb_printf(&defs, "#define HD_THREADS %d\n#define HD_BLOCKS %lldLL\n#define HD_BLOCK %lld\n"
                       "#define HD_HOLD %d\n#define HD_QVEC %d\n#define HD_Y_DT %s\n#define HD_Y_FP4 %d\n"
                       "#define HD_SCALE_DT %s\n#define HD_QMAX %.1f\n", THREADS, (long long)q.blocks,
                       (long long)q.block, q.block <= HOLD_MAX, q.vec ? QVEC : 1,
                       fp4 ? "HD_DT_FP4_E2M1" : cg_dtype(y->dtype), fp4, cg_dtype(g->t[q.s].dtype),
                       cg_quant_max(y->dtype));
        emit_qx(&q, have, &hooks);
        emit_stores(&q, &hooks);
        memset(have, 0, (size_t)g->n_t * sizeof *have);
        if (q.vec)
            emit_qx_vec(&q, have, &hooks), emit_store_qvec(&q, &hooks);
        else
            base_sb_puts(&hooks, "HD_DEVICE void hd_qx_vec(hd_i64 blk, int j, float *v, HD_PARAMS) {}\n"
                         "HD_DEVICE void hd_store_qvec(hd_i64 blk, int j, const float *q, HD_PARAMS) {}\n"
                         "HD_DEVICE void hd_store_fp4x8(hd_i64 blk, int j, hd_u32 w, HD_PARAMS) {}\n");
        st = cg_assemble(t, "blockquant.hip", &defs, &hooks, out);
    }
    int64_t blocks = (q.blocks + THREADS - 1) / THREADS, cap = (int64_t)(t->sm_count > 0 ? t->sm_count : 132) * 16;
    out->entry = "hd_blockquant_kernel";
    out->grid[0] = (unsigned)(blocks < cap ? (blocks > 0 ? blocks : 1) : cap), out->grid[1] = out->grid[2] = 1;
    out->block[0] = THREADS, out->block[1] = out->block[2] = 1;
    out->align = q.vec ? 16 : 1;
    base_free(have);
    base_sb_free(&defs);
    base_sb_free(&hooks);
    return st;
}
