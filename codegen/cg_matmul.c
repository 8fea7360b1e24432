/* cg_matmul.c — emits MATMUL kernels (with their pointwise epilogue) with
 * kernel_templates/matmul_sm90.hip on sm_90 (wgmma + TMA, warp-specialized, persistent; compiled
 * for sm_90a) where its tensor maps can address the operands, else with
 * kernel_templates/matmul.hip (mma.sync tiles, NVIDIA sm_80 and newer). Both take the same
 * generated epilogue hook.
 *
 * C [batch..., M, N] = A [batch..., M, K] · B [batch..., K, N]; A, B and C have one rank. The
 * batch dims of C are flattened into one index b (grid z); A's and B's batch offsets are
 * generated from their own strides (a dim that divides C's is broadcast as the reference does
 * it: index b_d / (C_d / X_d)). What the template can address:
 *   A   bf16 or fp16, K contiguous (row-major), row stride a multiple of 8 elements
 *   B   the same type; N contiguous (row-major) or K contiguous (column-major), the other
 *       stride a multiple of 8 elements
 *   epilogue operands  C's rank, each dim C's or 1 (bias [1, 1, N], a residual [.., M, N],
 *       per-row scales...), any strides, any type templates load; or scalars
 * Anything else (A column-major, fp32 operands, a prologue, AMD) is NOT_SUPPORTED with a reason;
 * the reference engine still runs it.
 * The wgmma template reads A and B through 3-dim tensor maps {contiguous dim, rows, batch}: it
 * also needs each operand's non-broadcast batch dims to flatten into one index with one stride
 * (true of packed batches) no smaller than a matrix; otherwise (or with the knob
 * jit.matmul_wgmma 0, or before sm_90) the mma.sync template runs.
 * Dynamic shapes (ir_graph.dynamic_shape, cg_dyn.c): M, the batch count, C's batch dims and
 * every non-unit stride along the batch and row dims are kernel parameters (the offset and
 * batch-index hooks then are macros over them); N, K, A's and B's row strides and the tiles stay
 * compiled in, so the main loop is the static one. The wgmma tensor maps are built per launch.
 */
#include <stdio.h>

#include "codegen/cg_int.h"

#define BM 128
#define BN 128
#define WARPS_M 2 /* warps per block along M and N (the template's HD_WARPS_M / N) */
#define WARPS_N 4
#define SM90_BM 128
#define SM90_THREADS 384

typedef struct mm {
    const ir_graph *g;
    const ir_kernel *k;
    const ir_op *op;
    int a, b, c, rank;       /* tensor indices; the common rank */
    int64_t m, n, kd, batch; /* kd: the reduction size K */
    int64_t lda, ldb;
    bool b_kmajor;
    int64_t a_nb, b_nb, a_bstride, b_bstride; /* wgmma: batch matrices of A / B and their stride */
    cg_dyn *dyn;             /* dynamic shapes: M and the batch dims are parameters (NULL: static) */
} mm;

static bool fail(char *why, size_t len, const char *msg)
{
    snprintf(why, len, "%s", msg);
    return false;
}

static bool written(const mm *s, int ti)
{
    for (int i = 0; i < s->k->n_writes; i++)
        if (s->k->writes[i] == ti)
            return true;
    return false;
}

/* Dynamic shapes: the coordinate of C's batch dim d (not of size 1) within flat batch index
 * `var`, over C's batch dims of other than size 1, their sizes parameters. */
static void dyn_batch_coord(const mm *s, int d, const char *var, base_sb *sb)
{
    const ir_tensor *c = &s->g->t[s->c];
    int i = 0, n = 0;
    int64_t div = 1;
    for (int e = 0; e < s->rank - 2; e++) {
        if (c->dims[e] == 1)
            continue;
        i += e < d, n++;
        if (e > d)
            div *= c->dims[e];
    }
    cg_dyn_coord(s->dyn, sb, var, i, n, c->dims[d], div, "dy_b", d);
}

/* The coordinate of C's batch dim d within flat batch index b, as an expression. */
static void batch_coord(const mm *s, int d, base_sb *sb)
{
    const ir_tensor *c = &s->g->t[s->c];
    if (s->dyn != NULL) {
        if (c->dims[d] == 1)
            base_sb_puts(sb, "0LL");
        else
            dyn_batch_coord(s, d, "b", sb);
        return;
    }
    int64_t div = 1;
    for (int e = d + 1; e < s->rank - 2; e++)
        div *= c->dims[e];
    base_sb_printf(sb, "((b / %lldLL) %% %lldLL)", (long long)div, (long long)c->dims[d]);
}

/* The term of X's batch dim d for batch `var` (dynamic shapes): coordinate / broadcast ratio *
 * `scale` (a stride, or a multiplier of matrices), `what` naming its parameter. */
static void dyn_batch_term(const mm *s, int ti, int d, const char *var, int64_t scale, const char *what,
                           base_sb *sb)
{
    const ir_tensor *t = &s->g->t[ti], *c = &s->g->t[s->c];
    dyn_batch_coord(s, d, var, sb);
    if (c->dims[d] != t->dims[d]) {
        base_sb_puts(sb, " / ");
        cg_dyn_put(s->dyn, sb, false, c->dims[d] / t->dims[d], "dy_br%d_%d", ti, d);
    }
    base_sb_puts(sb, " * ");
    cg_dyn_put(s->dyn, sb, true, scale, "dy_%s%d_%d", what, ti, d);
}

/* Dynamic shapes: hd_a_off / hd_b_off as a macro (the sizes are the kernel's parameters). */
static void dyn_operand_offset(const mm *s, int ti, const char *name, base_sb *sb)
{
    const ir_tensor *t = &s->g->t[ti];
    base_sb_printf(sb, "#define %s(b) ((hd_i64)0", name);
    for (int d = 0; d < s->rank - 2; d++)
        if (t->dims[d] != 1) {
            base_sb_puts(sb, " + ");
            dyn_batch_term(s, ti, d, "(hd_i64)(b)", t->strides[d], "st", sb);
        }
    base_sb_puts(sb, ")\n");
}

/* hd_i64 offset of A's or B's matrix for batch b (reference broadcasting of dividing dims). */
static void operand_offset(const mm *s, int ti, const char *name, base_sb *sb)
{
    if (s->dyn != NULL) {
        dyn_operand_offset(s, ti, name, sb);
        return;
    }
    const ir_tensor *t = &s->g->t[ti], *c = &s->g->t[s->c];
    base_sb_printf(sb, "HD_DEVICE hd_i64 %s(hd_i64 b)\n{\n    return 0LL", name);
    for (int d = 0; d < s->rank - 2; d++) {
        if (t->dims[d] == 1)
            continue;
        base_sb_puts(sb, " + ");
        batch_coord(s, d, sb);
        base_sb_printf(sb, " / %lldLL * %lldLL", (long long)(c->dims[d] / t->dims[d]),
                       (long long)t->strides[d]);
    }
    base_sb_puts(sb, ";\n}\n");
}

/* Dynamic shapes: element_offset with the batch sizes and every non-unit stride parameters. */
static void dyn_element_offset(const mm *s, int ti, base_sb *sb)
{
    const ir_tensor *t = &s->g->t[ti];
    base_sb_puts(sb, "0LL");
    for (int d = 0; d < s->rank - 2; d++)
        if (t->dims[d] != 1) {
            base_sb_puts(sb, " + ");
            dyn_batch_coord(s, d, "b", sb);
            base_sb_puts(sb, " * ");
            cg_dyn_put(s->dyn, sb, true, t->strides[d], "dy_st%d_%d", ti, d);
        }
    const char *var[2] = {"r", "c"};
    for (int d = s->rank - 2; d < s->rank; d++)
        if (t->dims[d] != 1) {
            base_sb_printf(sb, " + (hd_i64)%s * ", var[d - (s->rank - 2)]);
            cg_dyn_put(s->dyn, sb, true, t->strides[d], "dy_st%d_%d", ti, d);
        }
}

/* Offset of epilogue tensor ti at (b, r, c): a size-1 dim broadcasts. */
static void element_offset(const mm *s, int ti, base_sb *sb)
{
    if (s->dyn != NULL) {
        dyn_element_offset(s, ti, sb);
        return;
    }
    const ir_tensor *t = &s->g->t[ti];
    base_sb_puts(sb, "0LL");
    for (int d = 0; d < s->rank - 2; d++)
        if (t->dims[d] != 1) {
            base_sb_puts(sb, " + ");
            batch_coord(s, d, sb);
            base_sb_printf(sb, " * %lldLL", (long long)t->strides[d]);
        }
    if (t->dims[s->rank - 2] != 1)
        base_sb_printf(sb, " + (hd_i64)r * %lldLL", (long long)t->strides[s->rank - 2]);
    if (t->dims[s->rank - 1] != 1)
        base_sb_printf(sb, " + (hd_i64)c * %lldLL", (long long)t->strides[s->rank - 1]);
}

/* tX for an epilogue operand at its first use: a scalar expression, or in[slot] (the value
 * hd_epilogue_in loaded). */
static void load(const mm *s, int ti, const int *slot, bool *have, base_sb *sb)
{
    if (ti < 0 || have[ti])
        return;
    have[ti] = true;
    char buf[64];
    const char *scalar = cg_scalar_expr(s->g, ti, buf, sizeof buf);
    if (scalar != NULL)
        base_sb_printf(sb, "    float t%d = %s;\n", ti, scalar);
    else
        base_sb_printf(sb, "    float t%d = in[%d];\n", ti, slot[ti]);
}

static void store(const mm *s, int ti, base_sb *sb)
{
    if (!written(s, ti))
        return;
    base_sb_printf(sb, "    hd_st<%s>(p%d, ", cg_dtype(s->g->t[ti].dtype), ti);
    element_offset(s, ti, sb);
    base_sb_printf(sb, ", t%d);\n", ti);
}

/* GEN_INDEX: the coordinate along `axis` of C. */
static void index_expr(const mm *s, int64_t axis, base_sb *sb)
{
    if (axis < 0)
        axis += s->rank;
    if (axis == s->rank - 1 || axis < 0 || axis >= s->rank)
        base_sb_puts(sb, "c");
    else if (axis == s->rank - 2)
        base_sb_puts(sb, "r");
    else
        batch_coord(s, (int)axis, sb);
}

static bool is_epilogue(const mm *s, int i) { return s->k->part[i] == IR_PART_EPILOGUE; }

/* The epilogue's operands in memory, in first-use order: slot[ti] is the index of tensor ti in
 * hd_epilogue_in's `in` array (-1: computed in the kernel, a scalar, or unused). Returns how
 * many; `seen` (n_t entries) is scratch, left all false. */
static int input_slots(const mm *s, int *slot, bool *seen)
{
    const ir_graph *g = s->g;
    int n = 0;
    for (int i = 0; i < g->n_t; i++)
        slot[i] = -1;
    seen[s->c] = true;
    for (int i = 0; i < s->k->n_ops; i++) {
        if (!is_epilogue(s, i))
            continue;
        const ir_op *op = &g->ops[s->k->ops[i]];
        char buf[64];
        for (int j = 0; j < op->n_in; j++) {
            int ti = op->in[j];
            if (ti >= 0 && !seen[ti] && cg_scalar_expr(g, ti, buf, sizeof buf) == NULL)
                slot[ti] = n++;
            if (ti >= 0)
                seen[ti] = true;
        }
        seen[op->out[0]] = true;
    }
    for (int i = 0; i < g->n_t; i++)
        seen[i] = false;
    return n;
}

/* hd_epilogue_in: loads every epilogue operand in memory for element (b, r, c) into in[]. */
static void emit_epilogue_in(const mm *s, const int *slot, int n_in, base_sb *sb)
{
    base_sb_printf(sb, "#define HD_EPI_IN %d\n"
                   "HD_DEVICE void hd_epilogue_in(hd_i64 b, int r, int c, float *in, HD_PARAMS)\n{\n", n_in);
    for (int k = 0; k < n_in; k++)
        for (int ti = 0; ti < s->g->n_t; ti++)
            if (slot[ti] == k) {
                base_sb_printf(sb, "    in[%d] = hd_ld<%s>(p%d, ", k, cg_dtype(s->g->t[ti].dtype), ti);
                element_offset(s, ti, sb);
                base_sb_puts(sb, ");\n");
            }
    base_sb_puts(sb, "}\n");
}

/* hd_epilogue_out: C rounded to its type, then the fused pointwise ops, one element, with the
 * operands hd_epilogue_in loaded; stores every tensor the kernel writes. */
static void emit_epilogue_out(const mm *s, const int *slot, bool *have, base_sb *sb)
{
    const ir_graph *g = s->g;
    base_sb_puts(sb, "HD_DEVICE void hd_epilogue_out(hd_i64 b, int r, int c, float acc, const float *in, "
                 "HD_PARAMS)\n{\n");
    base_sb_printf(sb, "    float t%d = hd_round<%s>(acc);\n", s->c, cg_dtype(g->t[s->c].dtype));
    have[s->c] = true;
    store(s, s->c, sb);
    for (int i = 0; i < s->k->n_ops; i++) {
        if (!is_epilogue(s, i))
            continue;
        const ir_op *op = &g->ops[s->k->ops[i]];
        for (int j = 0; j < op->n_in; j++)
            load(s, op->in[j], slot, have, sb);
        char a[16], b[16], c[16], out[24];
        snprintf(a, sizeof a, "t%d", op->in[0]);
        snprintf(b, sizeof b, "t%d", op->in[1]);
        snprintf(c, sizeof c, "t%d", op->in[2]);
        snprintf(out, sizeof out, "float t%d", op->out[0]);
        base_sb idx = {0};
        index_expr(s, op->a.pw.axis, &idx);
        base_sb_puts(sb, "    ");
        cg_pointwise_stmt(sb, op, out, a, op->in[1] >= 0 ? b : NULL, op->in[2] >= 0 ? c : NULL,
                          base_sb_str(&idx));
        base_sb_free(&idx);
        base_sb_printf(sb, "    t%d = hd_round<%s>(t%d);\n", op->out[0],
                       cg_dtype(g->t[op->out[0]].dtype), op->out[0]);
        have[op->out[0]] = true;
        store(s, op->out[0], sb);
    }
    base_sb_puts(sb, "}\n");
}

/* The epilogue hooks: hd_epilogue_in (the loads) and hd_epilogue_out (math and stores), so a
 * template can issue many elements' loads before any store; hd_epilogue does one element. */
static hipdnnStatus_t emit_epilogue(const mm *s, bool *have, base_sb *sb)
{
    int *slot = base_malloc(((size_t)s->g->n_t + 1) * sizeof *slot);
    if (slot == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "codegen: out of memory");
    int n_in = input_slots(s, slot, have);
    emit_epilogue_in(s, slot, n_in, sb);
    emit_epilogue_out(s, slot, have, sb);
    base_sb_puts(sb, "HD_DEVICE void hd_epilogue(hd_i64 b, int r, int c, float acc, HD_PARAMS)\n{\n"
                 "    float in[HD_EPI_IN + 1];\n    hd_epilogue_in(b, r, c, in, HD_ARGS);\n"
                 "    hd_epilogue_out(b, r, c, acc, in, HD_ARGS);\n}\n");
    base_free(slot);
    return HIPDNN_STATUS_SUCCESS;
}

/* ---- the wgmma template (sm_90) ------------------------------------------------------------------ */

/* Whether X's non-broadcast batch dims flatten into one index j with offset j * stride (the
 * third dim of its tensor map); *nb = how many matrices, *stride in elements. */
static bool flat_batches(const mm *s, int ti, int64_t rows, int64_t ld, int64_t *nb, int64_t *stride)
{
    const ir_tensor *t = &s->g->t[ti];
    int64_t n = 1, st = -1;
    for (int d = s->rank - 3; d >= 0; d--) {
        if (t->dims[d] == 1)
            continue;
        if (st < 0)
            st = t->strides[d];
        else if (t->strides[d] != st * n)
            return false;
        n *= t->dims[d];
    }
    *nb = n;
    *stride = st < 0 ? rows * ld : st;
    return *stride >= rows * ld;
}

/* The row stride a tensor map uses: the operand's, or any valid one when there is one row. */
static int64_t map_ld(int64_t ld, int64_t rows, int64_t cols)
{
    return rows == 1 ? (cols + 7) / 8 * 8 : ld;
}

static bool wgmma_fits(mm *s, const cg_target *t)
{
    if (!t->caps.wgmma || t->mm_wgmma < 0)
        return false;
    int64_t la = map_ld(s->lda, s->m, s->kd);
    int64_t lb = s->b_kmajor ? map_ld(s->ldb, s->n, s->kd) : map_ld(s->ldb, s->kd, s->n);
    int64_t rb = s->b_kmajor ? s->n : s->kd;
    return flat_batches(s, s->a, s->m, la, &s->a_nb, &s->a_bstride) &&
           flat_batches(s, s->b, rb, lb, &s->b_nb, &s->b_bstride) &&
           s->a_bstride < ((int64_t)1 << 38) && s->b_bstride < ((int64_t)1 << 38);
}

/* Dynamic shapes: hd_a_bidx / hd_b_bidx as a macro, the multipliers parameters. */
static void dyn_batch_index(const mm *s, int ti, const char *name, base_sb *sb)
{
    const ir_tensor *t = &s->g->t[ti];
    base_sb_printf(sb, "#define %s(b) ((int)(0LL", name);
    int64_t mul = 1;
    for (int d = s->rank - 3; d >= 0; d--) {
        if (t->dims[d] == 1)
            continue;
        base_sb_puts(sb, " + ");
        dyn_batch_term(s, ti, d, "(hd_i64)(b)", mul, "bm", sb);
        mul *= t->dims[d];
    }
    base_sb_puts(sb, "))\n");
}

/* hd_a_bidx / hd_b_bidx: X's flat batch index for C's batch b. */
static void batch_index(const mm *s, int ti, const char *name, base_sb *sb)
{
    if (s->dyn != NULL) {
        dyn_batch_index(s, ti, name, sb);
        return;
    }
    const ir_tensor *t = &s->g->t[ti], *c = &s->g->t[s->c];
    base_sb_printf(sb, "HD_DEVICE int %s(int b)\n{\n    return 0", name);
    int64_t mul = 1;
    for (int d = s->rank - 3; d >= 0; d--) {
        if (t->dims[d] == 1)
            continue;
        base_sb_puts(sb, " + (int)(");
        batch_coord(s, d, sb);
        base_sb_printf(sb, " / %lldLL * %lldLL)", (long long)(c->dims[d] / t->dims[d]), (long long)mul);
        mul *= t->dims[d];
    }
    base_sb_puts(sb, ";\n}\n");
}

static cg_tmap tmap(int64_t inner, int64_t rows, int64_t nb, int64_t ld, int64_t bstride,
                    uint32_t box_inner, uint32_t box_rows)
{
    return (cg_tmap){.rank = 3, .dims = {(uint64_t)inner, (uint64_t)rows, (uint64_t)nb},
                     .strides = {(uint64_t)ld * 2, (uint64_t)bstride * 2},
                     .box = {box_inner, box_rows, 1}};
}

/* Pipeline stages that fit the shared memory a block may have (at least 2). */
static int sm90_stages(const cg_target *t, int bn)
{
    int stages = t->mm_stages > 0 ? t->mm_stages : 4;
    while (stages > 2 && 1024 + stages * (SM90_BM + bn) * 128 + stages * 16 > t->caps.smem_optin)
        stages--;
    return stages;
}

/* Defines, hooks and launch recipe of the wgmma template; A and B's tensor maps come last. */
static hipdnnStatus_t emit_sm90(const mm *s, const cg_target *t, base_sb *defs, base_sb *hooks,
                                cg_kernel *out)
{
    int bn = t->mm_tile_n == 128 ? 128 : 256, stages = sm90_stages(t, bn);
    int64_t tiles = (s->m + SM90_BM - 1) / SM90_BM * ((s->n + bn - 1) / bn) * s->batch;
    if (tiles > INT32_MAX || out->n_args + 2 > CG_MAX_ARGS)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "codegen: matmul with too many tiles or "
                         "parameters for the wgmma template");
    base_sb_printf(defs, "#define HD_BN %d\n#define HD_STAGES %d\n", bn, stages);
    batch_index(s, s->a, "hd_a_bidx", hooks);
    batch_index(s, s->b, "hd_b_bidx", hooks);
    int64_t la = map_ld(s->lda, s->m, s->kd);
    cg_arg a = {.kind = CG_ARG_TMAP, .tensor = s->a,
                .map = tmap(s->kd, s->m, s->a_nb, la, s->a_bstride, 64, SM90_BM)};
    cg_arg b = {.kind = CG_ARG_TMAP, .tensor = s->b};
    if (s->b_kmajor)
        b.map = tmap(s->kd, s->n, s->b_nb, map_ld(s->ldb, s->n, s->kd), s->b_bstride, 64, (uint32_t)bn);
    else
        b.map = tmap(s->n, s->kd, s->b_nb, map_ld(s->ldb, s->kd, s->n), s->b_bstride, 64, 64);
    out->args[out->n_args++] = a;
    out->args[out->n_args++] = b;
    out->entry = "hd_matmul_sm90_kernel";
    snprintf(out->arch, sizeof out->arch, "%s", t->caps.wgmma_arch);
    int sms = t->sm_count > 0 ? t->sm_count : 132;
    out->grid[0] = (unsigned)(tiles < sms ? tiles : sms), out->grid[1] = out->grid[2] = 1;
    out->block[0] = SM90_THREADS, out->block[1] = out->block[2] = 1;
    out->smem = (unsigned)(1024 + stages * (SM90_BM + bn) * 128 + stages * 16);
    return HIPDNN_STATUS_SUCCESS;
}

/* Defines, hooks and launch recipe of the mma.sync template. */
static void emit_mma_sync(const mm *s, base_sb *defs, base_sb *hooks, cg_kernel *out)
{
    base_sb_printf(defs, "#define HD_LDA %lldLL\n#define HD_LDB %lldLL\n#define HD_A_PTR p%d\n"
                   "#define HD_B_PTR p%d\n#define HD_WARPS_M %d\n#define HD_WARPS_N %d\n",
                   (long long)s->lda, (long long)s->ldb, s->a, s->b, WARPS_M, WARPS_N);
    operand_offset(s, s->a, "hd_a_off", hooks);
    operand_offset(s, s->b, "hd_b_off", hooks);
    out->entry = "hd_matmul_kernel";
    out->grid[0] = (unsigned)((s->n + BN - 1) / BN), out->grid[1] = (unsigned)((s->m + BM - 1) / BM);
    out->grid[2] = (unsigned)s->batch;
    out->block[0] = WARPS_M * WARPS_N * 32, out->block[1] = out->block[2] = 1;
    out->smem = 0; /* static: 48 KB */
}

/* ---- checks ---------------------------------------------------------------------------------------- */

static bool check_target(const cg_target *t, char *why, size_t len)
{
    if (t->caps.vendor != CG_VENDOR_NVIDIA)
        return fail(why, len, "the matmul template uses NVIDIA mma.sync; no AMD matmul template yet");
    if (!t->caps.mma_sync)
        return fail(why, len, "the matmul template needs sm_80 or newer (cp.async, mma.sync bf16)");
    return true;
}

/* Only a pointwise epilogue; every tensor has C's rank, dims C's or 1, a type templates load. */
static bool check_ops(const mm *s, char *why, size_t len)
{
    const ir_tensor *c = &s->g->t[s->c];
    for (int i = 0; i < s->k->n_ops; i++) {
        const ir_op *op = &s->g->ops[s->k->ops[i]];
        if (op == s->op)
            continue;
        if (s->k->part[i] != IR_PART_EPILOGUE)
            return fail(why, len, "a matmul prologue (an op feeding A or B, e.g. a block-scale "
                        "dequantize) has no template yet");
        if (op->kind != IR_OP_POINTWISE) {
            snprintf(why, len, "%s in a matmul epilogue has no template yet", ir_op_info_of(op->kind)->name);
            return false;
        }
        for (int j = 0; j < op->n_in + op->n_out; j++) {
            int ti = j < op->n_in ? op->in[j] : op->out[j - op->n_in];
            if (ti < 0)
                continue;
            const ir_tensor *t = &s->g->t[ti];
            bool ok = cg_dtype(t->dtype) != NULL && (t->rank == s->rank || t->by_value || t->runtime_scalar);
            for (int d = 0; ok && !t->by_value && !t->runtime_scalar && d < t->rank; d++)
                ok = t->dims[d] == 1 || t->dims[d] == c->dims[d];
            if (!ok) {
                snprintf(why, len, "matmul epilogue tensor uid %lld: rank, dims or data type the "
                         "matmul template cannot address", (long long)t->uid);
                return false;
            }
        }
    }
    return true;
}

/* Batch dims of X divide C's; those not broadcast keep 16-byte alignment. */
static bool check_batch(const mm *s, int ti)
{
    const ir_tensor *t = &s->g->t[ti], *c = &s->g->t[s->c];
    for (int d = 0; d < s->rank - 2; d++)
        if (t->dims[d] < 1 || c->dims[d] % t->dims[d] != 0 || (t->dims[d] != 1 && t->strides[d] % 8 != 0))
            return false;
    return true;
}

static bool check_operands(mm *s, char *why, size_t len)
{
    const ir_tensor *a = &s->g->t[s->a], *b = &s->g->t[s->b], *c = &s->g->t[s->c];
    int r = s->rank;
    if (a->rank != r || b->rank != r || r < 2)
        return fail(why, len, "matmul operands of different ranks");
    if (a->dtype != b->dtype || (a->dtype != HIPDNN_DATA_BFLOAT16 && a->dtype != HIPDNN_DATA_HALF))
        return fail(why, len, "the matmul template needs A and B both bf16 or both fp16");
    if (cg_dtype(c->dtype) == NULL)
        return fail(why, len, "matmul output type the template cannot store");
    s->m = a->dims[r - 2], s->kd = a->dims[r - 1], s->n = b->dims[r - 1];
    if (a->strides[r - 1] != 1 && s->kd != 1)
        return fail(why, len, "A must be row-major (K contiguous); column-major A has no template "
                    "path yet");
    s->lda = a->strides[r - 2];
    if (s->m != 1 && s->lda % 8 != 0)
        return fail(why, len, "A's row stride must be a multiple of 8 elements (16-byte rows)");
    s->b_kmajor = b->strides[r - 1] != 1 && b->strides[r - 2] == 1;
    if (!s->b_kmajor && b->strides[r - 1] != 1 && s->n != 1)
        return fail(why, len, "B must have N or K contiguous");
    s->ldb = b->strides[s->b_kmajor ? r - 1 : r - 2];
    if ((s->b_kmajor ? s->n : s->kd) != 1 && s->ldb % 8 != 0)
        return fail(why, len, "B's row (or column) stride must be a multiple of 8 elements");
    if (!check_batch(s, s->a) || !check_batch(s, s->b))
        return fail(why, len, "matmul batch dims of A or B that do not divide C's, or batch "
                    "strides that are not multiples of 8 elements");
    s->batch = 1;
    for (int d = 0; d < r - 2; d++)
        s->batch *= c->dims[d];
    if (s->batch > 65535 || (s->m + BM - 1) / BM > 65535 || s->m > INT32_MAX / 2 ||
        s->n > INT32_MAX / 2 || s->kd > INT32_MAX / 2 || s->batch * s->m * s->n == 0)
        return fail(why, len, "matmul sizes outside the template's grid range");
    return true;
}

hipdnnStatus_t cg_emit_matmul(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                              cg_kernel *out, char *why, size_t why_len)
{
    mm s = {.g = g, .k = k, .op = &g->ops[k->anchor]};
    s.a = s.op->in[0], s.b = s.op->in[1], s.c = s.op->out[0], s.rank = g->t[s.c].rank;
    if (!check_target(t, why, why_len) || !check_operands(&s, why, why_len) ||
        !check_ops(&s, why, why_len))
        return HIPDNN_STATUS_NOT_SUPPORTED;
    bool wgmma = wgmma_fits(&s, t);
    base_sb defs = {0}, hooks = {0};
    cg_dyn dyn = {0};
    s.dyn = g->dynamic_shape ? &dyn : NULL;
    bool *have = base_calloc((size_t)g->n_t + 1, sizeof *have);
    hipdnnStatus_t st = have == NULL ? base_fail(HIPDNN_STATUS_ALLOC_FAILED, "codegen: out of memory")
                        : s.dyn != NULL ? cg_add_params(g, k, out) : cg_collect_params(g, k, out, &defs);
    if (st == HIPDNN_STATUS_SUCCESS && s.dyn != NULL) {
        base_sb_puts(&defs, "#define HD_M ((int)");
        cg_dyn_put(s.dyn, &defs, false, s.m, "dy_m");
        base_sb_printf(&defs, ")\n#define HD_N %lld\n#define HD_K %lld\n#define HD_BATCH ((int)",
                       (long long)s.n, (long long)s.kd);
        cg_dyn_put(s.dyn, &defs, false, s.batch, "dy_batch");
        base_sb_printf(&defs, ")\n#define HD_AB_DT %s\n#define HD_B_KMAJOR %d\n", cg_dtype(g->t[s.a].dtype),
                       s.b_kmajor);
    } else if (st == HIPDNN_STATUS_SUCCESS) {
        base_sb_printf(&defs, "#define HD_M %lld\n#define HD_N %lld\n#define HD_K %lld\n"
                       "#define HD_BATCH %lld\n#define HD_AB_DT %s\n#define HD_B_KMAJOR %d\n",
                       (long long)s.m, (long long)s.n, (long long)s.kd,
                       (long long)s.batch, cg_dtype(g->t[s.a].dtype), s.b_kmajor);
    }
    if (st == HIPDNN_STATUS_SUCCESS) {
        if (wgmma)
            st = emit_sm90(&s, t, &defs, &hooks, out);
        else
            emit_mma_sync(&s, &defs, &hooks, out);
    }
    if (st == HIPDNN_STATUS_SUCCESS)
        st = emit_epilogue(&s, have, &hooks);
    if (st == HIPDNN_STATUS_SUCCESS && s.dyn != NULL)
        st = cg_dyn_finish(s.dyn, out, &defs);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = cg_assemble(t, wgmma ? "matmul_sm90.hip" : "matmul.hip", &defs, &hooks, out);
    out->align = 16;
    base_free(have);
    base_sb_free(&defs);
    base_sb_free(&hooks);
    return st;
}
