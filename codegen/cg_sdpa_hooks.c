/* cg_sdpa_hooks.c — the pieces of attention code generation that forward (cg_sdpa.c) and backward
 * (cg_sdpa_bwd.c) share: operand checks and the hooks both templates take with one spelling.
 * Contract: cg_sdpa.h. Owns no template and no tile choice.
 */
#include <stdio.h>
#include <string.h>

#include "codegen/cg_sdpa.h"

bool cg_sdpa_is16(hipdnnDataType_t t) { return t == HIPDNN_DATA_BFLOAT16 || t == HIPDNN_DATA_HALF; }

bool cg_sdpa_is_int(hipdnnDataType_t t) { return t == HIPDNN_DATA_INT32 || t == HIPDNN_DATA_INT64; }

int64_t cg_sdpa_numel(const ir_tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->rank; d++)
        n *= t->dims[d];
    return n;
}

bool cg_sdpa_rows_of(const ir_tensor *t, int64_t elems)
{
    if (t->rank != 4 || t->strides[3] != 1)
        return false;
    for (int d = 0; d < 3; d++)
        if (t->strides[d] % elems != 0 && t->dims[d] != 1)
            return false;
    return true;
}

bool cg_sdpa_rows_ok(const ir_tensor *t) { return cg_sdpa_rows_of(t, 8); }

bool cg_sdpa_shaped(const ir_tensor *t, const int64_t want[4], bool bcast)
{
    if (t->rank != 4 || cg_dtype(t->dtype) == NULL)
        return false;
    for (int d = 0; d < 4; d++)
        if (t->dims[d] != want[d] && !(bcast && t->dims[d] == 1))
            return false;
    return true;
}

bool cg_sdpa_int_scalar_ok(const ir_tensor *t) { return cg_sdpa_is_int(t->dtype) && !t->runtime_scalar; }

bool cg_sdpa_seq_ok(const ir_tensor *t, int64_t B)
{
    return cg_sdpa_is_int(t->dtype) && t->dims[0] == B && !t->by_value && !t->runtime_scalar;
}

void cg_sdpa_offset(const ir_graph *g, int ti, const char *const coord[4], base_sb *sb)
{
    const ir_tensor *t = &g->t[ti];
    base_sb_puts(sb, "0LL");
    for (int d = 0; d < 4; d++)
        if (coord[d] != NULL && t->dims[d] != 1)
            base_sb_printf(sb, " + (hd_i64)(%s) * %lldLL", coord[d], (long long)t->strides[d]);
}

void cg_sdpa_row_hook(const ir_graph *g, const char *name, int ti, int64_t group, base_sb *sb)
{
    char head[64];
    snprintf(head, sizeof head, "h / %lld", (long long)group);
    const char *coord[4] = {"b", head, "i", NULL};
    base_sb_printf(sb, "HD_DEVICE hd_i64 %s(int b, int h, int i, HD_PARAMS)\n{\n    return ", name);
    cg_sdpa_offset(g, ti, coord, sb);
    base_sb_puts(sb, ";\n}\n");
}

static const char *int_dt(hipdnnDataType_t t) { return t == HIPDNN_DATA_INT64 ? "HD_DT_INT64" : "HD_DT_INT32"; }

void cg_sdpa_seq_hook(const ir_graph *g, const char *name, int ti, int64_t max, base_sb *sb)
{
    base_sb_printf(sb, "HD_DEVICE int %s(int b, HD_PARAMS)\n{\n", name);
    if (ti < 0) {
        base_sb_printf(sb, "    return %lld;\n}\n", (long long)max);
        return;
    }
    base_sb_printf(sb, "    hd_i64 n = hd_ldi<%s>(p%d, (hd_i64)b * %lldLL);\n"
                   "    return (int)(n < 0 ? 0 : n > %lld ? %lld : n);\n}\n",
                   int_dt(g->t[ti].dtype), ti, (long long)g->t[ti].strides[0], (long long)max,
                   (long long)max);
}

void cg_sdpa_scalar_value(const ir_graph *g, int ti, base_sb *sb)
{
    char buf[64];
    const char *e = cg_scalar_expr(g, ti, buf, sizeof buf);
    if (e != NULL)
        base_sb_puts(sb, e);
    else
        base_sb_printf(sb, "hd_ld<%s>(p%d, 0)", cg_dtype(g->t[ti].dtype), ti);
}

void cg_sdpa_int_value(const ir_graph *g, int ti, base_sb *sb)
{
    const ir_tensor *t = &g->t[ti];
    if (!t->by_value) {
        base_sb_printf(sb, "(unsigned long long)hd_ldi<%s>(p%d, 0)", int_dt(t->dtype), ti);
        return;
    }
    int64_t v;
    int32_t v32;
    if (t->dtype == HIPDNN_DATA_INT64) {
        memcpy(&v, t->value, sizeof v);
    } else {
        memcpy(&v32, t->value, sizeof v32);
        v = v32;
    }
    base_sb_printf(sb, "%lluULL", (unsigned long long)v);
}

void cg_sdpa_scale_hook(const ir_graph *g, int ti, double attn_scale, base_sb *sb)
{
    base_sb_puts(sb, "HD_DEVICE float hd_scale(HD_PARAMS)\n{\n    return ");
    if (ti >= 0)
        cg_sdpa_scalar_value(g, ti, sb);
    else
        base_sb_printf(sb, "%.9gf", attn_scale);
    base_sb_puts(sb, ";\n}\n");
}

bool cg_sdpa_positive_scale(const ir_graph *g, int ti, double attn_scale)
{
    double v;
    if (ti < 0)
        return attn_scale > 0;
    return cg_const_value(g, ti, &v) && v > 0;
}

void cg_sdpa_bshs_hook(const ir_graph *g, const char *name, int ti, base_sb *sb)
{
    const char *coord[4] = {"b", "h", "i", "j"};
    base_sb_printf(sb, "HD_DEVICE float %s(int b, int h, int i, int j, HD_PARAMS)\n{\n"
                   "    return hd_ld<%s>(p%d, ", name, cg_dtype(g->t[ti].dtype), ti);
    cg_sdpa_offset(g, ti, coord, sb);
    base_sb_puts(sb, ");\n}\n");
}

/* The largest power of two <= H. */
static int64_t alibi_n(int64_t H)
{
    int64_t n = 1;
    while (n <= H / 2)
        n *= 2;
    return n;
}

void cg_sdpa_alibi_hook(int64_t Hq, base_sb *sb)
{
    long long n = (long long)alibi_n(Hq);
    base_sb_printf(sb, "HD_DEVICE float hd_alibi_slope(int h)\n{\n    const float n = %lld.0f;\n"
                   "    return h < %lld ? exp2f(-8.0f * (float)(h + 1) / n)\n"
                   "                    : exp2f(-4.0f * (float)(2 * (h - %lld) + 1) / n);\n}\n", n, n, n);
}

void cg_sdpa_band_defs(const ir_sdpa *p, int64_t Sq, int64_t Skv, base_sb *defs)
{
    int64_t lim = Sq + Skv + 1; /* a bound past this cuts nothing */
    base_sb_printf(defs, "#define HD_HAS_RIGHT %d\n#define HD_RIGHT %lld\n#define HD_HAS_LEFT %d\n"
                   "#define HD_LEFT %lld\n#define HD_BOTTOM_RIGHT %d\n", p->has_right,
                   (long long)(p->right_bound < lim ? p->right_bound : lim), p->has_left,
                   (long long)(p->left_bound < lim ? p->left_bound : lim), p->bottom_right);
}

void cg_sdpa_philox_hooks(const ir_graph *g, double p, int seed, int offset, base_sb *sb)
{
    base_sb_printf(sb, "#define hd_drop_p %.9gf\nHD_DEVICE unsigned long long hd_drop_seed(HD_PARAMS)\n{\n"
                   "    return ", (double)(float)p);
    cg_sdpa_int_value(g, seed, sb);
    base_sb_puts(sb, ";\n}\nHD_DEVICE unsigned long long hd_drop_offset(HD_PARAMS)\n{\n    return ");
    cg_sdpa_int_value(g, offset, sb);
    base_sb_puts(sb, ";\n}\n");
}

bool cg_sdpa_fail(char *why, size_t len, const char *msg)
{
    snprintf(why, len, "%s", msg);
    return false;
}

bool cg_sdpa_check_opts(const ir_graph *g, const cg_sdpa_opts *o, const int64_t full[4], double dropout_p,
                        char *why, size_t len)
{
    const ir_tensor *t = g->t;
    if (dropout_p > 0 && (o->dropout_mask >= 0 || o->scales[0] >= 0))
        return cg_sdpa_fail(why, len, "Philox dropout and custom dropout (DROPOUT_MASK / DROPOUT_SCALE) are exclusive");
    if (o->dropout_mask >= 0 && !cg_sdpa_shaped(&t[o->dropout_mask], full, true))
        return cg_sdpa_fail(why, len, "the dropout mask must be [1|B,1|Hq,1|Sq,1|Skv] of a type templates load");
    for (int i = 0; i < 2; i++)
        if (o->scales[i] >= 0 && cg_dtype(t[o->scales[i]].dtype) == NULL)
            return cg_sdpa_fail(why, len, "a dropout scale type templates cannot load");
    if (dropout_p > 0 && (o->seed < 0 || o->offset < 0 || !cg_sdpa_int_scalar_ok(&t[o->seed]) ||
                          !cg_sdpa_int_scalar_ok(&t[o->offset])))
        return cg_sdpa_fail(why, len, "dropout needs integer SEED and OFFSET in device memory or by value "
                      "(run-time host scalars are not supported by the attention template)");
    if ((o->seq_q >= 0 && !cg_sdpa_seq_ok(&t[o->seq_q], full[0])) ||
        (o->seq_kv >= 0 && !cg_sdpa_seq_ok(&t[o->seq_kv], full[0])))
        return cg_sdpa_fail(why, len, "SEQ_LEN_Q / SEQ_LEN_KV must be [B,1,1,1] integer tensors");
    if (o->bias >= 0 && !cg_sdpa_shaped(&t[o->bias], full, true))
        return cg_sdpa_fail(why, len, "the bias must be [1|B,1|Hq,1|Sq,1|Skv] of a type templates load");
    if (o->scale >= 0 && cg_dtype(t[o->scale].dtype) == NULL)
        return cg_sdpa_fail(why, len, "an attention scale type templates cannot load");
    return true;
}

void cg_sdpa_drop_scale_hook(const ir_graph *g, double p, int scale, base_sb *sb)
{
    base_sb_puts(sb, "HD_DEVICE float hd_drop_scale(HD_PARAMS)\n{\n    return ");
    if (p > 0)
        base_sb_printf(sb, "%.9gf", 1.0 / (1.0 - p));
    else if (scale >= 0)
        cg_sdpa_scalar_value(g, scale, sb);
    else
        base_sb_puts(sb, "1.0f");
    base_sb_puts(sb, ";\n}\n");
}

void cg_sdpa_stats_hook(const ir_graph *g, const int out[3], base_sb *sb)
{
    static const char *const value[3] = {"l > 0.0f ? m + logf(l) : m", "m", "l"};
    const char *coord[4] = {"b", "h", "i", NULL};
    base_sb_puts(sb, "HD_DEVICE void hd_row_stats(int b, int h, int i, float m, float l, HD_PARAMS)\n{\n");
    for (int n = 0; n < 3; n++) {
        if (out[n] < 0)
            continue;
        base_sb_printf(sb, "    hd_st<%s>(p%d, ", cg_dtype(g->t[out[n]].dtype), out[n]);
        cg_sdpa_offset(g, out[n], coord, sb);
        base_sb_printf(sb, ", %s);\n", value[n]);
    }
    base_sb_puts(sb, "}\n");
}
