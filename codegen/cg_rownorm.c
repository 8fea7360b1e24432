/* cg_rownorm.c — emits layernorm / rmsnorm kernels (with their pointwise prologue and
 * epilogue, and a block-scale quantize ending the epilogue) with kernel_templates/rownorm.hip.
 *
 * x [lead..., norm...] is seen as ROWS x COLS: the trailing `normalized_dims` dims are one row,
 * which must be packed (unit stride, row-major). Every other tensor the kernel touches is one of
 *   ROW_COL  x's dims, packed the same way          -> offset rowoff(row) + col (vector access)
 *   COL      1 on every row dim, packed            -> offset col           (scale, bias, ...)
 *   ROW      1 on every normalized dim             -> offset rowoff(row)   (saved statistics)
 *   SCALAR   all dims 1                            -> offset 0 (or a constant / a parameter)
 * Anything else is NOT_SUPPORTED. rowoff() is generated per tensor from its row-dim strides.
 * Quantize tail: blocks along the last dim of a ROW_COL value; its element output (any strides;
 * FP4 packed with even row strides) and its scale (x's dims with the last one divided by the
 * block, any strides) are addressed per element from (row, col). The block must be a power of
 * two that at most 32 lanes' vectors cover (MX 32 and NVFP4 16 always are); otherwise
 * NOT_SUPPORTED.
 * Dynamic shapes (ir_graph.dynamic_shape, cg_dyn.c): HD_ROWS and the row dims' sizes and
 * strides are kernel parameters (rows of [B, S, H] that every tensor lays out alike are one
 * index r: rowoff(r) = r * stride); COLS, the normalized dims and their strides stay compiled in.
 */
#include <stdio.h>
#include <string.h>

#include "codegen/cg_int.h"

typedef enum access { A_ROW_COL, A_COL, A_ROW, A_SCALAR, A_BAD } access;

typedef struct norm {
    const ir_graph *g;
    const ir_kernel *k;
    const ir_op *op;
    int rank, lead;        /* x's rank; dims [0, lead) are row dims */
    int64_t rows, cols;
    int vec, threads;
    bool rms;
    const ir_op *quant;    /* the block-scale quantize ending the epilogue, or NULL */
    cg_dyn *dyn;           /* dynamic shapes: the row dims' values are parameters (NULL: static) */
    int row_group[IR_MAX_RANK], n_row_groups; /* cg_dyn_groups of the row dims */
} norm;

static bool packed_tail(const ir_tensor *t, int lead)
{
    int64_t want = 1;
    for (int d = t->rank - 1; d >= lead; d--) {
        if (t->dims[d] != 1 && t->strides[d] != want)
            return false;
        want *= t->dims[d];
    }
    return true;
}

static access access_of(const norm *n, int ti)
{
    const ir_tensor *t = &n->g->t[ti], *x = &n->g->t[n->op->in[0]];
    if (t->by_value || t->runtime_scalar)
        return A_SCALAR; /* a value, not an address: any rank (an epsilon [1, 1] for x [A, R, C]) */
    if (t->rank != n->rank)
        return A_BAD;
    bool row_one = true, col_one = true, row_eq = true, col_eq = true;
    for (int d = 0; d < t->rank; d++) {
        bool is_row = d < n->lead;
        if (t->dims[d] != 1)
            *(is_row ? &row_one : &col_one) = false;
        if (t->dims[d] != x->dims[d])
            *(is_row ? &row_eq : &col_eq) = false;
    }
    if (row_one && col_one)
        return A_SCALAR;
    if (col_one && row_eq)
        return A_ROW;
    if (!col_eq || !packed_tail(t, n->lead))
        return A_BAD;
    return row_one ? A_COL : row_eq ? A_ROW_COL : A_BAD;
}

/* Dynamic rowoff(row): r decomposed over the row groups (one group: r itself), each group's
 * size, the product of the sizes after it and the tensor's stride along it parameters. */
static void dyn_row_offset(const norm *n, int ti, base_sb *sb)
{
    const ir_tensor *t = &n->g->t[ti], *x = &n->g->t[n->op->in[0]];
    base_sb_puts(sb, "(0LL");
    int64_t div = 1;
    for (int gi = n->n_row_groups - 1; gi >= 0; gi--) {
        int d = -1; /* the group's innermost dim */
        int64_t size = 1;
        for (int e = 0; e < n->lead; e++)
            if (n->row_group[e] == gi)
                d = e, size *= x->dims[e];
        if (!cg_broadcast_along(t, n->rank, d)) { /* names by group: a dim of size 1 drops out */
            base_sb_puts(sb, " + ");
            cg_dyn_coord(n->dyn, sb, "r", gi, n->n_row_groups, size, div, "dy_r", gi);
            base_sb_puts(sb, " * ");
            cg_dyn_put(n->dyn, sb, true, t->strides[d], "dy_st%d_g%d", ti, gi);
        }
        div *= size;
    }
    base_sb_puts(sb, ")");
}

/* rowoff(row) of tensor ti as an expression (row decomposed over x's row dims). */
static void row_offset(const norm *n, int ti, base_sb *sb)
{
    if (n->dyn != NULL) {
        dyn_row_offset(n, ti, sb);
        return;
    }
    const ir_tensor *t = &n->g->t[ti], *x = &n->g->t[n->op->in[0]];
    base_sb_puts(sb, "(0LL");
    int64_t div = 1;
    for (int d = n->lead - 1; d >= 0; d--) {
        if (t->dims[d] != 1)
            base_sb_printf(sb, " + ((r / %lldLL) %% %lldLL) * %lldLL", (long long)div,
                           (long long)x->dims[d], (long long)t->strides[d]);
        div *= x->dims[d];
    }
    base_sb_puts(sb, ")");
}

/* ---- hooks ----------------------------------------------------------------------------------------- */

/* Declares float t<ti>[HD_VEC] holding tensor ti at (row r, col c) if not yet held. */
static void load_vec(const norm *n, int ti, bool *have, base_sb *sb)
{
    if (ti < 0 || have[ti])
        return;
    have[ti] = true;
    char buf[64];
    const char *scalar = cg_scalar_expr(n->g, ti, buf, sizeof buf);
    const char *dt = cg_dtype(n->g->t[ti].dtype);
    base_sb_printf(sb, "    float t%d[HD_VEC];\n", ti);
    if (scalar != NULL || access_of(n, ti) == A_SCALAR || access_of(n, ti) == A_ROW) {
        base_sb_puts(sb, "    {\n        float b_ = ");
        if (scalar != NULL) {
            base_sb_puts(sb, scalar);
        } else { /* one value per row (or one in all), broadcast along the row */
            base_sb_printf(sb, "hd_ld<%s>(p%d, ", dt, ti);
            row_offset(n, ti, sb);
            base_sb_puts(sb, ")");
        }
        base_sb_printf(sb, ";\n        for (int j = 0; j < HD_VEC; j++) t%d[j] = b_;\n    }\n", ti);
        return;
    }
    base_sb_printf(sb, "    hd_ldv<%s, HD_VEC>(p%d, ", dt, ti);
    if (access_of(n, ti) == A_ROW_COL) {
        row_offset(n, ti, sb);
        base_sb_puts(sb, " + ");
    }
    base_sb_puts(sb, "c, t");
    base_sb_printf(sb, "%d);\n", ti);
}

static bool written(const norm *n, int ti)
{
    for (int i = 0; i < n->k->n_writes; i++)
        if (n->k->writes[i] == ti)
            return true;
    return false;
}

static void store_vec(const norm *n, int ti, base_sb *sb)
{
    base_sb_printf(sb, "    hd_stv<%s, HD_VEC>(p%d, ", cg_dtype(n->g->t[ti].dtype), ti);
    row_offset(n, ti, sb);
    base_sb_printf(sb, " + c, t%d);\n", ti);
}

/* The pointwise ops of one part, vector-wide; stores their results that go to memory. */
static void run_part(const norm *n, ir_part part, bool *have, base_sb *sb)
{
    for (int i = 0; i < n->k->n_ops; i++) {
        if (n->k->part[i] != part)
            continue;
        const ir_op *op = &n->g->ops[n->k->ops[i]];
        if (op->kind != IR_OP_POINTWISE)
            continue; /* the quantize tail: hd_row_quant */
        for (int s = 0; s < op->n_in; s++)
            load_vec(n, op->in[s], have, sb);
        char a[24], b[24], c[24], out[24];
        snprintf(a, sizeof a, "t%d[j]", op->in[0]);
        snprintf(b, sizeof b, "t%d[j]", op->in[1]);
        snprintf(c, sizeof c, "t%d[j]", op->in[2]);
        snprintf(out, sizeof out, "t%d[j]", op->out[0]);
        base_sb_printf(sb, "    float t%d[HD_VEC];\n    for (int j = 0; j < HD_VEC; j++) ", op->out[0]);
        cg_pointwise_stmt(sb, op, out, a, op->in[1] >= 0 ? b : NULL, op->in[2] >= 0 ? c : NULL, "c + j");
        base_sb_printf(sb, "    for (int j = 0; j < HD_VEC; j++) t%d[j] = hd_round<%s>(t%d[j]);\n",
                       op->out[0], cg_dtype(n->g->t[op->out[0]].dtype), op->out[0]);
        have[op->out[0]] = true;
        if (written(n, op->out[0]))
            store_vec(n, op->out[0], sb);
    }
}

/* Offset of tensor ti's element at (row r, column `col`) for any strides: col decomposed over
 * x's normalized dims, the last coordinate divided by last_div (a scale's block). */
static void elem_offset(const norm *n, int ti, const char *col, int64_t last_div, base_sb *sb)
{
    const ir_tensor *t = &n->g->t[ti], *x = &n->g->t[n->op->in[0]];
    row_offset(n, ti, sb);
    int64_t inner = 1;
    for (int d = n->rank - 1; d >= n->lead; d--) {
        int64_t div = d == n->rank - 1 ? last_div : 1;
        if (t->dims[d] != 1)
            base_sb_printf(sb, " + ((%s) / %lldLL %% %lldLL / %lldLL) * %lldLL", col, (long long)inner,
                           (long long)x->dims[d], (long long)div, (long long)t->strides[d]);
        inner *= x->dims[d];
    }
}

static void emit_quant_hooks(const norm *n, base_sb *sb)
{
    int y = n->quant->out[0], s = n->quant->out[1];
    const ir_tensor *yt = &n->g->t[y];
    base_sb_puts(sb, "HD_DEVICE void hd_store_scale(hd_i64 r, int c, hd_u8 code, HD_PARAMS)\n{\n");
    if (written(n, s)) {
        base_sb_printf(sb, "    ((hd_u8 *)p%d)[", s);
        elem_offset(n, s, "c", n->quant->a.quant.block[0], sb);
        base_sb_puts(sb, "] = code;\n");
    }
    if (yt->dtype == HIPDNN_DATA_FP4_E2M1) { /* packed, even row offsets: whole bytes */
        base_sb_puts(sb, "}\nHD_DEVICE void hd_store_fp4(hd_i64 r, int c, const hd_u8 *b, HD_PARAMS)\n{\n");
        if (written(n, y)) {
            base_sb_puts(sb, "    hd_i64 o = ");
            row_offset(n, y, sb);
            base_sb_printf(sb, " + c;\n    for (int j = 0; j < HD_VEC / 2; j++)\n"
                           "        ((hd_u8 *)p%d)[(o >> 1) + j] = b[j];\n", y);
        }
        base_sb_puts(sb, "}\n");
        return;
    }
    base_sb_puts(sb, "}\nHD_DEVICE void hd_store_q(hd_i64 r, int c, const float *q, HD_PARAMS)\n{\n");
    if (written(n, y) && packed_tail(yt, n->lead)) {
        base_sb_printf(sb, "    hd_stv<%s, HD_VEC>(p%d, ", cg_dtype(yt->dtype), y);
        row_offset(n, y, sb);
        base_sb_puts(sb, " + c, q);\n");
    } else if (written(n, y)) {
        base_sb_printf(sb, "    for (int j = 0; j < HD_VEC; j++)\n        hd_st<%s>(p%d, ", cg_dtype(yt->dtype), y);
        elem_offset(n, y, "c + j", 1, sb);
        base_sb_puts(sb, ", q[j]);\n");
    }
    base_sb_puts(sb, "}\n");
}

static void emit_hooks(const norm *n, bool *have, base_sb *sb)
{
    const ir_op *op = n->op;
    int x = op->in[0], y = op->out[0];
    int scale = op->in[1], bias = n->rms ? op->in[3] : op->in[2];
    base_sb_puts(sb, "HD_DEVICE void hd_load_x(hd_i64 r, int c, float *v, HD_PARAMS)\n{\n");
    run_part(n, IR_PART_PROLOGUE, have, sb);
    load_vec(n, x, have, sb);
    base_sb_printf(sb, "    for (int j = 0; j < HD_VEC; j++) v[j] = t%d[j];\n}\n", x);

    memset(have, 0, (size_t)n->g->n_t * sizeof *have);
    base_sb_puts(sb, "HD_DEVICE void hd_load_w(int c, float *s, float *b, HD_PARAMS)\n{\n");
    load_vec(n, scale, have, sb);
    base_sb_printf(sb, "    for (int j = 0; j < HD_VEC; j++) s[j] = t%d[j];\n", scale);
    if (bias >= 0) {
        load_vec(n, bias, have, sb);
        base_sb_printf(sb, "    for (int j = 0; j < HD_VEC; j++) b[j] = t%d[j];\n}\n", bias);
    } else {
        base_sb_puts(sb, "    for (int j = 0; j < HD_VEC; j++) b[j] = 0.0f;\n}\n");
    }

    memset(have, 0, (size_t)n->g->n_t * sizeof *have);
    base_sb_printf(sb, "HD_DEVICE void hd_store_y(hd_i64 r, int c, const float *v, %sHD_PARAMS)\n{\n",
                   n->quant != NULL ? "float *qx, " : "");
    base_sb_printf(sb, "    float t%d[HD_VEC];\n    for (int j = 0; j < HD_VEC; j++) t%d[j] = hd_round<%s>(v[j]);\n",
                   y, y, cg_dtype(n->g->t[y].dtype));
    have[y] = true;
    if (written(n, y))
        store_vec(n, y, sb);
    run_part(n, IR_PART_EPILOGUE, have, sb);
    if (n->quant != NULL)
        base_sb_printf(sb, "    for (int j = 0; j < HD_VEC; j++) qx[j] = t%d[j];\n", n->quant->in[0]);
    base_sb_puts(sb, "}\n");
    if (n->quant != NULL)
        emit_quant_hooks(n, sb);

    base_sb_puts(sb, "HD_DEVICE void hd_store_stats(hd_i64 r, float mean, float inv, HD_PARAMS)\n{\n");
    int stats[2] = {n->rms ? -1 : op->out[1], n->rms ? op->out[1] : op->out[2]};
    const char *val[2] = {"mean", "inv"};
    for (int i = 0; i < 2; i++)
        if (stats[i] >= 0 && written(n, stats[i])) {
            base_sb_printf(sb, "    hd_st<%s>(p%d, ", cg_dtype(n->g->t[stats[i]].dtype), stats[i]);
            row_offset(n, stats[i], sb);
            base_sb_printf(sb, ", %s);\n", val[i]);
        }
    base_sb_puts(sb, "}\n");
}

/* ---- sizes and checks ------------------------------------------------------------------------------ */

/* The number of trailing dims normalized (as the reference does it, ir/ir_ref_norm.c). */
static int normalized_dims(const norm *n)
{
    if (n->op->a.norm.normalized_dims > 0)
        return n->op->a.norm.normalized_dims;
    const ir_tensor *s = &n->g->t[n->op->in[1]];
    for (int d = 1; d < s->rank; d++)
        if (s->dims[d] != 1)
            return s->rank - d;
    return s->rank - 1;
}

/* The quantize tail: last op, blocks along the last dim of a ROW_COL value, types the
 * kernels quantize to, an FP4 output packed with even row strides. */
static bool check_quant(norm *n, const ir_op *q, char *why, size_t len)
{
    const ir_tensor *x = &n->g->t[q->in[0]], *y = &n->g->t[q->out[0]], *s = &n->g->t[q->out[1]];
    int64_t axis = q->a.quant.axis < 0 ? q->a.quant.axis + x->rank : q->a.quant.axis;
    int64_t block = q->a.quant.n_block > 0 ? q->a.quant.block[0] : 0;
    if (!cg_check_quant_types(n->g, q, why, len))
        return false;
    const ir_tensor *nx = &n->g->t[n->op->in[0]]; /* one row: ROW_COL is classified COL */
    bool ok = axis == n->rank - 1 && access_of(n, q->in[0]) != A_BAD && x->rank == n->rank &&
              y->rank == n->rank && s->rank == n->rank && block >= 1 && x->dims[axis] % block == 0;
    for (int d = 0; ok && d < n->rank; d++)
        ok = x->dims[d] == nx->dims[d] && y->dims[d] == x->dims[d] &&
             s->dims[d] == (d == axis ? x->dims[d] / block : x->dims[d]);
    if (!ok) {
        snprintf(why, len, "a block quantize ending a norm kernel needs blocks along the last dim "
                 "that divide it, over the norm's rows");
        return false;
    }
    if ((block & (block - 1)) != 0) {
        snprintf(why, len, "a block quantize ending a norm kernel needs a power-of-two block (got %lld)",
                 (long long)block);
        return false;
    }
    if (y->dtype != HIPDNN_DATA_FP4_E2M1)
        return true;
    ok = block % 2 == 0 && packed_tail(y, n->lead);
    for (int d = 0; ok && d < n->lead; d++)
        ok = y->dims[d] == 1 || y->strides[d] % 2 == 0;
    if (!ok)
        snprintf(why, len, "a norm kernel quantizing to FP4 needs an even block and the output packed "
                 "with even row strides (two elements share a byte)");
    return ok;
}

static bool check(norm *n, char *why, size_t len)
{
    for (int i = 0; i < n->k->n_ops; i++) {
        const ir_op *op = &n->g->ops[n->k->ops[i]];
        if (op->kind == IR_OP_BS_QUANTIZE && i == n->k->n_ops - 1 && n->k->part[i] == IR_PART_EPILOGUE) {
            n->quant = op;
            if (!check_quant(n, op, why, len))
                return false;
            continue; /* its outputs are addressed per element (elem_offset) */
        }
        if (op != n->op && op->kind != IR_OP_POINTWISE) {
            snprintf(why, len, "%s fused into a norm has no template yet", ir_op_info_of(op->kind)->name);
            return false;
        }
        for (int s = 0; s < op->n_in + op->n_out; s++) {
            int ti = s < op->n_in ? op->in[s] : op->out[s - op->n_in];
            if (ti < 0)
                continue;
            if (cg_dtype(n->g->t[ti].dtype) == NULL || access_of(n, ti) == A_BAD) {
                snprintf(why, len, "tensor uid %lld: layout or data type the norm template cannot "
                         "address", (long long)n->g->t[ti].uid);
                return false;
            }
        }
    }
    return true;
}

/* Vector width: 8 when rows and the row strides of every tensor accessed per element (ROW_COL)
 * keep 8-element (>= 16-byte) alignment. Per-row tensors (training statistics [rows, 1]) and
 * per-column ones (scale, bias) are read or written one element or one column vector at a time
 * and do not constrain it. */
static int choose_vec(const norm *n)
{
    if (n->cols % 8 != 0)
        return 1;
    for (int i = 0; i < n->k->n_ops; i++) {
        const ir_op *op = &n->g->ops[n->k->ops[i]];
        if (op == n->quant)
            continue; /* its outputs take scalar (or 8-byte) accesses */
        for (int s = 0; s < op->n_in + op->n_out; s++) {
            int ti = s < op->n_in ? op->in[s] : op->out[s - op->n_in];
            if (ti < 0 || access_of(n, ti) != A_ROW_COL)
                continue;
            for (int d = 0; d < n->lead; d++)
                if (n->g->t[ti].dims[d] != 1 && n->g->t[ti].strides[d] % 8 != 0)
                    return 1;
        }
    }
    return 8;
}

/* Vector width with a quantize tail: FP4 needs element pairs in one thread, and a block must
 * span at most a warp's lanes. Width 2 is always possible (scalar accesses; COLS is a multiple
 * of the even block), so 1-wide rows become 2-wide for FP4 and for blocks of 64. */
static bool quant_vec(norm *n, char *why, size_t len)
{
    int64_t block = n->quant->a.quant.block[0];
    if (n->vec == 1 && (n->g->t[n->quant->out[0]].dtype == HIPDNN_DATA_FP4_E2M1 || block == 64))
        n->vec = 2;
    if (block / n->vec <= 32)
        return true;
    snprintf(why, len, "a block quantize of %lld elements ending a norm kernel spans more than a warp "
             "of %d-element accesses", (long long)block, n->vec);
    return false;
}

/* Dynamic shapes: the row dims grouped over every tensor in memory (all of x's rank). */
static void dyn_rows(norm *n, cg_dyn *dyn)
{
    const ir_tensor *ts[CG_MAX_ARGS];
    int nt = 0, dims[IR_MAX_RANK];
    for (int a = 0; a < n->k->n_reads + n->k->n_writes && nt < CG_MAX_ARGS; a++) {
        const ir_tensor *t = &n->g->t[a < n->k->n_reads ? n->k->reads[a] : n->k->writes[a - n->k->n_reads]];
        if (!t->by_value && !t->runtime_scalar && t->rank == n->rank)
            ts[nt++] = t;
    }
    for (int d = 0; d < n->lead; d++)
        dims[d] = d;
    n->n_row_groups = cg_dyn_groups(ts, nt, n->rank, n->g->t[n->op->in[0]].dims, dims, n->lead, true,
                                    n->row_group);
    n->dyn = dyn;
}

static hipdnnStatus_t epsilon_expr(const norm *n, char *buf, size_t len)
{
    int ti = n->rms ? n->op->in[2] : n->op->in[3];
    const char *e = cg_scalar_expr(n->g, ti, buf, len);
    if (e == NULL)
        snprintf(buf, len, "hd_ld<%s>(p%d, 0)", cg_dtype(n->g->t[ti].dtype), ti);
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t cg_emit_rownorm(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                               cg_kernel *out, char *why, size_t why_len)
{
    norm n = {.g = g, .k = k, .op = &g->ops[k->anchor], .rms = g->ops[k->anchor].kind == IR_OP_RMSNORM};
    const ir_tensor *x = &g->t[n.op->in[0]];
    n.rank = x->rank;
    n.lead = x->rank - normalized_dims(&n);
    n.rows = n.cols = 1;
    for (int d = 0; d < x->rank; d++)
        *(d < n.lead ? &n.rows : &n.cols) *= x->dims[d];
    if (n.lead < 1 || n.cols > 32768 || !check(&n, why, why_len)) {
        if (why[0] == '\0')
            snprintf(why, why_len, "rows of %lld elements are outside the template's range", (long long)n.cols);
        return HIPDNN_STATUS_NOT_SUPPORTED;
    }
    n.vec = choose_vec(&n);
    if (t->max_vec > 0 && n.vec > t->max_vec)
        n.vec = 1;
    if (n.quant != NULL && !quant_vec(&n, why, why_len))
        return HIPDNN_STATUS_NOT_SUPPORTED;
    n.threads = 32;
    int per_thread = t->loads_per_thread > 0 ? t->loads_per_thread : 4; /* loads in flight */
    while (n.threads < 1024 && n.cols / n.vec / n.threads > per_thread)
        n.threads *= 2;
    base_sb defs = {0}, hooks = {0};
    char eps[64];
    cg_dyn dyn = {0};
    if (g->dynamic_shape)
        dyn_rows(&n, &dyn);
    bool *have = base_calloc((size_t)g->n_t + 1, sizeof *have);
    hipdnnStatus_t st = have == NULL ? base_fail(HIPDNN_STATUS_ALLOC_FAILED, "codegen: out of memory")
                        : n.dyn != NULL ? cg_add_params(g, k, out) : cg_collect_params(g, k, out, &defs);
    if (st == HIPDNN_STATUS_SUCCESS) {
        epsilon_expr(&n, eps, sizeof eps);
        if (n.dyn != NULL) {
            base_sb_puts(&defs, "#define HD_ROWS ");
            cg_dyn_put(n.dyn, &defs, false, n.rows, "dy_rows");
            base_sb_puts(&defs, "\n");
        } else {
            base_sb_printf(&defs, "#define HD_ROWS %lldLL\n", (long long)n.rows);
        }
        base_sb_printf(&defs, "#define HD_COLS %lld\n#define HD_THREADS %d\n"
                       "#define HD_VEC %d\n#define HD_RMS %d\n#define HD_EPS (%s)\n#define HD_PREFETCH %d\n"
                       "#define HD_SHIFTED_STATS %d\n#define HD_QUANT %d\n",
                       (long long)n.cols, n.threads, n.vec, n.rms, eps,
                       t->row_prefetch ? 1 : 0, t->shifted_stats ? 1 : 0, n.quant != NULL);
        if (n.quant != NULL)
            base_sb_printf(&defs, "#define HD_QBLOCK %d\n#define HD_QSCALE_DT %s\n#define HD_QMAX %.1f\n"
                           "#define HD_QY_DT %s\n", (int)n.quant->a.quant.block[0],
                           cg_dtype(g->t[n.quant->out[1]].dtype), cg_quant_max(g->t[n.quant->out[0]].dtype),
                           cg_dtype_load(g->t[n.quant->out[0]].dtype));
        emit_hooks(&n, have, &hooks);
        if (n.dyn != NULL)
            st = cg_dyn_finish(n.dyn, out, &defs);
        if (st == HIPDNN_STATUS_SUCCESS)
            st = cg_assemble(t, "rownorm.hip", &defs, &hooks, out);
    }
    out->entry = "hd_rownorm_kernel";
    /* Prefetching blocks loop over rows: about two blocks' worth of threads per multiprocessor. */
    int64_t max_grid = t->row_prefetch ? (int64_t)(t->sm_count > 0 ? t->sm_count : 1) * (2048 / n.threads) : 1048576;
    out->grid[0] = (unsigned)(n.rows < max_grid ? n.rows : max_grid), out->grid[1] = out->grid[2] = 1;
    out->block[0] = (unsigned)n.threads, out->block[1] = out->block[2] = 1;
    out->align = n.vec == 8 ? 16 : 1; /* vec 2 (FP4 pairs) uses scalar accesses */
    base_free(have);
    base_sb_free(&defs);
    base_sb_free(&hooks);
    return st;
}
