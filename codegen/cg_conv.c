/* cg_conv.c — emits CONV_FWD, CONV_DGRAD and CONV_WGRAD kernels with their pointwise epilogue:
 * kernel_templates/conv_igemm.hip (implicit GEMM on the tensor cores) for forward convolutions
 * whose x and w are both bf16 or both fp16 and channels-last with 16-byte aligned pixels, on
 * NVIDIA sm_80 and newer; kernel_templates/conv.hip (direct sums, any layout) for every other
 * case the reference interpreter accepts: 2-D and 3-D, padding, stride, dilation, groups,
 * both modes, any strides, any data type the templates load and store, fp32 sums.
 *
 * Operand names follow the forward op whatever the kind: x [N, C, (D,) H, W], w [K, C/G, (T,)
 * R, S], y [N, K, (O,) P, Q]; dgrad writes x (dx) from y (dy), wgrad writes w (dw). A 2-D
 * convolution is emitted as a 3-D one of depth 1; the stride of every size-1 dim is emitted as
 * 0 (op-semantics.md §0.4: it carries no meaning). The epilogue sees the output coordinates
 * (a, b, s0, s1, s2) = (dim 0, dim 1, depth, height, width); every epilogue tensor has the
 * output's rank and each dim the output's or 1 (broadcast), any strides; or it is a scalar.
 * Anything else (a prologue, an epilogue result of another shape) is NOT_SUPPORTED with a reason.
 */
#include <stdio.h>

#include "codegen/cg_int.h"

#define THREADS 256  /* conv.hip block size */
#define TILE 128     /* conv_igemm.hip tile (M and N) */

typedef struct conv {
    const ir_graph *g;
    const ir_kernel *k;
    const ir_op *op;
    int x, w, y, out;   /* tensor indices of the x-, w- and y-shaped operands; out: the result */
    int rank, sp;       /* rank 4 or 5, spatial dims 2 or 3 */
    int64_t n, cg, kg, groups;
    int64_t in[3], o[3], f[3], pre[3], str[3], dil[3]; /* [0] = depth (1 in 2-D) */
} conv;

static bool fail(char *why, size_t len, const char *msg)
{
    snprintf(why, len, "%s", msg);
    return false;
}

/* The stride of dim d, 0 when the dim has size 1. */
static int64_t stride_of(const ir_tensor *t, int d) { return t->dims[d] == 1 ? 0 : t->strides[d]; }

/* The stride of spatial dim e (0 depth, 1 height, 2 width) of a conv operand; 0 for the depth
 * of a 2-D one. */
static int64_t sp_stride(const conv *s, const ir_tensor *t, int e)
{
    int d = 2 + e - (3 - s->sp);
    return d < 2 ? 0 : stride_of(t, d);
}

/* ---- geometry and checks ---------------------------------------------------------------------------- */

static bool operands(conv *s, char *why, size_t len)
{
    const ir_op *op = s->op;
    if (op->kind == IR_OP_CONV_FWD)
        s->x = op->in[0], s->w = op->in[1], s->y = op->out[0];
    else if (op->kind == IR_OP_CONV_DGRAD)
        s->y = op->in[0], s->w = op->in[1], s->x = op->out[0];
    else
        s->x = op->in[0], s->y = op->in[1], s->w = op->out[0];
    s->out = op->out[0];
    if (s->x < 0 || s->w < 0 || s->y < 0)
        return fail(why, len, "convolution with a missing operand");
    const ir_tensor *x = &s->g->t[s->x], *w = &s->g->t[s->w], *y = &s->g->t[s->y];
    s->rank = x->rank, s->sp = op->a.conv.spatial;
    if ((s->rank != 4 && s->rank != 5) || w->rank != s->rank || y->rank != s->rank ||
        s->sp != s->rank - 2)
        return fail(why, len, "convolution operands need rank 4 or 5 (2 or 3 spatial dims)");
    if (cg_dtype(x->dtype) == NULL || cg_dtype(w->dtype) == NULL || cg_dtype(y->dtype) == NULL)
        return fail(why, len, "a convolution operand of a data type the templates cannot load or "
                    "store");
    return true;
}

static int64_t out_size(int64_t in, int64_t pre, int64_t post, int64_t dil, int64_t f, int64_t str)
{
    int64_t num = in + pre + post - dil * (f - 1) - 1;
    return num < 0 ? 0 : 1 + num / str;
}

static bool geometry(conv *s, char *why, size_t len)
{
    const ir_tensor *x = &s->g->t[s->x], *w = &s->g->t[s->w], *y = &s->g->t[s->y];
    const ir_conv *p = &s->op->a.conv;
    int64_t c = x->dims[1], k = w->dims[0];
    s->n = x->dims[0], s->cg = w->dims[1];
    if (s->cg < 1 || c % s->cg != 0 || k % (c / s->cg) != 0 || y->dims[0] != s->n || y->dims[1] != k)
        return fail(why, len, "convolution batch, channel or group sizes disagree");
    s->groups = c / s->cg, s->kg = k / s->groups;
    for (int e = 0; e < 3; e++) {
        int d = e - (3 - s->sp); /* spatial index in the IR attributes, < 0: the unit depth */
        s->in[e] = d < 0 ? 1 : x->dims[2 + d];
        s->o[e] = d < 0 ? 1 : y->dims[2 + d];
        s->f[e] = d < 0 ? 1 : w->dims[2 + d];
        s->pre[e] = d < 0 ? 0 : p->pre[d];
        s->str[e] = d < 0 ? 1 : p->stride[d];
        s->dil[e] = d < 0 ? 1 : p->dilation[d];
        int64_t post = d < 0 ? 0 : p->post[d];
        if (s->str[e] < 1 || s->dil[e] < 1 || s->pre[e] < 0 ||
            s->o[e] != out_size(s->in[e], s->pre[e], post, s->dil[e], s->f[e], s->str[e]))
            return fail(why, len, "convolution output size does not follow from input, filter, "
                        "padding, stride and dilation");
        if (s->in[e] > INT32_MAX / 4 || s->o[e] > INT32_MAX / 4 || s->f[e] > INT32_MAX / 4 ||
            s->pre[e] > INT32_MAX / 4 || s->str[e] > INT32_MAX / 4 || s->dil[e] * s->f[e] > INT32_MAX / 4)
            return fail(why, len, "convolution spatial sizes outside the templates' int range");
    }
    return true;
}

/* Only a pointwise epilogue; every tensor has the output's rank, dims the output's or 1. */
static bool check_epilogue(const conv *s, char *why, size_t len)
{
    const ir_tensor *out = &s->g->t[s->out];
    for (int i = 0; i < s->k->n_ops; i++) {
        const ir_op *op = &s->g->ops[s->k->ops[i]];
        if (op == s->op)
            continue;
        if (op->kind != IR_OP_POINTWISE || s->k->part[i] != IR_PART_EPILOGUE)
            return fail(why, len, "a convolution prologue (an op feeding its operands) has no "
                        "template");
        for (int j = 0; j < op->n_in + op->n_out; j++) {
            int ti = j < op->n_in ? op->in[j] : op->out[j - op->n_in];
            if (ti < 0)
                continue;
            const ir_tensor *t = &s->g->t[ti];
            bool scalar = t->by_value || t->runtime_scalar;
            bool ok = cg_dtype(t->dtype) != NULL && (t->rank == s->rank || scalar);
            for (int d = 0; ok && !scalar && d < t->rank; d++)
                ok = t->dims[d] == 1 || t->dims[d] == out->dims[d];
            if (!ok) {
                snprintf(why, len, "convolution epilogue tensor uid %lld: rank, dims or data type "
                         "the convolution templates cannot address", (long long)t->uid);
                return false;
            }
        }
    }
    return true;
}

/* ---- hooks ---------------------------------------------------------------------------------------- */

/* The epilogue's name of output coordinate d. */
static const char *coord(const conv *s, int d)
{
    static const char *const sp[3] = {"s0", "s1", "s2"};
    return d == 0 ? "a" : d == 1 ? "b" : sp[d - 2 + (3 - s->sp)];
}

static void element_offset(const conv *s, int ti, base_sb *sb)
{
    const ir_tensor *t = &s->g->t[ti];
    base_sb_puts(sb, "0LL");
    for (int d = 0; d < t->rank; d++)
        if (stride_of(t, d) != 0)
            base_sb_printf(sb, " + (hd_i64)%s * %lldLL", coord(s, d), (long long)stride_of(t, d));
}

static bool written(const conv *s, int ti)
{
    for (int i = 0; i < s->k->n_writes; i++)
        if (s->k->writes[i] == ti)
            return true;
    return false;
}

static void load(const conv *s, int ti, bool *have, base_sb *sb)
{
    if (ti < 0 || have[ti])
        return;
    have[ti] = true;
    char buf[64];
    const char *scalar = cg_scalar_expr(s->g, ti, buf, sizeof buf);
    base_sb_printf(sb, "    float t%d = ", ti);
    if (scalar != NULL) {
        base_sb_printf(sb, "%s;\n", scalar);
        return;
    }
    base_sb_printf(sb, "hd_ld<%s>(p%d, ", cg_dtype(s->g->t[ti].dtype), ti);
    element_offset(s, ti, sb);
    base_sb_puts(sb, ");\n");
}

static void store(const conv *s, int ti, base_sb *sb)
{
    if (!written(s, ti))
        return;
    base_sb_printf(sb, "    hd_st<%s>(p%d, ", cg_dtype(s->g->t[ti].dtype), ti);
    element_offset(s, ti, sb);
    base_sb_printf(sb, ", t%d);\n", ti);
}

/* hd_epilogue: the sum rounded to the output's type, then the fused pointwise ops. */
static void emit_epilogue(const conv *s, bool *have, base_sb *sb)
{
    const ir_graph *g = s->g;
    base_sb_puts(sb, "HD_DEVICE void hd_epilogue(hd_i64 a, hd_i64 b, int s0, int s1, int s2, "
                     "float acc, HD_PARAMS)\n{\n    (void)s0, (void)s1, (void)s2;\n");
    base_sb_printf(sb, "    float t%d = hd_round<%s>(acc);\n", s->out, cg_dtype(g->t[s->out].dtype));
    have[s->out] = true;
    store(s, s->out, sb);
    for (int i = 0; i < s->k->n_ops; i++) {
        if (s->k->part[i] != IR_PART_EPILOGUE)
            continue;
        const ir_op *op = &g->ops[s->k->ops[i]];
        for (int j = 0; j < op->n_in; j++)
            load(s, op->in[j], have, sb);
        char a[16], b[16], c[16], out[24];
        snprintf(a, sizeof a, "t%d", op->in[0]);
        snprintf(b, sizeof b, "t%d", op->in[1]);
        snprintf(c, sizeof c, "t%d", op->in[2]);
        snprintf(out, sizeof out, "float t%d", op->out[0]);
        int64_t axis = op->a.pw.axis < 0 ? op->a.pw.axis + s->rank : op->a.pw.axis;
        base_sb_puts(sb, "    ");
        cg_pointwise_stmt(sb, op, out, a, op->in[1] >= 0 ? b : NULL, op->in[2] >= 0 ? c : NULL,
                          coord(s, axis >= 0 && axis < s->rank ? (int)axis : 0));
        base_sb_printf(sb, "    t%d = hd_round<%s>(t%d);\n", op->out[0],
                       cg_dtype(g->t[op->out[0]].dtype), op->out[0]);
        have[op->out[0]] = true;
        store(s, op->out[0], sb);
    }
    base_sb_puts(sb, "}\n");
}

/* hd_out_coords: element e -> output coordinates, the fastest-varying memory dim first, so
 * neighbouring elements are neighbours in memory. */
static void emit_out_coords(const conv *s, base_sb *sb)
{
    const ir_tensor *t = &s->g->t[s->out];
    int order[IR_MAX_RANK], n = 0;
    for (int d = t->rank - 1; d >= 0; d--) {
        if (t->dims[d] == 1)
            continue;
        int i = n++;
        for (; i > 0 && stride_of(t, order[i - 1]) > stride_of(t, d); i--)
            order[i] = order[i - 1];
        order[i] = d;
    }
    base_sb_puts(sb, "HD_DEVICE void hd_out_coords(hd_i64 e, hd_i64 *a, hd_i64 *b, int *s)\n{\n"
                     "    *a = 0, *b = 0, s[0] = s[1] = s[2] = 0;\n");
    for (int i = 0; i < n; i++) {
        int d = order[i];
        const char *name = coord(s, d);
        long long dim = (long long)t->dims[d];
        if (d < 2)
            base_sb_printf(sb, "    *%s = e %% %lldLL; e /= %lldLL;\n", name, dim, dim);
        else
            base_sb_printf(sb, "    s[%c] = (int)(e %% %lldLL); e /= %lldLL;\n", name[1], dim, dim);
    }
    base_sb_puts(sb, "}\n");
}

/* ---- defines -------------------------------------------------------------------------------------- */

static void geometry_defines(const conv *s, base_sb *defs)
{
    static const char ax[3] = {'D', 'H', 'W'};
    base_sb_printf(defs, "#define HD_N %lld\n#define HD_CG %lld\n#define HD_KG %lld\n#define HD_G %lld\n"
                   "#define HD_FLIP %d\n", (long long)s->n, (long long)s->cg, (long long)s->kg,
                   (long long)s->groups, s->op->a.conv.convolution ? 1 : 0);
    for (int e = 0; e < 3; e++)
        base_sb_printf(defs, "#define HD_I%c %lld\n#define HD_O%c %lld\n#define HD_F%c %lld\n"
                       "#define HD_P%c %lld\n#define HD_S%c %lld\n#define HD_D%c %lld\n",
                       ax[e], (long long)s->in[e], ax[e], (long long)s->o[e], ax[e], (long long)s->f[e],
                       ax[e], (long long)s->pre[e], ax[e], (long long)s->str[e], ax[e], (long long)s->dil[e]);
    const char *names[3] = {"X", "W", "Y"}, *first[3] = {"N", "K", "N"}, *second[3] = {"C", "C", "K"};
    int ts[3] = {s->x, s->w, s->y};
    for (int i = 0; i < 3; i++) {
        const ir_tensor *t = &s->g->t[ts[i]];
        base_sb_printf(defs, "#define HD_%sS_%s %lldLL\n#define HD_%sS_%s %lldLL\n", names[i], first[i],
                       (long long)stride_of(t, 0), names[i], second[i], (long long)stride_of(t, 1));
        for (int e = 0; e < 3; e++)
            base_sb_printf(defs, "#define HD_%sS_%c %lldLL\n", names[i], ax[e], (long long)sp_stride(s, t, e));
        base_sb_printf(defs, "#define HD_%s_DT %s\n", names[i], cg_dtype(t->dtype));
        if (ts[i] != s->out) /* the result is reached through the epilogue only */
            base_sb_printf(defs, "#define HD_%s_PTR p%d\n", names[i], ts[i]);
    }
}

/* ---- the two paths -------------------------------------------------------------------------------- */

/* Whether conv_igemm.hip takes this kernel (forward, bf16/fp16, channels-last, aligned). */
static bool igemm_fits(const conv *s, const cg_target *t)
{
    const ir_tensor *x = &s->g->t[s->x], *w = &s->g->t[s->w];
    if (s->op->kind != IR_OP_CONV_FWD || !t->caps.mma_sync || (t->max_vec > 0 && t->max_vec < 8))
        return false;
    if (x->dtype != w->dtype || (x->dtype != HIPDNN_DATA_BFLOAT16 && x->dtype != HIPDNN_DATA_HALF))
        return false;
    if (x->strides[1] != 1 || w->strides[1] != 1 || (s->groups > 1 && s->cg % 8 != 0))
        return false;
    for (int e = 0; e < 3; e++)
        if (sp_stride(s, x, e) % 8 != 0 || sp_stride(s, w, e) % 8 != 0)
            return false;
    int64_t m = s->n * s->o[0] * s->o[1] * s->o[2];
    return stride_of(x, 0) % 8 == 0 && stride_of(w, 0) % 8 == 0 && m <= INT32_MAX / 2 &&
           (m + TILE - 1) / TILE <= 65535 && s->groups <= 65535 && s->kg <= INT32_MAX / 2 &&
           s->cg <= INT32_MAX / 2;
}

static void launch_igemm(const conv *s, cg_kernel *out)
{
    int64_t m = s->n * s->o[0] * s->o[1] * s->o[2];
    out->entry = "hd_conv_igemm_kernel";
    out->grid[0] = (unsigned)((s->kg + TILE - 1) / TILE), out->grid[1] = (unsigned)((m + TILE - 1) / TILE);
    out->grid[2] = (unsigned)s->groups;
    out->block[0] = 256, out->block[1] = out->block[2] = 1;
    out->smem = 0; /* static: 48 KB */
    out->align = 16;
}

/* conv.hip: terms per output element, and whether a warp shares each element. */
static bool launch_direct(const conv *s, const cg_target *t, base_sb *defs, cg_kernel *out, char *why,
                          size_t len)
{
    int64_t taps = s->f[0] * s->f[1] * s->f[2], red;
    if (s->op->kind == IR_OP_CONV_FWD)
        red = taps * s->cg;
    else if (s->op->kind == IR_OP_CONV_DGRAD)
        red = taps * s->kg;
    else
        red = s->n * s->o[0] * s->o[1] * s->o[2];
    int64_t numel = 1;
    const ir_tensor *o = &s->g->t[s->out];
    for (int d = 0; d < o->rank; d++)
        numel *= o->dims[d];
    if (red > INT32_MAX || numel > INT64_MAX / 64)
        return fail(why, len, "convolution reduction longer than the direct template's int range");
    /* A warp per element when the sums are long and there are few of them (wgrad's usual case). */
    int lanes = red >= 32 && (s->op->kind == IR_OP_CONV_WGRAD || numel <= 65536) ? 32 : 1;
    int kind = s->op->kind == IR_OP_CONV_FWD ? 0 : s->op->kind == IR_OP_CONV_DGRAD ? 1 : 2;
    base_sb_printf(defs, "#define HD_KIND %d\n#define HD_NUMEL %lldLL\n#define HD_RED %lld\n"
                   "#define HD_LANES %d\n#define HD_THREADS %d\n", kind, (long long)numel,
                   (long long)red, lanes, THREADS);
    int64_t blocks = (numel * lanes + THREADS - 1) / THREADS;
    int64_t cap = (int64_t)(t->sm_count > 0 ? t->sm_count : 132) * 16;
    out->entry = "hd_conv_kernel";
    out->grid[0] = (unsigned)(blocks < 1 ? 1 : blocks < cap ? blocks : cap);
    out->grid[1] = out->grid[2] = 1;
    out->block[0] = THREADS, out->block[1] = out->block[2] = 1;
    out->align = 1;
    return true;
}

hipdnnStatus_t cg_emit_conv(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                            cg_kernel *out, char *why, size_t why_len)
{
    conv s = {.g = g, .k = k, .op = &g->ops[k->anchor]};
    if (!operands(&s, why, why_len) || !geometry(&s, why, why_len) || !check_epilogue(&s, why, why_len))
        return HIPDNN_STATUS_NOT_SUPPORTED;
    bool igemm = igemm_fits(&s, t);
    base_sb defs = {0}, hooks = {0};
    bool *have = base_calloc((size_t)g->n_t + 1, sizeof *have);
    hipdnnStatus_t st = have != NULL ? cg_collect_params(g, k, out, &defs)
                                     : base_fail(HIPDNN_STATUS_ALLOC_FAILED, "codegen: out of memory");
    if (st == HIPDNN_STATUS_SUCCESS && igemm) {
        launch_igemm(&s, out);
        base_sb_printf(&defs, "#define HD_AB_DT %s\n", cg_dtype(g->t[s.x].dtype));
    } else if (st == HIPDNN_STATUS_SUCCESS && !launch_direct(&s, t, &defs, out, why, why_len)) {
        st = HIPDNN_STATUS_NOT_SUPPORTED;
    }
    if (st == HIPDNN_STATUS_SUCCESS) {
        geometry_defines(&s, &defs);
        if (!igemm)
            emit_out_coords(&s, &hooks);
        emit_epilogue(&s, have, &hooks);
        st = cg_assemble(t, igemm ? "conv_igemm.hip" : "conv.hip", &defs, &hooks, out);
    }
    base_free(have);
    base_sb_free(&defs);
    base_sb_free(&hooks);
    return st;
}
