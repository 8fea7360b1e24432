/* cg_sdpa.c — emits SDPA_FWD kernels with kernel_templates/sdpa_fwd.hip (FlashAttention-2
 * style, mma.sync tensor cores, NVIDIA sm_80 and newer).
 *
 * What the template addresses (ir_ref_sdpa_fwd defines the math; op-semantics.md §4):
 *   Q [B,Hq,Sq,D], K [B,Hk,Skv,D], V [B,Hv,Skv,Dv]: bf16 or fp16 alike, any stride order with a
 *       unit last stride and the other strides multiples of 8 elements (16-byte rows), D and
 *       Dv multiples of 8 up to 256; Hq a multiple of Hk and Hv (GQA / MQA);
 *       K and V paged through PAGE_K / PAGE_V tables ([B,1,P,1] integers) into containers
 *       [nblk,H,bs,D], Skv inferred as the reference does
 *   O [B,Hq,Sq,Dv]: any type hd_st stores, any strides
 *   attention scale: the attribute, or a one-element tensor (by value, run-time scalar, memory)
 *   SEQ_Q / SEQ_KV [B,1,1,1] integers (padding), the diagonal band (causal top-left or
 *       bottom-right, sliding window), an additive bias [1|B,1|Hq,1|Sq,1|Skv], ALiBi, a sink
 *       [1,Hq,1,1], Philox dropout with the seed and offset in memory or by value, custom
 *       dropout (DROPOUT_MASK [1|B,1|Hq,1|Sq,1|Skv], DROPOUT_SCALE)
 *   Stats / Max / Sum_exp [B,Hq,Sq,1], RNG_DUMP [B,Hq,Sq,Skv] (the mask used), any strides
 *   a score modifier (the kernel's IR_PART_SCORE ops, ir_score.c): hd_score_mod(s, b, h, i, j)
 *       made of the chain's pointwise statements (cg_pointwise_stmt), applied to the
 *       natural-domain S·scale before bias, ALiBi and the masks (HD_SCORE_MOD 1), constant
 *       factors at the chain's ends folded into the scale and the exponent (mod_fold); its
 *       scalars by value, run-time or one element in memory. Without a modifier nothing of it
 *       is emitted.
 * Index-aware score modifiers: GEN_INDEX steps give the score's (b, h, i, j), tensors in memory
 * broadcast to [B,Hq,Sq,Skv] are read per score (cg_sdpa_elem_load). A mask modifier: its lists
 * and hooks (cg_sdpa_mask.c, sdpa_mask.h), a classification launch first.
 * Refused with a reason (the engine falls back): the block mask, seed or offset passed as
 * run-time host scalars, AMD targets, a mask modifier with paged K/V or RNG_DUMP. FP8 attention
 * (the DESCALE_* / SCALE_* operands) is cg_sdpa_fp8.c's, with its own template.
 * The tile shape comes from the knobs (cg_target.sdpa_*), else from the head dim. On sm_90 with
 * head dims 64 or 128 both products run on wgmma (HD_SM90, compiled for sm_90a: one warpgroup
 * per 64 query rows, key tiles of 64 or 128; 128 x 128 tiles at D=128, 64 x 64 at D=64), with a
 * loading warpgroup when jit.sdpa_ws asks (HD_WS); elsewhere on mma.sync. The persistent grid
 * (HD_PERSIST) by shape: persist_by_shape.
 * Decode path (Sq <= 64): 64-row tiles, three K/V stages (two blocks a multiprocessor); with GQA
 * the query heads of a K/V head share a block (HD_PACK = Hq / Hk), and when the blocks would not
 * fill the device the keys are split (HD_SPLIT: one wave of blocks on the device's
 * multiprocessors) and a combine launch merges the partial results through the workspace.
 * The workspace is sized from the shapes alone (twice the split a 132-SM device takes), so the
 * engine's workspace query needs no device; the knobs jit.sdpa_pack / jit.sdpa_splits override.
 * Score modifiers divide with hd_div and take tanh as hd_tanh_fast (tanh.approx.f32).
 */
#include <stdio.h>
#include <string.h>

#include "codegen/cg_sdpa.h"

typedef struct sd {
    const ir_graph *g;
    const ir_kernel *k;
    const ir_op *op;
    const ir_sdpa *p;
    int in[IR_SDPA_N_IN], out[IR_SDPA_N_OUT]; /* tensor indices, -1 absent */
    int64_t B, Hq, Hk, Hv, Sq, Skv, D, Dv;
    int64_t bs_k, bs_v;                       /* paged block sizes, 0 when dense */
    int bm, bn, warps, stages;
    bool sm90;                                /* wgmma products (sm_90a) */
    int ws;                                   /* sm90: 1 a cp.async loading warpgroup, 2 a TMA producer warp */
    bool tma_wg;                              /* ws 2: the producer is a whole warpgroup (setmaxnreg) */
    int min_blocks;                           /* blocks an SM must hold (launch bounds) */
    bool pingpong;                            /* ws: two computing warpgroups take turns */
    bool intra;                               /* ws: Q·Kᵀ(t) and P·V(t - 1) issued together, softmax(t) under P·V */
    bool overlap;                             /* sm90: softmax of tile t under Q·Kᵀ of t + 1 */
    int pack;                                 /* query heads per block row set (HD_PACK, 1: none) */
    int split, split_cap;                     /* key splits (HD_SPLIT) and the scratch's room */
    bool persist;                             /* ws 2: a persistent grid walks the work tiles (HD_PERSIST) */
    int qbuf;                                 /* Q's buffers (HD_QBUF: 2 on the persistent grid where they fit) */
    int kstages, vstages;                     /* the K and V rings' stages (HD_KSTAGES / HD_VSTAGES): `stages`
                                               * but on the persistent grid with two Q buffers */
    bool kv_apart;                            /* the rings' own barriers (HD_KV_APART: with two Q buffers) */
    int l2_heads;                             /* persist: query heads whose K/V share L2 (HD_L2_HEADS) */
    unsigned blocks;                          /* persist: the grid (0: one block a work tile) */
    bool sw_exp;                              /* half the softmax's exponentials on the FMA pipes */
    bool mod_fold;                            /* a score modifier's constant factors folded (mod_fold) */
    bool o_tma;                               /* O through Q's shared memory and TMA stores (HD_O_TMA) */
    int l2_ahead;                             /* blocks ahead whose first tiles go to L2 (HD_L2_AHEAD, 0: none) */
    bool trace;                               /* HD_TRACE: the phase trace (jit.sdpa_trace) */
    bool dyn;                                 /* HD_DYN: the persistent grid's work tiles from a counter */
    int ksplit;                               /* HD_KSPLIT: warps sharing the rows, splitting each tile's keys */
    int kv_ahead;                             /* HD_KV_AHEAD: tiles the page-table entries load before the copies */
    bool page_tile;                           /* HD_TILE_PAGE: one page-table entry a tile and operand */
    int pt_tiles;                             /* HD_PT_TILES: the entries in shared memory, tiles a block */
    int n_mod;                                /* ops of the score modifier (IR_PART_SCORE, not the mask's) */
    bool has_mask;                            /* a mask modifier (HD_MASK_MOD: cg_sdpa_mask.c) */
    cg_sdpa_mask mask;                        /* its ops and what it depends on */
} sd;

/* Blocks the decode path aims for when it splits keys: two waves of a 132-multiprocessor GPU
 * (the split is chosen from the shapes alone: the workspace size must not depend on the device). */
#define SPLIT_BLOCKS 264
#define SPLIT_MIN_KEYS 256 /* keys a split gets at least */
#define SPLIT_MAX 128

static const ir_tensor *T(const sd *s, int ti) { return &s->g->t[ti]; }

/* ---- checks ---------------------------------------------------------------------------------- */

/* Skv of paged K/V as ir_ref_sdpa.c infers it: RNG_DUMP's last dim, else the bias' or the
 * dropout mask's when not 1, else the smaller coverage of the page tables. */
static int64_t paged_skv(const sd *s)
{
    const ir_tensor *k = T(s, s->in[IR_SDPA_K]), *v = T(s, s->in[IR_SDPA_V]);
    int64_t lk = T(s, s->in[IR_SDPA_PAGE_K])->dims[2] * k->dims[2];
    int64_t lv = T(s, s->in[IR_SDPA_PAGE_V])->dims[2] * v->dims[2];
    int dump = s->out[IR_SDPA_RNG_DUMP], hint[2] = {s->in[IR_SDPA_BIAS], s->in[IR_SDPA_DROPOUT_MASK]};
    if (dump >= 0 && T(s, dump)->rank == 4)
        return T(s, dump)->dims[3];
    for (int n = 0; n < 2; n++)
        if (hint[n] >= 0 && T(s, hint[n])->rank == 4 && T(s, hint[n])->dims[3] != 1)
            return T(s, hint[n])->dims[3];
    return lk < lv ? lk : lv;
}

static bool check_paging(sd *s, char *why, size_t len)
{
    int pk = s->in[IR_SDPA_PAGE_K], pv = s->in[IR_SDPA_PAGE_V];
    const ir_tensor *k = T(s, s->in[IR_SDPA_K]), *v = T(s, s->in[IR_SDPA_V]);
    s->Skv = k->dims[2];
    if (pk < 0 && pv < 0)
        return v->dims[2] == s->Skv || cg_sdpa_fail(why, len, "K and V sequence lengths differ");
    if (pk < 0 || pv < 0)
        return cg_sdpa_fail(why, len, "paged K/V need both PAGE_K and PAGE_V (one paged operand has no "
                    "template path)");
    const ir_tensor *tk = T(s, pk), *tv = T(s, pv);
    if (tk->rank != 4 || tv->rank != 4 || !cg_sdpa_is_int(tk->dtype) || !cg_sdpa_is_int(tv->dtype) ||
        tk->dims[0] != s->B || tv->dims[0] != s->B)
        return cg_sdpa_fail(why, len, "page tables must be [B,1,P,1] INT32 or INT64");
    s->bs_k = k->dims[2], s->bs_v = v->dims[2];
    s->Skv = paged_skv(s);
    if (s->bs_k < 1 || s->bs_v < 1 || tk->dims[2] * s->bs_k < s->Skv || tv->dims[2] * s->bs_v < s->Skv)
        return cg_sdpa_fail(why, len, "paged K/V: the page tables do not cover Skv");
    return true;
}

static bool check_qkv(sd *s, char *why, size_t len)
{
    const ir_tensor *q = T(s, s->in[IR_SDPA_Q]), *k = T(s, s->in[IR_SDPA_K]);
    const ir_tensor *v = T(s, s->in[IR_SDPA_V]), *o = T(s, s->out[IR_SDPA_O]);
    if (!cg_sdpa_is16(q->dtype) || k->dtype != q->dtype || v->dtype != q->dtype)
        return cg_sdpa_fail(why, len, "the attention template needs Q, K and V all bf16 or all fp16");
    if (!cg_sdpa_rows_ok(q) || !cg_sdpa_rows_ok(k) || !cg_sdpa_rows_ok(v) || o->rank != 4)
        return cg_sdpa_fail(why, len, "Q, K and V must be rank 4 with a unit last stride and the other "
                    "strides multiples of 8 elements (16-byte rows)");
    if (cg_dtype(o->dtype) == NULL || o->strides[3] != 1)
        return cg_sdpa_fail(why, len, "O must have a type the template stores and a unit last stride");
    s->B = q->dims[0], s->Hq = q->dims[1], s->Sq = q->dims[2], s->D = q->dims[3];
    s->Hk = k->dims[1], s->Hv = v->dims[1], s->Dv = v->dims[3];
    if (k->dims[3] != s->D || s->D % 8 != 0 || s->Dv % 8 != 0 || s->D > 256 || s->Dv > 256 ||
        s->D < 8 || s->Dv < 8)
        return cg_sdpa_fail(why, len, "the attention template needs head dims that are multiples of 8 "
                    "up to 256 (and K's equal to Q's)");
    if (s->Hk < 1 || s->Hv < 1 || s->Hq % s->Hk != 0 || s->Hq % s->Hv != 0)
        return cg_sdpa_fail(why, len, "Q's head count must be a multiple of K's and V's");
    if (!check_paging(s, why, len))
        return false;
    if (s->in[IR_SDPA_PAGE_K] < 0 && (k->dims[0] != s->B || v->dims[0] != s->B))
        return cg_sdpa_fail(why, len, "K and V must have Q's batch size");
    if (o->dims[0] != s->B || o->dims[1] != s->Hq || o->dims[2] != s->Sq || o->dims[3] != s->Dv)
        return cg_sdpa_fail(why, len, "O must be [B,Hq,Sq,Dv]");
    if (s->B > 65535 || s->Hq > 65535 || s->Sq > (1 << 28) || s->Skv > (1 << 28) || s->Sq < 1)
        return cg_sdpa_fail(why, len, "attention sizes outside the template's grid range");
    return true;
}

static bool check_options(const sd *s, char *why, size_t len)
{
    const int *in = s->in;
    int64_t full[4] = {s->B, s->Hq, s->Sq, s->Skv}, sink[4] = {1, s->Hq, 1, 1};
    cg_sdpa_opts shared = {.dropout_mask = in[IR_SDPA_DROPOUT_MASK], .scales = {in[IR_SDPA_DROPOUT_SCALE], -1},
                           .seed = in[IR_SDPA_SEED], .offset = in[IR_SDPA_OFFSET], .seq_q = in[IR_SDPA_SEQ_Q],
                           .seq_kv = in[IR_SDPA_SEQ_KV], .bias = in[IR_SDPA_BIAS], .scale = in[IR_SDPA_SCALE]};
    if (!cg_sdpa_check_opts(s->g, &shared, full, s->p->dropout_p, why, len))
        return false;
    if (s->out[IR_SDPA_RNG_DUMP] >= 0 && !cg_sdpa_shaped(T(s, s->out[IR_SDPA_RNG_DUMP]), full, false))
        return cg_sdpa_fail(why, len, "RNG_DUMP must be [B,Hq,Sq,Skv] of a type templates store");
    if (in[IR_SDPA_BLOCK_MASK] >= 0)
        return cg_sdpa_fail(why, len, "the block mask has no attention template path");
    if (s->has_mask && (in[IR_SDPA_PAGE_K] >= 0 || s->out[IR_SDPA_RNG_DUMP] >= 0))
        return cg_sdpa_fail(why, len, "a mask modifier with paged K/V or RNG_DUMP has no attention template path");
    if (in[IR_SDPA_SINK] >= 0 && !cg_sdpa_shaped(T(s, in[IR_SDPA_SINK]), sink, false))
        return cg_sdpa_fail(why, len, "the sink must be [1,Hq,1,1]");
    int64_t row[4] = {s->B, s->Hq, s->Sq, 1};
    for (int n = IR_SDPA_STATS; n <= IR_SDPA_SUM_EXP; n++)
        if (s->out[n] >= 0 && !cg_sdpa_shaped(T(s, s->out[n]), row, false))
            return cg_sdpa_fail(why, len, "Stats, Max and Sum_exp must be [B,Hq,Sq,1]");
    return true;
}

/* ---- decode path: packed GQA heads, split keys ------------------------------------------------ */

/* Short queries (Sq <= 64: decode, speculative and chunked decode) take the decode path. */
static bool decode_class(const sd *s) { return s->Sq <= 64; }

/* The query heads of one K/V head can share a block's rows: GQA with K and V grouped alike, and
 * nothing that walks a whole head (ALiBi's per-block slope, RNG_DUMP's rows, a mask's row tiles). */
static int packable(const sd *s)
{
    bool ok = s->Hk == s->Hv && s->Hq > s->Hk && !s->p->alibi && s->out[IR_SDPA_RNG_DUMP] < 0 && !s->has_mask;
    return ok ? (int)(s->Hq / s->Hk) : 1;
}

/* Key splits by shape: enough blocks for SPLIT_BLOCKS, each split at least SPLIT_MIN_KEYS keys
 * (one when the queries alone fill the GPU, or RNG_DUMP asks for whole rows). */
static int splits_by_shape(const sd *s, int pack)
{
    if (!decode_class(s) || s->out[IR_SDPA_RNG_DUMP] >= 0)
        return 1;
    int64_t base = s->B * (s->Hq / pack) * ((s->Sq * pack + 63) / 64), n = (SPLIT_BLOCKS + base - 1) / base;
    int64_t most = s->Skv / SPLIT_MIN_KEYS;
    n = n < most ? n : most;
    n = n < SPLIT_MAX ? n : SPLIT_MAX;
    return n < 2 ? 1 : (int)n;
}

/* pack and split from the shapes (the knobs' 0); split_cap = the scratch's room, twice that. */
static void plan_decode(sd *s)
{
    s->pack = decode_class(s) ? packable(s) : 1;
    s->split = splits_by_shape(s, s->pack);
    s->split_cap = s->split > 1 ? (2 * s->split < SPLIT_MAX ? 2 * s->split : SPLIT_MAX) : 1;
}

/* The knobs over plan_decode's choice: jit.sdpa_pack 1 never packs, 2 packs where it can;
 * jit.sdpa_splits n asks n splits (at most the scratch's room). */
static void knob_decode(sd *s, const cg_target *t)
{
    if (t->sdpa_pack == 1)
        s->pack = 1;
    else if (t->sdpa_pack == 2)
        s->pack = packable(s);
    if (t->sdpa_splits > 0)
        s->split = t->sdpa_splits < s->split_cap ? t->sdpa_splits : s->split_cap;
}

static int64_t split_scratch(const sd *s)
{
    return s->split_cap > 1 ? s->B * s->Hq * s->Sq * (int64_t)s->split_cap * (s->Dv + 2) * (int64_t)sizeof(float) : 0;
}

/* A mask modifier's lists (sdpa_mask.h) follow the split's scratch, 256-byte aligned. */
static int64_t mask_off(const sd *s) { return (split_scratch(s) + 255) / 256 * 256; }

/* The lists' geometry for row tiles of bm query rows and key tiles of bn keys. */
static cg_sdpa_mask_geom mask_geom(const sd *s, int64_t bm, int64_t bn)
{
    return (cg_sdpa_mask_geom){.B = s->B, .Hq = s->Hq, .Sq = s->Sq, .Skv = s->Skv, .rsize = bm, .csize = bn,
                               .off = mask_off(s)};
}

static int64_t mask_bytes(const sd *s, int64_t bm, int64_t bn)
{
    cg_sdpa_mask_geom x = mask_geom(s, bm, bn);
    return cg_sdpa_mask_bytes(&s->mask, &x);
}

/* The workspace is sized from the shapes alone: the lists for the smallest tiles a mask may run
 * with (MASK_MIN_BM query rows, 16 on the decode path; MASK_MIN_BN keys). */
#define MASK_MIN_BM 64
#define MASK_MIN_BN 32
static int64_t mask_bound(const sd *s)
{
    return mask_bytes(s, s->Sq <= 64 ? 16 : MASK_MIN_BM, MASK_MIN_BN);
}

static int64_t scratch_of(const sd *s) { return s->has_mask ? mask_off(s) + mask_bound(s) : split_scratch(s); }

/* ---- tile shape ---------------------------------------------------------------------------- */

static int smem_bytes(const sd *s)
{
    int dp = (int)((s->D + 63) / 64 * 64), dvp = (int)((s->Dv + 63) / 64 * 64);
    return 1024 + s->qbuf * s->bm * dp * 2 + (s->kstages * dp + s->vstages * dvp) * s->bn * 2 /* 1 KB: alignment */
           + (s->ws ? (s->kstages + s->vstages) * 16 + s->qbuf * 16 : 0) /* mbarriers: K's, V's, Q's */
           + (s->dyn ? s->qbuf * 16 : 0)                                  /* the work tiles' words */
           + s->pt_tiles * 8;                                             /* K's and V's page entries */
}

/* The wgmma products: sm_90, head dims 64, 128, 192 or 256 (whole 128-byte swizzle blocks of 64
 * columns; P·V in column chunks of 128 and 64), key tiles of 64 or 128; one warpgroup per 64
 * query rows. */
static bool wgmma_fits(const sd *s, const cg_target *t)
{
    bool dims = s->D % 64 == 0 && s->Dv % 64 == 0 && s->D <= 256 && s->Dv <= 256;
    return t->caps.wgmma && t->sdpa_wgmma >= 0 && dims && (s->bn == 64 || s->bn == 128);
}

/* Rows one TMA copy of K or V moves: a tile's, or a page's when pages are smaller. */
static int box_rows(const sd *s)
{
    int64_t bs = s->bs_k ? s->bs_k : s->bn;
    return (int)(bs < s->bn ? bs : s->bn);
}

/* The TMA producer (jit.sdpa_ws 2) copies boxes of 64 columns x box_rows rows: head dims of 64 or
 * 128 (the wgmma ones), pages of K and V alike whose size divides the tile or the tile divides
 * (rows a multiple of 8: whole 1024-byte swizzle atoms). */
static bool tma_fits(const sd *s)
{
    if (s->bs_k == 0)
        return true;
    int64_t bs = s->bs_k;
    return s->bs_v == bs && (bs % s->bn == 0 || (s->bn % bs == 0 && bs % 8 == 0));
}

/* Who loads K/V on the wgmma loop (HD_WS): jit.sdpa_ws 1 a cp.async warpgroup, 2 the TMA producer
 * (a warp) where it fits, 4 the same as a whole warpgroup giving its registers away, 3 every
 * computing warp; by shape (0): the TMA producer, except where the
 * computing warps' own cp.async copies measured faster (bench/NOTES.md): dense K/V on the decode
 * path, and one-warpgroup tiles (head dim 64) under a causal or band mask. */
static int loaders(const sd *s, const cg_target *t)
{
    if (t->sdpa_ws == 1 || t->sdpa_ws == 3)
        return t->sdpa_ws == 1 ? 1 : 0;
    if (!tma_fits(s))
        return 0;
    if (t->sdpa_ws == 2 || t->sdpa_ws == 4)
        return 2;
    if (decode_class(s))
        return s->bs_k > 0 ? 2 : 0;
    return s->bm == 64 && s->p->has_right ? 0 : 2;
}

/* The warps split each K/V tile's keys (HD_KSPLIT; knob jit.sdpa_ksplit 4): a decode block of at
 * most 16 packed rows (GQA 32:8 up to Sq = 4) as one m16 row tile that its four warps share on the
 * mma.sync loop, 64-key tiles (16 keys a warp; 128 with jit.sdpa_block_n 128), three stages. The
 * products of a 64-row tile whose packed rows are 4 cost 16 times what the 4 rows need; these
 * cost 4 times (cuDNN's decode kernel's shape, 16x128x128 with the warps 1x4x1), so one block an
 * SM keeps its copies in flight and device_split fills one wave of one block an SM. By shape
 * (knob 0) wherever it fits at head dims up to 128: dense K/V at Sq = 1 1.00-1.05x the 64-row
 * tiles, at Sq = 4 1.01-1.06x (bench/NOTES.md decode #8, #11); paged K/V with the page-table
 * entries a tile ahead (HD_KV_AHEAD), from shared memory where they fit there (HD_PT_TILES: then
 * one block an SM, as dense; #17), else with two blocks an SM (1.03-1.06x the TMA producer, #10). */
static void choose_ksplit(sd *s, const cg_target *t)
{
    bool fits = decode_class(s) && s->Sq * s->pack <= 16 && t->caps.vendor == CG_VENDOR_NVIDIA;
    /* at head dim 256 O's 128 registers a thread spill (255 + 76 bytes); knobs that ask for another
     * block (loaders, row tiles, warps) win over the shape */
    bool by_shape = t->sdpa_ksplit == 0 && s->D <= 128 && s->Dv <= 128 && t->sdpa_ws == 0 &&
                    t->sdpa_block_m <= 0 && t->sdpa_warps <= 0;
    s->ksplit = fits && (t->sdpa_ksplit == 4 || by_shape) ? 4 : 1;
    if (s->ksplit == 1)
        return;
    s->bm = 16, s->warps = 4, s->bn = t->sdpa_block_n == 128 ? 128 : 64;
    s->sm90 = s->tma_wg = s->pingpong = s->intra = false, s->ws = 0;
    s->stages = t->sdpa_stages > 0 ? t->sdpa_stages : 3;
    s->min_blocks = 2;
    s->kv_ahead = s->bs_k > 0; /* the page-table loads under the tile before (bench/NOTES.md decode #10) */
}

/* Query rows from which head dim 64 takes 128-row tiles (bench/NOTES.md #21). */
#define D64_FA3_ROWS 2048

/* Knobs where set; otherwise by head dim (FlashAttention-2's shapes on mma.sync: 4 warps, each
 * two m16 row tiles; 128-key tiles at small head dims, 64 at 128, 64 rows at 256; on wgmma 128
 * rows, 128-key tiles up to head dim 128 and 64 beyond, 64 rows a warpgroup at head dim 64 below
 * D64_FA3_ROWS query rows). */
static bool choose_tiles(sd *s, const cg_target *t, char *why, size_t len)
{
    int64_t dmax = s->D > s->Dv ? s->D : s->Dv;
    s->bm = dmax > 128 || decode_class(s) ? 64 : 128;
    s->bn = dmax <= 64 && !decode_class(s) ? 128 : 64;
    s->warps = 4;
    s->qbuf = 1;
    s->stages = decode_class(s) ? 3 : 2; /* decode: 3 stages, two blocks an SM (bench/NOTES.md) */
    if (t->sdpa_block_m > 0)
        s->bm = t->sdpa_block_m;
    if (t->sdpa_block_n > 0)
        s->bn = t->sdpa_block_n;
    if (t->sdpa_warps > 0)
        s->warps = t->sdpa_warps;
    if (t->sdpa_stages > 0)
        s->stages = t->sdpa_stages;
    if (s->bm % (16 * s->warps) != 0)
        s->warps = s->bm / 16 < s->warps ? s->bm / 16 : s->warps; /* 64 rows: at most 4 warps */
    s->sm90 = wgmma_fits(s, t);
    if (s->sm90 && t->sdpa_block_n <= 0 && !decode_class(s) && dmax <= 128)
        s->bn = 128; /* wgmma: 128-key tiles at head dims 64 and 128 */
    if (s->sm90 && t->sdpa_block_m <= 0 && !decode_class(s) && dmax > 128)
        s->bm = 128; /* 192 / 256: two warpgroups of 64 rows, 64-key tiles (O takes 96 / 128 registers) */
    /* head dim 64: one warpgroup, two blocks an SM for short queries (one block's start and end
     * under the other's loop); from 2048 query rows the FA3 schedule's 128 x 128 tiles
     * (bench/NOTES.md #21) */
    if (s->sm90 && t->sdpa_block_m <= 0 && dmax <= 64 && (decode_class(s) || s->Sq < D64_FA3_ROWS))
        s->bm = 64, s->bn = t->sdpa_block_n > 0 ? s->bn : 64;
    s->ws = s->sm90 ? loaders(s, t) : 0;
    /* by shape, two computing warpgroups behind the TMA producer run FlashAttention-3's schedule:
     * the producer a whole warpgroup giving its registers away, the two taking turns, each with
     * its softmax under the previous tile's P·V (bench/NOTES.md #9-#11); at head dim 256 the
     * producer warpgroup alone (O takes 128 registers: the overlap's second tile spills, #13) */
    bool fa3 = s->ws == 2 && s->bm == 128 && !decode_class(s) && t->sdpa_ws == 0;
    bool fa3_order = fa3 && dmax <= 192;
    s->tma_wg = s->ws == 2 && s->bm == 128 && (t->sdpa_ws == 4 || fa3);
    if (s->ws == 2 && t->sdpa_ws == 0 && t->sdpa_stages <= 0 && !decode_class(s))
        s->stages = 3; /* the TMA producer runs two tiles ahead (bench/NOTES.md) */
    if (s->sm90) /* 16 rows a computing warp; + the loaders */
        s->warps = s->bm / 16 + (s->ws == 1 || s->tma_wg ? 4 : s->ws == 2 ? 1 : 0);
    s->pingpong = s->ws && s->bm == 128 && (t->sdpa_pingpong == 2 || (fa3_order && t->sdpa_pingpong == 0));
    s->intra = s->ws && (t->sdpa_intra == 2 || (fa3_order && t->sdpa_intra == 0));
    /* decode and one-warpgroup tiles: two blocks an SM (launch bounds cap the registers at
     * 65536 / (2 · threads): at most 192 threads keep the 168 a 128-key wgmma tile needs; with 256
     * ptxas fails to allocate, found by gpu_sdpa/knobs_every_tile_shape); never with the cp.async
     * loaders, whose setmaxnreg.inc would wait forever for registers the second block holds */
    s->min_blocks = (decode_class(s) || s->bm == 64) && s->warps * 32 <= 192 && s->ws != 1 && !s->tma_wg ? 2 : 1;
    choose_ksplit(s, t);
    int cap = t->caps.smem_optin;
    s->kstages = s->vstages = s->stages;
    while (smem_bytes(s) > cap && s->stages > 2)
        s->kstages = s->vstages = --s->stages;
    s->overlap = s->sm90 && !s->ws && s->stages >= 3 && !decode_class(s); /* the stages that fit */
    while (smem_bytes(s) > cap && s->bn > (s->sm90 || s->ksplit > 1 ? 64 : 32))
        s->bn /= 2;
    if (smem_bytes(s) > cap)
        return cg_sdpa_fail(why, len, "attention tile does not fit in shared memory");
    return true;
}

/* Blocks of this shape one multiprocessor holds: shared memory (228 KB, 1 KB reserved a block)
 * and registers (64 K; launch bounds of one block let a thread take up to 255). */
static int blocks_per_sm(const sd *s)
{
    int by_smem = (228 * 1024) / (smem_bytes(s) + 1024);
    int by_regs = s->min_blocks > 1 ? s->min_blocks : 65536 / (s->warps * 32 * 256);
    int n = by_smem < by_regs ? by_smem : by_regs;
    return n < 1 ? 1 : n;
}

/* Threads' copies of pages that hold whole tiles (tiles start at multiples of HD_BN) take one
 * page-table entry a tile: by shape wherever it fits (paged decode +0-2%, bench/NOTES.md decode
 * #14); with it the entries may load more than a tile ahead (jit.sdpa_kv_ahead). */
#define KV_AHEAD_BY_SHAPE 1
static void choose_paged(sd *s, const cg_target *t)
{
    s->page_tile = t->sdpa_page_tile != 1 && s->bs_k > 0 && s->ws != 2 && s->bs_k % s->bn == 0 &&
                   s->bs_v % s->bn == 0;
    if (s->kv_ahead && s->page_tile)
        s->kv_ahead = t->sdpa_kv_ahead > 0 ? t->sdpa_kv_ahead : KV_AHEAD_BY_SHAPE;
}

/* The block's page-table entries (one a tile and operand, 4 bytes each) copied to shared memory at
 * its start (HD_PT_TILES), on the sequential loop, at most PT_TILES_MAX tiles a block, where the
 * blocks an SM stay as many. A table load issued among the K/V copies comes back behind them (the
 * memory's queues are full in a streaming kernel): with the entries loaded a tile ahead, one block
 * an SM spent 13% of its stall samples on the first use of an entry (bench/NOTES.md decode #17). */
#define PT_TILES_MAX 512
static int pt_tiles_for(const sd *s, const cg_target *t, int split)
{
    if (!s->page_tile || s->ws || s->overlap || t->sdpa_page_smem == 1)
        return 0;
    int64_t tiles = ((s->Skv + s->bn - 1) / s->bn + split - 1) / split;
    return tiles <= PT_TILES_MAX ? (int)tiles : 0;
}

static void choose_page_smem(sd *s, const cg_target *t)
{
    int before = blocks_per_sm(s);
    s->pt_tiles = pt_tiles_for(s, t, s->split);
    if (s->pt_tiles && (smem_bytes(s) > t->caps.smem_optin || blocks_per_sm(s) < before))
        s->pt_tiles = 0;
}

/* The split count on the device (knob 0): as many splits as fill its multiprocessors once
 * (every block streams the same share of keys, so one full wave wastes nothing), within the
 * scratch's room; the shape's choice when the device is unknown. */
static void device_split(sd *s, const cg_target *t)
{
    if (t->sdpa_splits > 0 || s->split_cap <= 1 || t->sm_count <= 0)
        return;
    int64_t base = s->B * (s->Hq / s->pack) * ((s->Sq * s->pack + s->bm - 1) / s->bm);
    int64_t one = (int64_t)t->sm_count / base; /* splits of one block an SM */
    one = one < s->split_cap ? one : s->split_cap;
    /* the warps splitting the keys keep one block an SM's copies in flight: one block an SM, with
     * paged K/V too where the page entries fit in shared memory (bench/NOTES.md decode #17);
     * otherwise paged K/V two, one's page-table waits under the other's copies (#10) */
    bool one_block = s->ksplit > 1 && (!s->kv_ahead || pt_tiles_for(s, t, one < 2 ? 1 : (int)one) > 0);
    int64_t n = one_block ? one : (int64_t)t->sm_count * blocks_per_sm(s) / base;
    n = n < s->split_cap ? n : s->split_cap;
    s->split = n < 2 ? 1 : (int)n;
}

/* K/V bytes the persistent grid's group of heads may keep in L2 (half of the H200's 50 MB). */
#define L2_KV_BYTES (24LL << 20)

/* Whether the kernel runs FlashAttention-3's schedule (the producer warpgroup, the two computing
 * warpgroups taking turns, each in FA3's order): the defaults of HD_O_TMA and HD_L2_AHEAD. */
static bool fa3_schedule(const sd *s) { return s->intra && s->pingpong && s->tma_wg; }

/* The persistent grid by shape (knob 0), behind the producer warpgroup on a known device, Q in one
 * buffer (bench/NOTES.md #29): at head dim 128 with FlashAttention-3's schedule under any mask
 * (1.00-1.10x one block a work tile at 1k-16k keys); under a causal or band mask at the other head
 * dims too (+10-15% at 64, 192, 256 with 4k keys; without one they measured even). Under a band the
 * tiles' costs differ: FA3's schedule takes them from a counter (the dynamic scheduler balances
 * them), the producer warpgroup alone (head dim 256) in the static walk, which measured ahead
 * there; beyond 8k keys under a band one block a work tile (the dynamic order's L2 use measured
 * unsteady at 16k: 607-683 TFLOP/s over four calls, one block a tile 681-686); without a band the
 * static walk (equal tiles: no atomic a tile). Under a mask modifier the work tiles' costs are
 * whatever the mask leaves: from the counter with FA3's schedule, else one block a work tile. */
static int persist_by_shape(const sd *s, const cg_target *t)
{
    if (t->sdpa_persist != 0)
        return t->sdpa_persist;
    if (!s->tma_wg || t->sm_count <= 0)
        return 1;
    if (s->has_mask) /* work tiles of any cost: the counter balances them (bench/NOTES.md, masks #1) */
        return fa3_schedule(s) ? 4 : 1;
    if (s->p->has_right) /* from 16k keys one block a tile measured steadier (681-686 vs 607-683) */
        return s->Skv > 8192 ? 1 : fa3_schedule(s) ? 4 : 3;
    return fa3_schedule(s) && s->D == 128 && s->Dv == 128 ? 3 : 1;
}

/* The persistent grid (HD_PERSIST, knob 2, 3 or 4, or by shape): behind the TMA producer, one
 * query head a row tile, no key split, no RNG_DUMP; knob 4 takes the work tiles from a counter
 * (HD_DYN). Q in two buffers (knob 2) where shared memory holds them with two
 * stages in each of the K and V rings (fewer V stages, then K's, where it must: the next work
 * tile's Q lands under this one's loop, and the producer runs ahead across work tiles anyway);
 * heads in groups whose K/V fit L2_KV_BYTES together; as many blocks as the device's
 * multiprocessors hold, at most one a work item (a pair of row tiles; one a work item when the
 * device is unknown). */
static void choose_persist(sd *s, const cg_target *t)
{
    const int knob = persist_by_shape(s, t);
    s->persist = s->ws == 2 && s->pack == 1 && s->split == 1 && s->out[IR_SDPA_RNG_DUMP] < 0 && knob >= 2;
    if (!s->persist)
        return;
    s->dyn = knob == 4;
    int cap = t->caps.smem_optin;
    s->qbuf = knob == 2 ? 2 : 1;
    while (s->qbuf == 2 && smem_bytes(s) > cap && s->vstages > 2) /* V is needed a tile after K */
        s->vstages--;
    while (s->qbuf == 2 && smem_bytes(s) > cap && s->kstages > 2)
        s->kstages--;
    if (smem_bytes(s) > cap)
        s->qbuf = 1, s->kstages = s->vstages = s->stages;
    s->kv_apart = s->qbuf == 2; /* two stages a ring: K must go back before its tile's P·V */
    int64_t kv = s->Skv * (s->D + s->Dv) * 2, heads = L2_KV_BYTES / (kv > 0 ? kv : 1) * (s->Hq / s->Hk);
    int64_t all = s->B * s->Hq;
    s->l2_heads = (int)(heads < 1 ? 1 : heads > all ? all : heads);
    int64_t items = ((s->Sq + s->bm - 1) / s->bm + 1) / 2 * all, most = (int64_t)t->sm_count * blocks_per_sm(s);
    s->blocks = (unsigned)(t->sm_count > 0 && most < items ? most : items);
}

/* O through shared memory and TMA stores (HD_O_TMA): behind the TMA producer, one query head a
 * row tile, no key split, O of Q's 16-bit type in rows TMA can address (16-byte strides), its
 * head dim a multiple of 64 no wider than Q's buffer rows. By shape (knob 0) with
 * FlashAttention-3's schedule (head dims up to 192), where it measured 2-8% faster
 * (bench/NOTES.md #18). */
static void choose_o_tma(sd *s, const cg_target *t)
{
    const ir_tensor *o = T(s, s->out[IR_SDPA_O]);
    int64_t dp = (s->D + 63) / 64 * 64;
    bool fits = s->ws == 2 && s->sm90 && s->pack == 1 && s->split == 1 && o->dtype == T(s, s->in[IR_SDPA_Q])->dtype &&
                cg_sdpa_rows_ok(o) && s->Dv % 64 == 0 && s->Dv <= dp;
    s->o_tma = fits && (t->sdpa_o_tma == 2 || (t->sdpa_o_tma == 0 && fa3_schedule(s)));
}

/* The L2 prefetch one wave ahead (HD_L2_AHEAD = the blocks the device's multiprocessors hold at
 * once): behind the TMA producer on one block a work tile, one query head a row tile, no key
 * split, the device known. By shape (knob 0) with FlashAttention-3's schedule, where it measured
 * even to +2.6% (causal; bench/NOTES.md #22). */
static void choose_l2_ahead(sd *s, const cg_target *t)
{
    bool fits = s->ws == 2 && !s->persist && s->pack == 1 && s->split == 1 && t->sm_count > 0;
    bool by_shape = t->sdpa_l2_ahead == 0 && fa3_schedule(s);
    s->l2_ahead = fits && (t->sdpa_l2_ahead == 2 || by_shape) ? t->sm_count * blocks_per_sm(s) : 0;
}

/* ---- hooks --------------------------------------------------------------------------------- */

/* A paged K or V row (pre: "k" or "v"): the page table names the container block of token i.
 * hd_<pre>_page loads the entry, hd_<pre>_row computes the offset from it, hd_<pre>_off both. */
static void paged_hook(const sd *s, const char *pre, int ti, int table, int64_t heads, int64_t bs,
                       base_sb *sb)
{
    const ir_tensor *c = T(s, ti), *pt = T(s, table);
    base_sb_printf(sb, "HD_DEVICE hd_i64 hd_%s_page(int b, int i, HD_PARAMS)\n{\n"
                   "    return hd_ldi<%s>(p%d, (hd_i64)b * %lldLL + (hd_i64)(i / %lld) * %lldLL);\n}\n",
                   pre, cg_dtype(pt->dtype) ? cg_dtype(pt->dtype) : "HD_DT_INT64", table,
                   (long long)pt->strides[0], (long long)bs, (long long)pt->strides[2]);
    base_sb_printf(sb, "HD_DEVICE hd_i64 hd_%s_row(hd_i64 blk, int b, int h, int i, HD_PARAMS)\n{\n"
                   "    blk = blk < 0 || blk >= %lldLL ? 0 : blk; /* a bad entry reads block 0, never "
                   "outside the container */\n"
                   "    return blk * %lldLL + (hd_i64)(h / %lld) * %lldLL + (hd_i64)(i %% %lld) * %lldLL;\n}\n",
                   pre, (long long)c->dims[0], (long long)c->strides[0], (long long)(s->Hq / heads),
                   (long long)c->strides[1], (long long)bs, (long long)c->strides[2]);
    base_sb_printf(sb, "#define HD_%c_PAGE_ROW %lldLL /* a page's key stride */\n", pre[0] == 'k' ? 'K' : 'V',
                   (long long)c->strides[2]);
    base_sb_printf(sb, "HD_DEVICE hd_i64 hd_%s_off(int b, int h, int i, HD_PARAMS)\n{\n"
                   "    return hd_%s_row(hd_%s_page(b, i, HD_ARGS), b, h, i, HD_ARGS);\n}\n", pre, pre, pre);
}

/* hd_k_at / hd_v_at(b, h, j, c1, c2, c3): the TMA coordinates (dims 1 .. 3 of map_of's map) of
 * key j's row for query head h: (K/V head, row, batch), or with paging (head, row in its page,
 * the page's block; a bad table entry reads block 0, never outside the container). */
static void coord_hook(const sd *s, const char *name, int ti, int table, int64_t heads, int64_t bs, base_sb *sb)
{
    base_sb_printf(sb, "HD_DEVICE void %s(int b, int h, int j, int &c1, int &c2, int &c3, HD_PARAMS)\n{\n"
                   "    c1 = h / %lld;\n", name, (long long)(s->Hq / heads));
    if (table < 0) {
        base_sb_puts(sb, "    c2 = j, c3 = b;\n}\n");
        return;
    }
    const ir_tensor *pt = T(s, table);
    base_sb_printf(sb, "    hd_i64 blk = hd_ldi<%s>(p%d, (hd_i64)b * %lldLL + (hd_i64)(j / %lld) * %lldLL);\n"
                   "    c2 = j %% %lld, c3 = blk < 0 || blk >= %lldLL ? 0 : (int)blk;\n}\n",
                   cg_dtype(pt->dtype) ? cg_dtype(pt->dtype) : "HD_DT_INT64", table, (long long)pt->strides[0],
                   (long long)bs, (long long)pt->strides[2], (long long)bs, (long long)T(s, ti)->dims[0]);
}

/* The tensor map over Q, K or V ([B|blocks, H, S|page, D]): dims (D, H, S, B), boxes of 64
 * columns x `rows` rows of one head (K/V: box_rows; Q: a row tile). */
static cg_tmap map_of(const sd *s, int ti, int rows)
{
    const ir_tensor *t = T(s, ti);
    return (cg_tmap){.rank = 4, .dims = {(uint64_t)t->dims[3], (uint64_t)t->dims[1], (uint64_t)t->dims[2],
                                         (uint64_t)t->dims[0]},
                     .strides = {(uint64_t)t->strides[1] * 2, (uint64_t)t->strides[2] * 2, (uint64_t)t->strides[0] * 2},
                     .box = {64, 1, (uint32_t)rows, 1}};
}

/* The custom dropout mask, P's dropout scale and the RNG_DUMP store. */
static void dropout_hooks(const sd *s, base_sb *defs, base_sb *hooks)
{
    const char *coord[4] = {"b", "h", "i", "j"};
    int mask = s->in[IR_SDPA_DROPOUT_MASK], scale = s->in[IR_SDPA_DROPOUT_SCALE], dump = s->out[IR_SDPA_RNG_DUMP];
    base_sb_printf(defs, "#define HD_DMASK %d\n#define HD_RNG_DUMP %d\n", mask >= 0, dump >= 0);
    if (mask >= 0)
        cg_sdpa_bshs_hook(s->g, "hd_dmask", mask, hooks);
    cg_sdpa_drop_scale_hook(s->g, s->p->dropout_p, scale, hooks);
    if (dump >= 0) {
        base_sb_printf(hooks, "HD_DEVICE void hd_rng_dump(int b, int h, int i, int j, float m, HD_PARAMS)\n{\n"
                       "    hd_st<%s>(p%d, ", cg_dtype(T(s, dump)->dtype), dump);
        cg_sdpa_offset(s->g, dump, coord, hooks);
        base_sb_puts(hooks, ", m);\n}\n");
    }
}

/* A float expression for operand ti of a score modifier op: the score, a chain result (t<i>), a
 * scalar (cg_sdpa_scalar_value) or a tensor in memory read at (b, h, i, j). */
static void mod_operand(const sd *s, int ti, char *buf, size_t n)
{
    const ir_tensor *t = T(s, ti);
    base_sb sb = {0};
    if (t->score)
        snprintf(buf, n, "s");
    else if (t->is_virtual)
        snprintf(buf, n, "t%d", ti);
    else {
        if (cg_sdpa_numel(t) == 1)
            cg_sdpa_scalar_value(s->g, ti, &sb);
        else
            cg_sdpa_elem_load(s->g, ti, &sb);
        snprintf(buf, n, "%s", sb.oom ? "0.0f" : base_sb_str(&sb));
    }
    base_sb_free(&sb);
}

/* One statement of a score modifier: division and tanh in their fast forms (hd_div, about 2 ulp;
 * hd_tanh_fast, tanh.approx.f32 on NVIDIA, about 2^-11 relative: both far under the bf16/fp16
 * rounding of P), the rest as every pointwise kernel spells them. */
static void mod_stmt(base_sb *sb, const ir_op *op, const char *out, const char *a, const char *b, const char *c)
{
    if (op->a.pw.mode == HIPDNN_POINTWISE_DIV && b != NULL)
        base_sb_printf(sb, "%s = hd_div(%s, %s);\n", out, a, b);
    else if (op->a.pw.mode == HIPDNN_POINTWISE_TANH_FWD)
        base_sb_printf(sb, "%s = hd_tanh_fast(%s);\n", out, a);
    else
        cg_pointwise_stmt(sb, op, out, a, b, c, "0");
}

/* The constant factor k of op (MUL by a by-value constant, or DIV by one: 1 / c) and its other
 * operand. */
static bool mod_factor(const sd *s, const ir_op *op, double *k, int *other)
{
    double a, b;
    if (op->kind != IR_OP_POINTWISE || op->n_in < 2 || op->in[0] < 0 || op->in[1] < 0)
        return false;
    bool ca = cg_const_value(s->g, op->in[0], &a), cb = cg_const_value(s->g, op->in[1], &b);
    if (op->a.pw.mode == HIPDNN_POINTWISE_MUL && ca != cb) {
        *k = ca ? a : b, *other = ca ? op->in[1] : op->in[0];
        return true;
    }
    if (op->a.pw.mode == HIPDNN_POINTWISE_DIV && cb && !ca && b != 0.0) {
        *k = 1.0 / b, *other = op->in[0];
        return true;
    }
    return false;
}

/* The constant factors at the ends of the chain, which need no statement of their own:
 *   first: the only op reading the score multiplies it by a constant k (or divides it by one)
 *          and the attention scale is a constant: the hook takes the raw S and multiplies it by
 *          scale · k once (HD_MOD_RAW), where it would multiply by the scale, then by k;
 *   post:  the result is a modifier result times a positive constant c: the hook returns the
 *          former and c joins log2 e in the factor after it (HD_MOD_POST), which with nothing
 *          added to the scores folds into the exponent (HD_FOLD).
 * Softcap c·tanh(S·scale / c) becomes tanh(S · (scale / c)) with c · log2 e in the exponent: one
 * multiply, the tanh and the exponent's FMA a score, where the chain as written takes four
 * multiplies (bench/NOTES.md). */
typedef struct mod_ends {
    int first, post;     /* op index in g (-1: none) */
    double first_k, post_c;
    int result;          /* the tensor the hook returns (post's other operand, else the chain's result) */
} mod_ends;

/* Whether op n of the kernel is one of the score modifier's (not the mask modifier's). */
static bool score_op(const sd *s, int n)
{
    return s->k->part[n] == IR_PART_SCORE && !cg_sdpa_mask_has(&s->mask, s->k->ops[n]);
}

static mod_ends mod_fold(const sd *s)
{
    int result = s->op->in[IR_SDPA_SCORE_MOD];
    mod_ends e = {.first = -1, .post = -1, .first_k = 1.0, .post_c = 1.0, .result = result};
    if (!s->mod_fold)
        return e;
    int readers = 0, reader = -1;
    for (int n = 0; n < s->k->n_ops; n++) {
        const ir_op *op = &s->g->ops[s->k->ops[n]];
        for (int q = 0; score_op(s, n) && q < op->n_in; q++)
            if (op->in[q] >= 0 && T(s, op->in[q])->score)
                readers++, reader = s->k->ops[n];
    }
    double k, scale = s->p->attn_scale;
    int other;
    bool const_scale = s->in[IR_SDPA_SCALE] < 0 || cg_const_value(s->g, s->in[IR_SDPA_SCALE], &scale);
    if (readers == 1 && const_scale && mod_factor(s, &s->g->ops[reader], &k, &other) && T(s, other)->score)
        e.first = reader, e.first_k = scale * k;
    int producer = T(s, result)->producer;
    if (producer >= 0 && producer != e.first && mod_factor(s, &s->g->ops[producer], &k, &other) && k > 0 &&
        T(s, other)->is_virtual && !T(s, other)->score)
        e.post = producer, e.post_c = k, e.result = other;
    return e;
}

/* HD_SCORE_MOD and hd_score_mod(s, b, h, i, j): the chain's statements, in graph order, but for
 * the constant factors at its ends (mod_fold). */
static void score_hook(const sd *s, const mod_ends *e, base_sb *defs, base_sb *hooks)
{
    base_sb_printf(defs, "#define HD_SCORE_MOD 1\n#define HD_MOD_RAW %d\n#define HD_MOD_POST %.9ef\n", e->first >= 0,
                   e->post_c);
    base_sb_puts(hooks, "HD_DEVICE float hd_score_mod(float s, int b, int h, int i, int j, HD_PARAMS)\n{\n"
                        "    (void)b, (void)h, (void)i, (void)j;\n");
    for (int n = 0; n < s->k->n_ops; n++) {
        const ir_op *op = &s->g->ops[s->k->ops[n]];
        if (!score_op(s, n) || s->k->ops[n] == e->post)
            continue;
        if (s->k->ops[n] == e->first) {
            base_sb_printf(hooks, "    float t%d = s * %.9ef; /* the scale times the op's factor */\n", op->out[0],
                           e->first_k);
            continue;
        }
        char a[3][320], out[32];
        for (int q = 0; q < 3; q++)
            if (q < op->n_in && op->in[q] >= 0 && op->a.pw.mode != HIPDNN_POINTWISE_GEN_INDEX)
                mod_operand(s, op->in[q], a[q], sizeof a[q]);
        snprintf(out, sizeof out, "    float t%d", op->out[0]);
        if (op->a.pw.mode == HIPDNN_POINTWISE_GEN_INDEX) /* the score's coordinate along its axis */
            cg_pointwise_stmt(hooks, op, out, "0.0f", NULL, NULL, cg_sdpa_index_coord(s->g, op));
        else
            mod_stmt(hooks, op, out, a[0], op->n_in > 1 && op->in[1] >= 0 ? a[1] : NULL,
                     op->n_in > 2 && op->in[2] >= 0 ? a[2] : NULL);
        cg_sdpa_round_stmt(T(s, op->out[0]), op->out[0], hooks);
    }
    base_sb_printf(hooks, "    return t%d;\n}\n", e->result);
}

/* Whether tensor ti is the result of a score modifier op of the kernel. */
static bool mod_result(const sd *s, int ti)
{
    for (int n = 0; n < s->k->n_ops; n++)
        if (s->k->part[n] == IR_PART_SCORE && s->g->ops[s->k->ops[n]].out[0] == ti)
            return true;
    return false;
}

/* Every operand of the score modifier is the score, a modifier result, a one-element scalar the
 * hook can read (by value, run-time, or in memory of a type hd_ld loads), or a tensor in memory
 * broadcast to [B,Hq,Sq,Skv] of a type the hook loads; GEN_INDEX gives the score's coordinate
 * along a rank-4 axis (index-aware modifiers). A mask modifier's ops are cg_sdpa_mask.c's. */
static bool check_mod(const sd *s, char *why, size_t len)
{
    const int64_t full[4] = {s->B, s->Hq, s->Sq, s->Skv};
    for (int n = 0; n < s->k->n_ops; n++) {
        const ir_op *op = &s->g->ops[s->k->ops[n]];
        if (score_op(s, n) && op->a.pw.mode == HIPDNN_POINTWISE_GEN_INDEX) {
            const ir_tensor *y = T(s, op->out[0]);
            int64_t axis = op->a.pw.axis < 0 ? op->a.pw.axis + y->rank : op->a.pw.axis;
            if (y->rank != 4 || axis < 0 || axis > 3)
                return cg_sdpa_fail(why, len, "a score modifier's GEN_INDEX must give a rank-4 index along axis 0..3");
            continue;
        }
        for (int q = 0; score_op(s, n) && q < op->n_in; q++) {
            const ir_tensor *t = op->in[q] >= 0 ? T(s, op->in[q]) : NULL;
            if (t == NULL || t->score || mod_result(s, op->in[q]))
                continue;
            if (t->is_virtual || (cg_sdpa_numel(t) != 1 && !cg_sdpa_loadable(s->g, op->in[q], full)))
                return cg_sdpa_fail(why, len, "a score modifier operand that is neither the score, a step of it, a "
                                    "one-element scalar nor a tensor in memory of a loadable type broadcasting to "
                                    "[B,Hq,Sq,Skv] has no kernel template");
            if (cg_sdpa_numel(t) == 1 && !t->by_value && !t->runtime_scalar && cg_dtype(t->dtype) == NULL)
                return cg_sdpa_fail(why, len, "a score modifier scalar of a type templates cannot load");
        }
    }
    return true;
}

static void option_hooks(const sd *s, base_sb *defs, base_sb *hooks)
{
    const int *in = s->in;
    cg_sdpa_scale_hook(s->g, in[IR_SDPA_SCALE], s->p->attn_scale, hooks);
    cg_sdpa_seq_hook(s->g, "hd_seq_q", in[IR_SDPA_SEQ_Q], s->Sq, hooks);
    cg_sdpa_seq_hook(s->g, "hd_seq_kv", in[IR_SDPA_SEQ_KV], s->Skv, hooks);
    base_sb_printf(defs, "#define HD_BIAS %d\n#define HD_ALIBI %d\n#define HD_SINK %d\n#define HD_DROPOUT %d\n"
                   "#define HD_FOLD %d\n", in[IR_SDPA_BIAS] >= 0, s->p->alibi, in[IR_SDPA_SINK] >= 0,
                   s->p->dropout_p > 0, in[IR_SDPA_BIAS] < 0 && !s->p->alibi &&
                   (s->n_mod > 0 ? s->mod_fold : cg_sdpa_positive_scale(s->g, in[IR_SDPA_SCALE], s->p->attn_scale)));
    if (s->n_mod > 0) { /* the factor after a modifier is HD_MOD_POST, positive: it folds (jit.sdpa_mod_fold) */
        mod_ends e = mod_fold(s);
        score_hook(s, &e, defs, hooks);
    }

    if (in[IR_SDPA_BIAS] >= 0)
        cg_sdpa_bshs_hook(s->g, "hd_bias", in[IR_SDPA_BIAS], hooks);
    if (s->p->alibi)
        cg_sdpa_alibi_hook(s->Hq, hooks);
    if (in[IR_SDPA_SINK] >= 0) {
        const char *hc[4] = {NULL, "h", NULL, NULL};
        base_sb_printf(hooks, "HD_DEVICE float hd_sink(int h, HD_PARAMS)\n{\n    return hd_ld<%s>(p%d, ",
                       cg_dtype(T(s, in[IR_SDPA_SINK])->dtype), in[IR_SDPA_SINK]);
        cg_sdpa_offset(s->g, in[IR_SDPA_SINK], hc, hooks);
        base_sb_puts(hooks, ");\n}\n");
    }
    dropout_hooks(s, defs, hooks);
    if (s->p->dropout_p > 0)
        cg_sdpa_philox_hooks(s->g, s->p->dropout_p, in[IR_SDPA_SEED], in[IR_SDPA_OFFSET], hooks);
    cg_sdpa_stats_hook(s->g, &s->out[IR_SDPA_STATS], hooks);
}

/* Sizes, band, tile shape, pointers; the row hooks of Q, K, V, O. */
static void shape_defs(const sd *s, base_sb *defs, base_sb *hooks)
{
    base_sb_printf(defs, "#define HD_DT %s\n#define HD_O_DT %s\n#define HD_B %lld\n#define HD_HQ %lld\n"
                   "#define HD_SQ %lld\n#define HD_SKV %lld\n#define HD_D %lld\n#define HD_DV %lld\n",
                   cg_dtype(T(s, s->in[IR_SDPA_Q])->dtype), cg_dtype(T(s, s->out[IR_SDPA_O])->dtype),
                   (long long)s->B, (long long)s->Hq, (long long)s->Sq, (long long)s->Skv,
                   (long long)s->D, (long long)s->Dv);
    base_sb_printf(defs, "#define HD_BM %d\n#define HD_BN %d\n#define HD_WARPS %d\n#define HD_STAGES %d\n"
                   "#define HD_SM90 %d\n#define HD_WS %d\n#define HD_OVERLAP %d\n#define HD_PACK %d\n"
                   "#define HD_SPLIT %d\n#define HD_MIN_BLOCKS %d\n#define HD_PINGPONG %d\n#define HD_INTRA %d\n"
                   "#define HD_TMA_WG %d\n", s->bm, s->bn, s->warps, s->stages, s->sm90, s->ws, s->overlap, s->pack,
                   s->split, s->min_blocks, s->pingpong, s->intra, s->tma_wg);
    if (s->trace)
        base_sb_puts(defs, "#define HD_TRACE 1\n");
    if (s->dyn)
        base_sb_puts(defs, "#define HD_DYN 1\n");
    if (s->ws == 2)
        base_sb_printf(defs, "#define HD_KSTAGES %d\n#define HD_VSTAGES %d\n#define HD_KV_APART %d\n", s->kstages,
                       s->vstages, s->kv_apart);
    const ir_tensor *o = T(s, s->out[IR_SDPA_O]);
    bool pair = cg_sdpa_is16(o->dtype) && o->strides[0] % 2 == 0 && o->strides[1] % 2 == 0 && o->strides[2] % 2 == 0;
    base_sb_printf(defs, "#define HD_O_PAIR %d\n#define HD_PERSIST %d\n#define HD_L2_HEADS %d\n#define HD_SW_EXP %d\n"
                   "#define HD_O_TMA %d\n#define HD_L2_AHEAD %d\n#define HD_QBUF %d\n#define HD_KSPLIT %d\n"
                   "#define HD_KV_AHEAD %d\n#define HD_TILE_PAGE %d\n#define HD_PT_TILES %d\n", pair, s->persist,
                   s->persist ? s->l2_heads : 1, s->sw_exp, s->o_tma, s->l2_ahead, s->qbuf, s->ksplit, s->kv_ahead,
                   s->page_tile, s->pt_tiles);
    cg_sdpa_band_defs(s->p, s->Sq, s->Skv, defs);
    base_sb_printf(defs, "#define HD_Q_PTR p%d\n#define HD_K_PTR p%d\n#define HD_V_PTR p%d\n#define HD_O_PTR p%d\n",
                   s->in[IR_SDPA_Q], s->in[IR_SDPA_K], s->in[IR_SDPA_V], s->out[IR_SDPA_O]);
    cg_sdpa_row_hook(s->g, "hd_q_off", s->in[IR_SDPA_Q], 1, hooks);
    cg_sdpa_row_hook(s->g, "hd_o_off", s->out[IR_SDPA_O], 1, hooks);
    if (s->ws == 2) {
        base_sb_printf(defs, "#define HD_BOX_ROWS %d\n", box_rows(s));
        coord_hook(s, "hd_k_at", s->in[IR_SDPA_K], s->in[IR_SDPA_PAGE_K], s->Hk, s->bs_k, hooks);
        coord_hook(s, "hd_v_at", s->in[IR_SDPA_V], s->in[IR_SDPA_PAGE_V], s->Hv, s->bs_v, hooks);
    }
    if (s->in[IR_SDPA_PAGE_K] >= 0) {
        base_sb_puts(defs, "#define HD_PAGED 1\n");
        paged_hook(s, "k", s->in[IR_SDPA_K], s->in[IR_SDPA_PAGE_K], s->Hk, s->bs_k, hooks);
        paged_hook(s, "v", s->in[IR_SDPA_V], s->in[IR_SDPA_PAGE_V], s->Hv, s->bs_v, hooks);
    } else {
        cg_sdpa_row_hook(s->g, "hd_k_off", s->in[IR_SDPA_K], s->Hq / s->Hk, hooks);
        cg_sdpa_row_hook(s->g, "hd_v_off", s->in[IR_SDPA_V], s->Hq / s->Hv, hooks);
    }
}

/* Fills s from the kernel's anchor and checks everything but the target; the decode plan by shape. */
static bool plan(sd *s, const ir_graph *g, const ir_kernel *k, char *why, size_t why_len)
{
    *s = (sd){.g = g, .k = k, .op = &g->ops[k->anchor]};
    s->p = &s->op->a.sdpa;
    for (int i = 0; i < IR_SDPA_N_IN; i++)
        s->in[i] = i < s->op->n_in ? s->op->in[i] : -1;
    for (int i = 0; i < IR_SDPA_N_OUT; i++)
        s->out[i] = i < s->op->n_out ? s->op->out[i] : -1;
    s->has_mask = s->in[IR_SDPA_MASK_MOD] >= 0;
    if (s->has_mask && !cg_sdpa_mask_ops(g, k->anchor, s->in[IR_SDPA_MASK_MOD], &s->mask, why, why_len))
        return false;
    for (int n = 0; n < k->n_ops; n++)
        s->n_mod += score_op(s, n);
    if (k->n_ops != 1 + s->n_mod + s->mask.n)
        return cg_sdpa_fail(why, why_len, "attention fused with other ops than score and mask modifiers has no "
                            "template yet");
    if (s->out[IR_SDPA_O] < 0 || !check_qkv(s, why, why_len) || !check_mod(s, why, why_len))
        return false;
    int64_t full[4] = {s->B, s->Hq, s->Sq, s->Skv};
    if ((s->has_mask && !cg_sdpa_mask_check(g, &s->mask, full, why, why_len)) || !check_options(s, why, why_len))
        return false;
    plan_decode(s);
    return true;
}

static unsigned cdiv(int64_t a, int64_t b) { return (unsigned)((a + b - 1) / b); }

/* The main launch (row tiles x splits, K/V heads or query heads, batches) and, with split keys,
 * the combine launch and its scratch. */
static void set_launches(const sd *s, const cg_launch *mask_launch, cg_kernel *out)
{
    cg_launch main = {.entry = "hd_sdpa_fwd_kernel", .grid = {cdiv(s->Sq * s->pack, s->bm) * (unsigned)s->split,
                                                               (unsigned)(s->Hq / s->pack), (unsigned)s->B},
                      .block = {(unsigned)(s->warps * 32), 1, 1}, .smem = (unsigned)smem_bytes(s)};
    if (s->persist)
        main.grid[0] = s->blocks, main.grid[1] = main.grid[2] = 1;
    out->align = 16;
    out->n_then = 0;
    if (s->has_mask) { /* the lists first (sdpa_mask.h): a block a (row tile, head, batch) they keep */
        out->entry = mask_launch->entry, out->smem = 0;
        memcpy(out->grid, mask_launch->grid, sizeof out->grid);
        memcpy(out->block, mask_launch->block, sizeof out->block);
        out->then[out->n_then++] = main;
    } else {
        out->entry = main.entry, out->smem = main.smem;
        memcpy(out->grid, main.grid, sizeof out->grid);
        memcpy(out->block, main.block, sizeof out->block);
    }
    if (s->split > 1) /* starts under the splits' tail */
        out->then[out->n_then++] = (cg_launch){.entry = "hd_sdpa_combine_kernel",
                                               .grid = {(unsigned)(s->B * s->Hq * s->Sq), 1, 1},
                                               .block = {128, 1, 1}, .dependent = true};
    out->scratch = s->split > 1 || s->has_mask ? scratch_of(s) : 0; /* what the launches use */
}

hipdnnStatus_t cg_emit_sdpa(const ir_graph *g, const ir_kernel *k, const cg_target *t,
                            cg_kernel *out, char *why, size_t why_len)
{
    sd s;
    if (cg_sdpa_is_fp8(g, k)) /* the six FP8 factors: its own template (cg_sdpa_fp8.c) */
        return cg_emit_sdpa_fp8(g, k, t, out, why, why_len);
    if (!t->caps.mma_sync) {
        cg_sdpa_fail(why, why_len, "the attention template needs NVIDIA sm_80 or newer (cp.async, mma.sync bf16)");
        return HIPDNN_STATUS_NOT_SUPPORTED;
    }
    if (!plan(&s, g, k, why, why_len))
        return HIPDNN_STATUS_NOT_SUPPORTED;
    knob_decode(&s, t);
    if (!choose_tiles(&s, t, why, why_len))
        return HIPDNN_STATUS_NOT_SUPPORTED;
    if (s.has_mask && mask_bytes(&s, s.bm, s.bn) > mask_bound(&s)) {
        cg_sdpa_fail(why, why_len, "a mask modifier needs row tiles of 64 query rows or more (16 on the decode path) "
                     "and key tiles of 32 keys or more");
        return HIPDNN_STATUS_NOT_SUPPORTED;
    }
    choose_paged(&s, t);
    device_split(&s, t);
    choose_page_smem(&s, t);
    choose_persist(&s, t);
    choose_o_tma(&s, t);
    choose_l2_ahead(&s, t);
    s.trace = t->sdpa_trace == 1 && s.ws == 2;
    s.sw_exp = t->sdpa_sw_exp == 2; /* by shape: off until measured (bench/NOTES.md) */
    s.mod_fold = t->sdpa_mod_fold != 1; /* by shape: folded (softcap 0.79x -> 0.83x: bench/NOTES.md) */
    base_sb defs = {0}, hooks = {0};
    hipdnnStatus_t st = cg_collect_params(g, k, out, &defs);
    bool q_map = s.persist || s.l2_ahead > 0;
    int extra = (s.ws == 2 ? 2 + q_map + s.o_tma : 0) + (s.split > 1 || s.has_mask) + s.dyn; /* maps, workspace, counter */
    if (st == HIPDNN_STATUS_SUCCESS && out->n_args + extra > CG_MAX_ARGS)
        st = base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "codegen: a kernel with more than %d parameters", CG_MAX_ARGS);
    if (st == HIPDNN_STATUS_SUCCESS) {
        if (s.ws == 2) {
            /* K's, V's, Q's (the persistent grid, the L2 prefetch), O's (HD_O_TMA: 64-row boxes, one a
             * warpgroup) */
            int maps[4] = {s.in[IR_SDPA_K], s.in[IR_SDPA_V], s.in[IR_SDPA_Q], s.out[IR_SDPA_O]};
            int rows[4] = {box_rows(&s), box_rows(&s), s.bm, 64};
            for (int m = 0; m < 4; m++)
                if (m < 2 || (m == 2 && q_map) || (m == 3 && s.o_tma))
                    out->args[out->n_args++] = (cg_arg){.kind = CG_ARG_TMAP, .tensor = maps[m],
                                                        .map = map_of(&s, maps[m], rows[m])};
        }
        if (s.split > 1 || s.has_mask) /* the split's scratch, the mask's lists */
            out->args[out->n_args++] = (cg_arg){.kind = CG_ARG_WORKSPACE, .tensor = -1};
        if (s.dyn) /* the work-tile counter (HD_DYN) */
            out->args[out->n_args++] = (cg_arg){.kind = CG_ARG_COUNTER, .tensor = -1};
        cg_launch mask_launch = {0};
        shape_defs(&s, &defs, &hooks);
        option_hooks(&s, &defs, &hooks);
        if (s.has_mask) {
            cg_sdpa_mask_geom x = mask_geom(&s, s.bm, s.bn);
            cg_sdpa_mask_hooks(g, &s.mask, &x, &defs, &hooks, &mask_launch);
        }
        set_launches(&s, &mask_launch, out);
        if (s.sm90)
            snprintf(out->arch, sizeof out->arch, "%s", t->caps.wgmma_arch);
        st = cg_assemble(t, "sdpa_fwd.hip", &defs, &hooks, out);
    }
    base_sb_free(&defs);
    base_sb_free(&hooks);
    return st;
}

int64_t cg_sdpa_fwd_scratch(const ir_graph *g, const ir_kernel *k)
{
    sd s;
    char why[256];
    return !cg_sdpa_is_fp8(g, k) && plan(&s, g, k, why, sizeof why) ? scratch_of(&s) : 0;
}
