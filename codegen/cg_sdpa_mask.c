/* cg_sdpa_mask.c — a mask modifier in the attention kernels: the chain's ops (ir_score.c finds
 * them), the checks of what the hooks can read, and the hooks of kernel_templates/sdpa_mask.h:
 *   hd_mask_mod(b, h, i, j, ..)              the chain at one score (float statements, integer
 *       and BOOLEAN results rounded as ir_dtype_round rounds them); false masks the score
 *   hd_mask_class(b, h, i0, i1, j0, j1, ..)  the chain over an index box in interval arithmetic
 *       (sdpa_mask.h's hd_iv_* steps, ir_block_mask.c's rules): EMPTY, FULL or PARTIAL
 *   hd_mask_ld<n>(b, h, i0, i1, j0, j1, ..)  [min, max] of a tensor in memory over the box
 * and the lists' defines (HD_KT, HD_MASK_NB, HD_MASK_NH, HD_MASK_OFF). The chain may read
 * GEN_INDEX along b, h, i, j, one-element scalars (by value, run-time, in memory) and tensors in
 * memory broadcast to [B,Hq,Sq,Skv]. Contract: cg_sdpa.h. Owns no tile choice.
 */
#include <stdio.h>
#include <string.h>

#include "codegen/cg_sdpa.h"

static const char *const AXIS[4] = {"b", "h", "i", "j"};

bool cg_sdpa_mask_has(const cg_sdpa_mask *m, int op)
{
    for (int n = 0; n < m->n; n++)
        if (m->ops[n] == op)
            return true;
    return false;
}

/* The step of the chain computing tensor ti, or -1. */
static int step_of(const ir_graph *g, const cg_sdpa_mask *m, int ti)
{
    for (int n = 0; n < m->n; n++)
        if (g->ops[m->ops[n]].out[0] == ti)
            return n;
    return -1;
}

/* What operand ti of a chain op is (CG_MASK_*), checked against what the hooks can read. */
enum { CG_MASK_STEP, CG_MASK_SCALAR, CG_MASK_LOAD, CG_MASK_BAD };

static int operand_kind(const ir_graph *g, const cg_sdpa_mask *m, int ti, const int64_t full[4])
{
    const ir_tensor *t = &g->t[ti];
    if (step_of(g, m, ti) >= 0)
        return CG_MASK_STEP;
    if (t->score || t->is_virtual)
        return CG_MASK_BAD;
    if (cg_sdpa_numel(t) == 1)
        return t->by_value || t->runtime_scalar || cg_dtype(t->dtype) != NULL ? CG_MASK_SCALAR : CG_MASK_BAD;
    return cg_sdpa_loadable(g, ti, full) ? CG_MASK_LOAD : CG_MASK_BAD;
}

/* GEN_INDEX's axis in 0..3 (negative counts from the end), or -1. */
static int index_axis(const ir_graph *g, const ir_op *op)
{
    const ir_tensor *y = &g->t[op->out[0]];
    int64_t axis = op->a.pw.axis < 0 ? op->a.pw.axis + y->rank : op->a.pw.axis;
    return y->rank == 4 && axis >= 0 && axis < 4 ? (int)axis : -1;
}

const char *cg_sdpa_index_coord(const ir_graph *g, const ir_op *op)
{
    int axis = index_axis(g, op);
    return axis < 0 || g->t[op->out[0]].dims[axis] == 1 ? "0" : AXIS[axis];
}

bool cg_sdpa_loadable(const ir_graph *g, int ti, const int64_t full[4])
{
    const ir_tensor *t = &g->t[ti];
    bool ok = t->rank == 4 && !t->is_virtual && !t->by_value && !t->runtime_scalar &&
              (cg_dtype(t->dtype) != NULL || t->dtype == HIPDNN_DATA_INT64);
    for (int d = 0; ok && d < 4; d++)
        ok = t->dims[d] == 1 || t->dims[d] == full[d];
    return ok;
}

bool cg_sdpa_mask_ops(const ir_graph *g, int anchor, int result, cg_sdpa_mask *m, char *why, size_t len)
{
    *m = (cg_sdpa_mask){.result = result};
    int n = ir_score_mod_ops_of(g, anchor, IR_MOD_MASK, m->ops, IR_SCORE_MAX_STEPS + 1);
    if (n < 0)
        return cg_sdpa_fail(why, len, "a mask modifier: out of memory finding its ops");
    if (n > IR_SCORE_MAX_STEPS || n < 1)
        return cg_sdpa_fail(why, len, "a mask modifier of more than 32 pointwise ops has no kernel template");
    m->n = n;
    if (step_of(g, m, result) < 0)
        return cg_sdpa_fail(why, len, "a mask modifier whose result no pointwise op of it computes");
    return true;
}

bool cg_sdpa_mask_check(const ir_graph *g, cg_sdpa_mask *m, const int64_t full[4], char *why, size_t len)
{
    m->dep = 0;
    for (int k = 0; k < m->n; k++) {
        const ir_op *op = &g->ops[m->ops[k]];
        if (op->a.pw.mode == HIPDNN_POINTWISE_GEN_INDEX) {
            int axis = index_axis(g, op);
            if (axis < 0)
                return cg_sdpa_fail(why, len, "a mask modifier's GEN_INDEX must give a rank-4 index along axis 0..3");
            m->dep |= g->t[op->out[0]].dims[axis] != 1 ? 1u << axis : 0u;
            continue;
        }
        for (int q = 0; q < op->n_in && q < 3; q++) {
            if (op->in[q] < 0)
                continue;
            int kind = operand_kind(g, m, op->in[q], full);
            if (kind == CG_MASK_BAD)
                return cg_sdpa_fail(why, len, "a mask modifier operand that is neither a step of it, a one-element "
                                    "scalar nor a tensor in memory of a loadable type broadcasting to "
                                    "[B,Hq,Sq,Skv] has no kernel template");
            for (int d = 0; kind == CG_MASK_LOAD && d < 4; d++)
                m->dep |= g->t[op->in[q]].dims[d] != 1 ? 1u << d : 0u;
        }
    }
    return true;
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t cg_sdpa_mask_geom_rows(const cg_sdpa_mask_geom *x) { return cdiv(x->by_key ? x->Skv : x->Sq, x->rsize); }

int64_t cg_sdpa_mask_geom_cols(const cg_sdpa_mask_geom *x) { return cdiv(x->by_key ? x->Sq : x->Skv, x->csize); }

/* The lists' batches and heads: 1 along what the mask does not depend on. */
static int64_t nb_of(const cg_sdpa_mask *m, const cg_sdpa_mask_geom *x) { return m->dep & 1u ? x->B : 1; }
static int64_t nh_of(const cg_sdpa_mask *m, const cg_sdpa_mask_geom *x) { return m->dep & 2u ? x->Hq : 1; }

int64_t cg_sdpa_mask_bytes(const cg_sdpa_mask *m, const cg_sdpa_mask_geom *x)
{
    return nb_of(m, x) * nh_of(m, x) * cg_sdpa_mask_geom_rows(x) * (cg_sdpa_mask_geom_cols(x) + 1) * 4;
}

/* ---- hooks ------------------------------------------------------------------------------------ */

void cg_sdpa_elem_load(const ir_graph *g, int ti, base_sb *sb)
{
    const ir_tensor *t = &g->t[ti];
    if (t->dtype == HIPDNN_DATA_INT64)
        base_sb_printf(sb, "(float)hd_ldi<HD_DT_INT64>(p%d, ", ti);
    else
        base_sb_printf(sb, "hd_ld<%s>(p%d, ", cg_dtype(t->dtype), ti);
    cg_sdpa_offset(g, ti, AXIS, sb);
    base_sb_puts(sb, ")");
}

/* The integer range a step result of type t is saturated to (false: not an integer type). */
static bool int_range(hipdnnDataType_t t, double *lo, double *hi)
{
    static const struct {
        hipdnnDataType_t t;
        double lo, hi;
    } ranges[] = {{HIPDNN_DATA_INT8, -128, 127}, {HIPDNN_DATA_UINT8, 0, 255}, {HIPDNN_DATA_INT4, -8, 7},
                  {HIPDNN_DATA_INT32, -0x1p31, 0x1p31 - 1}, {HIPDNN_DATA_INT64, -0x1p63, 0x1p63}};
    for (size_t n = 0; n < sizeof ranges / sizeof ranges[0]; n++)
        if (ranges[n].t == t) {
            *lo = ranges[n].lo, *hi = ranges[n].hi;
            return true;
        }
    return false;
}

/* Operand ti of a step as an expression: the element version (tN, a scalar, a load) or the
 * interval one (vN, hd_iv_point of a scalar, hd_mask_ld<ti>(box)). */
static void operand_expr(const ir_graph *g, const cg_sdpa_mask *m, int ti, bool iv, base_sb *sb)
{
    if (step_of(g, m, ti) >= 0) {
        base_sb_printf(sb, "%c%d", iv ? 'v' : 't', ti);
        return;
    }
    if (cg_sdpa_numel(&g->t[ti]) == 1) {
        base_sb_puts(sb, iv ? "hd_iv_point((double)(" : "(");
        cg_sdpa_scalar_value(g, ti, sb);
        base_sb_puts(sb, iv ? "))" : ")");
        return;
    }
    if (iv)
        base_sb_printf(sb, "hd_mask_ld%d(b, h, i0, i1, j0, j1, HD_ARGS)", ti);
    else
        cg_sdpa_elem_load(g, ti, sb);
}

/* hd_mask_ld<ti>: [min, max] of tensor ti over the box (its size-1 dims read once). */
static void load_hook(const ir_graph *g, int ti, base_sb *sb)
{
    const ir_tensor *t = &g->t[ti];
    base_sb_printf(sb, "HD_DEVICE hd_iv hd_mask_ld%d(int b, int h, int i0, int i1, int j0, int j1, HD_PARAMS)\n{\n"
                   "    hd_iv r = hd_iv_none();\n    (void)b, (void)h;\n"
                   "    for (int i = i0; i <= %s; i++)\n        for (int j = j0; j <= %s; j++)\n"
                   "            hd_iv_fold(r, (double)", ti, t->dims[2] != 1 ? "i1" : "i0", t->dims[3] != 1 ? "j1" : "j0");
    cg_sdpa_elem_load(g, ti, sb);
    base_sb_puts(sb, ");\n    return hd_iv_close(r);\n}\n");
}

/* Whether tensor ti is read before operand q of step k (its hd_mask_ld hook is emitted there). */
static bool load_seen(const ir_graph *g, const cg_sdpa_mask *m, int k, int q, int ti)
{
    for (int e = 0; e <= k; e++) {
        const ir_op *op = &g->ops[m->ops[e]];
        for (int r = 0; r < op->n_in && r < 3 && (e < k || r < q) && op->a.pw.mode != HIPDNN_POINTWISE_GEN_INDEX; r++)
            if (op->in[r] == ti)
                return true;
    }
    return false;
}

/* One step of the chain, element (iv false) or interval (iv true) form. */
static void step_stmt(const ir_graph *g, const cg_sdpa_mask *m, const ir_op *op, bool iv, base_sb *sb)
{
    const ir_tensor *y = &g->t[op->out[0]];
    int o = op->out[0];
    double lo, hi;
    if (op->a.pw.mode == HIPDNN_POINTWISE_GEN_INDEX) {
        int axis = index_axis(g, op) < 0 ? 0 : index_axis(g, op); /* in range: cg_sdpa_mask_check */
        bool zero = y->dims[axis] == 1;
        if (!iv)
            base_sb_printf(sb, "    float t%d = (float)(%s);\n", o, cg_sdpa_index_coord(g, op));
        else if (zero)
            base_sb_printf(sb, "    hd_iv v%d = hd_iv_point(0.0);\n", o);
        else
            base_sb_printf(sb, "    hd_iv v%d = hd_iv_span((double)(%s), (double)(%s), false);\n", o,
                           axis < 2 ? AXIS[axis] : axis == 2 ? "i0" : "j0", axis < 2 ? AXIS[axis] : axis == 2 ? "i1" : "j1");
    } else {
        base_sb a[3] = {{0}, {0}, {0}};
        for (int q = 0; q < 3; q++) {
            if (q < op->n_in && op->in[q] >= 0)
                operand_expr(g, m, op->in[q], iv, &a[q]);
            else
                base_sb_puts(&a[q], iv ? "hd_iv_point(0.0)" : "0.0f");
        }
        if (iv) {
            base_sb_printf(sb, "    hd_iv v%d = hd_iv_step<%d>(%s, %s, %s);\n", o, op->a.pw.mode, base_sb_str(&a[0]),
                           base_sb_str(&a[1]), base_sb_str(&a[2]));
        } else {
            char out[32];
            snprintf(out, sizeof out, "    float t%d", o);
            cg_pointwise_stmt(sb, op, out, base_sb_str(&a[0]), op->n_in > 1 && op->in[1] >= 0 ? base_sb_str(&a[1]) : NULL,
                              op->n_in > 2 && op->in[2] >= 0 ? base_sb_str(&a[2]) : NULL, "0");
        }
        for (int q = 0; q < 3; q++)
            base_sb_free(&a[q]);
    }
    if (!iv)
        cg_sdpa_round_stmt(y, o, sb);
    else if (y->dtype == HIPDNN_DATA_BOOLEAN)
        base_sb_printf(sb, "    v%d = hd_iv_bool(v%d);\n", o, o);
    else if (int_range(y->dtype, &lo, &hi))
        base_sb_printf(sb, "    v%d = hd_iv_round_int(v%d, %.17g, %.17g);\n", o, o, lo, hi);
}

void cg_sdpa_round_stmt(const ir_tensor *y, int o, base_sb *sb)
{
    double lo, hi;
    if (y->dtype == HIPDNN_DATA_BOOLEAN)
        base_sb_printf(sb, "    t%d = t%d != 0.0f ? 1.0f : 0.0f;\n", o, o);
    else if (int_range(y->dtype, &lo, &hi))
        base_sb_printf(sb, "    t%d = t%d != t%d ? 0.0f : fminf(fmaxf(rintf(t%d), %.9gf), %.9gf);\n", o, o, o, o, lo, hi);
}

void cg_sdpa_mask_hooks(const ir_graph *g, const cg_sdpa_mask *m, const cg_sdpa_mask_geom *x, base_sb *defs,
                        base_sb *hooks, cg_launch *l)
{
    base_sb_printf(defs, "#define HD_MASK_MOD 1\n#define HD_MASK_BY_KEY %d\n#define HD_MASK_ROWS %lld\n"
                   "#define HD_MASK_RSIZE %lld\n#define HD_MASK_COLS %lld\n#define HD_MASK_CSIZE %lld\n"
                   "#define HD_MASK_NB %lld\n#define HD_MASK_NH %lld\n#define HD_MASK_OFF %lldLL\n", x->by_key,
                   (long long)cg_sdpa_mask_geom_rows(x), (long long)x->rsize, (long long)cg_sdpa_mask_geom_cols(x),
                   (long long)x->csize, (long long)nb_of(m, x), (long long)nh_of(m, x), (long long)x->off);
    *l = (cg_launch){.entry = "hd_sdpa_mask_kernel",
                     .grid = {(unsigned)cg_sdpa_mask_geom_rows(x), (unsigned)nh_of(m, x), (unsigned)nb_of(m, x)},
                     .block = {128, 1, 1}};
    base_sb_puts(hooks, "HD_DEVICE bool hd_mask_mod(int b, int h, int i, int j, HD_PARAMS)\n{\n"
                        "    (void)b, (void)h, (void)i, (void)j;\n");
    for (int k = 0; k < m->n; k++)
        step_stmt(g, m, &g->ops[m->ops[k]], false, hooks);
    base_sb_printf(hooks, "    return t%d != 0.0f;\n}\n", m->result);
    for (int k = 0; k < m->n; k++) {
        const ir_op *op = &g->ops[m->ops[k]];
        for (int q = 0; q < op->n_in && q < 3 && op->a.pw.mode != HIPDNN_POINTWISE_GEN_INDEX; q++) {
            int ti = op->in[q];
            if (ti >= 0 && step_of(g, m, ti) < 0 && cg_sdpa_numel(&g->t[ti]) != 1 && !load_seen(g, m, k, q, ti))
                load_hook(g, ti, hooks);
        }
    }
    base_sb_puts(hooks, "HD_DEVICE int hd_mask_class(int b, int h, int i0, int i1, int j0, int j1, HD_PARAMS)\n{\n"
                        "    (void)b, (void)h, (void)i0, (void)i1, (void)j0, (void)j1;\n");
    for (int k = 0; k < m->n; k++)
        step_stmt(g, m, &g->ops[m->ops[k]], true, hooks);
    base_sb_printf(hooks, "    const int t = hd_iv_truth(v%d);\n"
                   "    return t == 1 ? HD_TILE_FULL : t == 0 ? HD_TILE_EMPTY : HD_TILE_PARTIAL;\n}\n", m->result);
}
