/* cg_paged.c — emits the paged KV-cache load (PAGED_CACHE_LOAD, a kernel of its own) with
 * kernel_templates/paged_load.hip.
 *
 * Operands (ir.h): container [nblk, H, PAGE, D], seq_len [B,1,1,1] (optional), page_table
 * [B,1,P,1] -> y [B,H,S,D] or the transposed K form [B,H,D,S], told apart as the reference does
 * (ir_ref_paged_cache_load: by dims; when S == D, transposed iff stride[2] == 1 and stride[3]
 * != 1). Codegen turns y's form into strides for (b, h, s, d), so the template is one loop.
 * Items copy 16 bytes (HD_VEC elements along D) when container and y have one type, D
 * contiguous in both, every other stride a multiple of HD_VEC and the jit.vector_width knob
 * allows it; otherwise one element, converted. Page tables and lengths are read as integers
 * (INT32, INT64, INT8, UINT8; float types truncate as the reference's conversion does).
 */
#include <stdio.h>

#include "codegen/cg_int.h"

#define THREADS 256

typedef struct paged {
    const ir_graph *g;
    const ir_kernel *k;
    int cont, seq, table, y;    /* tensor indices; seq -1 when absent */
    int64_t b, h, s, d, page, nblk, pages;
    int64_t ys[4];              /* y's strides for (b, h, s, d) */
    int vec;
} paged;

static bool fail(char *why, size_t n, const char *msg)
{
    snprintf(why, n, "%s", msg);
    return false;
}

static int elem_size(hipdnnDataType_t t)
{
    switch (t) {
    case HIPDNN_DATA_FLOAT:
    case HIPDNN_DATA_INT32: return 4;
    case HIPDNN_DATA_HALF:
    case HIPDNN_DATA_BFLOAT16: return 2;
    case HIPDNN_DATA_DOUBLE: case HIPDNN_DATA_INT8: case HIPDNN_DATA_UINT8:
    case HIPDNN_DATA_FP8_E4M3: case HIPDNN_DATA_FP8_E5M2: case HIPDNN_DATA_FP8_E8M0:
    case HIPDNN_DATA_FP4_E2M1: case HIPDNN_DATA_INT4: case HIPDNN_DATA_FP6_E2M3_EXT:
    case HIPDNN_DATA_FP6_E3M2_EXT: case HIPDNN_DATA_INT64: case HIPDNN_DATA_BOOLEAN:
    case HIPDNN_DATA_FP8_E4M3_FNUZ: case HIPDNN_DATA_FP8_E5M2_FNUZ: return 1;
    }
    return 1; /* a value outside the enum */
}

static const char *int_dtype(hipdnnDataType_t t)
{
    return t == HIPDNN_DATA_INT64 ? "HD_DT_INT64" : cg_dtype(t);
}

static bool check_shapes(paged *p, char *why, size_t n)
{
    const ir_tensor *c = &p->g->t[p->cont], *t = &p->g->t[p->table], *y = &p->g->t[p->y];
    if (c->rank != 4 || t->rank != 4 || y->rank != 4)
        return fail(why, n, "paged_cache_load: operands of rank 4 needed");
    p->nblk = c->dims[0], p->h = c->dims[1], p->page = c->dims[2], p->d = c->dims[3];
    p->b = y->dims[0], p->pages = t->dims[2];
    bool sd = y->dims[3] == p->d, ds = y->dims[2] == p->d;
    if (sd && ds)
        sd = !(y->strides[2] == 1 && y->strides[3] != 1);
    if (!sd && !ds)
        return fail(why, n, "paged_cache_load: y is not [B,H,S,D] or [B,H,D,S]");
    p->s = sd ? y->dims[2] : y->dims[3];
    int64_t dims[4] = {y->dims[0], y->dims[1], p->s, p->d};
    int64_t strides[4] = {y->strides[0], y->strides[1], y->strides[sd ? 2 : 3], y->strides[sd ? 3 : 2]};
    for (int i = 0; i < 4; i++)
        p->ys[i] = dims[i] == 1 ? 0 : strides[i]; /* a size-1 dim's stride is never used */
    if (y->dims[1] != p->h || t->dims[0] != p->b || t->dims[1] != 1 || t->dims[3] != 1 || p->page < 1)
        return fail(why, n, "paged_cache_load: operand dims disagree");
    if (p->seq >= 0) {
        const ir_tensor *s = &p->g->t[p->seq];
        int64_t numel = 1;
        for (int i = 0; i < s->rank; i++)
            numel *= s->dims[i];
        if (numel != p->b || s->rank < 1 || s->dims[0] != p->b)
            return fail(why, n, "paged_cache_load: seq_len must be [B,1,1,1]");
    }
    return true;
}

static bool check_types(const paged *p, char *why, size_t n)
{
    hipdnnDataType_t ct = p->g->t[p->cont].dtype, yt = p->g->t[p->y].dtype;
    if (cg_dtype_load(ct) == NULL || cg_dtype(yt) == NULL)
        return fail(why, n, "paged_cache_load: container or y data type without kernel support "
                    "(4-bit y elements share bytes between threads)");
    if (int_dtype(p->g->t[p->table].dtype) == NULL ||
        (p->seq >= 0 && int_dtype(p->g->t[p->seq].dtype) == NULL))
        return fail(why, n, "paged_cache_load: page table or seq_len data type without kernel support");
    return true;
}

/* 16-byte items when the layouts allow them (see the header). */
static int choose_vec(const paged *p, const cg_target *t)
{
    const ir_tensor *c = &p->g->t[p->cont], *y = &p->g->t[p->y];
    if (c->dtype != y->dtype || cg_dtype(c->dtype) == NULL)
        return 1;
    int v = 16 / elem_size(c->dtype);
    if ((t->max_vec > 0 && v > t->max_vec) || p->d % v != 0 || c->strides[3] != 1 || p->ys[3] != 1)
        return 1;
    for (int i = 0; i < 3; i++)
        if ((c->dims[i] != 1 && c->strides[i] % v != 0) || p->ys[i] % v != 0)
            return 1;
    return v;
}

/* stride * name, or nothing when the stride is not used. */
static void term(base_sb *sb, const char *name, int64_t stride)
{
    if (stride != 0)
        base_sb_printf(sb, " + %s * %lldLL", name, (long long)stride);
}

static void emit_hooks(const paged *p, base_sb *sb)
{
    const ir_tensor *c = &p->g->t[p->cont], *t = &p->g->t[p->table];
    base_sb_puts(sb, "HD_DEVICE hd_i64 hd_seq_len(hd_i64 b, HD_PARAMS)\n{\n");
    if (p->seq >= 0) {
        const ir_tensor *s = &p->g->t[p->seq];
        base_sb_printf(sb, "    return hd_ldi<%s>(p%d, 0LL", int_dtype(s->dtype), p->seq);
        term(sb, "b", s->dims[0] == 1 ? 0 : s->strides[0]);
        base_sb_puts(sb, ");\n}\n");
    } else {
        base_sb_puts(sb, "    return HD_S;\n}\n");
    }
    base_sb_printf(sb, "HD_DEVICE hd_i64 hd_page(hd_i64 b, hd_i64 pg, HD_PARAMS)\n{\n"
                   "    return pg < %lldLL ? hd_ldi<%s>(p%d, 0LL", (long long)p->pages, int_dtype(t->dtype),
                   p->table);
    term(sb, "b", t->dims[0] == 1 ? 0 : t->strides[0]);
    term(sb, "pg", t->dims[2] == 1 ? 0 : t->strides[2]);
    base_sb_puts(sb, ") : -1;\n}\n");

    base_sb_puts(sb, "HD_DEVICE void hd_copy(bool ok, hd_i64 page, hd_i64 b, hd_i64 h, hd_i64 s, hd_i64 d, "
                 "HD_PARAMS)\n{\n    hd_i64 src = 0LL");
    term(sb, "page", c->dims[0] == 1 ? 0 : c->strides[0]);
    term(sb, "h", c->dims[1] == 1 ? 0 : c->strides[1]);
    term(sb, "(s % HD_PAGE)", c->dims[2] == 1 ? 0 : c->strides[2]);
    term(sb, "d", c->dims[3] == 1 ? 0 : c->strides[3]);
    base_sb_puts(sb, ";\n    hd_i64 dst = 0LL");
    const char *names[4] = {"b", "h", "s", "d"};
    for (int i = 0; i < 4; i++)
        term(sb, names[i], p->ys[i]);
    base_sb_puts(sb, ";\n");
    if (p->vec > 1) {
        int es = elem_size(c->dtype);
        base_sb_printf(sb, "    hd_vec16 w = {0u, 0u, 0u, 0u};\n"
                       "    if (ok)\n        w = *(const hd_vec16 *)((const char *)p%d + src * %d);\n"
                       "    *(hd_vec16 *)((char *)p%d + dst * %d) = w;\n}\n", p->cont, es, p->y, es);
    } else {
        base_sb_printf(sb, "    hd_st<%s>(p%d, dst, ok ? hd_ld<%s>(p%d, src) : 0.0f);\n}\n",
                       cg_dtype(p->g->t[p->y].dtype), p->y, cg_dtype_load(c->dtype), p->cont);
    }
}

hipdnnStatus_t cg_emit_paged(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                             cg_kernel *out, char *why, size_t why_len)
{
    const ir_op *op = &g->ops[k->anchor];
    paged p = {.g = g, .k = k, .cont = op->in[0], .seq = op->in[1], .table = op->in[2], .y = op->out[0]};
    if (k->n_ops != 1 || p.cont < 0 || p.table < 0 || p.y < 0) {
        fail(why, why_len, "paged_cache_load: a kernel of one op with container, page table and y");
        return HIPDNN_STATUS_NOT_SUPPORTED;
    }
    if (!check_shapes(&p, why, why_len) || !check_types(&p, why, why_len))
        return HIPDNN_STATUS_NOT_SUPPORTED;
    p.vec = choose_vec(&p, t);
    base_sb defs = {0}, hooks = {0};
    hipdnnStatus_t st = cg_collect_params(g, k, out, &defs);
    if (st == HIPDNN_STATUS_SUCCESS) {
        base_sb_printf(&defs, "#define HD_THREADS %d\n#define HD_B %lldLL\n#define HD_H %lldLL\n"
                       "#define HD_S %lldLL\n#define HD_D %lldLL\n#define HD_PAGE %lldLL\n#define HD_NBLK %lldLL\n"
                       "#define HD_VEC %d\n", THREADS, (long long)p.b, (long long)p.h, (long long)p.s,
                       (long long)p.d, (long long)p.page, (long long)p.nblk, p.vec);
        emit_hooks(&p, &hooks);
        st = cg_assemble(t, "paged_load.hip", &defs, &hooks, out);
    }
    int64_t items = p.b * p.h * p.s * (p.d / p.vec);
    int64_t blocks = (items + THREADS - 1) / THREADS, cap = (int64_t)(t->sm_count > 0 ? t->sm_count : 132) * 16;
    out->entry = "hd_paged_load_kernel";
    out->grid[0] = (unsigned)(blocks < cap ? (blocks > 0 ? blocks : 1) : cap), out->grid[1] = out->grid[2] = 1;
    out->block[0] = THREADS, out->block[1] = out->block[2] = 1;
    out->align = p.vec > 1 ? 16 : 1;
    base_sb_free(&defs);
    base_sb_free(&hooks);
    return st;
}
