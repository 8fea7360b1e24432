/* cg_sdpa_bwd.c — emits SDPA_BWD kernels with kernel_templates/sdpa_bwd.hip (FlashAttention-2
 * style backward, NVIDIA sm_80 and newer): three launches of one source sharing fp32 scratch
 * (lse2 and D per query row, and the fp32 dQ accumulator).
 * dQ: by default on sm_90 at head dims 64 and 128 accumulated inside the dK/dV pass (wgmma, each
 * tile added by the copy engine, then a convert launch: not bitwise reproducible), elsewhere a
 * deterministic pass of its own; jit.sdpa_bwd_atomic 1 always takes the pass, 2 always accumulates.
 * Products: wgmma on sm_90 for head dims 64 and 128 (HD_SM90, compiled for sm_90a; two warpgroups
 * a block: 128 keys a kv block, 128 query rows a dq block), mma.sync elsewhere (four warps: 64
 * and 64). jit.sdpa_ws 1 gives the wgmma kv block a third warpgroup that only loads its Q / dO
 * tiles (cp.async, full / empty mbarriers, setmaxnreg 40 / 232), so the computing warps meet at
 * no block-wide barrier a tile; jit.sdpa_ws 2 also has each computing warpgroup add its own keys'
 * share of the dQ tile (no dSᵀ exchange: the warpgroups may drift apart). jit.sdpa_wgmma 0
 * keeps mma.sync on sm_90; jit.sdpa_warps 4 gives wgmma one warpgroup a block (64 keys, 64 query rows; two blocks fit an SM). The kv block's
 * query tiles and the dq block's key tiles are 64 rows; 128 with wgmma at head dim 64 unless
 * jit.sdpa_block_m is 64 (at 128 the four fp32 tiles of a thread would not fit in registers).
 *
 * What the template addresses (ir_ref_sdpa_bwd defines the math; op-semantics.md §4.10):
 *   Q [B,Hq,Sq,D], K [B,Hk,Skv,D], V [B,Hk,Skv,Dv], O, dO [B,Hq,Sq,Dv]: bf16 or fp16 alike, any
 *       stride order with a unit last stride and the other strides multiples of 8 elements;
 *       D, Dv multiples of 8 up to 256; Hq a multiple of Hk (GQA / MQA; K and V with the same
 *       head count)
 *   Stats [B,Hq,Sq,1] (any type templates load), dQ, dK, dV with Q's, K's and V's dims, any type
 *       hd_st stores, unit last stride
 *   the attention scale (attribute or one-element tensor), SEQ_LEN_Q / SEQ_LEN_KV, the diagonal
 *   band (causal both alignments, sliding window), bias [1|B,1|Hq,1|Sq,1|Skv], ALiBi, Philox
 *   dropout (seed and offset in memory or by value), custom dropout (mask, scale, scale_inv),
 *   dBias of the bias' shape: stored directly at the full [B,Hq,Sq,Skv]; broadcast shapes are
 *   summed with fp32 atomics into scratch and converted by a fourth launch (not bitwise
 *   reproducible: the one non-deterministic output of the default configuration).
 * A mask modifier (cg_sdpa_mask.c): a classification launch first lists, per kv block, the query
 * tiles the mask does not empty (PARTIAL ones tested per score); the kv pass walks them, dQ
 * accumulated there (the deterministic dQ pass has no mask path: jit.sdpa_bwd_atomic 1 refused).
 * Refused with a reason: K and V with different head counts,
 * seed/offset as run-time host scalars, fused neighbours, a mask that differs between the query
 * heads of one K/V head under GQA, AMD targets.
 * The scratch covers the atomic dQ accumulator whichever way the knob is set, so the engine's
 * workspace query (cg_scratch_bytes, target-free) is exact for both.
 */
#include <stdio.h>
#include <string.h>

#include "codegen/cg_sdpa.h"


typedef struct sb_bwd {
    const ir_graph *g;
    const ir_sdpa *p;
    int in[IR_SDPAB_N_IN], out[IR_SDPAB_N_OUT]; /* tensor indices, -1 absent */
    int64_t B, Hq, Hk, Sq, SqP, Skv, D, Dv;
    int warps;      /* warps a kv or dq block: 16 keys (query rows) each */
    int bm;         /* query rows a tile of the kv block, keys a tile of the dq block */
    int stages, qstages;
    bool atomic;
    bool sm90;      /* wgmma products (sm_90a) */
    bool loader;    /* the kv pass's tiles loaded by a warpgroup of their own (jit.sdpa_ws 1, 2) */
    bool dq_own;    /* each computing warpgroup adds its own keys' dQ share (jit.sdpa_ws 2) */
    bool has_mask;  /* a mask modifier (HD_MASK_MOD: cg_sdpa_mask.c; the kv pass walks its lists) */
    cg_sdpa_mask mask;
} sb_bwd;

static const ir_tensor *T(const sb_bwd *s, int ti) { return &s->g->t[ti]; }

static bool dims_are(const ir_tensor *t, int64_t a, int64_t b, int64_t c, int64_t d)
{
    return t->rank == 4 && t->dims[0] == a && t->dims[1] == b && t->dims[2] == c && t->dims[3] == d;
}

/* An output: stored by hd_st, unit last stride. */
static bool out_ok(const ir_tensor *t) { return cg_dtype(t->dtype) != NULL && t->strides[3] == 1; }

static bool check_tensors(sb_bwd *s, char *why, size_t len)
{
    for (int n = 0; n < IR_SDPAB_N_OUT - 1; n++)
        if (s->out[n] < 0)
            return cg_sdpa_fail(why, len, "the attention backward template needs dQ, dK and dV");
    const ir_tensor *q = T(s, s->in[IR_SDPAB_Q]), *k = T(s, s->in[IR_SDPAB_K]), *v = T(s, s->in[IR_SDPAB_V]);
    const ir_tensor *o = T(s, s->in[IR_SDPAB_O]), *d_o = T(s, s->in[IR_SDPAB_DO]);
    const ir_tensor *const ops[5] = {q, k, v, o, d_o};
    for (int n = 0; n < 5; n++)
        if (ops[n]->dtype != q->dtype || !cg_sdpa_is16(q->dtype))
            return cg_sdpa_fail(why, len, "the attention backward template needs Q, K, V, O and dO all bf16 "
                                "or all fp16");
    for (int n = 0; n < 5; n++)
        if (!cg_sdpa_rows_ok(ops[n]))
            return cg_sdpa_fail(why, len, "Q, K, V, O and dO must be rank 4 with a unit last stride and the "
                        "other strides multiples of 8 elements (16-byte rows)");
    s->B = q->dims[0], s->Hq = q->dims[1], s->Sq = q->dims[2], s->D = q->dims[3];
    s->Hk = k->dims[1], s->Skv = k->dims[2], s->Dv = v->dims[3];
    s->SqP = (s->Sq + 3) / 4 * 4;
    if (k->dims[3] != s->D || s->D % 8 != 0 || s->Dv % 8 != 0 || s->D > 256 || s->Dv > 256 || s->D < 8 || s->Dv < 8)
        return cg_sdpa_fail(why, len, "the attention backward template needs head dims that are multiples of 8 "
                    "up to 256 (and K's equal to Q's)");
    if (v->dims[1] != s->Hk)
        return cg_sdpa_fail(why, len, "the attention backward template needs K and V with the same head count");
    if (s->Hk < 1 || s->Hq % s->Hk != 0)
        return cg_sdpa_fail(why, len, "Q's head count must be a multiple of K's and V's");
    if (k->dims[0] != s->B || v->dims[0] != s->B || v->dims[2] != s->Skv)
        return cg_sdpa_fail(why, len, "K and V must be [B,Hk,Skv,D] and [B,Hk,Skv,Dv]");
    if (!dims_are(o, s->B, s->Hq, s->Sq, s->Dv) || !dims_are(d_o, s->B, s->Hq, s->Sq, s->Dv))
        return cg_sdpa_fail(why, len, "O and dO must be [B,Hq,Sq,Dv]");
    const int64_t row[4] = {s->B, s->Hq, s->Sq, 1};
    if (!cg_sdpa_shaped(T(s, s->in[IR_SDPAB_STATS]), row, false))
        return cg_sdpa_fail(why, len, "Stats must be [B,Hq,Sq,1] of a type templates load");
    const ir_tensor *dq = T(s, s->out[IR_SDPAB_DQ]), *dk = T(s, s->out[IR_SDPAB_DK]), *dv = T(s, s->out[IR_SDPAB_DV]);
    if (!dims_are(dq, s->B, s->Hq, s->Sq, s->D) || !dims_are(dk, s->B, s->Hk, s->Skv, s->D) ||
        !dims_are(dv, s->B, s->Hk, s->Skv, s->Dv) || !out_ok(dq) || !out_ok(dk) || !out_ok(dv))
        return cg_sdpa_fail(why, len, "dQ, dK and dV must have Q's, K's and V's dims, a unit last stride and a "
                    "type templates store");
    if (s->B > 65535 || s->Hq > 65535 || s->Sq > (1 << 28) || s->Skv > (1 << 28) || s->Sq < 1 || s->Skv < 1)
        return cg_sdpa_fail(why, len, "attention sizes outside the template's grid range");
    return true;
}

/* dBias: 0 none, 1 the full [B,Hq,Sq,Skv] (stored directly), 2 broadcast (an fp32 accumulator). */
static int dbias_mode(const sb_bwd *s)
{
    int db = s->out[IR_SDPAB_DBIAS];
    if (db < 0)
        return 0;
    const int64_t *d = T(s, db)->dims;
    return d[0] == s->B && d[1] == s->Hq && d[2] == s->Sq && d[3] == s->Skv ? 1 : 2;
}

static bool check_options(const sb_bwd *s, char *why, size_t len)
{
    const int *in = s->in;
    const int64_t full[4] = {s->B, s->Hq, s->Sq, s->Skv};
    cg_sdpa_opts shared = {.dropout_mask = in[IR_SDPAB_DROPOUT_MASK],
                           .scales = {in[IR_SDPAB_DROPOUT_SCALE], in[IR_SDPAB_DROPOUT_SCALE_INV]},
                           .seed = in[IR_SDPAB_SEED], .offset = in[IR_SDPAB_OFFSET], .seq_q = in[IR_SDPAB_SEQ_Q],
                           .seq_kv = in[IR_SDPAB_SEQ_KV], .bias = in[IR_SDPAB_BIAS], .scale = in[IR_SDPAB_SCALE]};
    if (!cg_sdpa_check_opts(s->g, &shared, full, s->p->dropout_p, why, len))
        return false;
    int db = s->out[IR_SDPAB_DBIAS];
    if (db >= 0 && (in[IR_SDPAB_BIAS] < 0 || !cg_sdpa_shaped(T(s, db), full, true) || !out_ok(T(s, db)) ||
                    memcmp(T(s, db)->dims, T(s, in[IR_SDPAB_BIAS])->dims, sizeof T(s, db)->dims) != 0))
        return cg_sdpa_fail(why, len, "dBias must have the bias' dims ([1|B,1|Hq,1|Sq,1|Skv]), a unit last "
                    "stride and a type templates store");
    return true;
}

/* ---- tile shape --------------------------------------------------------------------------------- */

static int64_t pad64(int64_t d) { return (d + 63) / 64 * 64; }

/* Tiles start on 1 KB (wgmma's swizzle period) or 128 bytes; HD_*_SMEM in the template. */
static int64_t align_of(const sb_bwd *s) { return s->sm90 ? 1024 : 128; }

/* dQ accumulated in the kv pass by wgmma and the copy engine (the template's HD_DQ_BULK). */
static bool dq_bulk(const sb_bwd *s) { return s->atomic && s->sm90; }

static int64_t kv_smem(const sb_bwd *s)
{
    int64_t a = align_of(s), bn = 16 * s->warps;
    int64_t stage = (s->bm * (pad64(s->D) + pad64(s->Dv)) * 2 + s->bm * 8 + a - 1) / a * a;
    int64_t ds = s->atomic ? bn * s->bm * 2 : 0, dq_staging = dq_bulk(s) ? 2 * s->bm * s->D * 4 : 0;
    return a + bn * (pad64(s->D) + pad64(s->Dv)) * 2 + s->stages * stage + ds + dq_staging +
           (s->loader ? s->stages * 16 : 0);
}

static int64_t dq_smem(const sb_bwd *s)
{
    return align_of(s) + (16 * s->warps + s->qstages * s->bm) * (pad64(s->D) + pad64(s->Dv)) * 2;
}

/* wgmma where it fits: sm_90, head dims 64 or 128, not turned off by jit.sdpa_wgmma. */
static bool wgmma_fits(const sb_bwd *s, const cg_target *t)
{
    bool dims = (s->D == 64 || s->D == 128) && (s->Dv == 64 || s->Dv == 128);
    return t->caps.wgmma && t->sdpa_wgmma >= 0 && dims;
}

/* The block shape on the products chosen (s->sm90). */
static void choose_block(sb_bwd *s, const cg_target *t)
{
    s->warps = s->sm90 && t->sdpa_warps != 4 ? 8 : 4; /* jit.sdpa_warps 4: one warpgroup, two blocks an SM */
    s->bm = s->sm90 && s->D <= 64 && s->Dv <= 64 && t->sdpa_block_m != 64 ? 128 : 64; /* jit.sdpa_block_m 64 */
}

static bool choose_tiles(sb_bwd *s, const cg_target *t, char *why, size_t len)
{
    int cap = t->caps.smem_optin;
    s->sm90 = wgmma_fits(s, t);
    choose_block(s, t);
    /* the wgmma dQ of the kv pass (hd_dq_bulk): two warpgroups, a 64 x 128 or 128 x 64 dQ tile.
     * By shape wherever it applies (10-20% over the dQ pass: bench/NOTES.md backward #6); asked for
     * elsewhere, the atomic blocks stay on mma.sync */
    bool bulk = s->sm90 && s->warps == 8 && s->bm * s->D == 8192;
    if (s->has_mask && t->sdpa_bwd_atomic == 1)
        return cg_sdpa_fail(why, len, "a mask modifier's lists are the dK/dV pass's: the deterministic dQ pass "
                            "(jit.sdpa_bwd_atomic 1) has no mask path");
    s->atomic = t->sdpa_bwd_atomic == 2 || (t->sdpa_bwd_atomic == 0 && bulk) || s->has_mask;
    if (s->sm90 && s->atomic && !bulk) {
        s->sm90 = false;
        choose_block(s, t);
    }
    s->stages = s->qstages = 2;
    if (kv_smem(s) > cap)
        s->stages = 1;
    if (dq_smem(s) > cap)
        s->qstages = 1;
    /* jit.sdpa_ws 1: a warpgroup that only loads the kv pass's tiles (mbarriers, no block-wide
     * barrier a tile), where two wgmma warpgroups compute through two stages; off by shape */
    s->loader = (t->sdpa_ws == 1 || t->sdpa_ws == 2) && s->sm90 && s->warps == 8 && s->stages >= 2;
    if (s->loader && kv_smem(s) > cap)
        s->loader = false;
    s->dq_own = s->loader && t->sdpa_ws == 2 && s->atomic;
    if (kv_smem(s) > cap || dq_smem(s) > cap)
        return cg_sdpa_fail(why, len, "attention backward tiles do not fit in shared memory");
    return true;
}

/* ---- hooks ------------------------------------------------------------------------------------- */

static void dropout_hooks(const sb_bwd *s, base_sb *defs, base_sb *hooks)
{
    const int *in = s->in;
    int mask = in[IR_SDPAB_DROPOUT_MASK], scale = in[IR_SDPAB_DROPOUT_SCALE], inv = in[IR_SDPAB_DROPOUT_SCALE_INV];
    base_sb_printf(defs, "#define HD_DROPOUT %d\n#define HD_DMASK %d\n", s->p->dropout_p > 0, mask >= 0);
    if (mask >= 0)
        cg_sdpa_bshs_hook(s->g, "hd_dmask", mask, hooks);
    if (s->p->dropout_p > 0)
        cg_sdpa_philox_hooks(s->g, s->p->dropout_p, in[IR_SDPAB_SEED], in[IR_SDPAB_OFFSET], hooks);
    /* s and s' as the reference takes them: Philox 1/(1-p) and 1-p; else DROPOUT_SCALE (1) and
     * DROPOUT_SCALE_INV, else 1/s (0 when s is 0) */
    cg_sdpa_drop_scale_hook(s->g, s->p->dropout_p, scale, hooks);
    base_sb_puts(hooks, "HD_DEVICE float hd_drop_sinv(HD_PARAMS)\n{\n");
    if (s->p->dropout_p > 0) {
        base_sb_printf(hooks, "    return %.9gf;\n}\n", 1.0 - s->p->dropout_p);
    } else if (inv >= 0) {
        base_sb_puts(hooks, "    return ");
        cg_sdpa_scalar_value(s->g, inv, hooks);
        base_sb_puts(hooks, ";\n}\n");
    } else {
        base_sb_puts(hooks, "    float s = hd_drop_scale(HD_ARGS);\n    return s != 0.0f ? 1.0f / s : 0.0f;\n}\n");
    }
}

static void option_hooks(const sb_bwd *s, base_sb *defs, base_sb *hooks)
{
    const int *in = s->in;
    cg_sdpa_scale_hook(s->g, in[IR_SDPAB_SCALE], s->p->attn_scale, hooks);
    cg_sdpa_seq_hook(s->g, "hd_seq_q", in[IR_SDPAB_SEQ_Q], s->Sq, hooks);
    cg_sdpa_seq_hook(s->g, "hd_seq_kv", in[IR_SDPAB_SEQ_KV], s->Skv, hooks);
    base_sb_printf(defs, "#define HD_BIAS %d\n#define HD_ALIBI %d\n#define HD_DBIAS %d\n", in[IR_SDPAB_BIAS] >= 0,
                   s->p->alibi, dbias_mode(s));
    if (dbias_mode(s) == 2) {
        const int64_t *d = T(s, s->out[IR_SDPAB_DBIAS])->dims;
        base_sb_printf(defs, "#define HD_DBB %lld\n#define HD_DBH %lld\n#define HD_DBI %lld\n#define HD_DBJ %lld\n",
                       (long long)d[0], (long long)d[1], (long long)d[2], (long long)d[3]);
    }
    if (in[IR_SDPAB_BIAS] >= 0)
        cg_sdpa_bshs_hook(s->g, "hd_bias", in[IR_SDPAB_BIAS], hooks);
    if (s->p->alibi)
        cg_sdpa_alibi_hook(s->Hq, hooks);
    dropout_hooks(s, defs, hooks);
    int db = s->out[IR_SDPAB_DBIAS], st = in[IR_SDPAB_STATS];
    const char *full[4] = {"b", "h", "i", "j"}, *row[4] = {"b", "h", "i", NULL};
    if (db >= 0) {
        base_sb_printf(hooks, "HD_DEVICE void hd_dbias_st(int b, int h, int i, int j, float v, HD_PARAMS)\n{\n"
                       "    hd_st<%s>(p%d, ", cg_dtype(T(s, db)->dtype), db);
        cg_sdpa_offset(s->g, db, full, hooks);
        base_sb_puts(hooks, ", v);\n}\n");
    }
    base_sb_printf(hooks, "HD_DEVICE float hd_stats(int b, int h, int i, HD_PARAMS)\n{\n    return hd_ld<%s>(p%d, ",
                   cg_dtype(T(s, st)->dtype), st);
    cg_sdpa_offset(s->g, st, row, hooks);
    base_sb_puts(hooks, ");\n}\n");
}

static void shape_defs(const sb_bwd *s, base_sb *defs, base_sb *hooks)
{
    const int *in = s->in, *out = s->out;
    base_sb_printf(defs, "#define HD_DT %s\n#define HD_DQ_DT %s\n#define HD_DK_DT %s\n#define HD_DV_DT %s\n",
                   cg_dtype(T(s, in[IR_SDPAB_Q])->dtype), cg_dtype(T(s, out[IR_SDPAB_DQ])->dtype),
                   cg_dtype(T(s, out[IR_SDPAB_DK])->dtype), cg_dtype(T(s, out[IR_SDPAB_DV])->dtype));
    base_sb_printf(defs, "#define HD_B %lld\n#define HD_HQ %lld\n#define HD_HK %lld\n#define HD_SQ %lld\n"
                   "#define HD_SQP %lld\n#define HD_SKV %lld\n#define HD_D %lld\n#define HD_DV %lld\n",
                   (long long)s->B, (long long)s->Hq, (long long)s->Hk, (long long)s->Sq, (long long)s->SqP,
                   (long long)s->Skv, (long long)s->D, (long long)s->Dv);
    base_sb_printf(defs, "#define HD_BN %d\n#define HD_BM %d\n#define HD_STAGES %d\n#define HD_QBN %d\n"
                   "#define HD_QSTAGES %d\n#define HD_ATOMIC %d\n#define HD_WARPS %d\n#define HD_SM90 %d\n"
                   "#define HD_LOADER %d\n#define HD_DQ_OWN %d\n",
                   16 * s->warps, s->bm, s->stages, s->bm, s->qstages, s->atomic, s->warps, s->sm90, s->loader,
                   s->dq_own);
    cg_sdpa_band_defs(s->p, s->Sq, s->Skv, defs);
    base_sb_printf(defs, "#define HD_Q_PTR p%d\n#define HD_K_PTR p%d\n#define HD_V_PTR p%d\n#define HD_O_PTR p%d\n"
                   "#define HD_DO_PTR p%d\n#define HD_DQ_PTR p%d\n#define HD_DK_PTR p%d\n#define HD_DV_PTR p%d\n",
                   in[IR_SDPAB_Q], in[IR_SDPAB_K], in[IR_SDPAB_V], in[IR_SDPAB_O], in[IR_SDPAB_DO],
                   out[IR_SDPAB_DQ], out[IR_SDPAB_DK], out[IR_SDPAB_DV]);
    int64_t group = s->Hq / s->Hk;
    cg_sdpa_row_hook(s->g, "hd_q_off", in[IR_SDPAB_Q], 1, hooks);
    cg_sdpa_row_hook(s->g, "hd_o_off", in[IR_SDPAB_O], 1, hooks);
    cg_sdpa_row_hook(s->g, "hd_do_off", in[IR_SDPAB_DO], 1, hooks);
    cg_sdpa_row_hook(s->g, "hd_dq_off", out[IR_SDPAB_DQ], 1, hooks);
    cg_sdpa_row_hook(s->g, "hd_k_off", in[IR_SDPAB_K], group, hooks);
    cg_sdpa_row_hook(s->g, "hd_v_off", in[IR_SDPAB_V], group, hooks);
    cg_sdpa_row_hook(s->g, "hd_dk_off", out[IR_SDPAB_DK], 1, hooks); /* called with the K/V head */
    cg_sdpa_row_hook(s->g, "hd_dv_off", out[IR_SDPAB_DV], 1, hooks);
}

/* Elements of the broadcast dBias' fp32 accumulator (0 without one). */
static int64_t dbias_acc(const sb_bwd *s)
{
    if (dbias_mode(s) != 2)
        return 0;
    const int64_t *d = T(s, s->out[IR_SDPAB_DBIAS])->dims;
    return d[0] * d[1] * d[2] * d[3];
}

/* Rows of a head's dQ accumulator (the template's HD_DQ_ROWS): whole query tiles of 64 or 128 rows
 * with the wgmma dQ. */
static int64_t dq_rows(const sb_bwd *s)
{
    int64_t tile = dq_bulk(s) ? s->bm : 1;
    return (s->Sq + tile - 1) / tile * tile;
}

/* The scratch takes the accumulator's rows rounded up to 128 whatever the target (at least
 * dq_rows), so the workspace query stays target-free. */
static int64_t base_scratch(const sb_bwd *s)
{
    int64_t acc_rows = (s->Sq + 127) / 128 * 128;
    return (2 * s->B * s->Hq * s->SqP + s->B * s->Hq * acc_rows * s->D + dbias_acc(s)) * (int64_t)sizeof(float);
}

/* A mask modifier's lists (sdpa_mask.h, by key block: a row per kv block of 16·warps keys listing
 * query tiles of bm rows) after the rest, 256-byte aligned; the workspace sized for the smallest
 * blocks (64 keys, 64 rows), target-free. */
static cg_sdpa_mask_geom mask_geom(const sb_bwd *s, int64_t keys, int64_t rows)
{
    return (cg_sdpa_mask_geom){.B = s->B, .Hq = s->Hq, .Sq = s->Sq, .Skv = s->Skv, .rsize = keys, .csize = rows,
                               .off = (base_scratch(s) + 255) / 256 * 256, .by_key = true};
}

static int64_t scratch_of(const sb_bwd *s)
{
    cg_sdpa_mask_geom x = mask_geom(s, 64, 64);
    return s->has_mask ? x.off + cg_sdpa_mask_bytes(&s->mask, &x) : base_scratch(s);
}

static unsigned cdiv(int64_t a, int64_t b) { return (unsigned)((a + b - 1) / b); }

/* The launches in order: (with a mask modifier its classification, mask_launch), the pre pass, the
 * kv pass, dQ's pass or conversion, (a broadcast dBias' conversion). */
static void set_launches(const sb_bwd *s, const cg_launch *mask_launch, cg_kernel *out)
{
    cg_launch l[CG_MAX_LAUNCHES];
    int n = 0;
    if (s->has_mask)
        l[n++] = *mask_launch;
    /* a warp a row: Stats' rows and the dQ accumulator's */
    l[n++] = (cg_launch){.entry = "hd_sdpa_bwd_pre", .grid = {cdiv(s->SqP > dq_rows(s) ? s->SqP : dq_rows(s), 8),
                                                              (unsigned)s->Hq, (unsigned)s->B}, .block = {256, 1, 1}};
    const unsigned rows = 16 * (unsigned)s->warps; /* keys a kv block, query rows a dq block */
    l[n++] = (cg_launch){.entry = "hd_sdpa_bwd_kv", .grid = {cdiv(s->Skv, rows), (unsigned)s->Hk, (unsigned)s->B},
                         .block = {rows * 2 + (s->loader ? 128 : 0), 1, 1}, .smem = (unsigned)kv_smem(s)};
    if (dq_bulk(s)) /* a thread a float4 of the accumulator */
        l[n++] = (cg_launch){.entry = "hd_sdpa_bwd_dq_convert",
                             .grid = {cdiv(dq_rows(s) * s->D / 4, 256), (unsigned)s->Hq, (unsigned)s->B},
                             .block = {256, 1, 1}};
    else if (s->atomic) /* a warp a row */
        l[n++] = (cg_launch){.entry = "hd_sdpa_bwd_dq_convert", .grid = {cdiv(s->Sq, 8), (unsigned)s->Hq, (unsigned)s->B},
                             .block = {256, 1, 1}};
    else
        l[n++] = (cg_launch){.entry = "hd_sdpa_bwd_dq", .grid = {cdiv(s->Sq, rows), (unsigned)s->Hq, (unsigned)s->B},
                             .block = {rows * 2, 1, 1}, .smem = (unsigned)dq_smem(s)};
    if (dbias_mode(s) == 2)
        l[n++] = (cg_launch){.entry = "hd_sdpa_bwd_dbias_convert", .grid = {cdiv(dbias_acc(s), 256), 1, 1},
                             .block = {256, 1, 1}};
    out->entry = l[0].entry, out->smem = l[0].smem;
    memcpy(out->grid, l[0].grid, sizeof out->grid);
    memcpy(out->block, l[0].block, sizeof out->block);
    out->n_then = n - 1;
    for (int i = 1; i < n; i++)
        out->then[i - 1] = l[i];
    out->align = 16;
    out->scratch = scratch_of(s);
}

/* Fills s from the kernel's anchor and checks everything but the target. */
static bool plan(sb_bwd *s, const ir_graph *g, const ir_kernel *k, char *why, size_t len)
{
    const ir_op *op = &g->ops[k->anchor];
    *s = (sb_bwd){.g = g, .p = &op->a.sdpa};
    for (int i = 0; i < IR_SDPAB_N_IN; i++)
        s->in[i] = i < op->n_in ? op->in[i] : -1;
    for (int i = 0; i < IR_SDPAB_N_OUT; i++)
        s->out[i] = i < op->n_out ? op->out[i] : -1;
    s->has_mask = s->in[IR_SDPAB_MASK_MOD] >= 0;
    if (s->has_mask && !cg_sdpa_mask_ops(g, k->anchor, s->in[IR_SDPAB_MASK_MOD], &s->mask, why, len))
        return false;
    if (k->n_ops != 1 + s->mask.n)
        return cg_sdpa_fail(why, len, "attention backward fused with other ops than a mask modifier has no template yet");
    if (!check_tensors(s, why, len) || !check_options(s, why, len))
        return false;
    const int64_t full[4] = {s->B, s->Hq, s->Sq, s->Skv};
    if (s->has_mask && !cg_sdpa_mask_check(g, &s->mask, full, why, len))
        return false;
    if (s->has_mask && (s->mask.dep & 2u) && s->Hq != s->Hk)
        return cg_sdpa_fail(why, len, "a mask modifier that differs between the query heads of one K/V head has no "
                            "attention backward template yet (the kv pass walks one list a group)");
    return true;
}

hipdnnStatus_t cg_emit_sdpa_bwd(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                                cg_kernel *out, char *why, size_t why_len)
{
    sb_bwd s;
    if (!t->caps.mma_sync) {
        cg_sdpa_fail(why, why_len, "the attention backward template needs NVIDIA sm_80 or newer (cp.async, "
                     "mma.sync bf16)");
        return HIPDNN_STATUS_NOT_SUPPORTED;
    }
    if (!plan(&s, g, k, why, why_len) || !choose_tiles(&s, t, why, why_len))
        return HIPDNN_STATUS_NOT_SUPPORTED;
    base_sb defs = {0}, hooks = {0};
    hipdnnStatus_t st = cg_collect_params(g, k, out, &defs);
    if (st == HIPDNN_STATUS_SUCCESS && out->n_args == CG_MAX_ARGS)
        st = base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "codegen: a kernel with more than %d parameters", CG_MAX_ARGS - 1);
    if (st == HIPDNN_STATUS_SUCCESS) {
        out->args[out->n_args++] = (cg_arg){.kind = CG_ARG_WORKSPACE, .tensor = -1};
        cg_launch mask_launch = {0};
        shape_defs(&s, &defs, &hooks);
        option_hooks(&s, &defs, &hooks);
        if (s.has_mask) {
            cg_sdpa_mask_geom x = mask_geom(&s, 16 * s.warps, s.bm);
            cg_sdpa_mask_hooks(g, &s.mask, &x, &defs, &hooks, &mask_launch);
        }
        set_launches(&s, &mask_launch, out);
        if (s.sm90)
            snprintf(out->arch, sizeof out->arch, "%s", t->caps.wgmma_arch);
        st = cg_assemble(t, "sdpa_bwd.hip", &defs, &hooks, out);
    }
    base_sb_free(&defs);
    base_sb_free(&hooks);
    return st;
}

int64_t cg_sdpa_bwd_scratch(const ir_graph *g, const ir_kernel *k)
{
    sb_bwd s;
    char why[256];
    return plan(&s, g, k, why, sizeof why) ? scratch_of(&s) : 0;
}
