/* cg_channorm.c — emits the per-channel reductions with kernel_templates/channorm.hip:
 * batchnorm training (with its pointwise epilogue on y), batchnorm backward, and genstats
 * (with its pointwise prologue on x). One source, three passes: reduce, finalize, apply.
 *
 * x [N, C, d2, ...] is a grid of (channel c = dim 1, position m over every other dim). The
 * position dims are ordered by the strides of the kernel's lead tensor (its first input in
 * memory with x's dims), outermost first, and neighbours are merged where every tensor in
 * memory that varies with m is packed across them (NCHW: [N][H*W]; NHWC: [N*H*W]). The hooks
 * decompose m over the merged dims. Every tensor the kernel touches has x's rank, each dim x's
 * or 1, and is one of
 *   element  varies with m: x, y, dy, dx, prologue/epilogue operands and results
 *            (size-1 dims broadcast)                   -> its own strides at (c, m)
 *   channel  only dim 1 above 1: scale, bias, statistics, running statistics -> c * stride[1]
 *   scalar   all dims 1, any rank: epsilon, momentum, constants -> offset 0, a literal or a
 *            run-time parameter
 * Blocks run their lanes along channels (up to 32) when the channel has the lead's smallest
 * stride (NHWC), else along positions. The split count (blocks per channel tile) comes from the
 * shapes alone, so cg_scratch_bytes and the emitted kernel always agree on the workspace.
 * NOT_SUPPORTED (with the reason): a tensor of another rank or of a dim neither x's nor 1, a
 * pointwise result that is not x-shaped, GEN_INDEX or a non-pointwise op fused in, a data type
 * the templates cannot load, an empty x.
 */
#include <stdio.h>
#include <string.h>

#include "codegen/cg_int.h"

#define THREADS 256       /* reduce and apply blocks */
#define UNROLL 8          /* the template's HD_UNROLL */
#define TARGET_BLOCKS 1024 /* reduce grid: about a wave of 256-thread blocks on a large GPU */
#define MAX_SPLITS 1024
#define FIN_CHANNELS 8    /* channels per hd_chan_finalize block */

typedef enum kind { K_ELEM, K_CHAN, K_SCALAR, K_BAD } kind;

typedef struct chan {
    const ir_graph *g;
    const ir_kernel *k;
    const ir_op *op;
    int opcode;               /* the template's HD_OP: 0 genstats, 1 BN training, 2 BN backward */
    int xi;                   /* x's tensor index */
    const ir_tensor *x;
    int64_t C, M;
    int nd;                   /* merged position dims, outermost first */
    int64_t size[IR_MAX_RANK];
    int inner[IR_MAX_RANK];   /* x dim whose stride steps merged dim i */
    int tc, tm;
    int64_t ctiles, splits, chunk;
} chan;

static bool fail(char *why, size_t len, const char *msg)
{
    snprintf(why, len, "%s", msg);
    return false;
}

static kind kind_of(const chan *n, int ti)
{
    const ir_tensor *t = &n->g->t[ti];
    bool ones = true;
    for (int d = 0; d < t->rank; d++)
        ones &= t->dims[d] == 1;
    if (ones)
        return K_SCALAR; /* of any rank (a by-value epsilon is often [1, 1]) */
    if (t->rank != n->x->rank)
        return K_BAD;
    bool varies = false, per_channel = false;
    for (int d = 0; d < t->rank; d++) {
        if (t->dims[d] != 1 && t->dims[d] != n->x->dims[d])
            return K_BAD;
        if (t->dims[d] != 1)
            *(d == 1 ? &per_channel : &varies) = true;
    }
    return varies ? K_ELEM : per_channel ? K_CHAN : K_SCALAR;
}

static bool listed(const int *list, int n, int ti)
{
    for (int i = 0; i < n; i++)
        if (list[i] == ti)
            return true;
    return false;
}

static bool written(const chan *n, int ti) { return ti >= 0 && listed(n->k->writes, n->k->n_writes, ti); }

/* A tensor in memory (read or written by the kernel) that varies with m. */
static bool memory_elem(const chan *n, int ti)
{
    return (listed(n->k->reads, n->k->n_reads, ti) || written(n, ti)) && kind_of(n, ti) == K_ELEM;
}

/* ---- checks ------------------------------------------------------------------------------------ */

static int opcode_of(ir_op_kind k) { return k == IR_OP_GENSTATS ? 0 : k == IR_OP_BN_TRAIN ? 1 : 2; }

static bool check_op(const chan *n, const ir_op *op, ir_part part, char *why, size_t len)
{
    if (op == n->op)
        return true;
    if (op->kind != IR_OP_POINTWISE) {
        snprintf(why, len, "%s fused into %s has no template yet", ir_op_info_of(op->kind)->name,
                 ir_op_info_of(n->op->kind)->name);
        return false;
    }
    if (op->a.pw.mode == HIPDNN_POINTWISE_GEN_INDEX)
        return fail(why, len, "GEN_INDEX fused into a channel reduction has no template yet");
    if ((part == IR_PART_PROLOGUE && n->opcode != 0) || (part == IR_PART_EPILOGUE && n->opcode != 1)) {
        snprintf(why, len, "a pointwise %s on %s has no template", part == IR_PART_PROLOGUE ?
                 "prologue" : "epilogue", ir_op_info_of(n->op->kind)->name);
        return false;
    }
    if (memcmp(n->g->t[op->out[0]].dims, n->x->dims, sizeof n->x->dims[0] * (size_t)n->x->rank) != 0 ||
        n->g->t[op->out[0]].rank != n->x->rank) {
        snprintf(why, len, "tensor uid %lld: a pointwise result fused into %s must have x's dims",
                 (long long)n->g->t[op->out[0]].uid, ir_op_info_of(n->op->kind)->name);
        return false;
    }
    return true;
}

static bool check_tensors(const chan *n, const ir_op *op, char *why, size_t len)
{
    for (int s = 0; s < op->n_in + op->n_out; s++) {
        int ti = s < op->n_in ? op->in[s] : op->out[s - op->n_in];
        if (ti < 0)
            continue;
        const ir_tensor *t = &n->g->t[ti];
        if (cg_dtype(t->dtype) == NULL) {
            snprintf(why, len, "tensor uid %lld: data type %d has no kernel support yet",
                     (long long)t->uid, (int)t->dtype);
            return false;
        }
        if (kind_of(n, ti) == K_BAD) {
            snprintf(why, len, "tensor uid %lld: rank or dims the channel-reduction template "
                     "cannot address (each dim must be x's or 1)", (long long)t->uid);
            return false;
        }
    }
    return true;
}

/* The anchor's own operands: per-channel ones are not element-wise, x-like ones have x's dims. */
static bool check_anchor(const chan *n, char *why, size_t len)
{
    const ir_op *op = n->op;
    const char *name = ir_op_info_of(op->kind)->name;
    for (int s = 0; s < op->n_in + op->n_out; s++) {
        int ti = s < op->n_in ? op->in[s] : op->out[s - op->n_in];
        bool elem_slot = (n->opcode == 1 && (s == 0 || s == op->n_in)) ||
                         (n->opcode == 2 && (s <= 1 || s == op->n_in)) || (n->opcode == 0 && s == 0);
        if (ti < 0 || (elem_slot && n->g->t[ti].rank == n->x->rank &&
                       memcmp(n->g->t[ti].dims, n->x->dims, sizeof n->x->dims[0] * (size_t)n->x->rank) == 0))
            continue;
        if (elem_slot || kind_of(n, ti) == K_ELEM) {
            snprintf(why, len, "%s: tensor uid %lld has a shape the template cannot address", name,
                     (long long)n->g->t[ti].uid);
            return false;
        }
    }
    if (n->opcode == 1 && op->in[3] < 0)
        return fail(why, len, "bn_training without epsilon");
    bool running = written(n, op->out[3]) || written(n, op->out[4]);
    if (n->opcode == 1 && running && (op->in[4] < 0 || op->in[5] < 0 || op->in[6] < 0))
        return fail(why, len, "bn_training: running statistics need prev_mean, prev_var and momentum");
    if (n->opcode == 2 && (op->in[0] < 0 || op->in[3] < 0 || op->in[4] < 0))
        return fail(why, len, "bn_backward without dy, mean or inv_variance");
    return true;
}

static bool check(const chan *n, char *why, size_t len)
{
    if (n->C < 1 || n->M < 1)
        return fail(why, len, "an empty x: no channel reduction to run");
    if (n->C > 0x7fffffffLL)
        return fail(why, len, "more than 2^31 - 1 channels");
    for (int i = 0; i < n->k->n_ops; i++) {
        const ir_op *op = &n->g->ops[n->k->ops[i]];
        if (!check_op(n, op, n->k->part[i], why, len) || !check_tensors(n, op, why, len))
            return false;
    }
    return check_anchor(n, why, len);
}

/* ---- geometry ---------------------------------------------------------------------------------- */

/* The first tensor the kernel reads from memory with exactly x's dims (x itself usually). */
static const ir_tensor *lead_of(const chan *n)
{
    for (int i = 0; i < n->k->n_reads; i++) {
        const ir_tensor *t = &n->g->t[n->k->reads[i]];
        if (t->rank == n->x->rank && memcmp(t->dims, n->x->dims, sizeof t->dims[0] * (size_t)t->rank) == 0)
            return t;
    }
    return n->x;
}

/* Whether x dim d can join the merged dim whose innermost x dim is o: every element tensor in
 * memory is broadcast on both or packed across them. */
static bool mergeable(const chan *n, int o, int d)
{
    for (int ti = 0; ti < n->g->n_t; ti++) {
        if (!memory_elem(n, ti))
            continue;
        const ir_tensor *t = &n->g->t[ti];
        if (t->dims[o] == 1 && t->dims[d] == 1)
            continue;
        if (t->dims[o] == 1 || t->dims[d] == 1 || t->strides[o] != t->strides[d] * t->dims[d])
            return false;
    }
    return true;
}

static void plan_positions(chan *n, const ir_tensor *lead)
{
    int order[IR_MAX_RANK], cnt = 0;
    for (int d = 0; d < n->x->rank; d++)
        if (d != 1 && n->x->dims[d] > 1)
            order[cnt++] = d;
    for (int i = 1; i < cnt; i++) /* stable: outermost (largest lead stride) first */
        for (int j = i; j > 0 && lead->strides[order[j - 1]] < lead->strides[order[j]]; j--) {
            int t = order[j];
            order[j] = order[j - 1], order[j - 1] = t;
        }
    n->nd = 0;
    for (int i = 0; i < cnt; i++) {
        int d = order[i];
        if (n->nd > 0 && mergeable(n, n->inner[n->nd - 1], d)) {
            n->size[n->nd - 1] *= n->x->dims[d];
            n->inner[n->nd - 1] = d;
        } else {
            n->size[n->nd] = n->x->dims[d], n->inner[n->nd] = d, n->nd++;
        }
    }
}

static void plan_blocks(chan *n, const ir_tensor *lead)
{
    bool channel_fast = n->C > 1 && (n->nd == 0 || lead->strides[1] < lead->strides[n->inner[n->nd - 1]]);
    n->tc = 1;
    while (channel_fast && n->tc < 32 && n->tc < n->C)
        n->tc *= 2;
    n->tm = THREADS / n->tc;
    n->ctiles = (n->C + n->tc - 1) / n->tc;
    int64_t want = (TARGET_BLOCKS + n->ctiles - 1) / n->ctiles;
    int64_t per = (int64_t)n->tm * UNROLL * 2; /* at least two batches per thread */
    int64_t most = (n->M + per - 1) / per;
    n->splits = want < most ? want : most;
    n->splits = n->splits < 1 ? 1 : n->splits > MAX_SPLITS ? MAX_SPLITS : n->splits;
    n->chunk = (n->M + n->splits - 1) / n->splits;
    n->splits = (n->M + n->chunk - 1) / n->chunk;
}

/* Fills n for kernel k; false (with the reason) when the template cannot run it. */
static bool plan(chan *n, const ir_graph *g, const ir_kernel *k, char *why, size_t len)
{
    *n = (chan){.g = g, .k = k, .op = &g->ops[k->anchor]};
    n->opcode = opcode_of(n->op->kind);
    n->xi = n->op->in[n->opcode == 2 ? 1 : 0];
    if (n->xi < 0)
        return fail(why, len, "a channel reduction without x");
    n->x = &g->t[n->xi];
    if (n->x->rank < 2)
        return fail(why, len, "x of rank < 2 has no channel dim");
    n->C = n->x->dims[1];
    n->M = 1;
    for (int d = 0; d < n->x->rank; d++)
        n->M *= d == 1 ? 1 : n->x->dims[d];
    if (!check(n, why, len))
        return false;
    const ir_tensor *lead = lead_of(n);
    plan_positions(n, lead);
    plan_blocks(n, lead);
    return true;
}

static int64_t scratch_of(const chan *n) { return (n->splits * 3 + 5) * n->C * (int64_t)sizeof(float); }

/* ---- hooks ------------------------------------------------------------------------------------- */

/* Coordinates k0.. of position m over the merged dims (32-bit division by constants when
 * the positions fit, as they nearly always do; offsets are 64-bit either way). */
static void coords(const chan *n, base_sb *sb)
{
    if (n->nd == 0) {
        base_sb_puts(sb, "    (void)m;\n");
        return;
    }
    bool narrow = n->M <= 0xffffffffLL;
    const char *type = narrow ? "unsigned" : "hd_i64", *suffix = narrow ? "u" : "LL";
    base_sb_printf(sb, "    %s q_ = (%s)m;\n", type, type);
    for (int i = n->nd - 1; i > 0; i--)
        base_sb_printf(sb, "    %s k%d = q_ %% %lld%s;\n    q_ /= %lld%s;\n", type, i, (long long)n->size[i],
                       suffix, (long long)n->size[i], suffix);
    base_sb_printf(sb, "    %s k0 = q_;\n", type);
}

/* Element offset of tensor ti at (c, k0..). */
static void offset(const chan *n, int ti, base_sb *sb)
{
    const ir_tensor *t = &n->g->t[ti];
    int terms = 0;
    if (kind_of(n, ti) != K_SCALAR && t->dims[1] != 1)
        base_sb_printf(sb, "%s(hd_i64)c * %lldLL", terms++ ? " + " : "", (long long)t->strides[1]);
    for (int i = 0; i < n->nd && kind_of(n, ti) == K_ELEM; i++)
        if (t->dims[n->inner[i]] != 1)
            base_sb_printf(sb, "%sk%d * %lldLL", terms++ ? " + " : "", i, (long long)t->strides[n->inner[i]]);
    if (terms == 0)
        base_sb_puts(sb, "0");
}

/* Declares float t<ti> = tensor ti at (c, m) unless it is already held. */
static void value(const chan *n, int ti, bool *have, base_sb *sb)
{
    if (ti < 0 || have[ti])
        return;
    have[ti] = true;
    char buf[64];
    const char *scalar = cg_scalar_expr(n->g, ti, buf, sizeof buf);
    base_sb_printf(sb, "    float t%d = ", ti);
    if (scalar != NULL) {
        base_sb_printf(sb, "%s;\n", scalar);
        return;
    }
    base_sb_printf(sb, "hd_ld<%s>(p%d, ", cg_dtype(n->g->t[ti].dtype), ti);
    offset(n, ti, sb);
    base_sb_puts(sb, ");\n");
}

/* Stores t<ti> (or `v`) to tensor ti when the kernel writes it. */
static void store(const chan *n, int ti, const char *v, base_sb *sb)
{
    if (!written(n, ti))
        return;
    base_sb_printf(sb, "    hd_st<%s>(p%d, ", cg_dtype(n->g->t[ti].dtype), ti);
    offset(n, ti, sb);
    if (v != NULL)
        base_sb_printf(sb, ", %s);\n", v);
    else
        base_sb_printf(sb, ", t%d);\n", ti);
}

/* The pointwise ops of one part at (c, m); stores their results that go to memory. */
static void run_part(const chan *n, ir_part part, bool *have, base_sb *sb)
{
    for (int i = 0; i < n->k->n_ops; i++) {
        if (n->k->part[i] != part)
            continue;
        const ir_op *op = &n->g->ops[n->k->ops[i]];
        for (int s = 0; s < op->n_in; s++)
            value(n, op->in[s], have, sb);
        char a[24], b[24], c[24], out[32];
        snprintf(a, sizeof a, "t%d", op->in[0]);
        snprintf(b, sizeof b, "t%d", op->in[1]);
        snprintf(c, sizeof c, "t%d", op->in[2]);
        snprintf(out, sizeof out, "float t%d", op->out[0]);
        base_sb_puts(sb, "    ");
        cg_pointwise_stmt(sb, op, out, a, op->in[1] >= 0 ? b : NULL, op->in[2] >= 0 ? c : NULL, "0");
        base_sb_printf(sb, "    t%d = hd_round<%s>(t%d);\n", op->out[0],
                       cg_dtype(n->g->t[op->out[0]].dtype), op->out[0]);
        have[op->out[0]] = true;
        store(n, op->out[0], NULL, sb);
    }
}

/* `dst = value of tensor ti (or `absent`)` for a per-channel or scalar operand. */
static void chan_value(const chan *n, int ti, const char *dst, const char *absent, bool *have, base_sb *sb)
{
    if (ti < 0) {
        base_sb_printf(sb, "    %s = %s;\n", dst, absent);
        return;
    }
    value(n, ti, have, sb);
    base_sb_printf(sb, "    %s = t%d;\n", dst, ti);
}

static void hook_open(const chan *n, const char *sig, bool *have, base_sb *sb)
{
    memset(have, 0, (size_t)n->g->n_t * sizeof *have);
    base_sb_printf(sb, "HD_DEVICE %s, HD_PARAMS)\n{\n", sig);
}

static void emit_loads(const chan *n, bool *have, base_sb *sb)
{
    const int *in = n->op->in;
    hook_open(n, "float hd_load_x(int c, hd_i64 m", have, sb);
    coords(n, sb);
    run_part(n, IR_PART_PROLOGUE, have, sb);
    value(n, n->xi, have, sb);
    base_sb_printf(sb, "    return t%d;\n}\n", n->xi);

    hook_open(n, "float hd_load_dy(int c, hd_i64 m", have, sb);
    if (n->opcode == 2) {
        coords(n, sb);
        value(n, in[0], have, sb);
        base_sb_printf(sb, "    return t%d;\n}\n", in[0]);
    } else {
        base_sb_puts(sb, "    return 0.0f;\n}\n");
    }

    hook_open(n, "void hd_load_chan(int c, float *k", have, sb);
    int slots[3][3] = {{-1, -1, -1}, {in[1], in[2], -1}, {in[2], in[3], in[4]}};
    const char *absent[3] = {"1.0f", "0.0f", "0.0f"};
    for (int j = 0; j < 3; j++) {
        char dst[8];
        snprintf(dst, sizeof dst, "k[%d]", j);
        chan_value(n, slots[n->opcode][j], dst, n->opcode ? absent[j] : "0.0f", have, sb);
    }
    base_sb_puts(sb, "}\n");

    hook_open(n, "void hd_load_running(int c, float *r", have, sb);
    for (int j = 0; j < 3; j++) {
        char dst[8];
        snprintf(dst, sizeof dst, "r[%d]", j);
        chan_value(n, n->opcode == 1 ? in[4 + j] : -1, dst, "0.0f", have, sb);
    }
    base_sb_puts(sb, "}\n");
}

static void emit_stores(const chan *n, bool *have, base_sb *sb)
{
    const int *out = n->op->out;
    int a = n->opcode == 0 ? out[0] : out[1], b = n->opcode == 0 ? out[1] : out[2];
    hook_open(n, "void hd_store_chan(int c, float a, float b", have, sb);
    store(n, a, "a", sb);
    store(n, b, "b", sb);
    base_sb_puts(sb, "}\n");

    hook_open(n, "void hd_store_running(int c, float mean, float var", have, sb);
    if (n->opcode == 1) {
        store(n, out[3], "mean", sb);
        store(n, out[4], "var", sb);
    }
    base_sb_puts(sb, "}\n");

    hook_open(n, "void hd_store_y(int c, hd_i64 m, float v", have, sb);
    if (n->opcode == 1) {
        coords(n, sb);
        base_sb_printf(sb, "    float t%d = hd_round<%s>(v);\n", out[0], cg_dtype(n->g->t[out[0]].dtype));
        have[out[0]] = true;
        store(n, out[0], NULL, sb);
        run_part(n, IR_PART_EPILOGUE, have, sb);
    }
    base_sb_puts(sb, "}\n");

    hook_open(n, "void hd_store_dx(int c, hd_i64 m, float v", have, sb);
    if (n->opcode == 2 && written(n, out[0])) {
        coords(n, sb);
        store(n, out[0], "v", sb);
    }
    base_sb_puts(sb, "}\n");
}

/* Whether the apply pass writes anything: y, an epilogue result or dx (every write but the
 * anchor's per-channel outputs). */
static bool needs_apply(const chan *n)
{
    for (int i = 0; n->opcode != 0 && i < n->k->n_writes; i++) {
        bool per_channel = false;
        for (int j = 1; j < n->op->n_out; j++)
            per_channel |= n->k->writes[i] == n->op->out[j];
        if (!per_channel)
            return true;
    }
    return false;
}

static void emit_defines(const chan *n, base_sb *defs)
{
    char eps[64] = "0.0f";
    int ei = n->opcode == 1 ? n->op->in[3] : -1;
    if (ei >= 0 && cg_scalar_expr(n->g, ei, eps, sizeof eps) == NULL)
        snprintf(eps, sizeof eps, "hd_ld<%s>(p%d, 0)", cg_dtype(n->g->t[ei].dtype), ei);
    bool running = n->opcode == 1 && (written(n, n->op->out[3]) || written(n, n->op->out[4]));
    base_sb_printf(defs, "#define HD_OP %d\n#define HD_C %lld\n#define HD_M %lldLL\n", n->opcode,
                   (long long)n->C, (long long)n->M);
    base_sb_printf(defs, "#define HD_TC %d\n#define HD_TM %d\n#define HD_THREADS %d\n", n->tc, n->tm, THREADS);
    base_sb_printf(defs, "#define HD_CTILES %lld\n#define HD_SPLITS %lld\n#define HD_CHUNK %lldLL\n",
                   (long long)n->ctiles, (long long)n->splits, (long long)n->chunk);
    base_sb_printf(defs, "#define HD_UNROLL %d\n#define HD_EPS (%s)\n#define HD_RUNNING %d\n", UNROLL, eps,
                   running);
}

static void set_launches(const chan *n, cg_kernel *out)
{
    out->entry = "hd_chan_reduce";
    out->grid[0] = (unsigned)n->ctiles, out->grid[1] = (unsigned)n->splits, out->grid[2] = 1;
    out->block[0] = THREADS, out->block[1] = out->block[2] = 1;
    out->then[0] = (cg_launch){.entry = "hd_chan_finalize",
                               .grid = {(unsigned)((n->C + FIN_CHANNELS - 1) / FIN_CHANNELS), 1, 1},
                               .block = {256, 1, 1}};
    out->n_then = 1;
    if (needs_apply(n))
        out->then[out->n_then++] = (cg_launch){.entry = "hd_chan_apply", .grid = {out->grid[0], out->grid[1], 1},
                                               .block = {THREADS, 1, 1}};
    out->align = 1;
    out->scratch = scratch_of(n);
}

hipdnnStatus_t cg_emit_channorm(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                                cg_kernel *out, char *why, size_t why_len)
{
    chan n;
    if (!plan(&n, g, k, why, why_len))
        return HIPDNN_STATUS_NOT_SUPPORTED;
    base_sb defs = {0}, hooks = {0};
    bool *have = base_calloc((size_t)g->n_t + 1, sizeof *have);
    hipdnnStatus_t st = have != NULL ? cg_collect_params(g, k, out, &defs)
                                     : base_fail(HIPDNN_STATUS_ALLOC_FAILED, "codegen: out of memory");
    if (st == HIPDNN_STATUS_SUCCESS && out->n_args == CG_MAX_ARGS)
        st = base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "codegen: a kernel with more than %d parameters",
                       CG_MAX_ARGS - 1);
    if (st == HIPDNN_STATUS_SUCCESS) {
        out->args[out->n_args++] = (cg_arg){.kind = CG_ARG_WORKSPACE, .tensor = -1};
        emit_defines(&n, &defs);
        emit_loads(&n, have, &hooks);
        emit_stores(&n, have, &hooks);
        st = cg_assemble(t, "channorm.hip", &defs, &hooks, out);
    }
    set_launches(&n, out);
    base_free(have);
    base_sb_free(&defs);
    base_sb_free(&hooks);
    return st;
}

int64_t cg_channorm_scratch(const ir_graph *g, const ir_kernel *k)
{
    chan n;
    char why[256];
    return plan(&n, g, k, why, sizeof why) ? scratch_of(&n) : 0;
}
